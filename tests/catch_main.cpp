// The one CATCH_CONFIG_MAIN of the suite (Catch2 v2, Debian's `catch2`).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
