// sim/campaign/markup.h: the two escaping dialects differ exactly where the header says.
#include <catch2/catch.hpp>

#include "sim/campaign/markup.h"

using allocsim::campaign::escape_markup;
using allocsim::campaign::Markup;

TEST_CASE("markup: both dialects replace the five special characters, apostrophe each its own way", "[report]") {
  CHECK(escape_markup("a<b&c\"d'e>f", Markup::Html) == "a&lt;b&amp;c&quot;d&#39;e&gt;f");
  CHECK(escape_markup("a<b&c\"d'e>f", Markup::Xml) == "a&lt;b&amp;c&quot;d&apos;e&gt;f");
}

TEST_CASE("markup: XML shows forbidden control characters as text, HTML keeps them", "[report]") {
  const std::string s = std::string("a\x01") + "b\tc\nd\re\x1f";
  CHECK(escape_markup(s, Markup::Xml) == "a\\x01b\tc\nd\re\\x1f");
  CHECK(escape_markup(s, Markup::Html) == s);
}

TEST_CASE("markup: UTF-8 and empty input pass unchanged", "[report]") {
  CHECK(escape_markup("n1 ü → n2", Markup::Xml) == "n1 ü → n2");
  CHECK(escape_markup("", Markup::Html).empty());
}
