# The Spack recipe (packaging/spack) agrees with CMakeLists.txt: the options it sets exist, its
# numbered version is project(VERSION) and its minimum Kokkos is the one CMakeLists.txt accepts.
# Spack is not needed: the check parses the recipe. Included by tests/CMakeLists.txt after
# find_package(Python3 COMPONENTS Interpreter).
if(Python3_FOUND)
  add_test(NAME packaging/spack_recipe
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/packaging/check_spack_package.py
                   ${PROJECT_SOURCE_DIR})
else()
  message(STATUS "klmini: no Python 3: the Spack recipe check (packaging/spack_recipe) is skipped")
endif()
