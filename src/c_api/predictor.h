/*!
 * \file predictor.h
 * \brief What a PredictorHandle points to: an inference executor (every grad_req null) bound
 *        to weights from a .params blob, plus its own input arrays. Weights are held by
 *        reference so that several predictors (threads, reshapes) share one read-only copy.
 */
#ifndef MXNET_C_API_PREDICTOR_H_
#define MXNET_C_API_PREDICTOR_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/executor.h"

namespace mxnet {
namespace capi {

/*! \brief Input names and shapes, in the caller's order. */
using InputShapes = std::vector<std::pair<std::string, TShape>>;

/*! \brief The named arrays of a .params blob: "arg:" and "aux:" keys, prefix removed. */
struct ParamBlob {
  std::map<std::string, NDArray> args, aux;
};
ParamBlob ParseParamBlob(const void* bytes, int size);

/*!
 * \brief The symbol whose outputs are the internal outputs named by keys: an output name
 *        ("fc1_output", "bn_moving_mean", a variable's name) or a node name for its first output.
 */
graph::Symbol SelectOutputs(const graph::Symbol& s, const std::vector<std::string>& keys);

/*! \brief What every predictor made from one MXPredCreate* call has in common. */
struct PredictorModel {
  graph::Symbol symbol;  // outputs already selected
  Context ctx;
  std::map<std::string, int> dtypes;  // provided argument dtypes (others: float32 / inferred)
};

class Predictor {
 public:
  /*! \brief Places the blob's weights on the model's device and binds. */
  static std::unique_ptr<Predictor> Create(const PredictorModel& model, const ParamBlob& params,
                                           const InputShapes& inputs);
  /*! \brief Another predictor for the same shapes sharing this one's weights (threads). */
  std::unique_ptr<Predictor> Clone() const { return Bind(model_, inputs_, weights_, nullptr); }
  /*!
   * \brief A predictor for new input shapes sharing this one's weights (their shapes fixed).
   *        Inputs not named keep their shapes; names that were not inputs become inputs.
   */
  std::unique_ptr<Predictor> Reshape(const InputShapes& inputs) const;

  void SetInput(const std::string& key, const float* data, size_t size);
  void Forward() { exec_->Forward(false); }
  void PartialForward(int step, int* step_left) { exec_->PartialForward(false, step, step_left); }
  size_t num_outputs() const { return exec_->outputs().size(); }
  const NDArray& output(uint32_t index) const;
  const std::vector<uint32_t>& output_shape(uint32_t index) const;
  /*! \brief Waits for the output and copies it, converted to float, into data. */
  void GetOutput(uint32_t index, float* data, size_t size) const;
  void SetMonitor(graph::MonitorCallback cb, bool monitor_all) { exec_->SetMonitor(std::move(cb), monitor_all); }

 private:
  /*!
   * \brief Infers shapes and dtypes from the inputs and binds. Arguments and auxiliary states
   *        come from `weights` (shared, shape must match), else from `params` (copied to the
   *        device when needed, then added to the new predictor's weights), else zero-filled.
   */
  static std::unique_ptr<Predictor> Bind(const PredictorModel& model, const InputShapes& inputs,
                                         const std::map<std::string, NDArray>& weights, const ParamBlob* params);

  PredictorModel model_;
  InputShapes inputs_;
  std::map<std::string, NDArray> weights_;  // from the blob, shared with clones and reshapes
  std::map<std::string, NDArray> input_arrays_;
  std::vector<std::vector<uint32_t>> output_shapes_;
  std::unique_ptr<graph::GraphExecutor> exec_;
};

}  // namespace capi
}  // namespace mxnet

#endif  // MXNET_C_API_PREDICTOR_H_
