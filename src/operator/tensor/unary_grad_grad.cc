/*!
 * \file unary_grad_grad.cc
 * \brief Second derivatives of the unary math ops, built from registered differentiable ops so
 *        that the result can itself be differentiated again (third and higher orders).
 */
#include "operator/tensor/unary_grad_grad.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <unordered_map>
#include <vector>

namespace mxnet {
namespace op {
namespace {

/*! \brief Names the nodes of one gradient expression and spells the common node kinds. */
class Expr {
 public:
  explicit Expr(std::string base) : base_(std::move(base)) {}
  NodeEntry Op(const char* op, const std::vector<NodeEntry>& in,
               const std::unordered_map<std::string, std::string>& params = {}) {
    return MakeNode(op, base_ + "_" + std::to_string(count_++), in, params);
  }
  NodeEntry Mul(const NodeEntry& a, const NodeEntry& b) { return Op("elemwise_mul", {a, b}); }
  NodeEntry Neg(const NodeEntry& a) { return Op("negative", {a}); }
  NodeEntry Square(const NodeEntry& a) { return Op("square", {a}); }
  /*! \brief a * c */
  NodeEntry Scale(const NodeEntry& a, double c) { return Scalar("_mul_scalar", a, c); }
  /*! \brief a + c */
  NodeEntry Plus(const NodeEntry& a, double c) { return Scalar("_plus_scalar", a, c); }
  /*! \brief c - a */
  NodeEntry RMinus(const NodeEntry& a, double c) { return Scalar("_rminus_scalar", a, c); }
  /*! \brief a ** p */
  NodeEntry Pow(const NodeEntry& a, double p) { return Scalar("_power_scalar", a, p); }

 private:
  NodeEntry Scalar(const char* op, const NodeEntry& a, double s) {
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.17g", s);
    return Op(op, {a}, {{"scalar", buf}, {"is_int", "False"}});
  }
  std::string base_;
  int count_{0};
};

/*! \brief og * g * f''(x), given x and hg = og * g; an empty one: f'' is zero wherever f' exists. */
using SecondTerm = std::function<NodeEntry(Expr&, const NodeEntry& x, const NodeEntry& hg)>;

/*! \brief hg * f''(x) for f'' built by `f2`. */
SecondTerm Times(std::function<NodeEntry(Expr&, const NodeEntry&)> f2) {
  return [f2](Expr& e, const NodeEntry& x, const NodeEntry& hg) { return e.Mul(hg, f2(e, x)); };
}

const std::unordered_map<std::string, SecondTerm>& SecondTerms() {
  static const std::unordered_map<std::string, SecondTerm> table = {
      // Piecewise linear or linear: f'' = 0 wherever f' exists.
      {"abs", nullptr},
      {"negative", nullptr},
      {"relu", nullptr},
      {"radians", nullptr},
      {"square", [](Expr& e, const NodeEntry&, const NodeEntry& hg) { return e.Scale(hg, 2.0); }},
      {"reciprocal", Times([](Expr& e, const NodeEntry& x) { return e.Scale(e.Pow(x, -3.0), 2.0); })},
      {"sqrt", Times([](Expr& e, const NodeEntry& x) { return e.Scale(e.Pow(x, -1.5), -0.25); })},
      {"rsqrt", Times([](Expr& e, const NodeEntry& x) { return e.Scale(e.Pow(x, -2.5), 0.75); })},
      // Through cbrt(x) so negative x keeps a real result: x^(-5/3) = cbrt(x)^-5.
      {"cbrt", Times([](Expr& e, const NodeEntry& x) { return e.Scale(e.Pow(e.Op("cbrt", {x}), -5.0), -2.0 / 9.0); })},
      {"rcbrt", Times([](Expr& e, const NodeEntry& x) { return e.Scale(e.Pow(e.Op("rcbrt", {x}), 7.0), 4.0 / 9.0); })},
      {"exp", Times([](Expr& e, const NodeEntry& x) { return e.Op("exp", {x}); })},
      {"expm1", Times([](Expr& e, const NodeEntry& x) { return e.Op("exp", {x}); })},
      {"log", Times([](Expr& e, const NodeEntry& x) { return e.Scale(e.Pow(x, -2.0), -1.0); })},
      {"log2", Times([](Expr& e, const NodeEntry& x) { return e.Scale(e.Pow(x, -2.0), -1.0 / M_LN2); })},
      {"log10", Times([](Expr& e, const NodeEntry& x) { return e.Scale(e.Pow(x, -2.0), -1.0 / M_LN10); })},
      {"log1p", Times([](Expr& e, const NodeEntry& x) { return e.Scale(e.Pow(e.Plus(x, 1.0), -2.0), -1.0); })},
      {"sin", Times([](Expr& e, const NodeEntry& x) { return e.Neg(e.Op("sin", {x})); })},
      {"cos", Times([](Expr& e, const NodeEntry& x) { return e.Neg(e.Op("cos", {x})); })},
      // tan'' = 2 tan (1 + tan^2)
      {"tan", Times([](Expr& e, const NodeEntry& x) {
         const NodeEntry t = e.Op("tan", {x});
         return e.Scale(e.Mul(t, e.Plus(e.Square(t), 1.0)), 2.0);
       })},
      // arcsin'' = x (1 - x^2)^-3/2, arccos'' its negative
      {"arcsin", Times([](Expr& e, const NodeEntry& x) { return e.Mul(x, e.Pow(e.RMinus(e.Square(x), 1.0), -1.5)); })},
      {"arccos", Times([](Expr& e, const NodeEntry& x) {
         return e.Neg(e.Mul(x, e.Pow(e.RMinus(e.Square(x), 1.0), -1.5)));
       })},
      // arctan'' = -2x (1 + x^2)^-2
      {"arctan", Times([](Expr& e, const NodeEntry& x) {
         return e.Scale(e.Mul(x, e.Pow(e.Plus(e.Square(x), 1.0), -2.0)), -2.0);
       })},
      {"sinh", Times([](Expr& e, const NodeEntry& x) { return e.Op("sinh", {x}); })},
      {"cosh", Times([](Expr& e, const NodeEntry& x) { return e.Op("cosh", {x}); })},
      // tanh'' = -2 tanh (1 - tanh^2)
      {"tanh", Times([](Expr& e, const NodeEntry& x) {
         const NodeEntry t = e.Op("tanh", {x});
         return e.Scale(e.Mul(t, e.RMinus(e.Square(t), 1.0)), -2.0);
       })},
      // arcsinh'' = -x (x^2 + 1)^-3/2, arccosh'' = -x (x^2 - 1)^-3/2, arctanh'' = 2x (1 - x^2)^-2
      {"arcsinh", Times([](Expr& e, const NodeEntry& x) {
         return e.Neg(e.Mul(x, e.Pow(e.Plus(e.Square(x), 1.0), -1.5)));
       })},
      {"arccosh", Times([](Expr& e, const NodeEntry& x) {
         return e.Neg(e.Mul(x, e.Pow(e.Plus(e.Square(x), -1.0), -1.5)));
       })},
      {"arctanh", Times([](Expr& e, const NodeEntry& x) {
         return e.Scale(e.Mul(x, e.Pow(e.RMinus(e.Square(x), 1.0), -2.0)), 2.0);
       })},
      // sigmoid'' = s (1 - s) (1 - 2s)
      {"sigmoid", Times([](Expr& e, const NodeEntry& x) {
         const NodeEntry s = e.Op("sigmoid", {x});
         return e.Mul(e.Mul(s, e.RMinus(s, 1.0)), e.RMinus(e.Scale(s, 2.0), 1.0));
       })},
  };
  return table;
}

}  // namespace

FGradient UnaryBackwardGradient(const std::string& unary_op) {
  auto it = SecondTerms().find(unary_op);
  if (it == SecondTerms().end()) return FGradient();
  const SecondTerm term = it->second;
  const std::string backward = "_backward_" + unary_op;
  return [term, backward](const NodePtr& n, const std::vector<NodeEntry>& og) {
    const NodeEntry& g = n->inputs[0];
    const NodeEntry& x = n->inputs[1];
    Expr e(n->attrs.name + "_grad");
    // d(g * f'(x))/dg = f'(x): the backward op itself applied to og.
    const NodeEntry dg = e.Op(backward.c_str(), {og[0], x});
    const NodeEntry dx = term ? term(e, x, e.Mul(og[0], g)) : MakeZeroGrad(n, 1);
    return std::vector<NodeEntry>{dg, dx};
  };
}

}  // namespace op
}  // namespace mxnet
