// ALLOCSIM_ASSERT: always-on checks of the engine's and the strategies' contracts (a pick of an actor that
// cannot run, a draw outside [0, bound), a replayed choice that the tree does not have, a PRNG bound of 0).
// Unlike <cassert> they stay in optimised builds: a broken contract here would silently change what a seed
// or a schedule means, which is worse than stopping.
//
// A failed check calls the assert handler with the condition's text, the place and a message. The default
// handler prints "allocsim: internal error: ALLOCSIM_ASSERT(...) failed at file:line: message" to stderr and
// aborts. Tests replace the handler (set_assert_handler) with one that throws AssertionFailure, so a check can
// be shown to fire without a death test. If a handler returns, the process aborts anyway.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace allocsim::sim {

/// What a throwing handler (tests) throws; what() is the full message.
struct AssertionFailure : std::logic_error {
  using std::logic_error::logic_error;
};

using AssertHandler = void (*)(const char* condition, const char* file, int line, const std::string& message);

/// Installs `handler` (nullptr: the default) and returns the previous one. Not thread-safe: set it before
/// any engine runs.
AssertHandler set_assert_handler(AssertHandler handler);

/// The handler tests install: throws AssertionFailure.
void throwing_assert_handler(const char* condition, const char* file, int line, const std::string& message);

/// Calls the handler; aborts if it returns.
[[noreturn]] void assert_failed(const char* condition, const char* file, int line, const std::string& message);

}  // namespace allocsim::sim

/// ALLOCSIM_ASSERT(condition, fmt, args...): the message is formatted only when the condition fails.
#define ALLOCSIM_ASSERT(condition, ...)                                                           \
  do {                                                                                            \
    if (!(condition)) [[unlikely]]                                                                \
      ::allocsim::sim::assert_failed(#condition, __FILE__, __LINE__, ::fmt::format(__VA_ARGS__)); \
  } while (0)
