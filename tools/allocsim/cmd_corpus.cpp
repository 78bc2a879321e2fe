// allocsim corpus list|show|prune: the regression corpus (sim/campaign/corpus.h) seen from the command line.
//
//   allocsim corpus list PATH             every entry: its scenario, invariant, steps, and whether the scenario
//                                         file still has the digest the entry was found under
//   allocsim corpus show ENTRY            one entry's trace table (the printing of run and replay)
//   allocsim corpus prune PATH [--dry-run] removes (prints) entries whose scenario file is gone, which are
//                                         stale (the scenario changed and they no longer violate it) or
//                                         unreadable; keeps the rest, including entries that pass now
// PATH is a corpus folder, a folder with a .allocsim/corpus folder in it, or a scenario file (its own entries
// in the corpus beside it). Exit codes: 0 done; 2 a path that is none of these, an unreadable entry for show.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "backend/system/system.h"
#include "sim/campaign/corpus.h"
#include "sim/support/words.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/report.h"
#include "tools/allocsim/trace_report.h"

namespace allocsim::cli {

namespace {

namespace fs = std::filesystem;

/// A corpus folder and, for a scenario file, the key prefix of its entries ("" = all). `guessed`: PATH was a
/// folder with no .allocsim/corpus in it, read as a corpus folder itself.
struct Target {
  std::string dir, stem;
  bool guessed = false;
};

Target resolve(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const fs::path inner = fs::path(path) / ".allocsim" / "corpus";
    if (fs::is_directory(inner, ec)) return {inner.string(), ""};
    // A corpus folder given itself (.../.allocsim/corpus) is no guess.
    const fs::path p = fs::path(path).lexically_normal();
    const fs::path last = p.filename().empty() ? p.parent_path() : p;
    const bool corpus_itself = last.filename() == "corpus" && last.parent_path().filename() == ".allocsim";
    return {path, "", !corpus_itself};
  }
  if (fs::is_regular_file(path, ec)) {
    // Entries are keyed by the scenario's file stem: any other file would list "0 entries" for a name no
    // run ever stores (README.md, a trace file).
    if (fs::path(path).extension() != ".json" || path.ends_with(".trace.json"))
      throw UsageError(
          fmt::format("{}: not a scenario file (*.json but not *.trace.json), scenario folder or corpus folder", path));
    return {campaign::corpus_dir(path, ""), fs::path(path).stem().string()};
  }
  throw UsageError(fmt::format("{}: no such corpus folder, scenario folder or scenario file", path));
}

bool belongs(const Target& t, const std::string& entry) {
  if (t.stem.empty()) return true;
  return campaign::parse_key(campaign::parse_entry_name(fs::path(entry).filename().string())->key, t.stem).has_value();
}

/// An entry's scenario file: beside the corpus folder (DIR/../../NAME) when it is there, else the path the
/// entry recorded (relative to where it was found); "" when neither exists.
std::string scenario_file(const std::string& dir, const campaign::Trace& t) {
  std::error_code ec;
  const fs::path beside = fs::path(dir).parent_path().parent_path() / fs::path(t.scenario_path).filename();
  if (fs::is_regular_file(beside, ec)) return beside.string();
  if (fs::is_regular_file(t.scenario_path, ec)) return t.scenario_path;
  return "";
}

/// The scenario as it is now and how it relates to the entry: "current", "changed" or "gone"
/// ("unloadable" when the file no longer loads).
struct Now {
  std::string file, state;
  campaign::SubjectPtr subject;
};

Now scenario_now(const std::string& dir, const campaign::Trace& t) {
  Now n{scenario_file(dir, t), "gone", nullptr};
  if (n.file.empty()) return n;
  try {
    n.subject = harness::backend_system().load(n.file);
  } catch (const std::exception&) {
    n.state = "unloadable";
    return n;
  }
  n.state = n.subject->digest() == t.scenario_digest ? "current" : "changed";
  return n;
}

std::vector<std::string> entries_of(const Target& target) {
  std::vector<std::string> out;
  try {
    for (const auto& e : campaign::list_entries(target.dir))
      if (belongs(target, e)) out.push_back(e);
  } catch (const campaign::CorpusError& e) {
    throw UsageError(e.what());
  }
  return out;
}

std::vector<std::string> non_entries_of(const Target& target) {
  try {
    return campaign::list_non_entries(target.dir);
  } catch (const campaign::CorpusError& e) {
    throw UsageError(e.what());
  }
}

int list(const Target& target) {
  const auto entries = entries_of(target);
  // A scenario file's entries are the folder's entries under its name: the count says whose it is.
  std::cout << fmt::format("corpus {}: {}{}\n", target.dir, support::count_of(entries.size(), "entry", "entries"),
                           target.stem.empty() ? "" : " for " + target.stem);
  std::error_code ec;
  if (entries.empty() && !target.guessed && !fs::is_directory(target.dir, ec))  // a scenario file's corpus
    std::cout << "  (the folder does not exist yet: a run creates it when it stores its first failure)\n";
  if (entries.empty() && target.guessed)
    std::cout << fmt::format(
        "  {} has no .allocsim/corpus folder: a run stores its failures beside the scenario "
        "file, in SCENARIO_DIR/.allocsim/corpus (subfolders are not searched)\n",
        target.dir);
  if (!target.guessed && target.stem.empty())
    if (const auto others = non_entries_of(target); !others.empty()) {
      constexpr size_t kShown = 5;
      std::string names;
      for (size_t i = 0; i < std::min(others.size(), kShown); ++i) names += (i ? ", " : "") + others[i];
      if (others.size() > kShown) names += fmt::format(", and {} more", others.size() - kShown);
      std::cout << fmt::format(
          "  ignored: {} not named as an entry (STEM.DIGEST12.INVARIANT.HASH8.trace.json), never replayed: {}\n",
          support::count_of(others.size(), ".json file"), names);
    }
  for (const auto& path : entries) {
    std::cout << fs::path(path).filename().string() << "\n";
    try {
      const campaign::Trace t = campaign::load_trace(harness::backend_system(), path);
      const Now now = scenario_now(target.dir, t);
      std::cout << fmt::format("    scenario {} ({}), {}, {}\n", now.file.empty() ? t.scenario_path : now.file,
                               now.state, t.violation ? t.violation->invariant : "no violation",
                               support::count_of(t.steps.size(), "step"));
    } catch (const campaign::TraceError& e) {
      std::cout << fmt::format("    unreadable: {}\n", e.what());
    }
  }
  return kExitOk;
}

int show(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw UsageError(fmt::format("{}: no such corpus entry", path));
  const campaign::Trace t = campaign::load_trace(harness::backend_system(), path);  // TraceError: exit 2
  const Now now = scenario_now(fs::path(path).parent_path().string(), t);
  std::cout << fmt::format("corpus entry {}\nscenario {} ({})\n", path, now.file.empty() ? t.scenario_path : now.file,
                           now.state)
            << explain_trace(t) << fmt::format("replay: allocsim replay {}\n", shell_quote(path));
  return kExitOk;
}

/// Why `path` should go ("" = keep it).
std::string prune_reason(const Target& target, const std::string& path) {
  campaign::Trace t;
  try {
    t = campaign::load_trace(harness::backend_system(), path);
  } catch (const campaign::TraceError& e) {
    return fmt::format("unreadable: {}", e.what());
  }
  const Now now = scenario_now(target.dir, t);
  if (now.state == "gone") return fmt::format("its scenario file {} is gone", t.scenario_path);
  if (now.state != "changed") return "";
  // The extra mutants the entry was found with are in its key after the scenario's stem.
  const std::string key = campaign::parse_entry_name(fs::path(path).filename().string())->key;
  const auto parts = campaign::parse_key(key, fs::path(now.file).stem().string());
  const std::vector<std::string> extra = parts ? parts->mutants : std::vector<std::string>{};
  campaign::EntryReplay r;
  try {
    r = campaign::replay_entry(harness::backend_system(), path, *now.subject, extra);
  } catch (const std::exception& e) {  // a mutant the program no longer has
    return fmt::format("stale: it cannot run against {} any more ({})", now.file, e.what());
  }
  if (r.status != campaign::EntryStatus::stale) return "";
  return fmt::format("stale: {} changed and its {} no longer violates {}", now.file, r.via, r.stored_invariant);
}

int prune(const Target& target, bool dry_run) {
  const auto entries = entries_of(target);
  uint64_t removed = 0;
  for (const auto& path : entries) {
    const std::string why = prune_reason(target, path);
    if (why.empty()) continue;
    ++removed;
    std::cout << fmt::format("{} {}: {}\n", dry_run ? "would remove" : "removed", path, why);
    std::error_code ec;
    if (!dry_run && !fs::remove(path, ec))
      throw UsageError(fmt::format("{}: cannot remove: {}", path, ec ? ec.message() : "it is gone"));
  }
  std::cout << fmt::format("corpus {}: {} of {} {}, {} kept\n", target.dir, removed,
                           support::count_of(entries.size(), "entry", "entries"),
                           dry_run ? "would be removed (--dry-run)" : "removed", entries.size() - removed);
  return kExitOk;
}

}  // namespace

int cmd_corpus(int argc, char** argv) {
  std::vector<std::string> args;
  FlagValues v;
  po::options_description d("corpus options");
  declare_flags(d, v, Cmd::corpus);
  po::options_description hidden;
  hidden.add_options()("args", po::value(&args)->composing());
  const char* synopsis = "allocsim corpus list PATH | show ENTRY | prune PATH [--dry-run]";
  const po::variables_map vm = parse_options(argc, argv, d, hidden, "args", 2, synopsis);
  const std::string usage = fmt::format("usage: {}\n", synopsis);
  if (vm.count("help")) {
    std::cout << usage
              << "\nPATH: a corpus folder, a folder with .allocsim/corpus in it, or a scenario file (its entries).\n\n"
              << d;
    return kExitOk;
  }
  note_given(vm, v);
  const bool dry_run = v.is_on("dry-run");
  if (args.size() != 2) throw UsageError(fmt::format("corpus: expected a subcommand and a path\n{}", usage));
  check_flag_pairs(v);
  if (dry_run && args[0] != "prune") throw UsageError("--dry-run: only prune takes it");
  if (args[0] == "list") return list(resolve(args[1]));
  if (args[0] == "show") return show(args[1]);
  if (args[0] == "prune") return prune(resolve(args[1]), dry_run);
  throw UsageError(fmt::format("corpus: unknown subcommand \"{}\"{} (list, show, prune)", args[0],
                               did_you_mean(args[0], {"list", "show", "prune"})));
}

}  // namespace allocsim::cli
