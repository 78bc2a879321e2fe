#include "backend/system/system.h"

#include <algorithm>
#include <utility>

#include "backend/invariants/state_view.h"
#include "backend/model/barriers.h"
#include "backend/scenario/op_syntax.h"
#include "backend/scenario/scenario_json.h"
#include "backend/system/backend_world.h"
#include "backend/system/judge.h"
#include "backend/system/reductions.h"
#include "sim/assert.h"
#include "sim/campaign/coverage_report.h"

namespace allocsim::harness {

namespace {

class BackendCompiled final : public campaign::Compiled {
 public:
  explicit BackendCompiled(std::unique_ptr<CompiledScenario> c) : c_(std::move(c)) {}
  std::unique_ptr<sim::World> make_world() const override { return std::make_unique<BackendWorld>(*c_); }
  std::vector<std::string> notes() const override {
    if (c_->op_level && !c_->op_level->judged) return {c_->op_level->note};
    return {};
  }

 private:
  std::unique_ptr<CompiledScenario> c_;
};

/// Outcomes are counted per (actor, script op) by the outcome's static string while a run lasts, and folded
/// into text-keyed maps only when drained: the same counts without three string-keyed lookups per op per
/// execution.
class BackendTally final : public campaign::Tally {
 public:
  explicit BackendTally(const Scenario& sc)
      : sc_(sc), hits_(backend::barrier_table().size(), 0), counts_(sc.actors.size()) {
    for (size_t a = 0; a < sc.actors.size(); ++a) counts_[a].resize(sc.actors[a].script.size());
  }

  void add(const sim::World& w) override {
    const auto& bw = static_cast<const BackendWorld&>(w);
    for (size_t i = 0; i < hits_.size(); ++i) hits_[i] += bw.barrier_hits()[i];
    for (size_t a = 0; a < counts_.size(); ++a)
      for (size_t k = 0; k < counts_[a].size(); ++k) {
        const char* out = bw.actors()[a].outcomes[k];
        if (!out) continue;
        auto& t = counts_[a][k];
        auto it = std::find_if(t.begin(), t.end(), [out](const auto& p) { return p.first == out; });
        if (it == t.end())
          t.emplace_back(out, 1);
        else
          ++it->second;
      }
    tally_execution(sc_, bw, expect_);
  }

  void drain(campaign::Outcomes& outcomes, std::map<std::string, uint64_t>& barrier_hits,
             campaign::Counters& counters) override {
    add_to_counters(expect_, counters);
    expect_ = ExpectTally{};
    for (size_t a = 0; a < counts_.size(); ++a)
      for (size_t k = 0; k < counts_[a].size(); ++k) {
        for (const auto& [out, n] : counts_[a][k])
          outcomes[sc_.actors[a].name][op_name(sc_.actors[a].script[k].kind)][out] += n;
        counts_[a][k].clear();
      }
    for (size_t i = 0; i < hits_.size(); ++i)
      if (hits_[i]) barrier_hits[backend::barrier_table()[i].name] += hits_[i], hits_[i] = 0;
  }

 private:
  const Scenario& sc_;
  std::vector<uint64_t> hits_;
  std::vector<std::vector<std::vector<std::pair<const char*, uint64_t>>>> counts_;
  ExpectTally expect_;  // occurrence pins and expect.audit, drained as counters
};

class ScenarioSubject final : public campaign::Subject {
 public:
  explicit ScenarioSubject(Scenario sc) : sc_(std::move(sc)) {}
  const Scenario& scenario() const { return sc_; }

  const std::string& path() const override { return sc_.path; }
  const std::string& digest() const override { return sc_.digest; }
  const std::string& name() const override { return sc_.name; }
  uint64_t max_steps(std::optional<uint64_t> flag) const override { return resolve_max_steps(sc_, flag); }
  std::vector<std::string> actor_names() const override {
    std::vector<std::string> out;
    for (const ActorSpec& a : sc_.actors) out.push_back(a.name);
    return out;
  }
  std::vector<std::string> barriers() const override {
    std::vector<std::string> out;
    for (const auto& b : backend::barrier_table()) out.push_back(b.name);
    return out;
  }
  std::unique_ptr<campaign::Compiled> compile(const std::vector<std::string>& extra_mutants) const override {
    return std::make_unique<BackendCompiled>(harness::compile(sc_, extra_mutants));
  }
  std::unique_ptr<campaign::Tally> tally() const override { return std::make_unique<BackendTally>(sc_); }
  void judge(campaign::RunReport& report) const override { judge_report(sc_, report); }
  nlohmann::ordered_json to_json() const override { return scenario_to_json(sc_); }
  std::string render_like(const sim::World& world, const std::string& reported) const override {
    return harness::render_like(static_cast<const BackendWorld&>(world), reported);
  }
  campaign::ObjectName name_object(uint64_t object, const std::vector<std::string>& details) const override {
    return harness::name_object(sc_, object, details);
  }
  /// The foreign writes (scenario.h): another controller's write, never the protocol's (docs/DESIGN.md §4).
  bool world_write(std::string_view point) const override {
    for (const OpKind k : {OpKind::SetLabels, OpKind::SetMigState, OpKind::WriteSharedMap, OpKind::SetPointer})
      if (point == op_name(k)) return true;
    return false;
  }
  size_t ops_of(size_t actor) const override {
    // A write-behind's background actor has no op of its own to drop: its op is its issuer's (conditional_ops.h),
    // and dropping it there takes the background actor with it.
    const ActorSpec& a = sc_.actors.at(actor);
    return a.behind_of ? 0 : a.script.size();
  }
  campaign::SubjectPtr without_actor(size_t actor) const override {
    std::optional<Scenario> out = harness::without_actor(sc_, actor);
    return out ? subject_of(std::move(*out)) : nullptr;
  }
  campaign::SubjectPtr without_op(size_t actor, size_t op) const override {
    return subject_of(harness::without_op(sc_, actor, op));
  }
  std::optional<Simplified> simplified(size_t k) const override {
    std::optional<harness::Simplification> out = harness::simplified(sc_, k);
    if (!out) return std::nullopt;
    return Simplified{subject_of(std::move(out->scenario)), out->dropped_actor, out->choices_to};
  }

 private:
  Scenario sc_;
};

class BackendSystem final : public campaign::System {
 public:
  /// The barrier table, the op table with each op's outcome vocabulary, and the fault kinds: the KIND of
  /// each `fault=KIND` note (barrier actions in actor_caller.cpp, the faults drawn before a call in
  /// script_runner.cpp, the read faults of read_faults.cpp, the partial apply of geometry_hooks.cpp, the refused
  /// binds of op_environment.cpp), in README's
  /// order.
  campaign::CoverageUniverse coverage_universe() const override {
    campaign::CoverageUniverse u;
    for (const auto& b : backend::barrier_table()) u.barriers.emplace_back(b.name);
    for (const auto& op : op_syntax_rows())
      u.ops.emplace_back(op.name, std::vector<std::string>(op.outcomes.begin(), op.outcomes.end()));
    u.faults = {"crash",       "raise",         "drop_response",    "fail_reads",  "fail_geometry",
                "stale_reads", "partial_reads", "geometry_partial", "reject_binds"};
    return u;
  }
  campaign::SubjectPtr load(const std::string& path) const override { return subject_of(load_scenario(path)); }
  campaign::SubjectPtr parse(const std::string& text, const std::string& file, const std::string& path,
                             const std::optional<std::string>& digest) const override {
    Scenario sc = parse_scenario(text, file);
    sc.path = path;
    if (digest) sc.digest = *digest;
    return subject_of(std::move(sc));
  }
};

}  // namespace

const campaign::System& backend_system() {
  static const BackendSystem system;
  return system;
}

campaign::SubjectPtr subject_of(Scenario scenario) { return std::make_shared<ScenarioSubject>(std::move(scenario)); }

campaign::SubjectPtr with_op_level_bound(const campaign::Subject& subject, uint64_t bound) {
  Scenario sc = scenario_of(subject);
  sc.op_level_bound = bound;
  return subject_of(std::move(sc));
}

const Scenario& scenario_of(const campaign::Subject& subject) {
  const auto* s = dynamic_cast<const ScenarioSubject*>(&subject);
  ALLOCSIM_ASSERT(s != nullptr, "a campaign subject not made by the backend system");
  return s->scenario();
}

}  // namespace allocsim::harness
