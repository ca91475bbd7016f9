#include "common/stack_trace.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>

#include "mxnet/env.h"

namespace mxnet {
namespace common {

namespace {

std::string Demangle(const char* symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(symbol, nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(symbol);
}

}  // namespace

std::string FormatFrames(int skip, int max_depth) {
  constexpr int kMaxFrames = 128;
  void* frames[kMaxFrames];
  int n = backtrace(frames, kMaxFrames);
  std::ostringstream os;
  int printed = 0;
  for (int i = skip; i < n && printed < max_depth; ++i, ++printed) {
    Dl_info info{};
    os << "  [bt] (" << printed << ") ";
    if (dladdr(frames[i], &info) && info.dli_sname) {
      os << (info.dli_fname ? info.dli_fname : "?") << "(" << Demangle(info.dli_sname) << "+0x" << std::hex
         << (reinterpret_cast<uintptr_t>(frames[i]) - reinterpret_cast<uintptr_t>(info.dli_saddr)) << std::dec
         << ")";
    } else {
      os << (info.dli_fname ? info.dli_fname : "?") << " [" << frames[i] << "]";
    }
    os << "\n";
  }
  return os.str();
}

std::string StackTraceText(int skip) {
  // The registry may not be loaded yet when the very first errors (its own) are raised.
  int64_t depth = env::LoadError().empty() ? env::GetInt(env::Var::DMLC_LOG_STACK_TRACE_DEPTH) : 0;
  if (depth <= 0) return std::string();
  return "Stack trace:\n" + FormatFrames(skip + 1, static_cast<int>(depth));
}

namespace {

void FatalSignalHandler(int sig) {
  // Only async-signal-safe calls until the backtrace: write and backtrace_symbols_fd.
  const char* name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE" : "signal";
  const char head[] = "\nFatal error: received ";
  ssize_t ignored = write(STDERR_FILENO, head, sizeof(head) - 1);
  ignored = write(STDERR_FILENO, name, strlen(name));
  const char tail[] = "\nNative stack trace:\n";
  ignored = write(STDERR_FILENO, tail, sizeof(tail) - 1);
  (void)ignored;
  void* frames[64];
  int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  // Re-raise with the default action so the exit status still says what happened.
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void InstallFatalSignalHandlers() {
  void* warmup[1];
  backtrace(warmup, 1);  // loads libgcc now, not inside the handler
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE}) {
    struct sigaction current {};
    sigaction(sig, nullptr, &current);
    // Leave a handler the host program installed (e.g. Python's faulthandler) alone.
    if (current.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = FatalSignalHandler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    sigaction(sig, &action, nullptr);
  }
}

}  // namespace common
}  // namespace mxnet
