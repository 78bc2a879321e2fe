// Explanations (sim/campaign/explain.h) of every mutant's and two findings' minimal traces, pinned to the
// table in docs/EXPLANATIONS.md: the kind, the racing pairs (step indices and labels: the order block) and
// that a sequential one says so. Also: explanations are deterministic (same bytes twice), survive a trace
// file round trip, and the slice always holds the violating step.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "backend/system/shrink.h"
#include "backend/system/system.h"
#include "sim/campaign/explain.h"
#include "sim/campaign/run.h"
#include "sim/campaign/trace_file.h"
#include "tests/scenarios/scenario_files.h"

using namespace allocsim;
namespace fs = std::filesystem;

namespace {

struct Want {
  std::string kind;
  std::vector<std::pair<uint64_t, uint64_t>> pairs;        // (first, second) step indices
  std::vector<std::pair<std::string, std::string>> order;  // the same pairs as labels
};

using Order = std::vector<std::pair<std::string, std::string>>;

// docs/EXPLANATIONS.md, "Computed explanations".
const std::map<std::string, Want>& expected() {
  static const std::map<std::string, Want> m = {
      {"allocated-is-ready", {"sequential", {}, {}}},
      {"client-side-claim",
       {"race",
        {{1, 4}, {2, 6}, {4, 10}},
        Order{{"flowA:plan#1", "flowB:reserve#1"},
              {"flowA:reserve#1", "flowB:owner.update.before#1"},
              {"flowB:reserve#1", "flowA:owner.update.before#1"}}}},
      {"lock-leak-on-pending-recovery", {"race", {{0, 9}}, Order{{"kubelet:bind_workload#1", "flowA:release#1"}}}},
      {"map-deleted-on-last-out", {"sequential", {}, {}}},
      {"partial-inventory-is-idle", {"race", {{0, 1}}, Order{{"chaos:fail_reads#1", "flowA:inventory#1"}}}},
      {"readiness-one-write-behind",
       {"race",
        {{6, 14}, {14, 15}},
        Order{{"flowA:claim.create.after#1", "clock:advance_clock#1"},
              {"clock:advance_clock#1", "flowA:claim.create.after#2"}}}},
      {"release-clears-any-owner",
       {"race",
        {{9, 13}, {17, 18}},
        Order{{"flowA:restore.before#1", "flowB:inventory#1"}, {"flowB:owner.update.before#1", "flowA:release#2"}}}},
      {"release-keeps-owner", {"sequential", {}, {}}},
      {"release-spins-on-busy-nodes", {"race", {{0, 9}}, Order{{"kubelet:bind_workload#1", "flowA:release#1"}}}},
      {"restore-record-overwritten", {"sequential", {}, {}}},
      {"restore-under-workloads", {"sequential", {}, {}}},
      {"stale-last-out",
       {"race",
        {{5, 16}, {8, 17}, {16, 19}},
        Order{{"flowA:owner.update.after#1", "flowB:owner.update.after#1"},
              {"flowA:release#1", "flowB:claim.create.after#1"},
              {"flowB:owner.update.after#1", "flowA:delete.before#1"}}}},
      {"stale-plan-applied",
       {"race",
        {{0, 2}, {2, 3}},
        Order{{"flowA:inventory#1", "foreign:bind_workload#1"}, {"foreign:bind_workload#1", "flowA:reserve#1"}}}},
      {"stale-success-readiness", {"sequential", {}, {}}},
      {"strict-claim-lookup", {"sequential", {}, {}}},
      // Findings (scenarios/FINDINGS.md): F1 needs one flow only; F6's pod lands after the claim's stamp.
      {"finding-alloc-022-second-claim-unstamped", {"sequential", {}, {}}},
      {"finding-foreign-pod-on-claimed-cards",
       {"race", {{4, 8}}, Order{{"flowA:owner.update.before#1", "foreign:bind_workload#1"}}}},
      {"finding-alloc-022-same-gpu-after-bind", {"sequential", {}, {}}},
      {"finding-alloc-022-same-gpu-granted-twice", {"sequential", {}, {}}},
      {"finding-mig-applied-under-later-workload",
       {"race", {{0, 7}}, Order{{"foreign:bind_workload#1", "flowA:claim.create.after#1"}}}},
      {"finding-mig-carved-under-foreign-workload",
       {"race", {{0, 7}}, Order{{"foreign:bind_workload#1", "flowA:claim.create.after#1"}}}},
      {"finding-mig-carved-under-hidden-workload",
       {"race", {{0, 1}}, Order{{"lister:partial_reads#1", "flowA:inventory#1"}}}},
      {"incident-gfd-count-drop", {"race", {{0, 1}}, Order{{"gfd:set_labels#1", "flowA:inventory#1"}}}},
      {"incident-mig-apply-success-without-effect",
       {"race", {{5, 9}}, Order{{"flowA:owner.update.after#1", "gpu-operator:advance_clock#1"}}}},
      // F8: the operator's full rewrite breaks no-orphaned-geometry by itself, on a state that held it.
      {"incident-operator-rewrites-shared-map", {"world", {}, {}}},
      {"incident-stale-owner-stamp", {"sequential", {}, {}}},
      // F12 and F13: their order blocks pin the racing pairs, so no reversal runs; the lost update's own
      // message names both writes and the writer's last sight (histories.h).
      {"finding-restore-overwrites-foreign-config", {"sequential", {}, {}}},
      {"finding-retried-release-restores-anothers-node", {"sequential", {}, {}}},
  };
  return m;
}

/// The findings whose own order block pins every racing pair, so that their explanation is sequential.
bool pinned_by_order(const std::string& name) {
  return name == "finding-restore-overwrites-foreign-config" ||
         name == "finding-retried-release-restores-anothers-node";
}

struct Explained {
  campaign::SubjectPtr scenario;
  sim::ExecutionResult result;
  std::optional<campaign::Explanation> explanation;
};

/// The first violation of `allocsim run FILE` (seed 0), shrunk with the default budget, explained.
Explained explain_file(const std::string& file) {
  const harness::Scenario sc = harness::load_scenario(file);
  campaign::ExploreConfig cfg;
  cfg.executions = 2000;
  cfg.stop_at_first_violation = true;
  const campaign::RunReport rep = campaign::run(*harness::subject_of(sc), cfg);
  REQUIRE(rep.summary.first);
  const campaign::SubjectPtr subject = harness::subject_of(sc);
  const uint64_t max_steps = subject->max_steps(std::nullopt);
  campaign::ShrinkOptions so;
  so.max_steps = max_steps;
  campaign::ShrinkResult s =
      campaign::shrink(harness::backend_system(), subject, rep.summary.first->result.schedule, so);
  Explained out{s.scenario, s.result, campaign::explain(*s.scenario, s.result.schedule, max_steps)};
  return out;
}

std::vector<std::string> files_to_explain() {
  std::vector<std::string> files = allocsim::testing::mutant_files();
  // Every scenario of scenarios/ that expects a violation without a mutant: the findings and incidents.
  for (const char* f :
       {"finding-alloc-022-second-claim-unstamped.json", "finding-foreign-pod-on-claimed-cards.json",
        "finding-alloc-022-same-gpu-after-bind.json", "finding-alloc-022-same-gpu-granted-twice.json",
        "finding-mig-applied-under-later-workload.json", "finding-mig-carved-under-foreign-workload.json",
        "finding-mig-carved-under-hidden-workload.json", "incident-gfd-count-drop.json",
        "incident-mig-apply-success-without-effect.json", "incident-operator-rewrites-shared-map.json",
        "incident-stale-owner-stamp.json", "finding-restore-overwrites-foreign-config.json",
        "finding-retried-release-restores-anothers-node.json"})
    files.push_back((fs::path(ALLOCSIM_SOURCE_DIR) / "scenarios" / f).string());
  return files;
}

}  // namespace

TEST_CASE("every mutant's, finding's and incident's explanation names the racing pairs of docs/EXPLANATIONS.md",
          "[explain][mutants]") {
  const auto files = files_to_explain();
  REQUIRE(files.size() == expected().size());
  for (const std::string& file : files) {
    const std::string name = fs::path(file).stem().string();
    INFO(name);
    const auto want = expected().find(name);
    REQUIRE(want != expected().end());
    const Explained x = explain_file(file);
    REQUIRE(x.explanation);
    const campaign::Explanation& e = *x.explanation;
    std::vector<std::pair<uint64_t, uint64_t>> got;
    Order labelled;  // the racing pairs as labels
    const std::vector<std::string> labels = campaign::step_labels(x.result, x.scenario->actor_names());
    std::string seen = e.kind + " pin=" + e.pin;
    for (const auto& p : e.pairs) {
      got.emplace_back(p.first, p.second);
      labelled.emplace_back(labels[p.first], labels[p.second]);
      seen += fmt::format(" ({}, {}) {}->{}", p.first, p.second, labels[p.first], labels[p.second]);
    }
    INFO(seen);
    CHECK(e.kind == want->second.kind);
    CHECK(got == want->second.pairs);
    CHECK(labelled == want->second.order);
    // The order block is checked to pin the violation (explain.h, step 7): the racing pairs themselves when
    // they do, else a minimised pin; when nothing does, the pairs stay and `needs` says why.
    CHECK((e.pin == "pairs" || e.pin == "minimised" || e.pin == "none"));
    if (e.pin == "pairs" || e.pin == "none") CHECK(e.order == labelled);
    CHECK(e.needs.empty() == (e.pin != "none"));
    // One actor ("No race: "), or, in a file whose order block pins every racing pair, no dependent pair that
    // could run the other way round ("No race found: ").
    if (e.kind == "sequential") CHECK(e.summary.starts_with(pinned_by_order(name) ? "No race found: " : "No race: "));
    if (e.kind == "world") CHECK(e.summary.starts_with("Not a race of the protocol: "));
    for (const auto& p : e.pairs) {
      CHECK(p.first < p.second);
      CHECK_FALSE(p.objects.empty());
      CHECK_FALSE(p.reversed.empty());
    }
    // The slice is ascending, holds the violating step, and every pair lies in it.
    REQUIRE_FALSE(e.slice.empty());
    CHECK(std::is_sorted(e.slice.begin(), e.slice.end()));
    CHECK(e.slice.back() == x.result.steps.size() - 1);
    for (const auto& p : e.pairs) {
      CHECK(std::binary_search(e.slice.begin(), e.slice.end(), p.first));
      CHECK(std::binary_search(e.slice.begin(), e.slice.end(), p.second));
    }
  }
}

TEST_CASE("an explanation is deterministic and survives the trace file", "[explain]") {
  const std::string file = std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/mutants/stale-last-out.json";
  const Explained x = explain_file(file);
  REQUIRE(x.explanation);
  const auto again = campaign::explain(*x.scenario, x.result.schedule, x.scenario->max_steps(std::nullopt));
  REQUIRE(again);
  CHECK(campaign::explanation_to_json(*again).dump() == campaign::explanation_to_json(*x.explanation).dump());
  CHECK(x.explanation->summary.find("flowA read node n1 at step 8 (flowA:release#1)") != std::string::npos);
  CHECK(x.explanation->summary.find("flowB") != std::string::npos);

  campaign::Trace t = campaign::make_trace(x.scenario, x.result, "");
  t.explanation = x.explanation;
  const std::string text = campaign::trace_to_text(t);
  CHECK(text.find("\"explanation\"") != std::string::npos);
  CHECK(text.find("\"order\": [") != std::string::npos);
  const campaign::Trace back = campaign::parse_trace(harness::backend_system(), text, "t.trace.json");
  REQUIRE(back.explanation);
  CHECK(*back.explanation == *x.explanation);
  CHECK(campaign::trace_to_text(back) == text);

  // A trace without the keys keeps its bytes (old readers and writers agree).
  t.explanation.reset();
  const std::string plain = campaign::trace_to_text(t);
  CHECK(plain.find("\"explanation\"") == std::string::npos);
  CHECK_FALSE(campaign::parse_trace(harness::backend_system(), plain, "t.trace.json").explanation);
}

TEST_CASE("a malformed explanation names its JSON pointer", "[explain]") {
  auto j = campaign::explanation_to_json(campaign::Explanation{
      "race", "s", {{1, 2, {"node n1"}, "no violation"}}, {1, 2}, {{"a:p#1", "b:q#1"}}, "pairs", ""});
  CHECK(campaign::explanation_from_json(j).pairs.size() == 1);
  CHECK(campaign::explanation_from_json(j).pin == "pairs");
  j["pairs"][0]["first"] = "one";
  CHECK_THROWS_WITH(campaign::explanation_from_json(j), "/pairs/0/first: wrong type");
  j = campaign::explanation_to_json(campaign::Explanation{"maybe", "s", {}, {}, {}, "", ""});
  CHECK_THROWS_WITH(campaign::explanation_from_json(j),
                    "/kind: expected \"race\", \"sequential\", \"start\" or \"world\"");
  j = campaign::explanation_to_json(campaign::Explanation{"race", "s", {}, {}, {{"a", "b"}}, "", ""});
  j["order"][0] = nlohmann::ordered_json::array({"a"});
  CHECK_THROWS_WITH(campaign::explanation_from_json(j), "/order/0: expected [label, label]");
  // A pin the checker never writes, and one from a trace written before the check (no key): read as empty.
  j = campaign::explanation_to_json(campaign::Explanation{"race", "s", {}, {}, {}, "pairs", ""});
  j["pin"] = "maybe";
  CHECK_THROWS_WITH(campaign::explanation_from_json(j), "/pin: expected \"pairs\", \"minimised\" or \"none\"");
  j.erase("pin");
  CHECK(campaign::explanation_from_json(j).pin.empty());
}

TEST_CASE("the converge-bound scenario's minimal trace keeps its bound and names the clock's objects", "[explain]") {
  // Before scenario_to_json kept converge_seconds, the shrunk trace embedded a scenario judged by the default
  // 600 s bound, so it replayed with no violation and never reached the corpus.
  const std::string file = std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/alloc-021-converge-bound-below-apply.json";
  const Explained x = explain_file(file);
  REQUIRE(x.result.violation);
  CHECK(x.result.violation->invariant == "geometry-converges");
  const std::string text = campaign::trace_to_text(campaign::make_trace(x.scenario, x.result, ""));
  CHECK(text.find("\"converge_seconds\": 3") != std::string::npos);
  REQUIRE(x.explanation);
  REQUIRE_FALSE(x.explanation->pairs.empty());
  for (const auto& p : x.explanation->pairs)
    for (const std::string& o : p.objects) CHECK_FALSE(o.starts_with("object "));  // every object has a name
}
