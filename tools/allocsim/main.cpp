// allocsim: the command line (docs/DESIGN.md §7). Dispatches to one file per command.
//
// Exit codes: run: 0 when the scenario met its expectation, 1 when not. replay: 1 when the execution
// violates an invariant, 0 when not. All: 2 usage or input error, 3 internal error, 4 replay diverged (run, sweep:
// --check-determinism found an execution that ran differently the second time).
// Interrupted by SIGINT or SIGTERM (sim/interrupt.h): the command stops at its next execution boundary,
// reports what ran, writes its pending files and exits 128 + the signal (130, 143).
#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "backend/scenario/scenario.h"
#include "sim/interrupt.h"
#include "tools/allocsim/build_info.h"
#include "tools/allocsim/cli.h"

using namespace allocsim::cli;

namespace {

const char* kTopHelp = R"(allocsim: a deterministic concurrency simulator for the GPU allocation protocol.

usage:
  allocsim run SCENARIO [options]        explore interleavings; judge against the scenario's expect
  allocsim replay SCENARIO --seed E      re-run one execution exactly and print its trace
  allocsim replay SCENARIO --schedule S  re-run the schedule S (v1:actor*count,...) exactly
  allocsim replay TRACE.json             reproduce a trace file byte for byte (exit 4 if it diverges)
  allocsim shrink TRACE.json [-o MIN]    shrink a trace to a 1-minimal one with the fewest preemptions
  allocsim trace explain TRACE.json      why it broke: the racing pair, the causal slice, an order block
  allocsim trace order TRACE.json        print the `order` block that forces the trace's violation
  allocsim sweep DIR|FILES... [options]  check many scenarios exhaustively (dfs+dpor), sharded, resumable
  allocsim merge REPORT.json...          combine `sweep --shard K/N` reports into the unsharded report
  allocsim corpus list|prune PATH        the regression corpus (.allocsim/corpus beside the scenarios)
  allocsim corpus show ENTRY             print one corpus entry's trace
  allocsim swarm --out DIR [options]     generate scenarios from a seed, explore, shrink and dedup findings
  allocsim swarm merge DIR... --out DIR  combine the folders of `swarm --shard K/N` into the unsharded one
  allocsim findings diff LAST TONIGHT    nightly findings by signature: new, still failing, rare, resolved
  allocsim selfcheck [options]           check that replay, shrink, explain and order blocks agree with every
                                         execution and violation of generated scenarios
  allocsim list barriers|invariants|mutants|ops|strategies
  allocsim --version                     the version and the git commit it was built from

Run `allocsim COMMAND --help` or `allocsim help COMMAND` (run, replay, shrink, trace, sweep, merge, corpus, swarm,
findings, selfcheck, list) for its options.

exit codes: 0 ok / expectation met; 1 expectation not met (run, sweep, merge), a finding (swarm), a
            contradiction (selfcheck) or a violation (replay, shrink: the minimal trace still violates); 2 usage
            or input error; 3 internal error; 4 replay diverged (run, sweep: --check-determinism found a
            difference); 130 / 143 interrupted by SIGINT / SIGTERM (run, sweep: the summary so far is printed and
            pending files are written).
)";

/// The commands: what the user types, what runs it, and whether a SIGINT/SIGTERM stops it at an execution
/// boundary (its exit code is then 128 + the signal). Adding a command is a row here and a line in kTopHelp.
struct Command {
  const char* name;
  int (*run)(int argc, char** argv);  // argv[0] is the command's name
  bool interruptible;
};

int trace_command(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "explain") return cmd_trace_explain(argc - 1, argv + 1);
  return cmd_trace(argc, argv);
}

constexpr Command kCommands[] = {
    {"run", cmd_run, true},
    {"replay", cmd_replay, true},
    {"shrink", cmd_shrink, true},
    {"sweep", cmd_sweep, true},
    {"merge", cmd_merge, false},
    {"list", cmd_list, false},
    {"corpus", cmd_corpus, false},
    {"swarm", cmd_swarm, true},
    {"trace", trace_command, true},
    {"findings", cmd_findings, false},
    {"selfcheck", cmd_selfcheck, false},
};

const Command* find_command(std::string_view name) {
  for (const Command& c : kCommands)
    if (name == c.name) return &c;
  return nullptr;
}

/// "run, replay, ..., trace": the commands in kCommands order.
std::string command_list() {
  std::string out;
  for (const Command& c : kCommands) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

/// The error for a first argument that is no command: a word gets the closest command, a flag is named as a
/// flag (only --help and --version come before a command).
UsageError unknown_command(const std::string& name) {
  if (name.starts_with('-'))
    return UsageError(
        fmt::format("unknown option \"{}\"{}; before a command only --help and --version are "
                    "accepted (see allocsim --help)",
                    name, did_you_mean(name, {"--help", "--version"})));
  std::vector<std::string> names;
  for (const Command& c : kCommands) names.emplace_back(c.name);
  return UsageError(fmt::format("unknown command \"{}\"{}; the commands are {} (see allocsim --help)", name,
                                did_you_mean(name, names), command_list()));
}

/// A command's exit code, or 128 + the signal when SIGINT/SIGTERM interrupted it (the shell's convention).
int finished(int rc) {
  const int signo = allocsim::sim::interrupt_signal();
  return signo != 0 ? 128 + signo : rc;
}

}  // namespace

namespace {

int dispatch(int argc, char** argv) {
  try {
    if (argc < 2) {
      std::cerr << kTopHelp;
      return kExitUsage;
    }
    const std::string cmd = argv[1];
    const bool help = cmd == "--help" || cmd == "-h" || cmd == "help";
    if (help && argc == 3 && std::string_view(argv[2]) != "help") {
      // `allocsim help run` is `allocsim run --help` (and `help help` the help below).
      if (!find_command(argv[2])) throw unknown_command(argv[2]);
      static char help_flag[] = "--help";
      char* again[] = {argv[0], argv[2], help_flag, nullptr};
      return dispatch(3, again);
    }
    // Otherwise neither takes an argument (`help help` aside): one given is named, so a mistyped line is not
    // silently a success.
    const bool help_help = help && argc == 3;
    if ((help || cmd == "--version") && argc > 2 && !help_help)
      throw UsageError(fmt::format("unexpected argument \"{}\" after {} (usage: allocsim {}{})", argv[2], cmd, cmd,
                                   help ? " [COMMAND]" : ""));
    if (help) {
      std::cout << kTopHelp;
      return kExitOk;
    }
    if (cmd == "--version") {
      // The commit only here: reports and traces carry ALLOCSIM_VERSION alone (build_info.h).
      std::cout << "allocsim " << ALLOCSIM_VERSION << " (git " << build_commit() << ")\n";
      return kExitOk;
    }
    const Command* command = find_command(cmd);
    if (!command) throw unknown_command(cmd);
    if (!command->interruptible) return command->run(argc - 1, argv + 1);
    allocsim::sim::install_interrupt_handlers();
    return finished(command->run(argc - 1, argv + 1));
  } catch (const UsageError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  } catch (const allocsim::harness::ScenarioError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  } catch (const allocsim::campaign::TraceError& e) {  // an unreadable trace file: file and JSON pointer
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "allocsim: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace

int main(int argc, char** argv) { return dispatch(argc, argv); }
