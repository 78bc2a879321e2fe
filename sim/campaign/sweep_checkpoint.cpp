// Sweep checkpoints: the sweep's payload (sweep_checkpoint.h) in the campaigns' envelope (checkpoint.h).
#include "sim/campaign/sweep_checkpoint.h"

#include "sim/campaign/checkpoint.h"
#include "sim/support/atomic_write.h"
#include "sim/support/json_reader.h"

#include <fmt/format.h>

namespace allocsim::campaign {

namespace {

constexpr CheckpointKind kSweepCheckpoint{"allocsim/sweep-checkpoint/v1", "sweep", -1};

std::string shard_text(const SweepConfig& c) { return fmt::format("{}/{}", c.shard_index + 1, c.shard_count); }

/// The index of work unit `key` (a member name of "done" or "partial" at `where`) of a plan of `n` units.
uint64_t unit_index(const support::JsonReader& rd, const std::string& key, const std::string& where, uint64_t n) {
  size_t used = 0;
  uint64_t u = 0;
  try {
    u = std::stoull(key, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != key.size() || u >= n) rd.fail(where, fmt::format("no work unit \"{}\" (0..{})", key, n - 1));
  return u;
}

/// Entry `ptr` of "scenarios": which plan it is, checked against that plan; its units into `out`.
void read_scenario(const support::JsonReader& rd, const support::Json& s, const std::string& ptr,
                   const std::vector<ScenarioPlan>& plans, ResumeState& out) {
  rd.want_object(s, ptr);
  const std::string spath = rd.string_value(rd.require(s, ptr, "path"), ptr + "/path");
  size_t p = 0;
  while (p < plans.size() && plans[p].path != spath) ++p;
  if (p == plans.size() || !plans[p].scenario)
    rd.fail(ptr, fmt::format("scenario {} is not part of this sweep", spath));
  const std::string digest = rd.string_value(rd.require(s, ptr, "digest"), ptr + "/digest");
  if (digest != plans[p].scenario->digest())
    rd.fail(ptr + "/digest", fmt::format("scenario {} changed since the checkpoint (digest now {}, checkpoint has {}): "
                                         "start a new sweep",
                                         spath, plans[p].scenario->digest(), digest));
  if (rd.string_value(rd.require(s, ptr, "plan"), ptr + "/plan") != plans[p].plan_digest)
    rd.fail(ptr + "/plan", fmt::format("scenario {} was split into other work units", spath));
  const uint64_t n = plans[p].units.size();
  const support::Json& done = rd.require(s, ptr, "done");
  rd.want_object(done, ptr + "/done");
  for (const auto& [key, r] : done.items()) {
    const std::string where = support::child(ptr + "/done", key);
    const uint64_t u = unit_index(rd, key, where, n);
    out.done[{p, u}] = unit_from_json(nlohmann::json(r), rd.file() + ": " + where);
  }
  const support::Json& partial = rd.require(s, ptr, "partial");
  rd.want_object(partial, ptr + "/partial");
  for (const auto& [key, r] : partial.items()) {
    const std::string where = support::child(ptr + "/partial", key);
    const uint64_t u = unit_index(rd, key, where, n);
    rd.want_object(r, where);
    const support::Json& state = rd.require(r, where, "state");
    const support::Json& result = rd.require(r, where, "result");
    if (out.done.count({p, u})) continue;  // finished after this partial state was saved
    out.partial[{p, u}] = {nlohmann::json(state), unit_from_json(nlohmann::json(result), rd.file() + ": " + where),
                           fmt::format("{}: {}/state", rd.file(), where)};
  }
}

ResumeState read_resume_state(const std::string& path, const SweepConfig& config,
                              const std::vector<ScenarioPlan>& plans) {
  const support::Json doc = read_checkpoint(path, kSweepCheckpoint, config.tool_version);
  const support::JsonReader rd(path);
  const nlohmann::json written(rd.require(doc, "", "config")), expected = config_json(config);
  if (written != expected) {
    const ConfigDifference d = config_difference(written, expected);
    rd.fail("/config" + (d.key.empty() ? "" : "/" + d.key),
            fmt::format("written by a sweep with other flags ({} there, {} in this one)", d.a, d.b));
  }
  const std::string shard = rd.string_value(rd.require(doc, "", "shard"), "/shard");
  if (shard != shard_text(config))
    rd.fail("/shard", fmt::format("written by shard {}, this is shard {}", shard, shard_text(config)));
  ResumeState out;
  const support::Json& scenarios = rd.require(doc, "", "scenarios");
  rd.want_array(scenarios, "/scenarios");
  for (size_t i = 0; i < scenarios.size(); ++i)
    read_scenario(rd, scenarios[i], support::child("/scenarios", i), plans, out);
  return out;
}

}  // namespace

ResumeState load_checkpoint(const std::string& path, const SweepConfig& config,
                            const std::vector<ScenarioPlan>& plans) {
  try {
    return read_resume_state(path, config, plans);
  } catch (const support::InputError& e) {
    throw SweepInputError(fmt::format("--resume: {}", e.what()));
  } catch (const SweepInputError& e) {  // a malformed unit result (unit_from_json)
    throw SweepInputError(fmt::format("--resume: {}", e.what()));
  }
}

CheckpointWriter::CheckpointWriter(std::string path, const SweepConfig& config, const std::vector<ScenarioPlan>& plans,
                                   const ResumeState& resumed)
    : path_(std::move(path)), doc_(new_checkpoint<nlohmann::json>(kSweepCheckpoint, config.tool_version)) {
  doc_["config"] = config_json(config);
  doc_["shard"] = shard_text(config);
  doc_["scenarios"] = nlohmann::json::array();
  for (const auto& plan : plans) {
    if (!plan.scenario) {
      entry_of_plan_.push_back(SIZE_MAX);
      continue;
    }
    entry_of_plan_.push_back(doc_["scenarios"].size());
    doc_["scenarios"].push_back({{"path", plan.path},
                                 {"digest", plan.scenario->digest()},
                                 {"plan", plan.plan_digest},
                                 {"work_units", plan.units.size()},
                                 {"done", nlohmann::json::object()},
                                 {"partial", nlohmann::json::object()}});
  }
  for (const auto& [key, r] : resumed.done)
    doc_["scenarios"][entry_of_plan_[key.first]]["done"][std::to_string(key.second)] = unit_to_json(r);
  for (const auto& [key, paused] : resumed.partial)
    doc_["scenarios"][entry_of_plan_[key.first]]["partial"][std::to_string(key.second)] =
        {{"state", paused.state}, {"result", unit_to_json(paused.result)}};
  std::lock_guard lock(mu_);
  write_locked();
}

void CheckpointWriter::unit_done(size_t plan, uint64_t unit, const UnitResult& result) {
  std::lock_guard lock(mu_);
  auto& e = doc_["scenarios"][entry_of_plan_.at(plan)];
  e["done"][std::to_string(unit)] = unit_to_json(result);
  e["partial"].erase(std::to_string(unit));
  write_locked();
}

void CheckpointWriter::unit_partial(size_t plan, uint64_t unit, nlohmann::json state, const UnitResult& result) {
  std::lock_guard lock(mu_);
  doc_["scenarios"][entry_of_plan_.at(plan)]["partial"][std::to_string(unit)] = {{"state", std::move(state)},
                                                                                 {"result", unit_to_json(result)}};
  write_locked();
}

void CheckpointWriter::write_locked() {
  try {
    write_checkpoint(path_, kSweepCheckpoint, doc_);
  } catch (const support::OutputError& e) {
    throw SweepInputError(e.what());  // "--checkpoint: PATH: ..."
  }
}

}  // namespace allocsim::campaign
