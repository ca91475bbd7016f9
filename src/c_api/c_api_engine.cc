// Engine entry points: per-thread bulk size and pushing C functions with their own vars.
#include <memory>
#include <vector>

#include "c_api/api_guard.h"
#include "mxnet/c_api.h"
#include "mxnet/engine.h"
#include "mxnet/error.h"

namespace {

using mxnet::Context;
using mxnet::Engine;
using mxnet::FnProperty;
using mxnet::engine::VarHandle;

struct PushArgs {
  Context ctx;
  std::vector<VarHandle> const_vars;
  std::vector<VarHandle> mutable_vars;
  FnProperty prop{FnProperty::kNormal};
};

PushArgs ParsePushArgs(const char* api, void* func, ContextHandle ctx_handle, EngineVarHandle const_vars_handle,
                       int num_const_vars, EngineVarHandle mutable_vars_handle, int num_mutable_vars,
                       EngineFnPropertyHandle prop_handle) {
  MX_CHECK_KIND(func != nullptr, "ValueError") << api << ": the function is NULL.";
  MX_CHECK_KIND(ctx_handle != nullptr, "ValueError") << api << ": ctx_handle is NULL.";
  MX_CHECK_KIND(num_const_vars >= 0, "ValueError")
      << api << ": num_const_vars must be >= 0, got " << num_const_vars << ".";
  MX_CHECK_KIND(num_mutable_vars >= 0, "ValueError")
      << api << ": num_mutable_vars must be >= 0, got " << num_mutable_vars << ".";
  MX_CHECK_KIND(num_const_vars == 0 || const_vars_handle != nullptr, "ValueError")
      << api << ": const_vars_handle is NULL but num_const_vars is " << num_const_vars << ".";
  MX_CHECK_KIND(num_mutable_vars == 0 || mutable_vars_handle != nullptr, "ValueError")
      << api << ": mutable_vars_handle is NULL but num_mutable_vars is " << num_mutable_vars << ".";
  PushArgs args;
  const auto* c = static_cast<const Context*>(ctx_handle);
  args.ctx = Context::Create(c->dev_type, c->dev_id);
  auto* cv = static_cast<VarHandle*>(const_vars_handle);
  auto* mv = static_cast<VarHandle*>(mutable_vars_handle);
  args.const_vars.assign(cv, cv + num_const_vars);
  args.mutable_vars.assign(mv, mv + num_mutable_vars);
  for (VarHandle v : args.const_vars) MX_CHECK_KIND(v != nullptr, "ValueError") << api << ": a const var is NULL.";
  for (VarHandle v : args.mutable_vars) MX_CHECK_KIND(v != nullptr, "ValueError") << api << ": a mutable var is NULL.";
  if (prop_handle) {
    int prop = *static_cast<const int*>(prop_handle);
    MX_CHECK_KIND(prop >= 0 && prop <= static_cast<int>(FnProperty::kNoSkip), "ValueError")
        << api << ": unknown FnProperty " << prop << " (expected 0..7).";
    args.prop = static_cast<FnProperty>(prop);
  }
  return args;
}

/*! \brief Owns func_param: the deleter runs when the last copy of the pushed function goes. */
std::shared_ptr<void> OwnParam(void* func_param, EngineFuncParamDeleter deleter) {
  if (deleter) return std::shared_ptr<void>(func_param, deleter);
  return std::shared_ptr<void>(func_param, [](void*) {});
}

}  // namespace

int MXEngineSetBulkSize(int bulk_size, int* prev_bulk_size) {
  API_BEGIN();
  int prev = Engine::Get()->set_bulk_size(bulk_size);
  if (prev_bulk_size) *prev_bulk_size = prev;
  API_END();
}

int MXEnginePushAsync(EngineAsyncFunc async_func, void* func_param, EngineFuncParamDeleter deleter,
                      ContextHandle ctx_handle, EngineVarHandle const_vars_handle, int num_const_vars,
                      EngineVarHandle mutable_vars_handle, int num_mutable_vars, EngineFnPropertyHandle prop_handle,
                      int priority, const char* opr_name, bool wait) {
  API_BEGIN();
  PushArgs args = ParsePushArgs("MXEnginePushAsync", reinterpret_cast<void*>(async_func), ctx_handle, const_vars_handle,
                                num_const_vars, mutable_vars_handle, num_mutable_vars, prop_handle);
  auto param = OwnParam(func_param, deleter);
  Engine::Get()->PushAsync(
      [async_func, param](mxnet::RunContext rctx, mxnet::engine::CallbackOnComplete on_complete) {
        async_func(&rctx, &on_complete, param.get());
      },
      args.ctx, args.const_vars, args.mutable_vars, args.prop, priority, opr_name, wait);
  API_END();
}

int MXEnginePushSync(EngineSyncFunc sync_func, void* func_param, EngineFuncParamDeleter deleter,
                     ContextHandle ctx_handle, EngineVarHandle const_vars_handle, int num_const_vars,
                     EngineVarHandle mutable_vars_handle, int num_mutable_vars, EngineFnPropertyHandle prop_handle,
                     int priority, const char* opr_name) {
  API_BEGIN();
  PushArgs args = ParsePushArgs("MXEnginePushSync", reinterpret_cast<void*>(sync_func), ctx_handle, const_vars_handle,
                                num_const_vars, mutable_vars_handle, num_mutable_vars, prop_handle);
  auto param = OwnParam(func_param, deleter);
  Engine::Get()->PushSync([sync_func, param](mxnet::RunContext rctx) { sync_func(&rctx, param.get()); }, args.ctx,
                          args.const_vars, args.mutable_vars, args.prop, priority, opr_name);
  API_END();
}
