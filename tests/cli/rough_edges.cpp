// What a fresh user hit (docs/DESIGN.md §7, "Human output" to "Error places"), one test per rough edge: counted nouns
// agree with their number, the trace table keeps its columns whatever the step kind, loaders name the document root
// readably, sweep and swarm reject a bad --shard with the same message, and unknown flags and names suggest
// the closest one. (Interrupted runs: tests/cli/interrupt.cpp.)
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/support.h"

using namespace cli_test;

namespace {

/// The lines of `text` from the trace table's header (the line starting "   step  actor") to the first line
/// that is not a table row.
std::vector<std::string> table_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> rows;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (!inside && line.rfind("   step  actor", 0) == 0)
      inside = true;
    else if (inside && !std::regex_match(line, std::regex(R"(\s+[0-9]+[ *] .*)")))
      break;
    if (inside) rows.push_back(line);
  }
  return rows;
}

}  // namespace

TEST_CASE("counted nouns agree with their number: 1 execution, 1 step, 1 preemption", "[cli][wording]") {
  const Captured one = allocsim("run scenarios/alloc-005-last-out.json --executions 1");
  INFO(one.text);
  CHECK(one.code == 1);  // one execution does not reach every barrier the scenario's expect.reach names
  CHECK_THAT(one.text, Catch::Contains("\n  1 execution, 14 steps, 0 violating\n"));
  CHECK_THAT(one.text, Catch::Contains("barrier delete.before never fired in 1 execution (expect.reach)"));
  CHECK_THAT(one.text, !Catch::Contains("1 executions"));
  const Captured two = allocsim("run scenarios/alloc-005-last-out.json --executions 2");
  CHECK_THAT(two.text, Catch::Contains("\n  2 executions, "));

  // An execution with exactly one preemption.
  const Captured r = allocsim("replay scenarios/alloc-003-same-flow-recarve.json --seed 5");
  INFO(r.text);
  CHECK(r.text.rfind("allocsim replay scenarios/alloc-003-same-flow-recarve.json --seed 5: 21 steps, 1 preemption, "
                     "fingerprint ",
                     0) == 0);
  CHECK_THAT(r.text, !Catch::Contains("1 preemptions"));

  // An exhaustive run of one execution.
  const Captured dfs = allocsim("run scenarios/alloc-023-sequential.json --strategy dfs --executions 1");
  INFO(dfs.text);
  CHECK_THAT(dfs.text,
             Catch::Contains("\n  1 execution, 13 steps, 0 violating\n  exhaustive: all 1 execution explored"));
  CHECK_THAT(dfs.text, !Catch::Contains("1 executions"));
}

TEST_CASE("the trace table keeps its columns when a step is a lock-wait", "[cli][wording]") {
  // Step 16 of this execution is flowA's lock-wait while flowB holds the backend lock.
  const Captured r = allocsim("replay scenarios/alloc-004-retry-on-conflict.json --seed 0");
  INFO(r.text);
  const std::vector<std::string> rows = table_of(r.text);
  REQUIRE(rows.size() > 2);
  const size_t point = rows[0].find("point");
  REQUIRE(point != std::string::npos);
  bool lock_wait = false;
  for (size_t i = 1; i < rows.size(); ++i) {
    INFO(rows[i]);
    lock_wait = lock_wait || rows[i].find(" lock-wait ") != std::string::npos;
    // The point column starts where its header does: two blanks before it, a name at it; no line ends in
    // blanks (a step without details).
    REQUIRE(rows[i].size() > point);
    CHECK(rows[i].substr(point - 2, 2) == "  ");
    CHECK(rows[i][point] != ' ');
    CHECK(rows[i].back() != ' ');
  }
  CHECK(lock_wait);
}

TEST_CASE("loaders name the document root readably, never as an empty pointer", "[cli][errors]") {
  TempDir dir;
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  // A trace file whose top level is not an object, and one without its schema.
  const std::string array = write("array.trace.json", "[]");
  Captured r = allocsim("replay " + array);
  CHECK(r.code == 2);
  CHECK_THAT(r.text, Catch::Contains(array + ": (document root): expected an object at the top level, got array"));
  CHECK_THAT(r.text, !Catch::Contains("\"\":"));
  const std::string no_schema = write("bare.trace.json", "{}");
  r = allocsim("replay " + no_schema);
  CHECK(r.code == 2);
  CHECK_THAT(r.text, Catch::Contains(no_schema + ": (document root): "));
  CHECK_THAT(r.text, !Catch::Contains("\"\":"));
  // A scenario file, the same way.
  const std::string scenario = write("array.json", "[]");
  r = allocsim("run " + scenario);
  CHECK(r.code == 2);
  CHECK_THAT(r.text, Catch::Contains(scenario + ": (document root): expected an object at the top level"));
  // An error about the file itself names no place in it.
  const std::string empty = write("empty.trace.json", "");
  r = allocsim("replay " + empty);
  CHECK(r.code == 2);
  CHECK_THAT(r.text, Catch::Contains(empty + ": file is empty"));
  // A sweep checkpoint and a sweep report that cannot be read: the file, no empty pointer.
  const std::string checkpoint = write("checkpoint.json", "");
  r = allocsim("sweep scenarios/alloc-023-sequential.json --resume " + checkpoint);
  CHECK(r.code == 2);
  CHECK_THAT(r.text, Catch::Contains(checkpoint + ": not a valid checkpoint: file is empty"));
  const std::string report = write("report.json", "");
  r = allocsim("merge " + report);
  CHECK(r.code == 2);
  CHECK_THAT(r.text, Catch::Contains(report + ": not a valid report: file is empty"));
}

TEST_CASE("sweep and swarm reject a bad --shard with one message", "[cli][errors]") {
  TempDir dir;
  for (const char* shard : {"3", "0/3", "4/3", "1/0", "1/", "/3", "a/3", "1/100001"}) {
    INFO(shard);
    const Captured sweep = allocsim(std::string("sweep scenarios/alloc-023-sequential.json --shard ") + shard);
    const Captured swarm = allocsim(std::string("swarm --scenarios 1 --out ") + (dir / "out") + " --shard " + shard);
    CHECK(sweep.code == 2);
    CHECK(swarm.code == 2);
    const std::string expected = std::string("allocsim: --shard: expected K/N, shard K of N with 1 <= K <= N <= ") +
                                 "100000 (e.g. 2/4), got \"" + shard + "\"\n";
    CHECK(sweep.text == expected);
    CHECK(swarm.text == expected);
  }
}

TEST_CASE("unknown flags and names suggest the closest one when it is close", "[cli][errors]") {
  struct Case {
    std::string args, says;
  } cases[] = {
      {"run scenarios/alloc-005-last-out.json --exectuions 5", "(did you mean --executions?)"},
      {"replay scenarios/alloc-005-last-out.json --sed 3", "(did you mean --seed?)"},
      {"sweep scenarios/alloc-023-sequential.json --jbos 2", "(did you mean --jobs?)"},
      {"swarm --scenarios 1 --out /tmp --sahrd 1/2", "(did you mean --shard?)"},
      {"merge r.json --junt x.xml", "(did you mean --junit?)"},
      {"shrink t.json --shrink-rnus 5", "(did you mean --shrink-runs?)"},
      {"trace order t.json --fulll", "(did you mean --full?)"},
      {"corpus list scenarios --dry-rn", "(did you mean --dry-run?)"},
      {"run scenarios/alloc-005-last-out.json --schedule v1:flowA",
       "(--schedule belongs to `allocsim replay FILE --schedule S`)"},
      {"rnu scenarios/alloc-005-last-out.json", "unknown command \"rnu\" (did you mean run?)"},
      {"list invariant", "(did you mean invariants?)"},
      {"run scenarios/alloc-005-last-out.json --strategy dsf", "unknown strategy \"dsf\" (did you mean dfs?)"},
      {"run scenarios/alloc-005-last-out.json --mutant client-side-clam",
       "unknown mutant \"client-side-clam\" (did you mean client-side-claim?)"},
      {"swarm --scenarios 1 --out /tmp --until single-ownershp",
       "unknown invariant \"single-ownershp\" (did you mean single-ownership?)"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const Captured r = allocsim(c.args);
    INFO(r.text);
    CHECK(r.code == 2);
    CHECK_THAT(r.text, Catch::Contains(c.says));
  }
  // Nothing close: no guess.
  const Captured far = allocsim("run scenarios/alloc-005-last-out.json --zzzzzzzz 1");
  CHECK(far.code == 2);
  CHECK_THAT(far.text, Catch::Contains("zzzzzzzz"));
  CHECK_THAT(far.text, !Catch::Contains("did you mean"));
}

TEST_CASE("flags that contradict each other exit 2 naming both, before anything runs", "[cli][errors]") {
  TempDir dir;
  const std::string sc = "scenarios/mutants/stale-last-out.json";
  const std::string trace = dir / "t.json";
  const Captured t = allocsim("run " + sc + " -n 20000 --no-corpus --trace-out " + trace);
  REQUIRE(t.code == 0);  // the mutant scenario expects its violation: found, shrunk, written
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"run " + sc + " -n 10 --no-trace --trace-out " + (dir / "x.json"),
       "--no-trace and --trace-out contradict each other"},
      {"run " + sc + " -n 10 --no-corpus --corpus " + (dir / "c"), "--no-corpus and --corpus contradict each other"},
      {"replay " + sc + " --seed 1 --schedule v1:flowA", "--seed and --schedule: give one"},
      {"replay " + trace + " --seed 5", " is a trace file: it replays its own schedule"},
      {"replay " + trace + " --schedule v1:flowA", " is a trace file: it replays its own schedule"},
  };
  check_refused(cases);
  CHECK_FALSE(std::ifstream(dir / "x.json").good());
}

TEST_CASE("replay --seed --perfetto writes the trace, as replay --schedule does", "[cli][trace]") {
  TempDir dir;
  const std::string file = dir / "seed.json";
  const Captured s =
      allocsim("replay scenarios/mutants/stale-last-out.json --seed 13095918622469000722 --perfetto " + file);
  INFO(s.text);
  CHECK(s.code == 1);
  CHECK_THAT(s.text, Catch::Contains("perfetto trace written: " + file));
  const std::string json = slurp(file);
  CHECK(json.rfind("{", 0) == 0);
  CHECK_THAT(json, Catch::Contains("\"traceEvents\""));
  CHECK_THAT(json, Catch::Contains("delete.before"));  // the execution's racing barrier, as its table shows
}

TEST_CASE("an output flag naming a directory is refused up front, and nothing is written", "[cli][errors]") {
  TempDir dir;
  const std::string d = dir.path.string();
  const std::string sc = "scenarios/alloc-023-sequential.json";
  // Every flag that names an output file, each given the directory (with and without a trailing slash).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"run " + sc + " -n 1 --trace-out " + d + "/", "--trace-out " + d + "/"},
      {"run " + sc + " -n 1 --trace-out " + d, "--trace-out " + d},
      {"run " + sc + " -n 1 --perfetto " + d, "--perfetto " + d},
      {"run " + sc + " -n 1 --fingerprints " + d + "/", "--fingerprints " + d + "/"},
      {"run " + sc + " -n 1 --record " + d, "--record " + d},
      {"run " + sc + " -n 1 --report-html " + d, "--report-html " + d},
      {"replay " + sc + " --seed 0 --perfetto " + d + "/", "--perfetto " + d + "/"},
      {"shrink " + (dir / "missing.trace.json") + " -o " + d, "-o " + d},
      {"sweep " + sc + " --report-json " + d, "--report-json " + d},
      {"sweep " + sc + " --junit " + d + "/", "--junit " + d + "/"},
      {"sweep " + sc + " --report-html " + d, "--report-html " + d},
      {"sweep " + sc + " --checkpoint " + d, "--checkpoint " + d},
      {"merge " + (dir / "missing.json") + " --report-json " + d, "--report-json " + d},
      {"swarm --scenarios 1 --out " + (dir / "out") + " --junit " + d, "--junit " + d},
      {"swarm --scenarios 1 --out " + (dir / "out") + " --checkpoint " + d + "/", "--checkpoint " + d + "/"},
  };
  for (const auto& [args, flag] : cases) {
    const Captured r = allocsim(args);
    INFO(args << "\n" << r.text);
    CHECK(r.code == 2);
    CHECK(r.text == "allocsim: " + flag + ": is a directory; give a file name\n");
  }
  CHECK(std::filesystem::is_empty(dir.path));  // no trace, no corpus entry, no swarm --out folder
}

TEST_CASE("a --depth or --seed given to a strategy that does not take it is refused", "[cli][errors]") {
  const std::string sc = "scenarios/alloc-023-sequential.json";
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"run " + sc + " --depth 2", "--depth applies to --strategy pct only (--strategy random takes no depth)"},
      {"run " + sc + " --strategy dfs --depth 2",
       "--depth applies to --strategy pct only (--strategy dfs takes no depth)"},
      {"sweep " + sc + " --depth 2", "--depth applies to --strategy pct only (--strategy dfs takes no depth)"},
      {"run " + sc + " --strategy dfs --seed 3",
       "--seed applies to --strategy random and pct only (--strategy dfs takes no seed)"},
      {"run " + sc + " --strategy dpor --seed 0",
       "--seed applies to --strategy random and pct only (--strategy dpor takes no seed)"},
      {"sweep " + sc + " --seed 3", "--seed applies to --strategy random and pct only (--strategy dfs takes no seed)"},
  };
  for (const auto& [args, message] : refused) {
    const Captured r = allocsim(args);
    INFO(args << "\n" << r.text);
    CHECK(r.code == 2);
    CHECK(r.text == "allocsim: " + message + "\n");
  }
  // Where they apply they are taken, as before.
  for (const std::string& args :
       {"run " + sc + " -n 2 --strategy pct --depth 2 --seed 3", "run " + sc + " -n 2 --seed 3",
        "run " + sc + " -n 2 --strategy dfs", "sweep " + sc + " --strategy pct -n 2 --depth 2 --seed 1"}) {
    const Captured r = allocsim(args + " --no-corpus");
    INFO(args << "\n" << r.text);
    CHECK(r.code == 0);
  }
}

TEST_CASE("an abbreviated flag is an unknown flag, never taken for the one it starts", "[cli][errors]") {
  struct Case {
    std::string args, flag, suggests;
  } cases[] = {
      {"run scenarios/alloc-023-sequential.json --exec 5", "--exec", "--executions"},
      {"replay scenarios/alloc-023-sequential.json --sched v1:flowA", "--sched", "--schedule"},
      {"sweep scenarios/alloc-023-sequential.json --time 5", "--time", "--time-budget"},
      {"trace order t.json --bud 5", "--bud", "--budget"},
      {"corpus list scenarios --dry", "--dry", "--dry-run"},
  };
  for (const Case& c : cases) {
    const Captured r = allocsim(c.args);
    INFO(c.args << "\n" << r.text);
    CHECK(r.code == 2);
    CHECK_THAT(r.text, Catch::Contains("'" + c.flag + "'"));
    CHECK_THAT(r.text, Catch::Contains("(did you mean " + c.suggests + "?)"));
  }
}

TEST_CASE("replay --schedule prints its command line quoted, so it pastes back", "[cli][wording]") {
  const std::string sc = "tests/golden/scenarios/alloc-033-crash-at-owner-update-after.json";
  const std::string schedule = "v1:flowA,flowB*2,flowA,flowB,flowA*4,#2,ctl*2";  // '*' and '#' need quoting
  const Captured r = allocsim("replay " + sc + " --schedule '" + schedule + "'");
  INFO(r.text);
  CHECK(r.code == 1);
  const std::string command = "allocsim replay " + sc + " --schedule '" + schedule + "'";
  REQUIRE(r.text.rfind(command + ": ", 0) == 0);
  // Pasted into a shell, the printed command replays the same execution (the same header).
  const Captured again = sh(std::string(ALLOCSIM_BINARY) + command.substr(std::string("allocsim").size()));
  CHECK(again.text.substr(0, again.text.find('\n')) == r.text.substr(0, r.text.find('\n')));
  // A schedule that diverges prints its header the same way.
  const Captured d = allocsim("replay scenarios/mutants/stale-last-out.json --schedule 'v1:flowA*2'");
  INFO(d.text);
  CHECK(d.code == 4);
  CHECK(d.text.rfind("allocsim replay scenarios/mutants/stale-last-out.json --schedule 'v1:flowA*2': diverged", 0) ==
        0);
}

TEST_CASE("trace --help lists every trace subcommand, and an extra argument is named with the usage", "[cli][errors]") {
  const Captured help = allocsim("trace --help");
  INFO(help.text);
  CHECK(help.code == 0);
  CHECK_THAT(help.text, Catch::Contains("allocsim trace explain TRACE.json [--write]"));
  CHECK_THAT(help.text, Catch::Contains("allocsim trace order TRACE.json [--full | --budget N]"));
  CHECK_THAT(allocsim("trace order --help").text, Catch::Contains("--budget"));
  CHECK_THAT(allocsim("trace explain --help").text, Catch::Contains("--write"));
  struct Case {
    std::string args, extra, usage;
  } cases[] = {
      {"trace order a.json b.json", "b.json", "allocsim trace order TRACE.json [--full | --budget N]"},
      {"trace explain a.json b.json", "b.json", "allocsim trace explain TRACE.json [--write]"},
      {"shrink a.json --shrink-runs 5 b.json", "b.json", "allocsim shrink TRACE.json [-o MIN.json] [options]"},
      {"run scenarios/alloc-023-sequential.json -n 5 extra", "extra", "allocsim run SCENARIO [options]"},
      {"replay scenarios/alloc-023-sequential.json --seed 1 extra", "extra",
       "allocsim replay SCENARIO|TRACE.json [options]"},
      {"corpus list scenarios extra", "extra", "allocsim corpus list PATH | show ENTRY | prune PATH [--dry-run]"},
  };
  for (const Case& c : cases) {
    const Captured r = allocsim(c.args);
    INFO(c.args);
    CHECK(r.code == 2);
    CHECK(r.text == "allocsim: unexpected argument \"" + c.extra + "\" (usage: " + c.usage + ")\n");
  }
  const Captured swarm = allocsim("swarm extra");
  CHECK(swarm.code == 2);
  CHECK_THAT(swarm.text, Catch::StartsWith("allocsim: unexpected argument \"extra\" (usage: allocsim swarm "));
}

TEST_CASE("replay --schedule: malformed input exits 2 saying where and what, not 4", "[cli][errors]") {
  const std::string sc = "replay scenarios/mutants/stale-last-out.json --schedule ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"''", "--schedule: empty"},
      {"flowA", "--schedule: expected a schedule string starting with \"v1:\", got \"flowA\""},
      {"v2:flowA", "--schedule: unknown schedule version \"v2:\""},
      {"'v1:flowA*x'", "--schedule: schedule item \"flowA*x\": expected a repeat count as a decimal number"},
      {"v1:flowA,,flowB", "--schedule: empty schedule item"},
      {"v1:flowA,", "--schedule: trailing comma"},
      {"v1:nobody", "--schedule: schedule item \"nobody\": no actor named \"nobody\""},
      {"v1:@9", "--schedule: schedule item \"@9\": actor index 9 is out of range"},
  };
  for (const auto& [schedule, message] : cases) {
    const Captured r = allocsim(sc + schedule);
    INFO(schedule << "\n" << r.text);
    CHECK(r.code == 2);
    CHECK_THAT(r.text, Catch::StartsWith("allocsim: " + message));
  }
  // "v1:" is the empty schedule, well formed: on a scenario that takes steps it diverges at once (exit 4).
  const Captured empty = allocsim(sc + "v1:");
  INFO(empty.text);
  CHECK(empty.code == 4);
  CHECK_THAT(empty.text, Catch::Contains("diverged at step 0 (0 steps replayed)"));
  // A well-formed schedule the scenario cannot follow is a divergence: exit 4, as before.
  CHECK(allocsim(sc + "v1:flowA").code == 4);
}

TEST_CASE("every allocsim line in a shell code block of the docs is one runnable command", "[cli][docs]") {
  // `allocsim list barriers|invariants|...` pasted into a shell is a pipeline. Synopses (`[...]`, `a | b`) live
  // in plain ``` blocks; a ```sh block holds commands, so an allocsim line there has no `|` outside quotes and
  // comments.
  for (const char* doc : {"README.md", "backend/CONTRACT.md", "docs/DESIGN.md", "docs/EXPLANATIONS.md", "docs/SWARM.md",
                          "scenarios/FINDINGS.md", "scenarios/README.md", "tests/golden/README.md",
                          "tools/bench/README.md", "tools/differential/README.md"}) {
    INFO(doc);
    REQUIRE_FALSE(slurp(std::string(ALLOCSIM_SOURCE_DIR) + "/" + doc).empty());
    std::istringstream in(slurp(std::string(ALLOCSIM_SOURCE_DIR) + "/" + doc));
    bool shell = false;
    int n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      if (line.rfind("```", 0) == 0) {
        shell = !shell && (line == "```sh" || line == "```bash" || line == "```console");
        continue;
      }
      if (!shell || line.find("allocsim ") == std::string::npos) continue;
      char quote = 0;
      for (size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        if (quote) {
          quote = ch == quote ? 0 : quote;
        } else if (ch == '\'' || ch == '"') {
          quote = ch;
        } else if (ch == '#' && (i == 0 || line[i - 1] == ' ')) {
          break;  // a comment
        } else if (ch == '|') {
          FAIL(doc << ":" << n << ": a pipe in a command line: " << line);
        }
      }
    }
  }
}

namespace {

/// The line of `text` that starts with `prefix` ("" when none does).
std::string line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

}  // namespace

TEST_CASE("a run prints an execution seed only for a strategy whose executions replay by seed", "[cli][wording]") {
  const std::string run =
      "run scenarios/mutants/stale-last-out.json --stop-on-first --no-shrink --no-trace --no-corpus";
  // random: the execution seed, and the replay line that uses it.
  const Captured random = allocsim(run + " --strategy random");
  INFO(random.text);
  CHECK(random.code == 0);
  CHECK_THAT(random.text, Catch::Contains("(strategy random, seed 0)"));
  CHECK_THAT(line_starting(random.text, "first violating execution: #804 "),
             Catch::StartsWith(
                 "first violating execution: #804 (execution seed 13095918622469000722, 22 steps as found"));
  CHECK(line_starting(random.text, "replay: ") ==
        "replay: allocsim replay scenarios/mutants/stale-last-out.json --seed 13095918622469000722");
  // pct (seeded, but `replay --seed` runs random) and dpor (no seed at all): no execution seed, nothing that
  // replays by seed; the schedule replays the execution.
  for (const char* strategy : {"pct", "dpor"}) {
    const Captured r = allocsim(run + " --strategy " + strategy);
    INFO(r.text);
    CHECK(r.code == 0);
    CHECK_THAT(line_starting(r.text, "first violating execution: #"), Catch::Contains(" steps as found"));
    CHECK_THAT(r.text, !Catch::Contains("execution seed"));
    CHECK_THAT(r.text, !Catch::Contains("--seed"));
    CHECK_THAT(line_starting(r.text, "replay by schedule: "),
               Catch::StartsWith(
                   "replay by schedule: allocsim replay scenarios/mutants/stale-last-out.json --schedule "));
  }
  // dpor takes no seed, so its header names none; pct's run seed does reproduce the run.
  CHECK_THAT(allocsim(run + " --strategy pct").text, Catch::Contains("(strategy pct, seed 0)"));
  CHECK_THAT(allocsim(run + " --strategy dpor").text, Catch::Contains("(strategy dpor)\n"));
}

TEST_CASE("a run prints the unshrunk execution's fingerprint, which its replay lines reproduce", "[cli][wording]") {
  const std::regex fingerprint("fingerprint ([0-9a-f]{16})");
  // The fingerprint in `text`'s line starting with `prefix`.
  const auto fingerprint_in = [&](const std::string& text, const std::string& prefix) {
    const std::string line = line_starting(text, prefix);
    std::smatch m;
    return std::regex_search(line, m, fingerprint) ? m[1].str() : "(none in \"" + line + "\")";
  };
  // What the replay line `line` ("LABEL: allocsim replay ...") prints as its fingerprint, run as pasted.
  const auto replayed = [&](const std::string& line) {
    const size_t at = line.find("allocsim replay ");
    REQUIRE(at != std::string::npos);
    const Captured r = sh(std::string(ALLOCSIM_BINARY) + line.substr(at + std::string("allocsim").size()));
    return fingerprint_in(r.text, "allocsim replay ");
  };
  for (const char* strategy : {"random", "pct", "dpor"}) {
    INFO(strategy);
    // Shrunk (the default): the replay lines give the execution as found, not the minimal trace.
    const Captured r = allocsim(
        "run scenarios/mutants/stale-last-out.json --stop-on-first --no-trace --no-corpus "
        "--strategy " +
        std::string(strategy));
    INFO(r.text);
    REQUIRE(r.code == 0);
    const std::string found = fingerprint_in(r.text, "first violating execution: #");
    CHECK_THAT(line_starting(r.text, "first violating execution: #"),
               Catch::Contains(" steps as found, fingerprint " + found + "; the replay lines give it unshrunk)"));
    CHECK(replayed(line_starting(r.text, "replay by schedule: ")) == found);
    if (std::string(strategy) == "random") CHECK(replayed(line_starting(r.text, "replay: ")) == found);
  }
}

TEST_CASE("list --help names every list, and a missing or extra argument is named with the usage", "[cli][errors]") {
  const std::string usage = "allocsim list barriers|invariants|mutants|ops|strategies";
  const Captured help = allocsim("list --help");
  INFO(help.text);
  CHECK(help.code == 0);
  CHECK(help.text.rfind("usage: " + usage + "\n", 0) == 0);
  for (const char* kind : {"barriers", "invariants", "mutants", "ops", "strategies"}) {
    CHECK_THAT(help.text, Catch::Contains(std::string("\n  ") + kind + " "));
    CHECK(allocsim(std::string("list ") + kind).code == 0);
  }
  const Captured extra = allocsim("list barriers extra");
  CHECK(extra.code == 2);
  CHECK(extra.text == "allocsim: unexpected argument \"extra\" (usage: " + usage + ")\n");
  const Captured none = allocsim("list");
  CHECK(none.code == 2);
  CHECK(none.text == "allocsim: list: which list? (usage: " + usage + ")\n");
}
