/*!
 * \file cached_layout_test.cc
 * \brief NDArray's cached layout copy (a second, read-only form of the plain data): kept by
 *        readers, dropped by every kind of write, never returned once a write completed.
 */
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "mxnet/engine.h"
#include "mxnet/ndarray.h"

namespace mxnet {
namespace {

/*! \brief A stand-in copy: the tests only check which copy the array hands back. */
class FakeCopy : public OpaqueLayout {
 public:
  void ToPlain(void*) const override { ADD_FAILURE() << "a cached copy is never converted back"; }
};

NDArray Filled(const TShape& s, float v) {
  NDArray a(s, Context::CPU());
  std::vector<float> h(s.Size(), v);
  a.SyncCopyFromCPU(h.data(), h.size());
  return a;
}

/*!
 * \brief Pushes f as an engine op that reads a (where kernels install and read copies) and
 *        writes a marker var, so waiting for the marker waits for f (a wait on a itself only
 *        waits for writes).
 */
template <typename F>
void PushReader(const NDArray& a, const NDArray& marker, F f) {
  Engine::Get()->PushSync([f](RunContext) { f(); }, Context::CPU(), {a.var()}, {marker.var()});
}

/*! \brief Runs f inside an engine op that reads a, and waits for it. */
template <typename F>
void AsReader(const NDArray& a, F f) {
  const NDArray marker({1}, Context::CPU());
  PushReader(a, marker, f);
  marker.WaitToRead();
}

std::shared_ptr<const OpaqueLayout> Cached(const NDArray& a) {
  std::shared_ptr<const OpaqueLayout> got;
  AsReader(a, [&] { got = a.cached_layout(); });
  return got;
}

std::shared_ptr<const OpaqueLayout> Install(const NDArray& a) {
  auto copy = std::make_shared<FakeCopy>();
  bool ok = false;
  AsReader(a, [&] { ok = a.set_cached_layout(copy); });
  EXPECT_TRUE(ok);
  return copy;
}

TEST(CachedLayout, ReadersKeepTheCopy) {
  NDArray a = Filled({4, 3}, 1.f);
  EXPECT_EQ(Cached(a), nullptr);
  auto copy = Install(a);
  EXPECT_EQ(Cached(a), copy);
  std::vector<float> h(12);
  a.SyncCopyToCPU(h.data(), h.size());
  NDArray b({4, 3}, Context::CPU());
  CopyFromTo(a, b);
  b.WaitToRead();
  AsReader(a, [&] { a.data_for_read(); });
  EXPECT_EQ(Cached(a), copy);
  EXPECT_EQ(h, std::vector<float>(12, 1.f));
}

TEST(CachedLayout, OnlyWholeChunkViewsOfTheSameShapeSeeIt) {
  NDArray a = Filled({4, 3}, 1.f);
  auto copy = Install(a);
  EXPECT_EQ(Cached(a.Slice(0, 2)), nullptr);
  EXPECT_EQ(Cached(a.Reshape({12})), nullptr);
  EXPECT_EQ(Cached(a.Detach()), copy);
  bool ok = true;
  const NDArray part = a.Slice(1, 3);
  AsReader(a, [&] { ok = part.set_cached_layout(std::make_shared<FakeCopy>()); });
  EXPECT_FALSE(ok);
  EXPECT_EQ(Cached(a), copy);
}

TEST(CachedLayout, EveryWriteDropsIt) {
  NDArray a = Filled({4, 3}, 1.f);
  const NDArray other = Filled({4, 3}, 2.f);
  std::vector<float> h(12, 3.f);
  const std::vector<std::pair<const char*, std::function<void()>>> writes{
      {"SyncCopyFromCPU", [&] { a.SyncCopyFromCPU(h.data(), h.size()); }},
      {"CopyFromTo", [&] { CopyFromTo(other, a); }},
      {"CopyFromTo into a slice", [&] { CopyFromTo(other.Slice(0, 1), a.Slice(2, 3)); }},
      // Plain data() may be written through (MXNDArrayGetData hands it out): no engine write here.
      {"plain data() of a view", [&] { a.At(1).data(); }},
      // An engine write that never calls data(): the completed-write count retires the copy.
      {"engine write without data()",
       [&] { Engine::Get()->PushSync([](RunContext) {}, Context::CPU(), {}, {a.var()}); }},
      {"WaitToWrite", [&] { a.WaitToWrite(); }},
      {"set_opaque_layout",
       [&] {
         a.set_opaque_layout(std::make_shared<FakeCopy>());
         EXPECT_EQ(Cached(a), nullptr);
         a.set_opaque_layout(nullptr);
       }},
  };
  for (const auto& w : writes) {
    Install(a);
    ASSERT_NE(Cached(a), nullptr) << w.first;
    w.second();
    a.WaitToRead();
    EXPECT_EQ(Cached(a), nullptr) << w.first;
  }
}

TEST(CachedLayout, ACopyCannotBeInstalledOverAnOpaqueLayout) {
  NDArray a = Filled({2, 2}, 1.f);
  Engine::Get()->PushSync([a](RunContext) { a.set_opaque_layout(std::make_shared<FakeCopy>()); }, Context::CPU(), {},
                          {a.var()});
  bool ok = true;
  AsReader(a, [&] { ok = a.set_cached_layout(std::make_shared<FakeCopy>()); });
  EXPECT_FALSE(ok);
  EXPECT_EQ(Cached(a), nullptr);
  Engine::Get()->PushSync([a](RunContext) { a.set_opaque_layout(nullptr); }, Context::CPU(), {}, {a.var()});
  a.WaitToRead();
}

TEST(CachedLayout, AReaderPushedBeforeAWriteCannotLeaveACopyForReadersAfterIt) {
  // Push reader (installs), writer, reader without waiting: the engine orders them at run time.
  NDArray a = Filled({8}, 1.f);
  const NDArray marker({1}, Context::CPU());
  auto copy = std::make_shared<FakeCopy>();
  for (int round = 0; round < 50; ++round) {
    std::shared_ptr<const OpaqueLayout> seen_before, seen_after = copy;
    PushReader(a, marker, [a, copy, &seen_before] {
      a.set_cached_layout(copy);
      seen_before = a.cached_layout();
    });
    Engine::Get()->PushSync([](RunContext) {}, Context::CPU(), {}, {a.var()});
    PushReader(a, marker, [a, &seen_after] { seen_after = a.cached_layout(); });
    marker.WaitToRead();
    ASSERT_EQ(seen_before, copy) << "round " << round;
    ASSERT_EQ(seen_after, nullptr) << "round " << round;
  }
}

}  // namespace
}  // namespace mxnet
