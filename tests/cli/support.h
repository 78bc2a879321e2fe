// Shared by the CLI tests: run a shell command and capture what it printed and how it exited.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include <catch2/catch.hpp>

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

}  // namespace cli_test
