// `allocsim findings diff NIGHT... TONIGHT` (docs/DESIGN.md §7 "Findings diff"): what changed in the nightly
// job's findings since the nights before, by finding signature.
//
// A night is the reports one nightly run wrote, given as a file or a folder:
// - a sweep report (schema allocsim/sweep-report/v1, `sweep --report-json`, `merge`);
// - a swarm summary (schema allocsim/swarm/v1, DIR/summary.json of `swarm --out DIR`, or `--report-json`);
// - a folder holding any of sweep.json, summary.json, swarm/summary.json (nightly.sh's OUT, a swarm --out):
//   every one present is read, in that order; a folder with none of them is an error.
// A night's findings, each with a signature that stays the same from night to night (no seed, no path of the
// checkout, no count in it):
// - `sweep SCENARIO INVARIANT`: a scenario (by its `name`) whose expectation was not met, with the invariant
//   of its first violation; `sweep SCENARIO unmet` when it has none (an expected violation not found, a
//   reach or audit rule unmet). Undecided scenarios (a shard's) are not findings; met ones are not either,
//   expected violations included.
// - `input-error FILE POINTER`: a scenario file the sweep could not load (FILE: the file name alone).
// - `swarm SIGNATURE`: a distinct swarm finding (its summary signature: the invariant and racing pair, or
//   op skeleton; docs/DESIGN.md §7 "Swarm").
// Each finding keeps its replay line (sweep: first_violation.replay; swarm: `allocsim replay DIR/TRACE`) and
// the HTML section that shows it, when that page exists beside the report (sweep: `sweep.html#vK`, K as
// sweep --report-html numbers its sections; swarm: `report.html#vK` in the swarm folder, K the finding's
// place in the summary, as swarm --report-html numbers them, swarm_html.h).
//
// Classes (each signature seen in any night gets exactly one; `earlier` = every night before TONIGHT):
//   new            in TONIGHT, in no earlier night
//   still failing  in TONIGHT and in every earlier night
//   rare           in some nights only, and neither new nor resolved: in TONIGHT but missing from an earlier
//                  night (it comes and goes), or only in nights before LAST (flaky, not seen since)
//   resolved       in LAST (the night before TONIGHT), not in TONIGHT
// Errors: support::InputError naming the file and the JSON pointer (exit 2 in cmd_findings.cpp).
// Determinism: entries are ordered by class, then signature; nothing depends on time or hash order.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace allocsim::cli {

/// One finding of one night (see above).
struct NightFinding {
  std::string signature;
  std::string source;   // "sweep" | "swarm" | "input-error"
  std::string summary;  // one line: what broke, where
  std::string replay;   // the command that replays it, or ""
  std::string html;     // the report section that shows it ("DIR/sweep.html#v3"), or ""
  std::string where;    // the report and JSON pointer it was read from ("n/sweep.json /scenarios/4")
};

struct Night {
  std::string label;                             // as given on the command line
  std::vector<std::string> files;                // the reports read, in order
  std::map<std::string, NightFinding> findings;  // by signature (a repeat in one night is counted once)
};

/// Reads one night (a report file or a folder; see above). Throws support::InputError.
Night read_night(const std::string& path);

enum class FindingClass { fresh, still_failing, rare, resolved };
/// "new", "still failing", "rare", "resolved".
const char* class_name(FindingClass c);

struct DiffEntry {
  FindingClass cls;
  NightFinding finding;    // as TONIGHT reported it, else the latest night that did
  std::vector<bool> seen;  // per night given, oldest first
  size_t nights_seen() const;
};

struct FindingsDiff {
  std::vector<std::string> nights;  // labels, oldest first; the last is TONIGHT
  std::vector<DiffEntry> entries;   // by class (new, still failing, rare, resolved), then signature
  size_t count(FindingClass c) const;
};

/// Classifies every signature of `nights` (oldest first, at least two; the last is TONIGHT).
FindingsDiff diff_nights(const std::vector<Night>& nights);

/// The id of a finding's section in the diff's HTML page: "f-" and 16 hex digits of its signature's hash.
std::string finding_anchor(const std::string& signature);

/// The diff as text (what the command prints). `html_page`, when not empty, is where --report-html wrote the
/// page: each new finding names its section there.
std::string diff_text(const FindingsDiff& d, const std::string& html_page);
/// The diff as JSON, schema allocsim/findings-diff/v1 (docs/DESIGN.md §7).
nlohmann::ordered_json diff_json(const FindingsDiff& d, const std::string& html_page);
/// The diff as a <section class="findings-diff" id="findings-diff"> (a table of every finding, then a
/// <section class="finding new" id=finding_anchor()> per new one). Links to a night's sweep page are made
/// relative to `page_dir`, the folder of the page the section goes in.
std::string diff_html_section(const FindingsDiff& d, const std::string& page_dir);
/// A self-contained page (inline CSS, no script) holding diff_html_section().
std::string diff_html_page(const FindingsDiff& d, const std::string& page_dir);

}  // namespace allocsim::cli
