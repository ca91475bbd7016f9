/*!
 * \file op_context.h
 * \brief What a kernel is called with: the write request per output, the granted resources
 *        (scratch space, random streams), the call context and the kernel signature FCompute.
 */
#ifndef MXNET_OP_CONTEXT_H_
#define MXNET_OP_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "mxnet/base.h"
#include "mxnet/engine.h"
#include "mxnet/graph_node.h"
#include "mxnet/storage.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace op {

/*! \brief How a kernel must write an output (MXNet's OpReqType). */
enum OpReqType { kNullOp = 0, kWriteTo = 1, kWriteInplace = 2, kAddTo = 3 };

/*! \brief Writes v into *out according to req; the one place kernels handle kAddTo. */
template <typename DType, typename V>
inline void AssignReq(DType* out, OpReqType req, V v) {
  if (req == kAddTo) {
    *out = static_cast<DType>(*out + static_cast<DType>(v));  // half/bf16 add in float
  } else if (req != kNullOp) {
    *out = static_cast<DType>(v);
  }
}

/*! \brief What an op asks the runtime for besides its inputs and outputs. */
struct ResourceRequest {
  enum Type {
    kTempSpace,      // scratch memory valid for one kernel run, from the storage pools
    kRandom,         // the device's seeded random stream (see RandomStream)
    kParallelRandom  // same stream; kept distinct for MXNet parity (ops may ask either)
  };
  Type type;
  ResourceRequest(Type t) : type(t) {}  // NOLINT(runtime/explicit)
};

/*!
 * \brief A counter-based (Philox4x32-10) random stream. Every kernel launch gets a disjoint
 *        range of element counters reserved at push time on the pushing thread, so the
 *        numbers depend only on the seed and the push order, never on thread counts,
 *        engine type or MXNET_CPU_PARALLEL_RAND_COPY. Element i of a launch draws from its
 *        own sub-stream: any number of draws, any thread, same values. Philox counter =
 *        (draw, launch, element), key = seed.
 */
class RandomStream {
 public:
  RandomStream() = default;
  /*! \brief key: from the device seed; launch: this launch's number since seeding. */
  RandomStream(uint64_t key, uint32_t launch) : key_(key), launch_(launch) {}
  /*! \brief Draws for element i of this launch; each call of the result gives the next value. */
  class Element {
   public:
    Element(uint64_t key, uint32_t launch, uint64_t elem) : key_(key), elem_(elem), launch_(launch) {}
    uint32_t NextU32();
    /*! \brief Uniform in [0, 1) with 24 (float) or 53 (double) random bits. */
    float UniformF() { return (NextU32() >> 8) * (1.0f / 16777216.0f); }
    double UniformD() {
      const uint64_t a = NextU32() >> 5, b = NextU32() >> 6;
      return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
    }
    /*! \brief Standard normal (Box-Muller, both values consumed from fresh draws). */
    double Normal();

   private:
    uint64_t key_, elem_;
    uint32_t launch_, draw_{0};
    uint32_t buf_[4]{};
    int left_{0};
  };
  Element ForElement(int64_t i) const { return Element(key_, launch_, static_cast<uint64_t>(i)); }

 private:
  uint64_t key_{0};
  uint32_t launch_{0};
};

/*! \brief Scratch memory of one kernel launch; returned to the pool when the launch ends. */
struct TempSpace {
  Storage::Handle handle;
  TempSpace() = default;
  TempSpace(const TempSpace&) = delete;
  TempSpace& operator=(const TempSpace&) = delete;
  ~TempSpace();
};

/*! \brief A granted resource, in the order the op requested them. */
struct Resource {
  ResourceRequest::Type type{ResourceRequest::kTempSpace};
  Context ctx;
  /*! \brief kTempSpace: scratch memory of at least `bytes`; valid until the kernel returns. */
  void* GetSpace(size_t bytes) const;
  /*! \brief kRandom / kParallelRandom: this launch's stream. */
  RandomStream random;
  /*! \brief Internal: the per-launch scratch allocation, filled on first GetSpace. */
  std::shared_ptr<TempSpace> space;
};

/*! \brief Everything a kernel knows about the call besides data. */
struct OpContext {
  bool is_train{false};
  RunContext run_ctx;
  std::vector<Resource> requested;
};

/*! \brief A kernel: reads inputs, writes outputs as req says, uses ctx's resources. */
using FCompute = std::function<void(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& inputs,
                                    const std::vector<OpReqType>& req, const std::vector<TBlob>& outputs)>;

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OP_CONTEXT_H_
