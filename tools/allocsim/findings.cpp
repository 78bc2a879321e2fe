#include "tools/allocsim/findings.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <filesystem>

#include "sim/campaign/config.h"
#include "sim/support/json_reader.h"

namespace allocsim::cli {

namespace fs = std::filesystem;
using support::InputError;
using support::Json;
using support::JsonReader;

namespace {

constexpr const char* kSweepSchema = "allocsim/sweep-report/v1";
constexpr const char* kSwarmSchema = "allocsim/swarm/v1";
// A swarm summary or a sweep report of a large night: far more than a scenario file.
constexpr support::TextRules kRules{size_t{1} << 30, 64, "reports"};

std::string str(const JsonReader& rd, const Json& obj, const std::string& ptr, const char* key) {
  return rd.string_value(rd.require(obj, ptr, key), support::child(ptr, key));
}

/// The scenarios of a sweep report that did not meet their expectation, and its input errors.
void read_sweep(const JsonReader& rd, const Json& doc, const std::string& file, Night& night) {
  const fs::path html = fs::path(file).parent_path() / "sweep.html";
  std::error_code ec;
  const bool has_html = fs::is_regular_file(html, ec);
  const Json& scenarios = rd.require(doc, "", "scenarios");
  rd.want_array(scenarios, "/scenarios");
  size_t section = 0;  // sweep --report-html numbers the first violations of the scenarios, from 1
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const std::string ptr = support::child("/scenarios", i);
    const Json& s = scenarios[i];
    rd.want_object(s, ptr);
    const std::string name = str(rd, s, ptr, "name");
    const std::string path = str(rd, s, ptr, "path");
    const Json& fv = rd.require(s, ptr, "first_violation");
    const std::string fv_ptr = support::child(ptr, "first_violation");
    rd.want(fv, fv_ptr, fv.is_null() || fv.is_object(), "null or an object");
    if (fv.is_object()) ++section;
    const Json& exp = rd.require(s, ptr, "expectation");
    const std::string exp_ptr = support::child(ptr, "expectation");
    rd.want_object(exp, exp_ptr);
    const Json& met = rd.require(exp, exp_ptr, "met");
    rd.want(met, support::child(exp_ptr, "met"), met.is_null() || met.is_boolean(), "true, false or null");
    const Json& unmet = rd.require(exp, exp_ptr, "unmet");
    rd.want_array(unmet, support::child(exp_ptr, "unmet"));
    if (!met.is_boolean() || met.get<bool>()) continue;  // undecided (a shard's) or met: no finding
    NightFinding f;
    f.source = "sweep";
    f.where = file + " " + ptr;
    if (fv.is_object()) {
      const std::string inv = str(rd, fv, fv_ptr, "invariant");
      f.signature = fmt::format("sweep {} {}", name, inv);
      f.summary = fmt::format("{} ({}): {}: {}", name, path, inv, str(rd, fv, fv_ptr, "message"));
      f.replay = str(rd, fv, fv_ptr, "replay");
      if (has_html) f.html = fmt::format("{}#v{}", html.string(), section);
    } else {
      f.signature = fmt::format("sweep {} unmet", name);
      const std::string reason =
          unmet.empty() ? std::string("expectation not met")
                        : rd.string_value(unmet[0], support::child(support::child(exp_ptr, "unmet"), size_t{0}));
      f.summary = fmt::format("{} ({}): {}", name, path, reason);
    }
    night.findings.emplace(f.signature, std::move(f));
  }
  const Json& errors = rd.require(doc, "", "errors");
  rd.want_array(errors, "/errors");
  for (size_t i = 0; i < errors.size(); ++i) {
    const std::string ptr = support::child("/errors", i);
    rd.want_object(errors[i], ptr);
    const std::string path = str(rd, errors[i], ptr, "path");
    const std::string pointer = str(rd, errors[i], ptr, "pointer");
    NightFinding f;
    f.source = "input-error";
    f.where = file + " " + ptr;
    f.signature = fmt::format("input-error {} {}", fs::path(path).filename().string(), support::pointer_text(pointer));
    f.summary = support::located(path, pointer, str(rd, errors[i], ptr, "message"));
    night.findings.emplace(f.signature, std::move(f));
  }
}

/// The distinct findings of a swarm summary; `file` is DIR/summary.json, the findings' files are in DIR.
void read_swarm(const JsonReader& rd, const Json& doc, const std::string& file, Night& night) {
  const fs::path dir = fs::path(file).parent_path();
  const fs::path html = dir / "report.html";  // `swarm --report-html DIR/report.html` (nightly.sh writes it)
  std::error_code ec;
  const bool has_html = fs::is_regular_file(html, ec);
  const Json& findings = rd.require(doc, "", "findings");
  rd.want_array(findings, "/findings");
  for (size_t i = 0; i < findings.size(); ++i) {
    const std::string ptr = support::child("/findings", i);
    const Json& j = findings[i];
    rd.want_object(j, ptr);
    NightFinding f;
    f.source = "swarm";
    f.where = file + " " + ptr;
    f.signature = "swarm " + str(rd, j, ptr, "signature");
    const std::string trace = str(rd, j, ptr, "trace");
    rd.want(j.at("trace"), support::child(ptr, "trace"), trace.find('/') == std::string::npos && !trace.empty(),
            "a file name");
    const Json& count = rd.require(j, ptr, "count");
    rd.want(count, support::child(ptr, "count"), count.is_number_unsigned(), "an unsigned integer");
    f.summary = fmt::format("{} (in {} of the night's scenarios; minimal scenario {})", str(rd, j, ptr, "invariant"),
                            count.get<uint64_t>(), (dir / str(rd, j, ptr, "file")).string());
    f.replay = "allocsim replay " + campaign::shell_quote((dir / trace).string());
    if (has_html) f.html = fmt::format("{}#v{}", html.string(), i + 1);  // swarm_html.h numbers them so
    night.findings.emplace(f.signature, std::move(f));
  }
}

void read_report_file(const std::string& file, Night& night) {
  const Json doc = support::parse_strict(support::read_text(file, kRules), file, kRules);
  const JsonReader rd(file);
  rd.want_object(doc, "");
  const std::string schema = str(rd, doc, "", "schema");
  if (schema == kSweepSchema)
    read_sweep(rd, doc, file, night);
  else if (schema == kSwarmSchema)
    read_swarm(rd, doc, file, night);
  else
    rd.fail("/schema", fmt::format("expected \"{}\" (a sweep report) or \"{}\" (a swarm summary), got {}", kSweepSchema,
                                   kSwarmSchema, support::quote(schema)));
  night.files.push_back(file);
}

}  // namespace

Night read_night(const std::string& path) {
  Night night;
  night.label = path;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError::about_file(path, "no such file or folder");
  if (!fs::is_directory(path, ec)) {
    read_report_file(path, night);
    return night;
  }
  for (const char* name : {"sweep.json", "summary.json", "swarm/summary.json"}) {
    const fs::path p = fs::path(path) / name;
    if (fs::is_regular_file(p, ec)) read_report_file(p.string(), night);
  }
  if (night.files.empty())
    throw InputError::about_file(path,
                                 "no report in this folder (expected sweep.json, summary.json or "
                                 "swarm/summary.json)");
  return night;
}

const char* class_name(FindingClass c) {
  switch (c) {
    case FindingClass::fresh:
      return "new";
    case FindingClass::still_failing:
      return "still failing";
    case FindingClass::rare:
      return "rare";
    case FindingClass::resolved:
      return "resolved";
  }
  return "?";
}

size_t DiffEntry::nights_seen() const { return size_t(std::count(seen.begin(), seen.end(), true)); }

size_t FindingsDiff::count(FindingClass c) const {
  return size_t(std::count_if(entries.begin(), entries.end(), [c](const DiffEntry& e) { return e.cls == c; }));
}

FindingsDiff diff_nights(const std::vector<Night>& nights) {
  FindingsDiff d;
  for (const Night& n : nights) d.nights.push_back(n.label);
  const size_t k = nights.size(), tonight = k - 1, last = k - 2;
  std::map<std::string, DiffEntry> by_signature;  // ordered: the entries come out by signature
  for (size_t i = 0; i < k; ++i)
    for (const auto& [sig, f] : nights[i].findings) {
      auto [it, added] = by_signature.try_emplace(sig, DiffEntry{FindingClass::rare, f, std::vector<bool>(k)});
      it->second.seen[i] = true;
      it->second.finding = f;  // the latest night's words and replay line
    }
  for (auto& [sig, e] : by_signature) {
    const size_t earlier = e.nights_seen() - (e.seen[tonight] ? 1 : 0);
    if (e.seen[tonight])
      e.cls = earlier == 0 ? FindingClass::fresh : earlier == k - 1 ? FindingClass::still_failing : FindingClass::rare;
    else
      e.cls = e.seen[last] ? FindingClass::resolved : FindingClass::rare;
  }
  for (const FindingClass c :
       {FindingClass::fresh, FindingClass::still_failing, FindingClass::rare, FindingClass::resolved})
    for (auto& [sig, e] : by_signature)
      if (e.cls == c) d.entries.push_back(e);
  return d;
}

std::string finding_anchor(const std::string& signature) {
  return fmt::format("f-{:016x}", XXH64(signature.data(), signature.size(), 0));
}

}  // namespace allocsim::cli
