/*!
 * \file op.h
 * \brief The operator registry: ONE registration per operator serves imperative calls (mx.nd),
 *        autograd, and graph nodes (symbol, CachedOp). A registration carries name/aliases,
 *        input/output counts, parameters (dmlc::Parameter), shape and dtype inference, the
 *        reference kernel per device (more implementations join its kernel list, op_kernel.h),
 *        in-place hints, resource requests, docs and the gradient as a composition of
 *        registered ops (nnvm's FGradient). The node and kernel signatures live in graph_node.h,
 *        op_context.h and op_kernel.h; the dispatcher in src/operator/kernel_dispatch.h.
 *
 * Worked example: a unary op with its gradient (see src/operator/tensor/ for real ones).
 *
 *   // y = exp(x); dy/dx = y, so the gradient multiplies the output gradient by the output.
 *   void ExpCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
 *                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
 *     MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
 *       const DType* x = in[0].dptr<DType>();
 *       DType* y = out[0].dptr<DType>();
 *       ParallelFor(in[0].Size(), [&](int64_t i) {      // src/operator/common/parallel.h
 *         AssignReq(&y[i], req[0], DType(std::exp(float(x[i]))));   // honours kAddTo
 *       });
 *     });
 *   }
 *   MXNET_REGISTER_OP(exp)
 *       .describe("Returns element-wise exponential value of the input.")
 *       .set_num_inputs(1)
 *       .set_num_outputs(1)
 *       .add_argument("data", "NDArray-or-Symbol", "The input array.")
 *       .set_infer_shape(ElemwiseShape)
 *       .set_infer_type(ElemwiseType)
 *       .set_inplace_option([](const NodeAttrs&) { return InplacePairs{{0, 0}}; })
 *       .set_compute(Context::kCPU, ExpCompute)
 *       .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
 *         return std::vector<NodeEntry>{MakeNode("elemwise_mul", n->attrs.name + "_backward",
 *                                                {ograds[0], NodeEntry{n, 0}})};
 *       });
 *
 * Ops with parameters declare a dmlc::Parameter struct and `.set_attr_parser(ParamParser<P>)`
 * plus `.add_arguments(P::__FIELDS__())`; kernels read it with `attrs.get<P>()`.
 */
#ifndef MXNET_OP_H_
#define MXNET_OP_H_

#include <dmlc/parameter.h>

#include <cstdint>
#include <functional>
#include <istream>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mxnet/base.h"
#include "mxnet/error.h"
#include "mxnet/graph_node.h"
#include "mxnet/op_context.h"
#include "mxnet/op_kernel.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace op {

// ---- attribute function types -------------------------------------------------------
using FNumInOut = std::function<uint32_t(const NodeAttrs&)>;
using FListNames = std::function<std::vector<std::string>(const NodeAttrs&)>;
using FAttrParser = std::function<void(NodeAttrs*)>;
/*! \brief Fill unknown entries of in/out; return true when all are known. Throw on conflict. */
using FInferShape = std::function<bool(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out)>;
using FInferType = std::function<bool(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out)>;
/*! \brief (input index, output index) pairs that may share memory. */
using InplacePairs = std::vector<std::pair<int, int>>;
using FInplaceOption = std::function<InplacePairs(const NodeAttrs&)>;
using FResourceRequest = std::function<std::vector<ResourceRequest>(const NodeAttrs&)>;
/*! \brief Indices of inputs the op also writes (optimizer states, BatchNorm moving stats). */
using FMutateInputs = std::function<std::vector<uint32_t>(const NodeAttrs&)>;
/*! \brief Given the forward node and one gradient per output, the gradient of each input. */
using FGradient = std::function<std::vector<NodeEntry>(const NodePtr& node, const std::vector<NodeEntry>& ograds)>;

/*! \brief Documented argument, as MXSymbolGetAtomicSymbolInfo reports it. */
struct ArgumentInfo {
  std::string name, type_info, description;
};

/*! \brief A registered operator. Built once at static-init time by MXNET_REGISTER_OP. */
class Op {
 public:
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  std::vector<ArgumentInfo> arguments;  // inputs first, then parameters
  /*! \brief Name of the count parameter of a variadic op ("num_args"), else empty. */
  std::string key_var_num_args;
  uint32_t num_inputs{1}, num_outputs{1};
  FNumInOut get_num_inputs, get_num_outputs, get_num_visible_outputs;
  FListNames list_input_names, list_output_names;
  FAttrParser attr_parser;
  FInferShape infer_shape;
  FInferType infer_type;
  /*! \brief The reference (plain) kernel by Context::DeviceType; see Kernels() for the list. */
  std::unordered_map<int, FCompute> compute;
  FInplaceOption inplace_option;
  /*! \brief Per output: true if writing it in place equals the input (identity-like ops). */
  std::function<std::vector<bool>(const NodeAttrs&)> inplace_identity;
  FResourceRequest resource_request;
  FMutateInputs mutate_inputs;
  /*!
   * \brief Inputs that are auxiliary states although the op only reads them (a fused inference
   *        op taking BatchNorm's moving statistics): listed with the auxiliary states, but not
   *        written, so the engine lets them be read concurrently and their versions stay.
   */
  FMutateInputs aux_inputs;
  FGradient gradient;
  /*! \brief Dense index in the registry (fast per-op tables elsewhere). */
  uint32_t index{0};
  /*! \brief Built on first use from the reference kernels and the registered implementations. */
  mutable std::unordered_map<int, KernelList> kernel_lists;
  mutable std::unordered_map<int, KernelImpl> reference_kernels;

  // ---- builder (returns *this to chain) ----
  Op& describe(const std::string& doc);
  Op& add_alias(const std::string& alias);
  Op& set_num_inputs(uint32_t n);
  Op& set_num_inputs(FNumInOut fn);
  Op& set_num_outputs(uint32_t n);
  Op& set_num_outputs(FNumInOut fn);
  Op& set_num_visible_outputs(FNumInOut fn);
  Op& set_key_var_num_args(const std::string& key);
  Op& add_argument(const std::string& name, const std::string& type, const std::string& doc);
  Op& add_arguments(const std::vector<dmlc::ParamFieldInfo>& fields);
  Op& set_list_input_names(FListNames fn);
  Op& set_list_output_names(FListNames fn);
  Op& set_attr_parser(FAttrParser fn);
  Op& set_infer_shape(FInferShape fn);
  Op& set_infer_type(FInferType fn);
  Op& set_compute(Context::DeviceType dev, FCompute fn);
  Op& set_inplace_option(FInplaceOption fn);
  Op& set_inplace_identity(std::function<std::vector<bool>(const NodeAttrs&)> fn);
  Op& set_resource_request(FResourceRequest fn);
  Op& set_resource_request(std::vector<ResourceRequest> reqs);
  Op& set_mutate_inputs(FMutateInputs fn);
  Op& set_aux_inputs(FMutateInputs fn);
  Op& set_gradient(FGradient fn);

  // ---- queries used by imperative, autograd and graph code ----
  uint32_t NumInputs(const NodeAttrs& a) const { return get_num_inputs ? get_num_inputs(a) : num_inputs; }
  uint32_t NumOutputs(const NodeAttrs& a) const { return get_num_outputs ? get_num_outputs(a) : num_outputs; }
  uint32_t NumVisibleOutputs(const NodeAttrs& a) const {
    return get_num_visible_outputs ? get_num_visible_outputs(a) : NumOutputs(a);
  }
  /*! \brief Declared input names (the NDArray-or-Symbol arguments), or arg0.. for variadic ops. */
  std::vector<std::string> InputNames(const NodeAttrs& a) const;
  std::vector<std::string> OutputNames(const NodeAttrs& a) const;
  /*! \brief The reference kernel on dev; nullptr when the op has none there. */
  const FCompute* GetCompute(Context::DeviceType dev) const {
    auto it = compute.find(dev == Context::kGPU ? Context::kGPU : Context::kCPU);
    return it == compute.end() ? nullptr : &it->second;
  }
  /*! \brief The implementations on dev in dispatch order (empty when the op has none there). */
  const KernelList& Kernels(Context::DeviceType dev) const;
  /*! \brief The op's own entry by name or alias; nullptr when absent. */
  static const Op* Find(const std::string& name);
  /*! \brief As Find, but throws "Cannot find operator <name>" (ValueError). */
  static const Op* Get(const std::string& name);
};

/*! \brief The process registry. Registration happens during static initialisation only. */
class OpRegistry {
 public:
  static OpRegistry* Get();
  Op& Register(const std::string& name);
  void AddAlias(Op* op, const std::string& alias);
  const Op* Find(const std::string& name) const;
  /*! \brief Every op, in registration order (no alias duplicates). */
  const std::vector<const Op*>& List() const { return ops_; }
  /*! \brief Every name, aliases included, sorted. */
  std::vector<std::string> ListAllNames() const;

 private:
  std::vector<const Op*> ops_;
  std::unordered_map<std::string, Op*> by_name_;
};

// ---- attrs parsing ----------------------------------------------------------------------

/*!
 * \brief Builds attrs for `op` from string key/values: fills the variadic count, runs the
 *        parser. Keys of the form __x__ (graph annotations) are kept but not parsed.
 *        Errors: ValueError "<op>: <what was wrong with which parameter>".
 */
NodeAttrs MakeAttrs(const Op* op, const std::unordered_map<std::string, std::string>& dict,
                    const std::string& node_name = "");

/*! \brief Attr parser for ops with a dmlc::Parameter struct P. */
template <typename P>
void ParamParser(NodeAttrs* attrs) {
  P param;
  std::vector<std::pair<std::string, std::string>> kv;
  for (const auto& it : attrs->dict)
    if (!(it.first.size() > 4 && it.first.compare(0, 2, "__") == 0)) kv.emplace_back(it.first, it.second);
  try {
    param.Init(kv, dmlc::parameter::kAllowHidden);
  } catch (const dmlc::ParamError& e) {
    MX_THROW("ValueError") << (attrs->op ? attrs->op->name : std::string("operator")) << ": " << e.what();
  }
  attrs->parsed = std::move(param);
}

// ---- graph building for gradients --------------------------------------------------------

/*!
 * \brief A new node of registered op `op_name` (name or alias) with the given inputs and
 *        string params, returning its output entries (one per output). Throws for an unknown op.
 */
std::vector<NodeEntry> MakeNodeOutputs(const std::string& op_name, const std::string& node_name,
                                       const std::vector<NodeEntry>& inputs,
                                       const std::unordered_map<std::string, std::string>& params = {});
/*! \brief MakeNodeOutputs(...)[0], for single-output ops. */
NodeEntry MakeNode(const std::string& op_name, const std::string& node_name, const std::vector<NodeEntry>& inputs,
                   const std::unordered_map<std::string, std::string>& params = {});
/*! \brief zeros_like(input i of n): the gradient of an input that does not affect the output. */
NodeEntry MakeZeroGrad(const NodePtr& n, uint32_t input_index);
/*! \brief One zeros_like gradient per input of n (non-differentiable ops). */
std::vector<NodeEntry> ZeroGrads(const NodePtr& n, const std::vector<NodeEntry>& ograds);

// ---- common inference helpers (errors name the op and the shapes) ------------------------

/*! \brief Sets *slot to s when unknown; throws ValueError naming op, which, and both shapes on mismatch. */
void AssignShape(const NodeAttrs& attrs, TShape* slot, const TShape& s, const char* which, int index);
void AssignType(const NodeAttrs& attrs, int* slot, int t, const char* which, int index);
/*! \brief All inputs and outputs share one shape (n_in inputs, n_out outputs). */
bool ElemwiseShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out);
/*! \brief All inputs and outputs share one dtype. */
bool ElemwiseType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out);
/*! \brief "(2, 3), (4,)": the shapes list error messages print. */
std::string ShapesToString(const std::vector<TShape>& shapes);

}  // namespace op
}  // namespace mxnet

// ---- dmlc::Parameter support for TShape fields ("Shape(tuple)", e.g. "(2, 3)" or "None") ----
namespace mxnet {
std::istream& operator>>(std::istream& is, TShape& s);
}  // namespace mxnet
namespace dmlc {
DMLC_DECLARE_TYPE_NAME(mxnet::TShape, "Shape(tuple)");
DMLC_DECLARE_TYPE_NAME(optional<mxnet::TShape>, "Shape or None");
}  // namespace dmlc

/*! \brief Adds the dtype names MXNet accepts to an int field: DMLC_DECLARE_FIELD(dtype).MXNET_ADD_ALL_DTYPES */
#define MXNET_ADD_ALL_DTYPES                                                                         \
  add_enum("float32", ::mxnet::kFloat32).add_enum("float64", ::mxnet::kFloat64)                     \
      .add_enum("float16", ::mxnet::kFloat16).add_enum("bfloat16", ::mxnet::kBfloat16)              \
      .add_enum("uint8", ::mxnet::kUint8).add_enum("int8", ::mxnet::kInt8)                           \
      .add_enum("int32", ::mxnet::kInt32).add_enum("int64", ::mxnet::kInt64).add_enum("bool", ::mxnet::kBool)

#define MXNET_OP_CONCAT_(a, b) a##b
#define MXNET_OP_CONCAT(a, b) MXNET_OP_CONCAT_(a, b)
/*! \brief Registers op `name` (an identifier spelling the op's name) and returns its builder. */
#define MXNET_REGISTER_OP(name)                                                                        \
  static ::mxnet::op::Op& MXNET_OP_CONCAT(mxnet_op_reg_##name##_, __COUNTER__) [[maybe_unused]] = \
      ::mxnet::op::OpRegistry::Get()->Register(#name)

#endif  // MXNET_OP_H_
