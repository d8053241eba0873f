// The report's formats (src/host/report.cpp): loss line, statistics, results table, JSON, CSV.
// Also a Record's verdicts (src/host/record.hpp: verification_failed, worst_relative_error).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "common/temp_dir.hpp"
#include "host/errors.hpp"
#include "host/report.hpp"

using Catch::Matchers::ContainsSubstring;
using klmini::testing::TempDir;

namespace {

klmini::Record sample_record(double loss) {
  klmini::Record r;
  r.config.tokens = 8;
  r.config.vocab = 16;
  r.config.precision = klmini::Precision::fast;  // resolved, as in a run
  r.backend = klmini::Backend::serial;
  r.execution_space = "Serial";
  r.concurrency = 1;
  r.kokkos_version = "9.9.99";
  r.kokkos_backends = {klmini::Backend::serial};
  r.input_bytes = 2.0 * 8 * 16 * 4;
  r.read_ceiling.time = {2e-6, 1.9e-6, 2.1e-6};
  r.read_ceiling.GBps = r.input_bytes / 2e-6 * 1e-9;
  klmini::VariantResult v;
  v.variant = klmini::Variant::fused;
  v.time = {4e-6, 3.9e-6, 4.3e-6};
  v.bytes = r.input_bytes;
  v.GBps = v.bytes / 4e-6 * 1e-9;
  v.fraction_of_ceiling = 0.5;
  v.loss = loss;
  v.verification.mode = klmini::VerifyMode::full;
  v.verification.passed = true;
  v.verification.relative_error = 1.25e-9;
  r.results.push_back(v);
  r.loss = loss;
  return r;
}

}  // namespace

TEST_CASE("the loss is printed with 17 significant digits, non-finite values by name") {
  CHECK(klmini::format_loss(0.34657359027997264) == "0.34657359027997264");
  CHECK(klmini::format_loss(1.0 / 3.0) == "0.33333333333333331");
  CHECK(klmini::format_loss(std::nan("")) == "nan");
  CHECK(klmini::format_loss(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(klmini::format_loss(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(klmini::format_loss(0.0) == "0");
}

TEST_CASE("summarize gives median, minimum and maximum") {
  const auto odd = klmini::summarize({5.0, 1.0, 3.0});
  CHECK(odd.median_s == 3.0);
  CHECK(odd.min_s == 1.0);
  CHECK(odd.max_s == 5.0);
  CHECK(klmini::summarize({4.0, 1.0, 3.0, 2.0}).median_s == 2.5);
}

TEST_CASE("the results block has the table, the loss line, the FOM and the verdict") {
  std::ostringstream os;
  klmini::print_results(sample_record(0.125), os);
  const std::string s = os.str();
  CHECK_THAT(s, ContainsSubstring("ceiling_read"));
  CHECK_THAT(s, ContainsSubstring("fused"));
  CHECK_THAT(s, ContainsSubstring("\nloss: 0.125\nreproducibility: bitwise across ranks, threads, teams and launch "
                                  "shapes on serial (this build, precision fast)\n"));
  CHECK_THAT(s, ContainsSubstring("FOM: 0.256 GB/s (fused, 50.0% of the serial read ceiling)"));
  CHECK_THAT(s, ContainsSubstring("Verification: PASSED (relative error 1.250e-09, full)"));
  auto failed = sample_record(0.125);
  failed.results[0].verification.passed = false;
  std::ostringstream os2;
  klmini::print_results(failed, os2);
  CHECK_THAT(os2.str(), ContainsSubstring("Verification: FAILED"));
  CHECK(failed.verification_failed());
}

TEST_CASE("a deck's peak_GBps adds the fraction of that peak to the FOM, the ceiling and the JSON") {
  auto r = sample_record(0.125);
  std::ostringstream none;
  klmini::print_results(r, none);
  CHECK_THAT(none.str(), !ContainsSubstring("peak"));
  r.config.peak_GBps = 1;  // the sample's fused moves 0.256 GB/s
  std::ostringstream os;
  klmini::print_results(r, os);
  CHECK_THAT(os.str(),
             ContainsSubstring("FOM: 0.256 GB/s (fused, 50.0% of the serial read ceiling, 25.6% of the 1 GB/s peak)"));
  CHECK_THAT(os.str(), ContainsSubstring("ceiling_read: 51.2% of the deck's peak_GBps = 1"));
  const TempDir dir("report_peak");
  const std::string path = dir.file("peak.json");
  klmini::write_json(r, path);
  const auto j = nlohmann::json::parse(std::ifstream(path));
  CHECK(j["peak_GBps"] == 1.0);
  CHECK(std::fabs(j["results"][0]["fraction_of_peak"].get<double>() - 0.256) < 1e-12);
  CHECK(std::fabs(j["ceiling_fraction_of_peak"].get<double>() - 0.512) < 1e-12);
  CHECK(j["parameters"]["peak_GBps"] == 1);
}

TEST_CASE("timed runs whose launch the L2 flush did not cover are named, and only those") {
  auto r = sample_record(0.125);
  std::ostringstream clean;
  klmini::print_results(r, clean);
  CHECK_THAT(clean.str(), !ContainsSubstring("note:"));
  r.results[0].time.uncovered = 3;
  r.read_ceiling.time.uncovered = 1;
  std::ostringstream noted;
  klmini::print_results(r, noted);
  CHECK_THAT(noted.str(), ContainsSubstring("note: fused: 3 of " + std::to_string(r.config.repeats) + " timed runs"));
  CHECK_THAT(noted.str(), ContainsSubstring("note: ceiling_read: 1 of"));
  CHECK_THAT(noted.str(), !ContainsSubstring("note: ceiling_copy"));
}

TEST_CASE("repeats that spread widely are noted as a noisy machine, the product's and the ceiling's") {
  auto r = sample_record(0.125);
  r.results[0].time = {4e-6, 3.9e-6, 4.6e-6};  // 17.9%: under the threshold
  std::ostringstream quiet;
  klmini::print_results(r, quiet);
  CHECK_THAT(quiet.str(), !ContainsSubstring("noisy"));
  r.results[0].time = {4e-6, 3.9e-6, 5.0e-6};  // 28.2%
  r.read_ceiling.time = {2e-6, 1.5e-6, 3e-6};  // 100%
  std::ostringstream noisy;
  klmini::print_results(r, noisy);
  CHECK_THAT(noisy.str(), ContainsSubstring("note: fused's timed runs spread 28% from fastest to slowest"));
  CHECK_THAT(noisy.str(), ContainsSubstring("note: ceiling_read's timed runs spread 100%"));
}

TEST_CASE("several ranks: the clock they are timed on, and an oversubscribed run warned of before the FOM") {
  auto r = sample_record(0.125);
  std::ostringstream one;
  klmini::print_summary(r, one);
  klmini::print_results(r, one);
  CHECK_THAT(one.str(), !ContainsSubstring("rank clock"));
  CHECK_THAT(one.str(), !ContainsSubstring("warning:"));
  r.ranks = 4;
  r.rank_clock = klmini::RankClock::node_steady;
  r.results[0].rank_GBps = {1.0, 2.0, 3.0, 4.0};
  r.oversubscribed = true;
  r.oversubscription = "4 ranks x 1 thread on 2 CPUs of node vm; times and GB/s are not the hardware's";
  std::ostringstream os;
  klmini::print_summary(r, os);
  klmini::print_results(r, os);
  const std::string s = os.str();
  CHECK_THAT(s,
             ContainsSubstring("  rank clock      node steady clock (a run: first rank's start to last rank's end)\n"));
  CHECK_THAT(s, ContainsSubstring("[3] 4.0; aggregate 0.3 GB/s (all ranks' bytes over first rank's start to last "
                                  "rank's end)\n"));
  const std::string warning =
      "\nwarning: oversubscribed: 4 ranks x 1 thread on 2 CPUs of node vm; times and GB/s "
      "are not the hardware's\nFOM: ";
  CHECK_THAT(s, ContainsSubstring(warning));
  r.rank_clock = klmini::RankClock::per_rank_elapsed;
  std::ostringstream apart;
  klmini::print_results(r, apart);
  CHECK_THAT(apart.str(), ContainsSubstring("aggregate 0.3 GB/s (all ranks' bytes over the slowest rank's time from a "
                                            "barrier)"));
}

TEST_CASE("JSON holds parameters, loss (null when not finite), results, verification, provenance") {
  const TempDir dir("report");
  const std::string path = dir.file("a.json");
  klmini::write_json(sample_record(0.125), path);
  const auto j = nlohmann::json::parse(std::ifstream(path));
  CHECK(j["schema_version"] == 1);
  CHECK(j["parameters"]["tokens"] == 8);
  CHECK(j["parameters"]["reduction"] == "batchmean");
  CHECK(j["parameters"]["log_target"] == false);
  CHECK(j["loss"] == 0.125);
  CHECK(j["ceiling_GBps"].get<double>() > 0.0);
  CHECK(j["rank_clock"] == "one rank: its own timer");
  CHECK(j["oversubscribed"] == false);
  CHECK(j["oversubscription"] == "");
  REQUIRE(j["results"].size() == 1);
  for (const char* key : {"variant", "median_s", "min_s", "max_s", "GBps", "fraction_of_ceiling"})
    CHECK(j["results"][0].contains(key));
  CHECK(j["results"][0]["median_s"] == 4e-6);
  CHECK(j["results"][0]["uncovered_launches"] == 0);
  CHECK(j["verification"]["mode"] == "full");
  CHECK(j["verification"]["passed"] == true);
  CHECK(j["verification"]["relative_error"] == 1.25e-9);
  for (const char* key :
       {"klmini_version", "git_hash", "compiler", "kokkos_version", "kokkos_backends", "host", "date"})
    CHECK(j["provenance"].contains(key));
  CHECK(j["provenance"]["kokkos_version"] == "9.9.99");

  klmini::write_json(sample_record(std::nan("")), path);
  const auto n = nlohmann::json::parse(std::ifstream(path));
  CHECK(n["loss"].is_null());
  CHECK(n["loss_text"] == "nan");
  CHECK(n["loss_reproducibility"]["across_decompositions"] == true);
  CHECK(n["loss_reproducibility"]["same_on"] == nlohmann::json::array({"serial"}));
  CHECK(n["loss_reproducibility"]["text"] == klmini::loss_reproducibility(sample_record(0.125)).text);
}

TEST_CASE("fused's launch shape: the table's line and the JSON say which and how it was chosen") {
  using S = klmini::LaunchShape;
  klmini::Record r = sample_record(0.125);
  const TempDir dir("report");
  const std::string path = dir.file("shape.json");
  klmini::write_json(r, path);
  CHECK(nlohmann::json::parse(std::ifstream(path))["fused_shape"].is_null());  // fused did not run
  std::ostringstream none;
  klmini::print_results(r, none);
  CHECK_THAT(none.str(), !ContainsSubstring("fused shape"));

  r.fused_shape = S::rows_u4_t256;
  r.fused_shape_choice = klmini::ShapeChoice::trial;
  r.fused_shape_trials = {{S::grid_u2_half, 180e-6}, {S::rows_u4_t256, 172.5e-6}};
  std::ostringstream os;
  klmini::print_results(r, os);
  CHECK_THAT(os.str(), ContainsSubstring("  fused shape: rows_u4_t256 (fastest by trial of grid_u2_half 180.00 us, "
                                         "rows_u4_t256 172.50 us)\n"));
  klmini::write_json(r, path);
  const auto j = nlohmann::json::parse(std::ifstream(path))["fused_shape"];
  CHECK(j["shape"] == "rows_u4_t256");
  CHECK(j["chosen_by"] == "fastest by trial");
  REQUIRE(j["trials"].size() == 2);
  CHECK(j["trials"][1]["shape"] == "rows_u4_t256");
  CHECK(j["trials"][1]["median_s"] == 172.5e-6);

  r.fused_shape = S::grid_u4_quarter;
  r.fused_shape_choice = klmini::ShapeChoice::deck;
  r.fused_shape_trials.clear();
  std::ostringstream forced;
  klmini::print_results(r, forced);
  CHECK_THAT(forced.str(), ContainsSubstring("  fused shape: grid_u4_quarter (the deck's)\n"));
}

TEST_CASE("the loss's reproducibility class: its backend's decompositions, and which backends agree") {
  auto r = sample_record(0.125);
  r.kokkos_backends = {klmini::Backend::cuda, klmini::Backend::openmp, klmini::Backend::serial};
  r.backend = klmini::Backend::openmp;
  auto x = klmini::loss_reproducibility(r);
  CHECK(x.across_decompositions);
  CHECK(x.same_on == std::vector<std::string>{"openmp", "serial"});
  CHECK(x.text ==
        "bitwise across ranks, threads, teams and launch shapes on openmp (this build, precision fast); bitwise the "
        "same on serial");
  r.backend = klmini::Backend::cuda;
  r.config.precision = klmini::Precision::exact;
  x = klmini::loss_reproducibility(r);  // a build with KLMINI_CUDA_FIXED_SUM
  CHECK(x.across_decompositions);
  CHECK(x.same_on == std::vector<std::string>{"cuda"});
  CHECK(x.text == "bitwise across ranks, threads, teams and launch shapes on cuda (this build, precision exact)");
  r.fixed_units = false;
  x = klmini::loss_reproducibility(r);
  CHECK_FALSE(x.across_decompositions);
  CHECK(x.same_on.empty());
  CHECK_THAT(x.text,
             ContainsSubstring(
                 "not across rank counts or launch shapes (cuda: fp64 partials of a thread or a row, added exactly)"));
  r.results[0].variant = klmini::Variant::flat;
  x = klmini::loss_reproducibility(r);
  CHECK_FALSE(x.across_decompositions);
  CHECK(x.same_on.empty());
  CHECK(x.text == "not bitwise across ranks or threads (flat: Kokkos' fp64 sums, in their order)");
  r.results[0].variant = klmini::Variant::kokkos_kernels;
  x = klmini::loss_reproducibility(r);
  CHECK_FALSE(x.across_decompositions);
  CHECK(x.same_on.empty());
  CHECK_THAT(x.text, ContainsSubstring("not bitwise across ranks or threads"));
}

TEST_CASE("CSV: the header once, then one row per variant per run") {
  const TempDir dir("report");
  const std::string path = dir.file("a.csv");
  klmini::append_csv(sample_record(0.125), path);
  klmini::append_csv(sample_record(0.25), path);
  std::ifstream in(path);
  std::string header, row1, row2, extra;
  std::getline(in, header);
  std::getline(in, row1);
  std::getline(in, row2);
  CHECK_FALSE(std::getline(in, extra));
  CHECK_THAT(header, ContainsSubstring("variant,median_s,min_s,max_s"));
  CHECK(header.rfind("schema_version,date,", 0) == 0);
  CHECK(row1.rfind("1,", 0) == 0);
  CHECK_THAT(row1, ContainsSubstring(",fused,"));
  CHECK_THAT(row1, ContainsSubstring(",0.125,passed,"));
  CHECK_THAT(row2, ContainsSubstring(",0.25,passed,"));

  const std::string other = dir.file("b.csv");
  std::ofstream(other) << "something,else\n";
  REQUIRE_THROWS_WITH(klmini::append_csv(sample_record(0.5), other), ContainsSubstring("different header"));
}

TEST_CASE("with the gradient, the table shows the copy ceiling and one pass against two") {
  klmini::Record r = sample_record(0.5);
  r.copy_ceiling.time = {3e-6, 2e-6, 4e-6};
  r.copy_ceiling.GBps = 8.0 * 16 * 12 / 3e-6 * 1e-9;
  CHECK(&r.ceiling(klmini::Ceiling::copy) == &r.copy_ceiling);  // a variant's rate is a fraction of its own
  CHECK(&r.ceiling(klmini::Ceiling::read) == &r.read_ceiling);
  klmini::VariantResult grad = r.results.front();
  grad.variant = klmini::Variant::fused_grad;
  grad.ceiling = klmini::Ceiling::copy;
  grad.time = {6e-6, 5e-6, 7e-6};
  grad.fraction_of_ceiling = 0.5;
  klmini::VariantResult only = grad;
  only.variant = klmini::Variant::grad_only;
  only.time = {4e-6, 3e-6, 5e-6};
  only.loss = 0.0;
  r.results.push_back(grad);
  r.results.push_back(only);
  REQUIRE(klmini::one_pass_over_two_passes(r).has_value());
  CHECK(*klmini::one_pass_over_two_passes(r) == 6e-6 / (4e-6 + 4e-6));
  std::ostringstream os;
  klmini::print_results(r, os);
  CHECK_THAT(os.str(), ContainsSubstring("ceiling_copy") && ContainsSubstring("50.0% copy") &&
                           ContainsSubstring("fused_grad / (fused + grad_only) = 0.750"));
  r.results.pop_back();  // without grad_only there is no two-pass figure
  CHECK_FALSE(klmini::one_pass_over_two_passes(r).has_value());
  std::ostringstream without;
  klmini::print_results(r, without);
  CHECK_THAT(without.str(), !ContainsSubstring("grad_only"));
}
