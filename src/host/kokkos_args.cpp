#include "host/kokkos_args.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

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
  const auto fail = [&](const std::string& arg, const std::string& why) {
    throw InputError("Kokkos argument '" + arg + "': " + why);
  };
  for (const std::string& arg : given) {
    const std::size_t equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    const bool has_value = equals != std::string::npos;
    const std::string value = has_value ? arg.substr(equals + 1) : std::string();
    const ArgumentSpec* spec = nullptr;
    for (const ArgumentSpec& a : kArguments)
      if (name == a.name || (a.old_name && name == a.old_name)) spec = &a;
    if (!spec) {
      std::string list;
      for (const std::string& n : kokkos_argument_names(kokkos_version)) list += (list.empty() ? "" : ", ") + n;
      fail(arg, "unknown; Kokkos " + version_text(kokkos_version) + " takes " + list);
    }
    if (kokkos_version < spec->since)
      fail(arg, "needs Kokkos " + version_text(spec->since) + " or newer (this build has " +
                    version_text(kokkos_version) + ")");
    if (kokkos_version >= spec->until)
      fail(arg, "Kokkos " + version_text(spec->until) + " and newer no longer have it (this build has " +
                    version_text(kokkos_version) + ")");
    const std::string spelled = renamed || !spec->old_name ? spec->name : spec->old_name;
    switch (spec->value) {
      case ValueKind::none:
        if (has_value) fail(arg, "takes no value");
        out.args.push_back(spelled);
        break;
      case ValueKind::flag: {
        const std::string v = lower(value);
        const bool on = !has_value || v == "1" || v == "true" || v == "yes" || v == "on";
        if (has_value && !on && v != "0" && v != "false" && v != "no" && v != "off")
          fail(arg, "expected true or false");
        // Before 3.7 these are bare flags: present means on.
        if (renamed)
          out.args.push_back(spelled + (has_value ? "=" + std::string(on ? "1" : "0") : ""));
        else if (on)
          out.args.push_back(spelled);
        break;
      }
      case ValueKind::count:
      case ValueKind::index:
        if (!is_integer_at_least(value, spec->value == ValueKind::count ? 1 : 0))
          fail(arg, spec->value == ValueKind::count ? "expected a whole number >= 1" : "expected a whole number >= 0");
        out.args.push_back(spelled + "=" + value);
        break;
      case ValueKind::mapping:
        if (value != "mpi_rank" && value != "random") fail(arg, "expected mpi_rank or random");
        out.args.push_back(spelled + "=" + value);
        break;
      case ValueKind::text:
        if (value.empty()) fail(arg, "expected a value: " + std::string(spec->name) + "=...");
        out.args.push_back(spelled + "=" + value);
        break;
    }
    if (name == "--kokkos-help") out.help = true;
  }
  // Kokkos before 3.7 reads the tools library from KOKKOS_PROFILE_LIBRARY only.
  const char* tools_libs = std::getenv("KOKKOS_TOOLS_LIBS");
  if (!renamed && tools_libs && !std::getenv("KOKKOS_PROFILE_LIBRARY"))
    out.environment.emplace_back("KOKKOS_PROFILE_LIBRARY", tools_libs);
  return out;
}

}  // namespace klmini
