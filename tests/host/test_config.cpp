// Decks and --set overrides (src/host/config.cpp): every key, every way to get one wrong.
// Also the embedded deck (src/host/default_deck.cpp.in) and the typed errors (src/host/errors.hpp).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <filesystem>

#include "host/config.hpp"
#include "host/errors.hpp"

using Catch::Matchers::ContainsSubstring;
using klmini::Config;
using klmini::parse_config;

namespace {
Config parse(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return parse_config(text, "test.toml", "/decks", overrides);
}
}  // namespace

TEST_CASE("the embedded default deck parses to the documented defaults") {
  const Config c = klmini::load_config("", {});
  CHECK(c.tokens == 8192);  // 256 MiB of inputs: beyond most last-level caches
  CHECK(c.vocab == 4096);
  CHECK(c.reduction == klmini::Reduction::batchmean);
  CHECK(!c.variant);
  CHECK(c.verify == klmini::VerifyMode::full);
  CHECK(c.source == "embedded default deck");
}

TEST_CASE("every deck in inputs/ parses") {
  int decks = 0;
  for (const auto& entry : std::filesystem::directory_iterator(KLMINI_SOURCE_DIR "/inputs")) {
    if (entry.path().extension() != ".toml") continue;
    INFO(entry.path());
    const Config c = klmini::load_config(entry.path().string(), {});
    CHECK(c.tokens >= 1);
    ++decks;
  }
  CHECK(decks >= 8);  // default, ci, six seed sizes
  const Config seed = klmini::load_config(KLMINI_SOURCE_DIR "/inputs/seed-v131072.toml", {});
  CHECK(seed.tokens == 16384);
  CHECK(seed.vocab == 131072);
}

TEST_CASE("keys of every type are read") {
  const Config c = parse(R"(
tokens = 7
vocab = 33
backend = "serial"
reduction = "mean"
log_target = true
input = "npy"
log_probs = "data/lp.npy"
targets = "/abs/t.npy"
dtype = "fp32"
seed = 5
warmup = 0
repeats = 3
verify = "sample"
sample_rows = 4
variant = "flat"
validate = true
peak_GBps = 4800
)");
  CHECK(c.tokens == 7);
  CHECK(c.vocab == 33);
  CHECK(c.backend == klmini::Backend::serial);
  CHECK(c.reduction == klmini::Reduction::mean);
  CHECK(c.log_target);
  CHECK(c.input == klmini::InputKind::npy);
  CHECK(c.log_probs == "/decks/data/lp.npy");  // relative to the deck's folder
  CHECK(c.targets == "/abs/t.npy");
  CHECK(c.seed == 5);
  CHECK(c.warmup == 0);
  CHECK(c.repeats == 3);
  CHECK(c.verify == klmini::VerifyMode::sample);
  CHECK(c.sample_rows == 4);
  CHECK(c.peak_GBps == 4800);
  CHECK(c.variant == klmini::Variant::flat);
  CHECK(c.validate);
  CHECK_FALSE(c.overwrite);
}

TEST_CASE("unknown keys are errors that name the key and the line") {
  REQUIRE_THROWS_AS(parse("tokens = 4\ntoken = 5\n"), klmini::DeckError);
  REQUIRE_THROWS_WITH(parse("tokens = 4\ntoken = 5\n"), ContainsSubstring("test.toml:2:1") &&
                                                            ContainsSubstring("'token'") &&
                                                            ContainsSubstring("unknown key"));
  REQUIRE_THROWS_WITH(parse("[problem]\ntokens = 4\n"), ContainsSubstring("'problem'"));
}

TEST_CASE("malformed values are errors that name the key and the line") {
  REQUIRE_THROWS_WITH(parse("vocab = \"big\""), ContainsSubstring("test.toml:1:1") && ContainsSubstring("'vocab'") &&
                                                    ContainsSubstring("expected an integer, got a string"));
  REQUIRE_THROWS_WITH(parse("tokens = 0"), ContainsSubstring("'tokens'") && ContainsSubstring("out of range"));
  REQUIRE_THROWS_WITH(parse("vocab = -3"), ContainsSubstring("out of range"));
  REQUIRE_THROWS_WITH(parse("tokens = 1.5"), ContainsSubstring("got a float"));
  REQUIRE_THROWS_WITH(parse("log_target = 1"), ContainsSubstring("expected true or false"));
  REQUIRE_THROWS_WITH(parse("reduction = \"avg\""), ContainsSubstring("'avg' is not one of batchmean|sum|mean|none"));
  REQUIRE_THROWS_WITH(parse("backend = \"hip\""), ContainsSubstring("'backend'"));
  REQUIRE_THROWS_WITH(parse("verify = true"), ContainsSubstring("expected a string, got a boolean"));
  REQUIRE_THROWS_WITH(parse("variant = \"fastest\""), ContainsSubstring("'fastest' is not one of"));
  REQUIRE_THROWS_WITH(parse("dtype = \"fp8\""), ContainsSubstring("'dtype'") && ContainsSubstring("fp32|bf16|fp16"));
  REQUIRE_THROWS_WITH(parse("precision = \"double\""),
                      ContainsSubstring("'precision'") && ContainsSubstring("fast|exact"));
  REQUIRE_THROWS_WITH(parse("variant = \"kokkos_kernels\"\ndtype = \"bf16\""),
                      ContainsSubstring("'variant'") && ContainsSubstring("fp32 inputs only"));
  REQUIRE_THROWS_WITH(parse("variant = \"kokkos_kernels\"\nprecision = \"exact\""),
                      ContainsSubstring("'variant'") && ContainsSubstring("no precision = \"exact\""));
  REQUIRE_THROWS_WITH(parse("repeats = 0"), ContainsSubstring("'repeats'"));
  REQUIRE_THROWS_WITH(parse("repeats = 1000000000"), ContainsSubstring("out of range"));
  REQUIRE_THROWS_WITH(parse("warmup = -1"), ContainsSubstring("'warmup'"));
  REQUIRE_THROWS_WITH(parse("repeats = 20000"), ContainsSubstring("out of range"));
  REQUIRE_THROWS_WITH(parse("overwrite = \"yes\""), ContainsSubstring("expected true or false"));
  REQUIRE_THROWS_WITH(parse("validate = 1"), ContainsSubstring("'validate'"));
  REQUIRE_THROWS_WITH(parse("seed = -1"), ContainsSubstring("'seed'"));
  REQUIRE_THROWS_WITH(parse("tokens = [1, 2]"), ContainsSubstring("got an array"));
  REQUIRE_THROWS_WITH(parse("\n\nvocab = 2\ntokens = 1 2\n"),
                      ContainsSubstring("test.toml:4") && ContainsSubstring("invalid TOML"));
  REQUIRE_THROWS_WITH(parse("tokens = 1\ntokens = 2\n"), ContainsSubstring("invalid TOML"));
}

TEST_CASE("keys that depend on each other are checked together") {
  REQUIRE_THROWS_WITH(parse("input = \"npy\"\ntargets = \"t.npy\""),
                      ContainsSubstring("'log_probs'") && ContainsSubstring("required"));
  REQUIRE_THROWS_WITH(parse("input = \"npy\"\nlog_probs = \"lp.npy\""), ContainsSubstring("'targets'"));
  REQUIRE_THROWS_WITH(parse("log_probs = \"lp.npy\""), ContainsSubstring("only read when input = \"npy\""));
  REQUIRE_THROWS_WITH(parse("output = \"o.npy\""), ContainsSubstring("only written when reduction = \"none\""));
  REQUIRE_THROWS_WITH(parse("reduction = \"none\"\nvariant = \"flat\""), ContainsSubstring("'variant'"));
  REQUIRE_THROWS_WITH(parse("tokens = 1099511627776\nvocab = 1099511627776"), ContainsSubstring("overflows"));
  REQUIRE_THROWS_WITH(parse("path = \"\""), ContainsSubstring("unknown key"));
  REQUIRE_THROWS_WITH(parse("reduction = \"none\"\noutput = \"\""), ContainsSubstring("path is empty"));
  REQUIRE_THROWS_WITH(parse("grad_output = \"g.npy\""), ContainsSubstring("only written when gradient = true"));
  REQUIRE_THROWS_WITH(parse("gradient = true\nreduction = \"none\"\noutput = \"a.npy\"\ngrad_output = \"a.npy\""),
                      ContainsSubstring("same file as output"));
  CHECK(parse("gradient = true\ngrad_output = \"g.npy\"").grad_output == "/decks/g.npy");
}

TEST_CASE("overrides (--set) change any key, typed as TOML or as a bare string") {
  const Config c = parse("tokens = 4\n", {"tokens=2048", "backend=serial", "log_target=true", "output=out/terms.npy",
                                          "reduction=none", "variant=\"all\""});
  CHECK(c.tokens == 2048);
  CHECK(c.backend == klmini::Backend::serial);
  CHECK(c.log_target);
  CHECK(c.output == "out/terms.npy");  // relative to the working directory, not the deck
  CHECK(!c.variant);
  REQUIRE_THROWS_WITH(parse("", {"tokens2=5"}),
                      ContainsSubstring("--set tokens2=5") && ContainsSubstring("unknown key"));
  REQUIRE_THROWS_WITH(parse("", {"tokens"}), ContainsSubstring("expected key=value"));
  REQUIRE_THROWS_WITH(parse("", {"=5"}), ContainsSubstring("expected key=value"));
  REQUIRE_THROWS_WITH(parse("", {"tokens=abc"}),
                      ContainsSubstring("--set tokens=abc") && ContainsSubstring("expected an integer, got a string"));
  REQUIRE_THROWS_WITH(parse("", {"tokens="}), ContainsSubstring("expected an integer"));
  REQUIRE_THROWS_WITH(parse("", {"vocab=0"}), ContainsSubstring("out of range"));
}

TEST_CASE("a deck file that cannot be read names the file") {
  REQUIRE_THROWS_WITH(klmini::load_config("/nonexistent/deck.toml", {}),
                      ContainsSubstring("/nonexistent/deck.toml") && ContainsSubstring("cannot open"));
}

TEST_CASE("describe() lists the resolved deck") {
  const auto d = klmini::describe(parse("tokens = 3\nvocab = 5\nverify = \"sample\""));
  REQUIRE(d.size() >= 12);
  CHECK(d[0].first == "tokens");
  CHECK(std::get<std::int64_t>(d[0].second) == 3);
  CHECK(klmini::toml_literal(d[0].second) == "3");
  CHECK(klmini::toml_literal(std::string("a \"b\" \\c")) == "\"a \\\"b\\\" \\\\c\"");
  CHECK(klmini::toml_literal(true) == "true");
  bool has_sample_rows = false;
  for (const auto& [k, v] : d) has_sample_rows |= k == "sample_rows";
  CHECK(has_sample_rows);
  CHECK(klmini::deck_keys().size() == 23);
}

TEST_CASE("dtype and precision: parsed, described, and the backend default left to the run") {
  const klmini::Config c = parse("dtype = \"bf16\"\nprecision = \"exact\"");
  CHECK(c.dtype == klmini::DType::bf16);
  CHECK(c.precision == klmini::Precision::exact);
  CHECK(klmini::element_bytes(c.dtype) == 2);
  const auto d = klmini::describe(c);
  const auto has = [&d](const std::string& key, const std::string& value) {
    for (const auto& [k, v] : d)
      if (k == key) return klmini::toml_literal(v) == value;
    return false;
  };
  CHECK(has("dtype", "\"bf16\""));
  CHECK(has("precision", "\"exact\""));
  CHECK(!has("precision", "\"fast\""));
  CHECK(parse("dtype = \"fp16\"").dtype == klmini::DType::fp16);
  CHECK(parse("").precision == klmini::Precision::backend_default);
  CHECK(parse("precision = \"fast\"").precision == klmini::Precision::fast);
}
