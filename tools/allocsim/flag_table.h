// The command line's flags as tables (docs/DESIGN.md §7, "Flags"): each flag is one row, naming every command that
// takes it with that command's help and default, and the range of an integer value, which is the same for every
// command. Two tables: the exploration flags (common.cpp's explore_table(), whose rows also read their value into a
// campaign::ExploreConfig) and every other flag (flag_table(), here). A command declares its flags from the tables
// (declare_flags, explore_options) and reads their raw text by name (FlagValues), so adding a flag to a command is
// one row, or one use in a row, and the code that reads it.
//
// Contract: names are unique within a table, and no command takes a name from both tables
// (tests/cli/flag_table.cpp: each command's --help lists each flag once); an integer flag's value is decimal or 0x-hex within its row's range, else a
// UsageError names the flag; a flag a command does not take is not declared, so Boost refuses it with a
// did-you-mean (usage_error in options.cpp).
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace allocsim::cli {

/// The commands whose flags the tables declare (`list` takes only --help; `help`, none). run, replay and sweep come
/// first: they take the exploration flags, whose rows (common.cpp) are indexed by them.
enum class Cmd {
  run,
  replay,
  sweep,
  merge,
  swarm,
  swarm_merge,
  selfcheck,
  shrink,
  findings_diff,
  corpus,
  trace_explain,
  trace_order,
};

/// The command's words as typed ("swarm merge"), for messages and tests.
const char* cmd_name(Cmd c);
/// Every command of the tables, in enum order.
const std::vector<Cmd>& all_cmds();

enum class FlagKind {
  value,       // --flag VALUE, at most once
  on_off,      // --flag: a switch
  repeatable,  // --flag VALUE, any number of times, in the order given
};

/// One command's use of a flag.
struct FlagUse {
  Cmd cmd;
  const char* help;
  /// The default --help shows and the flag takes when absent (nullptr: none; a switch is off).
  const char* value = nullptr;
  /// A one-letter alias this command gives the flag ('o' for merge's --report-json), 0: none.
  char short_name = 0;
};

/// One flag: a row of flag_table().
struct FlagRow {
  const char* name;  // "jobs" or "jobs,j" (a one-letter alias every command that takes it shares)
  FlagKind kind;
  /// An integer flag's range (FlagValues::count), the same for every command; hi == 0: not an integer flag.
  uint64_t lo = 0, hi = 0;
  std::vector<FlagUse> uses;
  /// Flags of which one must be given beside this one, which changes nothing alone (note_given refuses it); empty:
  /// none.
  std::vector<const char*> needs = {};
  /// Flags that cannot be given beside this one: they contradict it, or it makes them change nothing (note_given
  /// refuses the pair).
  std::vector<const char*> conflicts = {};
};

/// Every flag but the exploration flags, in --help order.
const std::vector<FlagRow>& flag_table();

/// The raw values of one command's flags, from either table, keyed by long name. Boost writes into the maps, so a
/// flag's entry exists from its declaration on: text holds its default until the command line gives one.
struct FlagValues {
  std::map<std::string, std::string> text;               // valued flags: as given, else the default ("" none)
  std::map<std::string, bool> on;                        // switches
  std::map<std::string, std::vector<std::string>> list;  // repeatable flags, in the order given
  std::set<std::string> given;  // the flags on the command line (note_given): a default is not given
  Cmd cmd = Cmd::run;           // the command declare_flags() declared them for

  /// The text of valued flag `name` ("" when absent without a default).
  const std::string& value(const std::string& name) const;
  /// Whether switch `name` is on.
  bool is_on(const std::string& name) const;
  /// The values of repeatable flag `name` (empty for a command without it).
  const std::vector<std::string>& values(const std::string& name) const;
  /// Whether `name` was on the command line.
  bool was_given(const std::string& name) const { return given.count(name) != 0; }
  /// Integer flag `name` of flag_table(), parsed within its row's range (decimal or 0x-hex). Throws UsageError naming
  /// the flag. REQUIRES: a value (given or by default).
  uint64_t count(const std::string& name) const;
  /// The same, or nullopt when the flag has no value.
  std::optional<uint64_t> count_if(const std::string& name) const;
  /// --mutant's values (empty for a command without it).
  const std::vector<std::string>& mutants() const { return values("mutant"); }
};

/// Declares the flags `cmd` takes, bound to `v`: "help", then its exploration flags (run, replay, sweep), then those
/// of flag_table() in table order. Remembers `cmd` (FlagValues::cmd).
void declare_flags(boost::program_options::options_description& d, FlagValues& v, Cmd cmd);

/// Records in `v.given` every flag `vm` holds from the command line rather than by default.
void note_given(const boost::program_options::variables_map& vm, FlagValues& v);

/// Throws UsageError for a flag given without any of its row's `needs`, beside one of its `conflicts`, or (a
/// repeatable flag) with one value twice. Every command calls it once its own arguments are checked (a missing
/// input is said first).
void check_flag_pairs(const FlagValues& v);

}  // namespace allocsim::cli
