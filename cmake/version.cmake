# The git commit `allocsim --version` names (tools/allocsim/build_info.h). Configure time only: the result
# is written to ${CMAKE_BINARY_DIR}/tools/build_info.cpp, rewritten only when it changes, so a commit
# recompiles that one file. Outside a git checkout (or without git) the commit is "unknown".
# Reports, traces and fingerprints never carry it (docs/DESIGN.md §7 "Report formats").
set(ALLOCSIM_GIT_COMMIT "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${PROJECT_SOURCE_DIR}" rev-parse --show-toplevel
                  OUTPUT_VARIABLE _allocsim_toplevel OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _allocsim_git_rc ERROR_QUIET)
  # Only this project's own checkout: a source tree unpacked inside some other repository is not ours.
  if(_allocsim_git_rc EQUAL 0)
    get_filename_component(_allocsim_toplevel "${_allocsim_toplevel}" REALPATH)
    get_filename_component(_allocsim_source "${PROJECT_SOURCE_DIR}" REALPATH)
  endif()
  if(_allocsim_git_rc EQUAL 0 AND _allocsim_toplevel STREQUAL _allocsim_source)
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${PROJECT_SOURCE_DIR}" describe --always --dirty
                    OUTPUT_VARIABLE _allocsim_describe OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE _allocsim_git_rc ERROR_QUIET)
    if(_allocsim_git_rc EQUAL 0 AND NOT _allocsim_describe STREQUAL "")
      set(ALLOCSIM_GIT_COMMIT "${_allocsim_describe}")
    endif()
  endif()
endif()
message(STATUS "allocsim: built from git commit ${ALLOCSIM_GIT_COMMIT}")
configure_file(${PROJECT_SOURCE_DIR}/tools/allocsim/build_info.cpp.in ${CMAKE_BINARY_DIR}/tools/build_info.cpp @ONLY)
