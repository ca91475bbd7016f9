/*!
 * \file split_v2.cc
 * \brief _split_v2 (what mx.nd.split_v2 / mx.sym.split_v2 build): splits an array along an
 *        axis into `sections` equal parts, or at `indices` (piece i runs from indices[i] to
 *        indices[i+1], the last one to the end of the axis; pieces may be empty), and its
 *        gradient _backward_split_v2, which writes each piece's gradient back in place (zeros
 *        before indices[0]). squeeze_axis drops the split axis when every piece has length 1.
 */
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "operator/common/axis_util.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/op_family.h"
#include "operator/common/parallel.h"
#include "operator/tensor/split_v2.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(SplitV2Param);

namespace {

bool SplitV2Shape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = attrs.get<SplitV2Param>();
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  const int axis = CheckAxis(attrs, p.axis, s);
  const std::vector<dim_t> b = SplitV2Bounds(attrs, s[axis]);
  for (size_t i = 0; i < out->size(); ++i) {
    std::vector<dim_t> o(s.begin(), s.end());
    const dim_t len = b[i + 1] - b[i];
    if (p.squeeze_axis) {
      MX_CHECK_KIND(len == 1, "ValueError") << attrs.op->name << ": squeeze_axis needs pieces of length 1, piece " << i
                                            << " of input shape " << s << " has length " << len;
      o.erase(o.begin() + axis);
    } else {
      o[axis] = len;
    }
    AssignShape(attrs, &(*out)[i], TShape(o), "output", static_cast<int>(i));
  }
  return true;
}

/*! \brief The input's shape from the pieces' (the axis ends where the last piece ends). */
bool SplitV2BackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = attrs.get<SplitV2Param>();
  const TShape& last = in->back();
  if (!last.IsKnown()) return false;
  std::vector<dim_t> d(last.begin(), last.end());
  if (p.squeeze_axis) {
    const int axis = CheckAxis(attrs, p.axis, TShape(std::vector<dim_t>(d.size() + 1, 1)));
    d.insert(d.begin() + axis, 1);
  }
  const int axis = CheckAxis(attrs, p.axis, TShape(d));
  const dim_t start = p.sections > 0 ? d[axis] * (p.sections - 1) : p.indices[p.indices.ndim() - 1];
  d[axis] += start;
  AssignShape(attrs, &(*out)[0], TShape(d), "output", 0);
  return true;
}

/*! \brief Moves rows between the whole array (outer x length x inner) and the pieces. */
template <typename T>
void MovePieces(bool to_whole, T* whole, const std::vector<T*>& pieces, const std::vector<dim_t>& b, int64_t outer,
                int64_t inner, const std::vector<OpReqType>& req) {
  const int64_t length = b.back();
  ParallelFor(outer, [&](int64_t o) {
    T* row = whole + o * length * inner;
    if (to_whole && req[0] == kWriteTo) std::fill(row, row + b[0] * inner, static_cast<T>(0.0f));
    for (size_t i = 0; i < pieces.size(); ++i) {
      const OpReqType rq = to_whole ? req[0] : req[i];
      const int64_t n = (b[i + 1] - b[i]) * inner;
      if (rq == kNullOp || n == 0) continue;
      T* piece = pieces[i] + o * n;
      T* dst = to_whole ? row + b[i] * inner : piece;
      const T* src = to_whole ? piece : row + b[i] * inner;
      if (rq == kAddTo) {
        for (int64_t j = 0; j < n; ++j) Store(dst + j, rq, src[j]);
      } else {
        std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
      }
    }
  });
}

void SplitV2Move(const NodeAttrs& attrs, bool to_whole, const TBlob& whole, const std::vector<TBlob>& pieces,
                 const std::vector<OpReqType>& req) {
  const int axis = CheckAxis(attrs, attrs.get<SplitV2Param>().axis, whole.shape_);
  const AxisView v = ViewAround(whole.shape_, axis);
  const std::vector<dim_t> b = SplitV2Bounds(attrs, v.mid);
  MXNET_TYPE_SWITCH(whole.type_flag_, T, {
    std::vector<T*> ptrs;
    for (const TBlob& t : pieces) ptrs.push_back(t.dptr<T>());
    MovePieces(to_whole, whole.dptr<T>(), ptrs, b, v.outer, v.inner, req);
  });
}

void SplitV2Forward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  SplitV2Move(attrs, false, in[0], out, req);
}

void SplitV2Backward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SplitV2Move(attrs, true, out[0], in, req);
}

MXNET_REGISTER_OP(_split_v2)
    .describe(
        "Splits an array along an axis into `sections` equal pieces, or at `indices`: piece i runs from "
        "indices[i] to indices[i+1] (the last piece to the end of the axis).")
    .set_num_inputs(1)
    .set_num_outputs([](const NodeAttrs& a) { return static_cast<uint32_t>(SplitV2NumPieces(a)); })
    .add_argument("data", "NDArray-or-Symbol", "The input")
    .add_arguments(SplitV2Param::__FIELDS__())
    .set_attr_parser(ParamParser<SplitV2Param>)
    .set_infer_shape(SplitV2Shape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, SplitV2Forward)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return MakeNodeOutputs("_backward_split_v2", n->attrs.name + "_backward", og, n->attrs.dict);
    });

MXNET_REGISTER_OP(_backward_split_v2)
    .describe("Gradient of _split_v2: the pieces' gradients written back along the axis, zeros elsewhere.")
    .set_num_inputs([](const NodeAttrs& a) { return static_cast<uint32_t>(SplitV2NumPieces(a)); })
    .set_num_outputs(1)
    .add_argument("ograds", "NDArray-or-Symbol[]", "Gradients of the pieces.")
    .add_arguments(SplitV2Param::__FIELDS__())
    .set_attr_parser(ParamParser<SplitV2Param>)
    .set_infer_shape(SplitV2BackwardShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, SplitV2Backward);

}  // namespace
}  // namespace op
}  // namespace mxnet
