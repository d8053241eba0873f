# Kokkos Tools: a small tools library of the project's own (tests/tools/event_log_tool.cpp) is
# loaded into a klmini run, through the environment variable of current Kokkos releases and
# through the command line; tests/tools/check_events.py checks the run's regions and labels.
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_FOUND)
  message(STATUS "klmini: Kokkos Tools tests skipped (no Python 3)")
  return()
endif()
# Kokkos loads tools libraries only when built with libdl (KOKKOS_ENABLE_LIBDL in its config header).
set(_kokkos_config_header "")
get_target_property(_kokkos_includes Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
foreach(dir IN LISTS _kokkos_includes)
  if(EXISTS ${dir}/KokkosCore_config.h)
    set(_kokkos_config_header ${dir}/KokkosCore_config.h)
    break()
  endif()
endforeach()
if(_kokkos_config_header)
  file(STRINGS ${_kokkos_config_header} _kokkos_libdl REGEX "^#define KOKKOS_ENABLE_LIBDL")
  if(NOT _kokkos_libdl)
    message(STATUS "klmini: Kokkos Tools tests skipped (this Kokkos was built without libdl: no tools)")
    return()
  endif()
endif()
add_library(klmini_event_log_tool MODULE ${CMAKE_CURRENT_SOURCE_DIR}/tools/event_log_tool.cpp)
klmini_warnings(klmini_event_log_tool)
set(_check_events ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_events.py)
set(_tool $<TARGET_FILE:klmini_event_log_tool>)
set(_deck ${PROJECT_SOURCE_DIR}/inputs/ci.toml)
set(_all_variants fused,flat)
if(KLMINI_HAVE_KOKKOS_KERNELS)
  set(_all_variants ${_all_variants},kokkos_kernels)
endif()
# KOKKOS_TOOLS_LIBS (Kokkos 3.7 and newer; klmini passes it on as KOKKOS_PROFILE_LIBRARY before).
add_test(NAME tools/regions_and_labels
         COMMAND ${CMAKE_COMMAND} -E env KOKKOS_TOOLS_LIBS=${_tool} ${_check_events} ${_all_variants} --
                 $<TARGET_FILE:klmini> ${_deck})
add_test(NAME tools/regions_terms_bf16_exact
         COMMAND ${CMAKE_COMMAND} -E env KOKKOS_TOOLS_LIBS=${_tool} ${_check_events} terms --
                 $<TARGET_FILE:klmini> ${_deck} --set reduction=none --set dtype=bf16 --set precision=exact)
add_test(NAME tools/command_line_library
         COMMAND ${_check_events} fused -- $<TARGET_FILE:klmini> ${_deck} --set variant=fused
                 --kokkos-tools-libs=${_tool})
set_tests_properties(tools/regions_and_labels tools/regions_terms_bf16_exact tools/command_line_library
                     PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=2;OMP_PROC_BIND=false")
