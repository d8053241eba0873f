// klmini: the driver. It only parses the command line, loads the deck, initializes Kokkos,
// dispatches to the chosen backend and maps errors to exit codes:
//   0 ran (verification passed or off), 1 verification failed, 2 bad usage or bad input,
//   3 an internal or runtime failure (a Kokkos or CUDA error).
// With MPI every rank runs this; rank 0 prints and writes the reports.
#include <Kokkos_Core.hpp>

#include <CLI/CLI.hpp>

#include <stdlib.h>  // setenv

#include <algorithm>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/comm.hpp"
#include "host/config.hpp"
#include "host/errors.hpp"
#include "host/kokkos_args.hpp"
#include "host/placement.hpp"
#include "host/report.hpp"
#include "run/backends.hpp"

namespace {

constexpr int kExitVerificationFailed = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitRuntimeError = 3;

struct Arguments {
  std::string deck;
  std::vector<std::string> overrides;
  std::string json, csv;
  bool show_keys = false;
  std::vector<std::string> kokkos_given;  // the --kokkos-* arguments, as typed
};

std::string version_text() {
  const klmini::Provenance p = klmini::provenance();
  const std::string kernels = klmini::kokkos_kernels_version();
  return "klmini " + p.version + " (git " + p.git_hash + ", " + p.compiler + ", Kokkos " + klmini::kokkos_version() +
         " [" + klmini::kokkos_backends() + "], " +
         (kernels.empty() ? std::string("no Kokkos Kernels") : "Kokkos Kernels " + kernels) + ")";
}

void print_error(const klmini::Comm& comm, const std::string& message) {
  std::cerr << "klmini: " << message << (comm.size() > 1 ? " (rank " + std::to_string(comm.rank()) + ")" : "") << "\n";
}

// Prints an error and returns its exit code. An error on one rank must end all of them (the
// others would wait in a collective).
int fail(const klmini::Comm& comm, int code, const std::string& message) {
  print_error(comm, message);
  if (comm.size() > 1) comm.abort(code);
  return code;
}

void add_options(CLI::App& app, Arguments& args) {
  app.add_option("DECK", args.deck, "TOML input deck (paths inside are relative to its folder)")
      ->check(CLI::ExistingFile);
  app.add_option("--set", args.overrides, "override a deck key: --set tokens=2048 (repeatable)")
      ->type_name("KEY=VALUE");
  app.add_option("--json", args.json, "write the results as one JSON object to FILE")->type_name("FILE");
  app.add_option("--csv", args.csv, "append one row per variant to FILE (header when new)")->type_name("FILE");
  app.add_flag("--list-keys", args.show_keys, "list the deck keys and exit");
  app.set_version_flag("--version", version_text());
}

// Reads the command line into `args`. --kokkos-* arguments belong to Kokkos and are kept
// aside; everything else is klmini's, parsed by CLI11. Returns the exit code when the parse
// ends the run (--help, --version, a bad argument).
std::optional<int> parse_command_line(int argc, char* argv[], const klmini::Comm& comm, Arguments& args) {
  std::vector<std::string> own_args;
  for (int i = 1; i < argc; ++i)
    (std::strncmp(argv[i], "--kokkos-", 9) == 0 ? args.kokkos_given : own_args).emplace_back(argv[i]);
  CLI::App app{
      "klmini: KL-divergence loss (PyTorch kl_div semantics) as one fused Kokkos parallel_reduce.\n"
      "Runs the embedded default deck when no DECK is given. Arguments starting with --kokkos-\n"
      "(--kokkos-num-threads=4, --kokkos-device-id=1, --kokkos-help, ...) are checked and passed to\n"
      "Kokkos in the spelling its release reads.\n"
      "Exit codes: 0 ok, 1 verification failed, 2 bad usage or input, 3 runtime error.",
      "klmini"};
  add_options(app, args);
  std::reverse(own_args.begin(), own_args.end());  // CLI11 takes them last-first
  try {
    app.parse(own_args);
  } catch (const CLI::ParseError& e) {
    if (!comm.root()) return e.get_exit_code() == 0 ? 0 : kExitBadInput;  // every rank parses; rank 0 speaks
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitBadInput;
  }
  return std::nullopt;
}

// Kokkos' own argc and argv, spelled for its release; `adapted` must outlive it (argv points
// into its strings). The environment the release reads is set here, before Kokkos starts.
class KokkosStart {
 public:
  KokkosStart(char* program, klmini::KokkosArguments& adapted) : argv_{program} {
    for (const auto& [name, value] : adapted.environment) setenv(name.c_str(), value.c_str(), 0);
    for (std::string& a : adapted.args) argv_.push_back(a.data());
    argc_ = static_cast<int>(argv_.size());
    argv_.push_back(nullptr);
  }
  std::unique_ptr<Kokkos::ScopeGuard> operator()() { return std::make_unique<Kokkos::ScopeGuard>(argc_, argv_.data()); }

 private:
  std::vector<char*> argv_;
  int argc_ = 0;
};

int list_deck_keys(const klmini::Comm& comm) {
  if (comm.root())
    for (const auto& k : klmini::deck_keys()) std::cout << k << "\n";
  return 0;
}

// Runs the deck on its backend and reports (rank 0); the exit code says whether it verified.
int run_and_report(const klmini::Config& config, const Arguments& args, const klmini::Comm& comm) {
  try {
    const klmini::Record record = klmini::run(config, [](const klmini::Record& r) {
      klmini::print_summary(r, std::cout);
      std::cout.flush();
    });
    std::string error;  // rank 0 writes; the others wait for its verdict, so none is left behind
    if (comm.root()) {
      try {
        klmini::print_results(record, std::cout);
        if (!args.json.empty()) klmini::write_json(record, args.json);
        if (!args.csv.empty()) klmini::append_csv(record, args.csv);
      } catch (const klmini::InputError& e) {
        error = e.what();
      }
    }
    klmini::fail_together(comm, error);
    return record.verification_failed() ? kExitVerificationFailed : 0;
  } catch (const klmini::EveryRankError& e) {  // every rank is here: each exits by itself
    if (e.speaks()) print_error(comm, std::string("error: ") + e.what());
    return kExitBadInput;
  } catch (const klmini::InputError& e) {
    return fail(comm, kExitBadInput, std::string("error: ") + e.what());
  } catch (const std::exception& e) {
    return fail(comm, kExitRuntimeError, std::string("runtime error: ") + e.what());
  }
}

}  // namespace

int main(int argc, char* argv[]) {
#ifdef KOKKOS_ENABLE_OPENMP
  klmini::restart_with_thread_binding(argv, true);  // before the OpenMP runtime reads its environment
#endif
  klmini::MpiSession mpi(argc, argv);  // before Kokkos, finalized after it
  const klmini::Comm& comm = klmini::Comm::world();
  Arguments args;
  if (const std::optional<int> done = parse_command_line(argc, argv, comm, args)) return *done;
  klmini::KokkosArguments kokkos_args;
  try {
    kokkos_args = klmini::adapt_kokkos_arguments(args.kokkos_given, KOKKOS_VERSION);
  } catch (const klmini::InputError& e) {
    return fail(comm, kExitBadInput, std::string("error: ") + e.what());
  }
  KokkosStart start_kokkos(argv[0], kokkos_args);
  if (kokkos_args.help) {  // Kokkos prints its help while it starts; nothing is run
    start_kokkos();
    return 0;
  }
  if (args.show_keys) return list_deck_keys(comm);
  klmini::Config config;
  try {
    config = klmini::load_config(args.deck, args.overrides);
    config.backend = klmini::resolve_backend(config.backend);
  } catch (const klmini::InputError& e) {
    return fail(comm, kExitBadInput, std::string("error: ") + e.what());
  }
  std::unique_ptr<Kokkos::ScopeGuard> kokkos;
  try {  // e.g. a Cuda build on a machine without a GPU
    kokkos = start_kokkos();
  } catch (const std::exception& e) {
    return fail(comm, kExitRuntimeError, std::string("cannot initialize Kokkos: ") + e.what());
  }
  return run_and_report(config, args, comm);
}
