#include "sim/campaign/sweep_checkpoint.h"

#include "sim/campaign/checkpoint.h"
#include "sim/support/atomic_write.h"
#include "sim/support/json_reader.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace allocsim::campaign {

namespace {

constexpr CheckpointKind kSweepCheckpoint{"allocsim/sweep-checkpoint/v1", "sweep", -1};
constexpr const char* kCheckpointSchema = kSweepCheckpoint.schema;

// A checkpoint holds every finished unit's result and strategy state: more than a scenario file.
constexpr support::TextRules kCheckpointRules{size_t{1} << 30, 64, "checkpoints"};

std::string shard_text(const SweepConfig& c) { return fmt::format("{}/{}", c.shard_index + 1, c.shard_count); }

}  // namespace

ResumeState load_checkpoint(const std::string& path, const SweepConfig& config,
                            const std::vector<ScenarioPlan>& plans) {
  nlohmann::json doc;
  try {
    doc = support::read_strict_json(path, kCheckpointRules);
  } catch (const support::InputError& e) {
    throw SweepInputError(e.reworded("not a valid checkpoint: " + e.message()));
  }
  const auto fail = [&](const std::string& ptr, const std::string& msg) {
    return SweepInputError(support::located(path, ptr, msg));
  };
  if (!doc.is_object() || doc.value("schema", "") != kCheckpointSchema)
    throw fail("/schema", fmt::format("expected \"{}\"", kCheckpointSchema));
  if (doc.value("tool_version", "") != config.tool_version)
    throw fail("/tool_version", fmt::format("written by allocsim {}, this is allocsim {}: start a new sweep",
                                            doc.value("tool_version", "?"), config.tool_version));
  if (doc.value("config", nlohmann::json()) != config_json(config))
    throw fail("/config", fmt::format("written by a sweep with other flags ({}), this one has {}",
                                      doc.value("config", nlohmann::json()).dump(), config_json(config).dump()));
  if (doc.value("shard", "") != shard_text(config))
    throw fail("/shard",
               fmt::format("written by shard {}, this is shard {}", doc.value("shard", "?"), shard_text(config)));
  ResumeState out;
  try {
    const auto& scenarios = doc.at("scenarios");
    for (size_t i = 0; i < scenarios.size(); ++i) {
      const auto& s = scenarios[i];
      const std::string ptr = fmt::format("/scenarios/{}", i);
      const std::string spath = s.at("path").get<std::string>();
      size_t p = 0;
      while (p < plans.size() && plans[p].path != spath) ++p;
      if (p == plans.size() || !plans[p].scenario)
        throw fail(ptr, fmt::format("scenario {} is not part of this sweep", spath));
      const std::string digest = s.at("digest").get<std::string>();
      if (digest != plans[p].scenario->digest())
        throw fail(ptr + "/digest", fmt::format("scenario {} changed since the checkpoint (digest now {}, "
                                                "checkpoint has {}): start a new sweep",
                                                spath, plans[p].scenario->digest(), digest));
      if (s.at("plan").get<std::string>() != plans[p].plan_digest)
        throw fail(ptr + "/plan", fmt::format("scenario {} was split into other work units", spath));
      const uint64_t n = plans[p].units.size();
      const auto unit_index = [&](const std::string& key, const std::string& where) {
        size_t used = 0;
        uint64_t u = 0;
        try {
          u = std::stoull(key, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != key.size() || u >= n) throw fail(where, fmt::format("no work unit \"{}\" (0..{})", key, n - 1));
        return u;
      };
      for (const auto& [key, r] : s.at("done").items()) {
        const std::string where = ptr + "/done/" + key;
        out.done[{p, unit_index(key, where)}] = unit_from_json(r, path + ": " + where);
      }
      for (const auto& [key, r] : s.at("partial").items()) {
        const std::string where = ptr + "/partial/" + key;
        const uint64_t u = unit_index(key, where);
        if (out.done.count({p, u})) continue;  // finished after this partial state was saved
        out.partial[{p, u}] = {r.at("state"), unit_from_json(r.at("result"), path + ": " + where)};
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw SweepInputError(fmt::format("{}: malformed checkpoint: {}", path, e.what()));
  }
  return out;
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
  for (const auto& [key, sr] : resumed.partial)
    doc_["scenarios"][entry_of_plan_[key.first]]["partial"][std::to_string(key.second)] = {{"state", sr.first},
                                                                                           {"result",
                                                                                            unit_to_json(sr.second)}};
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
    throw SweepInputError(fmt::format("--checkpoint: {}", e.what()));
  }
}

}  // namespace allocsim::campaign
