/*!
 * \file op_runner.h
 * \brief Runs a registered op's CPU kernel directly on host vectors (shape and dtype
 *        inference, resources, req), so NN kernels are tested without the engine, plus a
 *        scoped switch between the oneDNN and the plain path.
 */
#ifndef MXNET_TESTS_CPP_OPERATOR_NN_OP_RUNNER_H_
#define MXNET_TESTS_CPP_OPERATOR_NN_OP_RUNNER_H_

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "mxnet/op.h"
#include "mxnet/tensor.h"
#if MXNET_USE_ONEDNN
#include "operator/kernel_dispatch.h"
#include "operator/onednn/onednn_base.h"
#endif

namespace mxnet {
namespace test {

/*! \brief A host tensor of doubles; converted to the op's dtype on the way in and out. */
struct HostTensor {
  TShape shape;
  std::vector<double> v;
  HostTensor() = default;
  HostTensor(TShape s, std::vector<double> d) : shape(std::move(s)), v(std::move(d)) {}
  explicit HostTensor(TShape s, double fill = 0) : shape(std::move(s)), v(shape.Size(), fill) {}
  int64_t Size() const { return shape.Size(); }
};

inline HostTensor Random(const TShape& s, uint32_t seed, double lo = -1, double hi = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  HostTensor t(s);
  for (auto& x : t.v) x = d(gen);
  return t;
}

using Params = std::unordered_map<std::string, std::string>;

/*!
 * \brief Runs op `name` on inputs (all of dtype `dtype` unless in_types says otherwise) and
 *        returns every output as doubles. Inputs are copied, so mutated inputs come back
 *        through *inputs when `mutated` is given.
 */
inline std::vector<HostTensor> RunOp(const std::string& name, const Params& params, std::vector<HostTensor>* inputs,
                                     int dtype = kFloat32, bool is_train = false, std::vector<int> in_types = {},
                                     std::vector<op::OpReqType> reqs = {}, std::vector<HostTensor> init_out = {}) {
  const op::Op* op = op::Op::Get(name);
  op::NodeAttrs attrs = op::MakeAttrs(op, params, name);
  const uint32_t nin = op->NumInputs(attrs), nout = op->NumOutputs(attrs);
  if (inputs->size() != nin) throw std::runtime_error(name + ": wrong number of inputs in test");
  std::vector<TShape> ishape(nin), oshape(nout);
  std::vector<int> itype(nin), otype(nout, -1);
  for (uint32_t i = 0; i < nin; ++i) {
    ishape[i] = (*inputs)[i].shape;
    itype[i] = in_types.empty() ? dtype : in_types[i];
  }
  if (!op->infer_shape(attrs, &ishape, &oshape)) throw std::runtime_error(name + ": shape inference incomplete");
  if (!op->infer_type(attrs, &itype, &otype)) throw std::runtime_error(name + ": type inference incomplete");
  std::vector<std::vector<char>> ibuf(nin), obuf(nout);
  std::vector<TBlob> ib(nin), ob(nout);
  auto fill = [](std::vector<char>* buf, const HostTensor& t, int type) {
    MXNET_TYPE_SWITCH(type, D, {
      D* p = reinterpret_cast<D*>(buf->data());
      for (size_t i = 0; i < t.v.size(); ++i) p[i] = static_cast<D>(t.v[i]);
    });
  };
  for (uint32_t i = 0; i < nin; ++i) {
    ibuf[i].resize(ishape[i].Size() * DTypeSize(itype[i]) + 64);
    fill(&ibuf[i], (*inputs)[i], itype[i]);
    ib[i] = TBlob(ibuf[i].data(), ishape[i], itype[i], Context::CPU());
  }
  for (uint32_t i = 0; i < nout; ++i) {
    obuf[i].assign(oshape[i].Size() * DTypeSize(otype[i]) + 64, 0);
    if (i < init_out.size()) fill(&obuf[i], init_out[i], otype[i]);
    ob[i] = TBlob(obuf[i].data(), oshape[i], otype[i], Context::CPU());
  }
  op::OpContext ctx;
  ctx.is_train = is_train;
  if (op->resource_request) {
    for (const auto& r : op->resource_request(attrs)) {
      op::Resource res;
      res.type = r.type;
      res.ctx = Context::CPU();
      if (r.type == op::ResourceRequest::kTempSpace) res.space = std::make_shared<op::TempSpace>();
      else res.random = op::RandomStream(12345, 7);
      ctx.requested.push_back(std::move(res));
    }
  }
  if (reqs.empty()) reqs.assign(nout, op::kWriteTo);
  // Through the op's kernel list, as a call would run: PathScope picks oneDNN's entries or not.
  op::RunKernelPlain(*op, Context::kCPU, attrs, ctx, ib, reqs, ob);
  auto read = [](const TBlob& b) {
    HostTensor t(b.shape_);
    MXNET_TYPE_SWITCH(b.type_flag_, D, {
      const D* p = static_cast<const D*>(b.dptr_);
      for (size_t i = 0; i < t.v.size(); ++i) t.v[i] = static_cast<double>(p[i]);
    });
    return t;
  };
  std::vector<HostTensor> outs;
  for (auto& b : ob) outs.push_back(read(b));
  for (uint32_t i = 0; i < nin; ++i) (*inputs)[i] = read(ib[i]);
  return outs;
}

/*! \brief Forces the plain (0) or oneDNN (1) path for its lifetime. */
struct PathScope {
  explicit PathScope(int mode) {
#if MXNET_USE_ONEDNN
    op::onednn::SetEnabledOverride(mode);
#endif
    (void)mode;
  }
  ~PathScope() {
#if MXNET_USE_ONEDNN
    op::onednn::SetEnabledOverride(-1);
#endif
  }
};

inline void ExpectNear(const HostTensor& a, const HostTensor& b, double rtol, double atol, const std::string& what) {
  ASSERT_EQ(a.shape, b.shape) << what;
  for (size_t i = 0; i < a.v.size(); ++i) {
    ASSERT_NEAR(a.v[i], b.v[i], atol + rtol * std::fabs(b.v[i])) << what << " at flat index " << i;
  }
}

/*!
 * \brief Central finite differences of sum(out0 * w) with respect to input `which`, in double.
 *        w is a fixed random head gradient so every output element matters.
 */
inline HostTensor NumericGrad(const std::string& name, const Params& params, const std::vector<HostTensor>& inputs,
                              size_t which, const HostTensor& head, bool is_train = true, double eps = 1e-6) {
  HostTensor g(inputs[which].shape);
  for (int64_t i = 0; i < g.Size(); ++i) {
    double f[2];
    for (int s = 0; s < 2; ++s) {
      std::vector<HostTensor> in = inputs;
      in[which].v[i] += s ? -eps : eps;
      const auto out = RunOp(name, params, &in, kFloat64, is_train);
      double acc = 0;
      for (int64_t k = 0; k < out[0].Size(); ++k) acc += out[0].v[k] * head.v[k];
      f[s] = acc;
    }
    g.v[i] = (f[0] - f[1]) / (2 * eps);
  }
  return g;
}

}  // namespace test
}  // namespace mxnet

#endif  // MXNET_TESTS_CPP_OPERATOR_NN_OP_RUNNER_H_
