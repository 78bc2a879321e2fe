// How a trace reads to a person and to Perfetto: the minimal trace as a table with one column per actor,
// the state the invariant saw before and after the last step, and Chrome trace-event JSON.
// Output depends only on the trace (no addresses, no wall clock), so `run`, `shrink` and `replay` of the
// same trace print the same bytes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/campaign/trace_file.h"

namespace allocsim::cli {

/// The steps as a table: a step column (preemptions marked '*'), one column per actor (in scenario order)
/// holding the point each step resumed from in its actor's column, and the step's details.
std::string actor_table(const campaign::Trace& t);

/// The trace's explanation (absent: ""): the summary, the racing pairs (step numbers, labels, objects, what
/// the reversal did), the causal slice with the other steps folded, and the order block that pins it.
std::string explanation_text(const campaign::Trace& t);

/// The order block `block` and what it was checked to do (campaign::Explanation::pin, `needs`), for adding to
/// the `order` of `file` (empty: the trace's scenario); `pairs`: there were racing pairs to try first. ""
/// when there is neither a block nor a check.
std::string order_block_text(const std::vector<std::pair<std::string, std::string>>& block, const std::string& pin,
                             const std::string& needs, const std::string& file, bool pairs);

/// The violation, a one-line size summary (and what it was shrunk from), the explanation when the trace
/// has one (explanation_text), the actor table, the state the
/// invariant saw before and after the last step, and the fingerprint. Ends with "fingerprint: X\n".
std::string explain_trace(const campaign::Trace& t);

/// Chrome trace-event JSON (the format Perfetto and chrome://tracing open): one thread per actor, a
/// complete event per step on a fake time axis (step i spans [i, i+1) microseconds), and the violation
/// as an instant event after the last step.
std::string perfetto_json(const campaign::Trace& t);

}  // namespace allocsim::cli
