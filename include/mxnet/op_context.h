/*!
 * \file op_context.h
 * \brief What a kernel is called with: the write request per output, the granted resources
 *        (scratch space, random streams), the call context and the kernel signature FCompute.
 */
#ifndef MXNET_OP_CONTEXT_H_
#define MXNET_OP_CONTEXT_H_

#include <cmath>
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
  /*!
   * \brief Draws for element i of this launch; each call of the result gives the next value.
   *        Host and CUDA code share it, so a sampler gives the same numbers on every device.
   */
  class Element {
   public:
    MXNET_XINLINE Element(uint64_t key, uint32_t launch, uint64_t elem) : key_(key), elem_(elem), launch_(launch) {}
    MXNET_XINLINE uint32_t NextU32() {
      if (left_ == 0) {
        // Counter: (draw block, launch, element); key: the seed. Distinct elements never share blocks.
        buf_[0] = draw_;
        buf_[1] = launch_;
        buf_[2] = static_cast<uint32_t>(elem_);
        buf_[3] = static_cast<uint32_t>(elem_ >> 32);
        Philox(buf_, static_cast<uint32_t>(key_), static_cast<uint32_t>(key_ >> 32));
        ++draw_;
        left_ = 4;
      }
      return buf_[4 - left_--];
    }
    /*! \brief Uniform in [0, 1) with 24 (float) or 53 (double) random bits. */
    MXNET_XINLINE float UniformF() { return (NextU32() >> 8) * (1.0f / 16777216.0f); }
    MXNET_XINLINE double UniformD() {
      const uint64_t a = NextU32() >> 5, b = NextU32() >> 6;
      return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
    }
    /*! \brief Standard normal (Box-Muller, both values consumed from fresh draws). */
    MXNET_XINLINE double Normal() {
      double u1 = UniformD();
      while (u1 <= 0.0) u1 = UniformD();
      const double u2 = UniformD();
      return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }

   private:
    /*! \brief Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"). */
    MXNET_XINLINE static void Philox(uint32_t ctr[4], uint32_t k0, uint32_t k1) {
      for (int round = 0; round < 10; ++round) {
        const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * ctr[0];
        const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * ctr[2];
        const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ k0;
        const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ k1;
        ctr[0] = n0;
        ctr[1] = static_cast<uint32_t>(p1);
        ctr[2] = n2;
        ctr[3] = static_cast<uint32_t>(p0);
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
      }
    }
    uint64_t key_, elem_;
    uint32_t launch_, draw_{0};
    uint32_t buf_[4]{};
    int left_{0};
  };
  MXNET_XINLINE Element ForElement(int64_t i) const { return Element(key_, launch_, static_cast<uint64_t>(i)); }

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
