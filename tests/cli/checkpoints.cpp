// Checkpoints an earlier build of this version wrote still resume (a nightly pod restarted on a rebuilt binary goes on
// from the file the old one left; a checkpoint of another version is refused by design, so each fixture is stamped with
// this build's version when copied: what the fixtures pin is the format); each campaign refuses another campaign's
// checkpoint, and all three report a bad one alike (sim/campaign/checkpoint.h): exit 2, "--resume: FILE: POINTER:
// MESSAGE", nothing written.
//
// The files in tests/cli/checkpoints/ were written by allocsim 0.1.0 (git 38953a5), run from the repository
// root, and are kept as they came out:
//   sweep-dfs.checkpoint.json     sweep tests/cli/checkpoints/release.json --no-corpus --reduction none
//                                 --checkpoint F, SIGINT after 0.15 s: unit 0 paused inside (a dfs position)
//   sweep-random.checkpoint.json  sweep tests/cli/checkpoints/claim.json --no-corpus --strategy random -n 40000
//                                 --seed 7 --jobs 2 --checkpoint F, SIGINT after 0.2 s: units 0-7 done, unit 8
//                                 paused at an execution index
//   swarm.checkpoint.json         swarm --seed 7 --scenarios 4 --per-scenario 30 --mutant client-side-claim
//                                 --out DIR --checkpoint F: two findings, with their files' text (written again
//                                 after git 395cd4d, when the generator's release-listing feature changed one of
//                                 the four scenarios it stores, and again when its sweeper feature did: a
//                                 checkpoint holds results, not what made them; seed 7 since the shared-owner
//                                 feature, which made seed 4's four scenarios find F2 before the mutant)
//   swarm-before-unjudged.checkpoint.json  swarm.checkpoint.json without the summary's "unjudged" counts, as a
//                                 summary was written before they existed
//   selfcheck.checkpoint.json     selfcheck --seed 5 --scenarios 4 --per-scenario 10 --checkpoint F (written again
//                                 with the sweeper feature, as swarm.checkpoint.json)
//   sweep-states.checkpoint.json  (written later, at git 0f8e793) sweep tests/cli/checkpoints/retry.json --no-corpus
//                                 --reduction states --checkpoint F, SIGINT after 0.9 s: units 0-10 of 20 done,
//                                 none partial (a state-caching unit is checkpointed only when done,
//                                 Strategy::resumes_exactly)
// claim.json, release.json and retry.json are copies of scenarios/alloc-004-simultaneous-claim.json,
// scenarios/alloc-005-both-release.json and scenarios/alloc-023-stale-inventory-retry.json: a sweep checkpoint names its scenarios by path and by the digest of their
// bytes, so the fixtures keep their own. Resuming must give the report of an uninterrupted run with the same
// flags (swarm and selfcheck: extended from the checkpoint's 4 scenarios to 6).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <string>

#include "tests/cli/support.h"

using cli_test::allocsim;
using cli_test::read_json;
using cli_test::require_same_folder;
using cli_test::slurp;
using cli_test::TempDir;

namespace {

const std::string kDir = "tests/cli/checkpoints/";

/// The version this build writes into its files (`allocsim --version`: "allocsim X.Y.Z (git ...)").
std::string tool_version() {
  const std::string v = allocsim("--version").text;
  std::smatch m;
  REQUIRE(std::regex_search(v, m, std::regex("^allocsim ([^ \n]+)")));
  return m[1];
}

/// A copy of fixture `name` in `dir`, stamped with this build's version (see the file comment; resuming keeps
/// checkpointing into the file it resumed).
std::string copy_fixture(const TempDir& dir, const std::string& name) {
  const std::string to = dir / name;
  const std::string text = slurp(std::string(ALLOCSIM_SOURCE_DIR) + "/" + kDir + name);
  std::smatch m;  // the value of the first "tool_version" key, spliced by position
  REQUIRE(std::regex_search(text, m, std::regex("\"tool_version\": ?\"([^\"]*)\"")));
  const std::string stamped = text.substr(0, m.position(1)) + tool_version() + text.substr(m.position(1) + m.length(1));
  std::ofstream(to, std::ios::binary) << stamped;
  return to;
}

/// Checkpoint `from`, read, changed by `edit` and written to `dir`/`name` (key-sorted, as another JSON tool might
/// write it); returns that path.
std::string edited_copy(const TempDir& dir, const std::string& from, const std::string& name,
                        const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json doc = read_json(from);
  edit(doc);
  const std::string to = dir / name;
  std::ofstream(to, std::ios::binary) << doc.dump(1);
  return to;
}

/// `args` run straight and resumed from fixture `name` (with --jobs `jobs`): the same exit code and report.
void sweep_resumes(const std::string& args, const std::string& name, const std::string& jobs) {
  TempDir dir;
  const auto straight = allocsim("sweep " + args + " --report-json " + (dir / "straight.json"));
  INFO(straight.text);
  REQUIRE(straight.code <= 1);
  const auto resumed = allocsim("sweep " + args + " --jobs " + jobs + " --resume " + copy_fixture(dir, name) +
                                " --report-json " + (dir / "resumed.json"));
  INFO(resumed.text);
  CHECK(resumed.code == straight.code);
  REQUIRE(!slurp(dir / "straight.json").empty());
  CHECK(slurp(dir / "resumed.json") == slurp(dir / "straight.json"));
}

}  // namespace

TEST_CASE("checkpoints: a sweep resumes a dfs position an earlier version saved", "[checkpoint]") {
  const auto ck = read_json(std::string(ALLOCSIM_SOURCE_DIR) + "/" + kDir + "sweep-dfs.checkpoint.json");
  REQUIRE(ck["scenarios"][0]["done"].empty());
  REQUIRE(ck["scenarios"][0]["partial"]["0"]["state"].is_object());
  sweep_resumes(kDir + "release.json --no-corpus --reduction none", "sweep-dfs.checkpoint.json", "2");
}

TEST_CASE("checkpoints: a sweep resumes finished units and an execution index an earlier version saved",
          "[checkpoint]") {
  const auto ck = read_json(std::string(ALLOCSIM_SOURCE_DIR) + "/" + kDir + "sweep-random.checkpoint.json");
  REQUIRE(ck["scenarios"][0]["done"].size() == 8);
  REQUIRE(ck["scenarios"][0]["partial"]["8"]["state"] == nlohmann::json{{"next", 20551}});
  sweep_resumes(kDir + "claim.json --no-corpus --strategy random -n 40000 --seed 7", "sweep-random.checkpoint.json",
                "1");
}

TEST_CASE("checkpoints: a state-caching sweep keeps its finished units and runs the others again", "[checkpoint]") {
  const auto ck = read_json(std::string(ALLOCSIM_SOURCE_DIR) + "/" + kDir + "sweep-states.checkpoint.json");
  REQUIRE(ck["config"]["reduction"] == "states");
  REQUIRE(ck["scenarios"][0]["done"].size() == 11);
  REQUIRE(ck["scenarios"][0]["partial"].empty());
  sweep_resumes(kDir + "retry.json --no-corpus --reduction states", "sweep-states.checkpoint.json", "2");
}

TEST_CASE("checkpoints: a swarm extends a run an earlier version checkpointed", "[checkpoint]") {
  TempDir dir, straight, resumed;
  const std::string args = "swarm --seed 7 --scenarios 6 --per-scenario 30 --mutant client-side-claim ";
  const auto a = allocsim(args + "--out " + straight.path.string());
  INFO(a.text);
  REQUIRE(a.code == 1);  // the mutant's findings
  const auto b =
      allocsim(args + "--resume " + copy_fixture(dir, "swarm.checkpoint.json") + " --out " + resumed.path.string());
  INFO(b.text);
  CHECK(b.code == 1);
  REQUIRE(read_json(straight / "summary.json")["scenarios"] == 6);
  require_same_folder(straight, resumed);
}

TEST_CASE("checkpoints: a swarm checkpoint's finding files are results: edited, cut short or swapped, refused",
          "[checkpoint]") {
  // Each finding's two files are copied into the resumed run's folder as they are, so they are checked as the run
  // that kept them checked them (docs/SWARM.md, "Checkpoint and resume"): exit 2 naming /files/I/..., nothing written.
  TempDir dir;
  const nlohmann::json original = read_json(copy_fixture(dir, "swarm.checkpoint.json"));
  REQUIRE(original["files"].size() == 2);  // files[0]: the mutant's own single-ownership finding
  using Edit = std::function<void(nlohmann::json & files)>;
  const auto trace_edit = [](const std::function<void(nlohmann::json&)>& f) {
    return [f](nlohmann::json& files) {
      nlohmann::json t = nlohmann::json::parse(files[0]["trace"].get<std::string>());
      f(t);
      files[0]["trace"] = t.dump(1);
    };
  };
  struct Case {
    Edit edit;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](nlohmann::json& files) {
         std::string text = files[0]["scenario"];
         text.replace(text.find("\"actors\""), 8, "\"actorz\"");
         files[0]["scenario"] = text;
       },
       "/files/0/scenario: the finding's scenario does not load (at /actorz): unknown key \"actorz\""},
      {[](nlohmann::json& files) { files[0]["trace"] = files[0]["trace"].get<std::string>().substr(0, 300); },
       "/files/0/trace: the finding's trace does not read (at its root): invalid JSON"},
      {trace_edit([](nlohmann::json& t) { t["steps"] = "none"; }),
       "/files/0/trace: the finding's trace does not read (at /steps): expected an array"},
      // Files swapped between two findings of one invariant: the scenario carries another finding's name.
      {[](nlohmann::json& files) {
         nlohmann::json sc = nlohmann::json::parse(files[0]["scenario"].get<std::string>());
         sc["name"] = "single-ownership-00000000";
         files[0]["scenario"] = sc.dump(2) + "\n";
       },
       "/files/0/scenario: the finding's scenario is another finding's (at /name): it is named "
       "\"single-ownership-00000000\", and the summary's finding is \"single-ownership-7f08c811\""},
      {[](nlohmann::json& files) {
         nlohmann::json sc = nlohmann::json::parse(files[0]["scenario"].get<std::string>());
         sc["description"] = "edited";
         files[0]["scenario"] = sc.dump(2) + "\n";
       },
       "/files/0/trace: the finding's trace is not its scenario's (at /scenario/digest)"},
      {trace_edit([](nlohmann::json& t) { t["violation"]["invariant"] = "no-double-grant"; }),
       "/files/0/trace: the finding's trace is not its finding's (at /violation): the summary says the finding "
       "violates single-ownership, the trace says no-double-grant"},
      {trace_edit([](nlohmann::json& t) { t["fingerprint"] = "0123456789abcdef"; }),
       "/files/0/trace: the finding's trace does not replay against its scenario (at /steps): the end: fingerprint "
       "0123456789abcdef"},
  };
  for (const Case& c : cases) {
    nlohmann::json tampered = original;
    c.edit(tampered["files"]);
    const std::string path = dir / "tampered.json";
    std::ofstream(path, std::ios::binary) << tampered.dump(1);
    TempDir out;
    const auto r = allocsim("swarm --seed 7 --scenarios 6 --per-scenario 30 --mutant client-side-claim --resume " +
                            path + " --out " + (out / "new"));
    INFO(r.text);
    CHECK(r.code == 2);
    CHECK_THAT(r.text, Catch::Contains("--resume: " + path + ": " + c.message));
    CHECK(!std::filesystem::exists(out / "new"));  // not even the --out folder
  }
}

TEST_CASE(
    "checkpoints: a swarm checkpoint carries the digest of its generated scenarios, and refuses another "
    "generator's",
    "[checkpoint]") {
  // A resume by a binary whose generator draws other scenarios would mix two generators' results; the digest of
  // the scenarios done tells them apart (swarm_report.h, "Checkpoint"). The fixture, written before the key
  // existed, still resumes (the test above).
  TempDir dir, one, two, three;
  const std::string args = "swarm --seed 4 --per-scenario 30 ";
  const std::string cp = dir / "cp.json", straight = dir / "straight.json";
  REQUIRE(allocsim(args + "--scenarios 4 --checkpoint " + cp + " --out " + one.path.string()).code <= 1);
  const std::string four = read_json(cp)["generated"];
  CHECK(std::regex_match(four, std::regex("[0-9a-f]{16}")));
  // Resumed to 6, its checkpoint's digest is the one a straight run of 6 writes.
  REQUIRE(allocsim(args + "--scenarios 6 --resume " + cp + " --out " + two.path.string()).code <= 1);
  REQUIRE(allocsim(args + "--scenarios 6 --checkpoint " + straight + " --out " + three.path.string()).code <= 1);
  CHECK(read_json(cp)["generated"] == read_json(straight)["generated"]);
  CHECK(read_json(cp)["generated"] != four);
  // Another digest: refused, naming the key, nothing written.
  const std::string bad =
      edited_copy(dir, straight, "other.json", [](nlohmann::json& d) { d["generated"] = "0123456789abcdef"; });
  TempDir out;
  const auto r = allocsim(args + "--scenarios 8 --resume " + bad + " --out " + (out / "new"));
  INFO(r.text);
  CHECK(r.code == 2);
  CHECK_THAT(r.text, Catch::Contains("--resume: " + bad +
                                     ": /generated: the checkpoint's 6 scenarios have digest 0123456789abcdef, "
                                     "and this allocsim generates them with digest " +
                                     read_json(straight)["generated"].get<std::string>() + ": its generator changed"));
  CHECK(!std::filesystem::exists(out / "new"));
  // A count of scenarios this run cannot have reached is refused before any is generated again.
  const std::string far =
      edited_copy(dir, straight, "many.json", [](nlohmann::json& d) { d["summary"]["scenarios"] = 100000000; });
  const auto m = allocsim(args + "--scenarios 8 --resume " + far + " --out " + out.path.string());
  INFO(m.text);
  CHECK(m.code == 2);
  CHECK_THAT(m.text, Catch::Contains("--resume: " + far +
                                     ": /summary/scenarios: 100000000 scenarios, more than this run has (8 of "
                                     "--scenarios 8)"));
}

TEST_CASE("checkpoints: a selfcheck checkpoint carries the digest of its scenarios, and refuses others",
          "[checkpoint]") {
  TempDir dir;
  const std::string args = "selfcheck --seed 5 --per-scenario 10 ";
  const std::string cp = dir / "cp.json", straight = dir / "straight.json";
  REQUIRE(allocsim(args + "--scenarios 4 --checkpoint " + cp).code == 0);
  REQUIRE(allocsim(args + "--scenarios 6 --resume " + cp).code == 0);
  REQUIRE(allocsim(args + "--scenarios 6 --checkpoint " + straight).code == 0);
  const std::string six = read_json(straight)["generated"];
  CHECK(std::regex_match(six, std::regex("[0-9a-f]{16}")));
  CHECK(read_json(cp)["generated"] == six);
  const std::string bad =
      edited_copy(dir, straight, "other.json", [](nlohmann::json& d) { d["generated"] = "0123456789abcdef"; });
  const auto r = allocsim(args + "--scenarios 8 --resume " + bad + " --report-json " + (dir / "r.json"));
  INFO(r.text);
  CHECK(r.code == 2);
  CHECK_THAT(r.text, Catch::Contains("--resume: " + bad +
                                     ": /generated: the checkpoint's 6 scenarios have digest 0123456789abcdef, and "
                                     "this run's have " +
                                     six + ": the generator or the scenario files changed since"));
  CHECK(!std::filesystem::exists(dir / "r.json"));
  // Refused with --out (part of the config, so refused for that too): not even the --out folder is created.
  CHECK(allocsim(args + "--scenarios 8 --resume " + bad + " --out " + (dir / "new")).code == 2);
  CHECK(!std::filesystem::exists(dir / "new"));
  // The config is compared as a JSON value: its keys in another order (another JSON tool rewrote the file) are the
  // same config.
  nlohmann::json reordered = read_json(cp);
  nlohmann::ordered_json config;
  const nlohmann::json& was = reordered["report"]["config"];
  std::vector<std::string> keys;
  for (auto it = was.begin(); it != was.end(); ++it) keys.push_back(it.key());
  for (auto k = keys.rbegin(); k != keys.rend(); ++k) config[*k] = was[*k];
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(read_json(cp).dump());
  doc["report"]["config"] = config;
  const std::string again = dir / "reordered.json";
  std::ofstream(again, std::ios::binary) << doc.dump(1);
  REQUIRE(doc.dump().find(config.dump()) != std::string::npos);
  CHECK(allocsim(args + "--scenarios 6 --resume " + again).code == 0);
}

TEST_CASE("checkpoints: a swarm resumed from a checkpoint without unjudged counts says they were not counted",
          "[checkpoint]") {
  // Written before summaries counted the scenarios a check was left unjudged in: its 4 scenarios' counts are
  // unknown, so the run does not print counts that would miss them.
  TempDir dir, out;
  const auto r = allocsim("swarm --seed 7 --scenarios 6 --per-scenario 30 --mutant client-side-claim --resume " +
                          copy_fixture(dir, "swarm-before-unjudged.checkpoint.json") + " --out " + out.path.string());
  INFO(r.text);
  CHECK(r.code == 1);
  CHECK_THAT(r.text, Catch::Contains("\n  not judged: not counted (this run resumed or merged a summary written "
                                     "before the count)\n"));
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["scenarios"] == 6);
  CHECK(summary["unjudged"].is_null());
}

TEST_CASE("checkpoints: a selfcheck extends a run an earlier version checkpointed", "[checkpoint]") {
  TempDir dir;
  const std::string args = "selfcheck --seed 5 --scenarios 6 --per-scenario 10 ";
  const auto a = allocsim(args + "--report-json " + (dir / "straight.json"));
  INFO(a.text);
  REQUIRE(a.code == 0);
  const auto b = allocsim(args + "--resume " + copy_fixture(dir, "selfcheck.checkpoint.json") + " --report-json " +
                          (dir / "resumed.json"));
  INFO(b.text);
  CHECK(b.code == 0);
  REQUIRE(read_json(dir / "straight.json")["scenarios"] == 6);
  CHECK(slurp(dir / "resumed.json") == slurp(dir / "straight.json"));
}

TEST_CASE("checkpoints: each campaign refuses another campaign's checkpoint, naming the file and /schema",
          "[checkpoint]") {
  struct Case {
    std::string command, fixture, schema;
  };
  const std::string sweep = "sweep " + kDir + "claim.json --no-corpus --resume ";
  const std::string swarm = "swarm --seed 7 --scenarios 6 --per-scenario 30 --mutant client-side-claim --resume ";
  const std::string selfcheck = "selfcheck --seed 5 --scenarios 6 --per-scenario 10 --resume ";
  for (const Case& c :
       {Case{sweep, "swarm.checkpoint.json", "sweep"}, Case{sweep, "selfcheck.checkpoint.json", "sweep"},
        Case{swarm, "sweep-dfs.checkpoint.json", "swarm"}, Case{swarm, "selfcheck.checkpoint.json", "swarm"},
        Case{selfcheck, "sweep-random.checkpoint.json", "selfcheck"},
        Case{selfcheck, "swarm.checkpoint.json", "selfcheck"}}) {
    TempDir dir;
    const std::string ck = copy_fixture(dir, c.fixture);
    const std::string before = slurp(ck);
    const auto r = allocsim(c.command + ck + (c.schema == "swarm" ? " --out " + (dir / "out") : ""));
    INFO(r.text);
    CHECK(r.code == 2);
    const std::string written = read_json(ck)["schema"];
    CHECK_THAT(r.text, Catch::Contains("allocsim: --resume: " + ck + ": /schema: expected \"allocsim/" + c.schema +
                                       "-checkpoint/v1\", got \"" + written + "\""));
    CHECK(slurp(ck) == before);  // refused before anything is written
  }
}

TEST_CASE(
    "checkpoints: a fresh campaign's --checkpoint never overwrites another campaign's checkpoint or any other "
    "file",
    "[checkpoint]") {
  struct Case {
    std::string command, campaign, fixture, other;
  };
  const std::string sweep = "sweep " + kDir + "claim.json --no-corpus --checkpoint ";
  const std::string swarm = "swarm --seed 7 --scenarios 2 --per-scenario 10 --checkpoint ";
  const std::string selfcheck = "selfcheck --seed 5 --scenarios 2 --per-scenario 5 --checkpoint ";
  for (const Case& c : {Case{sweep, "sweep", "swarm.checkpoint.json", "swarm"},
                        Case{swarm, "swarm", "sweep-dfs.checkpoint.json", "sweep"},
                        Case{selfcheck, "selfcheck", "swarm.checkpoint.json", "swarm"}}) {
    TempDir dir;
    const std::string ck = copy_fixture(dir, c.fixture);
    const std::string before = slurp(ck);
    const std::string out = c.campaign == "swarm" ? " --out " + (dir / "out") : "";
    const auto r = allocsim(c.command + ck + out);
    INFO(r.text);
    CHECK(r.code == 2);
    CHECK_THAT(r.text, Catch::Contains("allocsim: --checkpoint " + ck + ": holds a " + c.other +
                                       " checkpoint (allocsim/" + c.other + "-checkpoint/v1), which this " +
                                       c.campaign + " would overwrite: give another name, or remove it"));
    CHECK(slurp(ck) == before);
    // Any other file is kept too.
    const std::string notes = dir / "notes.txt";
    cli_test::spit(notes, "not a checkpoint\n");
    const auto n = allocsim(c.command + notes + out);
    CHECK(n.code == 2);
    CHECK_THAT(n.text,
               Catch::Contains("--checkpoint " + notes + ": exists and is not a " + c.campaign + " checkpoint"));
    CHECK(slurp(notes) == "not a checkpoint\n");
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
  }
  // The campaign's own checkpoint is started over by a fresh run (--resume continues it), and an empty file (as
  // `mktemp` leaves it) is taken.
  TempDir dir;
  const std::string ck = dir / "sweep.json";
  cli_test::spit(ck, "");
  REQUIRE(allocsim(sweep + ck).code == 0);
  CHECK(read_json(ck)["schema"] == "allocsim/sweep-checkpoint/v1");
  CHECK(allocsim(sweep + ck).code == 0);
  CHECK(read_json(ck)["schema"] == "allocsim/sweep-checkpoint/v1");
}

namespace {

/// Each campaign resuming from `text` (written to a file in `dir`) exits 2 with "--resume: FILE: `message`"
/// (`message` with {} for the campaign's name) and leaves the file as it was.
void every_campaign_refuses(const std::string& text, const std::string& message) {
  for (const auto& [campaign, args] :
       std::vector<std::pair<std::string, std::string>>{{"sweep", "sweep " + kDir + "claim.json --no-corpus"},
                                                        {"swarm", "swarm --seed 4 --scenarios 6 --per-scenario 30"},
                                                        {"selfcheck",
                                                         "selfcheck --seed 5 --scenarios 6 --per-scenario 10"}}) {
    TempDir dir;
    const std::string ck = dir / "ck.json";
    cli_test::spit(ck, text);
    const auto r = allocsim(args + " --resume " + ck + (campaign == "swarm" ? " --out " + (dir / "out") : ""));
    INFO(campaign << "\n" << r.text);
    CHECK(r.code == 2);
    std::string expected = message;
    if (const size_t at = expected.find("{}"); at != std::string::npos) expected.replace(at, 2, campaign);
    CHECK_THAT(r.text, Catch::Contains("allocsim: --resume: " + ck + ": " + expected));
    CHECK(slurp(ck) == text);
  }
}

/// The sweep-random fixture with `edit` applied, and the message resuming from it gives. The file is left as it
/// was unless `late` (a saved position is read only when its unit runs, after the checkpoint was first written).
std::string sweep_refuses(void (*edit)(nlohmann::json&), bool late = false) {
  TempDir dir;
  auto doc = read_json(std::string(ALLOCSIM_SOURCE_DIR) + "/" + kDir + "sweep-random.checkpoint.json");
  edit(doc);
  const std::string ck = dir / "ck.json";
  cli_test::spit(ck, doc.dump());
  const auto r =
      allocsim("sweep " + kDir + "claim.json --no-corpus --strategy random -n 40000 --seed 7 --resume " + ck);
  INFO(r.text);
  CHECK(r.code == 2);
  if (!late) CHECK(slurp(ck) == doc.dump());
  const size_t at = r.text.find(ck + ": ");
  return at == std::string::npos ? r.text : r.text.substr(at + ck.size() + 2);
}

}  // namespace

TEST_CASE("checkpoints: every campaign reports a bad checkpoint alike, naming the file and the place", "[checkpoint]") {
  every_campaign_refuses("", "not a valid checkpoint: file is empty");
  every_campaign_refuses("{not json", "not a valid checkpoint: invalid JSON at line 1 column 3");
  every_campaign_refuses(R"({"a": 1, "a": 2})", "/a: not a valid checkpoint: duplicate key \"a\"");
  every_campaign_refuses("[1]", "(document root): expected an object, got array");
  every_campaign_refuses(R"({"tool_version": "0.1.0"})", "/schema: expected \"allocsim/{}-checkpoint/v1\"\n");
  every_campaign_refuses(R"({"schema": "allocsim/sweep-report/v1"})",
                         "/schema: expected \"allocsim/{}-checkpoint/v1\", got \"allocsim/sweep-report/v1\"");
}

TEST_CASE("checkpoints: another version's checkpoint is refused at /tool_version", "[checkpoint]") {
  for (const auto& [fixture, args] : std::vector<std::pair<std::string, std::string>>{
           {"sweep-random.checkpoint.json",
            "sweep " + kDir + "claim.json --no-corpus --strategy random -n 40000 --seed 7"},
           {"swarm.checkpoint.json", "swarm --seed 7 --scenarios 6 --per-scenario 30 --mutant client-side-claim"},
           {"selfcheck.checkpoint.json", "selfcheck --seed 5 --scenarios 6 --per-scenario 10"}}) {
    TempDir dir;
    auto doc = read_json(std::string(ALLOCSIM_SOURCE_DIR) + "/" + kDir + fixture);
    doc["tool_version"] = "0.0.9";
    const std::string ck = dir / "ck.json";
    cli_test::spit(ck, doc.dump(1));
    const std::string campaign = args.substr(0, args.find(' '));
    const auto r = allocsim(args + " --resume " + ck + (campaign == "swarm" ? " --out " + (dir / "out") : ""));
    INFO(r.text);
    CHECK(r.code == 2);
    CHECK_THAT(r.text, Catch::Contains(ck + ": /tool_version: written by allocsim 0.0.9, this is allocsim ") &&
                           Catch::Contains(": start a new " + campaign + "\n"));
  }
}

TEST_CASE("checkpoints: a malformed sweep checkpoint names the place in it", "[checkpoint]") {
  CHECK(sweep_refuses([](nlohmann::json& d) { d["scenarios"] = 5; }) == "/scenarios: expected an array, got number\n");
  CHECK(sweep_refuses([](nlohmann::json& d) { d["scenarios"][0].erase("path"); }) ==
        "/scenarios/0: missing required key \"path\"\n");
  CHECK(sweep_refuses([](nlohmann::json& d) { d["scenarios"][0]["done"]["x"] = nlohmann::json::object(); }) ==
        "/scenarios/0/done/x: no work unit \"x\" (0..15)\n");
  CHECK_THAT(sweep_refuses([](nlohmann::json& d) { d["scenarios"][0]["done"]["3"]["steps"] = "many"; }),
             Catch::StartsWith("/scenarios/0/done/3: malformed unit result: "));
  CHECK_THAT(sweep_refuses(
                 [](nlohmann::json& d) {
                   d["scenarios"][0]["partial"]["8"]["state"] = {{"nxt", 3}};
                 },
                 /*late=*/true),
             Catch::StartsWith("/scenarios/0/partial/8/state: not a saved position of unit 8 of " + kDir +
                               "claim.json: "));
}
