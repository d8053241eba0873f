#include "host/report.hpp"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>
#include <variant>

#include "host/errors.hpp"
#include "version.hpp"

namespace klmini {

TimingStats summarize(std::vector<double> t) {
  TimingStats s;
  if (t.empty()) return s;
  std::sort(t.begin(), t.end());
  const std::size_t n = t.size();
  s.median_s = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  s.min_s = t.front();
  s.max_s = t.back();
  return s;
}

bool Record::verification_failed() const {
  for (const auto& v : results)
    if (v.verification.mode != VerifyMode::off && !v.verification.passed) return true;
  return false;
}
double Record::worst_relative_error() const {
  double worst = 0.0;
  for (const auto& v : results) worst = std::max(worst, v.verification.relative_error);
  return worst;
}

Provenance provenance() {
  Provenance p{KLMINI_VERSION, KLMINI_GIT_HASH, KLMINI_COMPILER, KLMINI_BUILD_TYPE, "", ""};
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) p.host = host;
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  p.date_utc = date;
  return p;
}

static const VariantResult* find_result(const Record& r, Variant variant) {
  for (const auto& v : r.results)
    if (v.variant == variant) return &v;
  return nullptr;
}

std::optional<double> one_pass_over_two_passes(const Record& r) {
  const VariantResult* one = find_result(r, Variant::fused_grad);
  const VariantResult* loss = find_result(r, Variant::fused);
  const VariantResult* grad = find_result(r, Variant::grad_only);
  if (!one || !loss || !grad) return std::nullopt;
  return one->time.median_s / (loss->time.median_s + grad->time.median_s);
}

LossReproducibility loss_reproducibility(const Record& r) {
  LossReproducibility out;
  if (r.results.empty()) return out;
  const VariantInfo& product = info(r.results.front().variant);
  if (!product.ordered_sums.empty()) {
    out.text = "not bitwise across ranks or threads (" + std::string(product.name) + ": " +
               std::string(product.ordered_sums) + " fp64 sums, in their order)";
    return out;
  }
  const std::string backend = backend_name(r.backend);
  if (!r.fixed_units) {  // the backend table's sum_units (host/backends.hpp)
    out.text =
        "bitwise from run to run of one deck, rank count and launch shape; not across rank counts or launch "
        "shapes (" +
        backend + ": fp64 partials of a thread or a row, added exactly)";
    return out;
  }
  out.across_decompositions = true;
  std::string others;
  for (const Backend b : same_sums_as(r.backend, r.kokkos_backends)) {
    out.same_on.push_back(backend_name(b));
    if (b != r.backend) others += (others.empty() ? "" : ", ") + backend_name(b);
  }
  out.text = "bitwise across ranks, threads, teams and launch shapes on " + backend + " (this build, precision " +
             to_string(r.config.precision) + ")";
  if (!others.empty()) out.text += "; bitwise the same on " + others;
  return out;
}

std::string format_loss(double loss) {
  if (std::isnan(loss)) return "nan";
  if (std::isinf(loss)) return loss > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", loss);
  return buf;
}

namespace {

std::string human_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024.0 && u < 4) {
    b /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %s", b, unit[u]);
  return buf;
}

std::string seconds(double s) {
  char buf[32];
  if (s < 1e-3)
    std::snprintf(buf, sizeof buf, "%.2f us", s * 1e6);
  else if (s < 1.0)
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

const VariantResult* product(const Record& r) { return r.results.empty() ? nullptr : &r.results.front(); }

// A rate as a fraction of the deck's peak_GBps; none when the deck gives no peak.
std::optional<double> of_peak(const Record& r, double GBps) {
  if (r.config.peak_GBps <= 0) return std::nullopt;
  return GBps / double(r.config.peak_GBps);
}

nlohmann::json optional_json(const std::optional<double>& x) { return x ? nlohmann::json(*x) : nlohmann::json(); }

// What a timed run of several ranks spans on r.rank_clock (src/run/time_kernel.hpp).
const char* span_of_ranks(const Record& r) {
  return r.rank_clock == RankClock::per_rank_elapsed ? "the slowest rank's time from a barrier"
                                                     : "first rank's start to last rank's end";
}

// With several ranks, a line for each (up to kPlacementLines; the JSON has them all): where it
// runs, the CPUs its mask allows and its GPU.
constexpr std::size_t kPlacementLines = 64;
void print_placements(const Record& r, std::ostream& os) {
  if (r.ranks <= 1) return;
  for (std::size_t k = 0; k < r.placements.size() && k < kPlacementLines; ++k) {
    std::string label = "rank " + std::to_string(r.placements[k].rank);
    label.resize(std::max<std::size_t>(label.size() + 1, 16), ' ');
    os << "  " << label << placement_text(r.placements[k]) << "\n";
  }
  if (r.placements.size() > kPlacementLines)
    os << "  ...             " << r.placements.size() - kPlacementLines << " more ranks (JSON placement)\n";
}

nlohmann::json placement_json(const Record& r) {
  nlohmann::json all = nlohmann::json::array();
  for (const RankPlacement& p : r.placements)
    all.push_back({{"rank", p.rank},
                   {"host", p.host},
                   {"local_rank", p.local_rank},
                   {"threads", p.threads},
                   {"cpus", p.cpus},
                   {"cpu_list", cpu_list_text(p.cpus)},
                   {"gpu", p.gpu.id >= 0 ? nlohmann::json(p.gpu.id) : nlohmann::json()},
                   {"visible_gpus", p.gpu.visible}});
  return all;
}

}  // namespace

void print_summary(const Record& r, std::ostream& os) {
  const Config& c = r.config;
  const Provenance p = provenance();
  os << "klmini " << p.version << " (" << p.git_hash << ") - KL-divergence loss mini-app\n"
     << "Input\n"
     << "  deck            " << c.source << "\n"
     << "  tokens x vocab  " << c.tokens << " x " << c.vocab << " (" << c.elements() << " elements, "
     << to_string(c.dtype) << ")\n"
     << "  input bytes     " << human_bytes(r.input_bytes) << " (lp and t, read once per run)"
     << (r.inputs_fit_in_cache() ? "; they fit in the CPUs' " + human_bytes(double(r.last_level_cache_bytes)) +
                                       " last-level cache: every GB/s below is the cache's, not memory's"
                                 : std::string())
     << "\n"
     << "  memory          " << human_bytes(r.space_bytes) << " in Kokkos::" << r.execution_space << "'s memory"
     << (r.ranks > 1 ? " per rank" : "") << ", " << human_bytes(r.host_bytes)
     << " more on the host (verification's blocks of rows, a fixed amount; copies for I/O)\n"
     << "  reduction       " << to_string(c.reduction) << (c.log_target ? ", log_target" : "") << "\n"
     << "  precision       " << to_string(c.precision)
     << (c.precision == Precision::exact ? " (terms and log in fp64)" : " (fp32 terms, fp64 sums)") << "\n"
     << "  input           " << to_string(c.input);
  if (c.input == InputKind::generate)
    os << " (seed " << c.seed << ")";
  else
    os << " (" << c.log_probs << ", " << c.targets << ")";
  os << "\n"
     << "  backend         " << backend_name(r.backend) << " (Kokkos::" << r.execution_space << ", concurrency "
     << r.concurrency << (r.thread_binding.empty() ? "" : ", threads bound: " + r.thread_binding) << ")\n"
     << "  ranks           " << r.ranks
     << (r.ranks > 1 ? " (MPI; tokens split across ranks, their fixed-point sums added exactly)" : "") << "\n";
  if (r.ranks > 1) os << "  rank clock      " << to_string(r.rank_clock) << " (a run: " << span_of_ranks(r) << ")\n";
  print_placements(r, os);
  os << "  Kokkos          " << r.kokkos_version << " [" << backend_names(r.kokkos_backends, ", ") << "], "
     << (r.kokkos_kernels_version.empty() ? "no Kokkos Kernels" : "Kokkos Kernels " + r.kokkos_kernels_version) << "\n"
     << "  variants        " << variant_setting(c.variant) << "; warmup " << c.warmup << ", repeats " << c.repeats
     << "\n";
  for (const LeftOutVariant& v : r.left_out)
    os << "  left out        " << variant_name(v.variant) << ": " << v.reason << "\n";
  os << "  verification    " << to_string(c.verify);
  if (c.verify == VerifyMode::sample) os << " (" << c.sample_rows << " rows)";
  os << "\n";
}

// fused's launch shape, how it was chosen, and the trials that chose it.
static void print_fused_shape(const Record& r, std::ostream& os) {
  if (r.fused_shape == LaunchShape::automatic) return;
  os << "  fused shape: " << shape_name(r.fused_shape) << " (" << to_string(r.fused_shape_choice);
  for (std::size_t k = 0; k < r.fused_shape_trials.size(); ++k)
    os << (k ? ", " : " of ") << shape_name(r.fused_shape_trials[k].shape) << " "
       << seconds(r.fused_shape_trials[k].median_s);
  os << ")\n";
}

namespace {

void print_ceiling_row(const char* name, const CeilingResult& ceiling, std::ostream& os) {
  const TimingStats& t = ceiling.time;
  char line[256];
  std::snprintf(line, sizeof line, "  %-16s %12s %12s %12s %10.1f %13s  %s\n", name, seconds(t.median_s).c_str(),
                seconds(t.min_s).c_str(), seconds(t.max_s).c_str(), ceiling.GBps, "-", "-");
  os << line;
}

// The shapes a ceiling was the fastest of, when there was a choice.
void print_ceiling_candidates(const char* name, const CeilingResult& ceiling, std::ostream& os) {
  const std::vector<CeilingCandidate>& candidates = ceiling.candidates;
  if (candidates.size() < 2) return;
  os << "  " << name << ": the fastest of";
  for (std::size_t k = 0; k < candidates.size(); ++k)
    os << (k ? "," : "") << " " << candidates[k].shape << " " << seconds(candidates[k].time.median_s);
  os << ": " << ceiling.shape << "\n";
}

// The table's head and its first rows: the ceilings every variant is measured against, how
// they and fused's shape were chosen, and the read ceiling against the deck's peak.
void print_ceilings(const Record& r, std::ostream& os) {
  char line[256];
  os << "Results (setup " << seconds(r.setup_s) << ", reference " << seconds(r.reference_s) << ")\n";
  std::snprintf(line, sizeof line, "  %-16s %12s %12s %12s %10s %13s  %s\n", "variant", "median", "min", "max", "GB/s",
                "of ceiling", "verification");
  os << line;
  print_ceiling_row("ceiling_read", r.read_ceiling, os);
  if (r.copy_ceiling.timed()) print_ceiling_row("ceiling_copy", r.copy_ceiling, os);
  print_ceiling_candidates("ceiling_read", r.read_ceiling, os);
  print_ceiling_candidates("ceiling_copy", r.copy_ceiling, os);
  print_fused_shape(r, os);
  if (const auto f = of_peak(r, r.read_ceiling.GBps)) {
    std::snprintf(line, sizeof line, "  ceiling_read: %.1f%% of the deck's peak_GBps = %lld (the datasheet's)\n",
                  100.0 * *f, static_cast<long long>(r.config.peak_GBps));
    os << line;
  }
}

// A variant's verification column: off, or ok/FAILED with its error; and whether it repeats.
std::string verification_cell(const VariantResult& v) {
  std::string check = "off";
  if (v.verification.mode != VerifyMode::off) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s (rel. err %.2e)", v.verification.passed ? "ok" : "FAILED",
                  v.verification.relative_error);
    check = buf;
  }
  if (!v.reproducible) check += " [not bitwise reproducible]";
  return check;
}

void print_variant_rows(const Record& r, std::ostream& os) {
  char line[256];
  for (const auto& v : r.results) {
    std::snprintf(line, sizeof line, "  %-16s %12s %12s %12s %10.1f %7.1f%% %-4s  %s\n",
                  variant_name(v.variant).c_str(), seconds(v.time.median_s).c_str(), seconds(v.time.min_s).c_str(),
                  seconds(v.time.max_s).c_str(), v.GBps, 100.0 * v.fraction_of_ceiling, to_string(v.ceiling),
                  verification_cell(v).c_str());
    os << line;
  }
}

void print_uncovered_note(const Record& r, const std::string& name, const TimingStats& t, std::ostream& os) {
  if (t.uncovered > 0)
    os << "  note: " << name << ": " << t.uncovered << " of " << r.config.repeats
       << " timed runs were launched after the timer's L2 flush had ended; they may include launch time\n";
}

// Repeats whose slowest is this much above the fastest: the machine was not the run's alone
// (other processes, a shared host, frequency changes), and medians and fractions less sure.
constexpr double kNoisySpread = 0.20;

void print_noisy_note(const std::string& name, const TimingStats& t, std::ostream& os) {
  if (t.min_s <= 0.0 || (t.max_s - t.min_s) / t.min_s < kNoisySpread) return;
  char line[256];
  std::snprintf(line, sizeof line,
                "  note: %s's timed runs spread %.0f%% from fastest to slowest: a noisy or shared machine; "
                "its median and fraction of the ceiling are less sure\n",
                name.c_str(), 100.0 * (t.max_s - t.min_s) / t.min_s);
  os << line;
}

// Below the table: each verification's detail, the timings that may include launch time or
// spread widely, and what one pass saves over two.
void print_notes(const Record& r, std::ostream& os) {
  for (const auto& v : r.results)
    if (v.verification.mode != VerifyMode::off)
      os << "  " << variant_name(v.variant) << ": " << v.verification.detail << "\n";
  print_uncovered_note(r, "ceiling_read", r.read_ceiling.time, os);
  print_uncovered_note(r, "ceiling_copy", r.copy_ceiling.time, os);
  for (const auto& v : r.results) print_uncovered_note(r, variant_name(v.variant), v.time, os);
  print_noisy_note("ceiling_read", r.read_ceiling.time, os);
  if (!r.results.empty()) print_noisy_note(variant_name(r.results.front().variant), r.results.front().time, os);
  for (const auto& v : r.results)
    if (const VariantInfo& variant = info(v.variant); !variant.slower_by_design.empty())
      os << "  note: " << variant.name << " is slower by design: " << variant.slower_by_design << "\n";
  if (const auto ratio = one_pass_over_two_passes(r)) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "  fused_grad / (fused + grad_only) = %.3f (one pass against a loss pass plus a gradient pass)\n",
                  *ratio);
    os << line;
  }
}

// With several ranks: the product's rate on each, and their aggregate.
void print_rank_rates(const Record& r, std::ostream& os) {
  if (r.ranks <= 1 || r.results.empty()) return;
  const VariantResult& p0 = r.results.front();
  os << "  per-rank GB/s (" << variant_name(p0.variant) << ", each rank's bytes over its own median):";
  for (std::size_t k = 0; k < p0.rank_GBps.size(); ++k) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " [%zu] %.1f", k, p0.rank_GBps[k]);
    os << buf;
  }
  char agg[96];
  std::snprintf(agg, sizeof agg, "; aggregate %.1f GB/s", p0.GBps);
  os << agg << " (all ranks' bytes over " << span_of_ranks(r) << ")\n";
}

void print_written_files(const Record& r, std::ostream& os) {
  if (!r.output_written.empty())
    os << "  wrote the " << r.config.tokens << " x " << r.config.vocab << " term matrix to " << r.output_written
       << "\n";
  if (!r.grad_written.empty())
    os << "  wrote the " << r.config.tokens << " x " << r.config.vocab << " gradient d(loss)/d(lp) to "
       << r.grad_written << "\n";
}

// The figure of merit: the product's rate against the read ceiling and the deck's peak.
void print_fom(const Record& r, const VariantResult& p, std::ostream& os) {
  char line[256];
  std::snprintf(line, sizeof line, "FOM: %.3f GB/s (%s, %.1f%% of the %s read ceiling", p.GBps,
                variant_name(p.variant).c_str(), 100.0 * p.fraction_of_ceiling, backend_name(r.backend).c_str());
  os << line;
  if (const auto f = of_peak(r, p.GBps)) {
    std::snprintf(line, sizeof line, ", %.1f%% of the %lld GB/s peak", 100.0 * *f,
                  static_cast<long long>(r.config.peak_GBps));
    os << line;
  }
  os << ")\n";
}

// The answer, at the start of its lines for scripts to grep: loss, its reproducibility, the
// figure of merit and the verdict.
void print_answer(const Record& r, std::ostream& os) {
  const VariantResult* p = product(r);
  if (r.config.reduction == Reduction::none) os << "(reduction none: the loss below is the sum of the term matrix)\n";
  os << "loss: " << format_loss(r.loss) << "\n";
  if (p) os << "reproducibility: " << loss_reproducibility(r).text << "\n";
  // At the start of a line, before the FOM line: a script can grep for it.
  if (r.oversubscribed) os << "warning: oversubscribed: " << r.oversubscription << "\n";
  if (p) print_fom(r, *p, os);
  if (r.config.verify == VerifyMode::off) {
    os << "Verification: OFF\n";
  } else {
    char line[256];
    std::snprintf(line, sizeof line, "Verification: %s (relative error %.3e, %s)\n",
                  r.verification_failed() ? "FAILED" : "PASSED", r.worst_relative_error(), to_string(r.config.verify));
    os << line;
  }
}

}  // namespace

void print_results(const Record& r, std::ostream& os) {
  print_ceilings(r, os);
  print_variant_rows(r, os);
  print_notes(r, os);
  print_rank_rates(r, os);
  print_written_files(r, os);
  print_answer(r, os);
}

namespace {

nlohmann::json finite_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); }

nlohmann::json verification_json(const Verification& v) {
  return {{"mode", to_string(v.mode)},
          {"passed", v.mode == VerifyMode::off ? nlohmann::json() : nlohmann::json(v.passed)},
          {"relative_error", finite_or_null(v.relative_error)},
          {"expected", finite_or_null(v.expected)},
          {"tolerance", finite_or_null(v.tolerance)},
          {"rows_checked", v.rows_checked},
          {"detail", v.detail}};
}

nlohmann::json reproducibility_json(const LossReproducibility& x) {
  return {{"across_decompositions", x.across_decompositions}, {"same_on", x.same_on}, {"text", x.text}};
}

}  // namespace

// null when fused did not run.
nlohmann::json fused_shape_json(const Record& r) {
  if (r.fused_shape == LaunchShape::automatic) return nullptr;
  nlohmann::json trials = nlohmann::json::array();
  for (const ShapeTrial& t : r.fused_shape_trials)
    trials.push_back({{"shape", std::string(shape_name(t.shape))}, {"median_s", t.median_s}});
  return {{"shape", std::string(shape_name(r.fused_shape))},
          {"chosen_by", to_string(r.fused_shape_choice)},
          {"trials", trials}};
}

namespace {

// The deck's keys as the run read them, and where it ran.
nlohmann::json parameters_json(const Record& r) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [key, value] : describe(r.config))
    std::visit([&params, &k = key](const auto& v) { params[k] = v; }, value);
  params["backend"] = backend_name(r.backend);
  params["ranks"] = r.ranks;
  return params;
}

nlohmann::json results_json(const Record& r) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& v : r.results) {
    results.push_back({{"variant", variant_name(v.variant)},
                       {"median_s", v.time.median_s},
                       {"min_s", v.time.min_s},
                       {"max_s", v.time.max_s},
                       {"uncovered_launches", v.time.uncovered},
                       {"bytes", v.bytes},
                       {"GBps", v.GBps},
                       {"fraction_of_ceiling", v.fraction_of_ceiling},
                       {"fraction_of_peak", optional_json(of_peak(r, v.GBps))},
                       {"ceiling", to_string(v.ceiling)},
                       {"loss", finite_or_null(v.loss)},
                       {"bitwise_reproducible", v.reproducible},
                       {"rank_GBps", v.rank_GBps},
                       {"verification", verification_json(v.verification)}});
  }
  return results;
}

nlohmann::json left_out_json(const Record& r) {
  nlohmann::json left_out = nlohmann::json::array();
  for (const LeftOutVariant& v : r.left_out)
    left_out.push_back({{"variant", variant_name(v.variant)}, {"reason", v.reason}});
  return left_out;
}

nlohmann::json candidates_json(const std::vector<CeilingCandidate>& candidates) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& k : candidates)
    list.push_back({{"shape", k.shape}, {"median_s", k.time.median_s}, {"GBps", k.GBps}});
  return list;
}

nlohmann::json read_ceiling_json(const Record& r) {
  const CeilingResult& c = r.read_ceiling;
  return {{"median_s", c.time.median_s},
          {"min_s", c.time.min_s},
          {"max_s", c.time.max_s},
          {"uncovered_launches", c.time.uncovered},
          {"bytes", r.input_bytes},
          {"shape", c.shape},
          {"candidates", candidates_json(c.candidates)}};
}

// null when no kernel writes a matrix (the copy ceiling was not timed).
nlohmann::json copy_ceiling_json(const Record& r) {
  const CeilingResult& c = r.copy_ceiling;
  if (!c.timed()) return nlohmann::json();
  return {{"median_s", c.time.median_s},
          {"min_s", c.time.min_s},
          {"max_s", c.time.max_s},
          {"GBps", c.GBps},
          {"shape", c.shape},
          {"candidates", candidates_json(c.candidates)}};
}

// The run's verdict: every variant's worst error against the deck's mode.
nlohmann::json run_verification_json(const Record& r) {
  return {{"mode", to_string(r.config.verify)},
          {"passed", r.config.verify == VerifyMode::off ? nlohmann::json() : nlohmann::json(!r.verification_failed())},
          {"relative_error", finite_or_null(r.worst_relative_error())}};
}

// What built and ran it: this binary, its Kokkos, the space and the host.
nlohmann::json provenance_json(const Record& r) {
  const Provenance p = provenance();
  return {{"klmini_version", p.version},
          {"git_hash", p.git_hash},
          {"compiler", p.compiler},
          {"build_type", p.build_type},
          {"kokkos_version", r.kokkos_version},
          {"kokkos_backends", backend_names(r.kokkos_backends, ", ")},
          {"kokkos_kernels_version",
           r.kokkos_kernels_version.empty() ? nlohmann::json() : nlohmann::json(r.kokkos_kernels_version)},
          {"execution_space", r.execution_space},
          {"concurrency", r.concurrency},
          {"ranks", r.ranks},
          {"host", p.host},
          {"date", p.date_utc}};
}

nlohmann::json or_null_if_empty(const std::string& s) { return s.empty() ? nlohmann::json() : nlohmann::json(s); }

}  // namespace

void write_json(const Record& r, const std::string& path) {
  const nlohmann::json doc = {
      {"schema_version", kResultsSchemaVersion},
      {"parameters", parameters_json(r)},
      {"loss", finite_or_null(r.loss)},
      {"loss_text", format_loss(r.loss)},
      {"loss_reproducibility", reproducibility_json(loss_reproducibility(r))},
      {"ceiling_GBps", r.read_ceiling.GBps},
      {"peak_GBps", r.config.peak_GBps > 0 ? nlohmann::json(double(r.config.peak_GBps)) : nlohmann::json()},
      {"ceiling_fraction_of_peak", optional_json(of_peak(r, r.read_ceiling.GBps))},
      {"last_level_cache_bytes",
       r.last_level_cache_bytes > 0 ? nlohmann::json(r.last_level_cache_bytes) : nlohmann::json()},
      {"inputs_fit_in_cache", r.inputs_fit_in_cache()},
      {"rank_clock", to_string(r.rank_clock)},
      {"oversubscribed", r.oversubscribed},
      {"oversubscription", r.oversubscription},
      {"placement", placement_json(r)},
      {"ceiling", read_ceiling_json(r)},
      {"copy_ceiling", copy_ceiling_json(r)},
      {"fused_shape", fused_shape_json(r)},
      {"one_pass_over_two_passes", optional_json(one_pass_over_two_passes(r))},
      {"results", results_json(r)},
      {"left_out", left_out_json(r)},
      {"verification", run_verification_json(r)},
      {"output", or_null_if_empty(r.output_written)},
      {"grad_output", or_null_if_empty(r.grad_written)},
      {"memory", {{"space_bytes", r.space_bytes}, {"host_bytes", r.host_bytes}}},
      {"setup_s", r.setup_s},
      {"reference_s", r.reference_s},
      {"provenance", provenance_json(r)}};
  errno = 0;
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw DataFileError(path, "cannot write JSON file: " + os_error());
  out << doc.dump(2) << "\n";
  out.flush();
  if (!out) throw DataFileError(path, "write failed: " + os_error());
}

void append_csv(const Record& r, const std::string& path) {
  static const char* header =
      "schema_version,date,host,klmini_version,git_hash,kokkos_version,backend,concurrency,ranks,tokens,vocab,dtype,"
      "precision,"
      "reduction,log_target,input,variant,median_s,min_s,max_s,bytes,GBps,ceiling,ceiling_GBps,fraction_of_ceiling,"
      "loss,"
      "verification,relative_error";
  std::error_code ec;
  const bool fresh = !std::filesystem::exists(path, ec) || std::filesystem::file_size(path, ec) == 0;
  if (!fresh) {
    std::ifstream in(path);
    std::string first;
    std::getline(in, first);
    if (first != header) throw DataFileError(path, "existing CSV has a different header; write to a new file");
  }
  errno = 0;
  std::ofstream out(path, std::ios::app);
  if (!out) throw DataFileError(path, "cannot append to CSV file: " + os_error());
  if (fresh) out << header << "\n";
  const Provenance p = provenance();
  const Config& c = r.config;
  for (const auto& v : r.results) {
    const char* check = v.verification.mode == VerifyMode::off ? "off" : v.verification.passed ? "passed" : "failed";
    out << kResultsSchemaVersion << "," << p.date_utc << "," << p.host << "," << p.version << "," << p.git_hash << ","
        << r.kokkos_version << "," << backend_name(r.backend) << "," << r.concurrency << "," << r.ranks << ","
        << c.tokens << "," << c.vocab << "," << to_string(c.dtype) << "," << to_string(c.precision) << ","
        << to_string(c.reduction) << "," << (c.log_target ? "true" : "false") << "," << to_string(c.input) << ","
        << variant_name(v.variant) << "," << std::setprecision(9) << v.time.median_s << "," << v.time.min_s << ","
        << v.time.max_s << "," << std::setprecision(15) << v.bytes << "," << std::setprecision(6) << v.GBps << ","
        << to_string(v.ceiling) << "," << r.ceiling(v.ceiling).GBps << "," << v.fraction_of_ceiling << ","
        << format_loss(v.loss) << "," << check << "," << std::setprecision(3) << v.verification.relative_error << "\n";
  }
  out.flush();
  if (!out) throw DataFileError(path, "write failed: " + os_error());
}

}  // namespace klmini
