# The real binary's exit codes and messages: each case runs klmini and checks the exit code
# and a regular expression on stdout+stderr (tests/cli/expect.cmake). --version reads the build's
# version (src/host/version.hpp.in).
set(_cli_dir ${CMAKE_CURRENT_BINARY_DIR}/cli)
file(MAKE_DIRECTORY ${_cli_dir})
# Files named in KLMINI_CLI_FRESH (set around a call) are removed before the run; output that
# matches KLMINI_CLI_FORBID (set around a call) fails the test.
function(klmini_cli_test name expected_rc regex)
  add_test(NAME cli/${name}
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:klmini> -DEXPECTED_RC=${expected_rc}
                   "-DREGEX=${regex}" "-DARGS=${ARGN}" "-DFRESH=${KLMINI_CLI_FRESH}" "-DFORBID=${KLMINI_CLI_FORBID}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.cmake
           WORKING_DIRECTORY ${_cli_dir})
  set_tests_properties(cli/${name} PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=2;OMP_PROC_BIND=false")
endfunction()

set(_in ${PROJECT_SOURCE_DIR}/inputs)
set(_data ${CMAKE_CURRENT_SOURCE_DIR}/data)
klmini_cli_test(help 0 "klmini \\[OPTIONS\\] \\[DECK\\].*--set" --help)  # CLI11 2.2+ prints no "Usage:"
klmini_cli_test(version 0 "klmini ${PROJECT_VERSION} \\(git .*Kokkos" --version)
klmini_cli_test(list_keys 0 "tokens.*vocab.*variant" --list-keys)
klmini_cli_test(ci_deck 0 "loss: [0-9.]+.*FOM: .*Verification: PASSED" ${_in}/ci.toml)
klmini_cli_test(seed_deck_small 0 "256 x 4096.*Verification: PASSED" ${_in}/seed-v4096.toml --set tokens=256)
if(Kokkos_ENABLE_SERIAL)  # Debian's Kokkos 5 has OpenMP alone
  klmini_cli_test(serial_log_target 0 "Kokkos::Serial.*Verification: PASSED" ${_in}/ci.toml --set backend=serial --set log_target=true)
endif()
set(KLMINI_CLI_FRESH "terms.npy")
klmini_cli_test(reduction_none 0 "term matrix to .*terms.npy.*Verification: PASSED" ${_in}/ci.toml --set reduction=none --set output=terms.npy)
unset(KLMINI_CLI_FRESH)
set_tests_properties(cli/reduction_none PROPERTIES RESOURCE_LOCK terms_npy)
klmini_cli_test(sample 0 "sampled rows.*Verification: PASSED \\(relative error [0-9.e+-]+, sample\\)" ${_in}/ci.toml --set verify=sample --set sample_rows=8)
klmini_cli_test(nan_loss 0 "loss: nan.*Verification: PASSED" ${_data}/nan_deck.toml)
set(KLMINI_CLI_FRESH "out.json;out.csv")
klmini_cli_test(json_csv 0 "Verification: PASSED" ${_in}/ci.toml --json out.json --csv out.csv)
unset(KLMINI_CLI_FRESH)
# --kokkos-* arguments: both spellings on every release, errors for unknown names and bad values,
# --kokkos-help without a run.
klmini_cli_test(kokkos_num_threads 0 "concurrency 1" ${_in}/ci.toml --kokkos-num-threads=1)
klmini_cli_test(kokkos_threads_old_name 0 "concurrency 1" ${_in}/ci.toml --kokkos-threads=1)
klmini_cli_test(kokkos_unknown 2 "Kokkos argument '--kokkos-bogus=3': unknown; Kokkos [0-9.]+ takes" --kokkos-bogus=3)
klmini_cli_test(kokkos_bad_value 2 "Kokkos argument '--kokkos-num-threads=0': expected a whole number" --kokkos-num-threads=0)
set(KLMINI_CLI_FORBID "Verification|loss:")
klmini_cli_test(kokkos_help 0 "--kokkos-help" --kokkos-help)
unset(KLMINI_CLI_FORBID)
klmini_cli_test(unknown_flag 2 "--bogus" --bogus)
klmini_cli_test(missing_deck 2 "nonexistent.toml" nonexistent.toml)
klmini_cli_test(unknown_key 2 "bad_key.toml:3:1: key 'tokenz': unknown key" ${_data}/bad_key.toml)
klmini_cli_test(bad_value 2 "bad_value.toml:2:1: key 'vocab': expected an integer, got a string" ${_data}/bad_value.toml)
klmini_cli_test(bad_toml 2 "bad_syntax.toml:2:.*invalid TOML" ${_data}/bad_syntax.toml)
klmini_cli_test(bad_set 2 "--set tokens=zero: key 'tokens'" --set tokens=zero)
klmini_cli_test(set_without_value 2 "--set tokens: expected key=value" --set tokens)
klmini_cli_test(peak_out_of_range 2 "--set peak_GBps=0: key 'peak_GBps': value 0 is out of range" --set peak_GBps=0)
klmini_cli_test(peak_fraction 0 "ceiling_read: [0-9.]+% of the deck's peak_GBps = 50.*FOM: .*% of the 50 GB/s peak\\)"
                ${_in}/ci.toml --set peak_GBps=50)
klmini_cli_test(backend_not_compiled 2 "backend 'cuda' is not compiled into this build" --set backend=cuda)
klmini_cli_test(npy_missing 2 "missing_lp.npy: cannot open .npy file: No such file or directory" ${_data}/npy_missing.toml)
klmini_cli_test(npy_shape 2 "lp_2x3.npy: shape \\(2, 3\\) does not match the deck's \\(tokens, vocab\\) = \\(3, 2\\)" ${_data}/npy_shape.toml)
# fp64 terms: digits that do not depend on the compiler's rounding of the fp32 log.
klmini_cli_test(npy_ok 0 "loss: 0.17328679.*Verification: PASSED" ${_data}/npy_rows_ab.toml --set precision=exact)
# Units far past 2^128 (fp32's range): finite, as the fp64 reference, in both precisions.
klmini_cli_test(npy_huge_exact 0 "loss: 1.6488236332383[0-9]*e\\+41.*Verification: PASSED"
                ${_data}/npy_huge.toml --set precision=exact --set variant=all)
klmini_cli_test(npy_huge_fast 0 "loss: 1.648823[0-9]*e\\+41.*Verification: PASSED" ${_data}/npy_huge.toml --set variant=all)
# Adversarial inputs through the command line: huge terms that cancel exactly across rows (the
# fixed-point sum keeps row 1's 1100, in any order), infinities of either sign and both, and
# terms past fp32's range (finite in fp64 terms; fp32 terms fail the check and say why).
foreach(_p fast exact)
  klmini_cli_test(npy_cancel_${_p} 0 "loss: 366.666666666666[0-9]* .*Verification: PASSED"
                  ${_data}/npy_cancel.toml --set precision=${_p} --set variant=fused)
  klmini_cli_test(npy_cancel_grad_${_p} 0 "fused_grad .* ok .*loss: 366.666666666666[0-9]* .*Verification: PASSED"
                  ${_data}/npy_cancel.toml --set precision=${_p} --set variant=fused --set gradient=true)
  klmini_cli_test(npy_plus_inf_${_p} 0 "fused: infinite, as the reference.*loss: inf .*Verification: PASSED"
                  ${_data}/npy_plus_inf.toml --set precision=${_p} --set variant=all)
  klmini_cli_test(npy_minus_inf_${_p} 0 "fused: infinite, as the reference.*loss: -inf .*Verification: PASSED"
                  ${_data}/npy_minus_inf.toml --set precision=${_p} --set variant=all)
  klmini_cli_test(npy_both_inf_${_p} 0 "fused: NaN, as the reference.*loss: nan .*Verification: PASSED"
                  ${_data}/npy_both_inf.toml --set precision=${_p} --set variant=all)
endforeach()
klmini_cli_test(npy_far_exact 0 "loss: 1.1000000241507[0-9]*e\\+43 .*Verification: PASSED"
                ${_data}/npy_far.toml --set precision=exact --set variant=all)
klmini_cli_test(npy_far_fast 1 "fused: infinite where the reference is finite: an fp32 term .*precision = .exact.*Verification: FAILED"
                ${_data}/npy_far.toml --set variant=fused)
klmini_cli_test(gradient 0 "fused_grad .* ok .*gradient d\\(loss\\)/d\\(lp\\) to grad.npy.*Verification: PASSED"
                ${_in}/ci.toml --set variant=fused --set gradient=true --set grad_output=grad.npy --set overwrite=true)
klmini_cli_test(gradient_two_pass 0 "ceiling_copy .*fused_grad .*% copy .*grad_only .*fused_grad / \\(fused \\+ grad_only\\) = [0-9.]+.*Verification: PASSED"
                ${_in}/ci.toml --set variant=fused --set gradient=true)
klmini_cli_test(bf16_exact 0 "x [0-9]+ \\([0-9]+ elements, bf16\\).*precision +exact \\(terms and log in fp64\\).*fused .* ok .*Verification: PASSED"
                ${_in}/ci.toml --set dtype=bf16 --set precision=exact)
klmini_cli_test(fp16_all 0 "fp16.*precision +fast.*fused .* ok .*flat .* ok .*Verification: PASSED" ${_in}/ci.toml --set dtype=fp16 --set variant=all)
# A Kokkos Kernels installed beside Kokkos (scripts/setup.sh builds both, Trilinos ships both)
# must be compiled in: without it variant = "all" would leave kokkos_kernels out unnoticed.
get_filename_component(_kokkos_cmake_dir "${Kokkos_DIR}/.." ABSOLUTE)
if(NOT KLMINI_KOKKOS_KERNELS STREQUAL "OFF" AND EXISTS "${_kokkos_cmake_dir}/KokkosKernels/KokkosKernelsConfig.cmake")
  klmini_cli_test(kokkos_kernels_compiled_in 0 "Kokkos Kernels [0-9]+\\.[0-9]+" --version)
  klmini_cli_test(all_runs_kokkos_kernels 0 "kokkos_kernels +[0-9.]+ [mu]?s .* ok .*Verification: PASSED" ${_in}/ci.toml --set variant=all)
  klmini_cli_test(all_names_left_out 0 "left out +kokkos_kernels: reads fp32 inputs only \\(dtype is bf16\\)"
                  ${_in}/ci.toml --set variant=all --set dtype=bf16)
else()
  klmini_cli_test(all_names_left_out 0 "left out +kokkos_kernels: not compiled in: this build has no Kokkos Kernels"
                  ${_in}/ci.toml --set variant=all)
endif()
# scripts/kokkos-info.sh, which setup.sh runs on a user's Kokkos before building anything.
add_test(NAME cli/kokkos_info
         COMMAND ${CMAKE_COMMAND} -DINFO=${PROJECT_SOURCE_DIR}/scripts/kokkos-info.sh -DWORK=${_cli_dir}/kokkos_info
                 -DKOKKOS_DIR=${Kokkos_DIR} -DKOKKOS_VERSION=${Kokkos_VERSION}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/kokkos_info_test.cmake)
# A file that cannot be written names the file and the system's reason.
klmini_cli_test(json_unwritable 2 "/nonexistent-dir/out.json: cannot write JSON file: No such file or directory"
                ${_in}/ci.toml --json /nonexistent-dir/out.json)
klmini_cli_test(csv_unwritable 2 "/nonexistent-dir/out.csv: cannot append to CSV file: No such file or directory"
                ${_in}/ci.toml --csv /nonexistent-dir/out.csv)
klmini_cli_test(output_unwritable 2 "cannot create output file \\(/nonexistent-dir/t.npy.tmp\\): No such file or directory"
                ${_in}/ci.toml --set reduction=none --set output=/nonexistent-dir/t.npy)
klmini_cli_test(kokkos_kernels_bf16 2 "key 'variant': 'kokkos_kernels' reads fp32 inputs only" --set dtype=bf16 --set variant=kokkos_kernels)
klmini_cli_test(npy_dtype_mismatch 2 "lp_2x3.npy: dtype '<f4' is not what the deck's dtype reads \\(bf16 bits '<u2'\\)"
                ${_data}/npy_shape.toml --set dtype=bf16 --set tokens=2 --set vocab=3)
klmini_cli_test(validate_ok 0 "Verification: PASSED" ${_data}/npy_rows_ab.toml --set validate=true)
klmini_cli_test(validate_bad 2 "validation failed: 1 row.*row 1: targets sum to 1.2" ${_data}/validate_bad.toml)
klmini_cli_test(validate_generated 0 "Verification: PASSED" ${_in}/ci.toml --set validate=true --set log_target=true)
klmini_cli_test(too_big 2 "tokens x vocab = 1099511627776 x 4 needs 32768.00 GiB of host memory"
                --set tokens=1099511627776 --set vocab=4)
klmini_cli_test(repeats_absurd 2 "key 'repeats': value 1000000 is out of range" --set repeats=1000000)
set(KLMINI_CLI_FRESH "exists.npy")
klmini_cli_test(output_written 0 "term matrix to exists.npy" ${_in}/ci.toml --set reduction=none --set output=exists.npy)
unset(KLMINI_CLI_FRESH)
klmini_cli_test(output_exists 2 "key 'output': 'exists.npy' exists; set overwrite = true"
                ${_in}/ci.toml --set reduction=none --set output=exists.npy)
klmini_cli_test(output_overwrite 0 "term matrix to exists.npy"
                ${_in}/ci.toml --set reduction=none --set output=exists.npy --set overwrite=true)
set_tests_properties(cli/output_exists PROPERTIES DEPENDS cli/output_written)
set_tests_properties(cli/output_overwrite PROPERTIES DEPENDS cli/output_exists)
klmini_cli_test(reduction_none_twice 0 "Verification: PASSED" ${_in}/ci.toml --set reduction=none --set output=terms.npy --set overwrite=true)
set_tests_properties(cli/reduction_none_twice PROPERTIES RESOURCE_LOCK terms_npy)
if(Kokkos_ENABLE_CUDA)
  set_tests_properties(cli/backend_not_compiled PROPERTIES DISABLED TRUE)
endif()

# Memory limits as a batch job sees them: a cgroup limit and ulimit -v (root and a cgroup memory
# controller needed; skipped otherwise).
# AddressSanitizer reserves terabytes of address space, so ulimit -v is not tried under it.
set(_address_limit on)
if(CMAKE_CXX_FLAGS MATCHES "sanitize=address")
  set(_address_limit off)
endif()
add_test(NAME cli/memory_limit COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/memory_limit.sh $<TARGET_FILE:klmini>
                                       ${_in}/ci.toml ${_address_limit})
set_tests_properties(cli/memory_limit PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "OMP_NUM_THREADS=2;OMP_PROC_BIND=false")
# fused's launch shape: chosen by trial by default, forced by the deck, refused where it does
# not apply (a device shape on a host backend).
klmini_cli_test(shape_trial 0 "fused shape: (rows|segments_2048) \\(fastest by trial of rows [0-9.]+ [mu]s, segments_2048 [0-9.]+ [mu]s\\).*Verification: PASSED"
                ${_in}/seed-v4096.toml --set tokens=64)
klmini_cli_test(shape_forced 0 "fused shape: segments_2048 \\(the deck's\\).*Verification: PASSED"
                ${_in}/seed-v4096.toml --set tokens=64 --set shape=segments_2048)
klmini_cli_test(shape_not_here 2 "key 'shape': 'rows_u4_t256' does not apply to this run on [a-z]+ \\(its shapes: auto\\|rows\\|segments_2048\\)"
                ${_in}/seed-v4096.toml --set tokens=64 --set shape=rows_u4_t256)
klmini_cli_test(shape_unknown 2 "key 'shape': 'grid' is not one of auto\\|rows\\|" --set shape=grid)
# scripts/setup.sh as a cluster user has it: no root, packages present or not, Kokkos_ROOT wrong
# or a multiarch prefix (needs root to make the user; skipped otherwise).
# One build runs it (the host build against the Kokkos setup built: it builds klmini once more).
if(Kokkos_DIR MATCHES "/\\.deps/kokkos/lib/cmake/Kokkos$")
  add_test(NAME cli/setup_unprivileged
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/setup_unprivileged.sh ${PROJECT_SOURCE_DIR} ${Kokkos_DIR})
  set_tests_properties(cli/setup_unprivileged PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1200 RUN_SERIAL ON)
endif()

# Thread binding: with neither OMP_PROC_BIND nor OMP_PLACES set, klmini starts itself again
# bound (spread over the hardware threads), the report says so and Kokkos has nothing to warn
# of; a binding given is kept; KLMINI_BIND_THREADS=0 leaves the threads unbound.
function(klmini_binding_test name env regex)
  add_test(NAME cli/${name}
           COMMAND ${CMAKE_COMMAND} -DEXE=${CMAKE_COMMAND} -DEXPECTED_RC=0 "-DREGEX=${regex}"
                   "-DARGS=-E;env;--unset=OMP_PROC_BIND;--unset=OMP_PLACES;${env};$<TARGET_FILE:klmini>;${_in}/ci.toml"
                   "-DFORBID=${KLMINI_CLI_FORBID}" -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.cmake
           WORKING_DIRECTORY ${_cli_dir})
  set_tests_properties(cli/${name} PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=2")
endfunction()
if(Kokkos_ENABLE_OPENMP)
  set(KLMINI_CLI_FORBID "OMP_PROC_BIND environment variable not set")
  klmini_binding_test(thread_binding_by_klmini "OMP_NUM_THREADS=2"
                      "threads bound: OMP_PROC_BIND=spread OMP_PLACES=threads \\(set by klmini\\).*Verification: PASSED")
  klmini_binding_test(thread_binding_given "OMP_PROC_BIND=close"
                      "threads bound: OMP_PROC_BIND=close \\(given\\).*Verification: PASSED")
  unset(KLMINI_CLI_FORBID)
  klmini_binding_test(thread_binding_off "KLMINI_BIND_THREADS=0"
                      "threads bound: none \\(OMP_PROC_BIND not set\\).*Verification: PASSED")
endif()
