// Campaign checkpoints: the envelope, the atomic write and the strict read (checkpoint.h).
#include "sim/campaign/checkpoint.h"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "sim/support/atomic_write.h"

namespace allocsim::campaign {

namespace {

// A checkpoint holds every finished unit's result, or every finding's files: far more than a scenario file.
constexpr support::TextRules kCheckpointRules{size_t{1} << 30, 64, "checkpoints"};

void write_text(const std::string& path, const std::string& text) {
  try {
    support::write_file_atomically(path, text);
  } catch (const support::OutputError& e) {
    throw support::OutputError(fmt::format("--checkpoint: {}", e.what()));
  }
}

/// `e` (about the bytes or the JSON syntax) said as a checkpoint's: the same file and place.
support::InputError not_a_checkpoint(const support::InputError& e) {
  const std::string message = "not a valid checkpoint: " + e.message();
  return e.has_pointer() ? support::InputError(e.file(), e.pointer(), message)
                         : support::InputError::about_file(e.file(), message);
}

}  // namespace

void write_checkpoint(const std::string& path, const CheckpointKind& kind, const nlohmann::json& doc) {
  write_text(path, doc.dump(kind.indent) + "\n");
}

void write_checkpoint(const std::string& path, const CheckpointKind& kind, const nlohmann::ordered_json& doc) {
  write_text(path, doc.dump(kind.indent) + "\n");
}

std::string checkpoint_overwrite_refusal(const std::string& path, const std::string& campaign) {
  std::error_code ec;
  // Absent, or empty (as `mktemp` leaves it): nothing to lose.
  if (!std::filesystem::exists(path, ec) ||
      (std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) == 0 && !ec))
    return "";
  const std::string own = fmt::format("allocsim/{}-checkpoint/v1", campaign);
  std::string schema;
  try {
    const std::string text = support::read_text(path, kCheckpointRules);
    const nlohmann::json doc = nlohmann::json::parse(text);
    if (doc.is_object() && doc.contains("schema") && doc.at("schema").is_string()) schema = doc.at("schema");
  } catch (const std::exception&) {  // unreadable, too large or not JSON: not a checkpoint
  }
  if (schema == own) return "";
  const std::string prefix = "allocsim/", suffix = "-checkpoint/v1";
  if (schema.starts_with(prefix) && schema.ends_with(suffix) && schema.size() > prefix.size() + suffix.size())
    return fmt::format("holds a {} checkpoint ({}), which this {} would overwrite: give another name, or remove it",
                       schema.substr(prefix.size(), schema.size() - prefix.size() - suffix.size()), schema, campaign);
  return fmt::format(
      "exists and is not a {} checkpoint, so this {} would overwrite it: give another name, or remove it", campaign,
      campaign);
}

support::Json read_checkpoint(const std::string& path, const CheckpointKind& kind, const std::string& tool_version) {
  support::Json doc;
  try {
    const std::string text = support::read_text(path, kCheckpointRules);
    support::check_text(text, path, kCheckpointRules);
    doc = support::parse_strict(text, path, kCheckpointRules);
  } catch (const support::InputError& e) {
    throw not_a_checkpoint(e);
  }
  const support::JsonReader rd(path);
  rd.want_object(doc, "");
  const support::Json* schema = support::JsonReader::find(doc, "schema");
  if (!schema || !schema->is_string() || schema->get<std::string>() != kind.schema)
    rd.fail("/schema", fmt::format("expected \"{}\"{}", kind.schema,
                                   schema && schema->is_string() ? ", got " + support::quote(schema->get<std::string>())
                                                                 : std::string()));
  const std::string written = rd.string_value(rd.require(doc, "", "tool_version"), "/tool_version");
  if (written != tool_version)
    rd.fail("/tool_version", fmt::format("written by allocsim {}, this is allocsim {}: start a new {}", written,
                                         tool_version, kind.campaign));
  return doc;
}

}  // namespace allocsim::campaign
