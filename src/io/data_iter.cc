#include "io/data_iter.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

namespace mxnet {
namespace io {

DataIterReg& DataIterReg::describe(const std::string& text) {
  description = text;
  return *this;
}

DataIterReg& DataIterReg::add_argument(const std::string& arg_name, const std::string& type_info,
                                       const std::string& doc) {
  arguments.push_back({arg_name, type_info, doc});
  return *this;
}

DataIterReg& DataIterReg::add_arguments(const std::vector<dmlc::ParamFieldInfo>& fields) {
  for (const auto& f : fields) arguments.push_back({f.name, f.type_info_str, f.description});
  return *this;
}

DataIterReg& DataIterReg::set_body(std::function<DataIter*()> fn) {
  body = std::move(fn);
  return *this;
}

std::unique_ptr<DataIter> DataIterReg::Create(const IterKwargs& kwargs) const {
  // Checked here against the full registered list too, so the message lists every valid
  // argument even when stacked iterators each parse part of the keys.
  for (const auto& kv : kwargs) {
    const bool known =
        std::any_of(arguments.begin(), arguments.end(), [&](const Arg& a) { return a.name == kv.first; });
    if (!known) {
      std::vector<std::string> names;
      for (const auto& a : arguments) names.push_back(a.name);
      detail::ThrowUnknownKey(name, kv.first, {&names});
    }
  }
  MX_CHECK(body != nullptr) << "data iterator " << name << " has no body";
  std::unique_ptr<DataIter> it(body());
  it->Init(kwargs);
  return it;
}

DataIterRegistry* DataIterRegistry::Get() {
  static DataIterRegistry inst;
  return &inst;
}

DataIterReg& DataIterRegistry::Register(const std::string& name) {
  if (by_name_.count(name)) {
    // Two registrations of one name are a build mistake; static initialisation cannot throw usefully.
    std::fprintf(stderr, "data iterator %s registered twice\n", name.c_str());
    std::abort();
  }
  entries_.push_back(std::make_unique<DataIterReg>());
  DataIterReg* reg = entries_.back().get();
  reg->name = name;
  by_name_[name] = reg;
  return *reg;
}

const DataIterReg* DataIterRegistry::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<const DataIterReg*> DataIterRegistry::List() const {
  std::vector<const DataIterReg*> out;
  for (const auto& e : entries_) out.push_back(e.get());
  std::sort(out.begin(), out.end(), [](const DataIterReg* a, const DataIterReg* b) { return a->name < b->name; });
  return out;
}

namespace detail {

bool Contains(const std::vector<std::string>& names, const std::string& key) {
  return std::find(names.begin(), names.end(), key) != names.end();
}

void ThrowUnknownKey(const std::string& iter_name, const std::string& key,
                     const std::vector<const std::vector<std::string>*>& known) {
  std::set<std::string> valid;
  for (const auto* names : known) valid.insert(names->begin(), names->end());
  std::ostringstream os;
  bool first = true;
  for (const auto& n : valid) {
    os << (first ? "" : ", ") << n;
    first = false;
  }
  MX_THROW("ValueError") << iter_name << ": unknown argument '" << key << "'; valid arguments: " << os.str();
}

void ThrowParamError(const std::string& iter_name, const IterKwargs& mine, const char* what,
                     const std::function<void(const std::pair<std::string, std::string>&)>& try_one) {
  // dmlc's enum and range messages do not always say which key they are about: find the one
  // key that fails alone.
  for (const auto& kv : mine) {
    try {
      try_one(kv);
    } catch (const dmlc::ParamError& e) {
      MX_THROW("ValueError") << iter_name << ": invalid value '" << kv.second << "' for argument '" << kv.first
                             << "': " << e.what();
    }
  }
  MX_THROW("ValueError") << iter_name << ": " << what;
}

}  // namespace detail
}  // namespace io
}  // namespace mxnet
