// Output of a Record: the human report, the JSON object, the CSV rows. Host-only.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "host/record.hpp"

namespace klmini {

// klmini's version, git hash, compiler (from the build), host and date.
struct Provenance {
  std::string version, git_hash, compiler, build_type, host, date_utc;
};
Provenance provenance();

void print_summary(const Record& r, std::ostream& os);  // input summary, before the run
void print_results(const Record& r, std::ostream& os);  // table, loss, FOM, verification
// fused_grad's median over the sum of fused's and grad_only's (gradient = true), if all ran.
std::optional<double> one_pass_over_two_passes(const Record& r);
std::string format_loss(double loss);  // 17 significant digits; nan, inf, -inf

// What a script may compare of the loss (docs/SEMANTICS.md, Sums): whether it is bitwise the same for
// any ranks, threads, teams and launch shapes of this backend, precision and build, and which
// of this build's backends give the bitwise same loss (this one included; empty when not even
// the decompositions agree).
struct LossReproducibility {
  bool across_decompositions = false;
  std::vector<std::string> same_on;
  std::string text;  // the report's line, after "reproducibility: "
};
LossReproducibility loss_reproducibility(const Record& r);

// The layout of the JSON object and the CSV rows (docs/RESULTS.md): written into both as
// `schema_version`, and raised whenever a field is renamed, removed or changes meaning.
inline constexpr int kResultsSchemaVersion = 1;

void write_json(const Record& r, const std::string& path);
// Appends one row per variant; a file written under another layout is refused.
void append_csv(const Record& r, const std::string& path);

}  // namespace klmini
