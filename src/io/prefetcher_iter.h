/*!
 * \file prefetcher_iter.h
 * \brief Runs an inner DataIter on a background thread that keeps up to prefetch_buffer
 *        batches ready in a bounded queue.
 *        - An exception thrown by the inner iterator is re-thrown by the consumer's Next() once
 *          the batches before it are consumed, and again by every Next() until BeforeFirst().
 *        - BeforeFirst() stops and joins the producer, drops what it had read ahead, rewinds
 *          the inner iterator on the caller's thread and starts a new producer.
 *        - The destructor stops and joins the producer, wherever the epoch is; MXNotifyShutdown
 *          stops every producer (Next() then fails instead of waiting).
 *        - The inner iterator's Value() must stay valid after its next Next() (batches hold
 *          their own arrays, as BatchLoader's do): batches are queued by value.
 */
#ifndef MXNET_IO_PREFETCHER_ITER_H_
#define MXNET_IO_PREFETCHER_ITER_H_

#include <dmlc/parameter.h>
#include <sys/types.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "io/data_iter.h"
#include "mxnet/error.h"

namespace mxnet {
namespace io {

struct PrefetcherParam : public dmlc::Parameter<PrefetcherParam> {
  int prefetch_buffer;
  DMLC_DECLARE_PARAMETER(PrefetcherParam) {
    DMLC_DECLARE_FIELD(prefetch_buffer)
        .set_default(4)
        .set_lower_bound(1)
        .describe("Number of batches read ahead on a background thread.");
  }
};

class PrefetcherIter : public DataIter {
 public:
  /*! \brief Takes ownership of inner. */
  explicit PrefetcherIter(std::unique_ptr<DataIter> inner);
  explicit PrefetcherIter(DataIter* inner) : PrefetcherIter(std::unique_ptr<DataIter>(inner)) {}
  ~PrefetcherIter() override;
  PrefetcherIter(const PrefetcherIter&) = delete;
  PrefetcherIter& operator=(const PrefetcherIter&) = delete;

  /*!
   * \brief Reads prefetch_buffer from kwargs, passes every other key to the inner iterator's
   *        Init (which rejects what it does not know), then starts producing. The usual way:
   *        set_body([] { return new PrefetcherIter(new MyIter()); })
   */
  void Init(const IterKwargs& kwargs) override;
  /*! \brief For an inner iterator initialised already: starts producing. */
  void Configure(const PrefetcherParam& param);
  void BeforeFirst() override;
  bool Next() override;
  const DataBatch& Value() const override { return current_; }
  DataIter* inner() const { return inner_.get(); }

  /*! \brief Stops every live producer (MXNotifyShutdown). */
  static void StopAll();

 private:
  struct Item {
    DataBatch batch;
    bool end = false;
    std::exception_ptr error;
  };
  void Produce();
  void StartProducer();
  void StopProducer();
  void CheckSameProcess() const;

  std::unique_ptr<DataIter> inner_;
  PrefetcherParam param_;
  pid_t owner_pid_;
  std::unique_ptr<std::thread> producer_;
  std::mutex mu_;
  std::condition_variable space_cv_;  // producer waits: queue below capacity, or stop
  std::condition_variable item_cv_;   // consumer waits: an item, or stop
  std::deque<Item> queue_;
  bool stop_ = false;
  bool shut_down_ = false;  // stopped by MXNotifyShutdown: Next() fails
  // Consumer side: the epoch's end (or an error) was consumed; Next() answers without waiting.
  bool finished_ = false;
  std::exception_ptr error_;
  DataBatch current_;
};

/*!
 * \brief An iterator whose batches are read ahead by a PrefetcherIter around an inner iterator
 *        that the subclass builds in its Init and hands to Start.
 */
class PrefetchedIter : public DataIter {
 public:
  explicit PrefetchedIter(const char* name) : name_(name) {}
  void BeforeFirst() override { Started()->BeforeFirst(); }
  bool Next() override { return Started()->Next(); }
  const DataBatch& Value() const override { return Started()->Value(); }

 protected:
  void Start(std::unique_ptr<DataIter> inner, const PrefetcherParam& param) {
    prefetcher_ = std::make_unique<PrefetcherIter>(std::move(inner));
    prefetcher_->Configure(param);
  }

 private:
  PrefetcherIter* Started() const {
    MX_CHECK(prefetcher_ != nullptr) << name_ << ": call Init() first";
    return prefetcher_.get();
  }

  const char* name_;
  std::unique_ptr<PrefetcherIter> prefetcher_;
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_PREFETCHER_ITER_H_
