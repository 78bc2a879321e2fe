// Shared pieces of the allocsim command line: exit codes, usage errors, flag parsing, and the
// per-command entry points (one file per command: cmd_run.cpp, cmd_replay.cpp, cmd_list.cpp, ...).
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/scenario/scenario.h"
#include "sim/campaign/config.h"
#include "tools/allocsim/flag_table.h"
#include "tools/allocsim/trace_cli.h"

namespace allocsim::cli {

namespace po = boost::program_options;

/// docs/DESIGN.md §7 exit codes.
inline constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2, kExitInternal = 3, kExitDiverged = 4;

/// A usage or flag error: exit 2 with this message.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Fails early (UsageError naming `flag` and the path) when `path` is set and its directory does not exist
/// or is not writable, or `path` is itself a directory (`DIR` or `DIR/`), so no command works for minutes and
/// then cannot write its output, and no command
/// writes one output and then fails on the next.
/// It also refuses a `path` that names one of the command's positional arguments (command_inputs()): `run
/// S.json --trace-out S.json` would overwrite the scenario it reads; and one that another output flag checked
/// before it names (checked_outputs()): `--trace-out F --perfetto F` would keep only the last file written.
void check_output_dir(const char* flag, const std::string& path);
/// check_output_dir for `--checkpoint PATH` of `campaign`, and a refusal when PATH holds anything but that
/// campaign's own checkpoint (campaign::checkpoint_overwrite_refusal).
void check_checkpoint_output(const std::string& path, const std::string& campaign);

/// Refuses (UsageError naming `flag`) an output `path` right inside a swarm's `out` folder whose name is one the
/// swarm gives a finding's files (INVARIANT-HASH8.json, .trace.json): the swarm learns those names only as it runs,
/// so one of them could overwrite the report, or the report one of them. Other names there are never the swarm's
/// (summary.json is checked as an output of its own).
void check_not_a_finding_file(const char* flag, const std::string& path, const std::string& out);

/// The (flag, absolute path) of every output check_output_dir() accepted since the last parse_options() call.
std::vector<std::pair<std::string, std::string>>& checked_outputs();

/// The positional arguments of the last parse_options() call (the scenario, trace and directory arguments a
/// command reads), as given.
const std::vector<std::string>& command_inputs();

/// " (did you mean PREFIX+X?)" for the name X among `names` closest to `word` (support::closest: an edit
/// distance of at most 2), or "" when none is that close. Unknown commands, flags and names from name tables (mutants,
/// invariants, strategies) all suggest through it.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& names, std::string_view prefix = "");

/// The names `allocsim list mutants` / `list invariants` print, in table order (the candidates of
/// did_you_mean for --mutant and --until).
std::vector<std::string> mutant_names();
std::vector<std::string> invariant_names();

/// How every command parses its flags: Boost's default style without allow_guessing, so an abbreviation
/// (`--exec` for `--executions`) is an unknown flag, never silently taken for the one flag it starts.
inline constexpr int kOptionStyle = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;

/// A boost::program_options error as the UsageError the user sees; an unknown flag gets did_you_mean() over
/// the long names of `visible` ("--executons" suggests --executions; so does the abbreviation "--exec").
UsageError usage_error(const po::error& e, const po::options_description& visible);

/// The one option-parsing block of every command: `visible` (shown by --help) plus `hidden`, whose option
/// `positional` takes the positional arguments (at most `max`; -1: any number). Throws UsageError for an
/// unknown, malformed or repeated flag, and for a positional argument past `max` (naming it, and the
/// command's `usage` line when given: "allocsim shrink TRACE.json [-o MIN.json] [options]").
po::variables_map parse_options(int argc, char** argv, const po::options_description& visible,
                                const po::options_description& hidden, const char* positional, int max,
                                std::string_view usage = {});
/// The same with the positional arguments described by `pos` (several names: `trace ACTION TRACE.json`).
po::variables_map parse_options(int argc, char** argv, const po::options_description& visible,
                                const po::options_description& hidden, const po::positional_options_description& pos,
                                std::string_view usage = {});

/// --check-invariants: "incremental" | "full" sets the process-wide check mode (backend/world/dirty.h).
/// Throws UsageError naming the flag for anything else.
void set_check_invariants(const std::string& text);

/// Parses an unsigned decimal or 0x-hex flag value in [lo, hi]. Throws UsageError naming `flag`.
uint64_t parse_u64(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi);
/// A size in bytes: a number, optionally followed by KiB, MiB or GiB, in [lo, hi]. Throws UsageError naming `flag`.
uint64_t parse_bytes(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi);

/// `--shard K/N` as sweep and swarm take it: run only shard K of N. `index` is K - 1.
struct Shard {
  uint32_t index = 0;
  uint32_t count = 1;
};
/// The most shards a sweep or a swarm can be split into.
inline constexpr uint64_t kMaxShards = 100000;
/// Parses `--shard` ("K/N", 1 <= K <= N <= kMaxShards, decimal). Throws UsageError with the one message both
/// commands print for any malformed value.
Shard parse_shard(const std::string& text);

/// Declares the exploration flags `which` takes (names, help, defaults: the table in common.cpp), bound to `f`.
/// declare_flags() (flag_table.h) calls it. REQUIRES: `which` is Cmd::run, Cmd::replay or Cmd::sweep, the
/// commands that take exploration flags.
void explore_options(po::options_description& d, FlagValues& f, Cmd which);
/// The exploration flags' values into `c` (fields `which` does not take keep theirs), with their range checks
/// and c.validate(). Throws UsageError naming the flag. REQUIRES: as explore_options.
void to_explore_config(const FlagValues& f, Cmd which, campaign::ExploreConfig& c);

/// Flags shared by run and replay.
struct Common {
  std::string scenario;
  FlagValues flags;          // every flag as given: --seed, --strategy, --mutant, ... (flag_table.h, common.cpp)
  std::string fingerprints;  // run: write "index seed fingerprint" lines here (atomically)
  std::string record;        // run: write one comparable record per execution here (record.h)
  TraceFlags trace;          // trace files, shrinking, --schedule (trace_cli.h), read from `flags`
};

po::options_description common_options(Common& c, bool run);
Common parse_common(const std::string& cmd, int argc, char** argv, bool run);
campaign::ExploreConfig to_config(const Common& c, bool run);
std::vector<std::string> actor_names(const harness::Scenario& sc);
/// Appends the --order blocks of `cfg` to `sc.order` (sim/order.h). Throws UsageError naming --order.
void add_order_flags(harness::Scenario& sc, const campaign::ExploreConfig& cfg);
/// The exact command that replays execution seed `seed` of this run.
std::string replay_command(const Common& c, uint64_t seed, const campaign::ExploreConfig& cfg);

int cmd_run(int argc, char** argv);
int cmd_replay(int argc, char** argv);
int cmd_list(int argc, char** argv);
int cmd_sweep(int argc, char** argv);      // cmd_sweep.cpp
int cmd_merge(int argc, char** argv);      // cmd_merge.cpp
int cmd_corpus(int argc, char** argv);     // cmd_corpus.cpp
int cmd_swarm(int argc, char** argv);      // cmd_swarm.cpp
int cmd_findings(int argc, char** argv);   // cmd_findings.cpp
int cmd_selfcheck(int argc, char** argv);  // cmd_selfcheck.cpp
int cmd_shrink(int argc, char** argv);     // cmd_shrink.cpp: allocsim shrink TRACE.json [-o MIN.json]

}  // namespace allocsim::cli
