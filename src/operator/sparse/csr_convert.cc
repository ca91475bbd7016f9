/*!
 * \file csr_convert.cc
 * \brief CSR <-> dense: _sparse_csr_to_dense (what CSRNDArray.tostype('default') and the
 *        storage fallback run) and its gradient, a gather of the output gradient at the
 *        stored positions. Also the helpers of csr_common.h.
 */
#include <algorithm>
#include <string>
#include <vector>

#include "operator/sparse/csr_common.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(CSRParam);

void CSRDims(const NodeAttrs& attrs, int64_t* rows, int64_t* cols) {
  const TShape& s = attrs.get<CSRParam>().shape;
  MX_CHECK_KIND(s.ndim() == 2 && s[0] >= 0 && s[1] >= 0, "ValueError")
      << attrs.op->name << ": shape must be (rows, cols) with non-negative sizes, got " << s;
  *rows = s[0];
  *cols = s[1];
}

bool InferCSRInputShapes(const NodeAttrs& attrs, std::vector<TShape>* in, int first) {
  int64_t rows, cols;
  CSRDims(attrs, &rows, &cols);
  TShape& data = (*in)[first];
  TShape& indices = (*in)[first + 1];
  AssignShape(attrs, &(*in)[first + 2], TShape{rows + 1}, "input (indptr)", first + 2);
  // data and indices: one value per stored entry.
  if (data.ndim() >= 0) AssignShape(attrs, &indices, data, "input (indices)", first + 1);
  if (indices.ndim() >= 0) AssignShape(attrs, &data, indices, "input (data)", first);
  MX_CHECK_KIND(data.ndim() < 0 || data.ndim() == 1, "ValueError")
      << attrs.op->name << ": data and indices must be 1-D, got " << data;
  return data.IsKnown();
}

void CheckCSR(const NodeAttrs& attrs, int64_t rows, int64_t cols, int64_t nnz, const int64_t* indptr,
              const int64_t* indices) {
  const std::string& op = attrs.op->name;
  MX_CHECK_KIND(indptr[0] == 0, "ValueError") << op << ": indptr must start at 0, got " << indptr[0];
  for (int64_t i = 0; i < rows; ++i) {
    MX_CHECK_KIND(indptr[i + 1] >= indptr[i], "ValueError")
        << op << ": indptr must be non-decreasing, but indptr[" << i + 1 << "] = " << indptr[i + 1] << " < indptr[" << i
        << "] = " << indptr[i];
  }
  MX_CHECK_KIND(indptr[rows] == nnz, "ValueError")
      << op << ": indptr must end at the number of stored values " << nnz << ", got " << indptr[rows];
  for (int64_t j = 0; j < nnz; ++j) {
    MX_CHECK_KIND(indices[j] >= 0 && indices[j] < cols, "ValueError")
        << op << ": column index " << indices[j] << " (entry " << j << ") is out of range [0, " << cols << ")";
  }
}

namespace {

void CSRToDense(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  int64_t rows, cols;
  CSRDims(attrs, &rows, &cols);
  const int64_t nnz = in[0].Size();
  const int64_t* ix = in[1].dptr<int64_t>();
  const int64_t* ip = in[2].dptr<int64_t>();
  CheckCSR(attrs, rows, cols, nnz, ip, ix);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* v = in[0].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    ForEachRow(rows, rows * cols, [&](int64_t i) {
      DType* row = o + i * cols;
      if (req[0] != kAddTo) std::fill(row, row + cols, DType(0));
      for (int64_t j = ip[i]; j < ip[i + 1]; ++j) AssignReq(&row[ix[j]], req[0], v[j]);
    });
  });
}

/*! \brief ograd (rows, cols) -> (nnz,): the gradient reaching each stored value. */
void GatherAtCSR(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  int64_t rows, cols;
  CSRDims(attrs, &rows, &cols);
  const int64_t* ix = in[1].dptr<int64_t>();
  const int64_t* ip = in[2].dptr<int64_t>();
  CheckCSR(attrs, rows, cols, in[1].Size(), ip, ix);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    ForEachRow(rows, in[1].Size(), [&](int64_t i) {
      for (int64_t j = ip[i]; j < ip[i + 1]; ++j) AssignReq(&o[j], req[0], g[i * cols + ix[j]]);
    });
  });
}

bool IndexTypes(const NodeAttrs& attrs, std::vector<int>* in, int first) {
  AssignType(attrs, &(*in)[first], kInt64, "input (indices)", first);
  AssignType(attrs, &(*in)[first + 1], kInt64, "input (indptr)", first + 1);
  return true;
}

}  // namespace

MXNET_REGISTER_OP(_sparse_csr_to_dense)
    .describe("The dense (rows, cols) array of a CSR matrix given as data, indices and indptr.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The stored values (nnz,).")
    .add_argument("indices", "NDArray-or-Symbol", "The int64 column index of each stored value (nnz,).")
    .add_argument("indptr", "NDArray-or-Symbol", "The int64 start of each row in data, and nnz last (rows+1,).")
    .add_arguments(CSRParam::__FIELDS__())
    .set_attr_parser(ParamParser<CSRParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      int64_t rows, cols;
      CSRDims(attrs, &rows, &cols);
      AssignShape(attrs, &(*out)[0], TShape{rows, cols}, "output", 0);
      return InferCSRInputShapes(attrs, in, 0);
    })
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      AssignType(attrs, &(*out)[0], (*in)[0], "output", 0);
      AssignType(attrs, &(*in)[0], (*out)[0], "input (data)", 0);
      IndexTypes(attrs, in, 1);
      return (*in)[0] >= 0;
    })
    // The CUDA kernel checks the structure on the device into a flag word of temp space.
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, CSRToDense)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{MakeNode("_backward_sparse_csr_to_dense", n->attrs.name + "_backward",
                                             {og[0], n->inputs[1], n->inputs[2]}, n->attrs.dict),
                                    MakeZeroGrad(n, 1), MakeZeroGrad(n, 2)};
    });

MXNET_REGISTER_OP(_backward_sparse_csr_to_dense)
    .describe("Gradient of _sparse_csr_to_dense: the output gradient at each stored position (nnz,).")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the dense output (rows, cols).")
    .add_argument("indices", "NDArray-or-Symbol", "The int64 column indices (nnz,).")
    .add_argument("indptr", "NDArray-or-Symbol", "The int64 row starts (rows+1,).")
    .add_arguments(CSRParam::__FIELDS__())
    .set_attr_parser(ParamParser<CSRParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      int64_t rows, cols;
      CSRDims(attrs, &rows, &cols);
      AssignShape(attrs, &(*in)[0], TShape{rows, cols}, "input (ograd)", 0);
      AssignShape(attrs, &(*in)[2], TShape{rows + 1}, "input (indptr)", 2);
      AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
      return (*in)[1].IsKnown();
    })
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      AssignType(attrs, &(*out)[0], (*in)[0], "output", 0);
      IndexTypes(attrs, in, 1);
      return (*in)[0] >= 0;
    })
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, GatherAtCSR);

}  // namespace op
}  // namespace mxnet
