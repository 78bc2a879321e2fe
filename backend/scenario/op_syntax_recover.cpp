// The syntax of `recover` (op_syntax.h, scenario.h); its behaviour is backend/ops/op_recover.cpp.
#include "backend/scenario/op_syntax.h"

#include <algorithm>

#include <fmt/format.h>

#include "backend/scenario/scenario_reader.h"

namespace allocsim::harness {
namespace {

using Json = nlohmann::ordered_json;
using support::child;
using support::quote;

void parse_recover(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.flow = r.nonempty_string(r.require(v, ptr, "flow"), child(ptr, "flow"));
  if (const Json* w = r.find(v, "wait")) op.wait_for_end = r.bool_value(*w, child(ptr, "wait"));
}

void resolve_recover(const ScenarioReader& r, const Op& op, const std::string& self,
                     const std::vector<std::string>& actors) {
  const std::string ptr = child(op.pointer, "flow");
  if (op.flow == self)
    r.fail(ptr, fmt::format("recover names the actor itself ({}); a flow's own cleanup is \"release\"", quote(self)));
  std::vector<const char*> known;
  for (const std::string& n : actors) known.push_back(n.c_str());
  if (!support::contains(known, op.flow))
    r.fail(ptr, fmt::format("actor {} is not in /actors{}", quote(op.flow), support::did_you_mean(op.flow, known)));
  // The flow holds its end (the lock recover waits for) from its first step, taken as the actors start in
  // their listed order (docs/DESIGN.md §4, the op table): a recover listed before its flow would find that
  // lock free and run before the flow has begun.
  const auto at = [&](const std::string& name) { return std::find(actors.begin(), actors.end(), name); };
  if (op.wait_for_end && at(op.flow) > at(self))
    r.fail(ptr, fmt::format("recover's flow {} is listed after {} in /actors; list the flow first (it holds its end "
                            "from its first step, which a recover listed before it would not wait for)",
                            quote(op.flow), quote(self)));
}

void json_recover(const Op& op, Json& j) {
  j["flow"] = op.flow;
  if (!op.wait_for_end) j["wait"] = false;
}

}  // namespace

std::vector<OpSyntax> recover_op_syntax() {
  return {
      {OpKind::Recover,
       "recover",
       R"json({
         "description": "Re-run another flow's cleanup (release by the recorded claim and generation), as a restarted controller would once the flow has ended (ALLOC-033); with wait false, at once, as a sweeper would while the flow may still run.",
         "properties": {
           "flow": {"description": "The flow to clean up: an actor in /actors, not this one (listed before this one when the recover waits).", "type": "string", "minLength": 1},
           "wait": {"description": "Wait for the flow's actor to end first (default). false: a sweeper that believes the flow's lease expired and cleans up at once, while the flow may still run; recovery-converges does not judge it.", "type": "boolean", "default": true}
         },
         "required": ["flow"]
       })json",
       {"released", "none", "pending_recovery", "stale", "error", "unknown", "crashed"},  //
       parse_recover,
       resolve_recover,
       json_recover,
       nullptr,
       {"recover", "release"}},
  };
}

}  // namespace allocsim::harness
