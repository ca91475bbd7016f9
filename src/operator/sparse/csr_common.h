/*!
 * \file csr_common.h
 * \brief What the CSR operators share. A CSR matrix travels as three dense inputs: data
 *        (nnz values), indices (nnz int64 column indices) and indptr (rows+1 int64 row
 *        starts), with its dense shape as the `shape` parameter. Python's CSRNDArray
 *        (python/mxnet/ndarray/sparse.py) is the only value type; the ops see plain arrays.
 */
#ifndef MXNET_OPERATOR_SPARSE_CSR_COMMON_H_
#define MXNET_OPERATOR_SPARSE_CSR_COMMON_H_

#include <dmlc/parameter.h>

#include <cstdint>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {

struct CSRParam : public dmlc::Parameter<CSRParam> {
  TShape shape;
  bool transpose_a;
  DMLC_DECLARE_PARAMETER(CSRParam) {
    DMLC_DECLARE_FIELD(shape).describe("The dense shape (rows, cols) of the CSR matrix.");
    DMLC_DECLARE_FIELD(transpose_a).set_default(false).describe("Use the transpose of the CSR matrix.");
  }
};

/*! \brief (rows, cols) from the shape parameter; a ValueError unless it is 2-D and non-negative. */
void CSRDims(const NodeAttrs& attrs, int64_t* rows, int64_t* cols);

/*!
 * \brief Infers and checks the three CSR inputs starting at `first`: data and indices (nnz,),
 *        indptr (rows+1,). Returns false while nnz is unknown.
 */
bool InferCSRInputShapes(const NodeAttrs& attrs, std::vector<TShape>* in, int first);

/*!
 * \brief Checks the structure before a kernel indexes with it, so a malformed matrix is a
 *        ValueError naming the op, not a wild read: indptr starts at 0, never decreases, ends
 *        at nnz; every column index lies in [0, cols). Serial; O(rows + nnz).
 */
void CheckCSR(const NodeAttrs& attrs, int64_t rows, int64_t cols, int64_t nnz, const int64_t* indptr,
              const int64_t* indices);

/*! \brief Row width of _sparse_csr_dot_dense's dense operand and output: their trailing dims flattened. */
inline int64_t DenseRowWidth(const TShape& b) { return b.ndim() <= 1 ? 1 : b.ProdShape(1, b.ndim()); }

/*! \brief _sparse_csr_dot_dense computes in float32 and float64 only: a TypeError naming the op otherwise. */
inline void CheckCSRDotFloat(const NodeAttrs& attrs, int dtype) {
  MX_CHECK_KIND(dtype == kFloat32 || dtype == kFloat64, "TypeError")
      << attrs.op->name << ": supports float32 and float64, got " << DTypeName(dtype);
}

/*!
 * \brief fn(i) for every row i; OpenMP (dynamic, rows differ in length) when `work`, the
 *        element operations of the whole loop, is worth threads. fn must not throw.
 */
template <typename F>
inline void ForEachRow(int64_t rows, int64_t work, F&& fn) {
#if MXNET_USE_OPENMP
  if (rows > 1 && UseParallel(work)) {
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t i = 0; i < rows; ++i) fn(i);
    return;
  }
#endif
  for (int64_t i = 0; i < rows; ++i) fn(i);
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_SPARSE_CSR_COMMON_H_
