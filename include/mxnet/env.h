/*!
 * \file env.h
 * \brief The environment-variable registry: every MXNET_/NNVM_/DMLC_ variable the
 *        runtime knows is declared once in mxnet/env_vars.def (beside this header, as the
 *        Var enum below is made from it), parsed and validated once at library load by
 *        src/env, and read through the typed accessors below.
 */
#ifndef MXNET_ENV_H_
#define MXNET_ENV_H_

#include <cstdint>
#include <string>
#include <vector>

namespace mxnet {
namespace env {

enum class Type { kInt, kFloat, kBool, kEnum, kString, kIntList };

enum class Section {
  kThreads,
  kMemory,
  kEngine,
  kExecution,
  kKVStore,
  kProfiler,
  kCuda,
  kOneDNN,
  kPython,
  kLogging,
  kOther
};

/*! \brief Identifier of every registered variable, generated from env_vars.def. */
enum class Var : int {
#define MXNET_ENV_VAR(name, type, def, allowed, section, acted, mutable_, doc) name,
#include "mxnet/env_vars.def"
#undef MXNET_ENV_VAR
  kCount
};

/*! \brief Static description of one variable (one row of the table). */
struct Spec {
  const char* name;
  Type type;
  const char* default_value;  // written as a user would set it
  const char* allowed;        // enum: "A|B|C"; int/float: "min:max" (a side may be empty)
  Section section;
  bool acted_on;              // whether this build does something with it
  bool runtime_mutable;       // may change after load through MXSetEnv
  const char* doc;
};

/*! \brief A renamed variable still accepted under its old name. */
struct Alias {
  const char* old_name;
  Var current;
};

/*! \brief The current state of one variable, as introspection reports it. */
struct Entry {
  const Spec* spec;
  std::string value;  // effective value, normalised text
  bool is_set;        // set by the user (environment or MXSetEnv)
};

const Spec& GetSpec(Var v);
const std::vector<Alias>& Aliases();
const char* TypeName(Type t);
const char* SectionName(Section s);

// Typed accessors. Values are parsed once; these never touch getenv.
int64_t GetInt(Var v);
double GetFloat(Var v);
bool GetBool(Var v);
std::string GetString(Var v);  // string and enum variables
std::vector<int64_t> GetIntList(Var v);
bool IsSet(Var v);

/*! \brief Text of every variable in table order (for docs and MXListEnvVars). */
std::vector<Entry> List();

/*!
 * \brief Sets a variable at run time (MXSetEnv). Validates like load does and throws
 *        mxnet::Error naming the variable on a bad value. Unknown MXNET_ names and
 *        variables fixed at load are rejected; other names go to the process environment.
 */
void Set(const std::string& name, const std::string& value);
/*! \brief Restores a variable's default (MXSetEnv with NULL) and removes it from the environment. */
void Unset(const std::string& name);
/*! \brief Current text of a registered variable, or the process environment otherwise. */
std::string Get(const std::string& name, bool* found);

/*!
 * \brief Parses the whole environment. Called once at library load; collects every error
 *        instead of throwing. Returns the combined message, empty when all is well.
 */
std::string LoadFromEnvironment();
/*! \brief The error recorded at load, empty if none. */
const std::string& LoadError();

/*! \brief A value parsed against its spec. */
struct Parsed {
  std::string text;  // normalised: canonical enum spelling, "0"/"1" for bools
  int64_t i{0};
  double f{0};
  std::vector<int64_t> list;
};

/*!
 * \brief Parse and validate one value against a spec; throws mxnet::Error naming the
 *        variable (as the user spelled it), the value and what is allowed.
 */
Parsed Parse(const Spec& spec, const std::string& name_as_set, const std::string& value);

/*! \brief "an integer >= 1", "one of NaiveEngine, ThreadedEngine", ... */
std::string DescribeAllowed(const Spec& spec);

/*! \brief Closest registered name (edit distance), for "did you mean" hints. */
std::string ClosestName(const std::string& unknown);

/*! \brief The generated markdown reference (docs/env_var.md). */
std::string GenerateMarkdown();

}  // namespace env
}  // namespace mxnet

#endif  // MXNET_ENV_H_
