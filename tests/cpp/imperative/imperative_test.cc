// Registry, imperative invoke and autograd from C++.
#include <gtest/gtest.h>

#include <set>

#include "mxnet/imperative.h"

using namespace mxnet;

namespace {
NDArray Filled(std::vector<float> v) {
  NDArray a(TShape({static_cast<dim_t>(v.size())}), Context::CPU());
  a.SyncCopyFromCPU(v.data(), v.size());
  return a;
}
std::vector<float> Read(const NDArray& a) {
  std::vector<float> v(a.Size());
  a.SyncCopyToCPU(v.data(), v.size());
  return v;
}
struct TestParam : public dmlc::Parameter<TestParam> {
  TShape kernel;
  int num_filter;
  DMLC_DECLARE_PARAMETER(TestParam) {
    DMLC_DECLARE_FIELD(kernel).describe("kernel");
    DMLC_DECLARE_FIELD(num_filter).set_lower_bound(1).describe("filters");
  }
};
DMLC_REGISTER_PARAMETER(TestParam);
}  // namespace

TEST(Registry, NamesAliasesAndInfo) {
  const op::Op* add = op::Op::Find("elemwise_add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(op::Op::Find("_plus"), add);
  EXPECT_EQ(op::Op::Find("identity"), op::Op::Find("_copy"));
  EXPECT_EQ(op::Op::Find("no_such_op"), nullptr);
  EXPECT_THROW(op::Op::Get("no_such_op"), Error);
  EXPECT_EQ(add->InputNames(op::MakeAttrs(add, {})), (std::vector<std::string>{"lhs", "rhs"}));
  auto names = op::OpRegistry::Get()->ListAllNames();
  EXPECT_TRUE(std::set<std::string>(names.begin(), names.end()).count("_Plus"));
}

TEST(Registry, ParamErrorsNameOpAndParameter) {
  op::NodeAttrs attrs;
  attrs.op = op::Op::Get("elemwise_add");
  attrs.dict = {{"kernel", "(3, x)"}, {"num_filter", "2"}};
  try {
    op::ParamParser<TestParam>(&attrs);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("elemwise_add: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("kernel"), std::string::npos) << e.what();
  }
  attrs.dict = {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"__lr_mult__", "2"}};
  op::ParamParser<TestParam>(&attrs);
  EXPECT_EQ(attrs.get<TestParam>().kernel, TShape({3, 3}));
  attrs.dict = {{"kernel", "(3, 3)"}, {"num_filter", "0"}};
  EXPECT_THROW(op::ParamParser<TestParam>(&attrs), Error);
}

TEST(Random, PhiloxStreamsReproducible) {
  op::RandomStream s(123, 0), t(123, 1);
  auto a = s.ForElement(5), b = s.ForElement(5), c = t.ForElement(5), d = s.ForElement(6);
  const uint32_t x = a.NextU32();
  EXPECT_EQ(x, b.NextU32());
  EXPECT_NE(x, c.NextU32());
  EXPECT_NE(x, d.NextU32());
  double sum = 0;
  for (int i = 0; i < 10000; ++i) sum += s.ForElement(i).UniformD();
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);
  imperative::RandomSeed(9);
  auto r1 = imperative::NextRandomStream(Context::CPU()).ForElement(0).NextU32();
  imperative::RandomSeed(9);
  EXPECT_EQ(r1, imperative::NextRandomStream(Context::CPU()).ForElement(0).NextU32());
}

TEST(Imperative, InvokeAndInplace) {
  NDArray a = Filled({1, 2, 3}), b = Filled({10, 20, 30});
  auto out = imperative::InvokeByName("elemwise_add", {a, b});
  EXPECT_EQ(Read(out[0]), (std::vector<float>{11, 22, 33}));
  std::vector<NDArray*> ins{&a, &a}, outs{&a};
  imperative::Invoke(Context::CPU(), op::MakeAttrs(op::Op::Get("elemwise_add"), {}), ins, outs);
  EXPECT_EQ(Read(a), (std::vector<float>{2, 4, 6}));
  try {
    imperative::InvokeByName("elemwise_add", {a, Filled({1, 2})});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("elemwise_add"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("(3,), (2,)"), std::string::npos) << e.what();
  }
}

TEST(Imperative, WritesAreCountedWhenPushed) {
  NDArray x = Filled({1, 2, 3, 4}), a = Filled({0, 0, 0, 0});
  const uint32_t before = a.version();
  std::vector<NDArray*> ins{&x, &x}, outs{&a};
  imperative::Invoke(Context::CPU(), op::MakeAttrs(op::Op::Get("elemwise_add"), {}), ins, outs);
  EXPECT_EQ(a.version(), before + 1);  // the output
  EXPECT_EQ(x.version(), 1u);          // only its SyncCopyFromCPU; reading does not count
  // BatchNorm declares its moving statistics (inputs 3 and 4) written, and its training backward
  // writes them (inputs 5 and 6): those writes count too.
  NDArray data(TShape({2, 2, 1, 1}), Context::CPU()), gamma = Filled({1, 1}), beta = Filled({0, 0});
  NDArray mean = Filled({0, 0}), var = Filled({1, 1});
  std::vector<float> d{1, 2, 3, 5};
  data.SyncCopyFromCPU(d.data(), d.size());
  const uint32_t mean_before = mean.version(), var_before = var.version(), gamma_before = gamma.version();
  const bool was_training = imperative::SetIsTraining(true);
  // output_mean_var: the backward reads the batch statistics, which are hidden outputs otherwise.
  const auto fwd = imperative::InvokeByName("BatchNorm", {data, gamma, beta, mean, var},
                                            {{"fix_gamma", "False"}, {"output_mean_var", "True"}});
  ASSERT_EQ(fwd.size(), 3u);
  EXPECT_EQ(mean.version(), mean_before + 1);
  EXPECT_EQ(var.version(), var_before + 1);
  EXPECT_EQ(Read(mean), (std::vector<float>{0, 0}));  // as in MXNet 1.x, the forward alone changes nothing
  imperative::InvokeByName("_backward_BatchNorm", {fwd[0], data, gamma, fwd[1], fwd[2], mean, var},
                           {{"fix_gamma", "False"}, {"output_mean_var", "True"}});
  imperative::SetIsTraining(was_training);
  EXPECT_EQ(mean.version(), mean_before + 2);
  EXPECT_EQ(var.version(), var_before + 2);
  EXPECT_EQ(gamma.version(), gamma_before);
  EXPECT_NE(Read(mean), (std::vector<float>{0, 0}));
}

TEST(Autograd, BackwardAccumulatesPerGradReq) {
  NDArray x = Filled({1, 2}), gx = Filled({0, 0});
  imperative::MarkVariables({&x}, {op::kAddTo}, {&gx});
  for (int rep = 0; rep < 2; ++rep) {
    imperative::SetIsRecording(true);
    NDArray y = imperative::InvokeByName("elemwise_add", {x, x})[0];
    std::vector<NDArray*> yins{&y, &x};
    NDArray z;
    std::vector<NDArray*> zouts{&z};
    imperative::Invoke(Context::CPU(), op::MakeAttrs(op::Op::Get("elemwise_add"), {}), yins, zouts);
    imperative::SetIsRecording(false);
    imperative::Backward({&z}, {}, {}, false, false, true);
  }
  EXPECT_EQ(Read(imperative::GetGrad(x)), (std::vector<float>{6, 6}));
}
