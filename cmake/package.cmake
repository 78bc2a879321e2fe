# The Debian package (`tools/dev.sh package`: cpack -G DEB in the build dir; README "Installing"). It holds
# what `cmake --install` installs, under /usr. Its Depends line is computed by dpkg-shlibdeps (dpkg-dev)
# from the shared libraries the binary links (libc, libstdc++, libgcc, Boost.Context and
# Boost.Program_options, fmt, xxhash: whatever this build linked), so it names the Debian packages of the
# machine that built it, at the versions that build saw.
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "allocsim")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "allocsim")
set(CPACK_PACKAGE_CONTACT "allocsim maintainers <allocsim@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "deterministic concurrency simulator for a GPU allocation protocol")
set(CPACK_PACKAGE_DESCRIPTION
    "allocsim runs a C++ port of an in-memory GPU allocation backend under a seeded scheduler \
(random, PCT, DFS, DPOR), checks invariants after every step, shrinks failing schedules and replays them \
byte for byte. The package holds the allocsim command, its man page and bash completion, the example \
scenarios with their JSON Schema, and the documentation.")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Optional: the completion file is read only when bash-completion is installed.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
set(CPACK_STRIP_FILES ON)
include(CPack)
