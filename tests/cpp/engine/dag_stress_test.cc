// Random DAGs of ops over shared vars must give exactly the result of running the ops one
// after another in push order, on every engine type and thread count.
#include <atomic>
#include <cstdint>
#include <random>

#include "engine_test_util.h"

namespace mxnet {
namespace engine {
namespace test {
namespace {

uint64_t Mix(uint64_t state, uint64_t input, uint64_t step) {
  // Order-sensitive: swapping any two writes (or a read and a write) changes the result.
  uint64_t x = state * 0x9E3779B97F4A7C15ull + input + step;
  x ^= x >> 29;
  return x * 0xBF58476D1CE4E5B9ull;
}

struct OpSpec {
  std::vector<int> reads;
  std::vector<int> writes;
};

std::vector<OpSpec> RandomOps(int num_ops, int num_vars, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<OpSpec> ops(num_ops);
  std::vector<int> pick;
  for (auto& op : ops) {
    int nreads = rng() % 4, nwrites = 1 + rng() % 2;
    pick.clear();
    while (static_cast<int>(pick.size()) < nreads + nwrites) {
      int v = rng() % num_vars;
      if (std::find(pick.begin(), pick.end(), v) == pick.end()) pick.push_back(v);
    }
    op.reads.assign(pick.begin(), pick.begin() + nreads);
    op.writes.assign(pick.begin() + nreads, pick.end());
  }
  return ops;
}

void Apply(const OpSpec& op, uint64_t step, std::vector<uint64_t>* data) {
  uint64_t input = 0;
  for (int r : op.reads) input += (*data)[r];
  for (int w : op.writes) (*data)[w] = Mix((*data)[w], input, step);
}

class RandomDagTest : public EngineTest {
 protected:
  /*! \brief Pushes ops in three forms (PushSync, PushAsync, prebuilt Push) and checks. */
  void Run(int num_ops, int num_vars, int bulk, uint32_t seed) {
    auto ops = RandomOps(num_ops, num_vars, seed);
    std::vector<uint64_t> data(num_vars), oracle(num_vars);
    for (int i = 0; i < num_vars; ++i) data[i] = oracle[i] = i + 1;
    std::vector<uint64_t> writes(num_vars, 0);
    std::vector<VarHandle> vars(num_vars);
    for (auto& v : vars) v = engine_->NewVariable();

    // A few prebuilt ops, pushed repeatedly, as hot paths do.
    std::vector<OprHandle> prebuilt;
    std::vector<OpSpec> prebuilt_spec = RandomOps(8, num_vars, seed + 1);
    std::vector<std::atomic<uint64_t>> prebuilt_step(prebuilt_spec.size());
    for (size_t k = 0; k < prebuilt_spec.size(); ++k) {
      const OpSpec* spec = &prebuilt_spec[k];
      std::vector<VarHandle> cv, mv;
      for (int r : spec->reads) cv.push_back(vars[r]);
      for (int w : spec->writes) mv.push_back(vars[w]);
      auto* step = &prebuilt_step[k];
      prebuilt.push_back(engine_->NewOperator(
          [spec, step, &data](RunContext, CallbackOnComplete done) {
            Apply(*spec, step->load(), &data);
            done();
          },
          cv, mv, FnProperty::kNormal, "prebuilt"));
    }

    int prev_bulk = engine_->set_bulk_size(bulk);
    for (int i = 0; i < num_ops; ++i) {
      if (i % 97 == 0) {
        // Prebuilt ops read their step when they run; only one of each is in flight at a
        // time here because we wait for it, which also exercises WaitForVar mid-stream.
        size_t k = (i / 97) % prebuilt.size();
        const OpSpec& spec = prebuilt_spec[k];
        prebuilt_step[k].store(i);
        engine_->Push(prebuilt[k], Context::CPU());
        Apply(spec, i, &oracle);
        for (int w : spec.writes) ++writes[w];
        engine_->WaitForVar(vars[spec.writes[0]]);
        continue;
      }
      const OpSpec& op = ops[i];
      std::vector<VarHandle> cv, mv;
      for (int r : op.reads) cv.push_back(vars[r]);
      for (int w : op.writes) mv.push_back(vars[w]);
      const OpSpec* spec = &op;
      if (i % 5 == 0) {
        engine_->PushAsync(
            [spec, i, &data](RunContext, CallbackOnComplete done) {
              Apply(*spec, i, &data);
              done();
            },
            Context::CPU(), cv, mv);
      } else {
        engine_->PushSync([spec, i, &data](RunContext) { Apply(*spec, i, &data); }, Context::CPU(), cv, mv);
      }
      Apply(op, i, &oracle);
      for (int w : op.writes) ++writes[w];
    }
    engine_->set_bulk_size(prev_bulk);
    engine_->WaitForAll();
    for (int i = 0; i < num_vars; ++i) {
      ASSERT_EQ(data[i], oracle[i]) << "var " << i;
      // A bulk is one engine op: its writes count once.
      if (bulk == 0) ASSERT_EQ(VarVersion(vars[i]), writes[i]) << "var " << i;
    }
    for (auto* op : prebuilt) engine_->DeleteOperator(op);
    for (auto* v : vars) engine_->DeleteVariable(nullptr, Context::CPU(), v);
    engine_->WaitForAll();
  }
};

TEST_P(RandomDagTest, HundredThousandOpsMatchSequentialOracle) { Run(100000, 300, 0, 12345); }

TEST_P(RandomDagTest, BulkedOpsMatchSequentialOracle) { Run(20000, 200, 16, 777); }

TEST_P(RandomDagTest, FewVarsHighContention) { Run(20000, 8, 0, 99); }

INSTANTIATE_TEST_SUITE_P(AllEngines, RandomDagTest, testing::ValuesIn(AllEngines()), ParamName);

}  // namespace
}  // namespace test
}  // namespace engine
}  // namespace mxnet
