// The process engine (chosen by MXNET_ENGINE_TYPE), the factory, PushSync and the profiler hooks.
#include "mxnet/engine.h"

#include <cstdlib>
#include <string>

#include "common/logging.h"
#include "common/runtime_info.h"
#include "common/shutdown.h"
#include "engine/engine_config.h"
#include "engine/thread_policy.h"
#include "engine/threaded_engine.h"
#include "mxnet/env.h"
#include "mxnet/error.h"

namespace mxnet {

namespace {

std::atomic<const Engine::OprHooks*> g_opr_hooks{nullptr};

Engine* g_process_engine = nullptr;

void ShutdownProcessEngineAtExit() {
  // Runs before the destructors of statics built before the engine: workers must be gone
  // by then. Pending ops are skipped (deletions still run), as at MXNotifyShutdown.
  if (auto* threaded = dynamic_cast<engine::ThreadedEngine*>(g_process_engine)) {
    threaded->ShutdownForExit();
  } else if (g_process_engine) {
    g_process_engine->NotifyShutdown();
  }
}

void RecordRuntimeInfo(const std::string& type, const engine::EngineConfig& c) {
  common::SetRuntimeInfo("engine_type", type);
  common::SetRuntimeInfo("cpu_cores", std::to_string(engine::NumCores()));
  if (type == "ThreadedEnginePerDevice") {
    common::SetRuntimeInfo("engine_cpu_worker_threads", std::to_string(c.cpu_worker_threads));
    common::SetRuntimeInfo("engine_cpu_priority_threads", std::to_string(c.cpu_priority_threads));
    common::SetRuntimeInfo("engine_gpu_worker_threads", std::to_string(c.gpu_worker_threads));
    common::SetRuntimeInfo("engine_gpu_copy_threads", std::to_string(c.gpu_copy_threads));
  } else if (type == "ThreadedEngine") {
    common::SetRuntimeInfo("engine_cpu_worker_threads", std::to_string(c.pooled_worker_threads));
  }
  common::SetRuntimeInfo("omp_threads_per_worker", std::to_string(c.omp_threads_per_worker));
}

Engine* CreateProcessEngine() {
  const std::string type = env::GetString(env::Var::MXNET_ENGINE_TYPE);
  engine::EngineConfig config = engine::ConfigFromEnvironment();
  if (type == "NaiveEngine") config.omp_threads_per_worker = engine::DefaultOmpThreadsPerWorker(1);
  Engine* e = engine::CreateEngine(type, config).release();  // lives until the process ends
  RecordRuntimeInfo(type, config);
  if (env::IsSet(env::Var::MXNET_ENGINE_TYPE) && type != "ThreadedEnginePerDevice") {
    common::LogInfo("MXNet start using engine: " + type);
  }
  if (env::GetBool(env::Var::MXNET_ENGINE_INFO)) {
    common::LogInfo("engine " + type + ": " + std::to_string(config.cpu_worker_threads) + " CPU worker(s), " +
                    std::to_string(config.cpu_priority_threads) + " CPU priority worker(s), " +
                    std::to_string(config.omp_threads_per_worker) + " OpenMP thread(s) per worker, " +
                    std::to_string(engine::NumCores()) + " core(s)");
  }
  g_process_engine = e;
  // MXNotifyShutdown: pending ops are skipped from now on (except deletions), then drained.
  common::RegisterShutdownHandler([e] {
    e->NotifyShutdown();
    e->WaitForAll();
  });
  std::atexit(ShutdownProcessEngineAtExit);
  return e;
}

}  // namespace

Engine::~Engine() = default;

Engine* Engine::Get() {
  static Engine* engine = CreateProcessEngine();
  return engine;
}

void Engine::PushSync(SyncFn fn, Context exec_ctx, const std::vector<engine::VarHandle>& const_vars,
                      const std::vector<engine::VarHandle>& mutable_vars, FnProperty prop, int priority,
                      const char* opr_name) {
  if (TryBulk(&fn, exec_ctx, const_vars, mutable_vars, prop, priority, opr_name)) return;
  PushSyncUnbulked(std::move(fn), exec_ctx, const_vars, mutable_vars, prop, priority, opr_name);
}

void Engine::PushSyncUnbulked(SyncFn fn, Context exec_ctx, const std::vector<engine::VarHandle>& const_vars,
                              const std::vector<engine::VarHandle>& mutable_vars, FnProperty prop, int priority,
                              const char* opr_name) {
  PushAsync(
      [fn = std::move(fn)](RunContext rctx, engine::CallbackOnComplete on_complete) {
        fn(rctx);  // a throw reaches the engine, which records it as this op's error
        on_complete();
      },
      exec_ctx, const_vars, mutable_vars, prop, priority, opr_name);
}

void Engine::WaitToWrite(engine::VarHandle var) {
  // A no-op write runs after every earlier read and write of var.
  PushSync([](RunContext) {}, Context::CPU(), {}, {var}, FnProperty::kNormal, 0, "WaitToWrite");
  WaitForVar(var);
}

void Engine::SetOprHooks(const OprHooks* hooks) { g_opr_hooks.store(hooks, std::memory_order_release); }

namespace {
thread_local bool tls_symbolic_push = false;
}  // namespace
bool Engine::SetSymbolicPush(bool symbolic) {
  std::swap(tls_symbolic_push, symbolic);
  return symbolic;
}
bool Engine::SymbolicPush() { return tls_symbolic_push; }

namespace engine {

const Engine::OprHooks* CurrentOprHooks() { return g_opr_hooks.load(std::memory_order_acquire); }

int CurrentThreadId() {
  static std::atomic<int> next_id{0};
  thread_local int id = next_id.fetch_add(1);
  return id;
}

std::unique_ptr<Engine> CreateEngine(const std::string& type, const EngineConfig& config) {
  if (type == "NaiveEngine") return CreateNaiveEngine(config);
  if (type == "ThreadedEngine") return CreateThreadedEnginePooled(config);
  if (type == "ThreadedEnginePerDevice") return CreateThreadedEnginePerDevice(config);
  MX_THROW("ValueError") << "Cannot find engine '" << type
                         << "' (MXNET_ENGINE_TYPE): choose NaiveEngine, ThreadedEngine or ThreadedEnginePerDevice.";
  return nullptr;
}

}  // namespace engine
}  // namespace mxnet
