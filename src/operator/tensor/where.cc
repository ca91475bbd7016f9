/*!
 * \file where.cc
 * \brief where(condition, x, y): x where condition is non-zero, else y. condition has the
 *        shape of x, or is 1-D of length x.shape[0] and then selects whole rows. The gradient
 *        routes the output gradient to x or y with where itself (condition gets zeros).
 */
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {
namespace {

bool WhereShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &c = (*in)[0], &x = (*in)[1], &y = (*in)[2];
  if (!c.IsKnown() || !x.IsKnown() || !y.IsKnown()) return false;
  MX_CHECK_KIND(x == y, "ValueError") << attrs.op->name << ": x and y must have the same shape, got "
                                      << ShapesToString(*in);
  const bool rows = c.ndim() == 1 && x.ndim() >= 1 && c[0] == x[0];
  MX_CHECK_KIND(c == x || rows, "ValueError")
      << attrs.op->name << ": condition must have the shape of x or be 1-D of length x.shape[0], got shapes "
      << ShapesToString(*in);
  AssignShape(attrs, &(*out)[0], x, "output", 0);
  return true;
}

bool WhereType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int t = (*in)[1] >= 0 ? (*in)[1] : (*in)[2];
  if (t < 0) return false;
  AssignType(attrs, &(*in)[1], t, "x", 1);
  AssignType(attrs, &(*in)[2], t, "y", 2);
  AssignType(attrs, &(*out)[0], t, "output", 0);
  return (*in)[0] >= 0;
}

void WhereForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                  const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const int64_t n = in[1].Size(), nc = in[0].Size();
  const int64_t row = nc == 0 ? 0 : n / nc;  // 1 for the same-shape form
  std::vector<uint8_t> cond(static_cast<size_t>(nc));
  MXNET_TYPE_SWITCH(in[0].type_flag_, CType, {
    const CType* c = in[0].dptr<CType>();
    for (int64_t i = 0; i < nc; ++i) cond[i] = static_cast<compute_t<CType>>(c[i]) != compute_t<CType>(0);
  });
  MXNET_TYPE_SWITCH(in[1].type_flag_, DType, {
    const DType* x = in[1].dptr<DType>();
    const DType* y = in[2].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    ParallelChunks(n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) Store(o + i, req[0], cond[i / row] ? x[i] : y[i]);
    });
  });
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP(where)
        .describe(
            "Returns elements chosen from x or y depending on condition: out = condition != 0 ? x : y. "
            "condition has the shape of x, or is 1-D of length x.shape[0] and selects whole rows.")
        .set_num_inputs(3)
        .set_num_outputs(1)
        .add_argument("condition", "NDArray-or-Symbol", "condition array")
        .add_argument("x", "NDArray-or-Symbol", "")
        .add_argument("y", "NDArray-or-Symbol", "")
        .set_infer_shape(WhereShape)
        .set_infer_type(WhereType)
        .set_compute(Context::kCPU, WhereForward)
        .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
          const std::string nm = n->attrs.name + "_backward";
          const NodeEntry zero = MakeNode("zeros_like", nm + "_zero", {og[0]});
          return std::vector<NodeEntry>{MakeZeroGrad(n, 0), MakeNode("where", nm + "_x", {n->inputs[0], og[0], zero}),
                                        MakeNode("where", nm + "_y", {n->inputs[0], zero, og[0]})};
        });
  }
};
const Registrar registrar;

}  // namespace
}  // namespace op
}  // namespace mxnet
