#include "sim/assert.h"

#include <cstdio>
#include <cstdlib>

namespace allocsim::sim {

namespace {

std::string failure_text(const char* condition, const char* file, int line, const std::string& message) {
  return fmt::format("ALLOCSIM_ASSERT({}) failed at {}:{}: {}", condition, file, line, message);
}

void default_handler(const char* condition, const char* file, int line, const std::string& message) {
  std::fprintf(stderr, "allocsim: internal error: %s\n", failure_text(condition, file, line, message).c_str());
  std::fflush(stderr);
  std::abort();
}

AssertHandler g_handler = default_handler;

}  // namespace

AssertHandler set_assert_handler(AssertHandler handler) {
  AssertHandler previous = g_handler;
  g_handler = handler ? handler : default_handler;
  return previous;
}

void throwing_assert_handler(const char* condition, const char* file, int line, const std::string& message) {
  throw AssertionFailure(failure_text(condition, file, line, message));
}

void assert_failed(const char* condition, const char* file, int line, const std::string& message) {
  g_handler(condition, file, line, message);
  std::abort();
}

}  // namespace allocsim::sim
