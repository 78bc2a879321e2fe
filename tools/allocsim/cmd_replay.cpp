// allocsim replay SCENARIO --seed E: one execution, exactly.
#include <fmt/format.h>

#include <iostream>

#include "backend/invariants/invariant_table.h"
#include "backend/model/mutants.h"
#include "backend/system/system.h"
#include "sim/support/words.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/report.h"
#include "tools/allocsim/trace_cli.h"

namespace allocsim::cli {

int cmd_replay(int argc, char** argv) {
  Common c = parse_common("replay", argc, argv, false);
  if (campaign::looks_like_trace(c.scenario)) {
    if (!c.record.empty())
      throw UsageError(
          fmt::format("--record: give a scenario with --seed or --schedule; {} is a trace file, "
                      "whose replay is checked step by step against it",
                      c.scenario));
    return replay_trace_file(c);  // trace_cli.cpp
  }
  campaign::ExploreConfig cfg = to_config(c, false);
  harness::Scenario sc = harness::load_scenario(c.scenario);
  add_order_flags(sc, cfg);
  if (!c.trace.schedule.empty()) return replay_schedule(c, cfg, sc);
  // Without either there is nothing to reproduce: seed 0 would be some execution, not the one the user saw.
  if (!c.flags.given.count("seed"))
    throw UsageError(
        fmt::format("replay {}: which execution? give --seed E or --schedule S, as the run's "
                    "replay line prints them",
                    c.scenario));
  sim::ExecutionResult r = campaign::replay_seed(*harness::subject_of(sc), cfg, cfg.seed);
  // The header is the replay line itself (mutants, --max-steps and --order included), so it pastes back.
  std::cout << fmt::format("{}: {}, {}, fingerprint {:016x}\n",
                           cfg.replay_line(c.scenario, campaign::ReplayTarget{.seed = cfg.seed, .schedule = {}}),
                           support::count_of(r.steps.size(), "step"), support::count_of(r.preemptions, "preemption"),
                           r.fingerprint());
  if (const int code = write_replay_perfetto(c, cfg, sc, r); code != kExitOk) return code;
  const campaign::SubjectPtr full = harness::subject_of(with_mutants(sc, c.flags.mutants()));
  return print_replayed(*full, r, full->max_steps(cfg.max_steps), c.record);
}

}  // namespace allocsim::cli
