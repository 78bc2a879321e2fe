// Shared by the CLI tests: run a command (or the allocsim binary) in its own process from the source tree
// and capture what it printed and how it exited; read a file whole (or as JSON), write one; a scratch directory
// per test; two folders compared file by file.
//
// Commands run through /bin/sh from ALLOCSIM_SOURCE_DIR (so scenario paths are relative to the repository)
// with stderr merged into stdout. ALLOCSIM_BINARY is the allocsim binary under test (tests/CMakeLists.txt).
#pragma once

#include <stdlib.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace cli_test {

struct Captured {
  int code;          // exit code; -1 when the command did not exit normally (a signal)
  std::string text;  // everything it wrote to the stream popen reads (callers add 2>&1 for stderr)
};

/// Runs `command` through /bin/sh and captures its standard output. REQUIRES: popen succeeds.
inline Captured capture(const std::string& command) {
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

/// Runs the shell command `command` from the source tree; stdout and stderr together.
inline Captured sh(const std::string& command) {
  return capture(std::string("cd ") + ALLOCSIM_SOURCE_DIR + " && " + command + " 2>&1");
}

/// Runs `allocsim ARGS` from the source tree; stdout and stderr together.
inline Captured allocsim(const std::string& args) { return sh(std::string(ALLOCSIM_BINARY) + " " + args); }

/// Each (arguments, message) case: allocsim exits 2 (an input error) and its output contains the message.
inline void check_refused(const std::vector<std::pair<std::string, std::string>>& cases) {
  for (const auto& [args, message] : cases) {
    const Captured r = allocsim(args);
    INFO(args << "\n" << r.text);
    CHECK(r.code == 2);
    CHECK_THAT(r.text, Catch::Contains(message));
  }
}

/// The whole file at `path` ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Writes `text` to `path`, replacing what was there.
inline void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

/// The JSON document in the file at `path`.
inline nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

/// A fresh, uniquely named temporary directory (mkdtemp), removed with everything in it at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "allocsim-cli-test-XXXXXX").string();
    REQUIRE(mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  /// The path of `name` inside the directory.
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

/// Every file of `a` is in `b` with the same bytes, and `b` has no other file.
inline void require_same_folder(const TempDir& a, const TempDir& b) {
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(a.path)) {
    const std::string name = e.path().filename().string();
    INFO(name);
    REQUIRE(std::filesystem::exists(b / name));
    REQUIRE(slurp(a / name) == slurp(b / name));
    ++files;
  }
  REQUIRE(files == static_cast<size_t>(std::distance(std::filesystem::directory_iterator(b.path), {})));
}

}  // namespace cli_test
