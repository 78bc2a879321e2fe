// `order` from the command line (docs/DESIGN.md §2, "Order"): the pinned alloc-005 scenario under every strategy,
// an unsatisfiable order (exit 1, the constraint named), --order's errors (exit 2), and `trace order`.
#include <catch2/catch.hpp>

#include <fstream>

#include "tests/cli/support.h"

using namespace cli_test;

namespace {
const std::string kPinned = "scenarios/alloc-005-stale-last-out-pinned.json";
}  // namespace

TEST_CASE("order: the pinned alloc-005 race runs one execution under every strategy, and it violates", "[cli][order]") {
  for (const char* strategy : {"random", "pct", "dfs", "dpor", "dfs --reduction none"}) {
    INFO(strategy);
    const Captured out = allocsim("run " + kPinned + " --strategy " + strategy + " --no-trace --no-shrink");
    CHECK(out.code == 0);  // the expected violation was found
    CHECK_THAT(out.text, Catch::Contains("  1 execution, 20 steps, 1 violating\n"));
    CHECK_THAT(out.text, Catch::Contains("  shared-map-never-deleted: 1 execution\n"));
    CHECK_THAT(out.text, Catch::Contains("  order: 2 constraints; 0 executions order-blocked\n"));
    CHECK_THAT(out.text, Catch::Contains("the order leaves one schedule: stopped after it\n"));
    CHECK_THAT(out.text, Catch::Contains("first violating execution: #0 "));
    CHECK_THAT(out.text, Catch::Contains("v1:flowA*11,flowB*8,flowA"));
  }
  // A switch the order forces is not a preemption: DFS under a preemption bound (the nightly mutation
  // sweep's setting) counts only the switches it chose. After step 10 flowA waits at delete.before until
  // flowB passes claim.schedule.after, so the switch to flowB at step 11 is forced.
  const Captured bounded = allocsim("sweep " + kPinned + " --preemption-bound 2");
  CHECK(bounded.code == 0);
  CHECK_THAT(bounded.text, Catch::Contains("1 scenario: 1 met, 0 not met"));
  CHECK(bounded.text.find("internal error") == std::string::npos);
}

TEST_CASE("order: an order no execution satisfies exits 1 naming the constraint", "[cli][order]") {
  const Captured out = allocsim(
      "run scenarios/alloc-005-last-out.json --strategy dfs --no-trace "
      "--order '[[\"flowB:delete.before#1\", \"flowA:inventory\"]]'");
  CHECK(out.code == 1);
  CHECK_THAT(out.text, Catch::Contains("  order: 1 constraint; 1 execution order-blocked\n"));
  CHECK_THAT(out.text,
             Catch::EndsWith("no execution satisfies `order`: constraint [\"flowB:delete.before#1\", "
                             "\"flowA:inventory#1\"] was never met (flowB:delete.before#1 did not happen before "
                             "flowA:inventory#1: flowB ended first)\n"));
}

TEST_CASE("order: a single schedule that ends order-blocked is not reported as the schedule the order leaves",
          "[cli][order]") {
  // Each case: the --order flags, the summary lines, a sentence that must not appear, and the constraint the run
  // names as never met. First the file's pin plus an X that
  // never comes (flowB restores once): the one schedule blocks flowA's release. Then a cycle through the actors'
  // own order of points (flowA inventories before it releases): nobody may take a first step, and the run says
  // so rather than "every choice had one eligible actor" (new-user report). Both executions then run out
  // without the order, to their 21 steps (DESIGN.md §2).
  const struct {
    std::string orders, says, not_says, never_met;
  } cases[] = {
      {R"(--order '[["flowB:restore.before#3", "flowA:release"]]')",
       "  1 execution, 21 steps, 0 violating\n"
       "  order: 3 constraints; 1 execution order-blocked\n"
       "  order: every choice had one eligible actor, and that one schedule ends order-blocked: stopped after it\n",
       "leaves one schedule", R"(["flowB:restore.before#3", "flowA:release#1"])"},
      {R"(--order '[["flowA:release", "flowB:inventory"]]' --order '[["flowB:plan", "flowA:inventory"]]')",
       "  1 execution, 21 steps, 0 violating\n"
       "  order: 4 constraints; 1 execution order-blocked\n"
       "  order: no actor may take a first step, so the order leaves no schedule: stopped after one execution\n",
       "every choice had one eligible actor", R"(["flowB:plan#1", "flowA:inventory#1"])"},
  };
  for (const auto& c : cases) {
    const Captured out = allocsim("run " + kPinned + " --no-trace " + c.orders);
    CHECK(out.code == 1);
    CHECK_THAT(out.text, Catch::Contains(c.says));
    CHECK(out.text.find(c.not_says) == std::string::npos);
    CHECK_THAT(out.text,
               Catch::Contains("no execution satisfies `order`: constraint " + c.never_met + " was never met"));
  }
}

TEST_CASE("order: a constraint whose Y no execution reached is reported as having done nothing", "[cli][order]") {
  // Barriers and occurrence counts are not checked at load (whether an actor gets there depends on the state):
  // flowB of alloc-005-last-out never releases, so never reaches delete.before, and inventories once.
  const std::string kLastOut = "scenarios/alloc-005-last-out.json";
  const Captured barrier =
      allocsim("run " + kLastOut + " --no-corpus -n 50 --order '[[\"flowA:inventory\", \"flowB:delete.before\"]]'");
  CHECK(barrier.code == 0);
  CHECK_THAT(barrier.text, Catch::Contains("  order: 1 constraint; 0 executions order-blocked\n"
                                           "  order: constraint [\"flowA:inventory#1\", \"flowB:delete.before#1\"] did "
                                           "nothing in these 50 executions: none reached flowB:delete.before#1\n"));
  const Captured count =
      allocsim("run " + kLastOut + " --no-corpus -n 50 --order '[[\"flowA:inventory\", \"flowB:inventory#2\"]]'");
  CHECK_THAT(count.text, Catch::Contains("did nothing in these 50 executions: none reached flowB:inventory#2\n"));
  // A constraint that holds its Y back is not reported, nor one whose Y happens.
  const Captured used =
      allocsim("run " + kLastOut + " --no-corpus -n 50 --order '[[\"flowB:inventory\", \"flowA:inventory\"]]'");
  CHECK(used.code == 0);
  CHECK(used.text.find("did nothing") == std::string::npos);
  CHECK(allocsim("run " + kPinned + " --no-trace").text.find("did nothing") == std::string::npos);
}

TEST_CASE("order: the order flag adds to the file order, and bad blocks exit 2 naming the flag", "[cli][order]") {
  // The reverse of the file's second constraint: a cycle of two across the file and the flag.
  const Captured cyc =
      allocsim("run " + kPinned + " --order '[[\"flowA:delete.before\", \"flowB:claim.schedule.after\"]]'");
  CHECK(cyc.code == 2);
  CHECK_THAT(cyc.text, Catch::Contains("allocsim: --order [[\"flowA:delete.before\", \"flowB:claim.schedule.after\"]]: "
                                       "no execution can satisfy these constraints: they form a cycle: "
                                       "[\"flowB:claim.schedule.after#1\", \"flowA:delete.before#1\"], "
                                       "[\"flowA:delete.before#1\", \"flowB:claim.schedule.after#1\"]"));
  const Captured actor = allocsim("run " + kPinned + " --order '[[\"flowC:x\", \"flowA:release\"]]'");
  CHECK(actor.code == 2);
  CHECK_THAT(actor.text, Catch::Contains(": /0/0: label \"flowC:x\": unknown actor \"flowC\" (actors: flowA, flowB)"));
  // Labels refused against the actor's points (scenario, --order, the message's end): a typo would silently
  // drop the pin; an op's name, or a call the actor never makes, is explained rather than corrected
  // (backend/scenario/op_syntax.h, point_vocabulary): an await op polls with observe calls; the clock makes no reserve.
  const std::string kRecarve = "scenarios/alloc-003-same-flow-recarve.json";
  const struct {
    std::string scenario, order, says;
  } refused[] = {
      {kPinned, R"([["flowA:relase", "flowB:inventory"]])",
       ": /0/0: label \"flowA:relase\": actor \"flowA\" never resumes from point \"relase\" (did you mean "
       "\"release\"?)\n"},
      {kRecarve, R"([["flowA:await", "clock:advance_clock"]])",
       ": /0/0: label \"flowA:await\": actor \"flowA\" never resumes from point \"await\" (its await op resumes "
       "from \"observe\", not from a point of its own name; its calls: \"inventory\", \"plan\", \"reserve\", "
       "\"advance_clock\", \"observe\")\n"},
      {kRecarve, R"([["clock:reserve", "flowA:await"]])",
       ": /0/0: label \"clock:reserve\": actor \"clock\" never resumes from point \"reserve\" (it has no reserve "
       "op; its calls: \"advance_clock\")\n"},
  };
  for (const auto& r : refused) {
    const Captured out = allocsim("run " + r.scenario + " --order '" + r.order + "'");
    CHECK(out.code == 2);
    CHECK_THAT(out.text, Catch::Contains(r.says));
    CHECK(out.text.find("execution") == std::string::npos);
  }
  const Captured json = allocsim("run " + kPinned + " --order '[[\"flowA:x\"'");
  CHECK(json.code == 2);
  CHECK_THAT(json.text, Catch::Contains("--order: not valid JSON (ends early): [[\"flowA:x\"\n"));
  const Captured bare = allocsim("run " + kPinned + " --order '[[\"flowA:x\", flowB]]'");
  CHECK(bare.code == 2);
  CHECK_THAT(bare.text, Catch::Contains("--order: not valid JSON (at character 15): [[\"flowA:x\", flowB]]\n"));
  const Captured file = allocsim("run " + kPinned + " --order order.json");
  CHECK(file.code == 2);
  CHECK_THAT(file.text, Catch::Contains("--order: not valid JSON (at character 1): order.json (the constraints "
                                        "themselves, [[\"A:point#1\", \"B:point#1\"]], not a file)"));
  for (const char* blank : {"''", "' '"}) {
    const Captured empty = allocsim("run " + kPinned + " --order " + blank);
    CHECK(empty.code == 2);
    CHECK_THAT(empty.text, Catch::Contains("allocsim: --order: empty; it takes the constraints themselves, as JSON: "
                                           "[[\"A:point#1\", \"B:point#1\"]]\n"));
  }
}

TEST_CASE("order: replaying a trace file refuses --order and --max-steps instead of ignoring them", "[cli][order]") {
  TempDir dir;
  const Captured run = allocsim("run " + kPinned + " --no-shrink --trace-out " + (dir / "t.trace.json"));
  REQUIRE(run.code == 0);
  const Captured order =
      allocsim("replay " + (dir / "t.trace.json") + " --order '[[\"flowB:inventory\", \"flowA:inventory\"]]'");
  CHECK(order.code == 2);
  CHECK_THAT(order.text, Catch::Contains("--order: a trace file embeds its scenario, its order included; replay it "
                                         "as it is"));
  const Captured steps = allocsim("replay " + (dir / "t.trace.json") + " --max-steps 5");
  CHECK(steps.code == 2);
  CHECK_THAT(steps.text, Catch::Contains("--max-steps: a trace file embeds its scenario, its step limit included"));
  CHECK(allocsim("replay " + (dir / "t.trace.json")).code == 1);  // as it is: the violation, exit 1
}

TEST_CASE("order: a replay line carries the order flag", "[cli][order]") {
  const std::string order = "'[[\"flowA:restore.after\", \"flowB:inventory\"]]'";
  const Captured run =
      allocsim("run scenarios/mutants/stale-last-out.json --seed 3 --no-trace --no-shrink --order " + order);
  CHECK(run.code == 0);
  CHECK_THAT(run.text, Catch::Contains("--order '[[\"flowA:restore.after\", \"flowB:inventory\"]]'"));
  CHECK_THAT(run.text, Catch::Contains("order: 1 constraint; 0 executions order-blocked\n"));
}

TEST_CASE("order: trace order prints the constraints that force a trace's violation", "[cli][order]") {
  TempDir dir;
  const Captured run =
      allocsim("run scenarios/mutants/stale-last-out.json --strategy dfs --trace-out " + (dir / "t.trace.json"));
  REQUIRE(run.code == 0);
  const Captured order = allocsim("trace order " + (dir / "t.trace.json"));
  CHECK(order.code == 0);
  CHECK(order.text ==
        "\"order\": [\n"
        "  [\"flowA:restore.after#1\", \"flowB:inventory#1\"],\n"
        "  [\"flowB:claim.schedule.after#1\", \"flowA:delete.before#1\"]\n"
        "]\n"
        "allocsim trace order " +
            (dir / "t.trace.json") +
            ": 2 of the full pin's 2 constraints force shared-map-never-deleted (3 DPOR checks, 179 executions)\n");
  const Captured bad = allocsim("trace sideways " + (dir / "t.trace.json"));
  CHECK(bad.code == 2);
  CHECK_THAT(bad.text, Catch::Contains("trace: unknown action \"sideways\" (expected: explain, order)"));
}

TEST_CASE("order: trace order on a violation of the start state prints the empty order and exits 0", "[cli][order]") {
  TempDir dir;
  // n1 starts with a stale stamp no claim carries (F5): heals-after-faults breaks with no step taken.
  std::ofstream(dir / "start.json") << R"({"schema": "allocsim/scenario/v1", "name": "start",
    "nodes": [{"name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80,
               "resource_version": 7, "owner": "flowX", "owner_epoch": "gen-flowX-2"}],
    "actors": [{"name": "flowA", "script": []}]})";
  const Captured run = allocsim("run " + (dir / "start.json") + " --no-corpus --trace-out " + (dir / "t.trace.json"));
  INFO(run.text);
  REQUIRE(run.code == 1);
  const Captured order = allocsim("trace order " + (dir / "t.trace.json"));
  CHECK(order.code == 0);
  CHECK(order.text == "\"order\": []\nallocsim trace order " + (dir / "t.trace.json") +
                          ": heals-after-faults breaks with no step taken (the start state), so every execution of "
                          "the trace's scenario breaks it: the empty order forces it (a file with ops that can repair "
                          "that state may need one: `run` prints it as the order block for the file you ran)\n");
}

TEST_CASE("order: a start-state violation the file's ops can repair gets its order block for the file",
          "[cli][order]") {
  TempDir dir;
  // n1 starts with a restore record no claim explains; flowA's release clears it unless kube's pod holds n1 first.
  // The shrinker removes every op (the start state alone breaks heals-after-faults), so the file needs an order.
  std::ofstream(dir / "repair.json") << R"({"schema": "allocsim/scenario/v1", "name": "repair",
    "backend": {"authority": "managed-mig"},
    "nodes": [{"name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80,
               "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count": "2",
                          "nvidia.com/mig.capable": "true"},
               "restore_record": "all-disabled"}],
    "actors": [{"name": "flowA", "script": [
                  {"op": "reserve", "requests": [{"workload": "wa", "devices": 1, "sharing": "isolated_mig",
                                                  "minimum_usable_memory_gib": 10}]},
                  {"op": "release"}]},
               {"name": "kube", "script": [{"op": "bind_workload", "node": "n1", "workload": "pod", "units": 2}]}],
    "invariants": ["heals-after-faults"]})";
  const Captured run = allocsim("run " + (dir / "repair.json") + " --strategy dfs --no-corpus");
  INFO(run.text);
  CHECK(run.code == 1);
  CHECK_THAT(run.text, Catch::Contains("15 executions, 176 steps, 3 violating"));
  CHECK_THAT(run.text, Catch::Contains("so every schedule of this scenario fails"));
  CHECK_THAT(run.text, Catch::Contains("for the file you ran: order block"));
  CHECK_THAT(run.text, Catch::Contains("\"order\": [[\"kube:bind_workload#1\",\"flowA:owner.update.before#1\"]]"));
}

TEST_CASE("order: replaying a schedule that breaks the order diverges, and says why", "[cli][order]") {
  const Captured out = allocsim("replay " + kPinned + " --schedule 'v1:flowB*3,flowA*20'");
  CHECK(out.code == 4);
  CHECK_THAT(out.text, Catch::Contains(": diverged at step 0 (0 steps replayed)\n  why: choice 0: the schedule runs "
                                       "flowB, which cannot run here (runnable: flowA)\n  the scenario has an `order` "
                                       "(2 constraints): an actor it holds back is not runnable"));
  CHECK_THAT(out.text, !Catch::Contains("replay diverged"));  // said once, in the header
}

TEST_CASE(
    "order: an order-blocked execution replays from its schedule, run-out included, and a longer schedule "
    "is told where the order blocked",
    "[cli][order]") {
  // The schedule of an order-blocked execution ends at the block (the run-out takes no choice); replaying it
  // under the same order runs the same run-out: the same 21 steps and fingerprint as the seed (DESIGN.md §2).
  const std::string base = "replay " + kPinned + R"( --order '[["flowB:restore.before#3", "flowA:release"]]' )";
  const Captured seed = allocsim(base + "--seed 0");
  const Captured sched = allocsim(base + "--schedule 'v1:flowA*8'");
  INFO(seed.text << sched.text);
  CHECK_THAT(seed.text, Catch::Contains(": 21 steps, 0 preemptions, fingerprint d2ec6a5fe85475fb\n"));
  CHECK_THAT(sched.text, Catch::Contains(": 21 steps, 0 preemptions, fingerprint d2ec6a5fe85475fb\n"));
  const Captured longer = allocsim(base + "--schedule 'v1:flowA*9'");
  INFO(longer.text);
  CHECK(longer.code == 4);
  CHECK_THAT(longer.text, Catch::Contains(": diverged at step 8 (8 steps replayed)\n  why: choice 8: the order blocked "
                                          "the execution at step 8 (the steps after it ran out without the order, "
                                          "taking no choice), but the schedule goes on\n"));
}
