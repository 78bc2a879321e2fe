#include "backend/swarm/swarm_subjects.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>

#include "backend/model/contract.h"
#include "backend/scenario/invariant_names.h"
#include "backend/scenario/scenario_json.h"
#include "backend/swarm/swarm_gen.h"
#include "backend/system/system.h"
#include "sim/prng.h"

namespace allocsim::harness {

namespace {

using Json = nlohmann::ordered_json;

/// The scenario's choice of invariants as a file states it: "all", or what it leaves out. A generated scenario with a
/// stale stamp leaves the healing phase out (swarm_gen.cpp), and its finding's file must too: with the phase on, it
/// fires at quiescence before a later row such as ops-atomic, and the minimal schedule would not replay to the
/// finding's invariant.
Json invariant_choice(const Scenario& s) {
  if (s.invariants.empty()) return "all";
  Json left_out = Json::array();
  for (const char* name : invariant_names())
    if (std::find(s.invariants.begin(), s.invariants.end(), name) == s.invariants.end()) left_out.push_back(name);
  return left_out.empty() ? Json("all") : Json{{"all_except", std::move(left_out)}};
}

class BackendSwarm final : public campaign::SwarmGenerator {
 public:
  const campaign::System& system() const override { return backend_system(); }

  Drawn draw(const campaign::SwarmOptions& o, uint64_t index, bool faithful) const override {
    const uint64_t gen_seed = sim::execution_seed(o.seed, index);
    const Json doc = swarm_scenario(o.seed, index, faithful ? std::vector<std::string>{} : o.mutants, o.max_steps);
    const std::string file = fmt::format("swarm-{}.json", gen_seed);
    return Drawn{parse(o, doc.dump(2) + "\n", file), scenario_hash(doc), swarm_feature_words(swarm_features(gen_seed))};
  }

  uint64_t hash_of(const campaign::SwarmOptions& o, uint64_t index) const override {
    return scenario_hash(swarm_scenario(o.seed, index, o.mutants, o.max_steps));
  }

  std::vector<std::string> feature_universe() const override { return swarm_feature_universe(); }

  std::string finding_text(const campaign::Subject& minimal, const std::string& slug, const std::string& description,
                           const std::string& invariant) const override {
    const Scenario& sc = scenario_of(minimal);
    Json doc = scenario_to_json(sc);
    doc["name"] = slug;
    doc["description"] = description;
    doc["invariants"] = invariant_choice(sc);
    doc["expect"] = Json{{"violation", invariant}};
    return doc.dump(2) + "\n";
  }

  campaign::SubjectPtr parse(const campaign::SwarmOptions& o, const std::string& text,
                             const std::string& file) const override {
    // Never above the bound the file loads with: a finding written from it must be judged again by `run`.
    return with_op_level_bound(*backend_system().parse(text, file, file),
                               std::min<uint64_t>(o.per_scenario, kDefaultOpLevelBound));
  }

  std::string faithful_text(const std::string& finding_text) const override {
    Json doc = Json::parse(finding_text);
    doc["backend"]["mutants"] = Json::array();
    doc["expect"] = Json{{"outcome", "pass"}};
    return doc.dump(2) + "\n";
  }

  /// Each actor's op kinds in script order, the actors' sequences sorted.
  std::string skeleton(const campaign::Subject& minimal) const override {
    std::vector<std::string> actors;
    for (const auto& a : scenario_of(minimal).actors) {
      if (a.script.empty()) continue;
      std::string s;
      for (const auto& op : a.script) s += (s.empty() ? "" : ",") + std::string(op_name(op.kind));
      actors.push_back(s);
    }
    std::sort(actors.begin(), actors.end());
    std::string out;
    for (const auto& s : actors) out += (out.empty() ? "" : " | ") + s;
    return out;
  }
};

}  // namespace

const campaign::SwarmGenerator& backend_swarm() {
  static const BackendSwarm generator;
  return generator;
}

Json swarm_scenario(uint64_t seed, uint64_t index, const std::vector<std::string>& mutants, uint64_t max_steps) {
  Json doc = generate_scenario(sim::execution_seed(seed, index));
  doc["backend"]["mutants"] = mutants;
  doc["max_steps"] = max_steps;
  return doc;
}

uint64_t scenario_hash(const nlohmann::ordered_json& doc) {
  const std::string text = doc.dump();
  return XXH3_64bits(text.data(), text.size());
}

std::vector<std::string> swarm_feature_words(const SwarmFeatures& f) {
  std::vector<std::string> out;
  for (const std::string& name : f.names()) {
    if (!name.starts_with("sharing=")) {
      out.push_back(name);
      continue;
    }
    // "sharing=a+b": one word per sharing kind, so "never drawn" can name a kind.
    for (size_t b = 8, e; b <= name.size(); b = e + 1) {
      e = std::min(name.find('+', b), name.size());
      out.push_back("sharing=" + name.substr(b, e - b));
    }
  }
  return out;
}

std::vector<std::string> swarm_feature_universe() {
  SwarmFeatures all;
  all.mig = all.split_reserve = all.status_ops = all.release = all.second_reserve = all.binds = true;
  all.foreign_writes = all.read_faults = all.geometry_faults = all.barrier_faults = all.recover = true;
  all.start_state = all.conditional = all.clock = all.flow_clock = all.leftover_claim = all.partial_apply = true;
  all.release_listing = all.admission_reject = all.sweeper = all.leased_sweeper = all.operand_pause =
      all.hidden_devices = all.claimed_binds = all.bind_behind = all.shared_owner = all.bind_resource = true;
  all.sharing = {backend::kSharingExclusive, backend::kSharingIsolatedMig, backend::kSharingCooperative,
                 backend::kSharingAccountingOnly};
  return swarm_feature_words(all);
}

}  // namespace allocsim::harness
