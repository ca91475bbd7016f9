/*!
 * \file conv_fused_attrs.h
 * \brief Parsed attributes of `_sg_onednn_conv` and where each of its inputs sits.
 *
 *        inputs: [sum if sum_first] data, weight, [bias unless no_bias],
 *                [gamma, beta, moving_mean, moving_var if with_bn], [sum if with_sum, last]
 *
 *        A graph pass writes the residual first when the graph reached it before the
 *        convolution, so the fused graph lists its variables in the order the original did.
 */
#ifndef MXNET_OPERATOR_NN_CONV_FUSED_ATTRS_H_
#define MXNET_OPERATOR_NN_CONV_FUSED_ATTRS_H_

#include <memory>
#include <string>
#include <vector>

#include "operator/nn/conv_bn_fold.h"
#include "operator/nn/conv_param.h"
#include "operator/nn/fused_act.h"

namespace mxnet {
namespace op {

struct ConvFusedParam : public dmlc::Parameter<ConvFusedParam> {
  dmlc::optional<int> act_type;
  dmlc::optional<bool> with_act;
  bool with_sum, sum_first, with_bn;
  double eps;
  bool fix_gamma;
  DMLC_DECLARE_PARAMETER(ConvFusedParam) {
    DMLC_DECLARE_FIELD(act_type).MXNET_ADD_FUSED_ACTS.set_default(dmlc::optional<int>())
        .describe("Activation applied last (Activation's act_type); None applies none.");
    DMLC_DECLARE_FIELD(with_act).set_default(dmlc::optional<bool>())
        .describe("Whether an activation is fused; defaults to whether act_type is given.");
    DMLC_DECLARE_FIELD(with_sum).set_default(false).describe(
        "Takes an input `sum` added to the (normalized) convolution before the activation; its shape "
        "broadcasts against the convolution's output.");
    DMLC_DECLARE_FIELD(sum_first).set_default(false).describe("With with_sum: `sum` is the first input, not the last.");
    DMLC_DECLARE_FIELD(with_bn).set_default(false).describe(
        "Applies an inference BatchNorm (axis: the output channel) to the convolution, folded into its "
        "weight and bias; takes inputs gamma, beta, moving_mean, moving_var after the convolution's.");
    DMLC_DECLARE_FIELD(eps).set_default(1e-3).describe("With with_bn: BatchNorm's epsilon.");
    DMLC_DECLARE_FIELD(fix_gamma).set_default(true).describe("With with_bn: BatchNorm's fix_gamma (gamma taken as 1).");
  }
};

/*! \brief Positions of the inputs; -1 where absent. */
struct ConvFusedSlots {
  int data{0}, weight{1}, bias{-1}, gamma{-1}, sum{-1};
  uint32_t count{2};
};

/*! \brief What the kernels read: the convolution's own attrs (Convolution's parser ran on them). */
struct ConvFusedAttrs {
  NodeAttrs conv;         // as written (no_bias as given)
  NodeAttrs conv_folded;  // with_bn: the same with a bias (the folded one)
  NodeAttrs act;          // with an activation: Activation's attrs
  ConvFusedParam param;
  bool with_act{false};
  ConvFusedSlots slots;
  std::shared_ptr<BNFoldCache> fold;  // with_bn; shared by copies of the node's attrs
};

inline const ConvFusedAttrs& ConvFusedOf(const NodeAttrs& attrs) { return attrs.get<ConvFusedAttrs>(); }

/*! \brief Attr parser of `_sg_onednn_conv`. */
void ParseConvFused(NodeAttrs* attrs);
/*! \brief Input names in slot order. */
std::vector<std::string> ConvFusedInputNames(const NodeAttrs& attrs);
bool ConvFusedShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out);
bool ConvFusedType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out);

/*! \brief The convolution's weight and bias as the kernels see them: the inputs, or folded. */
struct ConvOperands {
  TBlob weight, bias;
  bool has_bias{false};
  std::shared_ptr<const BNFolded> folded;  // keeps the folded arrays alive while in use
};
/*! \brief The operands of one call; with_bn folds (reading its sources' plain memory) or reuses the fold. */
ConvOperands ConvFusedOperands(const ConvFusedAttrs& f, const std::vector<TBlob>& in);
/*! \brief Whether the sum is added in place: it has the shape of the convolution's output and of y. */
bool ConvFusedSumInPlace(const ConvFusedAttrs& f, const std::vector<TBlob>& in, const TBlob& y);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONV_FUSED_ATTRS_H_
