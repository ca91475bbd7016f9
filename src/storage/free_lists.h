/*!
 * \file free_lists.h
 * \brief The pool's cache: rounded size -> stack of free blocks of that size. An open-
 *        addressing table with a power-of-two capacity and a multiplicative hash, because a
 *        warm alloc+free pair does two look-ups and std::unordered_map's modulo by a prime
 *        (a division each) was most of the pair's cost. Sizes are never removed: a program
 *        uses a bounded set of shapes, and keeping the empty stacks keeps Free allocation-free.
 */
#ifndef MXNET_STORAGE_FREE_LISTS_H_
#define MXNET_STORAGE_FREE_LISTS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxnet {
namespace storage {

class FreeLists {
 public:
  FreeLists() : slots_(kInitialSlots) {}

  /*! \brief The stack for `size` (> 0), or nullptr if that size was never cached. */
  std::vector<void*>* Find(size_t size) {
    for (size_t i = Home(size);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (s.size == size) return &lists_[s.index];
      if (s.size == 0) return nullptr;
    }
  }

  /*! \brief The stack for `size` (> 0), created empty on first use. */
  std::vector<void*>& Get(size_t size) {
    if (std::vector<void*>* found = Find(size)) return *found;
    if ((lists_.size() + 1) * 2 > slots_.size()) Grow();
    Insert(size, lists_.size());
    lists_.emplace_back();
    sizes_.push_back(size);
    return lists_.back();
  }

  /*! \brief Calls f(size, stack) for every size ever cached. */
  template <typename F>
  void ForEach(F f) {
    for (size_t i = 0; i < lists_.size(); ++i) f(sizes_[i], lists_[i]);
  }

 private:
  static constexpr size_t kInitialSlots = 64;
  struct Slot {
    size_t size{0};  // 0: empty (no block has size 0)
    size_t index{0};
  };

  size_t Home(size_t size) const {
    // Fibonacci hashing: the high bits of the product are well mixed even for sizes that
    // are all multiples of a page.
    return static_cast<size_t>((static_cast<uint64_t>(size) * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void Insert(size_t size, size_t index) {
    size_t i = Home(size);
    while (slots_[i].size != 0) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = {size, index};
  }

  void Grow() {
    slots_.assign(slots_.size() * 2, Slot{});
    --shift_;
    for (size_t i = 0; i < sizes_.size(); ++i) Insert(sizes_[i], i);
  }

  std::vector<Slot> slots_;
  int shift_{64 - 6};  // 64 - log2(slot count)
  std::vector<std::vector<void*>> lists_;
  std::vector<size_t> sizes_;
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_FREE_LISTS_H_
