/*!
 * \file dist_param.h
 * \brief Parameters of the scalar-parameter samplers (_random_<dist> and _random_<dist>_like),
 *        one dmlc::Parameter type per distribution built from its DistArg table, and the
 *        shared kernel that fills an output from one element sub-stream per index.
 */
#ifndef MXNET_OPERATOR_RANDOM_DIST_PARAM_H_
#define MXNET_OPERATOR_RANDOM_DIST_PARAM_H_

#include <string>

#include "mxnet/op.h"
#include "operator/common/parallel.h"
#include "operator/random/samplers.h"

namespace mxnet {
namespace op {
namespace random {

/*!
 * \brief Distribution parameters (+ shape, ctx, dtype when kSized, i.e. not a *_like op).
 *        Declared by hand rather than with DMLC_DECLARE_PARAMETER because the field names
 *        come from the distribution's table.
 */
template <typename Dist, bool kSized>
struct DistParam : public dmlc::Parameter<DistParam<Dist, kSized>> {
  double args[2] = {0.0, 0.0};
  TShape shape;
  std::string ctx;
  int dtype{-1};

  static ::dmlc::parameter::ParamManager* __MANAGER__() {
    static ::dmlc::parameter::ParamManagerSingleton<DistParam> inst(std::string(Dist::kName) + "_param");
    return &inst.manager;
  }
  void __DECLARE__(::dmlc::parameter::ParamManagerSingleton<DistParam>* manager) {
    for (int i = 0; i < Dist::kNumArgs; ++i) {
      const DistArg& a = Dist::kArgs[i];
      auto& field = this->DECLARE(manager, a.name, args[i]).describe(a.doc);
      if (!a.required) field.set_default(a.default_value);
    }
    if (!kSized) return;
    this->DECLARE(manager, "shape", shape).set_default(TShape()).describe("Shape of the output.");
    this->DECLARE(manager, "ctx", ctx)
        .set_default("")
        .describe("Context of output, in format [cpu|gpu|cpu_pinned](n). Only used for imperative calls.");
    auto& d = this->DECLARE(manager, "dtype", dtype).add_enum("None", -1);
    if (Dist::kInteger) {
      d.add_enum("int32", kInt32).add_enum("int64", kInt64);
    } else {
      d.add_enum("float16", kFloat16).add_enum("float32", kFloat32).add_enum("float64", kFloat64);
    }
    d.set_default(-1).describe(Dist::kInteger ? "DType of the output. int32 if not defined (dtype=None)."
                                              : "DType of the output in case this can't be inferred. Defaults "
                                                "to float32 if not defined (dtype=None).");
  }
};

/*! \brief Parses, then rejects parameter values the distribution cannot take (names the op). */
template <typename Dist, bool kSized>
void ParseDistParam(NodeAttrs* attrs) {
  ParamParser<DistParam<Dist, kSized>>(attrs);
  CheckArgs<Dist>(attrs->op->name, attrs->get<DistParam<Dist, kSized>>().args, false);
}

/*!
 * \brief Throws the ValueError of a _sample_<dist> op whose parameters p at element j of the
 *        parameter arrays break the distribution's rule (the CPU and CUDA kernels both call it).
 */
template <typename Dist>
void ThrowBadRowArgs(const std::string& op, const double* p, int64_t j) {
  try {
    CheckArgs<Dist>(op, p, true);
  } catch (const Error& e) {
    MX_THROW("ValueError") << e.what() << " at element " << j << " of the parameter arrays";
  }
}

/*! \brief y[i] = Draw(element i's sub-stream, args_of(i)); the draw runs in double. */
template <typename Dist, typename ArgsOf>
void FillSamples(const TBlob& out, OpReqType req, const RandomStream& rs, ArgsOf args_of) {
  if (req == kNullOp) return;
  MXNET_TYPE_SWITCH(out.type_flag_, DType, {
    DType* y = out.dptr<DType>();
    ParallelFor(out.Size(), [&](int64_t i) {
      Draws e = rs.ForElement(i);
      AssignReq(&y[i], req, static_cast<DType>(Dist::Draw(&e, args_of(i))));
    });
  });
}

}  // namespace random
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_RANDOM_DIST_PARAM_H_
