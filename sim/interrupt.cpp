#include "sim/interrupt.h"

#include <atomic>
#include <csignal>

namespace allocsim::sim {

namespace {

// A lock-free atomic is what a signal handler may touch (besides volatile sig_atomic_t), and unlike the
// latter it is also safe to read from the sweep's worker threads.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

void on_signal(int signo) { g_signal.store(signo, std::memory_order_relaxed); }

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  // One-shot: the first signal asks for a clean stop, a second one (an impatient user) kills as usual.
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int interrupt_signal() noexcept { return g_signal.load(std::memory_order_relaxed); }

void request_interrupt(int signo) noexcept { g_signal.store(signo, std::memory_order_relaxed); }

std::string signal_name(int signo) {
  if (signo == SIGINT) return "SIGINT";
  if (signo == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(signo);
}

void clear_interrupt() noexcept { g_signal.store(0, std::memory_order_relaxed); }

}  // namespace allocsim::sim
