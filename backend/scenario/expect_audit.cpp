// Occurrence pins and expect.audit (expect_audit.h): reading, tallying per execution, judging.
#include "backend/scenario/expect_audit.h"

#include <fmt/format.h>

#include "backend/scenario/op_syntax.h"
#include "backend/world/world_state.h"
#include "sim/support/words.h"

namespace allocsim::harness {

namespace {

using Json = support::Json;
using support::child;
using support::contains;
using support::hint;
using support::quote;

/// Whether audit entry `m` matches expect.audit key `key` ("kind" or "kind=detail").
bool matches(const backend::Mutation& m, std::string_view key) {
  const size_t eq = key.find('=');
  if (eq == std::string_view::npos) return m.kind == key;
  return m.kind == key.substr(0, eq) && m.detail == key.substr(eq + 1);
}

bool canonical_index(const std::string& key) {
  if (key.empty() || key.size() > 9) return false;  // an index past the script is refused by its caller
  if (key.size() > 1 && key[0] == '0') return false;
  for (char ch : key)
    if (ch < '0' || ch > '9') return false;
  return true;
}

}  // namespace

const std::vector<const char*>& audit_kinds() {
  // Every kind memory_backend.cpp passes to record(); tests/backend/expect_audit_test.cpp checks the scenarios'
  // audit logs stay within it.
  static const std::vector<const char*> k = {"stamp-owner",    "release-owner",  "publish-entry",    "point-policy",
                                             "record-restore", "label-geometry", "restore-geometry", "strip-entry",
                                             "restore-policy", "delete-map"};
  return k;
}

const std::vector<const char*>& audit_rule_words() {
  static const std::vector<const char*> k = {"sometimes", "never", "always"};
  return k;
}

void ExpectTally::add(const ExpectTally& o) {
  for (const auto& [actor, ops] : o.occurrences)
    for (const auto& [index, outs] : ops)
      for (const auto& [out, n] : outs) occurrences[actor][index][out] += n;
  for (const auto& [key, n] : o.audit) audit[key] += n;
}

void tally_execution(const Scenario& sc, const WorldState& w, ExpectTally& t) {
  const Expectation& e = sc.expect;
  for (const auto& [actor, pins] : e.occurrences) {
    for (size_t a = 0; a < sc.actors.size(); ++a) {
      if (sc.actors[a].name != actor) continue;
      for (const auto& [index, allowed] : pins)
        if (const char* out = w.actors()[a].outcomes[index]) ++t.occurrences[actor][index][out];
    }
  }
  const auto& audit = w.backend().state().audit;
  for (const auto& [key, rule] : e.audit) {
    uint64_t& n = t.audit[key];  // present with 0 once any execution ran, so "never" is reported as judged
    for (const backend::Mutation& m : audit)
      if (matches(m, key)) {
        ++n;
        break;
      }
  }
}

void judge_expect_tally(const Scenario& sc, const ExpectTally& t, uint64_t executions,
                        std::vector<std::string>& unmet) {
  const Expectation& e = sc.expect;
  for (const auto& [actor, pins] : e.occurrences) {
    const auto a = t.occurrences.find(actor);
    if (a == t.occurrences.end()) continue;
    for (const auto& [index, allowed] : pins) {
      const auto o = a->second.find(index);
      if (o == a->second.end()) continue;
      for (const auto& [outcome, n] : o->second) {
        bool ok = false;
        for (const auto& w : allowed) ok |= w == outcome;
        if (!ok)
          unmet.push_back(fmt::format("actor {}: op {} ended in \"{}\" in {}, which expect.actors.{}.{} does not allow",
                                      actor, index, outcome, support::count_of(n, "execution"), actor, index));
      }
    }
  }
  for (const auto& [key, rule] : e.audit) {
    const auto it = t.audit.find(key);
    const uint64_t n = it == t.audit.end() ? 0 : it->second;
    if (rule == AuditRule::Sometimes && n == 0)
      unmet.push_back(fmt::format("audit {} never occurred in {} (expect.audit: sometimes)", key,
                                  support::count_of(executions, "execution")));
    else if (rule == AuditRule::Never && n > 0)
      unmet.push_back(fmt::format("audit {} occurred in {} of {} (expect.audit: never)", key, n,
                                  support::count_of(executions, "execution")));
    else if (rule == AuditRule::Always && n < executions)
      unmet.push_back(fmt::format("audit {} occurred in only {} of {} (expect.audit: always)", key, n,
                                  support::count_of(executions, "execution")));
  }
}

void add_to_counters(const ExpectTally& t, std::map<std::string, uint64_t>& counters) {
  for (const auto& [actor, ops] : t.occurrences)
    for (const auto& [index, outs] : ops)
      for (const auto& [out, n] : outs) counters[fmt::format("occurrence:{}:{}:{}", actor, index, out)] += n;
  for (const auto& [key, n] : t.audit) counters["audit:" + key] += n;
}

ExpectTally tally_from_counters(const std::map<std::string, uint64_t>& counters) {
  ExpectTally t;
  for (const auto& [name, n] : counters) {
    if (name.rfind("audit:", 0) == 0) {
      t.audit[name.substr(6)] += n;
    } else if (name.rfind("occurrence:", 0) == 0) {
      // Outcomes and indices hold no ':'; an actor name might, so it is what is left in the middle.
      const size_t out_at = name.rfind(':');
      const size_t index_at = name.rfind(':', out_at - 1);
      if (index_at <= 10) continue;
      const std::string actor = name.substr(11, index_at - 11);
      const size_t index = std::stoul(name.substr(index_at + 1, out_at - index_at - 1));
      t.occurrences[actor][index][name.substr(out_at + 1)] += n;
    }
  }
  return t;
}

std::vector<std::string> read_occurrence_pin(const ScenarioReader& r, const Json& v, const std::string& ptr,
                                             const ActorSpec& actor, size_t index) {
  if (index >= actor.script.size())
    r.fail(ptr, fmt::format("actor {} has no op {}: its script has {} op(s) (an index key pins "
                            "/actors/.../script/<index>)",
                            quote(actor.name), index, actor.script.size()));
  const Op& op = actor.script[index];
  const auto& vocabulary = op_outcomes(op.kind);
  r.want_array(v, ptr);
  if (v.empty()) r.fail(ptr, fmt::format("expected a non-empty array of {} outcomes, got []", quote(op_name(op.kind))));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = child(ptr, i);
    std::string word = r.string_value(v[i], p);
    if (!contains(vocabulary, word))
      r.fail(p, fmt::format("unknown outcome {} for op {} ({}){}", quote(word), index, quote(op_name(op.kind)),
                            hint(word, vocabulary)));
    r.reject_duplicate(out, word, ptr, p, "outcome");
    out.push_back(std::move(word));
  }
  return out;
}

OrderedMap<std::string, AuditRule> read_expect_audit(const ScenarioReader& r, const Json& v, const std::string& ptr) {
  r.want_object(v, ptr);
  if (v.empty()) r.fail(ptr, "expected an object of audit kind -> \"sometimes\" | \"never\" | \"always\", got {}");
  OrderedMap<std::string, AuditRule> out;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string p = child(ptr, it.key());
    const std::string kind = it.key().substr(0, it.key().find('='));
    if (!contains(audit_kinds(), kind))
      r.fail(p, fmt::format("unknown audit kind {}{}", quote(kind), hint(kind, audit_kinds())));
    const std::string word = r.choice(it.value(), p, audit_rule_words());
    AuditRule rule = AuditRule::Sometimes;
    for (size_t i = 0; i < audit_rule_words().size(); ++i)
      if (word == audit_rule_words()[i]) rule = static_cast<AuditRule>(i);
    out.emplace_back(it.key(), rule);
  }
  return out;
}

bool is_occurrence_key(const std::string& key) { return !key.empty() && key[0] >= '0' && key[0] <= '9'; }
size_t occurrence_index(const ScenarioReader& r, const std::string& key, const std::string& ptr) {
  if (!canonical_index(key))
    r.fail(ptr, fmt::format("expected a script index in decimal without leading zeros, got {}", quote(key)));
  return std::stoul(key);
}

}  // namespace allocsim::harness
