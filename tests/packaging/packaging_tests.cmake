# The Spack recipe (packaging/spack) agrees with CMakeLists.txt: the options it sets exist, its
# numbered version is project(VERSION), its minimum Kokkos is the one CMakeLists.txt accepts and
# the installed scripts have their Python (and matplotlib) as run dependencies.
# Spack is not needed: the check parses the recipe. Included by tests/CMakeLists.txt after
# find_package(Python3 COMPONENTS Interpreter).
if(Python3_FOUND)
  add_test(NAME packaging/spack_recipe
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/packaging/check_spack_package.py
                   ${PROJECT_SOURCE_DIR})
else()
  message(STATUS "klmini: no Python 3: the Spack recipe check (packaging/spack_recipe) is skipped")
endif()

# An installed klmini as a cluster user has it (tests/packaging/install_test.sh): cmake --install
# into a temporary prefix, module load klmini with Lmod, klmini, klmini-sweep and klmini-plot
# from the prefix; skipped without Lmod (scripts/setup.sh --tests installs Debian's lmod).
add_test(NAME packaging/install
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/packaging/install_test.sh ${PROJECT_SOURCE_DIR}
                 ${PROJECT_BINARY_DIR} ${PROJECT_VERSION})
set_tests_properties(packaging/install PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                     ENVIRONMENT "OMP_NUM_THREADS=1;CMAKE=${CMAKE_COMMAND}")
# The installed cpu.sbatch, submitted to the one-node cluster of slurm/batch_templates (and, like
# it, skipped without root or Slurm and munge, and left out of the sanitizer's build).
if(NOT CMAKE_CXX_FLAGS MATCHES "sanitize")
  add_test(NAME packaging/install_slurm
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/packaging/install_test.sh ${PROJECT_SOURCE_DIR}
                   ${PROJECT_BINARY_DIR} ${PROJECT_VERSION} --slurm)
  set_tests_properties(packaging/install_slurm PROPERTIES SKIP_RETURN_CODE 77 RUN_SERIAL TRUE TIMEOUT 600
                       ENVIRONMENT "CMAKE=${CMAKE_COMMAND}")
endif()
