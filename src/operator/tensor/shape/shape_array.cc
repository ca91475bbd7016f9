/*!
 * \file shape_array.cc
 * \brief shape_array and size_array: an array's shape, and its number of elements, as a 1-D
 *        int64 array. They read only the input's shape, so their gradient is zero.
 */
#include <vector>

#include "mxnet/op.h"

namespace mxnet {
namespace op {
namespace {

/*! \brief The output is 1-D of `length(input shape)` elements, int64. */
template <dim_t (*Length)(const TShape&)>
bool QueryShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  AssignShape(attrs, &(*out)[0], TShape{Length(s)}, "output", 0);
  return true;
}

bool QueryType(const NodeAttrs& attrs, std::vector<int>*, std::vector<int>* out) {
  AssignType(attrs, &(*out)[0], kInt64, "output", 0);
  return true;
}

dim_t NumAxes(const TShape& s) { return s.ndim(); }
dim_t One(const TShape&) { return 1; }

void ShapeArrayCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  int64_t* y = out[0].dptr<int64_t>();
  const TShape& s = in[0].shape_;
  for (int i = 0; i < s.ndim(); ++i) AssignReq(&y[i], req[0], static_cast<int64_t>(s[i]));
}

void SizeArrayCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  AssignReq(out[0].dptr<int64_t>(), req[0], static_cast<int64_t>(in[0].shape_.Size()));
}

MXNET_REGISTER_OP(shape_array)
    .describe("Returns a 1-D int64 array holding the shape of the input, e.g. [2, 4] for a 2x4 array.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input array.")
    .set_infer_shape(QueryShape<NumAxes>)
    .set_infer_type(QueryType)
    .set_compute(Context::kCPU, ShapeArrayCompute)
    .set_gradient(ZeroGrads);

MXNET_REGISTER_OP(size_array)
    .describe("Returns a 1-element int64 array holding the number of elements of the input.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input array.")
    .set_infer_shape(QueryShape<One>)
    .set_infer_type(QueryType)
    .set_compute(Context::kCPU, SizeArrayCompute)
    .set_gradient(ZeroGrads);

}  // namespace
}  // namespace op
}  // namespace mxnet
