// SIGINT and SIGTERM stop a run at the next execution boundary (sim/interrupt.h): the summary of what ran
// is printed, pending files are written, and the exit code is 128 + the signal (docs/DESIGN.md §7, "Exit codes"). Each
// test starts a real allocsim process, waits (a bounded poll, not a fixed sleep) until it has caught the
// signals and spent more CPU time than a one-execution run of the same command took (so executions have
// run, whatever the build: an ASan build spends most of a fifth of a second starting up), then sends it.
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli/support.h"

extern char** environ;

using namespace cli_test;

namespace {

/// The field `key` of /proc/PID/status ("" when absent or the process is gone).
std::string proc_status(pid_t pid, const std::string& key) {
  std::istringstream in(slurp("/proc/" + std::to_string(pid) + "/status"));
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) return line.substr(key.size() + 1);
  return "";
}

/// User + system CPU time of `pid` in clock ticks (fields 14 and 15 of /proc/PID/stat), or 0.
unsigned long cpu_ticks(pid_t pid) {
  const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream in(stat.substr(close + 2));
  std::string field;
  unsigned long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14) utime = std::stoul(field);
    if (i == 15) stime = std::stoul(field);
  }
  return utime + stime;
}

struct Finished {
  int status = 0;  // as waitpid gives it
  std::string out;
};

/// Spawns `allocsim args...` in the source directory, stdout and stderr into `log`. REQUIRES: spawn succeeds.
pid_t spawn_allocsim(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> words{ALLOCSIM_BINARY};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addchdir_np(&fa, ALLOCSIM_SOURCE_DIR);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE(spawned == 0);
  return pid;
}

/// The CPU time (user + system, in clock ticks as /proc reports them) that `args` takes with its execution
/// budget (`-n` or `--executions`) cut to 1: start-up, one execution, the summary. The readiness threshold
/// is measured, not guessed, because it differs several-fold between the Release and the ASan build.
unsigned long one_execution_ticks(std::vector<std::string> args, const std::string& log) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "-n" || args[i] == "--executions") args[i + 1] = "1";
  const pid_t pid = spawn_allocsim(args, log);
  int status = 0;
  rusage ru{};
  REQUIRE(wait4(pid, &status, 0, &ru) == pid);
  const long hz = sysconf(_SC_CLK_TCK);
  const auto ticks = [hz](const timeval& t) {
    return static_cast<unsigned long>(t.tv_sec * hz + t.tv_usec * hz / 1000000);
  };
  return ticks(ru.ru_utime) + ticks(ru.ru_stime);
}

/// Starts `allocsim args...` (stdout and stderr into `log`), waits until it catches `signo` and has spent
/// twice the CPU time of a one-execution run plus a fifth of a second (so it is running executions), sends
/// `signo`, and waits for it to exit. Every wait is bounded (120 s each); a process that does not exit is
/// killed and the test fails.
Finished interrupt_run(const std::vector<std::string>& args, const std::string& log, int signo) {
  const unsigned long threshold = 2 * one_execution_ticks(args, log + ".one") + 20;
  const pid_t pid = spawn_allocsim(args, log);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  const unsigned long mask = 1ul << (signo - 1);
  bool ready = false;
  while (!ready && std::chrono::steady_clock::now() < deadline) {
    const std::string caught = proc_status(pid, "SigCgt");
    ready = !caught.empty() && (std::stoul(caught, nullptr, 16) & mask) && cpu_ticks(pid) >= threshold;
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  INFO("CPU ticks before the signal: " << cpu_ticks(pid) << " (threshold " << threshold << ")");
  CHECK(ready);
  kill(pid, signo);
  int status = 0;
  pid_t done = 0;
  const auto exit_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while ((done = waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < exit_deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    FAIL("allocsim did not exit within 120 s of the signal");
  }
  return {status, slurp(log)};
}

/// The "N executions" count of a run summary, or -1.
long long executions_in(const std::string& out) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex("\n  ([0-9]+) executions?, [0-9]+ steps?, [0-9]+ violating\n"))) return -1;
  return std::stoll(m[1]);
}

}  // namespace

TEST_CASE("run: SIGTERM prints the summary so far, writes --fingerprints and exits 143", "[cli][interrupt]") {
  TempDir dir;
  const std::string fps = dir / "fp.txt";
  const Finished f =
      interrupt_run({"run", "scenarios/alloc-021-readiness-stages.json", "-n", "100000000", "--fingerprints", fps},
                    dir / "log", SIGTERM);
  INFO(f.out);
  REQUIRE(WIFEXITED(f.status));
  CHECK(WEXITSTATUS(f.status) == 143);
  CHECK(f.out.rfind("allocsim run scenarios/alloc-021-readiness-stages.json: alloc-021-readiness-stages (strategy "
                    "random, seed 0)\n",
                    0) == 0);
  const long long n = executions_in(f.out);
  CHECK(n > 0);
  CHECK(n < 100000000);
  CHECK_THAT(f.out, Catch::Contains(fmt::format("\n  interrupted: not exhausted (SIGTERM; the results cover the {} "
                                                "executions that ran)\n",
                                                n)));
  // One fingerprint line per execution that ran: the file is complete up to the interrupt.
  const std::string lines = slurp(fps);
  CHECK(std::count(lines.begin(), lines.end(), '\n') == n);
}

TEST_CASE("run: SIGINT stops an exhaustive run, says it is not exhausted and exits 130", "[cli][interrupt]") {
  TempDir dir;
  const Finished f =
      interrupt_run({"run", "scenarios/alloc-033-crash-at-delete-after.json", "--strategy", "dfs", "-n", "100000000"},
                    dir / "log", SIGINT);
  INFO(f.out);
  REQUIRE(WIFEXITED(f.status));
  CHECK(WEXITSTATUS(f.status) == 130);
  const long long n = executions_in(f.out);
  CHECK(n > 0);
  CHECK_THAT(f.out,
             Catch::Contains(
                 fmt::format("\n  interrupted: not exhausted (SIGINT; the results cover the {} executions that ran) "
                             "(reduction dpor)\n",
                             n)));
  CHECK_THAT(f.out, !Catch::Contains("exhaustive: all"));
}

TEST_CASE("sweep: SIGTERM writes the report of what ran and exits 143", "[cli][interrupt][sweep]") {
  TempDir dir;
  const std::string report = dir / "report.json";
  const Finished f = interrupt_run({"sweep", "scenarios/alloc-033-crash-at-delete-after.json", "--executions",
                                    "100000000", "--report-json", report},
                                   dir / "log", SIGTERM);
  INFO(f.out);
  REQUIRE(WIFEXITED(f.status));
  CHECK(WEXITSTATUS(f.status) == 143);
  const std::string json = slurp(report);
  CHECK_THAT(json, Catch::Contains("interrupted (SIGTERM): not exhausted"));
  CHECK_THAT(f.out, Catch::Contains("interrupted (SIGTERM): not exhausted"));
}

// An interrupted run used to end with "expectation met", judged on the executions that happened to run. The
// expectation is over the whole budget, so it is not judged at all (docs/DESIGN.md §7, "Exit codes").
TEST_CASE("run: an interrupted run never says its expectation was met", "[cli][interrupt]") {
  TempDir dir;
  const std::string html = dir / "run.html";
  const Finished pass =
      interrupt_run({"run", "scenarios/alloc-021-readiness-stages.json", "-n", "100000000", "--report-html", html},
                    dir / "pass.log", SIGTERM);
  INFO(pass.out);
  REQUIRE(WIFEXITED(pass.status));
  CHECK(WEXITSTATUS(pass.status) == 143);
  const long long n = executions_in(pass.out);
  CHECK(n > 0);
  CHECK_THAT(pass.out,
             Catch::Contains(
                 fmt::format("\nexpectation not judged: interrupted by SIGTERM after {} of 100000000 executions\n",
                             n)));
  CHECK_THAT(pass.out, !Catch::Contains("expectation met"));
  CHECK_THAT(pass.out, !Catch::Contains("expectation NOT met"));
  CHECK_THAT(slurp(html), Catch::Contains("data-verdict=\"interrupted\""));

  // A scenario that expects a violation: finding it before the signal does not meet the expectation either
  // (every violating execution must be one of the expected invariants, over the whole budget).
  const Finished found =
      interrupt_run({"run", "scenarios/mutants/stale-last-out.json", "-n", "100000000", "--no-corpus", "--no-trace"},
                    dir / "found.log", SIGINT);
  INFO(found.out);
  REQUIRE(WIFEXITED(found.status));
  CHECK(WEXITSTATUS(found.status) == 130);
  CHECK_THAT(found.out, Catch::Contains("violation: shared-map-never-deleted"));
  CHECK_THAT(found.out, Catch::Contains("\nexpectation not judged: interrupted by SIGINT after "));
  CHECK_THAT(found.out, !Catch::Contains("expectation met"));
}
