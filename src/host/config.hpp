// The run's configuration: a deck (TOML) plus --set overrides, validated and typed.
// Host-only: this header is free of Kokkos and TOML so that every translation unit can use it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "host/backends.hpp"
#include "host/launch_shapes.hpp"
#include "host/precision.hpp"
#include "host/variants.hpp"
#include "numerics/reduction.hpp"

namespace klmini {

enum class InputKind { generate, npy };
enum class VerifyMode { full, sample, off };

struct Config {
  std::int64_t tokens = 1024;
  std::int64_t vocab = 4096;
  // The deck's backend; none for "default", the best compiled in (resolve_backend, run/backends.hpp).
  std::optional<Backend> backend;
  Reduction reduction = Reduction::batchmean;
  bool log_target = false;
  InputKind input = InputKind::generate;
  std::string log_probs;  // .npy paths, resolved against the deck's folder
  std::string targets;
  std::string output;       // .npy path for the `none` reduction's term matrix (optional)
  bool gradient = false;    // also compute d(loss)/d(lp), in the same pass as the loss
  std::string grad_output;  // .npy path for the gradient (tokens x vocab fp32, optional)
  bool overwrite = false;   // replace an existing output file
  bool validate = false;    // check that the inputs are (log-)probability rows before the run
  DType dtype = DType::fp32;
  Precision precision = Precision::backend_default;
  std::uint64_t seed = 20261202;
  int warmup = 2;
  int repeats = 10;
  VerifyMode verify = VerifyMode::full;
  std::int64_t sample_rows = 256;
  std::int64_t peak_GBps = 0;  // the device's datasheet bandwidth, GB/s; 0: not given
  // The deck's loss variant; none for "all" (every loss variant that applies: host/timed_variants.hpp).
  std::optional<Variant> variant = Variant::fused;
  // fused's launch shape: automatic = the fastest of the candidates by trial (host/launch_shapes.hpp)
  LaunchShape shape = LaunchShape::automatic;

  std::string source = "embedded default deck";  // where the deck came from
  std::int64_t elements() const { return tokens * vocab; }
};

const char* to_string(Reduction r);
const char* to_string(InputKind k);
const char* to_string(VerifyMode m);
// The deck's `variant` value: the variant's name, or "all" for none.
std::string variant_setting(const std::optional<Variant>& v);

// The deck compiled into the binary (inputs/default.toml).
const char* embedded_default_deck();

// Parse `deck_text` (read from `deck_path`, or the embedded deck when the path is empty),
// apply `overrides` ("key=value", value in TOML syntax or a bare string), validate.
// Throws DeckError naming the file:line or --set at fault.
Config load_config(const std::string& deck_path, const std::vector<std::string>& overrides);
Config parse_config(const std::string& deck_text, const std::string& source_name, const std::string& deck_dir,
                    const std::vector<std::string>& overrides);

// Every deck key, in documentation order (used by --help and tests).
std::vector<std::string> deck_keys();

// A deck value as a deck holds it: an integer, a boolean or a string.
using DeckValue = std::variant<std::int64_t, bool, std::string>;
// The value as a TOML literal: 3, true, "text" (quotes and backslashes escaped).
std::string toml_literal(const DeckValue& v);

// The resolved deck, key by key in documentation order, with typed values (for the JSON
// record; toml_literal gives the deck text).
std::vector<std::pair<std::string, DeckValue>> describe(const Config& c);

}  // namespace klmini
