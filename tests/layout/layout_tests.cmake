# The source tree keeps its layers (tests/layout/check_layers.py) and its functions short
# (tests/layout/function_length.py). Included by tests/CMakeLists.txt after
# find_package(Python3 COMPONENTS Interpreter).
if(Python3_FOUND)
  add_test(NAME layout/layers
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/layout/check_layers.py ${PROJECT_SOURCE_DIR})
  # The function-length scanner, on snippets whose functions it must find and measure.
  add_test(NAME layout/function_length_self_test
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/layout/function_length.py --self-test)
  # A backend is its row of src/host/backends.hpp and its Kokkos type: no other file names one.
  add_test(NAME layout/backend_places_self_test
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/layout/backend_places.py --self-test)
  add_test(NAME layout/backend_places
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/layout/backend_places.py ${PROJECT_SOURCE_DIR})
  # Every module of src/ has a test file of its name, or a test that names it.
  add_test(NAME layout/test_files
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/layout/test_files.py ${PROJECT_SOURCE_DIR})
  # No function in src/, miniapp/ or bench/ is longer than 60 lines.
  add_test(NAME layout/function_length
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/layout/function_length.py ${PROJECT_SOURCE_DIR})
endif()
# The code is formatted by .clang-format, with the clang-format it was written for (14, Debian
# bookworm's: another major version formats differently, so it is not used for the check).
find_program(KLMINI_CLANG_FORMAT NAMES clang-format-14)
if(KLMINI_CLANG_FORMAT)
  file(GLOB_RECURSE _klmini_formatted CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/src/*.hpp ${PROJECT_SOURCE_DIR}/src/*.cpp ${PROJECT_SOURCE_DIR}/miniapp/*.cpp
       ${PROJECT_SOURCE_DIR}/bench/*.cpp ${PROJECT_SOURCE_DIR}/fuzz/*.cpp
       ${PROJECT_SOURCE_DIR}/tests/*.hpp ${PROJECT_SOURCE_DIR}/tests/*.cpp)
  add_test(NAME layout/clang_format COMMAND ${KLMINI_CLANG_FORMAT} --dry-run -Werror ${_klmini_formatted})
else()
  message(STATUS "klmini: no clang-format-14: the format check (layout/clang_format) is skipped")
endif()
