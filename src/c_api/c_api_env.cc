// Environment-variable introspection and run-time changes.
#include <cstdlib>
#include <string>
#include <vector>

#include "c_api/api_guard.h"
#include "mxnet/c_api.h"
#include "mxnet/env.h"
#include "mxnet/error.h"

namespace {
struct GetEnvTag;
struct ListEnvTag;
}  // namespace

int MXGetEnv(const char* name, const char** value) {
  API_BEGIN();
  MX_CHECK_KIND(name != nullptr, "ValueError") << "MXGetEnv: name is NULL.";
  bool found = false;
  auto& text = mxnet::capi::ThreadLocalReturn<GetEnvTag, std::string>();
  text = mxnet::env::Get(name, &found);
  *value = found ? text.c_str() : nullptr;
  API_END();
}

int MXSetEnv(const char* name, const char* value) {
  API_BEGIN();
  MX_CHECK_KIND(name != nullptr, "ValueError") << "MXSetEnv: name is NULL.";
  if (value == nullptr) {
    mxnet::env::Unset(name);
  } else {
    mxnet::env::Set(name, value);
  }
  API_END();
}

// Introspection works even when loading failed, so users can see what is wrong.
int MXListEnvVars(mx_uint* out_size, const char*** out_array) {
  API_BEGIN_UNCHECKED();
  struct Returned {
    std::vector<std::string> text;
    std::vector<const char*> ptrs;
  };
  auto& ret = mxnet::capi::ThreadLocalReturn<ListEnvTag, Returned>();
  ret.text.clear();
  ret.ptrs.clear();
  auto entries = mxnet::env::List();
  for (const auto& e : entries) {
    const auto& s = *e.spec;
    std::string old_names;
    for (const auto& a : mxnet::env::Aliases()) {
      if (&mxnet::env::GetSpec(a.current) == e.spec) old_names += (old_names.empty() ? "" : ",") + std::string(a.old_name);
    }
    ret.text.insert(ret.text.end(), {s.name, mxnet::env::TypeName(s.type), e.value, s.default_value,
                                     mxnet::env::DescribeAllowed(s), mxnet::env::SectionName(s.section),
                                     s.acted_on ? "1" : "0", s.runtime_mutable ? "1" : "0", e.is_set ? "1" : "0",
                                     s.doc, old_names});
  }
  for (const auto& t : ret.text) ret.ptrs.push_back(t.c_str());
  *out_size = static_cast<mx_uint>(entries.size());
  *out_array = ret.ptrs.data();
  API_END();
}
