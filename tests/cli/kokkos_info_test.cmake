# scripts/kokkos-info.sh on fake Kokkos installs (only the CMake package files it reads) and
# on the Kokkos this build uses: a Kokkos without the backend asked for, or too old, is one line
# naming it, its version and backends, and exit 2; a good one prints its version and route.
file(REMOVE_RECURSE ${WORK})
function(fake_kokkos name version devices options)
  set(dir ${WORK}/${name}/lib/cmake/Kokkos)
  file(WRITE ${dir}/KokkosConfig.cmake "# fake\n")
  file(WRITE ${dir}/KokkosConfigVersion.cmake "set(PACKAGE_VERSION \"${version}\")\n")
  file(WRITE ${dir}/KokkosConfigCommon.cmake "SET(Kokkos_DEVICES ${devices})\nset(Kokkos_OPTIONS ${options})\n")
endfunction()
function(expect rc_expected regex)
  execute_process(COMMAND ${INFO} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE "\n" " " flat "${out}${err}")
  if(NOT rc STREQUAL rc_expected OR NOT flat MATCHES "${regex}")
    message(FATAL_ERROR "kokkos-info.sh ${ARGN}: exit ${rc} (expected ${rc_expected}), output:\n${out}${err}\n"
                        "expected to match: ${regex}")
  endif()
  string(REGEX MATCHALL "\n" lines "${err}")
  list(LENGTH lines n)
  if(rc_expected STREQUAL "2" AND NOT n EQUAL 1)
    message(FATAL_ERROR "kokkos-info.sh ${ARGN}: the error is ${n} lines, not one:\n${err}")
  endif()
endfunction()

fake_kokkos(old 3.2.00 "SERIAL" "")
fake_kokkos(host46 4.6.01 "OPENMP;SERIAL" "")
fake_kokkos(cuda_lang 4.7.01 "OPENMP;SERIAL;CUDA" "CUDA_LAMBDA;COMPILE_AS_CMAKE_LANGUAGE")
fake_kokkos(cuda_wrapper 5.0.00 "CUDA;SERIAL" "CUDA_LAMBDA")
fake_kokkos(cuda_old 3.7.02 "CUDA;SERIAL" "")
fake_kokkos(threads_only 4.5.01 "THREADS" "")

expect(2 "^kokkos-info: the Kokkos at .*/old/lib/cmake/Kokkos \\(version 3.2.00, backends SERIAL\\) is too old: klmini needs Kokkos 3.4"
       --require host ${WORK}/old)
expect(2 "\\(version 4.6.01, backends OPENMP, SERIAL\\) has no Cuda" --require cuda ${WORK}/host46)
expect(2 "\\(version 3.7.02, backends CUDA, SERIAL\\) is too old: a GPU build needs Kokkos 4.0" --require cuda ${WORK}/cuda_old)
expect(2 "\\(version 4.5.01, backends THREADS\\) has neither OpenMP nor Serial" --require host ${WORK}/threads_only)
expect(2 "no Kokkos at ${WORK}/missing" ${WORK}/missing)
expect(0 "version=4.6.01 devices=OPENMP;SERIAL route=host" --require host ${WORK}/host46)
expect(0 "version=4.7.01 .*route=cmake-cuda-language" --require cuda ${WORK}/cuda_lang)
expect(0 "version=5.0.00 .*route=nvcc_wrapper" --require cuda ${WORK}/cuda_wrapper)
# The Kokkos this build was configured with: its own version and backends.
expect(0 "version=${KOKKOS_VERSION} " ${KOKKOS_DIR})
file(REMOVE_RECURSE ${WORK})
