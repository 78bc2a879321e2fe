// A finding's two files as a resumed or merged swarm takes them back (swarm_report.h, "Checkpoint" and "Merge";
// docs/SWARM.md): they are the run's results, copied into its folder as they are, so they are checked as the run
// that wrote them checked them before it kept them (swarm.cpp: the minimal schedule replays strictly
// against the file as written), and the scenario must carry the finding's name. A file edited, cut short or swapped
// between findings is bad input, never a result.
#include <fmt/format.h>

#include "sim/campaign/swarm_report.h"
#include "sim/campaign/trace_file.h"
#include "sim/campaign/trace_replay.h"
#include "sim/support/json_reader.h"

namespace allocsim::campaign {

namespace {

using support::InputError;

/// The error at `at` about a file kept there: inside a checkpoint (a pointer to its text) the reader's own place
/// goes into the message; a file of its own is named as the reader named it.
[[noreturn]] void fail(const KeptFile& at, const std::string& what, const std::string& place,
                       const std::string& message) {
  if (at.pointer.empty()) throw InputError(at.file, place, fmt::format("{}: {}", what, message));
  throw InputError(at.file, at.pointer,
                   fmt::format("{} (at {}): {}", what, place.empty() ? "its root" : place, message));
}

}  // namespace

void check_finding_files(const System& system, const SwarmFinding& f, const KeptFile& entry, const KeptFile& scenario,
                         const KeptFile& trace) {
  const std::string scenario_name = scenario.pointer.empty() ? scenario.file : f.slug + ".json";
  SubjectPtr subject;
  try {
    subject = system.parse(f.scenario_text, scenario_name, scenario_name);
  } catch (const InputError& e) {
    fail(scenario, "the finding's scenario does not load", e.pointer(), e.message());
  }
  // Its name is the finding's file name (swarm.cpp writes it so): files swapped between two findings of
  // one invariant would otherwise pass every check below.
  if (subject->name() != f.slug)
    fail(scenario, "the finding's scenario is another finding's", "/name",
         fmt::format("it is named \"{}\", and the summary's finding is \"{}\"", subject->name(), f.slug));
  const std::string trace_name = trace.pointer.empty() ? trace.file : f.slug + ".trace.json";
  Trace t;
  try {
    t = parse_trace(system, f.trace_text, trace_name);
  } catch (const TraceError& e) {
    // what() is "FILE: POINTER: MESSAGE", or "FILE: MESSAGE" about the whole file (trace_file.h): the file and the
    // place are said by fail().
    std::string message = e.what();
    for (const std::string& prefix :
         {trace_name + ": " + (e.pointer().empty() ? "(document root)" : e.pointer()) + ": ", trace_name + ": "})
      if (message.rfind(prefix, 0) == 0) {
        message.erase(0, prefix.size());
        break;
      }
    fail(trace, "the finding's trace does not read", e.pointer(), message);
  }
  if (t.scenario_digest != subject->digest())
    fail(trace, "the finding's trace is not its scenario's", "/scenario/digest",
         fmt::format("it names scenario digest {}, and the finding's scenario ({}) has {}", t.scenario_digest,
                     scenario.pointer.empty() ? scenario.file : scenario.pointer, subject->digest()));
  if (!t.violation || t.violation->invariant != f.invariant)
    fail(trace, "the finding's trace is not its finding's", "/violation",
         fmt::format("the summary says the finding violates {}, the trace says {}", f.invariant,
                     t.violation ? t.violation->invariant : std::string("nothing")));
  const TraceReplay r = replay_trace(t);
  if (r.divergence)
    fail(trace, "the finding's trace does not replay against its scenario", "/steps", r.divergence->to_string());
  // The summary entry's sizes, strategy and seed are the files' own (swarm.cpp writes them from the same execution):
  // a difference is named at the entry's field.
  const auto differs = [&](const char* key, const KeptFile& file, const std::string& summary,
                           const std::string& files) {
    if (summary != files)
      throw InputError(entry.file, entry.pointer + "/" + key,
                       fmt::format("{}, and the finding's {} ({}) has {}", summary,
                                   &file == &scenario ? "scenario" : "trace",
                                   file.pointer.empty() ? file.file : file.pointer, files));
  };
  differs("steps", trace, std::to_string(f.steps), std::to_string(t.steps.size()));
  differs("ops", scenario, std::to_string(f.ops), std::to_string(subject->op_count()));
  differs("actors", scenario, std::to_string(f.actors), std::to_string(subject->actor_names().size()));
  differs("strategy", trace, f.strategy, t.strategy);
  differs("from_seed", trace, std::to_string(f.seed), t.seed ? std::to_string(*t.seed) : std::string("none"));
}

}  // namespace allocsim::campaign
