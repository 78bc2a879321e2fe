# `cmake --install BUILD [--prefix P]` (README "Installing"): the binary, the man page, bash completion,
# the example scenarios with their JSON Schema, and the docs. Layout under the prefix:
#   bin/allocsim
#   share/man/man1/allocsim.1.gz                  (generated from --help by help2man; skipped without it)
#   share/bash-completion/completions/allocsim    (tools/completion/allocsim.bash)
#   share/allocsim/scenarios/                     (scenarios/: *.json, mutants/, schema/, README.md, FINDINGS.md)
#   share/doc/allocsim/                           (README.md, docs/*.md, backend/CONTRACT.md)
# The installed scenario folders carry a `.allocsim-installed` marker: a run of an installed scenario keeps
# no regression corpus beside it (sim/campaign/corpus.h, installed_example) unless --corpus DIR names one.
include(GNUInstallDirs)

install(TARGETS allocsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(ALLOCSIM_SHARE ${CMAKE_INSTALL_DATADIR}/allocsim)
# Scenario files and the schema, never a developer's own corpus (.allocsim/) or editor droppings.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${ALLOCSIM_SHARE}/scenarios
        FILES_MATCHING PATTERN "*.json" PATTERN "*.tsv" PATTERN "*.md" PATTERN ".allocsim" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/allocsim-installed.txt DESTINATION ${ALLOCSIM_SHARE}/scenarios
        RENAME .allocsim-installed)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/allocsim-installed.txt DESTINATION ${ALLOCSIM_SHARE}/scenarios/mutants
        RENAME .allocsim-installed)

set(ALLOCSIM_DOC ${CMAKE_INSTALL_DATADIR}/doc/allocsim)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${ALLOCSIM_DOC})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${ALLOCSIM_DOC}/docs FILES_MATCHING PATTERN "*.md")
install(FILES ${PROJECT_SOURCE_DIR}/backend/CONTRACT.md DESTINATION ${ALLOCSIM_DOC}/backend)

install(FILES ${PROJECT_SOURCE_DIR}/tools/completion/allocsim.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME allocsim)

# The man page: help2man over `allocsim --help`, with every command's --help appended (cmake/man.cmake).
# The version string is the project version, not the commit, so the page is the same for every commit.
find_program(HELP2MAN help2man)
if(HELP2MAN)
  set(ALLOCSIM_MAN ${CMAKE_BINARY_DIR}/man/allocsim.1.gz)
  add_custom_command(
    OUTPUT ${ALLOCSIM_MAN}
    COMMAND ${CMAKE_COMMAND} -DALLOCSIM=$<TARGET_FILE:allocsim> -DHELP2MAN=${HELP2MAN}
            -DVERSION=${PROJECT_VERSION} -DOUT=${ALLOCSIM_MAN} -P ${PROJECT_SOURCE_DIR}/cmake/man.cmake
    DEPENDS allocsim ${PROJECT_SOURCE_DIR}/cmake/man.cmake
    COMMENT "Generating the allocsim man page with help2man")
  add_custom_target(allocsim_man ALL DEPENDS ${ALLOCSIM_MAN})
  install(FILES ${ALLOCSIM_MAN} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "allocsim: help2man not found: no man page (tools/dev.sh installs the help2man package)")
endif()
