/*!
 * \file executor_bind.h
 * \brief simple_bind and reshape: arrays allocated (zero-filled) from inferred shapes and
 *        dtypes, shared with another executor or a shared buffer where asked.
 */
#ifndef MXNET_GRAPH_EXECUTOR_BIND_H_
#define MXNET_GRAPH_EXECUTOR_BIND_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/executor.h"

namespace mxnet {
namespace graph {

struct SimpleBindArgs {
  Context ctx;
  std::map<std::string, TShape> shapes;
  std::map<std::string, int> dtypes;
  /*! \brief Per argument name; names absent take default_req. */
  std::map<std::string, op::OpReqType> reqs;
  op::OpReqType default_req{op::kWriteTo};
  std::vector<std::string> shared_arg_names;
  /*! \brief name -> array, reused when large enough and updated with new arrays; may be null. */
  std::map<std::string, NDArray>* shared_buffer{nullptr};
  GraphExecutor* shared_exec{nullptr};
};

std::unique_ptr<GraphExecutor> SimpleBind(const Symbol& s, const SimpleBindArgs& a);

/*! \brief A new executor for new argument shapes, sharing ex's memory (MXExecutorReshapeEx). */
std::unique_ptr<GraphExecutor> Reshape(GraphExecutor* ex, const std::map<std::string, TShape>& shapes,
                                       bool partial_shaping, bool allow_up_sizing);

/*! \brief A zero-filled array. */
NDArray Zeros(const TShape& shape, Context ctx, int dtype);

}  // namespace graph
}  // namespace mxnet

#endif  // MXNET_GRAPH_EXECUTOR_BIND_H_
