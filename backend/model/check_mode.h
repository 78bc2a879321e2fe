// The port's checked rules: assertions that stop an execution with a clear message when the port breaks one of
// its own rules (memory_backend.h, "Porting rules"), and the check mode, which also poisons recycled storage.
//
// Contract:
// - ALLOCSIM_PORT_CHECK(cond, rule): always compiled and cheap (a compare). When `cond` is false it throws
//   PortRuleBroken naming the rule, the file and the line: never undefined behaviour. Inside the simulator the
//   exception ends the actor that broke the rule, which the run reports as `actor-exception` with that message
//   (docs/DESIGN.md §8).
// - check_mode(): off unless the environment variable ALLOCSIM_CHECK_MODE is `1` when the process starts, or
//   set_check_mode(true) was called (each test binary that links the backend: tests/check_mode_on.cpp). Set it before
//   executions start, never during one (a sweep's threads read it unguarded). In check mode, storage the port recycles
//   (spares.h, Scratch, the answers its *_into calls overwrite) is filled with poison() before reuse, so that a field
//   the port forgets to assign shows at once instead of keeping a previous execution's value; and
//   ALLOCSIM_PORT_CHECK_SLOW checks run. With no bug, check mode changes no answer, trace or fingerprint.
// - poison(x): overwrites `x` in place with a fixed, recognisable value (texts become "#POISON#", numbers
//   kPoisonInt, optionals are engaged), allocating nothing (a text fits the small-string buffer) and keeping
//   every container's length. Deterministic: the same value every time.
// - poisoned(x): whether `x` still holds poison somewhere (a text, a number, an element, an engaged optional's value).
//   Porting rule 3's postcondition: an answer the port hands back in check mode is not poisoned, so a forgotten
//   assignment fails at the call that forgot it rather than only where some invariant happens to read the field.
//   A bool's poison (true) is one of its two legal values, so a bool never counts as poisoned.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

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

inline constexpr const char* kPoisonText = "#POISON#";
/// What porting rule 3's postcondition says when an answer still holds poison (poisoned() below).
inline constexpr const char* kRulePoisonLeft =
    "3 (an answer handed back a recycled field unassigned: it still holds check mode's poison)";
inline constexpr int kPoisonInt = -0x5eed;
inline constexpr double kPoisonReal = -1e9;  // a fake-clock time or a memory size is never negative

// Every overload declared before any template's body, so that each finds the others whatever the nesting (a pair
// of a vector of pairs, a vector of pointers to int).
inline void poison(std::string& s) { s.assign(kPoisonText); }
/// A view cannot be overwritten in place: it is pointed at the poison text.
inline void poison(std::string_view& s) { s = kPoisonText; }
inline void poison(bool& b) { b = true; }
/// A bool whose answer path must assign one value is poisoned to the other, where poisoned() cannot see a bool:
/// an inventory's Observation::known, to true on its Unknown path and to false on its Known one, so that either
/// path's forgotten assignment shows.
inline void poison(bool& b, bool value) { b = value; }
inline void poison(double& d) { d = kPoisonReal; }
template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
void poison(T& n);
/// A pointer the port should have set is null: a stale one would point into an earlier call's values.
template <class T>
void poison(const T*& p);
template <class T>
void poison(std::optional<T>& o);
template <class A, class B>
void poison(std::pair<A, B>& p);
/// Every element poisoned; the length kept (a forgotten clear() or resize() is caught by the elements' values).
template <class T>
void poison(std::vector<T>& v);

template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int>>
void poison(T& n) {
  n = static_cast<T>(kPoisonInt);
}
template <class T>
void poison(const T*& p) {
  p = nullptr;
}
template <class T>
void poison(std::optional<T>& o) {
  if (!o) o.emplace();
  poison(*o);
}
template <class A, class B>
void poison(std::pair<A, B>& p) {
  poison(p.first);
  poison(p.second);
}
template <class T>
void poison(std::vector<T>& v) {
  for (T& x : v) poison(x);
}

inline bool poisoned(const std::string& s) { return s == kPoisonText; }
inline bool poisoned(std::string_view s) { return s == kPoisonText; }
inline bool poisoned(bool) { return false; }
inline bool poisoned(double d) { return d == kPoisonReal; }
template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
bool poisoned(T n) {
  return n == static_cast<T>(kPoisonInt);
}
template <class T>
bool poisoned(const std::optional<T>& o);
template <class A, class B>
bool poisoned(const std::pair<A, B>& p);
template <class T>
bool poisoned(const std::vector<T>& v);

template <class T>
bool poisoned(const std::optional<T>& o) {
  return o && poisoned(*o);
}
template <class A, class B>
bool poisoned(const std::pair<A, B>& p) {
  return poisoned(p.first) || poisoned(p.second);
}
template <class T>
bool poisoned(const std::vector<T>& v) {
  for (const T& x : v)
    if (poisoned(x)) return true;
  return false;
}

}  // namespace allocsim::backend
