// The command line's --kokkos-* arguments, checked and spelled for the Kokkos release klmini
// was built with. Kokkos renamed several of them in 3.7 (--kokkos-threads became
// --kokkos-num-threads, --kokkos-tools-library became --kokkos-tools-libs), ignores the new
// names silently before 3.7 and an unknown name (or a typo) everywhere, and aborts on a bad
// value. klmini accepts both spellings on every release, passes Kokkos the one it reads, and
// turns an unknown name or a bad value into a clear error.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace klmini {

struct KokkosArguments {
  std::vector<std::string> args;  // to pass to Kokkos' initialize, in the given order
  bool help = false;              // --kokkos-help: Kokkos prints its help; klmini then exits
  // Environment variables to set before initializing Kokkos (a newer name that this release
  // does not read, copied to the one it reads).
  std::vector<std::pair<std::string, std::string>> environment;
};

// `given`: the --kokkos-* arguments as typed; `kokkos_version`: KOKKOS_VERSION of the build
// (e.g. 30401, 40601). Throws InputError naming the argument for an unknown name, a name this
// release does not have, or a bad value.
KokkosArguments adapt_kokkos_arguments(const std::vector<std::string>& given, int kokkos_version);

// The accepted spellings, for the message and the README.
std::vector<std::string> kokkos_argument_names(int kokkos_version);

}  // namespace klmini
