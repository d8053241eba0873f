#include "host/kokkos_args.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <utility>

#include "host/errors.hpp"

namespace klmini {

namespace {

// The release that renamed the arguments and added the device mapping and configuration print.
constexpr int kRenamedIn = 30700;
// The release that dropped --kokkos-numa, --kokkos-ndevices and --kokkos-num-devices.
constexpr int kDroppedNumaIn = 40300;

enum class ValueKind { none, flag, count, index, mapping, text };

struct ArgumentSpec {
  const char* name;      // the spelling since kRenamedIn
  const char* old_name;  // the spelling before it (nullptr: the same)
  ValueKind value;
  int since = 0;        // the first release that reads it
  int until = 1 << 30;  // the first release that no longer reads it
};

const ArgumentSpec kArguments[] = {
    {"--kokkos-num-threads", "--kokkos-threads", ValueKind::count},
    {"--kokkos-device-id", nullptr, ValueKind::index},
    {"--kokkos-map-device-id-by", nullptr, ValueKind::mapping, kRenamedIn},
    {"--kokkos-disable-warnings", nullptr, ValueKind::flag},
    {"--kokkos-print-configuration", nullptr, ValueKind::flag, kRenamedIn},
    {"--kokkos-tune-internals", nullptr, ValueKind::flag},
    {"--kokkos-tools-libs", "--kokkos-tools-library", ValueKind::text},
    {"--kokkos-tools-args", nullptr, ValueKind::text},
    {"--kokkos-tools-help", nullptr, ValueKind::none},
    {"--kokkos-help", nullptr, ValueKind::none},
    {"--kokkos-numa", nullptr, ValueKind::count, 0, kDroppedNumaIn},
    {"--kokkos-num-devices", "--kokkos-ndevices", ValueKind::text, 0, kDroppedNumaIn},
};

std::string version_text(int v) {
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + (v % 100 < 10 ? "0" : "") +
         std::to_string(v % 100);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// Whether `text` is a whole decimal integer >= `minimum`.
bool is_integer_at_least(const std::string& text, long minimum) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  return *end == '\0' && errno == 0 && v >= minimum && v <= 1 << 20;
}

[[noreturn]] void fail(const std::string& arg, const std::string& why) {
  throw InputError("Kokkos argument '" + arg + "': " + why);
}

// One --kokkos-* argument as typed: NAME or NAME=VALUE.
struct Given {
  std::string arg, name, value;
  bool has_value = false;
};

Given split(const std::string& arg) {
  const std::size_t equals = arg.find('=');
  const bool has_value = equals != std::string::npos;
  return {arg, arg.substr(0, equals), has_value ? arg.substr(equals + 1) : std::string(), has_value};
}

// The argument's entry in kArguments, by either spelling, if this release reads it.
const ArgumentSpec& find_spec(const Given& g, int kokkos_version) {
  const ArgumentSpec* spec = nullptr;
  for (const ArgumentSpec& a : kArguments)
    if (g.name == a.name || (a.old_name && g.name == a.old_name)) spec = &a;
  if (!spec) {
    std::string list;
    for (const std::string& n : kokkos_argument_names(kokkos_version)) list += (list.empty() ? "" : ", ") + n;
    fail(g.arg, "unknown; Kokkos " + version_text(kokkos_version) + " takes " + list);
  }
  if (kokkos_version < spec->since)
    fail(g.arg, "needs Kokkos " + version_text(spec->since) + " or newer (this build has " +
                    version_text(kokkos_version) + ")");
  if (kokkos_version >= spec->until)
    fail(g.arg, "Kokkos " + version_text(spec->until) + " and newer no longer have it (this build has " +
                    version_text(kokkos_version) + ")");
  return *spec;
}

// The argument in the spelling this release reads, its value checked; none for a flag that is
// off before 3.7, where flags are bare (present means on).
std::optional<std::string> spell(const ArgumentSpec& spec, const Given& g, bool renamed) {
  const std::string spelled = renamed || !spec.old_name ? spec.name : spec.old_name;
  switch (spec.value) {
    case ValueKind::none:
      if (g.has_value) fail(g.arg, "takes no value");
      return spelled;
    case ValueKind::flag: {
      const std::string v = lower(g.value);
      const bool on = !g.has_value || v == "1" || v == "true" || v == "yes" || v == "on";
      if (g.has_value && !on && v != "0" && v != "false" && v != "no" && v != "off")
        fail(g.arg, "expected true or false");
      if (renamed) return spelled + (g.has_value ? "=" + std::string(on ? "1" : "0") : "");
      if (on) return spelled;
      return std::nullopt;
    }
    case ValueKind::count:
    case ValueKind::index:
      if (!is_integer_at_least(g.value, spec.value == ValueKind::count ? 1 : 0))
        fail(g.arg, spec.value == ValueKind::count ? "expected a whole number >= 1" : "expected a whole number >= 0");
      break;
    case ValueKind::mapping:
      if (g.value != "mpi_rank" && g.value != "random") fail(g.arg, "expected mpi_rank or random");
      break;
    case ValueKind::text:
      if (g.value.empty()) fail(g.arg, "expected a value: " + std::string(spec.name) + "=...");
      break;
  }
  return spelled + "=" + g.value;
}

}  // namespace

std::vector<std::string> kokkos_argument_names(int kokkos_version) {
  std::vector<std::string> names;
  for (const ArgumentSpec& a : kArguments)
    if (kokkos_version >= a.since && kokkos_version < a.until) names.emplace_back(a.name);
  return names;
}

KokkosArguments adapt_kokkos_arguments(const std::vector<std::string>& given, int kokkos_version) {
  KokkosArguments out;
  const bool renamed = kokkos_version >= kRenamedIn;
  for (const std::string& arg : given) {
    const Given g = split(arg);
    if (std::optional<std::string> spelled = spell(find_spec(g, kokkos_version), g, renamed))
      out.args.push_back(std::move(*spelled));
    if (g.name == "--kokkos-help") out.help = true;
  }
  // Kokkos before 3.7 reads the tools library from KOKKOS_PROFILE_LIBRARY only.
  const char* tools_libs = std::getenv("KOKKOS_TOOLS_LIBS");
  if (!renamed && tools_libs && !std::getenv("KOKKOS_PROFILE_LIBRARY"))
    out.environment.emplace_back("KOKKOS_PROFILE_LIBRARY", tools_libs);
  return out;
}

}  // namespace klmini
