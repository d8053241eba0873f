// The --kokkos-* arguments (src/host/kokkos_args.cpp): both spellings on every release, passed
// on in the one the release reads; unknown names and bad values are errors naming them.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "host/errors.hpp"
#include "host/kokkos_args.hpp"

using Catch::Matchers::ContainsSubstring;
using klmini::adapt_kokkos_arguments;
using Args = std::vector<std::string>;

TEST_CASE("Kokkos arguments are spelled for the release: renamed in 3.7") {
  const Args given = {"--kokkos-num-threads=4", "--kokkos-threads=2", "--kokkos-tools-libs=a.so",
                      "--kokkos-tools-library=b.so", "--kokkos-device-id=1"};
  CHECK(adapt_kokkos_arguments(given, 30401).args == Args{"--kokkos-threads=4", "--kokkos-threads=2",
                                                          "--kokkos-tools-library=a.so", "--kokkos-tools-library=b.so",
                                                          "--kokkos-device-id=1"});
  for (const int version : {30700, 40601, 50202})
    CHECK(adapt_kokkos_arguments(given, version).args == Args{"--kokkos-num-threads=4", "--kokkos-num-threads=2",
                                                              "--kokkos-tools-libs=a.so", "--kokkos-tools-libs=b.so",
                                                              "--kokkos-device-id=1"});
}

TEST_CASE("Kokkos flags: bare before 3.7, with a value after") {
  CHECK(adapt_kokkos_arguments({"--kokkos-disable-warnings"}, 30401).args == Args{"--kokkos-disable-warnings"});
  CHECK(adapt_kokkos_arguments({"--kokkos-disable-warnings=true"}, 30401).args == Args{"--kokkos-disable-warnings"});
  CHECK(adapt_kokkos_arguments({"--kokkos-disable-warnings=off"}, 30401).args.empty());
  CHECK(adapt_kokkos_arguments({"--kokkos-disable-warnings=No"}, 40601).args == Args{"--kokkos-disable-warnings=0"});
  CHECK(adapt_kokkos_arguments({"--kokkos-tune-internals"}, 40601).args == Args{"--kokkos-tune-internals"});
}

TEST_CASE("the Kokkos help argument is passed on and marked, so that klmini stops after Kokkos prints it") {
  const klmini::KokkosArguments a = adapt_kokkos_arguments({"--kokkos-help"}, 40601);
  CHECK(a.help);
  CHECK(a.args == Args{"--kokkos-help"});
  CHECK_FALSE(adapt_kokkos_arguments({"--kokkos-num-threads=1"}, 40601).help);
  CHECK_THROWS_WITH(adapt_kokkos_arguments({"--kokkos-help=1"}, 40601), ContainsSubstring("takes no value"));
}

TEST_CASE("unknown Kokkos arguments, ones the release lacks and bad values are errors naming them") {
  CHECK_THROWS_WITH(adapt_kokkos_arguments({"--kokkos-bogus=3"}, 30401),
                    ContainsSubstring("'--kokkos-bogus=3': unknown; Kokkos 3.4.01 takes --kokkos-num-threads"));
  CHECK_THROWS_AS(adapt_kokkos_arguments({"--kokkos-num-thread=2"}, 40601), klmini::InputError);  // a typo
  CHECK_THROWS_WITH(adapt_kokkos_arguments({"--kokkos-map-device-id-by=mpi_rank"}, 30401),
                    ContainsSubstring("needs Kokkos 3.7.00 or newer (this build has 3.4.01)"));
  CHECK(adapt_kokkos_arguments({"--kokkos-map-device-id-by=mpi_rank"}, 40601).args ==
        Args{"--kokkos-map-device-id-by=mpi_rank"});
  CHECK_THROWS_WITH(adapt_kokkos_arguments({"--kokkos-map-device-id-by=rank"}, 40601),
                    ContainsSubstring("expected mpi_rank or random"));
  CHECK_THROWS_WITH(adapt_kokkos_arguments({"--kokkos-numa=2"}, 40601),
                    ContainsSubstring("Kokkos 4.3.00 and newer no longer have it"));
  CHECK(adapt_kokkos_arguments({"--kokkos-numa=2"}, 30401).args == Args{"--kokkos-numa=2"});
  for (const char* bad : {"--kokkos-num-threads=0", "--kokkos-num-threads=", "--kokkos-num-threads",
                          "--kokkos-threads=2x", "--kokkos-device-id=-1"})
    CHECK_THROWS_WITH(adapt_kokkos_arguments({bad}, 40601), ContainsSubstring(bad) && ContainsSubstring("expected"));
  CHECK_THROWS_WITH(adapt_kokkos_arguments({"--kokkos-disable-warnings=maybe"}, 30401),
                    ContainsSubstring("expected true or false"));
  CHECK_THROWS_WITH(adapt_kokkos_arguments({"--kokkos-tools-libs="}, 40601), ContainsSubstring("expected a value"));
}

TEST_CASE("KOKKOS_TOOLS_LIBS reaches Kokkos before 3.7 as KOKKOS_PROFILE_LIBRARY") {
  const char* old_libs = std::getenv("KOKKOS_TOOLS_LIBS");
  const char* old_profile = std::getenv("KOKKOS_PROFILE_LIBRARY");
  const std::string saved_libs = old_libs ? old_libs : "", saved_profile = old_profile ? old_profile : "";
  setenv("KOKKOS_TOOLS_LIBS", "tool.so", 1);
  unsetenv("KOKKOS_PROFILE_LIBRARY");
  const auto old_release = adapt_kokkos_arguments({}, 30401).environment;
  const auto new_release = adapt_kokkos_arguments({}, 40601).environment;
  setenv("KOKKOS_PROFILE_LIBRARY", "mine.so", 1);  // the user's own choice stands
  const auto both_set = adapt_kokkos_arguments({}, 30401).environment;
  old_libs ? setenv("KOKKOS_TOOLS_LIBS", saved_libs.c_str(), 1) : unsetenv("KOKKOS_TOOLS_LIBS");
  old_profile ? setenv("KOKKOS_PROFILE_LIBRARY", saved_profile.c_str(), 1) : unsetenv("KOKKOS_PROFILE_LIBRARY");
  REQUIRE(old_release.size() == 1);
  CHECK(old_release[0].first == "KOKKOS_PROFILE_LIBRARY");
  CHECK(old_release[0].second == "tool.so");
  CHECK(new_release.empty());
  CHECK(both_set.empty());
}
