/*!
 * \file objects.h
 * \brief User annotations behind ProfileHandle: domains, and the tasks, frames, events and
 *        counters created in them (mx.profiler.Domain/Task/Frame/Event/Counter/Marker).
 */
#ifndef MXNET_PROFILER_OBJECTS_H_
#define MXNET_PROFILER_OBJECTS_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "profiler/record.h"

namespace mxnet {
namespace profiler {

/*! \brief Base of every handle, so one destroy call fits all and handles can be checked. */
class ProfileObject {
 public:
  enum class Type { kDomain, kDuration, kCounter };
  explicit ProfileObject(Type type) : type_(type) {}
  virtual ~ProfileObject() = default;
  Type type() const { return type_; }

 private:
  Type type_;
};

class Domain : public ProfileObject {
 public:
  explicit Domain(const std::string& name);
  const std::string& name() const { return name_; }
  uint32_t category() const { return category_; }

 private:
  std::string name_;
  uint32_t category_;
};

/*! \brief A task, frame or event: start() and stop() make one duration record. */
class Duration : public ProfileObject {
 public:
  Duration(RecordKind kind, uint32_t category, const std::string& name);
  void Start();
  /*! \brief Records the duration if started in this run; throws if never started. */
  void Stop();

 private:
  RecordKind kind_;
  uint32_t category_;
  std::string name_;
  std::atomic<int64_t> start_{-1};
  std::atomic<uint32_t> generation_{0};
};

class Counter : public ProfileObject {
 public:
  Counter(uint32_t category, const std::string& name);
  void Set(int64_t value);
  void Adjust(int64_t delta);

 private:
  void Emit(int64_t value);
  uint32_t category_;
  std::string name_;
  std::atomic<int64_t> value_{0};
};

/*! \brief Records an instant marker; scope is global, process, thread, task or marker. */
void SetMarker(const Domain& domain, const std::string& name, const std::string& scope);

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_OBJECTS_H_
