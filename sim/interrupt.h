// A stop request from outside the process (SIGINT, SIGTERM), honoured at the next execution boundary.
//
// Contract: install_interrupt_handlers() makes SIGINT and SIGTERM record their number here instead of
// killing the process; the handler is one-shot (SA_RESETHAND), so a second signal kills as usual.
// sim::explore stops before its next execution once a signal is recorded (ExploreSummary::interrupted),
// and a sweep starts no further work unit; the command then reports what ran, writes its files and exits
// 128 + the signal number. interrupt_signal() is lock-free and async-signal-safe; nothing else here
// decides anything (a run never interrupted behaves exactly as before).
#pragma once

#include <string>

namespace allocsim::sim {

/// Installs the one-shot SIGINT/SIGTERM handlers (the CLI calls it once, at start). Not thread-safe.
void install_interrupt_handlers();

/// The signal number recorded (SIGINT or SIGTERM), or 0 when none arrived.
int interrupt_signal() noexcept;

/// Records `signo` as if it had arrived (the handler; tests). Async-signal-safe.
void request_interrupt(int signo) noexcept;

/// "SIGINT", "SIGTERM", else "signal N" (for reports).
std::string signal_name(int signo);

/// Forgets a recorded signal (tests only; the handlers stay as they are).
void clear_interrupt() noexcept;

}  // namespace allocsim::sim
