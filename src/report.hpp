// Output of a Record: the human report, the JSON object, the CSV rows. Host-only.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "record.hpp"

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
std::string format_loss(double loss);                   // 17 significant digits; nan, inf, -inf

void write_json(const Record& r, const std::string& path);
void append_csv(const Record& r, const std::string& path);

}  // namespace klmini
