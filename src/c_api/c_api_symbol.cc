/*!
 * \file c_api_symbol.cc
 * \brief The Symbol C API (MXNet 1.x signatures): creation, composition, listing,
 *        attributes, JSON, inference.
 */
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "c_api/api_guard.h"
#include "c_api/c_api_symbol_infer.h"
#include "graph/gradient.h"
#include "graph/symbol_json.h"
#include "mxnet/c_api.h"

using mxnet::graph::InputOption;
using mxnet::graph::Symbol;

namespace {
struct StrTag {};
struct ListTag {};
struct AttrTag {};

Symbol* Sym(SymbolHandle h) {
  MX_CHECK_KIND(h != nullptr, "ValueError") << "Symbol handle is NULL";
  return static_cast<Symbol*>(h);
}

void ReturnStrings(const std::vector<std::string>& v, mx_uint* out_size, const char*** out) {
  auto& store = mxnet::capi::ThreadLocalReturn<ListTag, std::vector<std::string>>();
  auto& ptrs = mxnet::capi::ThreadLocalReturn<ListTag, std::vector<const char*>>();
  store = v;
  ptrs.clear();
  for (const auto& s : store) ptrs.push_back(s.c_str());
  *out_size = static_cast<mx_uint>(v.size());
  *out = ptrs.data();
}

const char* ReturnString(const std::string& s) {
  auto& store = mxnet::capi::ThreadLocalReturn<StrTag, std::string>();
  store = s;
  return store.c_str();
}

int ListAttrImpl(SymbolHandle symbol, bool recursive, mx_uint* out_size, const char*** out) {
  std::vector<std::string> flat;
  for (const auto& kv : Sym(symbol)->ListAttrs(recursive)) {
    flat.push_back(kv.first);
    flat.push_back(kv.second);
  }
  ReturnStrings(flat, out_size, out);
  *out_size /= 2;
  return 0;
}
}  // namespace

int MXSymbolCreateVariable(const char* name, SymbolHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(name != nullptr, "ValueError") << "MXSymbolCreateVariable: name is NULL";
  *out = new Symbol(Symbol::CreateVariable(name));
  API_END();
}

int MXSymbolCreateAtomicSymbol(AtomicSymbolCreator creator, mx_uint num_param, const char** keys, const char** vals,
                               SymbolHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(creator != nullptr, "ValueError") << "operator handle is NULL";
  std::vector<std::pair<std::string, std::string>> params;
  for (mx_uint i = 0; i < num_param; ++i) params.emplace_back(keys[i], vals[i]);
  *out = new Symbol(Symbol::CreateAtomic(static_cast<const mxnet::op::Op*>(creator), params));
  API_END();
}

int MXSymbolCompose(SymbolHandle sym, const char* name, mx_uint num_args, const char** keys, SymbolHandle* args) {
  API_BEGIN();
  std::vector<Symbol> a;
  std::vector<std::string> k;
  for (mx_uint i = 0; i < num_args; ++i) {
    a.push_back(*Sym(args[i]));
    if (keys) k.emplace_back(keys[i]);
  }
  Sym(sym)->Compose(a, k, name ? name : "");
  API_END();
}

int NNSymbolCompose(SymbolHandle sym, const char* name, mx_uint num_args, const char** keys, SymbolHandle* args) {
  return MXSymbolCompose(sym, name, num_args, keys, args);
}

int MXSymbolCreateGroup(mx_uint num_symbols, SymbolHandle* symbols, SymbolHandle* out) {
  API_BEGIN();
  std::vector<Symbol> v;
  for (mx_uint i = 0; i < num_symbols; ++i) v.push_back(*Sym(symbols[i]));
  *out = new Symbol(Symbol::Group(v));
  API_END();
}

int MXSymbolGetOutput(SymbolHandle symbol, mx_uint index, SymbolHandle* out) {
  API_BEGIN();
  *out = new Symbol(Sym(symbol)->GetOutput(index));
  API_END();
}

int MXSymbolGetNumOutputs(SymbolHandle symbol, mx_uint* output_count) {
  API_BEGIN();
  *output_count = static_cast<mx_uint>(Sym(symbol)->outputs.size());
  API_END();
}

int MXSymbolGetInternals(SymbolHandle symbol, SymbolHandle* out) {
  API_BEGIN();
  *out = new Symbol(Sym(symbol)->GetInternals());
  API_END();
}

int MXSymbolGetChildren(SymbolHandle symbol, SymbolHandle* out) {
  API_BEGIN();
  *out = new Symbol(Sym(symbol)->GetChildren());
  API_END();
}

int MXSymbolCopy(SymbolHandle symbol, SymbolHandle* out) {
  API_BEGIN();
  *out = new Symbol(Sym(symbol)->Copy());
  API_END();
}

int MXShallowCopySymbol(SymbolHandle src, SymbolHandle* out) {
  API_BEGIN();
  *out = new Symbol(*Sym(src));
  API_END();
}

int MXSymbolFree(SymbolHandle symbol) {
  API_BEGIN();
  delete static_cast<Symbol*>(symbol);
  API_END();
}

int NNSymbolFree(SymbolHandle symbol) { return MXSymbolFree(symbol); }

int MXSymbolPrint(SymbolHandle symbol, const char** out_str) {
  API_BEGIN();
  *out_str = ReturnString(Sym(symbol)->DebugStr());
  API_END();
}

int MXSymbolGetName(SymbolHandle symbol, const char** out, int* success) {
  API_BEGIN();
  std::string name;
  *success = Sym(symbol)->GetName(&name) ? 1 : 0;
  *out = *success ? ReturnString(name) : nullptr;
  API_END();
}

int MXSymbolGetAttr(SymbolHandle symbol, const char* key, const char** out, int* success) {
  API_BEGIN();
  MX_CHECK_KIND(key != nullptr, "ValueError") << "MXSymbolGetAttr: key is NULL";
  std::string v;
  *success = Sym(symbol)->GetAttr(key, &v) ? 1 : 0;
  *out = *success ? ReturnString(v) : nullptr;
  API_END();
}

int MXSymbolSetAttr(SymbolHandle symbol, const char* key, const char* value) {
  API_BEGIN();
  MX_CHECK_KIND(key != nullptr && value != nullptr, "ValueError") << "MXSymbolSetAttr: key or value is NULL";
  Sym(symbol)->SetAttr(key, value);
  API_END();
}

int MXSymbolListAttr(SymbolHandle symbol, mx_uint* out_size, const char*** out) {
  API_BEGIN();
  ListAttrImpl(symbol, true, out_size, out);
  API_END();
}

int MXSymbolListAttrShallow(SymbolHandle symbol, mx_uint* out_size, const char*** out) {
  API_BEGIN();
  ListAttrImpl(symbol, false, out_size, out);
  API_END();
}

int MXSymbolListArguments(SymbolHandle symbol, mx_uint* out_size, const char*** out_str_array) {
  API_BEGIN();
  ReturnStrings(Sym(symbol)->ListInputNames(InputOption::kReadOnlyArgs), out_size, out_str_array);
  API_END();
}

int MXSymbolListOutputs(SymbolHandle symbol, mx_uint* out_size, const char*** out_str_array) {
  API_BEGIN();
  ReturnStrings(Sym(symbol)->ListOutputNames(), out_size, out_str_array);
  API_END();
}

int MXSymbolListAuxiliaryStates(SymbolHandle symbol, mx_uint* out_size, const char*** out_str_array) {
  API_BEGIN();
  ReturnStrings(Sym(symbol)->ListInputNames(InputOption::kAuxiliaryStates), out_size, out_str_array);
  API_END();
}

int NNSymbolListInputNames(SymbolHandle symbol, int option, mx_uint* out_size, const char*** out_str_array) {
  API_BEGIN();
  MX_CHECK_KIND(option >= 0 && option <= 2, "ValueError") << "NNSymbolListInputNames: option must be 0, 1 or 2";
  ReturnStrings(Sym(symbol)->ListInputNames(static_cast<InputOption>(option)), out_size, out_str_array);
  API_END();
}

int MXSymbolCreateFromJSON(const char* json, SymbolHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(json != nullptr, "ValueError") << "MXSymbolCreateFromJSON: json is NULL";
  *out = new Symbol(mxnet::graph::LoadJson(json));
  API_END();
}

int MXSymbolCreateFromFile(const char* fname, SymbolHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(fname != nullptr, "ValueError") << "MXSymbolCreateFromFile: file name is NULL";
  std::ifstream is(fname, std::ios::binary);
  MX_CHECK_KIND(is.good(), "IOError") << "cannot open symbol file " << fname;
  std::stringstream ss;
  ss << is.rdbuf();
  try {
    *out = new Symbol(mxnet::graph::LoadJson(ss.str()));
  } catch (const mxnet::Error& e) {
    MX_THROW(e.kind()) << fname << ": " << e.what();
  }
  API_END();
}

int MXSymbolSaveToJSON(SymbolHandle symbol, const char** out_json) {
  API_BEGIN();
  *out_json = ReturnString(mxnet::graph::SaveJson(*Sym(symbol)));
  API_END();
}

int MXSymbolSaveToFile(SymbolHandle symbol, const char* fname) {
  API_BEGIN();
  MX_CHECK_KIND(fname != nullptr, "ValueError") << "MXSymbolSaveToFile: file name is NULL";
  const std::string text = mxnet::graph::SaveJson(*Sym(symbol));
  // Write beside, then rename: a failed write never leaves a truncated file in place.
  const std::string tmp = std::string(fname) + ".tmp";
  {
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    MX_CHECK_KIND(os.good(), "IOError") << "cannot write symbol file " << fname;
    os << text;
    os.flush();
    MX_CHECK_KIND(os.good(), "IOError") << "writing symbol file " << fname << " failed";
  }
  MX_CHECK_KIND(std::rename(tmp.c_str(), fname) == 0, "IOError") << "cannot move " << tmp << " to " << fname;
  API_END();
}

int MXSymbolGrad(SymbolHandle sym, mx_uint num_wrt, const char** wrt, SymbolHandle* out) {
  API_BEGIN();
  const Symbol& s = *Sym(sym);
  std::vector<mxnet::op::NodeEntry> xs;
  const auto inputs = s.ListInputs(InputOption::kReadOnlyArgs);
  for (mx_uint i = 0; i < num_wrt; ++i) {
    bool found = false;
    for (const auto& n : inputs)
      if (n->attrs.name == wrt[i]) {
        xs.push_back(mxnet::op::NodeEntry{n, 0, 0});
        found = true;
        break;
      }
    MX_CHECK_KIND(found, "ValueError") << "grad: " << wrt[i] << " is not an argument of the symbol";
  }
  mxnet::graph::GradientOptions opt;
  auto res = mxnet::graph::BuildGradient(s.outputs, xs, opt);
  Symbol g;
  g.outputs = res.grads;
  *out = new Symbol(g);
  API_END();
}

int MXSymbolInferShape(SymbolHandle sym, mx_uint num_args, const char** keys, const mx_uint* arg_ind_ptr,
                       const mx_uint* arg_shape_data, mx_uint* in_shape_size, const mx_uint** in_shape_ndim,
                       const mx_uint*** in_shape_data, mx_uint* out_shape_size, const mx_uint** out_shape_ndim,
                       const mx_uint*** out_shape_data, mx_uint* aux_shape_size, const mx_uint** aux_shape_ndim,
                       const mx_uint*** aux_shape_data, int* complete) {
  API_BEGIN();
  mxnet::capi::InferShapeImpl<mx_uint, mx_uint, mx_uint>(
      *Sym(sym), num_args, keys, arg_ind_ptr, arg_shape_data, in_shape_size, in_shape_ndim, in_shape_data,
      out_shape_size, out_shape_ndim, out_shape_data, aux_shape_size, aux_shape_ndim, aux_shape_data, complete);
  API_END();
}

int MXSymbolInferShapePartial(SymbolHandle sym, mx_uint num_args, const char** keys, const mx_uint* arg_ind_ptr,
                              const mx_uint* arg_shape_data, mx_uint* in_shape_size, const mx_uint** in_shape_ndim,
                              const mx_uint*** in_shape_data, mx_uint* out_shape_size, const mx_uint** out_shape_ndim,
                              const mx_uint*** out_shape_data, mx_uint* aux_shape_size, const mx_uint** aux_shape_ndim,
                              const mx_uint*** aux_shape_data, int* complete) {
  return MXSymbolInferShape(sym, num_args, keys, arg_ind_ptr, arg_shape_data, in_shape_size, in_shape_ndim,
                            in_shape_data, out_shape_size, out_shape_ndim, out_shape_data, aux_shape_size,
                            aux_shape_ndim, aux_shape_data, complete);
}

int MXSymbolInferShapeEx(SymbolHandle sym, mx_uint num_args, const char** keys, const mx_uint* arg_ind_ptr,
                         const int* arg_shape_data, mx_uint* in_shape_size, const int** in_shape_ndim,
                         const int*** in_shape_data, mx_uint* out_shape_size, const int** out_shape_ndim,
                         const int*** out_shape_data, mx_uint* aux_shape_size, const int** aux_shape_ndim,
                         const int*** aux_shape_data, int* complete) {
  API_BEGIN();
  mxnet::capi::InferShapeImpl<mx_uint, int, mx_uint, int>(
      *Sym(sym), num_args, keys, arg_ind_ptr, arg_shape_data, in_shape_size, in_shape_ndim, in_shape_data,
      out_shape_size, out_shape_ndim, out_shape_data, aux_shape_size, aux_shape_ndim, aux_shape_data, complete);
  API_END();
}

int MXSymbolInferShapePartialEx(SymbolHandle sym, mx_uint num_args, const char** keys, const mx_uint* arg_ind_ptr,
                                const int* arg_shape_data, mx_uint* in_shape_size, const int** in_shape_ndim,
                                const int*** in_shape_data, mx_uint* out_shape_size, const int** out_shape_ndim,
                                const int*** out_shape_data, mx_uint* aux_shape_size, const int** aux_shape_ndim,
                                const int*** aux_shape_data, int* complete) {
  return MXSymbolInferShapeEx(sym, num_args, keys, arg_ind_ptr, arg_shape_data, in_shape_size, in_shape_ndim,
                              in_shape_data, out_shape_size, out_shape_ndim, out_shape_data, aux_shape_size,
                              aux_shape_ndim, aux_shape_data, complete);
}

int MXSymbolInferShapeEx64(SymbolHandle sym, mx_uint num_args, const char** keys, const int64_t* arg_ind_ptr,
                           const int64_t* arg_shape_data, size_t* in_shape_size, const int** in_shape_ndim,
                           const int64_t*** in_shape_data, size_t* out_shape_size, const int** out_shape_ndim,
                           const int64_t*** out_shape_data, size_t* aux_shape_size, const int** aux_shape_ndim,
                           const int64_t*** aux_shape_data, int* complete) {
  API_BEGIN();
  mxnet::capi::InferShapeImpl<int64_t, int64_t, size_t, int>(
      *Sym(sym), num_args, keys, arg_ind_ptr, arg_shape_data, in_shape_size, in_shape_ndim, in_shape_data,
      out_shape_size, out_shape_ndim, out_shape_data, aux_shape_size, aux_shape_ndim, aux_shape_data, complete);
  API_END();
}

int MXSymbolInferShapePartialEx64(SymbolHandle sym, mx_uint num_args, const char** keys, const int64_t* arg_ind_ptr,
                                  const int64_t* arg_shape_data, size_t* in_shape_size, const int** in_shape_ndim,
                                  const int64_t*** in_shape_data, size_t* out_shape_size, const int** out_shape_ndim,
                                  const int64_t*** out_shape_data, size_t* aux_shape_size, const int** aux_shape_ndim,
                                  const int64_t*** aux_shape_data, int* complete) {
  return MXSymbolInferShapeEx64(sym, num_args, keys, arg_ind_ptr, arg_shape_data, in_shape_size, in_shape_ndim,
                                in_shape_data, out_shape_size, out_shape_ndim, out_shape_data, aux_shape_size,
                                aux_shape_ndim, aux_shape_data, complete);
}

int MXSymbolInferType(SymbolHandle sym, mx_uint num_args, const char** keys, const int* arg_type_data,
                      mx_uint* in_type_size, const int** in_type_data, mx_uint* out_type_size,
                      const int** out_type_data, mx_uint* aux_type_size, const int** aux_type_data, int* complete) {
  API_BEGIN();
  mxnet::capi::InferTypeImpl(*Sym(sym), num_args, keys, arg_type_data, in_type_size, in_type_data, out_type_size,
                             out_type_data, aux_type_size, aux_type_data, complete);
  API_END();
}

int MXSymbolInferTypePartial(SymbolHandle sym, mx_uint num_args, const char** keys, const int* arg_type_data,
                             mx_uint* in_type_size, const int** in_type_data, mx_uint* out_type_size,
                             const int** out_type_data, mx_uint* aux_type_size, const int** aux_type_data,
                             int* complete) {
  return MXSymbolInferType(sym, num_args, keys, arg_type_data, in_type_size, in_type_data, out_type_size,
                           out_type_data, aux_type_size, aux_type_data, complete);
}
