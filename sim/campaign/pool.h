// The worker pool every campaign runs its work on (docs/DESIGN.md §7, "Worker pool"): a sweep's planning and
// work units (sweep.h), a batch of the swarm's scenarios (swarm.h) and of the verdict
// self-check's (backend/swarm/selfcheck.h).
//
// Contract of parallel_for(count, jobs, fn): runs fn(0) .. fn(count - 1) on up to `jobs` threads.
// - Threads: the calling thread is one of them; jobs 0 counts as 1, and no more threads start than there are
//   items (jobs 1: everything on the calling thread). Returns when every thread has stopped.
// - Hand-out: one item at a time, in index order, to whichever thread is free. Items differ in cost by orders of
//   magnitude (a dfs work unit, a scenario whose violation is shrunk), so a free thread takes the next item
//   rather than waiting on a fixed stripe of them.
// - Results: an item writes only what is its own (parallel_map: slot i of the result), and callers merge in
//   index order afterwards. Which thread ran an item, and when, is never part of a result: results, and the
//   reports made of them, are the same for every --jobs.
// - Exceptions: once an item has thrown, no further item is handed out; items already running finish; then the
//   exception of the lowest-numbered item that threw is rethrown. Items go out in index order, so every item
//   below one that threw had started: the exception rethrown is that of the lowest-numbered item that throws at
//   all, whatever the thread count and timing (given that whether an item throws does not depend on the other
//   items, as for every caller here). Items after it may or may not have run, so none may write anything a
//   caller reads after the error: today's items write only their own result, and a sweep unit its checkpoint
//   entry (any state of a checkpoint resumes to the same report).
#pragma once

#include <cstddef>
#include <functional>
#include <type_traits>
#include <vector>

namespace allocsim::campaign {

/// Runs fn(i) for i in [0, count) on up to `jobs` threads (see above).
void parallel_for(size_t count, unsigned jobs, const std::function<void(size_t)>& fn);

/// The results fn(0) .. fn(count - 1), in index order, computed by parallel_for (the result type must be
/// default-constructible: each slot is filled by its own item).
template <class Fn>
std::vector<std::invoke_result_t<Fn&, size_t>> parallel_map(size_t count, unsigned jobs, Fn fn) {
  std::vector<std::invoke_result_t<Fn&, size_t>> out(count);
  parallel_for(count, jobs, [&](size_t i) { out[i] = fn(i); });
  return out;
}

}  // namespace allocsim::campaign
