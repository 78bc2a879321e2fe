#include "backend/world/actor_symmetry.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backend/model/barriers.h"
#include "backend/model/mig_geometry.h"
#include "backend/scenario/scenario_json.h"

namespace allocsim::harness {

namespace {

/// Words the backend and the harness write in their own strings, beyond those the tables below give: id kinds
/// ("claim-A-1"), audit kinds and details, object and read names, the contract's status and class words, GPU
/// identities. An actor or workload named one of them could not be told apart from them (rule 3).
constexpr std::string_view kBackendWords[] =
    {"allocsim",      "claim",    "gen",       "plan",     "op",        "release",  "owner",       "entry",
     "node",          "nodes",    "pods",      "pod",      "config",    "clock",    "map",         "videoflow",
     "clusterpolicy", "backend",  "life",      "restore",  "strip",     "stamp",    "label",       "labels",
     "geometry",      "pending",  "failed",    "true",     "false",     "none",     "null",        "success",
     "rollback",      "absent",   "delete",    "publish",  "point",     "policy",   "record",      "allocated",
     "prepared",      "ready",    "releasing", "released", "recovery",  "stale",    "complete",    "partial",
     "physical",      "mig",      "time",      "sliced",   "mps",       "unknown",  "default",     "parted",
     "all",           "disabled", "GPU",       "MIG",      "exclusive", "isolated", "cooperative", "accounting",
     "only",          "device",   "plugin",    "managed",  "local",     "dra",      "fault",       "hidden",
     "hollow",        "reads",    "writes",    "lock",     "seen",      "fixed"};

/// Every word (a run of letters, digits and '_') of `text`, into `out`.
void add_words(std::string_view text, std::set<std::string, std::less<>>& out) {
  for (size_t i = 0; i < text.size();) {
    size_t j = i;
    while (j < text.size() && name_word_char(text[j])) ++j;
    if (j > i) out.emplace(text.substr(i, j - i));
    i = j + 1;
  }
}

/// The reserved words: kBackendWords, and the words of every barrier name, op name and op outcome (the engine's
/// points and an actor's outcomes are strings the state holds).
const std::set<std::string, std::less<>>& reserved_words() {
  static const std::set<std::string, std::less<>> words = [] {
    std::set<std::string, std::less<>> w;
    for (std::string_view x : kBackendWords) add_words(x, w);
    for (const backend::Named& b : backend::barrier_table()) add_words(b.name, w);
    for (const backend::MigFamily& f : backend::mig_families()) {  // profiles and product keys name devices
      add_words(f.key, w);
      for (const backend::MigProfile& p : f.profiles) add_words(p.name, w);
    }
    for (size_t k = 0; k < op_names().size(); ++k) {
      add_words(op_names()[k], w);
      for (const char* o : op_outcomes(OpKind(k))) add_words(o, w);
    }
    return w;
  }();
  return words;
}

/// Why `n` cannot be an own name (rule 3), or "" when it can: empty, all digits (the ids' counters), or holding a word
/// the backend writes itself (so "owner" and "release-owner" are out, "flow-1" is not).
std::string reserved_because(std::string_view n) {
  const auto digits = [](std::string_view w) {
    return std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (n.empty()) return "is empty";
  if (digits(n)) return "is all digits, as the ids' counters are";
  std::set<std::string, std::less<>> words;
  add_words(n, words);
  for (const std::string& w : words) {
    if (reserved_words().contains(w)) return fmt::format("holds \"{}\", a word the backend writes itself", w);
    for (std::string_view prefix : {"op", "release"})  // the op ids' "op3", "release2"
      if (w.size() > prefix.size() && w.starts_with(prefix) && digits(std::string_view(w).substr(prefix.size())))
        return fmt::format("holds \"{}\", the form of an operation id (op3, release2)", w);
  }
  return "";
}
bool reserved(std::string_view n) { return !reserved_because(n).empty(); }

/// Whether `name` occurs in `text` as a whole word.
bool occurs(std::string_view text, std::string_view name) {
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const bool before = at > 0 && name_word_char(text[at - 1]);
    const bool after = at + name.size() < text.size() && name_word_char(text[at + name.size()]);
    if (!before && !after) return true;
  }
  return false;
}

/// The workloads `a`'s script names, in first-occurrence order.
std::vector<std::string> workloads_of(const ActorSpec& a) {
  std::vector<std::string> out;
  const auto add = [&](const std::string& w) {
    if (!w.empty() && std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  };
  for (const Op& op : a.script) {
    for (const RequestSpec& r : op.requests) add(r.workload);
    add(op.workload);
    for (const std::string& w : op.workloads) add(w);
  }
  return out;
}

}  // namespace

ActorSymmetry find_interchangeable(const Scenario& sc) {
  ActorSymmetry out;
  const size_t n = sc.actors.size();
  if (n < 2) {
    out.unpaired.push_back("the scenario has one actor");
    return out;
  }
  if (!sc.order.empty()) {
    out.unpaired.push_back("the scenario has an `order`, whose labels name actors (rule 4)");
    return out;
  }
  nlohmann::ordered_json doc = scenario_to_json(sc);
  // Prose never decides anything: a description that says "flowA races flowB" keeps them interchangeable.
  doc.erase("name");
  doc.erase("description");
  std::vector<std::string> scripts(n);
  for (size_t i = 0; i < n; ++i) scripts[i] = doc["actors"][i]["script"].dump();
  doc.erase("actors");
  const std::string rest = doc.dump();
  // Where a name occurs outside the scripts, for the reason printed: the top-level key that holds it.
  const auto where_outside = [&doc](const std::string& name) {
    for (const auto& [key, value] : doc.items())
      if (occurs(key, name) || occurs(value.dump(), name)) return "/" + key;
    return std::string("the scenario outside the scripts");
  };

  std::vector<std::vector<std::string>> own(n);
  std::vector<std::string> why(n);  // the first rule that rules actor i out ("" while none has)
  const auto rule_out = [&](size_t i, std::string reason) {
    if (why[i].empty()) why[i] = std::move(reason);
  };
  for (size_t i = 0; i < n; ++i) {
    own[i] = {sc.actors[i].name};
    for (std::string& w : workloads_of(sc.actors[i])) own[i].push_back(std::move(w));
    for (const Op& op : sc.actors[i].script)
      if (op.kind == OpKind::Recover)  // waits on another flow's life mutex
        rule_out(i, "it recovers another flow (rule 4)");
      else if (op.behind)  // holds its background actor's gate (conditional_ops.h)
        rule_out(i, "it issues a write-behind (rule 4)");
    if (sc.actors[i].behind_of) rule_out(i, "it runs another actor's write-behind (rule 4)");
    // Its identity is in its reserves' operation ids and the owner stamps, where a renaming would not reach it.
    if (sc.actors[i].owner) rule_out(i, "it has an owner identity of its own (rule 4)");
  }
  // An own name inside an identity ("flowA" in "flowA-replica", or flowA itself) would be renamed in the stamps and
  // operation ids that carry the identity, which no renaming of the file maps back.
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (sc.actors[j].owner)
        for (const std::string& name : own[i])
          if (occurs(*sc.actors[j].owner, name))
            rule_out(i, fmt::format("\"{}\" occurs in {}'s owner identity {} (rule 4)", name, sc.actors[j].name,
                                    *sc.actors[j].owner));
  // A reserved own name rules out its actor alone: such a word occurs in every script's keys and values ("plan",
  // "false"), and must not make the other actors look named.
  for (size_t i = 0; i < n; ++i)
    for (const std::string& name : own[i])
      if (const std::string because = reserved_because(name); !because.empty())
        rule_out(i, fmt::format("its own name \"{}\" {} (rule 3)", name, because));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      for (const std::string& name : own[i]) {
        if (reserved(name)) continue;
        if (occurs(rest, name)) rule_out(i, fmt::format("\"{}\" occurs in {} (rule 2)", name, where_outside(name)));
        if (j != i && occurs(scripts[j], name)) {
          rule_out(i, fmt::format("\"{}\" occurs in {}'s script (rule 2)", name, sc.actors[j].name));
          rule_out(j, fmt::format("its script names \"{}\", {}'s (rule 2)", name, sc.actors[i].name));
        }
        for (const std::string& other : own[j]) {
          if (&other == &name) continue;
          if (other == name && j == i)
            rule_out(i, fmt::format("its workload \"{}\" is its name (rule 3)", name));
          else if (other == name)
            rule_out(i, fmt::format("\"{}\" is also {}'s own name (rule 3)", name, sc.actors[j].name));
          else if (occurs(other, name))
            rule_out(i, fmt::format("\"{}\" occurs inside \"{}\" (rule 3)", name, other));
          else if (occurs(name, other))
            rule_out(i, fmt::format("\"{}\" occurs inside \"{}\" (rule 3)", other, name));
        }
      }
  std::vector<bool> eligible(n);
  for (size_t i = 0; i < n; ++i) eligible[i] = why[i].empty();
  // Rule 1: the script with each own name replaced by its place among them (for every actor, so that the reason an
  // eligible actor is alone can name the actors of its shape that other rules left out).
  std::map<std::string, std::vector<sim::ActorId>> by_shape;
  std::vector<std::string> shapes(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<OwnName> names;
    // Reserved names stay as they are (only a left-out actor has one): replacing "plan" would replace the op name.
    for (size_t k = 0; k < own[i].size(); ++k)
      if (!reserved(own[i][k])) names.push_back({own[i][k], sim::ActorId(i), uint32_t(k)});
    std::stable_sort(names.begin(), names.end(),
                     [](const auto& a, const auto& b) { return a.name.size() > b.name.size(); });
    std::array<bool, 256> starts{};
    for (const OwnName& o : names) starts[static_cast<unsigned char>(o.name[0])] = true;
    std::string shape;
    split_names(
        scripts[i], names, starts, [&](std::string_view text) { shape += text; },
        [&](const OwnName& o) { shape += "\x01" + std::to_string(o.place) + "\x02"; });
    shapes[i] = std::to_string(own[i].size()) + ":" + shape;
    if (eligible[i]) by_shape[shapes[i]].push_back(sim::ActorId(i));
  }
  for (auto& [shape, members] : by_shape) {
    if (members.size() > 1) {
      out.classes.push_back(members);
      continue;
    }
    std::vector<std::string> left_out;  // same shape, ruled out above
    for (size_t j = 0; j < n; ++j)
      if (!eligible[j] && shapes[j] == shape) left_out.push_back(sc.actors[j].name);
    rule_out(members[0], left_out.empty()
                             ? std::string("no other actor's script is the same up to its own names (rule 1)")
                             : fmt::format("the other actors whose scripts are the same up to their own names ({}) "
                                           "are left out by rules 2-4 (rule 1)",
                                           fmt::join(left_out, ", ")));
  }
  std::sort(out.classes.begin(), out.classes.end());
  for (size_t i = 0; i < n; ++i)
    if (!why[i].empty()) out.unpaired.push_back(sc.actors[i].name + ": " + why[i]);
  for (const auto& cls : out.classes)
    for (const sim::ActorId a : cls)
      for (size_t k = 0; k < own[a].size(); ++k) out.names.push_back({own[a][k], a, uint32_t(k)});
  std::stable_sort(out.names.begin(), out.names.end(),
                   [](const auto& a, const auto& b) { return a.name.size() > b.name.size(); });
  for (const OwnName& o : out.names) out.starts[static_cast<unsigned char>(o.name[0])] = true;
  return out;
}

}  // namespace allocsim::harness
