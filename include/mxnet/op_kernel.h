/*!
 * \file op_kernel.h
 * \brief Kernel lists: per op and device, an ordered list of named implementations. The first
 *        whose accepts() holds for a call runs (oneDNN's pattern); the plain reference kernel,
 *        named "reference" and given by Op::set_compute, is always last and accepts everything.
 *
 * An implementation living in another file (a oneDNN kernel, a hand-written SIMD kernel) joins
 * its op's list from that file, so op files need no backend #if blocks:
 *
 *   MXNET_REGISTER_KERNEL(Convolution, kCPU, winograd)
 *       .set_rank(10)                       // lower runs first; the reference is always last
 *       .add_tag("onednn")                  // MXNET_ONEDNN_ENABLED=0 excludes tagged kernels
 *       .set_layouts(KernelLayouts::kAny)   // reads oneDNN-blocked inputs itself
 *       .set_accepts([](const KernelProblem& p) { ... })
 *       .set_compute(WinogradConvolution);
 *
 * The dispatcher (src/operator/kernel_dispatch.h) caches the choice per call signature, converts
 * inputs to plain memory for kPlain kernels, and honours MXNET_KERNEL_VERBOSE, MXNET_KERNEL_FORCE
 * and MXNET_KERNEL_EXCLUDE.
 */
#ifndef MXNET_OP_KERNEL_H_
#define MXNET_OP_KERNEL_H_

#include <functional>
#include <string>
#include <vector>

#include "mxnet/base.h"
#include "mxnet/op_context.h"

namespace mxnet {
class OpaqueLayout;
namespace op {

/*! \brief The input layouts an implementation reads. */
enum class KernelLayouts {
  kPlain,  // row-major memory only: the dispatcher converts inputs held in a backend layout first
  kAny     // reads backend (oneDNN-blocked) layouts itself, through KernelArrays
};

/*! \brief What an accepts() predicate sees of one call. */
struct KernelProblem {
  const NodeAttrs& attrs;
  const OpContext& ctx;
  const std::vector<TBlob>& inputs;
  const std::vector<OpReqType>& req;
  const std::vector<TBlob>& outputs;
  /*! \brief Per input, the backend layout it holds (null: plain memory). */
  const std::vector<const OpaqueLayout*>& input_layouts;
};

using FAccepts = std::function<bool(const KernelProblem&)>;

/*! \brief One named implementation of an op on one device. */
struct KernelImpl {
  std::string name;
  /*! \brief Groups an exclusion may name ("onednn", "winograd"). */
  std::vector<std::string> tags;
  /*! \brief Position in the list: lower first. */
  int rank{0};
  /*! \brief Whether it computes the call correctly (null: every call). */
  FAccepts accepts;
  bool cheap_accepts{false};
  /*!
   * \brief Whether it is worth running where it could (a speed policy: enough pixels for
   *        Winograd, oneDNN's choice for few channels); null: always. Forcing skips this
   *        check, so tests reach an implementation on any problem it computes.
   */
  FAccepts worth;
  FCompute compute;
  KernelLayouts layouts{KernelLayouts::kPlain};

  KernelImpl& set_rank(int r) {
    rank = r;
    return *this;
  }
  KernelImpl& add_tag(const std::string& t) {
    tags.push_back(t);
    return *this;
  }
  KernelImpl& set_layouts(KernelLayouts l) {
    layouts = l;
    return *this;
  }
  /*!
   * \brief cheap: the predicate costs less than a cache lookup (it reads layouts or dtypes only), so
   *        the dispatcher asks it on every call instead of caching the choice.
   */
  KernelImpl& set_accepts(FAccepts f, bool cheap = false) {
    accepts = std::move(f);
    cheap_accepts = cheap;
    return *this;
  }
  KernelImpl& set_worth(FAccepts f) {
    worth = std::move(f);
    return *this;
  }
  KernelImpl& set_compute(FCompute f) {
    compute = std::move(f);
    return *this;
  }
  bool HasTag(const std::string& t) const;
};

/*! \brief An op's implementations on one device, in dispatch order (reference last). */
struct KernelList {
  std::vector<const KernelImpl*> impls;
  /*! \brief Some implementation reads backend layouts (the op's inputs are passed unconverted). */
  bool any_layouts{false};
  /*! \brief Some predicate is costly: the dispatcher caches choices per call signature. */
  bool cache_choice{false};
};

/*! \brief The name every op's plain kernel (Op::set_compute) has in its list. */
constexpr const char* kReferenceKernel = "reference";

/*!
 * \brief Adds implementation `impl_name` to op `op_name`'s list on `dev`; the op may be
 *        registered in another file, in any static-initialisation order. Returns the builder.
 */
KernelImpl& RegisterKernel(const std::string& op_name, Context::DeviceType dev, const std::string& impl_name);

}  // namespace op
}  // namespace mxnet

#define MXNET_KERNEL_CONCAT_(a, b) a##b
#define MXNET_KERNEL_CONCAT(a, b) MXNET_KERNEL_CONCAT_(a, b)
/*! \brief Registers implementation `impl` (an identifier) of op `op_name` on device `dev` (kCPU/kGPU). */
#define MXNET_REGISTER_KERNEL(op_name, dev, impl)                                                       \
  static ::mxnet::op::KernelImpl& MXNET_KERNEL_CONCAT(mxnet_kernel_reg_##op_name##_##impl##_, __COUNTER__) \
      [[maybe_unused]] = ::mxnet::op::RegisterKernel(#op_name, ::mxnet::Context::dev, #impl)

#endif  // MXNET_OP_KERNEL_H_
