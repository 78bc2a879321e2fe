// The one atomic file write (sim/support/atomic_write.h): the target gets the whole content or keeps what
// it had, no temporary file is left behind either way, and a failure names the path.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/support/atomic_write.h"

using namespace allocsim::support;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t entries(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("support: write_file_atomically replaces the file whole, mode 0644, and leaves no temporary", "[support]") {
  const fs::path dir = fs::temp_directory_path() / ("allocsim-atomic-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path target = dir / "out.txt";
  write_file_atomically(target.string(), "first\n");
  CHECK(slurp(target) == "first\n");
  write_file_atomically(target.string(), "second, longer\n");
  CHECK(slurp(target) == "second, longer\n");
  write_file_atomically(target.string(), "");
  CHECK(slurp(target).empty());
  struct stat st {};
  REQUIRE(::stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  CHECK(entries(dir) == 1);
  fs::remove_all(dir);
}

TEST_CASE("support: write_file_atomically into a missing directory throws OutputError naming the path", "[support]") {
  const fs::path dir = fs::temp_directory_path() / ("allocsim-atomic-missing-" + std::to_string(::getpid()));
  const std::string target = (dir / "out.txt").string();
  try {
    write_file_atomically(target, "x");
    FAIL("no OutputError");
  } catch (const OutputError& e) {
    CHECK(std::string(e.what()) == target + ": cannot write: No such file or directory");
  }
  CHECK_FALSE(fs::exists(dir));
}
