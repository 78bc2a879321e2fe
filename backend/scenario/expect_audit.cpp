// Occurrence pins and expect.audit (expect_audit.h): reading them, and their vocabularies.
#include "backend/scenario/expect_audit.h"

#include <fmt/format.h>

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
