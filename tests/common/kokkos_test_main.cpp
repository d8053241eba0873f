// Catch2 main for the Kokkos test binaries: Kokkos lives for the whole test run.
#include <Kokkos_Core.hpp>

#include <catch2/catch_session.hpp>

#include <cstdlib>
#include <cstring>

int main(int argc, char* argv[]) {
  // Listing the tests (ctest's discovery at build time) needs no Kokkos: a Cuda build can then
  // be built, and its tests listed, on a machine without a GPU.
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--list", 6) == 0) return Catch::Session().run(argc, argv);
  // What Kokkos recommends for unit tests; it also keeps Kokkos's binding advice quiet.
  setenv("OMP_PROC_BIND", "false", 0);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return Catch::Session().run(argc, argv);
}
