// Runs a model exported by MXNet (NAME-symbol.json + NAME-EPOCH.params) through the C predict
// API on a stored input, prints the output and checks it against a stored expected output;
// then does the same from 4 threads at once, each with its own predictor sharing the weights.
//
//   predict_model SYMBOL.json WEIGHTS.params INPUT.npy EXPECTED.npy
//
// Exit status: 0 when every output is within 1e-4 of the expected one, 1 on a mismatch or an
// error, 77 when an input file is missing (a test runner's "skipped").
#include <mxnet/c_predict_api.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "npy.h"

namespace {

constexpr int kSkipped = 77;
constexpr int kThreads = 4;
constexpr float kTolerance = 1e-4f;

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

/*! \brief Fails with MXGetLastError's message when a predict API call returns nonzero. */
void Check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(std::string(what) + " failed: " + MXGetLastError());
}

struct Model {
  std::string json, params;
  NpyArray input, expected;
};

/*! \brief Sets the input, runs forward and returns output 0 (checking its shape). */
std::vector<float> Run(PredictorHandle pred, const Model& m) {
  Check(MXPredSetInput(pred, "data", m.input.data.data(), static_cast<mx_uint>(m.input.data.size())), "MXPredSetInput");
  Check(MXPredForward(pred), "MXPredForward");
  mx_uint* shape = nullptr;
  mx_uint ndim = 0;
  Check(MXPredGetOutputShape(pred, 0, &shape, &ndim), "MXPredGetOutputShape");
  if (std::vector<uint32_t>(shape, shape + ndim) != m.expected.shape)
    throw std::runtime_error("output shape differs from the expected output's");
  std::vector<float> out(m.expected.data.size());
  Check(MXPredGetOutput(pred, 0, out.data(), static_cast<mx_uint>(out.size())), "MXPredGetOutput");
  return out;
}

float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  float worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::fmax(worst, std::fabs(a[i] - b[i]));
  return std::isnan(worst) ? INFINITY : worst;
}

void Print(const std::vector<float>& out, const std::vector<uint32_t>& shape) {
  std::printf("output shape (");
  for (size_t i = 0; i < shape.size(); ++i) std::printf("%s%u", i ? ", " : "", shape[i]);
  std::printf("):");
  const size_t shown = out.size() < 20 ? out.size() : 20;
  for (size_t i = 0; i < shown; ++i) std::printf(" %.6f", out[i]);
  std::printf("%s\n", shown < out.size() ? " ..." : "");
}

std::vector<mx_uint> InputShape(const Model& m) { return {m.input.shape.begin(), m.input.shape.end()}; }

bool SinglePredictor(const Model& m) {
  const std::vector<mx_uint> shape = InputShape(m);
  const char* keys[] = {"data"};
  const mx_uint indptr[] = {0, static_cast<mx_uint>(shape.size())};
  PredictorHandle pred = nullptr;
  Check(MXPredCreate(m.json.c_str(), m.params.data(), static_cast<int>(m.params.size()), 1, 0, 1, keys, indptr,
                     shape.data(), &pred),
        "MXPredCreate");
  const std::vector<float> out = Run(pred, m);
  MXPredFree(pred);
  Print(out, m.expected.shape);
  const float diff = MaxAbsDiff(out, m.expected.data);
  std::printf("one predictor: max |output - expected| = %g\n", diff);
  return diff <= kTolerance;
}

bool ThreadedPredictors(const Model& m) {
  const std::vector<mx_uint> shape = InputShape(m);
  const char* keys[] = {"data"};
  const mx_uint indptr[] = {0, static_cast<mx_uint>(shape.size())};
  PredictorHandle preds[kThreads] = {};
  Check(MXPredCreateMultiThread(m.json.c_str(), m.params.data(), static_cast<int>(m.params.size()), 1, 0, 1, keys,
                                indptr, shape.data(), kThreads, preds),
        "MXPredCreateMultiThread");
  std::vector<float> diffs(kThreads, INFINITY);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        float worst = 0;
        for (int iter = 0; iter < 3; ++iter) worst = std::fmax(worst, MaxAbsDiff(Run(preds[t], m), m.expected.data));
        diffs[t] = worst;
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  bool ok = true;
  for (int t = 0; t < kThreads; ++t) {
    MXPredFree(preds[t]);
    if (!errors[t].empty()) std::fprintf(stderr, "thread %d: %s\n", t, errors[t].c_str());
    std::printf("thread %d: max |output - expected| = %g\n", t, diffs[t]);
    ok = ok && errors[t].empty() && diffs[t] <= kTolerance;
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s SYMBOL.json WEIGHTS.params INPUT.npy EXPECTED.npy\n", argv[0]);
    return 1;
  }
  Model m;
  std::string input_bytes, expected_bytes;
  if (!ReadFile(argv[1], &m.json) || !ReadFile(argv[2], &m.params) || !ReadFile(argv[3], &input_bytes) ||
      !ReadFile(argv[4], &expected_bytes)) {
    std::printf("model files not found (%s ...): skipped\n", argv[1]);
    return kSkipped;
  }
  try {
    m.input = ParseNpy(input_bytes);
    m.expected = ParseNpy(expected_bytes);
    const bool one = SinglePredictor(m);
    const bool many = ThreadedPredictors(m);
    std::printf("%s\n", one && many ? "PASSED" : "MISMATCH");
    return one && many ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
