// Deck parsing with toml++ (host compiler only: nvcc cannot compile toml++'s templates).
#include "host/config.hpp"

#include <toml++/toml.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "host/errors.hpp"
#include "host/variants.hpp"

namespace klmini {

namespace {

namespace fs = std::filesystem;

struct Where {
  std::string text;      // "deck.toml:3:1" or "--set tokens=0"
  std::string base_dir;  // relative paths are resolved against this
};

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    default: return "a date or time";
  }
}

std::int64_t get_int(const toml::node& n, const Where& w, const std::string& key, std::int64_t lo, std::int64_t hi) {
  if (!n.is_integer()) throw DeckError(w.text, key, "expected an integer, got " + type_name(n));
  const std::int64_t v = n.as_integer()->get();
  if (v < lo || v > hi) {
    std::ostringstream os;
    os << "value " << v << " is out of range [" << lo << ", " << hi << "]";
    throw DeckError(w.text, key, os.str());
  }
  return v;
}

bool get_bool(const toml::node& n, const Where& w, const std::string& key) {
  if (!n.is_boolean()) throw DeckError(w.text, key, "expected true or false, got " + type_name(n));
  return n.as_boolean()->get();
}

std::string get_string(const toml::node& n, const Where& w, const std::string& key) {
  if (!n.is_string()) throw DeckError(w.text, key, "expected a string, got " + type_name(n));
  return n.as_string()->get();
}

template <class Enum>
Enum get_choice(const toml::node& n, const Where& w, const std::string& key,
                const std::vector<std::pair<std::string, Enum>>& choices) {
  const std::string s = get_string(n, w, key);
  std::string allowed;
  for (const auto& [name, value] : choices) {
    if (name == s) return value;
    allowed += (allowed.empty() ? "" : "|") + name;
  }
  throw DeckError(w.text, key, "'" + s + "' is not one of " + allowed);
}

std::string get_path(const toml::node& n, const Where& w, const std::string& key) {
  const std::string s = get_string(n, w, key);
  if (s.empty()) throw DeckError(w.text, key, "path is empty");
  fs::path p(s);
  if (p.is_relative() && !w.base_dir.empty()) p = fs::path(w.base_dir) / p;
  return p.lexically_normal().string();
}

constexpr std::int64_t kMaxExtent = std::int64_t(1) << 40;

using Setter = std::function<void(Config&, const toml::node&, const Where&)>;

using Keys = std::vector<std::pair<std::string, Setter>>;

// variant: one of the loss variants, or all of them.
void set_variant(Config& c, const toml::node& n, const Where& w) {
  const std::string v = get_string(n, w, "variant");
  if (v == "all") {
    c.variant.reset();
    return;
  }
  const VariantInfo* named = find_variant(v);
  if (named == nullptr || named->computes != Computes::loss) {
    std::string names;
    for (const Variant k : loss_variant_table()) names += variant_name(k) + "|";
    throw DeckError(w.text, "variant", "'" + v + "' is not one of " + names + "all");
  }
  c.variant = named->id;
}

// backend: a row of the backend table, or "default" (none: the best compiled in).
void set_backend(Config& c, const toml::node& n, const Where& w) {
  std::vector<std::pair<std::string, std::optional<Backend>>> choices = {{"default", std::nullopt}};
  for (const BackendInfo& b : kBackends) choices.emplace_back(std::string(b.name), b.id);
  c.backend = get_choice(n, w, "backend", choices);
}

// shape: fused's launch shape, or auto.
void set_shape(Config& c, const toml::node& n, const Where& w) {
  const std::string s = get_string(n, w, "shape");
  const std::optional<LaunchShape> shape = find_shape(s);
  if (!shape) throw DeckError(w.text, "shape", "'" + s + "' is not one of " + shape_names());
  c.shape = *shape;
}

// The problem: its extents, where it runs and what loss it computes.
Keys problem_keys() {
  return {
      {"tokens",
       [](Config& c, const toml::node& n, const Where& w) { c.tokens = get_int(n, w, "tokens", 1, kMaxExtent); }},
      {"vocab",
       [](Config& c, const toml::node& n, const Where& w) { c.vocab = get_int(n, w, "vocab", 1, kMaxExtent); }},
      {"backend", set_backend},
      {"reduction",
       [](Config& c, const toml::node& n, const Where& w) {
         c.reduction = get_choice<Reduction>(n, w, "reduction",
                                             {{"batchmean", Reduction::batchmean},
                                              {"sum", Reduction::sum},
                                              {"mean", Reduction::mean},
                                              {"none", Reduction::none}});
       }},
      {"log_target",
       [](Config& c, const toml::node& n, const Where& w) { c.log_target = get_bool(n, w, "log_target"); }},
  };
}

// The data: where the inputs come from, what is written, the element type and precision.
Keys data_keys() {
  return {
      {"input",
       [](Config& c, const toml::node& n, const Where& w) {
         c.input = get_choice<InputKind>(n, w, "input", {{"generate", InputKind::generate}, {"npy", InputKind::npy}});
       }},
      {"log_probs", [](Config& c, const toml::node& n, const Where& w) { c.log_probs = get_path(n, w, "log_probs"); }},
      {"targets", [](Config& c, const toml::node& n, const Where& w) { c.targets = get_path(n, w, "targets"); }},
      {"output", [](Config& c, const toml::node& n, const Where& w) { c.output = get_path(n, w, "output"); }},
      {"gradient", [](Config& c, const toml::node& n, const Where& w) { c.gradient = get_bool(n, w, "gradient"); }},
      {"grad_output",
       [](Config& c, const toml::node& n, const Where& w) { c.grad_output = get_path(n, w, "grad_output"); }},
      {"overwrite", [](Config& c, const toml::node& n, const Where& w) { c.overwrite = get_bool(n, w, "overwrite"); }},
      {"validate", [](Config& c, const toml::node& n, const Where& w) { c.validate = get_bool(n, w, "validate"); }},
      {"dtype",
       [](Config& c, const toml::node& n, const Where& w) {
         c.dtype =
             get_choice<DType>(n, w, "dtype", {{"fp32", DType::fp32}, {"bf16", DType::bf16}, {"fp16", DType::fp16}});
       }},
      {"precision",
       [](Config& c, const toml::node& n, const Where& w) {
         c.precision =
             get_choice<Precision>(n, w, "precision", {{"fast", Precision::fast}, {"exact", Precision::exact}});
       }},
      {"seed",
       [](Config& c, const toml::node& n, const Where& w) {
         c.seed = static_cast<std::uint64_t>(get_int(n, w, "seed", 0, std::numeric_limits<std::int64_t>::max()));
       }},
  };
}

// The run: how it is timed and verified, which variants and which launch shape.
Keys run_keys() {
  return {
      {"warmup",
       [](Config& c, const toml::node& n, const Where& w) {
         c.warmup = static_cast<int>(get_int(n, w, "warmup", 0, 1000));  // more is a typo, not a benchmark
       }},
      {"repeats", [](Config& c, const toml::node& n,
                     const Where& w) { c.repeats = static_cast<int>(get_int(n, w, "repeats", 1, 10000)); }},
      {"verify",
       [](Config& c, const toml::node& n, const Where& w) {
         c.verify = get_choice<VerifyMode>(
             n, w, "verify", {{"full", VerifyMode::full}, {"sample", VerifyMode::sample}, {"off", VerifyMode::off}});
       }},
      {"sample_rows", [](Config& c, const toml::node& n,
                         const Where& w) { c.sample_rows = get_int(n, w, "sample_rows", 2, kMaxExtent); }},
      {"peak_GBps",  // 100 TB/s: beyond any memory, so a larger figure is a typo
       [](Config& c, const toml::node& n, const Where& w) { c.peak_GBps = get_int(n, w, "peak_GBps", 1, 100000); }},
      {"variant", set_variant},
      {"shape", set_shape},
  };
}

// The schema: every key a deck may hold, in the order --list-keys and errors name them.
// Anything else is an error.
const Keys& schema() {
  static const Keys keys = [] {
    Keys all;
    for (const Keys& group : {problem_keys(), data_keys(), run_keys()})
      all.insert(all.end(), group.begin(), group.end());
    return all;
  }();
  return keys;
}

const Setter* find_key(const std::string& key) {
  for (const auto& [name, set] : schema())
    if (name == key) return &set;
  return nullptr;
}

[[noreturn]] void unknown_key(const std::string& where, const std::string& key) {
  std::string known;
  for (const auto& [name, set] : schema()) known += (known.empty() ? "" : ", ") + name;
  throw DeckError(where, key, "unknown key (known keys: " + known + ")");
}

std::string position(const std::string& source, const toml::source_region& r) {
  std::ostringstream os;
  os << source << ":" << r.begin.line << ":" << r.begin.column;
  return os.str();
}

// Checks that involve several keys, after the deck and every override are applied.
void check_consistency(const Config& c) {
  const std::string& w = c.source;
  if (c.tokens > std::numeric_limits<std::int64_t>::max() / c.vocab)
    throw DeckError(w, "tokens", "tokens x vocab overflows 64-bit indexing");
  if (c.input == InputKind::npy) {
    if (c.log_probs.empty()) throw DeckError(w, "log_probs", "required when input = \"npy\"");
    if (c.targets.empty()) throw DeckError(w, "targets", "required when input = \"npy\"");
  } else {
    if (!c.log_probs.empty())
      throw DeckError(w, "log_probs", "is only read when input = \"npy\" (input is \"generate\")");
    if (!c.targets.empty()) throw DeckError(w, "targets", "is only read when input = \"npy\" (input is \"generate\")");
  }
  if (!c.output.empty() && c.reduction != Reduction::none)
    throw DeckError(w, "output", "is only written when reduction = \"none\"");
  if (!c.grad_output.empty() && !c.gradient) throw DeckError(w, "grad_output", "is only written when gradient = true");
  if (!c.grad_output.empty() && c.grad_output == c.output)
    throw DeckError(w, "grad_output", "is the same file as output");
  const VariantInfo* named = c.variant ? &info(*c.variant) : nullptr;
  if (named != nullptr)  // with precision left to the backend, the kernels' dispatch checks the default
    if (const std::string why = why_not_applicable(*named, c.dtype, c.precision); !why.empty())
      throw DeckError(w, "variant", "'" + std::string(named->name) + "' " + why);
  if (c.reduction == Reduction::none && named != nullptr && named->id != Variant::fused)
    throw DeckError(w, "variant",
                    "reduction = \"none\" writes the term matrix with the 'terms' kernel; "
                    "set variant to \"fused\" or \"all\"");
}

}  // namespace

const char* to_string(Reduction r) {
  switch (r) {
    case Reduction::batchmean: return "batchmean";
    case Reduction::sum: return "sum";
    case Reduction::mean: return "mean";
    case Reduction::none: return "none";
  }
  return "?";
}
const char* to_string(InputKind k) { return k == InputKind::npy ? "npy" : "generate"; }
const char* to_string(VerifyMode m) {
  return m == VerifyMode::full ? "full" : m == VerifyMode::sample ? "sample" : "off";
}

std::string variant_setting(const std::optional<Variant>& v) { return v ? variant_name(*v) : "all"; }

std::vector<std::string> deck_keys() {
  std::vector<std::string> keys;
  for (const auto& [name, set] : schema()) keys.push_back(name);
  return keys;
}

Config parse_config(const std::string& deck_text, const std::string& source_name, const std::string& deck_dir,
                    const std::vector<std::string>& overrides) {
  Config c;
  c.source = source_name;
  toml::table deck;
  try {
    deck = toml::parse(deck_text, source_name);
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << position(source_name, e.source()) << ": invalid TOML: " << e.description();
    throw InputError(os.str());
  }
  for (auto&& [key, node] : deck) {
    const std::string k(key.str());
    const Where w{position(source_name, key.source()), deck_dir};
    const Setter* set = find_key(k);
    if (!set) unknown_key(w.text, k);
    set->operator()(c, node, w);
  }
  for (const std::string& o : overrides) {
    const auto eq = o.find('=');
    const std::string where = "--set " + o;
    if (eq == std::string::npos || eq == 0) throw InputError(where + ": expected key=value");
    const std::string key = o.substr(0, eq);
    const std::string value = o.substr(eq + 1);
    const Setter* set = find_key(key);
    if (!set) unknown_key(where, key);
    // The value is read as a TOML value (42, true, "text"); anything that is not one
    // (openmp, out/loss.npy) is taken as a bare string.
    toml::table parsed;
    bool is_toml_value = false;
    try {
      parsed = toml::parse("v = " + value);
      is_toml_value = parsed.size() == 1 && parsed.contains("v");
    } catch (const toml::parse_error&) {
    }
    const Where w{where, ""};  // --set paths are relative to the working directory
    if (is_toml_value) {
      set->operator()(c, *parsed.get("v"), w);
    } else {
      const toml::value<std::string> as_string(value);
      set->operator()(c, as_string, w);
    }
  }
  check_consistency(c);
  return c;
}

Config load_config(const std::string& deck_path, const std::vector<std::string>& overrides) {
  if (deck_path.empty()) return parse_config(embedded_default_deck(), "embedded default deck", "", overrides);
  errno = 0;
  std::ifstream in(deck_path, std::ios::binary);
  if (!in) throw InputError(deck_path + ": cannot open deck file: " + os_error());
  std::ostringstream text;
  text << in.rdbuf();
  const fs::path dir = fs::path(deck_path).parent_path();
  return parse_config(text.str(), deck_path, dir.string(), overrides);
}

std::string toml_literal(const DeckValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  std::string out = "\"";
  for (const char ch : std::get<std::string>(v)) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::vector<std::pair<std::string, DeckValue>> describe(const Config& c) {
  // Strings are wrapped explicitly: a bare const char* would convert to the variant's bool.
  using S = std::string;
  using I = std::int64_t;
  std::vector<std::pair<std::string, DeckValue>> d = {
      {"tokens", I(c.tokens)},
      {"vocab", I(c.vocab)},
      {"backend", S(c.backend ? backend_name(*c.backend) : "default")},
      {"reduction", S(to_string(c.reduction))},
      {"log_target", c.log_target},
      {"input", S(to_string(c.input))},
  };
  if (c.input == InputKind::npy) {
    d.emplace_back("log_probs", S(c.log_probs));
    d.emplace_back("targets", S(c.targets));
  }
  if (!c.output.empty()) {
    d.emplace_back("output", S(c.output));
    d.emplace_back("overwrite", c.overwrite);
  }
  d.emplace_back("validate", c.validate);
  d.emplace_back("gradient", c.gradient);
  if (!c.grad_output.empty()) d.emplace_back("grad_output", S(c.grad_output));
  d.emplace_back("dtype", S(to_string(c.dtype)));
  if (c.precision != Precision::backend_default) d.emplace_back("precision", S(to_string(c.precision)));
  d.emplace_back("seed", I(c.seed));
  d.emplace_back("warmup", I(c.warmup));
  d.emplace_back("repeats", I(c.repeats));
  d.emplace_back("verify", S(to_string(c.verify)));
  if (c.verify == VerifyMode::sample) d.emplace_back("sample_rows", I(c.sample_rows));
  d.emplace_back("variant", variant_setting(c.variant));
  d.emplace_back("shape", S(std::string(shape_name(c.shape))));
  if (c.peak_GBps > 0) d.emplace_back("peak_GBps", I(c.peak_GBps));
  return d;
}

}  // namespace klmini
