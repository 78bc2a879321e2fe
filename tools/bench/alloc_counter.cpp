// Replacement global operator new / delete that count (alloc_counter.h). Every form the standard lets a
// program replace is here, so that no allocation bypasses the count through a form left to the runtime.
#include "tools/bench/alloc_counter.h"

#include <cstdlib>
#include <new>

namespace {

// Trivially initialised thread_locals: no guard, no allocation on first use (operator new may run before
// main and inside the runtime's own start-up).
thread_local uint64_t t_allocations = 0;
thread_local uint64_t t_bytes = 0;
thread_local uint64_t t_frees = 0;

void* counted_malloc(std::size_t n) noexcept {
  void* p = std::malloc(n == 0 ? 1 : n);  // operator new(0) must return a unique non-null pointer
  if (p) ++t_allocations, t_bytes += n;
  return p;
}

void* counted_aligned(std::size_t n, std::align_val_t al) noexcept {
  std::size_t a = static_cast<std::size_t>(al);
  if (a < sizeof(void*)) a = sizeof(void*);  // posix_memalign's minimum
  void* p = nullptr;
  if (posix_memalign(&p, a, n == 0 ? 1 : n) != 0) return nullptr;
  ++t_allocations, t_bytes += n;
  return p;
}

void counted_free(void* p) noexcept {
  if (!p) return;
  ++t_frees;
  std::free(p);
}

void* or_throw(void* p) {
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace

namespace allocsim::bench {

AllocCounts alloc_counts() { return {t_allocations, t_bytes, t_frees}; }

}  // namespace allocsim::bench

// NOLINTBEGIN(misc-new-delete-overloads): the full set, as replaced by a program ([replacement.functions])
void* operator new(std::size_t n) { return or_throw(counted_malloc(n)); }
void* operator new[](std::size_t n) { return or_throw(counted_malloc(n)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void* operator new(std::size_t n, std::align_val_t al) { return or_throw(counted_aligned(n, al)); }
void* operator new[](std::size_t n, std::align_val_t al) { return or_throw(counted_aligned(n, al)); }
void* operator new(std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return counted_aligned(n, al);
}
void* operator new[](std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return counted_aligned(n, al);
}

void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { counted_free(p); }
// NOLINTEND(misc-new-delete-overloads)
