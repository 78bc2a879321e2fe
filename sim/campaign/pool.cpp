// The campaigns' worker pool (pool.h).
#include "sim/campaign/pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>

namespace allocsim::campaign {

void parallel_for(size_t count, unsigned jobs, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(count);
  std::atomic<bool> failed{false};
  const auto worker = [&] {
    for (size_t i; !failed && (i = next.fetch_add(1)) < count;) {
      try {
        fn(i);
      } catch (...) {
        errors[i] = std::current_exception();
        failed = true;
      }
    }
  };
  const size_t threads = std::min<size_t>(std::max(1u, jobs), count);
  std::vector<std::thread> others;
  // A thread the system refuses (std::system_error) is one fewer worker, not an error: no result depends on how
  // many threads ran, and every thread already started is joined below.
  try {
    for (size_t t = 1; t < threads; ++t) others.emplace_back(worker);
  } catch (const std::system_error&) {
  }
  worker();
  for (auto& t : others) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace allocsim::campaign
