// tools/bench/alloc_counter.h: the counting operator new / delete of the bench binaries (this test binary links
// it too, and only it among the tests).
#include <catch2/catch.hpp>

#include <cstdint>
#include <new>
#include <thread>

#include "tools/bench/alloc_counter.h"

using allocsim::bench::alloc_counts;
using allocsim::bench::AllocCounts;

namespace {

// Keeps the optimiser from pairing a new with its delete and dropping both (it may, for new-expressions).
void* volatile g_sink = nullptr;
void* keep(void* p) {
  g_sink = p;
  return g_sink;
}

struct alignas(64) OverAligned {
  char bytes[64];
};

}  // namespace

TEST_CASE("alloc counter: every form of operator new and delete counts, with the bytes asked") {
  const AllocCounts before = alloc_counts();
  ::operator delete(keep(::operator new(24)));
  ::operator delete[](keep(::operator new[](40)));
  ::operator delete(keep(::operator new(8, std::nothrow)), std::nothrow);
  ::operator delete[](keep(::operator new[](16, std::nothrow)), std::nothrow);
  ::operator delete (keep(::operator new(32)), std::size_t{32});
  ::operator delete (keep(::operator new (128, std::align_val_t{64})), std::align_val_t{64});
  ::operator delete[](keep(::operator new[](64, std::align_val_t{128})), std::size_t{64}, std::align_val_t{128});
  ::operator delete (keep(::operator new (16, std::align_val_t{32}, std::nothrow)), std::align_val_t{32}, std::nothrow);
  const AllocCounts d = alloc_counts() - before;
  CHECK(d.allocations == 8);
  CHECK(d.frees == 8);
  CHECK(d.bytes == 24 + 40 + 8 + 16 + 32 + 128 + 64 + 16);
}

TEST_CASE("alloc counter: an over-aligned new-expression gets aligned memory and is counted once") {
  const AllocCounts before = alloc_counts();
  auto* p = new OverAligned{};
  keep(p);
  CHECK(reinterpret_cast<std::uintptr_t>(p) % 64 == 0);
  delete p;
  const AllocCounts d = alloc_counts() - before;
  CHECK(d.allocations == 1);
  CHECK(d.bytes == sizeof(OverAligned));
  CHECK(d.frees == 1);
}

TEST_CASE("alloc counter: deleting null is not a free, and new of 0 bytes is an allocation") {
  const AllocCounts before = alloc_counts();
  ::operator delete(nullptr);
  void* p = keep(::operator new(0));
  CHECK(p != nullptr);
  ::operator delete(p);
  const AllocCounts d = alloc_counts() - before;
  CHECK(d.allocations == 1);
  CHECK(d.bytes == 0);
  CHECK(d.frees == 1);
}

TEST_CASE("alloc counter: counts are per thread") {
  const AllocCounts before = alloc_counts();
  AllocCounts in_thread;
  std::thread t([&] {
    const AllocCounts t0 = alloc_counts();
    for (int i = 0; i < 5; ++i) ::operator delete(keep(::operator new(10)));
    in_thread = alloc_counts() - t0;
  });
  t.join();
  CHECK(in_thread.allocations == 5);
  CHECK(in_thread.bytes == 50);
  // This thread's own count moved only by what std::thread itself allocated here (its state), never by 5.
  const AllocCounts d = alloc_counts() - before;
  CHECK(d.allocations <= 2);
}
