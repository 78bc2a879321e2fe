// Occurrence pins and expect.audit (expect_audit.h): reading them, and their vocabularies.
#include "backend/scenario/expect_audit.h"

#include <fmt/format.h>

#include "backend/scenario/conditional_ops.h"
#include "backend/scenario/op_syntax.h"

namespace allocsim::harness {

namespace {

using Json = support::Json;
using support::child;
using support::contains;
using support::hint;
using support::quote;

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

Json audit_rule_json(const AuditRule& rule) {
  if (rule.word != AuditRule::Word::Counted) return audit_rule_words()[static_cast<size_t>(rule.word)];
  if (rule.at_least && rule.at_most && *rule.at_least == *rule.at_most) return Json{{"exactly", *rule.at_least}};
  Json out = Json::object();
  if (rule.at_least) out["at_least"] = *rule.at_least;
  if (rule.at_most) out["at_most"] = *rule.at_most;
  return out;
}

std::vector<std::string> read_occurrence_pin(const ScenarioReader& r, const Json& v, const std::string& ptr,
                                             const ActorSpec& actor, size_t index) {
  if (index >= actor.script.size())
    r.fail(ptr, fmt::format("actor {} has no op {}: its script has {} op(s) (an index key pins "
                            "/actors/.../script/<index>)",
                            quote(actor.name), index, actor.script.size()));
  const Op& op = actor.script[index];
  // With `skipped` where the op has a `when`, and for a write-behind's background actor.
  const std::vector<const char*> vocabulary = occurrence_vocabulary(actor, index);
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

namespace {

/// The bounds object of a counted rule at `ptr`: at_least and/or at_most, or exactly alone.
AuditRule read_audit_bounds(const ScenarioReader& r, const Json& v, const std::string& ptr) {
  static const std::vector<const char*> keys = {"at_least", "at_most", "exactly"};
  r.check_keys(v, ptr, keys, " of an audit count");
  if (v.empty()) r.fail(ptr, "expected at_least, at_most or exactly, got {}");
  constexpr int kMost = 1'000'000;
  AuditRule rule;
  rule.word = AuditRule::Word::Counted;
  if (const Json* n = ScenarioReader::find(v, "exactly")) {
    if (v.size() > 1) r.fail(ptr, "exactly stands alone: it is at_least and at_most at once");
    rule.at_least = rule.at_most = uint64_t(r.int_value(*n, child(ptr, "exactly"), 0, kMost));
    return rule;
  }
  if (const Json* n = ScenarioReader::find(v, "at_least"))
    rule.at_least = uint64_t(r.int_value(*n, child(ptr, "at_least"), 0, kMost));
  if (const Json* n = ScenarioReader::find(v, "at_most"))
    rule.at_most = uint64_t(r.int_value(*n, child(ptr, "at_most"), 0, kMost));
  if (rule.at_least && rule.at_most && *rule.at_least > *rule.at_most)
    r.fail(child(ptr, "at_most"),
           fmt::format("at_most {} is below at_least {}: no execution could meet it", *rule.at_most, *rule.at_least));
  return rule;
}

}  // namespace

OrderedMap<std::string, AuditRule> read_expect_audit(const ScenarioReader& r, const Json& v, const std::string& ptr) {
  r.want_object(v, ptr);
  if (v.empty())
    r.fail(ptr,
           "expected an object of audit kind -> \"sometimes\" | \"never\" | \"always\" | {at_least, at_most, "
           "exactly}, got {}");
  OrderedMap<std::string, AuditRule> out;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string p = child(ptr, it.key());
    const std::string kind = it.key().substr(0, it.key().find('='));
    if (!contains(audit_kinds(), kind))
      r.fail(p, fmt::format("unknown audit kind {}{}", quote(kind), hint(kind, audit_kinds())));
    if (it.value().is_object()) {
      out.emplace_back(it.key(), read_audit_bounds(r, it.value(), p));
      continue;
    }
    if (!it.value().is_string())
      r.fail(p, "expected \"sometimes\" | \"never\" | \"always\" or a count {at_least, at_most, exactly}");
    const std::string word = r.choice(it.value(), p, audit_rule_words());
    AuditRule rule;
    for (size_t i = 0; i < audit_rule_words().size(); ++i)
      if (word == audit_rule_words()[i]) rule.word = static_cast<AuditRule::Word>(i);
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
