/*!
 * \file backend.cc
 * \brief The subgraph backends this build knows and their rewrites in order, each behind its
 *        environment switch; PartitionForInference and DefaultInferenceBackend (subgraph.h).
 */
#include <algorithm>
#include <cctype>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "common/logging.h"
#include "graph/subgraph.h"
#include "graph/subgraph/properties.h"
#include "mxnet/env.h"

namespace mxnet {
namespace graph {
namespace {

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

/*! \brief One rewrite and the switch that turns it off (kCount: none). */
struct Property {
  env::Var disabled_by;
  std::function<int(Symbol*)> run;
};

bool On(env::Var v) { return v == env::Var::kCount || !env::GetBool(v); }

const std::vector<Property>& OneDNNProperties() {
  using V = env::Var;
  static const std::vector<Property> props{
      {V::kCount, subgraph::DropIdentities},
      {V::MXNET_DISABLE_ONEDNN_CONV_OPT,
       [](Symbol* s) {
         subgraph::ConvFuseOptions o;
         o.bn = On(V::MXNET_DISABLE_ONEDNN_FUSE_CONV_BN);
         o.sum = On(V::MXNET_DISABLE_ONEDNN_FUSE_CONV_SUM);
         o.act = On(V::MXNET_DISABLE_ONEDNN_FUSE_CONV_RELU);
         return o.bn || o.sum || o.act ? subgraph::FuseConv(s, o) : 0;
       }},
      {V::MXNET_DISABLE_ONEDNN_FC_OPT,
       [](Symbol* s) { return On(V::MXNET_DISABLE_ONEDNN_FUSE_FC_ELTWISE) ? subgraph::FuseFCActivation(s) : 0; }},
      {V::MXNET_DISABLE_ONEDNN_FUSE_BN_RELU, subgraph::FuseBatchNormReLU},
  };
  return props;
}

/*! \brief A backend's rewrites by name; null for "" and NONE. Throws for names it does not know. */
const std::vector<Property>* Find(const std::string& backend) {
  const std::string name = Upper(backend);
  if (name.empty() || name == "NONE") return nullptr;
  if (name == "ONEDNN" || name == "MKLDNN") return &OneDNNProperties();
  MX_THROW("ValueError") << "subgraph backend '" << backend
                         << "' is not available; this build has ONEDNN (alias MKLDNN), or NONE for no rewrite";
  return nullptr;
}

}  // namespace

int PartitionForInference(Symbol* sym, const std::string& backend) {
  MX_CHECK_KIND(sym != nullptr, "ValueError") << "PartitionForInference: no symbol given";
  const std::vector<Property>* props = Find(backend);
  if (!props) return 0;
  const std::vector<NodePtr> args = sym->ListInputs(InputOption::kReadOnlyArgs);
  const std::vector<NodePtr> aux = sym->ListInputs(InputOption::kAuxiliaryStates);
  const size_t num_outputs = sym->outputs.size();
  int fused = 0;
  for (const Property& p : *props)
    if (On(p.disabled_by)) fused += p.run(sym);
  // Executors bind arrays by these positions: a rewrite that moved one would bind wrongly.
  const bool same = sym->ListInputs(InputOption::kReadOnlyArgs) == args &&
                    sym->ListInputs(InputOption::kAuxiliaryStates) == aux && sym->outputs.size() == num_outputs;
  MX_CHECK(same) << "subgraph backend " << backend << " changed the graph's inputs or outputs";
  return fused;
}

std::string DefaultInferenceBackend() {
  if (env::IsSet(env::Var::MXNET_GLUON_FOLD_BN)) {
    // The older Gluon-only switch: its 0 still turns fusion off unless the backend is named.
    static std::once_flag warned;
    std::call_once(warned, [] {
      common::LogWarning("MXNET_GLUON_FOLD_BN is deprecated; MXNET_SUBGRAPH_BACKEND=NONE turns inference fusion off "
                         "(the old switch is still honoured when MXNET_SUBGRAPH_BACKEND is unset).");
    });
    if (!env::IsSet(env::Var::MXNET_SUBGRAPH_BACKEND) && !env::GetBool(env::Var::MXNET_GLUON_FOLD_BN)) return "";
  }
  if (!env::IsSet(env::Var::MXNET_SUBGRAPH_BACKEND)) return MXNET_USE_ONEDNN ? "ONEDNN" : "";
  const std::string value = Upper(env::GetString(env::Var::MXNET_SUBGRAPH_BACKEND));
  return value == "NONE" ? "" : value;
}

}  // namespace graph
}  // namespace mxnet
