/*!
 * \file csr_dot.cc
 * \brief _sparse_csr_dot_dense: op(A) . B for a CSR matrix A (data, indices, indptr, shape)
 *        and a dense B whose first axis is contracted; float32/float64.
 *        - A . B: one output row per CSR row, rows in parallel.
 *        - A^T . B: the entries are first regrouped by column (a stable counting sort in temp
 *          space), so each output row is again owned by one thread: no atomics, and the sum
 *          order, hence the result, does not depend on the thread count.
 *        Gradient: dB = op(A)^T . dOut (the same op, transpose flipped) and, for the stored
 *        values, dA[j] = <dOut row, B row> at the entry's (row, column).
 */
#include <algorithm>
#include <string>
#include <vector>

#include "operator/sparse/csr_common.h"

namespace mxnet {
namespace op {
namespace {

/*! \brief The CSR operand as the kernels read it. */
struct CSRView {
  int64_t rows, cols, nnz;
  const int64_t* indices;
  const int64_t* indptr;
};

CSRView ReadCSR(const NodeAttrs& attrs, const TBlob& indices, const TBlob& indptr) {
  CSRView a{};
  CSRDims(attrs, &a.rows, &a.cols);
  a.nnz = indices.Size();
  a.indices = indices.dptr<int64_t>();
  a.indptr = indptr.dptr<int64_t>();
  CheckCSR(attrs, a.rows, a.cols, a.nnz, a.indptr, a.indices);
  return a;
}

/*! \brief The entries of A grouped by column, rows ascending within a column (temp space). */
struct ByColumn {
  const int64_t* colptr;  // (cols+1,)
  const int64_t* entry;   // (nnz,) position of the entry in data/indices
  const int64_t* row;     // (nnz,) its row
};

ByColumn GroupByColumn(const CSRView& a, const OpContext& ctx) {
  auto* space = static_cast<int64_t*>(
      ctx.requested[0].GetSpace(sizeof(int64_t) * static_cast<size_t>(a.cols + 1 + 2 * a.nnz + 1)));
  int64_t* colptr = space;
  int64_t* entry = colptr + a.cols + 1;
  int64_t* row = entry + a.nnz;
  std::fill(colptr, colptr + a.cols + 1, int64_t{0});
  for (int64_t j = 0; j < a.nnz; ++j) ++colptr[a.indices[j] + 1];
  for (int64_t c = 0; c < a.cols; ++c) colptr[c + 1] += colptr[c];
  // colptr[c] serves as the fill cursor of column c, then is shifted back.
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t j = a.indptr[i]; j < a.indptr[i + 1]; ++j) {
      const int64_t p = colptr[a.indices[j]]++;
      entry[p] = j;
      row[p] = i;
    }
  }
  for (int64_t c = a.cols; c > 0; --c) colptr[c] = colptr[c - 1];
  colptr[0] = 0;
  return {colptr, entry, row};
}

template <typename T>
void DotKernel(const CSRParam& p, const CSRView& a, const OpContext& ctx, const T* v, const T* b, int64_t n, T* out,
               OpReqType req) {
  auto start_row = [&](T* o) {
    if (req != kAddTo) std::fill(o, o + n, T(0));
  };
  if (!p.transpose_a) {
    ForEachRow(a.rows, a.nnz * n, [&](int64_t i) {
      T* o = out + i * n;
      start_row(o);
      for (int64_t j = a.indptr[i]; j < a.indptr[i + 1]; ++j) {
        const T x = v[j];
        const T* br = b + a.indices[j] * n;
        for (int64_t k = 0; k < n; ++k) o[k] += x * br[k];
      }
    });
    return;
  }
  const ByColumn g = GroupByColumn(a, ctx);
  ForEachRow(a.cols, a.nnz * n, [&](int64_t c) {
    T* o = out + c * n;
    start_row(o);
    for (int64_t q = g.colptr[c]; q < g.colptr[c + 1]; ++q) {
      const T x = v[g.entry[q]];
      const T* br = b + g.row[q] * n;
      for (int64_t k = 0; k < n; ++k) o[k] += x * br[k];
    }
  });
}

void CSRDotCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<CSRParam>();
  const CSRView a = ReadCSR(attrs, in[1], in[2]);
  CheckCSRDotFloat(attrs, in[3].type_flag_);
  const int64_t n = DenseRowWidth(in[3].shape_);
  if (in[3].type_flag_ == kFloat32) {
    DotKernel(p, a, ctx, in[0].dptr<float>(), in[3].dptr<float>(), n, out[0].dptr<float>(), req[0]);
  } else {
    DotKernel(p, a, ctx, in[0].dptr<double>(), in[3].dptr<double>(), n, out[0].dptr<double>(), req[0]);
  }
}

/*! \brief inputs (ograd, indices, indptr, rhs) -> d data (nnz,). */
template <typename T>
void DataGradKernel(const CSRParam& p, const CSRView& a, const T* g, const T* b, int64_t n, T* out, OpReqType req) {
  ForEachRow(a.rows, a.nnz * n, [&](int64_t i) {
    for (int64_t j = a.indptr[i]; j < a.indptr[i + 1]; ++j) {
      // A . B: out[i] += v_j B[c]; A^T . B: out[c] += v_j B[i].
      const T* gr = g + (p.transpose_a ? a.indices[j] : i) * n;
      const T* br = b + (p.transpose_a ? i : a.indices[j]) * n;
      T acc = 0;
      for (int64_t k = 0; k < n; ++k) acc += gr[k] * br[k];
      AssignReq(&out[j], req, acc);
    }
  });
}

void CSRDotDataGrad(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<CSRParam>();
  const CSRView a = ReadCSR(attrs, in[1], in[2]);
  CheckCSRDotFloat(attrs, in[3].type_flag_);
  const int64_t n = DenseRowWidth(in[3].shape_);
  if (in[3].type_flag_ == kFloat32) {
    DataGradKernel(p, a, in[0].dptr<float>(), in[3].dptr<float>(), n, out[0].dptr<float>(), req[0]);
  } else {
    DataGradKernel(p, a, in[0].dptr<double>(), in[3].dptr<double>(), n, out[0].dptr<double>(), req[0]);
  }
}

/*! \brief (m, k) of op(A): output rows and the length of B's first axis. */
void OpDims(const NodeAttrs& attrs, int64_t* m, int64_t* k) {
  int64_t rows, cols;
  CSRDims(attrs, &rows, &cols);
  const bool ta = attrs.get<CSRParam>().transpose_a;
  *m = ta ? cols : rows;
  *k = ta ? rows : cols;
}

/*! \brief Checks B (k, ...) and gives the output shape (m, ...). */
TShape OutShape(const NodeAttrs& attrs, const TShape& b) {
  int64_t m, k;
  OpDims(attrs, &m, &k);
  MX_CHECK_KIND(b.ndim() >= 1 && b[0] == k, "ValueError")
      << attrs.op->name << ": the dense operand must have " << k << " rows to match the CSR matrix "
      << attrs.get<CSRParam>().shape << (attrs.get<CSRParam>().transpose_a ? " transposed" : "") << ", got " << b;
  std::vector<dim_t> o{m};
  o.insert(o.end(), b.begin() + 1, b.end());
  return TShape(o);
}

bool CSRDotShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const bool csr_known = InferCSRInputShapes(attrs, in, 0);
  if (!(*in)[3].IsKnown()) return false;
  AssignShape(attrs, &(*out)[0], OutShape(attrs, (*in)[3]), "output", 0);
  return csr_known;
}

bool CSRDotType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  // data, rhs and the output share the float dtype; the structure is int64.
  int t = (*in)[3] >= 0 ? (*in)[3] : ((*in)[0] >= 0 ? (*in)[0] : (*out)[0]);
  if (t >= 0) CheckCSRDotFloat(attrs, t);
  AssignType(attrs, &(*in)[0], t, "input (data)", 0);
  AssignType(attrs, &(*in)[3], t, "input (rhs)", 3);
  AssignType(attrs, &(*out)[0], t, "output", 0);
  AssignType(attrs, &(*in)[1], kInt64, "input (indices)", 1);
  AssignType(attrs, &(*in)[2], kInt64, "input (indptr)", 2);
  return t >= 0;
}

std::vector<NodeEntry> CSRDotGrad(const NodePtr& n, const std::vector<NodeEntry>& og) {
  auto flipped = n->attrs.dict;
  flipped["transpose_a"] = n->attrs.get<CSRParam>().transpose_a ? "False" : "True";
  const NodeEntry &data = n->inputs[0], &indices = n->inputs[1], &indptr = n->inputs[2], &rhs = n->inputs[3];
  return {MakeNode("_backward_sparse_csr_dot_dense_data", n->attrs.name + "_backward_data",
                   {og[0], indices, indptr, rhs}, n->attrs.dict),
          MakeZeroGrad(n, 1), MakeZeroGrad(n, 2),
          MakeNode("_sparse_csr_dot_dense", n->attrs.name + "_backward_rhs", {data, indices, indptr, og[0]}, flipped)};
}

}  // namespace

MXNET_REGISTER_OP(_sparse_csr_dot_dense)
    .describe(
        "Dot product of a CSR matrix (data, indices, indptr, shape) and a dense array: A . rhs, or A^T . rhs with "
        "transpose_a. rhs's first axis is contracted; the output has shape (rows of op(A),) + rhs.shape[1:]. "
        "float32 and float64.")
    .set_num_inputs(4)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The stored values of the CSR matrix (nnz,).")
    .add_argument("indices", "NDArray-or-Symbol", "The int64 column index of each stored value (nnz,).")
    .add_argument("indptr", "NDArray-or-Symbol", "The int64 start of each row in data, and nnz last (rows+1,).")
    .add_argument("rhs", "NDArray-or-Symbol", "The dense operand.")
    .add_arguments(CSRParam::__FIELDS__())
    .set_attr_parser(ParamParser<CSRParam>)
    .set_infer_shape(CSRDotShape)
    .set_infer_type(CSRDotType)
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, CSRDotCompute)
    .set_gradient(CSRDotGrad);

MXNET_REGISTER_OP(_backward_sparse_csr_dot_dense_data)
    .describe("Gradient of _sparse_csr_dot_dense with respect to the stored values (nnz,).")
    .set_num_inputs(4)
    .set_num_outputs(1)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
    .add_argument("indices", "NDArray-or-Symbol", "The int64 column indices (nnz,).")
    .add_argument("indptr", "NDArray-or-Symbol", "The int64 row starts (rows+1,).")
    .add_argument("rhs", "NDArray-or-Symbol", "The dense operand of the forward op.")
    .add_arguments(CSRParam::__FIELDS__())
    .set_attr_parser(ParamParser<CSRParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      int64_t rows, cols;
      CSRDims(attrs, &rows, &cols);
      AssignShape(attrs, &(*in)[2], TShape{rows + 1}, "input (indptr)", 2);
      if ((*in)[3].IsKnown()) AssignShape(attrs, &(*in)[0], OutShape(attrs, (*in)[3]), "input (ograd)", 0);
      AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
      return (*in)[1].IsKnown() && (*in)[3].IsKnown();
    })
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      const int t = (*in)[3] >= 0 ? (*in)[3] : (*in)[0];
      if (t >= 0) CheckCSRDotFloat(attrs, t);
      AssignType(attrs, &(*in)[0], t, "input (ograd)", 0);
      AssignType(attrs, &(*in)[3], t, "input (rhs)", 3);
      AssignType(attrs, &(*out)[0], t, "output", 0);
      AssignType(attrs, &(*in)[1], kInt64, "input (indices)", 1);
      AssignType(attrs, &(*in)[2], kInt64, "input (indptr)", 2);
      return t >= 0;
    })
    // The CUDA kernel checks the structure on the device into a flag word of temp space.
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, CSRDotDataGrad);

}  // namespace op
}  // namespace mxnet
