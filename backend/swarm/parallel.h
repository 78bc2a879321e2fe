// parallel_for, shared by the swarm (swarm_campaign.cpp) and the verdict self-check (selfcheck.cpp): runs
// independent work items on a few threads, each writing only its own result slot, so the results (and so the
// reports) do not depend on the thread count or on timing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

namespace allocsim::harness {

/// Runs fn(0..count-1) on `jobs` threads (at least one, at most `count`): thread t runs items t, t + n, ...
/// Every item runs; then the exception of the lowest-numbered item that threw, if any, is rethrown.
inline void parallel_for(size_t count, unsigned jobs, const std::function<void(size_t)>& fn) {
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(count);
  const unsigned n = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(count)));
  for (unsigned t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = t; i < count; i += n) {
        try {
          fn(i);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace allocsim::harness
