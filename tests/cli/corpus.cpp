// The regression corpus from the command line (docs/DESIGN.md §7, sim/campaign/corpus.h): `run` stores the
// minimal trace beside the scenario (never in the current directory), replays it first on the next run as
// execution 0 with the same fingerprint, re-finds it after a harmless edit, calls it stale when the defect is
// gone, and `corpus list|show|prune` print exactly what they see. Every test works on a copy of a scenario in
// a temporary folder, so nothing is written under scenarios/.
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using cli_test::allocsim;
using cli_test::slurp;
using cli_test::spit;
using cli_test::TempDir;

// The shrunk trace of mutants/stale-last-out.json as the repository has it (its digest starts cd0226d690a2).
const std::string kEntry = "stale-last-out.cd0226d690a2.shared-map-never-deleted.4e9419b8.trace.json";
const std::string kFingerprint = "c6de9624213d1f9e";

/// A copy of scenarios/`name` in `dir`; returns its path.
std::string copy_scenario(const TempDir& dir, const std::string& name) {
  const std::string to = dir / fs::path(name).filename().string();
  fs::copy_file(fs::path(ALLOCSIM_SOURCE_DIR) / "scenarios" / name, to);
  return to;
}

/// The file names in `dir` (sorted; none when it does not exist).
std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// The lines of `text` up to the first empty one.
std::string head(const std::string& text) { return text.substr(0, text.find("\n\n") + 1); }

}  // namespace

TEST_CASE("corpus: a mutant run twice replays its stored trace on execution 0 with the same fingerprint",
          "[cli][corpus]") {
  TempDir dir;
  const std::string sc = copy_scenario(dir, "mutants/stale-last-out.json");
  const std::string corpus = dir / ".allocsim/corpus";
  const std::string entry = corpus + "/" + kEntry;
  const auto first = allocsim("run " + sc + " -n 2000");
  REQUIRE(first.code == 0);
  CHECK(first.text.find("corpus trace") == std::string::npos);  // nothing stored yet: nothing replayed
  CHECK_THAT(first.text, Catch::Contains("fingerprint: " + kFingerprint + "\norder block for " + sc +
                                         ": the one above (checked there too)\ntrace stored in the corpus: " + entry +
                                         "\nreplay minimal: allocsim replay " + entry + "\n"));
  CHECK(files_in(corpus) == std::vector<std::string>{kEntry});

  const auto second = allocsim("run " + sc + " -n 2000");
  REQUIRE(second.code == 0);
  CHECK(head(second.text) == "1 corpus trace replayed: 1 still violates (from " + corpus + ")\n  execution 0: " +
                                 kEntry + ": still violates shared-map-never-deleted (20 steps, fingerprint " +
                                 kFingerprint + ")\n    replay: allocsim replay " + entry + "\n");
  // The same violation found again is the same entry: nothing new is written.
  CHECK_THAT(second.text, Catch::Contains("trace already in the corpus: " + entry + "\n"));
  CHECK(files_in(corpus) == std::vector<std::string>{kEntry});
  // The printed replay command reads the entry back.
  const auto again = allocsim("replay " + entry);
  CHECK(again.code == 1);
  CHECK_THAT(again.text, Catch::Contains("fingerprint " + kFingerprint));

  // One execution does not find this race (2 in 2000 do); the stored trace alone meets the expectation.
  const auto one = allocsim("run " + sc + " -n 1");
  CHECK(one.code == 0);
  CHECK_THAT(one.text, Catch::Contains("  1 execution, 14 steps, 0 violating\n"));
  CHECK_THAT(one.text, Catch::EndsWith("expectation met: the expected violation was found\n"));
}

TEST_CASE("corpus: a stored violation fails a passing scenario, and only runs with the same mutants replay it",
          "[cli][corpus]") {
  TempDir dir;
  const std::string sc = copy_scenario(dir, "alloc-004-one-plan-two-claimants.json");
  REQUIRE(allocsim("run " + sc + " -n 2000 --mutant client-side-claim").code == 1);
  const auto stored = files_in(dir / ".allocsim/corpus");
  REQUIRE(stored.size() == 1);
  CHECK_THAT(stored[0], Catch::StartsWith("alloc-004-one-plan-two-claimants+client-side-claim."));
  CHECK_THAT(stored[0], Catch::EndsWith(".single-ownership.3acf08f2.trace.json"));
  // Without the mutant the entry is not this run's: nothing is replayed and the scenario passes.
  const auto plain = allocsim("run " + sc + " -n 300");
  CHECK(plain.code == 0);
  CHECK(plain.text.find("corpus trace") == std::string::npos);
  // With it, the entry fails the run even when the exploration itself finds nothing (-n 1).
  const auto one = allocsim("run " + sc + " -n 1 --mutant client-side-claim --seed 3");
  CHECK(one.code == 1);
  CHECK_THAT(one.text, Catch::StartsWith("1 corpus trace replayed: 1 still violates"));
  CHECK_THAT(one.text, Catch::Contains("  1 execution, 9 steps, 0 violating\n"));
  CHECK_THAT(one.text, Catch::EndsWith("expectation NOT met:\n  - expected no violation, but 1 execution violated "
                                       "single-ownership\n"));
}

TEST_CASE("corpus: after an edit the entry is re-found, after the fix it is stale, and prune removes it",
          "[cli][corpus]") {
  TempDir dir;
  const std::string sc = copy_scenario(dir, "mutants/stale-last-out.json");
  const std::string corpus = dir / ".allocsim/corpus";
  REQUIRE(allocsim("run " + sc + " -n 2000").code == 0);
  const std::string text = slurp(sc);
  spit(sc, text + "\n");  // a harmless change: the digest moves, the scenario does not
  const auto edited = allocsim("run " + sc + " -n 1 --no-corpus");
  CHECK(edited.code == 1);  // the exploration alone misses it in one execution
  const auto refound = allocsim("run " + sc + " -n 1");
  CHECK(refound.code == 0);
  const std::string refound_head = head(refound.text);
  CHECK_THAT(refound_head, Catch::StartsWith("1 corpus trace replayed: 0 still violate, 1 re-found (from " + corpus +
                                             ")\n  execution 0: " + kEntry +
                                             ": the scenario changed; re-found shared-map-never-deleted through its "
                                             "order (20 steps, fingerprint " +
                                             kFingerprint + ")\n    replay: allocsim replay " + sc +
                                             " --schedule "));  // the entry's order block, under DPOR: its full pin
                                                                // gives back the same execution
  // The replay line replays the re-found execution on the scenario as it is now, not the entry's old one.
  std::smatch line;
  REQUIRE(std::regex_search(refound_head, line, std::regex("replay: allocsim (replay \\S+ --schedule '[^']+')\n")));
  const auto again = allocsim(line[1].str());
  INFO(again.text);
  CHECK(again.code == 1);
  CHECK_THAT(again.text, Catch::Contains(": 20 steps, "));
  CHECK_THAT(again.text, Catch::Contains(", fingerprint " + kFingerprint + "\n"));

  // The defect is gone (the mutant removed from the file): the entry no longer violates, and is kept.
  const std::string mutant = "\"mutants\": [\n      \"stale-last-out\"\n    ]";
  REQUIRE(text.find(mutant) != std::string::npos);
  std::string fixed = text;
  fixed.replace(fixed.find(mutant), mutant.size(), "\"mutants\": []");
  spit(sc, fixed);
  const auto stale = allocsim("run " + sc + " -n 1");
  CHECK(stale.code == 1);
  CHECK(head(stale.text) == "1 corpus trace replayed: 0 still violate, 1 stale (from " + corpus + ")\n  " + kEntry +
                                ": stale: the scenario changed and its order no longer breaks "
                                "shared-map-never-deleted (kept; `allocsim corpus prune` removes it)\n");
  CHECK(files_in(corpus) == std::vector<std::string>{kEntry});

  const auto list = allocsim("corpus list " + dir.path.string());
  CHECK(list.code == 0);
  CHECK(list.text == "corpus " + corpus + ": 1 entry\n" + kEntry + "\n    scenario " + sc +
                         " (changed), shared-map-never-deleted, 20 steps\n");
  const std::string why = ": stale: " + sc + " changed and its order no longer violates shared-map-never-deleted\n";
  const auto dry = allocsim("corpus prune " + dir.path.string() + " --dry-run");
  CHECK(dry.code == 0);
  CHECK(dry.text == "would remove " + corpus + "/" + kEntry + why + "corpus " + corpus +
                        ": 1 of 1 entry would be removed (--dry-run), 0 kept\n");
  CHECK(files_in(corpus) == std::vector<std::string>{kEntry});
  const auto pruned = allocsim("corpus prune " + sc);
  CHECK(pruned.code == 0);
  CHECK(pruned.text ==
        "removed " + corpus + "/" + kEntry + why + "corpus " + corpus + ": 1 of 1 entry removed, 0 kept\n");
  CHECK(files_in(corpus).empty());
}

TEST_CASE("corpus: show prints the entry's trace, prune removes entries whose scenario is gone", "[cli][corpus]") {
  TempDir dir;
  const std::string sc = copy_scenario(dir, "mutants/stale-last-out.json");
  const std::string corpus = dir / ".allocsim/corpus";
  const std::string entry = corpus + "/" + kEntry;
  const auto first = allocsim("run " + sc + " -n 2000");
  REQUIRE(first.code == 0);
  const auto show = allocsim("corpus show " + entry);
  CHECK(show.code == 0);
  // The same table and state that `run` printed, between the header and the replay line.
  // (up to the line that checks the order block on the file run, which only `run` prints)
  const size_t from = first.text.find("violation: "), to = first.text.find("order block for " + sc);
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  CHECK(show.text == "corpus entry " + entry + "\nscenario " + sc + " (current)\n" +
                         first.text.substr(from, to - from) + "replay: allocsim replay " + entry + "\n");
  CHECK(allocsim("corpus list " + sc).text == "corpus " + corpus + ": 1 entry for stale-last-out\n" + kEntry +
                                                  "\n    scenario " + sc +
                                                  " (current), shared-map-never-deleted, 20 steps\n");
  // A current entry is kept.
  CHECK(allocsim("corpus prune " + corpus).text == "corpus " + corpus + ": 0 of 1 entry removed, 1 kept\n");
  fs::remove(sc);
  CHECK(allocsim("corpus list " + corpus).text == "corpus " + corpus + ": 1 entry\n" + kEntry + "\n    scenario " + sc +
                                                      " (gone), shared-map-never-deleted, 20 steps\n");
  CHECK(allocsim("corpus prune " + corpus).text == "removed " + entry + ": its scenario file " + sc +
                                                       " is gone\ncorpus " + corpus +
                                                       ": 1 of 1 entry removed, 0 kept\n");
  CHECK(files_in(corpus).empty());
}

TEST_CASE("corpus: --corpus DIR, --no-corpus, and nothing lands in the current directory", "[cli][corpus]") {
  TempDir dir;
  const std::string sc = copy_scenario(dir, "mutants/stale-last-out.json");
  fs::create_directory(dir / "cwd");
  const std::string bin = ALLOCSIM_BINARY;
  const auto none =
      cli_test::capture("cd " + (dir / "cwd") + " && " + bin + " run " + sc + " -n 2000 --no-corpus 2>&1");
  CHECK(none.code == 0);
  CHECK_THAT(none.text, Catch::Contains("minimal trace not written (--no-corpus; --trace-out FILE writes it)\n"));
  CHECK(files_in(dir.path.string()) == std::vector<std::string>{"cwd", "stale-last-out.json"});
  const auto mine = cli_test::capture("cd " + (dir / "cwd") + " && " + bin + " run " + sc + " -n 2000 --corpus " +
                                      (dir / "mine") + " 2>&1");
  CHECK(mine.code == 0);
  CHECK(files_in(dir / "mine") == std::vector<std::string>{kEntry});
  const auto beside = cli_test::capture("cd " + (dir / "cwd") + " && " + bin + " run " + sc + " -n 2000 2>&1");
  CHECK(beside.code == 0);
  CHECK(files_in(dir / ".allocsim/corpus") == std::vector<std::string>{kEntry});
  CHECK(files_in(dir / "cwd").empty());  // the old default wrote the trace here
  // --trace-out writes exactly there and leaves the corpus alone; a raw trace never enters the corpus.
  REQUIRE(
      allocsim("run " + sc + " -n 2000 --corpus " + (dir / "other") + " --trace-out " + (dir / "t.trace.json")).code ==
      0);
  CHECK(fs::exists(dir / "t.trace.json"));
  const auto raw = allocsim("run " + sc + " -n 2000 --no-shrink --corpus " + (dir / "other"));
  CHECK_THAT(raw.text, Catch::Contains("trace not written (a raw trace is not kept in the corpus; --trace-out FILE "
                                       "writes it)\n"));
  CHECK(files_in(dir / "other").empty());
}

TEST_CASE("corpus: sweep replays each scenario's entries first, in its text and JSON reports", "[cli][corpus]") {
  TempDir dir;
  const std::string sc = copy_scenario(dir, "mutants/stale-last-out.json");
  REQUIRE(allocsim("run " + sc + " -n 2000").code == 0);
  const auto sweep = allocsim("sweep " + dir.path.string() + " --report-json " + (dir / "r.json"));
  CHECK(sweep.code == 0);
  const std::string entry = dir / (".allocsim/corpus/" + kEntry);
  CHECK_THAT(sweep.text, Catch::Contains(" violating [shared-map-never-deleted: 48]\n     1 corpus trace replayed: 1 "
                                         "still violates\n       execution 0: " +
                                         kEntry + ": still violates shared-map-never-deleted (20 steps, fingerprint " +
                                         kFingerprint + ")\n         replay: allocsim replay " + entry + "\n"));
  const auto report = nlohmann::json::parse(slurp(dir / "r.json"));
  CHECK(report["scenarios"][0]["corpus"] == nlohmann::json{{"replayed", 1},
                                                           {"still_violating", 1},
                                                           {"entries",
                                                            {{{"path", entry},
                                                              {"status", "violates"},
                                                              {"invariant", "shared-map-never-deleted"},
                                                              {"via", "schedule"},
                                                              {"steps", 20},
                                                              {"fingerprint", kFingerprint}}}}});
  const auto off = allocsim("sweep " + dir.path.string() + " --no-corpus --report-json " + (dir / "off.json"));
  CHECK(off.text.find("corpus trace") == std::string::npos);
  CHECK_FALSE(nlohmann::json::parse(slurp(dir / "off.json"))["scenarios"][0].contains("corpus"));
}

TEST_CASE("corpus: bad paths are input errors naming the path", "[cli][corpus]") {
  TempDir dir;
  spit(dir / "file.txt", "x");
  spit(dir / "x.trace.json", "{}");
  const std::string sc = copy_scenario(dir, "mutants/stale-last-out.json");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"corpus list " + (dir / "nope"), dir / "nope" + ": no such corpus folder, scenario folder or scenario file"},
      {"corpus list " + (dir / "file.txt"),
       dir / "file.txt" + ": not a scenario file (*.json but not *.trace.json), scenario folder or corpus folder"},
      {"corpus prune " + (dir / "file.txt"), dir / "file.txt" + ": not a scenario file"},
      {"corpus list " + (dir / "x.trace.json"), dir / "x.trace.json" + ": not a scenario file"},
      {"corpus show " + (dir / "nope.trace.json"), dir / "nope.trace.json" + ": no such corpus entry"},
      {"corpus show " + (dir / "file.txt"), dir / "file.txt"},
      {"corpus frob " + dir.path.string(), "unknown subcommand \"frob\""},
      {"corpus list " + dir.path.string() + " --dry-run", "--dry-run: only prune takes it"},
      {"run " + sc + " -n 2000 --corpus " + (dir / "file.txt"), dir / "file.txt" + ": not a folder"},
  };
  for (const auto& [args, message] : cases) {
    INFO(args);
    const auto r = allocsim(args);
    CHECK(r.code == 2);
    CHECK_THAT(r.text, Catch::Contains(message));
  }
}

TEST_CASE("corpus: the converge-bound scenario's minimal trace is stored and replays its violation", "[cli][corpus]") {
  // alloc-021-converge-bound-below-apply: its shrunk trace used to embed the scenario without converge_seconds,
  // so it replayed under the default bound with no violation and the corpus refused it. It keeps it now.
  TempDir dir;
  const std::string sc = copy_scenario(dir, "alloc-021-converge-bound-below-apply.json");
  const auto r = allocsim("run " + sc + " -n 2000");
  CHECK(r.code == 0);
  CHECK_THAT(r.text, !Catch::Contains("minimal trace not stored"));
  const auto entries = files_in(dir / ".allocsim/corpus");
  REQUIRE(entries.size() == 1);
  const auto replayed = allocsim("replay " + (dir / (".allocsim/corpus/" + entries.front())));
  CHECK(replayed.code == 1);
  CHECK_THAT(replayed.text, Catch::Contains("violation: geometry-converges"));
}

TEST_CASE("corpus: list of a folder without .allocsim/corpus says where corpora are kept", "[cli][corpus]") {
  TempDir dir;
  copy_scenario(dir, "mutants/stale-last-out.json");
  const auto bare = allocsim("corpus list " + dir.path.string());
  CHECK(bare.code == 0);
  CHECK(bare.text == "corpus " + dir.path.string() + ": 0 entries\n  " + dir.path.string() +
                         " has no .allocsim/corpus folder: a run stores its failures beside the scenario file, in "
                         "SCENARIO_DIR/.allocsim/corpus (subfolders are not searched)\n");
  // With the folder there (empty), the count alone.
  fs::create_directories(dir.path / ".allocsim" / "corpus");
  const std::string corpus = (dir.path / ".allocsim" / "corpus").string();
  CHECK(allocsim("corpus list " + dir.path.string()).text == "corpus " + corpus + ": 0 entries\n");
  CHECK(allocsim("corpus list " + corpus).text == "corpus " + corpus + ": 0 entries\n");  // the corpus folder itself
}

TEST_CASE("corpus: list names the .json files of a corpus folder that are not entries, which no run replays",
          "[cli][corpus]") {
  TempDir dir;
  copy_scenario(dir, "mutants/stale-last-out.json");
  const fs::path corpus = dir.path / ".allocsim" / "corpus";
  fs::create_directories(corpus);
  for (const char* name : {"b.json", "a.json", "notes.txt"}) spit((corpus / name).string(), "{bad");
  const std::string c = corpus.string();
  const auto two = allocsim("corpus list " + dir.path.string());
  CHECK(two.code == 0);
  CHECK(two.text == "corpus " + c +
                        ": 0 entries\n  ignored: 2 .json files not named as an entry "
                        "(STEM.DIGEST12.INVARIANT.HASH8.trace.json), never replayed: a.json, b.json\n");
  for (const char* name : {"c.json", "d.json", "e.json", "f.json"}) spit((corpus / name).string(), "{}");
  CHECK(allocsim("corpus list " + c).text == "corpus " + c +
                                                 ": 0 entries\n  ignored: 6 .json files not named as an entry "
                                                 "(STEM.DIGEST12.INVARIANT.HASH8.trace.json), never replayed: a.json, "
                                                 "b.json, c.json, d.json, e.json, and 1 more\n");
  // A scenario file's listing is about its own entries only.
  CHECK(allocsim("corpus list " + (dir.path / "stale-last-out.json").string()).text ==
        "corpus " + c + ": 0 entries for stale-last-out\n");
}

TEST_CASE("corpus: list of a scenario file with no corpus yet says the folder does not exist", "[cli][corpus]") {
  TempDir dir;
  copy_scenario(dir, "mutants/stale-last-out.json");
  const std::string file = (dir.path / "stale-last-out.json").string();
  const std::string corpus = (dir.path / ".allocsim" / "corpus").string();
  const auto none = allocsim("corpus list " + file);
  CHECK(none.code == 0);
  CHECK(
      none.text ==
      "corpus " + corpus +
          ": 0 entries for stale-last-out\n  (the folder does not exist yet: a run creates it when it stores its first "
          "failure)\n");
  fs::create_directories(dir.path / ".allocsim" / "corpus");
  CHECK(allocsim("corpus list " + file).text == "corpus " + corpus + ": 0 entries for stale-last-out\n");
}

TEST_CASE("corpus: a steps-bounded violation found under --max-steps is replayed only under that bound",
          "[cli][corpus]") {
  TempDir dir;
  const std::string sc = copy_scenario(dir, "alloc-004-one-plan-two-claimants.json");
  const std::string corpus = dir / ".allocsim/corpus";
  // Three steps end no execution of this scenario: every one is steps-bounded.
  const auto bounded = allocsim("run " + sc + " -n 5 --max-steps 3");
  REQUIRE(bounded.code == 1);
  const auto stored = files_in(corpus);
  REQUIRE(stored.size() == 1);
  CHECK_THAT(stored[0], Catch::StartsWith("alloc-004-one-plan-two-claimants~max-steps-3."));
  CHECK_THAT(stored[0], Catch::Contains(".steps-bounded."));
  // The scenario's own bound: the entry is not this run's, nothing is replayed, and the scenario passes.
  const auto plain = allocsim("run " + sc + " -n 50");
  CHECK(plain.code == 0);
  CHECK(plain.text.find("corpus trace") == std::string::npos);
  // Another bound is another run: not replayed either.
  CHECK(allocsim("run " + sc + " -n 50 --max-steps 1000").text.find("corpus trace") == std::string::npos);
  // The same bound replays it first.
  const auto again = allocsim("run " + sc + " -n 1 --max-steps 3");
  CHECK(again.code == 1);
  CHECK_THAT(again.text, Catch::StartsWith("1 corpus trace replayed: 1 still violates"));
  // `corpus list` of the scenario counts the entry as the scenario's.
  const auto list = allocsim("corpus list " + sc);
  CHECK(list.code == 0);
  CHECK_THAT(list.text, Catch::Contains(stored[0]));
}

TEST_CASE("corpus: a steps-bounded violation found under the scenario's own max_steps is replayed only under it",
          "[cli][corpus]") {
  TempDir dir;
  const std::string sc = dir / "tight.json";
  nlohmann::json doc = nlohmann::json::parse(
      slurp(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/alloc-004-one-plan-two-claimants.json"));
  doc["max_steps"] = 3;
  spit(sc, doc.dump(2));
  const std::string corpus = dir / ".allocsim/corpus";
  REQUIRE(allocsim("run " + sc + " -n 5").code == 1);
  const auto stored = files_in(corpus);
  REQUIRE(stored.size() == 1);
  CHECK_THAT(stored[0], Catch::StartsWith("tight.") && Catch::Contains(".steps-bounded."));  // the plain key
  // Under the scenario's bound it is replayed; --max-steps 3 is that bound too.
  CHECK_THAT(allocsim("run " + sc + " -n 1").text, Catch::StartsWith("1 corpus trace replayed: 1 still violates"));
  CHECK_THAT(allocsim("run " + sc + " -n 1 --max-steps 3").text, Catch::StartsWith("1 corpus trace replayed"));
  // Under a larger bound the executions end: the entry is not replayed, and the scenario passes.
  const auto larger = allocsim("run " + sc + " -n 50 --max-steps 10000");
  CHECK(larger.code == 0);
  CHECK(larger.text.find("corpus trace") == std::string::npos);
  const auto sweep = allocsim("sweep " + sc + " --max-steps 10000");
  CHECK(sweep.code == 0);
  CHECK(sweep.text.find("corpus trace") == std::string::npos);
}
