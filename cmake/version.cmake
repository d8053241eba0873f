# Writes generated/version.hpp at build time (not just at configure time), so the git hash in
# every report is the commit that was built. configure_file() leaves the file untouched when
# nothing changed, so nothing recompiles needlessly. Called by the klmini_version target.
set(KLMINI_GIT_HASH "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS ${SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE KLMINI_GIT_HASH OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT KLMINI_GIT_HASH)
    set(KLMINI_GIT_HASH "unknown")
  elseif(dirty)
    string(APPEND KLMINI_GIT_HASH "-dirty")
  endif()
endif()
configure_file(${SOURCE_DIR}/src/host/version.hpp.in ${OUTPUT} @ONLY)
