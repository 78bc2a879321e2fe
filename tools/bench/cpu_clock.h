// The one clock the benchmarks time with: CPU time of the calling thread, in seconds (CLOCK_THREAD_CPUTIME_ID).
// On a shared machine the wall clock also counts the time the thread waited for a core, which says more about
// the other processes than about allocsim (tools/bench/README.md). Never read by the simulator.
#pragma once

#include <ctime>

namespace allocsim::bench {

inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

}  // namespace allocsim::bench
