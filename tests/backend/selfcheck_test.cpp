// The verdict self-check's checks are not vacuous (sim/campaign/verdict_check.h, docs/DESIGN.md §7 "Verdict
// self-check"): one violation of a mutant scenario passes every check untampered, and each check, fed one
// broken artefact through the test-only Tamper hook, reports its own kind of contradiction and no other.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "backend/swarm/selfcheck.h"
#include "backend/system/system.h"
#include "backend/world/dirty.h"
#include "sim/campaign/explain.h"
#include "sim/campaign/run.h"
#include "sim/campaign/verdict_check.h"
#include "sim/schedule.h"

namespace {

using namespace allocsim;

/// The first violation `random` finds in `file` (seed 1); `index` gets its execution index.
campaign::FoundViolation found(const std::string& file, uint64_t* index = nullptr) {
  const campaign::SubjectPtr sc = harness::backend_system().load(std::string(ALLOCSIM_SOURCE_DIR) + "/" + file);
  campaign::ExploreConfig c;
  c.seed = 1;
  c.executions = 2000;
  c.stop_at_first_violation = true;
  const campaign::RunReport r = campaign::run(*sc, c);
  REQUIRE(r.summary.first);
  if (index) *index = r.summary.first->index;
  return {sc, c, r.summary.first->seed, r.summary.first->result};
}

campaign::VerdictChecks checked(const campaign::FoundViolation& v, const campaign::Tamper& tamper = {}) {
  campaign::VerdictOptions o;
  o.prefix = "v";
  o.out = "out";
  o.tamper = tamper;
  return campaign::check_violation(harness::backend_system(), v, o);
}

std::set<std::string> kinds(const campaign::VerdictChecks& v) {
  std::set<std::string> out;
  for (const auto& c : v.contradictions) {
    INFO(c.kind << ": " << c.detail << "\n  " << c.replay);
    CHECK(!c.files.empty());
    out.insert(c.kind);
  }
  return out;
}

/// A tamper that edits artefact `which` only.
campaign::Tamper on(std::string which, std::function<void(std::string&)> edit) {
  return [which, edit](std::string_view artefact, std::string& text) {
    if (artefact == which) edit(text);
  };
}

void replace_first(std::string& text, const std::regex& re, const std::string& with) {
  const std::string before = text;
  text = std::regex_replace(text, re, with, std::regex_constants::format_first_only);
  REQUIRE(text != before);
}

const char* const kScenario = "scenarios/mutants/client-side-claim.json";

}  // namespace

TEST_CASE("selfcheck: a violation of client-side-claim passes every check untampered", "[selfcheck]") {
  const campaign::FoundViolation v = found(kScenario);
  const campaign::VerdictChecks c = checked(v);
  CHECK(kinds(c).empty());
  CHECK(c.run == std::map<std::string, uint64_t>{{"explain", 1},
                                                 {"order-pin", 4},
                                                 {"order-pin-file", 4},
                                                 {"replay-schedule", 1},
                                                 {"replay-seed", 1},
                                                 {"replay-trace", 1},
                                                 {"shrink", 1}});
  CHECK(c.skipped.empty());
  CHECK(!c.order.empty());
  REQUIRE(c.probes.size() == 2);
  const harness::CheckMode before = harness::check_mode();
  harness::set_check_mode(harness::CheckMode::Full);
  for (const auto& p : c.probes) CHECK(campaign::probe(p) == "");
  harness::set_check_mode(before);
}

TEST_CASE("selfcheck: each check reports its broken artefact, and only that", "[selfcheck]") {
  const campaign::FoundViolation v = found(kScenario);
  const std::regex fingerprint("\"fingerprint\": \"[0-9a-f]{16}\"");
  const std::string zero = "\"fingerprint\": \"0000000000000000\"";
  struct Row {
    const char* artefact;
    std::function<void(std::string&)> edit;
    std::set<std::string> expected;
  };
  const std::vector<Row> rows = {
      {"execution-seed", [](std::string& s) { s = std::to_string(std::stoull(s) + 1); }, {"replay-seed"}},
      {"schedule", [](std::string& s) { s = s.substr(0, s.rfind(',')); }, {"replay-schedule"}},
      {"trace", [&](std::string& s) { replace_first(s, fingerprint, zero); }, {"replay-trace"}},
      {"minimal-scenario",
       [](std::string& s) { replace_first(s, std::regex("allocsim/scenario/v1"), "allocsim/scenario/v0"); },
       {"shrink"}},
      {"minimal-trace", [&](std::string& s) { replace_first(s, fingerprint, zero); }, {"shrink"}},
      {"explanation", [](std::string& s) { s = "null"; }, {"explain-invariant"}},
      {"explanation",
       [](std::string& s) {
         replace_first(s, std::regex("\"summary\":\"(?:[^\"\\\\]|\\\\.)*\""), "\"summary\":\"-\"");
       },
       {"explain-invariant"}},
      // The violating step left out of the slice: not closed, and the rest alone breaks nothing.
      {"explanation",
       [](std::string& s) { replace_first(s, std::regex(",?[0-9]+\\]\\s*,\"order\""), "],\"order\""); },
       {"explain-slice", "explain-slice-replay"}},
      // The racing pair pinned the other way round: no first execution breaks the invariant.
      {"order",
       [](std::string& s) { replace_first(s, std::regex("\\[\"([^\"]+)\",\"([^\"]+)\"\\]"), "[\"$2\",\"$1\"]"); },
       {"order-pin", "order-pin-file"}},
  };
  for (const Row& row : rows) {
    INFO(row.artefact);
    CHECK(kinds(checked(v, on(row.artefact, row.edit))) == row.expected);
  }
}

TEST_CASE("selfcheck: a mode probe reports a verdict that differs", "[selfcheck]") {
  const campaign::FoundViolation v = found(kScenario);
  const campaign::VerdictChecks c =
      checked(v, on("mode-verdict", [](std::string& s) { s.replace(0, 16, "0000000000000000"); }));
  REQUIRE(c.probes.size() == 2);
  for (const auto& p : c.probes) {
    const std::string got = campaign::probe(p);
    CHECK(got.find("violation single-ownership") != std::string::npos);
    CHECK(p.if_differs.kind == "check-modes");
    CHECK(p.if_differs.replay.find("--check-invariants full") != std::string::npos);
  }
}

TEST_CASE("selfcheck: the per-execution replay checks report a verdict or an index that differs", "[selfcheck]") {
  uint64_t index = 0;
  const campaign::FoundViolation v = found(kScenario, &index);
  campaign::VerdictOptions o;
  o.prefix = "v";
  std::map<std::string, uint64_t> run;
  CHECK(!campaign::check_execution(*v.scenario, v.config, index, v.result, o, run));
  CHECK(run == std::map<std::string, uint64_t>{{"replay-schedule", 1}, {"replay-seed", 1}});
  // Another execution's index: its seed replays another execution.
  const auto seed = campaign::check_execution(*v.scenario, v.config, index + 1, v.result, o, run);
  REQUIRE(seed);
  CHECK(seed->kind == "replay-seed");
  CHECK(seed->replay.find("allocsim replay v.json --seed ") == 0);
  o.tamper = on("execution-verdict", [](std::string& s) { s += " (edited)"; });
  const auto schedule = campaign::check_execution(*v.scenario, v.config, index, v.result, o, run);
  REQUIRE(schedule);
  CHECK(schedule->kind == "replay-schedule");
}

namespace {

/// release-keeps-owner's scenario with an actor the order holds back for ever: flowA releases once, so
/// `flowA:release#2` never happens and every execution ends order-blocked once flowA is done.
campaign::SubjectPtr held_back(bool mutant) {
  auto doc = harness::backend_system()
                 .load(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/mutants/release-keeps-owner.json")
                 ->to_json();
  if (!mutant) doc["backend"]["mutants"] = nlohmann::ordered_json::array();
  doc["actors"].push_back({{"name", "idle"}, {"script", {{{"op", "advance_clock"}, {"seconds", 1}}}}});
  doc["order"] =
      nlohmann::ordered_json::array({nlohmann::ordered_json::array({"flowA:release#2", "idle:advance_clock#1"})});
  return harness::backend_system().parse(doc.dump(2), "held.json", "held.json");
}

}  // namespace

TEST_CASE("selfcheck: an order-blocked end that hides a verdict judged at an execution's end is reported",
          "[selfcheck]") {
  for (const bool mutant : {true, false}) {
    INFO("mutant " << mutant);
    const campaign::SubjectPtr sc = held_back(mutant);
    campaign::ExploreConfig c;
    c.executions = 1;
    std::optional<sim::ExecutionResult> first;
    campaign::RunHooks hooks;
    hooks.on_execution = [&](uint64_t, const sim::World&, const sim::ExecutionResult& r) { first = r; };
    campaign::run(*sc, c, hooks);
    REQUIRE(first);
    REQUIRE(first->order_blocked);
    campaign::VerdictOptions o;
    o.prefix = "held";
    std::map<std::string, uint64_t> run, skipped;
    // The engine runs an order-blocked execution out without the order and judges its end (docs/DESIGN.md
    // §2): with the mutant its own verdict names quiescent-clean, so nothing is hidden.
    CHECK(first->violation.has_value() == mutant);
    if (mutant) CHECK(first->violation->invariant == "quiescent-clean");
    CHECK_FALSE(campaign::check_order_blocked(*sc, c, 0, *first, o, run, skipped));
    // The same execution cut off at its block, unjudged, is what the check is for. Without the mutant every
    // continuation ends quiescent and clean: nothing was hidden.
    sim::ExecutionResult cut = *first;
    cut.violation.reset();
    const auto k = campaign::check_order_blocked(*sc, c, 0, cut, o, run, skipped);
    CHECK(run == std::map<std::string, uint64_t>{{"order-blocked", 2}});
    CHECK(skipped.empty());
    REQUIRE(k.has_value() == mutant);
    if (!mutant) continue;
    CHECK(k->kind == "order-blocked");
    CHECK(k->detail.find("without quiescent-clean; without the order, every continuation") != std::string::npos);
    CHECK(k->replay.find("allocsim replay held.json --schedule ") == 0);
  }
}

TEST_CASE("selfcheck: an exploration whose verdicts differ under full invariant checks is reported", "[selfcheck]") {
  harness::SelfcheckOptions o;
  o.files = {std::string(ALLOCSIM_SOURCE_DIR) + "/" + kScenario};
  o.scenarios = 1;
  o.per_scenario = 10;
  const harness::SelfcheckReport clean = harness::run_selfcheck(o);
  CHECK(clean.contradiction_count() == 0);
  CHECK(clean.checks.at("check-modes") > 0);
  o.tamper = on("mode-verdict", [](std::string& s) { s += " (edited)"; });
  const harness::SelfcheckReport r = harness::run_selfcheck(o);
  size_t explorations = 0, probes = 0;
  for (const auto& c : r.contradictions) {
    INFO(c.c.detail);
    CHECK(c.c.kind == "check-modes");
    explorations += c.c.detail.starts_with("execution 0 under ");
    probes += c.c.detail.starts_with("the violating execution") || c.c.detail.starts_with("the minimal execution");
  }
  CHECK(explorations == 4);  // random, pct, dfs, dpor
  CHECK(probes == 2 * r.violations_checked);
  CHECK(explorations + probes == r.contradictions.size());
}

TEST_CASE("selfcheck: the causal slice keeps the crash that let go of the lock a later step takes", "[selfcheck]") {
  // flowA crashes inside the backend lock; the crash lets go of it, and the operator's set_labels, which breaks
  // capacity-within-cards by itself, takes it next. No data object links the two steps: only the lock hand-over
  // (sim/campaign/explain.h, 3) keeps the crash, and without it the slice cannot run alone (the lock stays held).
  const campaign::SubjectPtr sc = harness::backend_system().load(
      std::string(ALLOCSIM_SOURCE_DIR) + "/tests/cli/verdicts/crash-lets-go-of-the-backend-lock.json");
  const std::vector<sim::Choice> schedule = sim::parse_schedule("v1:flowA*8,#1,operator", sc->actor_names());
  const std::optional<campaign::Explanation> e = campaign::explain(*sc, schedule, 1000);
  REQUIRE(e);
  CHECK(e->slice == std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(campaign::check_explanation(*sc, schedule, 1000, "capacity-within-cards", e).empty());
  campaign::Explanation without = *e;
  without.slice.erase(without.slice.begin() + 7);
  const auto found = campaign::check_explanation(*sc, schedule, 1000, "capacity-within-cards", without);
  CHECK(found == std::vector<std::pair<std::string, std::string>>{
                     {"explain-slice-replay", "the causal slice's 8 steps alone do not break capacity-within-cards"}});
}

TEST_CASE("selfcheck: the slice run leaves out a step that takes a lock, and a try whose retry is not quiet",
          "[selfcheck]") {
  // Lock L (Sync) and one data object D; actors A = 0, B = 1, C = 2.
  const uint64_t L = 1, D = 2;
  const std::map<uint64_t, campaign::ObjectName::Role> roles = {{L, campaign::ObjectName::Sync},
                                                                {D, campaign::ObjectName::Data}};
  using sim::PointKind;
  const auto step = [](sim::ActorId a, PointKind k, std::vector<sim::Access> fp) {
    return sim::StepRecord{a, k, "p", "", false, std::move(fp), 0};
  };
  sim::ExecutionResult r;
  r.steps = {
      step(0, PointKind::Call, {{L, true, true}}),                 // 0 A takes L
      step(1, PointKind::Call, {{L, true, false}, {D, false}}),    // 1 B tries L and reads D: quiet, but ...
      step(0, PointKind::Barrier, {{L, true, false}, {D, true}}),  // 2 A writes D and lets go of L
      step(1, PointKind::LockWait, {{L, true, true}, {D, true}}),  // 3 ... its retry takes L and writes D
      step(1, PointKind::Call, {{L, true, false}}),                // 4 B lets go of L
      step(2, PointKind::Call, {{D, false}}),                      // 5 C reads D
      step(0, PointKind::Call, {{L, true, false}}),                // 6 A takes and lets go of L in one step
      step(0, PointKind::Call, {{L, true, true}}),                 // 7 A takes L
      step(0, PointKind::Barrier, {{L, true, true}}),              // 8 A, holding L, takes it again
  };
  CHECK(campaign::quiet_steps(r, roles) ==
        std::vector<bool>{false, false, false, false, true, true, true, false, true});
}
