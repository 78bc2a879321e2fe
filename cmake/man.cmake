# Builds the man page (cmake -P; cmake/install.cmake runs it after allocsim is built):
#   -DALLOCSIM=binary -DHELP2MAN=help2man -DVERSION=x.y.z -DOUT=.../allocsim.1.gz
# help2man reads `allocsim --help` for NAME, SYNOPSIS and DESCRIPTION; a COMMANDS section appended through
# --include holds every command's own `--help`, verbatim, so the page lists every flag with its default and
# cannot drift from the binary. The date is help2man's (SOURCE_DATE_EPOCH when set, for reproducible builds).
get_filename_component(dir "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
set(include_text "[COMMANDS]\nEach command's options, as `allocsim COMMAND --help` prints them.\n")
foreach(cmd run replay shrink trace sweep merge corpus swarm findings list)
  execute_process(COMMAND "${ALLOCSIM}" ${cmd} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "man page: `allocsim ${cmd} --help` exited ${rc}: ${err}")
  endif()
  # roff: a backslash is \e; a line starting with . or ' would be a request, so it gets a zero-width \&.
  string(REPLACE "\\" "\\e" help "${help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
  string(APPEND include_text ".SS \"allocsim ${cmd}\"\n.nf\n${help}\n.fi\n")
endforeach()
file(WRITE "${dir}/commands.h2m" "${include_text}")
execute_process(
  COMMAND "${HELP2MAN}" --no-info --no-discard-stderr "--version-string=${VERSION}"
          "--name=a deterministic concurrency simulator for the GPU allocation protocol"
          "--include=${dir}/commands.h2m" "--output=${dir}/allocsim.1" "${ALLOCSIM}"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "man page: help2man exited ${rc}")
endif()
# gzip -n: no name or time stamp in the archive, so the same page compresses to the same bytes.
execute_process(COMMAND gzip -9nf "${dir}/allocsim.1" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "man page: gzip exited ${rc}")
endif()
