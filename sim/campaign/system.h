// The interface between the generic campaign layer (sim/campaign/: the run loop, replay, shrink, trace
// files, sweeps and their reports) and the simulated system it explores. The campaign code knows scenarios
// only through it; backend/system/system.h implements it for the GPU allocation backend.
//
// Shapes:
// - System: loads and parses scenario documents into Subjects.
// - Subject: one loaded scenario, immutable and shared (SubjectPtr). It names its actors (ids are
//   positions: sim::ActorId i is actor_names()[i]), compiles into worlds, tallies what executions'
//   worlds observed, judges a report against the scenario's own expectations, embeds itself as JSON,
//   renders an invariant's reported state again from another world, and offers the reductions the
//   shrinker tries (drop an actor, drop an op).
// - Compiled: a Subject compiled with its mutants, from which every execution's fresh world is built.
// - Tally: per run (or work unit), what the worlds of the executions observed: op outcomes and barrier
//   fires.
// Errors: bad scenario input is a support::InputError (file, JSON pointer, message); nothing else.
// Determinism: every method is a pure function of its arguments (no clock, no addresses, ordered maps).
// REQUIRES: a world passed back to a Subject or Tally was made by a Compiled of that same Subject.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/world.h"

namespace allocsim::sim {
struct ExecutionResult;  // sim/engine.h
}  // namespace allocsim::sim

namespace allocsim::campaign {

struct RunReport;  // sim/campaign/run.h

/// actor -> op name -> outcome -> executions (ordered: reports are deterministic).
using Outcomes = std::map<std::string, std::map<std::string, std::map<std::string, uint64_t>>>;
/// Counts the system defines for its own expectations (name -> executions), summed like outcomes across
/// executions, units and shards; the campaign stores and merges them and never reads a name. The backend's:
/// occurrence pins and expect.audit (backend/scenario/expect_audit.h).
using Counters = std::map<std::string, uint64_t>;

/// A scenario compiled with its mutants; built once per run or work unit, never shared between threads.
class Compiled {
 public:
  virtual ~Compiled() = default;
  /// A fresh world for one execution.
  virtual std::unique_ptr<sim::World> make_world() const = 0;
  /// What a report should say about this compile, one line each: a check the system leaves unjudged for this
  /// subject, and why. Empty by default.
  virtual std::vector<std::string> notes() const { return {}; }
};

/// What the executions of a run observed, added up one world at a time.
class Tally {
 public:
  virtual ~Tally() = default;
  /// Adds the op outcomes and barrier fires of one finished execution's world.
  virtual void add(const sim::World& world) = 0;
  /// Adds everything added so far to `outcomes`, `barrier_hits` (barrier name -> fires; only barriers
  /// that fired get an entry, as only outcomes that happened do) and `counters`, and starts again from zero.
  virtual void drain(Outcomes& outcomes, std::map<std::string, uint64_t>& barrier_hits, Counters& counters) = 0;
};

/// A footprint object as an explanation sees it (Subject::name_object).
struct ObjectName {
  enum Role : uint8_t {
    Data,  // state the system reads and writes: a dependency between steps
    Sync,  // a lock: it orders steps but carries no state; not a dependency for explanations
    View,  // bookkeeping that stands for "the state the invariants check": a dependency only into the
           // violating step (the invariant read it after that step)
  };
  Role role = Data;
  std::string words;
};

class Subject;
using SubjectPtr = std::shared_ptr<const Subject>;

/// The call the last step of `r` belongs to: its own point when it resumed from a call, else the point of its
/// actor's latest earlier call (a step resumed from a lock wait or a barrier continues that call); "" when
/// `r` has no step or its actor made no call. What Subject::world_write is asked about.
std::string_view violating_call(const sim::ExecutionResult& r);

/// Whether `r` violates an invariant at a step of a world write (Subject::world_write of violating_call()).
bool broken_by_world(const Subject& subject, const sim::ExecutionResult& r);

class Subject {
 public:
  virtual ~Subject() = default;
  virtual const std::string& path() const = 0;    // the file it came from (as given)
  virtual const std::string& digest() const = 0;  // of that file's bytes
  virtual const std::string& name() const = 0;
  /// The step limit of an execution: `flag` (--max-steps) when given, else the scenario's own, else the
  /// system's default.
  virtual uint64_t max_steps(std::optional<uint64_t> flag) const = 0;
  /// Actor names by id.
  virtual std::vector<std::string> actor_names() const = 0;
  /// Every barrier a world can fire, in the order reports list reached barriers.
  virtual std::vector<std::string> barriers() const = 0;
  /// Compiles with `extra_mutants` added to the scenario's. Throws support::InputError for an unknown
  /// mutant.
  virtual std::unique_ptr<Compiled> compile(const std::vector<std::string>& extra_mutants) const = 0;
  virtual std::unique_ptr<Tally> tally() const = 0;
  /// Judges `report` (summary counts, outcomes, reached) against the scenario's expectations: sets
  /// report.unmet (one line per unmet expectation, recomputed, never appended to) and report.met.
  virtual void judge(RunReport& report) const = 0;
  /// The scenario as the JSON document a trace embeds (System::parse reads it back).
  virtual nlohmann::ordered_json to_json() const = 0;
  /// An invariant's reported fields (Violation::state) rendered again from `world` ("" lines kept).
  virtual std::string render_like(const sim::World& world, const std::string& reported) const = 0;
  /// A footprint object (sim::Access::object) in the system's words ("node n1", "the shared map") and its
  /// role, for explanations (explain.h); `details` are the execution's step details, where names made
  /// during an execution (claim ids) appear. The default: "object <16 hex digits>", Data (explain.cpp).
  virtual ObjectName name_object(uint64_t object, const std::vector<std::string>& details) const;
  /// Whether a step of the call `call` (the Call point its op began at: violating_call()) is a write of the
  /// world rather than of the protocol under test (another controller relabelling a node, say): a violation
  /// that such a step causes by itself is a fact of the scenario's world, not a race (explain.h, kind
  /// "world"). The default: none is.
  virtual bool world_write(std::string_view call) const {
    (void)call;
    return false;
  }

  // Reductions (the shrinker). Each returns a new subject with the same path and digest.
  /// Ops in actor `actor`'s script.
  virtual size_t ops_of(size_t actor) const = 0;
  /// Without actor `actor` (and what refers only to it); nullptr when it cannot go (the scenario would
  /// not load, or it is the only actor).
  virtual SubjectPtr without_actor(size_t actor) const = 0;
  /// Without op `op` of actor `actor`.
  virtual SubjectPtr without_op(size_t actor, size_t op) const = 0;
  /// A plainer subject with the same ops (the backend: an actor without its owner identity, an op without its
  /// write-behind): the k-th, in a fixed order; nullopt past the last. `dropped_actor`: an actor the change takes
  /// with it (a derived one, as a write-behind's background actor), whose choices leave the schedule or, first,
  /// go to `choices_to` (an index in this subject: the actor that now does its work, as the write-behind's issuer).
  /// REQUIRES of an implementation (the shrinker's loop relies on both): the k-th simplified subject's own list is
  /// this list less its k-th entry, the others in the same order; and the list is finite, so keeping simplifications
  /// ends.
  struct Simplified {
    SubjectPtr subject;
    std::optional<size_t> dropped_actor;
    std::optional<size_t> choices_to;
  };
  virtual std::optional<Simplified> simplified(size_t /*k*/) const { return std::nullopt; }

  /// Ops over all actors.
  size_t op_count() const;
};

struct CoverageUniverse;  // coverage_report.h

class System {
 public:
  virtual ~System() = default;
  /// Everything an execution could reach, for the reports' "never reached" lists (coverage_report.h). The
  /// default: nothing (no list has a "never" entry).
  virtual CoverageUniverse coverage_universe() const;
  /// Loads and validates a scenario file. Throws support::InputError.
  virtual SubjectPtr load(const std::string& path) const = 0;
  /// Parses a scenario document `text` as if read from `file`; the subject's path is `path` and its
  /// digest `digest` when given (else the digest of `text`). Throws support::InputError naming `file`.
  virtual SubjectPtr parse(const std::string& text, const std::string& file, const std::string& path,
                           const std::optional<std::string>& digest = std::nullopt) const = 0;
};

}  // namespace allocsim::campaign
