// Seeds for the tests' random inputs: fresh on every run, yet reproducible. Each call mixes
// Catch's seed (printed as "Randomness seeded to N"; `--rng-seed N` replays it) with a count of
// calls, so a failing test run again with that seed sees the same inputs.
#pragma once

#include <catch2/catch_get_random_seed.hpp>

#include <cstdint>

namespace klmini::testing {

inline std::uint64_t fresh_seed() {
  static std::uint64_t calls = 0;
  // splitmix64's finalizer: neighbouring counts give unrelated seeds.
  std::uint64_t z = (std::uint64_t(Catch::getSeed()) << 32) + ++calls;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace klmini::testing
