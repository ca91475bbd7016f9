/*!
 * \file c_api_symbol_infer.h
 * \brief The MXSymbolInferShape / InferType families: one implementation over the index,
 *        dim and count types of each variant (uint32 reports unknowns as 0, the others -1).
 */
#ifndef MXNET_C_API_C_API_SYMBOL_INFER_H_
#define MXNET_C_API_C_API_SYMBOL_INFER_H_

#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "c_api/api_guard.h"
#include "graph/symbol_infer.h"

namespace mxnet {
namespace capi {

/*! \brief Known inputs by name: keys, or list_arguments order when keys is NULL. */
template <typename T>
std::map<std::string, T> NamedInputs(const graph::Symbol& s, uint32_t n, const char** keys,
                                     const std::function<T(uint32_t)>& value) {
  std::map<std::string, T> known;
  std::vector<std::string> args;
  if (!keys) args = s.ListInputNames(graph::InputOption::kReadOnlyArgs);
  for (uint32_t i = 0; i < n; ++i) {
    MX_CHECK_KIND(keys || i < args.size(), "ValueError")
        << "infer: " << n << " positional values for " << args.size() << " arguments";
    known[keys ? std::string(keys[i]) : args[i]] = value(i);
  }
  return known;
}

template <typename DataT, typename NdimT>
struct ShapeReturn {
  std::vector<std::vector<DataT>> dims;
  std::vector<NdimT> ndim;
  std::vector<const DataT*> ptrs;
  void Fill(const std::vector<TShape>& shapes) {
    const DataT unknown = std::is_signed<DataT>::value ? static_cast<DataT>(-1) : 0;
    dims.assign(shapes.size(), {});
    ndim.clear();
    ptrs.clear();
    for (size_t i = 0; i < shapes.size(); ++i) {
      const TShape& s = shapes[i];
      if (s.ndim() < 0) {
        ndim.push_back(std::is_signed<NdimT>::value ? static_cast<NdimT>(-1) : 0);
      } else {
        ndim.push_back(static_cast<NdimT>(s.ndim()));
        for (int d = 0; d < s.ndim(); ++d) dims[i].push_back(s[d] < 0 ? unknown : static_cast<DataT>(s[d]));
      }
    }
    for (auto& d : dims) ptrs.push_back(d.data());
  }
};

template <typename IndT, typename DataT, typename SizeT, typename NdimT = DataT>
void InferShapeImpl(const graph::Symbol& s, uint32_t num_args, const char** keys, const IndT* ind_ptr,
                    const DataT* shape_data, SizeT* in_size, const NdimT** in_ndim, const DataT*** in_data,
                    SizeT* out_size, const NdimT** out_ndim, const DataT*** out_data, SizeT* aux_size,
                    const NdimT** aux_ndim, const DataT*** aux_data, int* complete) {
  auto known = NamedInputs<TShape>(s, num_args, keys, [&](uint32_t i) {
    MX_CHECK_KIND(ind_ptr[i + 1] >= ind_ptr[i] && ind_ptr[i + 1] - ind_ptr[i] <= 32, "ValueError")
        << "infer_shape: shape " << i << " has an invalid length";
    std::vector<dim_t> d;
    for (IndT k = ind_ptr[i]; k < ind_ptr[i + 1]; ++k) {
      const int64_t v = static_cast<int64_t>(shape_data[k]);
      d.push_back(v <= 0 ? -1 : v);  // 0 is "unknown" in legacy shapes
    }
    return d.empty() ? TShape() : TShape(d);
  });
  // A shape given as () (legacy "unknown") says nothing.
  for (auto it = known.begin(); it != known.end();) it = it->second.ndim() < 0 ? known.erase(it) : std::next(it);
  const auto res = graph::InferSymbolShapes(s, known);
  struct Tag {};
  auto& ret = ThreadLocalReturn<Tag, std::vector<ShapeReturn<DataT, NdimT>>>();
  ret.resize(3);
  ret[0].Fill(res.args);
  ret[1].Fill(res.outputs);
  ret[2].Fill(res.aux);
  *in_size = static_cast<SizeT>(res.args.size());
  *in_ndim = ret[0].ndim.data();
  *in_data = ret[0].ptrs.data();
  *out_size = static_cast<SizeT>(res.outputs.size());
  *out_ndim = ret[1].ndim.data();
  *out_data = ret[1].ptrs.data();
  *aux_size = static_cast<SizeT>(res.aux.size());
  *aux_ndim = ret[2].ndim.data();
  *aux_data = ret[2].ptrs.data();
  *complete = res.complete ? 1 : 0;
}

inline void InferTypeImpl(const graph::Symbol& s, uint32_t num_args, const char** keys, const int* type_data,
                          uint32_t* in_size, const int** in_data, uint32_t* out_size, const int** out_data,
                          uint32_t* aux_size, const int** aux_data, int* complete) {
  auto known = NamedInputs<int>(s, num_args, keys, [&](uint32_t i) { return type_data[i]; });
  for (auto it = known.begin(); it != known.end();) it = it->second < 0 ? known.erase(it) : std::next(it);
  const auto res = graph::InferSymbolTypes(s, known);
  struct Tag {};
  auto& ret = ThreadLocalReturn<Tag, std::vector<std::vector<int>>>();
  ret = {res.args, res.outputs, res.aux};
  *in_size = static_cast<uint32_t>(res.args.size());
  *in_data = ret[0].data();
  *out_size = static_cast<uint32_t>(res.outputs.size());
  *out_data = ret[1].data();
  *aux_size = static_cast<uint32_t>(res.aux.size());
  *aux_data = ret[2].data();
  *complete = res.complete ? 1 : 0;
}

}  // namespace capi
}  // namespace mxnet

#endif  // MXNET_C_API_C_API_SYMBOL_INFER_H_
