# SPDX-License-Identifier: BSD-3-Clause
#
# Spack recipe for klmini, kept in klmini's own repository (Package API v2). A site registers it
# from a checkout and installs:
#   spack repo add packaging/spack/spack_repo/klmini
#   spack install klmini+cuda cuda_arch=90
# tests/packaging/check_spack_package.py (ctest packaging/spack_recipe) keeps this file in step
# with CMakeLists.txt: the options set below, the version and the minimum Kokkos.

from pathlib import Path

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage

from spack.package import *


def _checkout():
    """The klmini checkout this file lies in (packaging/spack/spack_repo/klmini/packages/...)."""
    for directory in Path(__file__).resolve().parents:
        if (directory / "CMakeLists.txt").is_file() and (directory / "packaging").is_dir():
            return directory
    return None


# The sources are the git history of the checkout that holds this recipe: no public URL is
# claimed. A branch version builds what is committed there (`spack develop` builds the working
# tree). A site that copies the recipe elsewhere sets `git` to its own clone.
_CHECKOUT = _checkout()


class Klmini(CMakePackage, CudaPackage):
    """KL-divergence loss mini-app on Kokkos: one fused parallel_reduce on the Serial, OpenMP
    and Cuda execution spaces, timed against the measured read bandwidth of the same space and
    verified against an fp64 reference."""

    if _CHECKOUT is not None:
        git = _CHECKOUT.as_uri()

    license("BSD-3-Clause")

    version("main", branch="main")
    # No release is tagged yet: 0.1.0 is the version main declares in project(VERSION) and is
    # built from main. Give it a tag= or commit= once one exists.
    version("0.1.0", branch="main")

    variant("openmp", default=True, description="Build with Kokkos' OpenMP backend")
    variant("mpi", default=True, description="Split the tokens across MPI ranks")
    variant(
        "kokkos_kernels",
        default=True,
        description="Build the kokkos_kernels kernel variant (KokkosBlas::dot)",
    )
    variant(
        "benchmarks",
        default=False,
        description="Build and install the Google Benchmark driver klmini_bench",
    )

    depends_on("cxx", type="build")
    depends_on("cmake@3.18:", type="build")

    depends_on("kokkos@3.4:")
    # The Serial space is one of klmini's backends (backend = "serial"); the CLI tests run on it.
    depends_on("kokkos+serial")
    depends_on("kokkos+openmp", when="+openmp")
    # A Cuda Kokkos makes every Kokkos source a device source: that build is +cuda.
    depends_on("kokkos~cuda", when="~cuda")

    # CMakeLists.txt refuses a Cuda Kokkos older than 4.0.
    depends_on("kokkos@4.0:+cuda", when="+cuda")
    # Kokkos builds for one architecture: forward ours (as cabana does).
    for _arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos+cuda cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")
    conflicts("+cuda", when="cuda_arch=none", msg="klmini+cuda needs a cuda_arch, e.g. 90")
    # klmini's kernels are KOKKOS_LAMBDAs; Spack's Kokkos 4 turns device lambdas off unless asked
    # (Kokkos 5 always has them and no longer has the variant).
    requires("^kokkos+cuda_lambda", when="+cuda ^kokkos@:4")
    # Spack's kokkos compiles Cuda through nvcc_wrapper (+wrapper) or as CMake's CUDA language
    # (+cmake_lang); with neither it stops at build time unless built by clang or cce. klmini
    # handles both routes and keeps the host compiler as CMAKE_CXX_COMPILER in each, so toml++
    # never meets nvcc.
    requires(
        "^kokkos+cmake_lang",
        "^kokkos+wrapper",
        policy="one_of",
        when="+cuda",
        msg="klmini+cuda needs ^kokkos+cmake_lang (tested on an H200) or ^kokkos+wrapper",
    )

    with when("+kokkos_kernels"):
        # Spack pins kokkos-kernels to the same Kokkos version; ask for the same backends.
        depends_on("kokkos-kernels")
        depends_on("kokkos-kernels+serial")
        depends_on("kokkos-kernels+openmp", when="+openmp")
        for _arch in CudaPackage.cuda_arch_values:
            depends_on(f"kokkos-kernels+cuda cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")

    depends_on("mpi", when="+mpi")
    depends_on("tomlplusplus")
    depends_on("cli11")
    depends_on("nlohmann-json@3.2:")
    depends_on("benchmark", when="+benchmarks")
    depends_on("catch2@3:", type="test")
    # The CMake install has bin/klmini-sweep (Python 3, standard library) and bin/klmini-plot
    # (matplotlib) beside klmini, and the Slurm templates that run them.
    depends_on("python@3.6:", type="run")
    depends_on("py-matplotlib", type="run")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            # ON/OFF rather than AUTO: the spec decides, nothing found by chance.
            self.define("KLMINI_MPI", "ON" if spec.satisfies("+mpi") else "OFF"),
            self.define(
                "KLMINI_KOKKOS_KERNELS", "ON" if spec.satisfies("+kokkos_kernels") else "OFF"
            ),
            self.define_from_variant("KLMINI_REQUIRE_CUDA", "cuda"),
            self.define_from_variant("KLMINI_ENABLE_BENCHMARKS", "benchmarks"),
            self.define("BUILD_TESTING", self.run_tests),
        ]
        if spec.satisfies("+kokkos_kernels"):
            # Its own prefix, not Kokkos': CMakeLists.txt looks beside Kokkos unless told.
            args.append(self.define("KokkosKernels_ROOT", spec["kokkos-kernels"].prefix))

        if spec.satisfies("+cuda ^kokkos+cmake_lang"):
            # klmini enables CMake's CUDA language for its Kokkos sources, as Kokkos did.
            args.append(self.define("CMAKE_CUDA_COMPILER", spec["cuda"].prefix.bin.nvcc))
            args.append(self.define("CMAKE_CUDA_ARCHITECTURES", spec.variants["cuda_arch"].value))
        elif spec.satisfies("+cuda ^kokkos+wrapper"):
            # Kokkos' launcher hands only the Kokkos sources to nvcc_wrapper, bypassing Spack's
            # compiler wrapper and the flags it injects: give the spec's cxxflags to CMake.
            cxxflags = spec.compiler_flags["cxxflags"]
            if cxxflags:
                args.append(self.define("CMAKE_CXX_FLAGS", " ".join(cxxflags)))
        return args

    @run_after("install", when="+benchmarks")
    def install_benchmark(self):
        # CMakeLists.txt installs klmini, its scripts, decks, Slurm templates and Lmod
        # modulefile, not the benchmark, which stays in the build tree's bin/.
        install(join_path(self.build_directory, "bin", "klmini_bench"), self.prefix.bin)
