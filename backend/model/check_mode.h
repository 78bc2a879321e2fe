// The port's checked rules: assertions that stop an execution with a clear message when the port breaks one of
// its own rules (memory_backend.h, "Porting rules"), and the check mode, which runs the costlier ones.
//
// Contract:
// - ALLOCSIM_PORT_CHECK(cond, rule): always compiled and cheap (a compare). When `cond` is false it throws
//   PortRuleBroken naming the rule, the file and the line: never undefined behaviour. Inside the simulator the
//   exception ends the actor that broke the rule, which the run reports as `actor-exception` with that message
//   (docs/DESIGN.md §8).
// - check_mode(): off unless the environment variable ALLOCSIM_CHECK_MODE is `1` when the process starts, or
//   set_check_mode(true) was called. Set it before executions start, never during one (a sweep's threads read it
//   unguarded). In check mode ALLOCSIM_PORT_CHECK_SLOW checks run. With no bug, check mode changes no answer, trace
//   or fingerprint.
#pragma once

#include <stdexcept>
#include <string>

namespace allocsim::backend {

/// A porting rule or a stated contract of the port was broken: a bug in the port, never bad input.
class PortRuleBroken : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// Throws PortRuleBroken("port rule broken: RULE (FILE:LINE)"). Out of line, so that a check costs its compare.
[[noreturn]] void port_rule_broken(const char* rule, const char* file, int line);

#define ALLOCSIM_PORT_CHECK(cond, rule)                                \
  do {                                                                 \
    if (!(cond)) [[unlikely]]                                          \
      ::allocsim::backend::port_rule_broken(rule, __FILE__, __LINE__); \
  } while (0)
/// A check too costly for every run: evaluated only in check mode.
#define ALLOCSIM_PORT_CHECK_SLOW(cond, rule)                           \
  do {                                                                 \
    if (::allocsim::backend::check_mode() && !(cond)) [[unlikely]]     \
      ::allocsim::backend::port_rule_broken(rule, __FILE__, __LINE__); \
  } while (0)

namespace detail {
extern bool g_check_mode;  // check_mode.cpp: from ALLOCSIM_CHECK_MODE at start-up
}
inline bool check_mode() { return detail::g_check_mode; }
/// REQUIRES: no execution is running (see the contract above).
void set_check_mode(bool on);

}  // namespace allocsim::backend
