#include "backend/system/judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "sim/support/words.h"

namespace allocsim::harness {

namespace {

/// Whether audit entry `m` matches expect.audit key `key` ("kind" or "kind=detail").
bool matches(const backend::Mutation& m, std::string_view key) {
  const size_t eq = key.find('=');
  if (eq == std::string_view::npos) return m.kind == key;
  return m.kind == key.substr(0, eq) && m.detail == key.substr(eq + 1);
}

/// "at most 1", "exactly 1", "at least 1 and at most 3": a counted rule as the unmet line says it.
std::string bounds_text(const AuditRule& rule) {
  if (rule.at_least && rule.at_most && *rule.at_least == *rule.at_most)
    return fmt::format("exactly {}", *rule.at_least);
  if (rule.at_least && rule.at_most) return fmt::format("at least {} and at most {}", *rule.at_least, *rule.at_most);
  return rule.at_least ? fmt::format("at least {}", *rule.at_least) : fmt::format("at most {}", *rule.at_most);
}

}  // namespace

void judge_report(const Scenario& sc, campaign::RunReport& r) {
  // The verdict is recomputed from the report, never appended to: judging a report twice (a caller that
  // re-judges after combining, say) must not list every unmet expectation twice.
  r.unmet.clear();
  const auto& e = sc.expect;
  const auto& by = r.summary.violations_by_invariant;
  if (e.pass) {
    for (const auto& [inv, n] : by)
      r.unmet.push_back(
          fmt::format("expected no violation, but {} violated {}", support::count_of(n, "execution"), inv));
  } else {
    bool found = false;
    for (const auto& [inv, n] : by) {
      bool allowed = false;
      for (const auto& want : e.violations) allowed |= want == inv;
      found |= allowed;
      if (!allowed)
        r.unmet.push_back(
            fmt::format("{} violated {}, which the scenario does not expect", support::count_of(n, "execution"), inv));
    }
    if (!found) {
      std::string names;
      for (const auto& v : e.violations) names += (names.empty() ? "" : " or ") + v;
      r.unmet.push_back(fmt::format("expected a violation of {}, but none of {} found one", names,
                                    support::count_of(r.summary.executions, "execution")));
    }
  }
  for (const auto& [actor, ops] : e.actors) {
    for (const auto& [op, allowed] : ops) {
      auto a = r.outcomes.find(actor);
      if (a == r.outcomes.end()) continue;
      auto o = a->second.find(op);
      if (o == a->second.end()) continue;
      for (const auto& [outcome, n] : o->second) {
        bool ok = false;
        for (const auto& w : allowed) ok |= w == outcome;
        if (!ok)
          r.unmet.push_back(fmt::format("actor {}: {} ended in \"{}\" in {}, which expect.actors does not allow", actor,
                                        op, outcome, support::count_of(n, "execution")));
      }
    }
  }
  // An execution ends at its first violation, so a barrier behind that point cannot fire in it: reach is
  // judged only on executions that got that far. When none ended without a violation, the window was never
  // given a chance, and blaming the schedule would send the reader the wrong way.
  const uint64_t clean = r.summary.executions - r.summary.violating_executions;
  for (const auto& want : e.reach) {
    bool hit = false;
    for (const auto& got : r.reached) hit |= got == want;
    if (hit) continue;
    if (clean == 0 && r.summary.executions > 0)
      r.unmet.push_back(
          fmt::format("barrier {} never fired (expect.reach): every one of the {} stopped "
                      "at a violation before it could fire (reach is judged only on executions "
                      "that get that far)",
                      want, support::count_of(r.summary.executions, "execution")));
    else
      r.unmet.push_back(fmt::format("barrier {} never fired in {} (expect.reach): the race window was not reached",
                                    want, support::count_of(r.summary.executions, "execution")));
  }
  judge_expect_tally(sc, tally_from_counters(r.counters), r.summary.executions, r.unmet);
  r.met = r.unmet.empty();
}

void ExpectTally::add(const ExpectTally& o) {
  for (const auto& [actor, ops] : o.occurrences)
    for (const auto& [index, outs] : ops)
      for (const auto& [out, n] : outs) occurrences[actor][index][out] += n;
  for (const auto& [key, n] : o.audit) audit[key] += n;
  for (const auto& [key, times] : o.audit_times)
    for (const auto& [k, n] : times) audit_times[key][k] += n;
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
    uint64_t entries = 0;
    for (const backend::Mutation& m : audit) entries += matches(m, key);
    n += entries > 0;
    if (rule.word == AuditRule::Word::Counted) ++t.audit_times[key][entries];
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
    if (rule.word == AuditRule::Word::Counted) {
      const auto times = t.audit_times.find(key);
      if (times == t.audit_times.end()) continue;
      for (const auto& [k, execs] : times->second)
        if ((rule.at_least && k < *rule.at_least) || (rule.at_most && k > *rule.at_most))
          unmet.push_back(fmt::format("audit {} occurred {} in {} (expect.audit: {})", key,
                                      support::count_of(k, "time"), support::count_of(execs, "execution"),
                                      bounds_text(rule)));
      continue;
    }
    if (rule.word == AuditRule::Word::Sometimes && n == 0)
      unmet.push_back(fmt::format("audit {} never occurred in {} (expect.audit: sometimes)", key,
                                  support::count_of(executions, "execution")));
    else if (rule.word == AuditRule::Word::Never && n > 0)
      unmet.push_back(fmt::format("audit {} occurred in {} of {} (expect.audit: never)", key, n,
                                  support::count_of(executions, "execution")));
    else if (rule.word == AuditRule::Word::Always && n < executions)
      unmet.push_back(fmt::format("audit {} occurred in only {} of {} (expect.audit: always)", key, n,
                                  support::count_of(executions, "execution")));
  }
}

void add_to_counters(const ExpectTally& t, std::map<std::string, uint64_t>& counters) {
  for (const auto& [actor, ops] : t.occurrences)
    for (const auto& [index, outs] : ops)
      for (const auto& [out, n] : outs) counters[fmt::format("occurrence:{}:{}:{}", actor, index, out)] += n;
  for (const auto& [key, n] : t.audit) counters["audit:" + key] += n;
  for (const auto& [key, times] : t.audit_times)
    for (const auto& [k, n] : times) counters[fmt::format("audit-times:{}:{}", key, k)] += n;
}

ExpectTally tally_from_counters(const std::map<std::string, uint64_t>& counters) {
  ExpectTally t;
  for (const auto& [name, n] : counters) {
    if (name.rfind("audit:", 0) == 0) {
      t.audit[name.substr(6)] += n;
    } else if (name.rfind("audit-times:", 0) == 0) {
      // The count is digits after the last ':'; a key's detail may hold ':' itself. A name this file did not write
      // (no digits there, or too many) is ignored, as the header says.
      const size_t at = name.rfind(':');
      const std::string digits = name.substr(at + 1);
      if (at < 12 || digits.empty() || digits.size() > 18 ||
          !std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
        continue;
      t.audit_times[name.substr(12, at - 12)][std::stoull(digits)] += n;
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

}  // namespace allocsim::harness
