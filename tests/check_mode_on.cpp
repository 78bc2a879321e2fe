// Each test binary this object is linked into (tests/CMakeLists.txt) runs with the port's check mode on
// (backend/model/check_mode.h: recycled storage poisoned, the slow porting-rule checks run), and so does every
// allocsim process it starts (the environment variable is inherited). ALLOCSIM_CHECK_MODE=0 in the environment
// keeps it off, to compare.
#include <cstdlib>
#include <cstring>

#include "backend/model/check_mode.h"

namespace {

bool check_mode_on() {
  const char* value = std::getenv("ALLOCSIM_CHECK_MODE");
  if (value != nullptr && std::strcmp(value, "0") == 0) return false;
  // Both: the library reads the variable in its own static initialiser, which may run before or after this one.
  setenv("ALLOCSIM_CHECK_MODE", "1", 1);
  allocsim::backend::set_check_mode(true);
  return true;
}

[[maybe_unused]] const bool kCheckModeOn = check_mode_on();

}  // namespace
