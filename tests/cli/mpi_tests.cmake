# klmini across MPI ranks: the same deck on 1, 2 and 3 ranks (37 tokens: no even split) must
# give the same loss to 1e-12 (bitwise: mpi/bitwise_loss below), record its rank count, and write
# the same `none` matrix and gradient; also with bf16 inputs and precision = "exact".
find_package(Python3 COMPONENTS Interpreter)
if(NOT KLMINI_HAVE_MPI OR NOT MPIEXEC_EXECUTABLE OR NOT Python3_FOUND)
  message(STATUS "klmini: MPI tests skipped (MPI ${KLMINI_HAVE_MPI}, mpiexec '${MPIEXEC_EXECUTABLE}', Python3 ${Python3_FOUND})")
  return()
endif()
set(_mpi_dir ${CMAKE_CURRENT_BINARY_DIR}/mpi)
file(MAKE_DIRECTORY ${_mpi_dir})
set(_mpi_flags ${MPIEXEC_PREFLAGS})
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _mpi_version ERROR_QUIET)
if(_mpi_version MATCHES "Open MPI|OpenRTE")
  list(APPEND _mpi_flags --oversubscribe)  # 3 ranks on a 2-core CI machine
endif()
set(_mpi_env "OMP_NUM_THREADS=1;OMP_PROC_BIND=false;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
foreach(n 1 2 3)
  foreach(kind generate none npy grad bf16_exact)
    if(kind STREQUAL "bf16_exact")  # bf16 inputs rounded per global row, fp64 terms
      set(_args ${PROJECT_SOURCE_DIR}/inputs/ci.toml --set dtype=bf16 --set precision=exact --set gradient=true)
    elseif(kind STREQUAL "grad")
      set(_args ${PROJECT_SOURCE_DIR}/inputs/ci.toml --set gradient=true --set grad_output=grad_n${n}.npy --set overwrite=true)
    elseif(kind STREQUAL "generate")
      set(_args ${PROJECT_SOURCE_DIR}/inputs/ci.toml --set log_target=true)
    elseif(kind STREQUAL "none")
      set(_args ${PROJECT_SOURCE_DIR}/inputs/ci.toml --set reduction=none --set output=terms_n${n}.npy --set overwrite=true)
    else()
      set(_args ${CMAKE_CURRENT_SOURCE_DIR}/data/npy_rows_ab.toml)
    endif()
    add_test(NAME mpi/${kind}_n${n}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} ${_mpi_flags} $<TARGET_FILE:klmini>
                     ${_args} --json ${kind}_n${n}.json
             WORKING_DIRECTORY ${_mpi_dir})
    set_tests_properties(mpi/${kind}_n${n} PROPERTIES ENVIRONMENT "${_mpi_env}" FIXTURES_SETUP mpi_${kind}
                         PASS_REGULAR_EXPRESSION "Verification: PASSED")
  endforeach()
endforeach()
foreach(kind generate none npy grad bf16_exact)
  add_test(NAME mpi/${kind}_same_loss
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/mpi_compare.py ${_mpi_dir} ${kind})
  set_tests_properties(mpi/${kind}_same_loss PROPERTIES FIXTURES_REQUIRED mpi_${kind})
endforeach()

# The loss bitwise the same (its `loss:` line byte for byte) on 1, 2 and 3 ranks, 1 and 2
# threads, serial and openmp and each host launch shape, in every precision, reduction and dtype
# form, and on adversarial decks (huge, tiny, cancelling, constant, infinite and NaN terms).
if(Kokkos_ENABLE_SERIAL AND Kokkos_ENABLE_OPENMP)
  add_test(NAME mpi/bitwise_loss
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/repro_compare.py $<TARGET_FILE:klmini>
                   ${PROJECT_SOURCE_DIR}/inputs/ci.toml ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${_mpi_flags})
  set_tests_properties(mpi/bitwise_loss PROPERTIES ENVIRONMENT "${_mpi_env}")
endif()

# A file error of a run of 2 ranks names the file and the system's reason; every rank exits 2 by
# itself (no MPI_Abort): a .npy input that is missing, a `none` matrix and a JSON file that
# cannot be written.
function(klmini_mpi_error_test name regex)
  add_test(NAME mpi/${name}
           COMMAND ${CMAKE_COMMAND} -DEXE=${MPIEXEC_EXECUTABLE} -DEXPECTED_RC=2 "-DREGEX=${regex}" -DFORBID=MPI_ABORT
                   "-DARGS=${MPIEXEC_NUMPROC_FLAG};2;${_mpi_flags};$<TARGET_FILE:klmini>;${ARGN}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.cmake
           WORKING_DIRECTORY ${_mpi_dir})
  set_tests_properties(mpi/${name} PROPERTIES ENVIRONMENT "${_mpi_env}")
endfunction()
klmini_mpi_error_test(npy_missing_n2 "missing_lp.npy: cannot open .npy file: No such file or directory"
                      ${CMAKE_CURRENT_SOURCE_DIR}/data/npy_missing.toml)
klmini_mpi_error_test(output_unwritable_n2
                      "cannot create output file \\(/nonexistent-dir/t.npy.tmp\\): No such file or directory"
                      ${PROJECT_SOURCE_DIR}/inputs/ci.toml --set reduction=none --set output=/nonexistent-dir/t.npy)
klmini_mpi_error_test(json_unwritable_n2 "/nonexistent-dir/out.json: cannot write JSON file: No such file or directory"
                      ${PROJECT_SOURCE_DIR}/inputs/ci.toml --json /nonexistent-dir/out.json)

# Started without a launcher, klmini skips MPI_Init; KLMINI_MPI_INIT=1 forces MPI's singleton start.
add_test(NAME mpi/singleton_forced COMMAND $<TARGET_FILE:klmini> ${PROJECT_SOURCE_DIR}/inputs/ci.toml
         WORKING_DIRECTORY ${_mpi_dir})
set_tests_properties(mpi/singleton_forced PROPERTIES ENVIRONMENT "${_mpi_env};KLMINI_MPI_INIT=1"
                     PASS_REGULAR_EXPRESSION "Verification: PASSED")
klmini_cli_test(mpi_init_bad 2 "KLMINI_MPI_INIT must be 0 or 1 \\(or unset\\), not 'yes'" --version)
set_property(TEST cli/mpi_init_bad APPEND PROPERTY ENVIRONMENT "KLMINI_MPI_INIT=yes")

# Ranks whose shares of the deck fit alone but not together in a cgroup's memory limit: every
# rank exits 2, one message names both amounts and the limit (root and a cgroup controller
# needed; skipped otherwise).
add_test(NAME mpi/memory_limit
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/memory_limit.sh $<TARGET_FILE:klmini> ${PROJECT_SOURCE_DIR}/inputs/ci.toml
                 on ${MPIEXEC_EXECUTABLE} ${_mpi_flags} ${MPIEXEC_NUMPROC_FLAG})
set_tests_properties(mpi/memory_limit PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${_mpi_env}")

# More ranks than CPUs (4 and 16 on the 2-core test machine): reported as oversubscribed, and
# every row's aggregate GB/s (both ceilings, every variant) not above the same row's on one rank
# with every core. Alone, since it compares bandwidths. Only with OpenMP: one rank of a build of
# Serial alone has one core, which ranks sharing 2 cores may outrun (the sid Trilinos root).
if(Kokkos_ENABLE_OPENMP)
  add_test(NAME mpi/oversubscribed
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/mpi_oversubscribed.py $<TARGET_FILE:klmini>
                   ${PROJECT_SOURCE_DIR}/inputs/ci.toml ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${_mpi_flags})
  set_tests_properties(mpi/oversubscribed PROPERTIES ENVIRONMENT "${_mpi_env}" RUN_SERIAL TRUE)
endif()
