#include "host/npy.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "host/comm.hpp"
#include "host/errors.hpp"

namespace klmini {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::ostringstream os;
  os << "(";
  for (std::size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  if (s.size() == 1) os << ",";
  os << ")";
  return os.str();
}

// A strict reader of the Python literal numpy writes as the header.
class DictParser {
 public:
  DictParser(const std::string& path, const std::string& text) : path_(path), s_(text) {}

  NpyHeader parse() {
    NpyHeader h;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    skip_ws();
    while (peek() != '}') {
      const std::string key = quoted();
      expect(':');
      if (key == "descr") {
        h.descr = quoted();
        have_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        have_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        have_shape = true;
      } else {
        fail("unexpected header key '" + key + "'");
      }
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        skip_ws();
      } else if (peek() != '}') {
        fail("expected ',' or '}' in header");
      }
    }
    ++pos_;
    skip_ws();
    if (pos_ != s_.size()) fail("trailing characters after the header dictionary");
    if (!have_descr) fail("header has no 'descr'");
    if (!have_order) fail("header has no 'fortran_order'");
    if (!have_shape) fail("header has no 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw DataFileError(path_, "malformed .npy header: " + what);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t')) ++pos_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string quoted() {
    skip_ws();
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    const auto end = s_.find(q, pos_ + 1);
    if (end == std::string::npos) fail("unterminated string");
    std::string out = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return out;
  }
  bool boolean() {
    skip_ws();
    if (s_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (s_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    fail("expected True or False");
  }
  std::vector<std::int64_t> tuple() {
    expect('(');
    std::vector<std::int64_t> dims;
    skip_ws();
    while (peek() != ')') {
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected a dimension in 'shape'");
      std::int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        const int digit = s_[pos_++] - '0';
        if (v > (std::numeric_limits<std::int64_t>::max() - digit) / 10) fail("dimension too large");
        v = v * 10 + digit;
      }
      if (peek() == 'L') ++pos_;  // written by Python 2's numpy
      dims.push_back(v);
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        skip_ws();
      } else if (peek() != ')')
        fail("expected ',' or ')' in 'shape'");
    }
    ++pos_;
    return dims;
  }

  const std::string& path_;
  const std::string& s_;
  std::size_t pos_ = 0;
};

}  // namespace

NpyHeader parse_npy_header_dict(const std::string& path, const std::string& dict) {
  return DictParser(path, dict).parse();
}

namespace {
// Bytes per element of the dtypes check_npy_bytes accepts ('<f4', '<f2', '<u2').
std::int64_t npy_item_bytes(const std::string& descr) { return descr == "<f4" ? 4 : 2; }
}  // namespace

NpyHeader check_npy_bytes(const std::string& path, const char* bytes, std::size_t size, std::int64_t file_size,
                          std::int64_t rows, std::int64_t cols, const std::string& descr) {
  if (size < 8 || std::memcmp(bytes, kMagic, kMagicLen) != 0)
    throw DataFileError(path, "not a .npy file (bad magic; expected \\x93NUMPY)");
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  const auto byte = [&](std::size_t i) { return std::int64_t(static_cast<unsigned char>(bytes[i])); };
  std::int64_t header_len = 0, prefix_len = 0;
  if (major == 1 && minor == 0) {
    prefix_len = 10;
    if (size < 10) throw DataFileError(path, "truncated .npy header");
    header_len = byte(8) | (byte(9) << 8);
  } else if ((major == 2 || major == 3) && minor == 0) {
    prefix_len = 12;
    if (size < 12) throw DataFileError(path, "truncated .npy header");
    header_len = byte(8) | (byte(9) << 8) | (byte(10) << 16) | (byte(11) << 24);
  } else {
    throw DataFileError(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                                  " (1.0, 2.0 and 3.0 are read)");
  }
  if (prefix_len + header_len > file_size || prefix_len + header_len > std::int64_t(size))
    throw DataFileError(
        path, "truncated .npy header (header length " + std::to_string(header_len) + " runs past the end of the file)");
  std::string dict(bytes + prefix_len, static_cast<std::size_t>(header_len));
  if (dict.empty() || dict.back() != '\n')
    throw DataFileError(path, "malformed .npy header: it does not end in a newline");
  dict.pop_back();
  NpyHeader h = parse_npy_header_dict(path, dict);
  h.data_offset = prefix_len + header_len;

  if (h.descr != descr) {
    const bool known = h.descr == "<f4" || h.descr == "<f2" || h.descr == "<u2";
    std::string hint;
    if (known)
      hint = " (set the deck's dtype to \"" +
             std::string(h.descr == "<f4"   ? "fp32"
                         : h.descr == "<f2" ? "fp16"
                                            : "bf16") +
             "\" to read this file" + (h.descr == "<u2" ? " as raw bf16 bits" : "") + ")";
    else if (h.descr == ">f4" || h.descr == ">f2" || h.descr == ">u2")
      hint = " (big-endian; convert with arr.astype(arr.dtype.newbyteorder('<')))";
    else if (h.descr == "<f8")
      hint = " (fp64; convert with arr.astype(np.float32))";
    const char* wanted = descr == "<f4" ? "fp32 '<f4'" : descr == "<f2" ? "fp16 '<f2'" : "bf16 bits '<u2'";
    throw DataFileError(path, "dtype '" + h.descr + "' is not what the deck's dtype reads (" + wanted + ")" + hint);
  }
  if (h.fortran_order)
    throw DataFileError(path, "array is in Fortran order; klmini reads C order (np.ascontiguousarray)");
  if (h.shape.size() != 2 || h.shape[0] != rows || h.shape[1] != cols)
    throw DataFileError(path, "shape " + shape_text(h.shape) + " does not match the deck's (tokens, vocab) = (" +
                                  std::to_string(rows) + ", " + std::to_string(cols) + ")");
  const std::int64_t expected = h.data_offset + rows * cols * npy_item_bytes(descr);
  if (file_size != expected)
    throw DataFileError(path, "file is " + std::to_string(file_size) + " bytes but header and shape " +
                                  shape_text(h.shape) + " imply " + std::to_string(expected) +
                                  (file_size < expected ? " (truncated)" : " (trailing bytes)"));
  return h;
}

NpyHeader inspect_npy(const std::string& path, std::int64_t rows, std::int64_t cols, const std::string& descr) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataFileError(path, "cannot open .npy file: " + os_error());
  std::error_code ec;
  const auto file_size = static_cast<std::int64_t>(std::filesystem::file_size(path, ec));
  if (ec) throw DataFileError(path, "cannot determine file size: " + ec.message());
  // The prefix says how long the header is; read that much (never more than the file holds).
  std::string bytes(12, '\0');
  in.read(bytes.data(), 12);
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  if (bytes.size() >= 10) {
    const bool v1 = bytes.size() >= 8 && bytes[6] == 1;
    const std::size_t prefix = v1 ? 10 : 12;
    if (bytes.size() >= prefix) {
      std::int64_t header_len = 0;
      for (std::size_t i = prefix; i-- > 8;) header_len = (header_len << 8) | static_cast<unsigned char>(bytes[i]);
      const std::int64_t want = std::min<std::int64_t>(std::int64_t(prefix) + header_len, file_size);
      bytes.resize(prefix);
      in.clear();
      in.seekg(std::streamoff(prefix));
      std::string header(static_cast<std::size_t>(std::max<std::int64_t>(0, want - std::int64_t(prefix))), '\0');
      in.read(header.data(), std::streamsize(header.size()));
      header.resize(static_cast<std::size_t>(in.gcount()));
      bytes += header;
    }
  }
  return check_npy_bytes(path, bytes.data(), bytes.size(), file_size, rows, cols, descr);
}

void read_npy_rows(const std::string& path, const NpyHeader& header, std::int64_t row_begin, std::int64_t row_count,
                   void* dest) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataFileError(path, "cannot open .npy file: " + os_error());
  const std::int64_t cols = header.shape.at(1);
  const std::int64_t item = npy_item_bytes(header.descr);
  in.seekg(header.data_offset + row_begin * cols * item);
  const std::int64_t bytes = row_count * cols * item;
  if (!in.read(reinterpret_cast<char*>(dest), bytes)) {
    // A short read without errno is the file's end: it shrank after its header was checked.
    const std::string reason = errno != 0 ? os_error() : "the file ended early (changed since its header was read?)";
    throw DataFileError(path, "read failed after " + std::to_string(in.gcount()) + " of " + std::to_string(bytes) +
                                  " bytes: " + reason);
  }
}

namespace {

// The 10-byte prefix of version 1.0 and the dictionary, padded with spaces to a multiple of
// 64 bytes and ended by a newline, so that the data is aligned.
std::string npy_header(std::int64_t rows, std::int64_t cols) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                     std::to_string(cols) + "), }";
  const std::size_t total = ((10 + dict.size() + 1 + 63) / 64) * 64;
  dict.append(total - 10 - dict.size() - 1, ' ');
  dict.push_back('\n');
  std::string header(kMagic, kMagicLen);
  header += '\x01';
  header += '\x00';
  header += static_cast<char>(dict.size() & 0xff);
  header += static_cast<char>(dict.size() >> 8);
  return header + dict;
}

}  // namespace

void write_npy_f32(const std::string& path, std::int64_t rows, std::int64_t cols, const float* data) {
  const std::string tmp = path + ".tmp";
  {
    errno = 0;
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw DataFileError(path, "cannot create output file (" + tmp + "): " + os_error());
    const std::string header = npy_header(rows, cols);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(reinterpret_cast<const char*>(data), rows * cols * std::int64_t(sizeof(float)));
    out.flush();
    if (!out) {
      const std::string reason = os_error();
      std::remove(tmp.c_str());
      throw DataFileError(path, "write failed: " + reason);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw DataFileError(path, "cannot rename " + tmp + " into place: " + ec.message());
}

void write_npy_f32_collective(const std::string& path, std::int64_t tokens, std::int64_t vocab, std::int64_t row_begin,
                              std::int64_t rows, const float* data, const Comm& comm) {
  const std::string tmp = path + ".tmp";
  const std::string header = npy_header(tokens, vocab);
  const std::string on_rank = comm.size() > 1 ? " on rank " + std::to_string(comm.rank()) : "";
  std::string why;
  if (comm.root()) {  // the header and the file's full length, before any rank writes its rows
    errno = 0;
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.close();
    const std::string reason = out ? std::string() : os_error();
    std::error_code ec;
    if (out) std::filesystem::resize_file(tmp, header.size() + std::uint64_t(tokens * vocab) * sizeof(float), ec);
    if (!out || ec) why = path + ": cannot create output file (" + tmp + "): " + (ec ? ec.message() : reason);
  }
  fail_together(comm, why);
  {
    errno = 0;
    std::fstream out(tmp, std::ios::binary | std::ios::in | std::ios::out);
    if (!out) why = path + ": cannot open " + tmp + on_rank + ": " + os_error();
    out.seekp(static_cast<std::streamoff>(header.size() + std::uint64_t(row_begin * vocab) * sizeof(float)));
    out.write(reinterpret_cast<const char*>(data), rows * vocab * std::int64_t(sizeof(float)));
    out.flush();
    if (why.empty() && !out) why = path + ": write failed" + on_rank + ": " + os_error();
  }
  try {
    fail_together(comm, why);
  } catch (const EveryRankError&) {
    if (comm.root()) std::remove(tmp.c_str());
    throw;
  }
  if (comm.root()) {
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) why = path + ": cannot rename " + tmp + " into place: " + ec.message();
  }
  fail_together(comm, why);
}

}  // namespace klmini
