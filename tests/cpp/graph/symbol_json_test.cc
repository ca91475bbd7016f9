// Symbol JSON: byte-exact round trips of files MXNet 1.9.1 wrote, the 0.8-era layout, and
// malformed or hostile files, each a clean error that names what was wrong.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "graph/symbol_json.h"

using mxnet::graph::InputOption;
using mxnet::graph::LoadJson;
using mxnet::graph::SaveJson;
using mxnet::graph::Symbol;

namespace {

std::string FixtureDir() {
  const char* env = std::getenv("MXNET_FIXTURES");
  if (env) return env;
  // <checkout>/tests/cpp/graph/this.cc -> <checkout>/../shared/fixtures/mxnet
  std::string here = __FILE__;
  for (int i = 0; i < 4; ++i) here = here.substr(0, here.rfind('/'));
  return here + "/../shared/fixtures/mxnet";
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream is(path, std::ios::binary);
  if (!is) return false;
  std::stringstream ss;
  ss << is.rdbuf();
  *out = ss.str();
  return true;
}

/*! \brief The text without its "node_row_ptr" array (counts of outputs some ops differ in). */
std::string WithoutRowPtr(const std::string& s) {
  const size_t b = s.find("\"node_row_ptr\"");
  if (b == std::string::npos) return s;
  const size_t e = s.find(']', b);
  return s.substr(0, b) + s.substr(e + 1);
}

const char* kValid = R"({
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "null", "name": "fc_weight", "inputs": []},
    {"op": "null", "name": "fc_bias", "inputs": []},
    {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "4"}, "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}
  ],
  "arg_nodes": [0, 1, 2],
  "heads": [[3, 0, 0]],
  "attrs": {"mxnet_version": ["int", 10901]}
})";

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  const size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  return p == std::string::npos ? s : s.replace(p, from.size(), to);
}

}  // namespace

TEST(SymbolJson, ValidMinimalLoads) {
  Symbol s = LoadJson(kValid);
  EXPECT_EQ(s.ListInputNames(InputOption::kAll), (std::vector<std::string>{"data", "fc_weight", "fc_bias"}));
  EXPECT_EQ(s.ListOutputNames(), std::vector<std::string>{"fc_output"});
}

TEST(SymbolJson, FilesWrittenByMXNetSaveBackByteForByte) {
  for (const char* name : {"module_mlp", "mobilenet0.25", "mobilenetv2_0.25", "opsnet"}) {
    std::string text;
    const std::string path = FixtureDir() + "/models/" + name + "-symbol.json";
    if (!ReadFile(path, &text)) GTEST_SKIP() << "fixtures not found at " << path;
    const std::string saved = SaveJson(LoadJson(text));
    // MXNet's max pooling has a second (workspace) output that ours does not: only the
    // output counts in node_row_ptr may differ.
    EXPECT_EQ(WithoutRowPtr(saved), WithoutRowPtr(text)) << name;
    if (std::string(name) != "opsnet") EXPECT_EQ(saved, text) << name;
    EXPECT_EQ(SaveJson(LoadJson(saved)), saved) << name;
  }
}

TEST(SymbolJson, LoadsThe08Layout) {
  std::string text;
  if (!ReadFile(FixtureDir() + "/save_000800.json", &text)) GTEST_SKIP() << "fixtures not found";
  Symbol s = LoadJson(text);
  EXPECT_EQ(s.ListInputNames(InputOption::kAuxiliaryStates),
            (std::vector<std::string>{"batchnorm0_moving_mean", "batchnorm0_moving_var"}));
  std::string v;
  Symbol data = s.GetInternals();
  ASSERT_TRUE(s.ListInputs(InputOption::kAll)[0]->attrs.dict.count("__ctx_group__"));
  EXPECT_EQ(s.ListInputs(InputOption::kAll)[0]->attrs.dict.at("__lr_mult__"), "0.2");
}

struct BadCase {
  const char* what;
  std::string text;
  const char* expect;  // a piece of the message
};

TEST(SymbolJson, HostileFilesAreCleanErrors) {
  const std::string v = kValid;
  std::vector<BadCase> cases = {
      {"empty", "", "unexpected end"},
      {"whitespace only", "   \n ", "unexpected end"},
      {"truncated mid object", v.substr(0, v.size() / 2), "symbol JSON"},
      {"truncated mid string", v.substr(0, v.find("FullyConnected") + 5), "unterminated string"},
      {"not an object", "[1, 2, 3]", "must be an object"},
      {"number document", "42", "must be an object"},
      {"trailing garbage", v + " xyz", "unexpected text after"},
      {"no nodes", R"({"heads": [[0, 0, 0]]})", "missing field \"nodes\""},
      {"nodes not array", R"({"nodes": {}, "heads": []})", "field \"nodes\" is an object"},
      {"node not object", R"({"nodes": [5], "heads": [[0,0,0]]})", "node 0: must be an object"},
      {"node without op", Replace(v, R"("op": "null", "name": "data")", R"("name": "data")"), "missing field \"op\""},
      {"op not string", Replace(v, R"("op": "null", "name": "data")", R"("op": 7, "name": "data")"), "field \"op\" is a number"},
      {"name missing", Replace(v, R"("op": "null", "name": "data", )", R"("op": "null", )"), "missing field \"name\""},
      {"unknown op", Replace(v, "FullyConnected", "NoSuchOp"), "unknown operator \"NoSuchOp\""},
      {"dangling input", Replace(v, "[2, 0, 0]]", "[9, 0, 0]]"), "node 9, which does not exist"},
      {"forward reference (cycle)", Replace(Replace(v, R"("inputs": []},
    {"op": "null", "name": "fc_bias")", R"("inputs": []},
    {"op": "null", "name": "fc_bias")"), "[0, 0, 0], [1, 0, 0]", "[3, 0, 0], [1, 0, 0]"), "does not come before it"},
      {"self loop", Replace(v, "[0, 0, 0], [1, 0, 0]", "[3, 0, 0], [1, 0, 0]"), "does not come before it"},
      {"negative node id", Replace(v, "[0, 0, 0], [1, 0, 0]", "[-1, 0, 0], [1, 0, 0]"), "does not exist"},
      {"output index out of range", Replace(v, "[0, 0, 0], [1, 0, 0]", "[0, 3, 0], [1, 0, 0]"), "output 3 of node 0"},
      {"entry too short", Replace(v, "[0, 0, 0], [1, 0, 0]", "[0], [1, 0, 0]"), "an entry must be"},
      {"entry too long", Replace(v, "[0, 0, 0], [1, 0, 0]", "[0, 0, 0, 0], [1, 0, 0]"), "an entry must be"},
      {"entry of strings", Replace(v, "[0, 0, 0], [1, 0, 0]", R"(["a", 0, 0], [1, 0, 0])"), "expected an integer"},
      {"fractional id", Replace(v, "[0, 0, 0], [1, 0, 0]", "[0.5, 0, 0], [1, 0, 0]"), "expected an integer"},
      {"huge id", Replace(v, "[0, 0, 0], [1, 0, 0]", "[1e300, 0, 0], [1, 0, 0]"), "expected an integer"},
      {"too few inputs", Replace(v, ", [2, 0, 0]]", "]"), "takes 3 inputs, the file gives 2"},
      {"too many inputs", Replace(v, "[2, 0, 0]]", "[2, 0, 0], [2, 0, 0]]"), "takes 3 inputs"},
      {"variable with inputs", Replace(v, R"("name": "fc_bias", "inputs": [])", R"("name": "fc_bias", "inputs": [[0, 0, 0]])"), "cannot have inputs"},
      {"bad param value", Replace(v, R"("num_hidden": "4")", R"("num_hidden": "four")"), "node 3 (fc)"},
      {"missing required param", Replace(v, R"("attrs": {"num_hidden": "4"}, )", ""), "num_hidden"},
      {"unknown param", Replace(v, R"("num_hidden": "4")", R"("num_hidden": "4", "bogus": "1")"), "bogus"},
      {"attrs not object", Replace(v, R"({"num_hidden": "4"})", R"(["num_hidden"])"), "attributes must be an object"},
      {"attr value not string", Replace(v, R"("num_hidden": "4")", R"("num_hidden": 4)"), "must be a string"},
      {"heads missing", Replace(v, R"("heads": [[3, 0, 0]],)", ""), "missing field \"heads\""},
      {"heads empty", Replace(v, "[[3, 0, 0]]", "[]"), "at least one output"},
      {"head dangling", Replace(v, "[[3, 0, 0]]", "[[4, 0, 0]]"), "does not exist"},
      {"head output out of range", Replace(v, "[[3, 0, 0]]", "[[3, 1, 0]]"), "output 1 of node 3"},
      {"arg_nodes dangling", Replace(v, "[0, 1, 2]", "[0, 1, 7]"), "arg_nodes"},
      {"arg_nodes not a variable", Replace(v, "[0, 1, 2]", "[0, 1, 3]"), "is not a variable"},
      {"control dep forward", Replace(v, R"("inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]])",
                                      R"("inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]], "control_deps": [3])"), "control dependency"},
      {"bad version", Replace(v, R"(["int", 10901])", R"("x")"), "mxnet_version"},
      {"deep nesting", std::string(200, '[') + std::string(200, ']'), "nesting deeper"},
      {"bad escape", Replace(v, R"("name": "data")", R"("name": "da\qta")"), "unknown escape"},
      {"bad literal", Replace(v, "[0, 1, 2]", "[0, 1, tru]"), "unexpected character"},
      {"missing colon", Replace(v, R"("heads": )", R"("heads" )"), "expected ':'"},
      {"missing comma", Replace(v, R"("arg_nodes": [0, 1, 2],)", R"("arg_nodes": [0, 1 2],)"), "expected ',' or ']'"},
      {"nan number", Replace(v, "[0, 1, 2]", "[0, 1, 1e999]"), "malformed number"},
      {"binary junk", std::string("\x00\xff\xfe{", 4), "unexpected character"},
  };
  ASSERT_GE(cases.size(), 30u);
  for (const auto& c : cases) {
    try {
      LoadJson(c.text);
      ADD_FAILURE() << c.what << ": loaded without error";
    } catch (const mxnet::Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos)
          << c.what << ": message was: " << e.what();
    }
  }
}
