/*!
 * \file onednn_operand.h
 * \brief Kernel operands in the format a primitive wants, from arrays that may hold a blocked
 *        layout (onednn_layout.h). Backward kernels use them so a chain of oneDNN backward ops
 *        (pooling, activation, convolution) passes gradients in the forward's blocked format
 *        instead of reordering every operand to plain and back.
 */
#ifndef MXNET_OPERATOR_ONEDNN_ONEDNN_OPERAND_H_
#define MXNET_OPERATOR_ONEDNN_ONEDNN_OPERAND_H_

#if MXNET_USE_ONEDNN

#include <memory>

#include "operator/onednn/onednn_layout.h"

namespace mxnet {
namespace op {
namespace onednn {

/*! \brief src -> dst with a reorder primitive cached per thread by both formats. */
void Reorder(const dnnl::memory& src, const dnnl::memory& dst);

/*!
 * \brief Kernel input i (blob x, whose row-major description is `plain`) as memory in `want`:
 *        the array's blocked data when it is already in that format, its plain memory when
 *        `want` is plain, otherwise one reorder into a pooled buffer held by this object.
 */
class InputOperand {
 public:
  InputOperand(size_t i, const TBlob& x, const dnnl::memory::desc& plain, const dnnl::memory::desc& want);
  ~InputOperand();
  InputOperand(const InputOperand&) = delete;
  InputOperand& operator=(const InputOperand&) = delete;
  const dnnl::memory& mem() const { return mem_; }

 private:
  std::shared_ptr<const BlockedData> blocked_;  // keeps a read layout alive
  Storage::Handle tmp_{};
  dnnl::memory mem_;
};

/*!
 * \brief Kernel output i (blob y, written as kWriteTo) as memory in `want`. Finish() leaves
 *        it blocked when the op allows (CanLeaveBlocked) or reorders it into y.
 */
class OutputOperand {
 public:
  OutputOperand(size_t i, const TBlob& y, const dnnl::memory::desc& plain, const dnnl::memory::desc& want);
  ~OutputOperand();
  OutputOperand(const OutputOperand&) = delete;
  OutputOperand& operator=(const OutputOperand&) = delete;
  const dnnl::memory& mem() const { return mem_; }
  /*! \brief After the primitive wrote mem(): installs the layout or reorders into y. */
  void Finish();

 private:
  size_t index_;
  std::shared_ptr<BlockedData> blocked_;
  Storage::Handle tmp_{};
  dnnl::memory mem_, plain_;
};

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
#endif  // MXNET_OPERATOR_ONEDNN_ONEDNN_OPERAND_H_
