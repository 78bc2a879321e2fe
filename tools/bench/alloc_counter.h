// A counting allocator for the bench binaries: replaces the global operator new / delete (every form: plain,
// array, nothrow, sized, aligned) with malloc / free plus a count, so a bench can report heap allocations
// per execution and per step.
//
// Linking alloc_counter.cpp into a binary is what turns the counting on (the replacement is link-time, as
// the standard allows); only the bench binaries link it, never the simulator, the CLI or the tests.
//
// Shapes and units: the counters are per thread (thread_local, so counting costs an increment and never a
// locked instruction), monotonic from the thread's start: `allocations` = calls of any operator new that
// returned memory, `bytes` = the sizes asked of them (before the allocator's rounding), `frees` = calls of any
// operator delete with a non-null pointer. Take a snapshot before and after the code measured and subtract
// (AllocCounts::operator-). Memory allocated by one thread and freed by another counts on each side.
//
// Not counted: malloc / calloc / realloc called directly (C libraries, the C++ runtime's own emergency
// pool), and mmap (Boost.Context's stacks come from a pool that is filled once and then reused).
//
// Errors: operator new throws std::bad_alloc when malloc fails (the nothrow forms return null); nothing else.
#pragma once

#include <cstdint>

namespace allocsim::bench {

struct AllocCounts {
  uint64_t allocations = 0;
  uint64_t bytes = 0;
  uint64_t frees = 0;

  AllocCounts operator-(const AllocCounts& o) const {
    return {allocations - o.allocations, bytes - o.bytes, frees - o.frees};
  }
  AllocCounts operator+(const AllocCounts& o) const {
    return {allocations + o.allocations, bytes + o.bytes, frees + o.frees};
  }
};

/// This thread's counts since it started (see above).
AllocCounts alloc_counts();

/// This thread's number of heap allocations through operator new since it started.
inline uint64_t alloc_count() { return alloc_counts().allocations; }

}  // namespace allocsim::bench
