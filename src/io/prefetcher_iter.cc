#include "io/prefetcher_iter.h"

#include <unistd.h>

#include <set>

#include "common/shutdown.h"

namespace mxnet {
namespace io {

DMLC_REGISTER_PARAMETER(PrefetcherParam);

namespace {
// Live prefetchers, so MXNotifyShutdown can stop their threads before the engine goes.
std::mutex g_live_mu;
std::set<PrefetcherIter*>* LiveSet() {
  static auto* live = new std::set<PrefetcherIter*>();  // never destroyed: outlives every iterator
  return live;
}
void RegisterShutdownOnce() {
  static std::once_flag once;
  std::call_once(once, [] { common::RegisterShutdownHandler(&PrefetcherIter::StopAll); });
}
}  // namespace

PrefetcherIter::PrefetcherIter(std::unique_ptr<DataIter> inner) : inner_(std::move(inner)), owner_pid_(getpid()) {
  MX_CHECK(inner_ != nullptr) << "PrefetcherIter needs an inner iterator";
  RegisterShutdownOnce();
  std::lock_guard<std::mutex> lk(g_live_mu);
  LiveSet()->insert(this);
}

PrefetcherIter::~PrefetcherIter() {
  {
    std::lock_guard<std::mutex> lk(g_live_mu);
    LiveSet()->erase(this);
  }
  if (getpid() != owner_pid_) {
    // A forked child has no producer thread; joining the parent's would be undefined.
    (void)producer_.release();
    return;
  }
  StopProducer();
}

void PrefetcherIter::StopAll() {
  std::lock_guard<std::mutex> lk(g_live_mu);
  for (PrefetcherIter* it : *LiveSet()) {
    if (getpid() != it->owner_pid_) continue;
    {
      std::lock_guard<std::mutex> ilk(it->mu_);
      it->shut_down_ = true;
    }
    it->StopProducer();
  }
}

void PrefetcherIter::Init(const IterKwargs& kwargs) {
  IterKwargs mine, rest;
  for (const auto& kv : kwargs)
    (detail::Contains(detail::FieldNames<PrefetcherParam>(), kv.first) ? mine : rest).push_back(kv);
  PrefetcherParam p;
  ParseIterParams("PrefetcherIter", mine, &p);
  inner_->Init(rest);
  Configure(p);
}

void PrefetcherIter::Configure(const PrefetcherParam& param) {
  StopProducer();
  param_ = param;
  StartProducer();
}

void PrefetcherIter::CheckSameProcess() const {
  MX_CHECK(getpid() == owner_pid_) << "a data iterator cannot be used in a process forked from the one that "
                                      "created it; create it in this process";
}

void PrefetcherIter::StartProducer() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    MX_CHECK(!shut_down_) << "the runtime has shut down (MXNotifyShutdown); data iterators no longer run";
    stop_ = false;
    queue_.clear();
    finished_ = false;
    error_ = nullptr;
  }
  producer_ = std::make_unique<std::thread>([this] { Produce(); });
}

void PrefetcherIter::StopProducer() {
  if (!producer_) return;
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  space_cv_.notify_all();
  item_cv_.notify_all();
  // At most one inner Next() is in flight; the producer checks stop_ after it.
  if (producer_->joinable()) producer_->join();
  producer_.reset();
  std::lock_guard<std::mutex> lk(mu_);
  queue_.clear();
}

void PrefetcherIter::Produce() {
  const size_t capacity = static_cast<size_t>(param_.prefetch_buffer);
  while (true) {
    {
      std::unique_lock<std::mutex> lk(mu_);
      space_cv_.wait(lk, [&] { return stop_ || queue_.size() < capacity; });
      if (stop_) return;
    }
    Item item;
    try {
      if (inner_->Next()) {
        item.batch = inner_->Value();
      } else {
        item.end = true;
      }
    } catch (...) {
      item.error = std::current_exception();
      item.end = true;
    }
    const bool end = item.end;
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (stop_) return;
      queue_.push_back(std::move(item));
    }
    item_cv_.notify_one();
    if (end) {
      // The epoch is over (or failed): idle until BeforeFirst or destruction stops us.
      std::unique_lock<std::mutex> lk(mu_);
      space_cv_.wait(lk, [&] { return stop_; });
      return;
    }
  }
}

void PrefetcherIter::BeforeFirst() {
  CheckSameProcess();
  StopProducer();
  inner_->BeforeFirst();
  StartProducer();
}

bool PrefetcherIter::Next() {
  CheckSameProcess();
  if (error_) std::rethrow_exception(error_);
  if (finished_) return false;
  Item item;
  {
    std::unique_lock<std::mutex> lk(mu_);
    MX_CHECK(producer_ != nullptr || !queue_.empty())
        << "PrefetcherIter: not running (Init() or Configure() not called, or the last BeforeFirst() failed)";
    item_cv_.wait(lk, [&] { return !queue_.empty() || stop_; });
    if (queue_.empty()) {
      MX_CHECK(!shut_down_) << "the runtime has shut down (MXNotifyShutdown); data iterators no longer run";
      MX_THROW("MXNetError") << "PrefetcherIter: the producer stopped";
    }
    item = std::move(queue_.front());
    queue_.pop_front();
  }
  space_cv_.notify_one();
  if (item.error) {
    error_ = item.error;
    std::rethrow_exception(error_);
  }
  if (item.end) {
    finished_ = true;
    return false;
  }
  current_ = std::move(item.batch);
  return true;
}

}  // namespace io
}  // namespace mxnet
