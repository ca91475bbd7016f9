/*!
 * \file categories.h
 * \brief Interned category (domain) names: records carry a small id instead of a string,
 *        and ids stay valid for the life of the process (domains are never forgotten).
 */
#ifndef MXNET_PROFILER_CATEGORIES_H_
#define MXNET_PROFILER_CATEGORIES_H_

#include <cstdint>
#include <string>

namespace mxnet {
namespace profiler {

/*! \brief Fixed ids of the categories the runtime itself records into. */
enum BuiltinCategory : uint32_t { kOperatorCategory = 0, kApiCategory, kStorageCategory, kEventCategory };

/*! \brief Id of a category name, registering it on first sight (takes a lock: not per event). */
uint32_t InternCategory(const std::string& name);
/*! \brief Name of an interned id (copy, so callers need no lock). */
std::string CategoryName(uint32_t id);
/*! \brief Categories whose stats are memory sizes rather than durations. */
bool IsMemoryCategory(const std::string& name);

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_CATEGORIES_H_
