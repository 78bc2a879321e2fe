// Escaping text for the two markup languages allocsim writes: the HTML report (report_html.h) and the JUnit
// XML reports (junit.h). One table, two dialects, so that a character missed in one is missed in neither.
//
// escape_markup(s, kind): `s` with & < > " ' replaced by entity references, so it can stand in element content
// and in double- or single-quoted attribute values.
// - Html: `'` becomes &#39; (HTML 4 has no &apos;); every other byte, control characters included, is kept
//   (the page is UTF-8 and browsers render control characters as nothing).
// - Xml: `'` becomes &apos;; a control character XML 1.0 forbids even as a reference (below 0x20, except tab,
//   line feed and carriage return) becomes the visible text \xHH, since a JUnit file that does not parse loses
//   the whole report.
// Bytes at or above 0x80 pass unchanged in both: valid UTF-8 stays valid.
#pragma once

#include <string>
#include <string_view>

namespace allocsim::campaign {

enum class Markup { Html, Xml };

std::string escape_markup(std::string_view s, Markup kind);

}  // namespace allocsim::campaign
