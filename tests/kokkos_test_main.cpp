// Catch2 main for the kernel tests: Kokkos lives for the whole test run.
#include <Kokkos_Core.hpp>

#include <catch2/catch_session.hpp>

#include <cstdlib>

int main(int argc, char* argv[]) {
  // What Kokkos recommends for unit tests; it also keeps Kokkos's binding advice out of the
  // test list that ctest discovers.
  setenv("OMP_PROC_BIND", "false", 0);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return Catch::Session().run(argc, argv);
}
