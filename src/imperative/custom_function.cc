/*!
 * \file custom_function.cc
 * \brief autograd.Function: the user computed the outputs; the tape records a
 *        _CustomFunction node whose gradient calls the user's backward.
 */
#include "imperative/autograd_info.h"
#include "mxnet/imperative.h"

namespace mxnet {
namespace imperative {

void RecordCustomFunction(const std::vector<NDArray*>& inputs, const std::vector<NDArray*>& outputs,
                          CustomBackward backward, std::function<void()> on_delete) {
  CustomFunctionParam p;
  p.num_inputs = static_cast<uint32_t>(inputs.size());
  p.num_outputs = static_cast<uint32_t>(outputs.size());
  p.backward = std::make_shared<CustomBackward>(std::move(backward));
  op::NodeAttrs attrs;
  attrs.op = op::Op::Get("_CustomFunction");
  attrs.name = "_CustomFunction";
  attrs.parsed = p;
  // The node owns the callbacks; on_delete releases them when the graph goes.
  RecordOp(attrs, inputs, outputs);
  if (!outputs.empty() && outputs[0]->entry().node) {
    Info(outputs[0]->entry().node)->on_delete = std::move(on_delete);
  } else if (on_delete) {
    on_delete();
  }
}

namespace {
uint32_t CustomNumIn(const op::NodeAttrs& a) { return a.get<CustomFunctionParam>().num_inputs; }
uint32_t CustomNumOut(const op::NodeAttrs& a) { return a.get<CustomFunctionParam>().num_outputs; }
}  // namespace

MXNET_REGISTER_OP(_CustomFunction)
    .describe("A user-defined function recorded by autograd.Function; not callable directly.")
    .set_num_inputs(CustomNumIn)
    .set_num_outputs(CustomNumOut)
    .set_gradient([](const op::NodePtr& n, const std::vector<op::NodeEntry>& ograds) {
      const auto& p = n->attrs.get<CustomFunctionParam>();
      auto bwd = op::Node::Create();
      bwd->attrs.op = op::Op::Get("_backward_CustomFunction");
      bwd->attrs.name = n->attrs.name + "_backward";
      bwd->attrs.parsed = p;
      bwd->inputs = ograds;
      bwd->inputs.insert(bwd->inputs.end(), n->inputs.begin(), n->inputs.end());
      std::vector<op::NodeEntry> out;
      for (uint32_t i = 0; i < p.num_inputs; ++i) out.push_back(op::NodeEntry{bwd, i, 0});
      return out;
    });

MXNET_REGISTER_OP(_backward_CustomFunction)
    .describe("Backward of a user-defined function; runs the user's callback on the calling thread.")
    .set_num_inputs([](const op::NodeAttrs& a) { return CustomNumIn(a) + CustomNumOut(a); })
    .set_num_outputs(CustomNumIn);

}  // namespace imperative
}  // namespace mxnet
