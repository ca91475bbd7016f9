/*!
 * \file bulk.h
 * \brief Imperative bulking state of one pushing thread: consecutive PushSync calls
 *        collected until the bulk is full or something needs their results.
 */
#ifndef MXNET_ENGINE_BULK_H_
#define MXNET_ENGINE_BULK_H_

#include <string>
#include <utility>
#include <vector>

#include "engine/engine_var.h"

namespace mxnet {
namespace engine {

class ThreadedEngine;

struct BulkState {
  /*! \brief The engine the collected ops belong to (null when empty). */
  ThreadedEngine* engine{nullptr};
  Context ctx;
  std::vector<std::pair<Engine::SyncFn, std::string>> fns;
  std::vector<Var*> const_vars;
  std::vector<Var*> mutable_vars;
  /*! \brief Every collected op is FnProperty::kCompute, so the bulk is one too. */
  bool all_compute{true};
  int count() const { return static_cast<int>(fns.size()); }
  ~BulkState();
};

/*! \brief The calling thread's bulk state and size (per thread, as in MXNet). */
BulkState& ThisThreadBulk();
int& ThisThreadBulkSize();

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_BULK_H_
