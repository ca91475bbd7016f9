// The registry's state: the table, the parsed values, load-time parsing and run-time
// changes. This file is the only reader of MXNET_* variables in the library.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include "common/logging.h"
#include "mxnet/build_config.h"  // the acted-on column of GPU-only rows
#include "mxnet/env.h"
#include "mxnet/error.h"

extern char** environ;

namespace mxnet {
namespace env {

namespace {

using ::mxnet::env::Section;
using ::mxnet::env::Type;

const Spec kSpecs[] = {
#define MXNET_ENV_VAR(name, type, def, allowed, section, acted, mutable_, doc) \
  {#name, type, def, allowed, section, acted, mutable_, doc},
#include "mxnet/env_vars.def"
#undef MXNET_ENV_VAR
};
constexpr int kNumVars = static_cast<int>(Var::kCount);
static_assert(sizeof(kSpecs) / sizeof(kSpecs[0]) == kNumVars, "table and enum disagree");

/*! \brief Parsed value of one variable. Numbers are atomics: MXSetEnv may race readers. */
struct Value {
  std::atomic<int64_t> i{0};
  std::atomic<double> f{0};
  std::atomic<bool> is_set{false};
  std::string text;  // guarded by TextMutex()
  std::vector<int64_t> list;
};

Value* Values() {
  static Value values[kNumVars];
  return values;
}

std::mutex& TextMutex() {
  static std::mutex mu;
  return mu;
}

std::string& LoadErrorSlot() {
  static std::string error;
  return error;
}

void Store(int idx, const Parsed& p, bool is_set) {
  Value& v = Values()[idx];
  {
    std::lock_guard<std::mutex> lock(TextMutex());
    v.text = p.text;
    v.list = p.list;
  }
  v.i.store(p.i);
  v.f.store(p.f);
  v.is_set.store(is_set);
}

int IndexOf(const std::string& name) {
  for (int i = 0; i < kNumVars; ++i) {
    if (name == kSpecs[i].name) return i;
  }
  return -1;
}

const Alias* FindAlias(const std::string& name) {
  for (const Alias& a : Aliases()) {
    if (name == a.old_name) return &a;
  }
  return nullptr;
}

/*! \brief Warns once per old name that it was renamed. */
void WarnDeprecated(const Alias& alias) {
  static std::mutex mu;
  static std::set<std::string> warned;
  std::lock_guard<std::mutex> lock(mu);
  if (!warned.insert(alias.old_name).second) return;
  common::LogWarning(std::string(alias.old_name) + " is deprecated; use " + GetSpec(alias.current).name +
                     " instead (the old name is still honoured).");
}

bool IsRegistryPrefix(const std::string& name) {
  return name.rfind("MXNET_", 0) == 0 || name.rfind("NNVM_", 0) == 0;
}

// Defaults are parsed before anything else so accessors work even if load fails.
struct DefaultsInstaller {
  DefaultsInstaller() {
    for (int i = 0; i < kNumVars; ++i) Store(i, Parse(kSpecs[i], kSpecs[i].name, kSpecs[i].default_value), false);
  }
};

void EnsureDefaults() { static DefaultsInstaller installer; }

}  // namespace

const Spec& GetSpec(Var v) { return kSpecs[static_cast<int>(v)]; }

const std::vector<Alias>& Aliases() {
  static const std::vector<Alias> aliases = {
#define MXNET_ENV_ALIAS(old_name, current) {old_name, Var::current},
#include "env_aliases.def"
#undef MXNET_ENV_ALIAS
  };
  return aliases;
}

const char* TypeName(Type t) {
  switch (t) {
    case Type::kInt: return "int";
    case Type::kFloat: return "float";
    case Type::kBool: return "bool";
    case Type::kEnum: return "enum";
    case Type::kString: return "string";
    case Type::kIntList: return "int list";
  }
  return "?";
}

const char* SectionName(Section s) {
  switch (s) {
    case Section::kThreads: return "Threads";
    case Section::kMemory: return "Memory";
    case Section::kEngine: return "Engine";
    case Section::kExecution: return "Execution";
    case Section::kKVStore: return "KVStore";
    case Section::kProfiler: return "Profiler";
    case Section::kCuda: return "CUDA / cuDNN";
    case Section::kOneDNN: return "oneDNN";
    case Section::kPython: return "Python interface";
    case Section::kLogging: return "Logging";
    case Section::kOther: return "Other";
  }
  return "?";
}

int64_t GetInt(Var v) {
  EnsureDefaults();
  return Values()[static_cast<int>(v)].i.load(std::memory_order_relaxed);
}
double GetFloat(Var v) {
  EnsureDefaults();
  return Values()[static_cast<int>(v)].f.load(std::memory_order_relaxed);
}
bool GetBool(Var v) { return GetInt(v) != 0; }
bool IsSet(Var v) {
  EnsureDefaults();
  return Values()[static_cast<int>(v)].is_set.load();
}
std::string GetString(Var v) {
  EnsureDefaults();
  std::lock_guard<std::mutex> lock(TextMutex());
  return Values()[static_cast<int>(v)].text;
}
std::vector<int64_t> GetIntList(Var v) {
  EnsureDefaults();
  std::lock_guard<std::mutex> lock(TextMutex());
  return Values()[static_cast<int>(v)].list;
}

std::vector<Entry> List() {
  EnsureDefaults();
  std::vector<Entry> out;
  std::lock_guard<std::mutex> lock(TextMutex());
  for (int i = 0; i < kNumVars; ++i) out.push_back({&kSpecs[i], Values()[i].text, Values()[i].is_set.load()});
  return out;
}

std::string LoadFromEnvironment() {
  EnsureDefaults();
  std::string errors;
  auto record = [&](const std::string& msg) { errors += (errors.empty() ? "" : "\n") + msg; };
  for (int i = 0; i < kNumVars; ++i) {
    const char* raw = std::getenv(kSpecs[i].name);
    std::string name_as_set = kSpecs[i].name;
    if (raw == nullptr) {
      // The variable's old name, when only that one is set.
      for (const Alias& a : Aliases()) {
        if (static_cast<int>(a.current) == i && std::getenv(a.old_name)) {
          raw = std::getenv(a.old_name);
          name_as_set = a.old_name;
          WarnDeprecated(a);
          break;
        }
      }
    }
    if (raw == nullptr) {
      // Reloading (tests do) must forget a value that has since been removed.
      Store(i, Parse(kSpecs[i], kSpecs[i].name, kSpecs[i].default_value), false);
      continue;
    }
    try {
      Store(i, Parse(kSpecs[i], name_as_set, raw), true);
    } catch (const Error& e) {
      record(e.what());
    }
  }
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string name(*entry, std::strchr(*entry, '=') ? std::strchr(*entry, '=') - *entry : std::strlen(*entry));
    if (!IsRegistryPrefix(name) || IndexOf(name) >= 0) continue;
    if (const Alias* a = FindAlias(name)) {
      if (std::getenv(GetSpec(a->current).name)) {
        common::LogWarning(name + " is ignored because its new name " + GetSpec(a->current).name + " is also set.");
      }
      continue;
    }
    common::LogWarning("Unknown environment variable " + name + " is ignored; did you mean " + ClosestName(name) +
                       "?");
  }
  LoadErrorSlot() = errors;
  return errors;
}

const std::string& LoadError() { return LoadErrorSlot(); }

void Set(const std::string& name, const std::string& value) {
  EnsureDefaults();
  int idx = IndexOf(name);
  const Alias* alias = idx < 0 ? FindAlias(name) : nullptr;
  if (alias) {
    WarnDeprecated(*alias);
    idx = static_cast<int>(alias->current);
  }
  if (idx < 0) {
    if (IsRegistryPrefix(name)) {
      common::LogWarning("Unknown environment variable " + name + " has no effect here; did you mean " +
                         ClosestName(name) + "?");
    }
    setenv(name.c_str(), value.c_str(), 1);
    return;
  }
  const Spec& spec = kSpecs[idx];
  Parsed p = Parse(spec, name, value);  // throws naming the variable
  // Child processes see the new value either way.
  setenv(spec.name, value.c_str(), 1);
  if (!spec.runtime_mutable) {
    common::LogWarning(std::string(spec.name) +
                       " is read once when the library loads; the new value applies to processes started "
                       "from now on, not to this one.");
    return;
  }
  Store(idx, p, true);
}

void Unset(const std::string& name) {
  EnsureDefaults();
  int idx = IndexOf(name);
  if (idx < 0) {
    if (const Alias* a = FindAlias(name)) idx = static_cast<int>(a->current);
  }
  unsetenv(name.c_str());
  if (idx >= 0 && kSpecs[idx].runtime_mutable) Store(idx, Parse(kSpecs[idx], kSpecs[idx].name, kSpecs[idx].default_value), false);
}

std::string Get(const std::string& name, bool* found) {
  EnsureDefaults();
  int idx = IndexOf(name);
  if (idx < 0) {
    if (const Alias* a = FindAlias(name)) idx = static_cast<int>(a->current);
  }
  if (idx >= 0) {
    *found = true;
    std::lock_guard<std::mutex> lock(TextMutex());
    return Values()[idx].text;
  }
  const char* raw = std::getenv(name.c_str());
  *found = raw != nullptr;
  return raw ? raw : "";
}

}  // namespace env
}  // namespace mxnet
