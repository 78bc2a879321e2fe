#include "backend/model/check_mode.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace allocsim::backend {

namespace detail {
namespace {
bool from_environment() {
  const char* value = std::getenv("ALLOCSIM_CHECK_MODE");
  return value != nullptr && std::strcmp(value, "1") == 0;
}
}  // namespace
bool g_check_mode = from_environment();
}  // namespace detail

void set_check_mode(bool on) { detail::g_check_mode = on; }

void port_rule_broken(const char* rule, const char* file, int line) {
  throw PortRuleBroken("port rule broken: " + std::string(rule) + " (" + file + ":" + std::to_string(line) + ")");
}

}  // namespace allocsim::backend
