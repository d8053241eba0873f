#!/usr/bin/env python3
"""Checks that no C++ function in klmini is longer than a limit (default 60 lines), so that
each one stays readable on one screen and says one thing.

A function's length is the number of lines its body spans, from the line of its opening brace
to the line of its closing brace, both included (a one-line function is 1 line). Lambdas and
local classes are part of the function they are written in; member functions defined in a
class count on their own; a lambda bound to a variable at namespace or class scope counts as
a function of that variable's name.

The scan covers src/, miniapp/ and bench/ (.cpp, .hpp and their .in templates). tests/ is
left out: a test case is a list of checks read top to bottom, and splitting it into helpers
only to be short would hide what it checks; other folders can be named on the command line.

It is not a C++ parser but a brace scanner: comments, string and character literals (raw
strings too) and preprocessor lines are blanked first, then the braces at namespace and class
scope are classified by the text before them (namespace, class, initializer or function).

Usage: function_length.py [--max-lines N] SOURCE_DIR [FOLDER ...]
       function_length.py --self-test
Prints `file:line: name is N lines (limit L)` for every function over the limit, then a
summary line; exits 1 when any function is over it, 0 otherwise.
"""
import argparse
import bisect
import pathlib
import re
import sys

DEFAULT_FOLDERS = ["src", "miniapp", "bench"]
SUFFIXES = (".cpp", ".hpp", ".cpp.in", ".hpp.in")

IDENT = re.compile(r"[A-Za-z_]\w*")
RAW_PREFIXES = {"R", "u8R", "uR", "UR", "LR"}
ACCESS = re.compile(r"^\s*(?:public|protected|private)\s*:(?!:)")
ATTRIBUTE = re.compile(r"\[\[.*?\]\]", re.S)
CLASS_KEY = re.compile(r"^\s*(?:typedef\s+)?(?:class|struct|union)\b")
# What may stand between a function's parameter list and its body.
QUALIFIERS = {"const", "volatile", "noexcept", "override", "final", "mutable", "constexpr", "try"}
NOT_NAMES = {"decltype", "alignas", "alignof", "noexcept", "sizeof", "__attribute__", "__declspec", "requires",
             "throw", "static_assert", "if", "for", "while", "switch", "return"}
OPERATOR = re.compile(r"\boperator\s*(\(\s*\)|\[\s*\]|(?:new|delete)\s*(?:\[\s*\])?|\"\"\s*\w+|[^\s\w(]+|\w+)\s*\(")
QUALIFIED_NAME = re.compile(r"((?:[A-Za-z_]\w*\s*(?:<[^<>()]*>)?\s*::\s*)*~?[A-Za-z_]\w*(?:\s*<[^<>()]*>)?)\s*$")


def blank(text):
    """The text with comments, the insides of string and character literals and preprocessor
    lines replaced by spaces; newlines are kept, so offsets and line numbers stay valid."""
    out = list(text)
    n = len(text)

    def clear(start, end):
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    i = 0
    line_start = True  # only blanks since the last newline: a '#' starts a directive
    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
        elif c in " \t\r\f\v":
            i += 1
        elif line_start and c == "#":  # a directive, with its backslash continuations
            j = i
            while j < n and not (text[j] == "\n" and text[j - 1] != "\\"):
                j += 1
            clear(i, j)
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            clear(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            clear(i, j)
            i = j
            line_start = False
        elif c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            # a number, whose digit separators (1'000'000) are no character literals
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "_.'" or
                             (text[j] in "+-" and text[j - 1] in "eEpP")):
                j += 1
            i = j
            line_start = False
        elif c.isalpha() or c == "_":
            word = IDENT.match(text, i).group(0)
            j = i + len(word)
            if word in RAW_PREFIXES and text.startswith('"', j):
                raw = re.compile(r'"([^()\\\s]{0,16})\(').match(text, j)
                if raw:
                    close = text.find(")" + raw.group(1) + '"', raw.end())
                    close = n if close < 0 else close
                    clear(raw.end() - 1, close + 1)  # keep the quotes, blank "(...)"
                    i = close + len(raw.group(1)) + 2
                    line_start = False
                    continue
            i = j  # u8"..", L'x': the literal itself is taken next
            line_start = False
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            clear(i + 1, j)
            i = j + 1
            line_start = False
        else:
            i += 1
            line_start = False
    return "".join(out)


def matching_brace(code, open_at):
    """The offset of the brace closing the one at open_at (the end of the text if none)."""
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code) - 1


def strip_templates(header):
    """The header without its `template <...>` clauses and [[attributes]]."""
    header = ATTRIBUTE.sub(" ", header)
    while True:
        m = re.search(r"\btemplate\s*<", header)
        if not m:
            return header
        depth, k = 0, m.end() - 1
        while k < len(header):
            depth += {"<": 1, ">": -1}.get(header[k], 0)
            if depth == 0:
                break
            k += 1
        header = header[:m.start()] + " " + header[k + 1:]


def top_level(header):
    """The header's characters outside parentheses and brackets, others replaced by spaces."""
    depth, out = 0, []
    for ch in header:
        if ch in ")]":
            depth = max(depth - 1, 0)
        out.append(ch if depth == 0 else " ")
        if ch in "([":
            depth += 1
    return "".join(out)


def assignment_at(header):
    """The offset of the header's top-level '=' (an initializer), or -1."""
    flat = top_level(header)
    for m in re.finditer(r"(?<![=!<>+\-*/%&|^])=(?!=)", flat):
        if not re.search(r"\boperator\s*$", flat[:m.start()]):
            return m.start()
    return -1


def opens_body(header):
    """Whether the brace after this header opens a body (function or lambda): the header ends
    in a parameter list, a qualifier, a lambda's capture or a trailing return type."""
    tail = header.rstrip()
    if not tail:
        return False
    if tail[-1] in ")]&":
        return True
    if tail[-1] == "}":  # after a member's brace initializer: `A() : b_{1} {`
        return re.search(r"\)\s*(?:noexcept\s*)?:(?!:)", top_level(tail)) is not None
    last = re.search(r"(\w+)$", tail)
    if last and last.group(1) in QUALIFIERS:
        return True
    # a trailing return type: '->' after the last top-level ')'
    flat = top_level(tail)
    return "->" in flat[flat.rfind(")") + 1:] if ")" in tail else False


def function_name(header):
    """The name a function is declared with: qualified (A::f), an operator, or a destructor."""
    m = OPERATOR.search(header)
    if m:
        return "operator" + re.sub(r"\s+", "", m.group(1))
    flat = top_level(header)
    for k, ch in enumerate(header):
        if ch == "(" and flat[k] == "(":
            m = QUALIFIED_NAME.search(header[:k])
            if m and m.group(1).split("::")[-1].strip() not in NOT_NAMES:
                return re.sub(r"\s+", "", m.group(1))
    return "?"


def classify(header):
    """What a brace at namespace or class scope opens, from the text before it:
    ('scope', name) for a namespace or class, ('function', name), or ('skip', None)."""
    header = strip_templates(header)
    while ACCESS.match(header):
        header = ACCESS.sub("", header, count=1)
    if re.match(r"^\s*(?:inline\s+)?namespace\b", header):
        return "scope", None
    if re.match(r'^\s*extern\s*"\s*"\s*$', header):
        return "scope", None
    if CLASS_KEY.match(header):
        m = re.search(r"\b(?:class|struct|union)\s+(?:\w+\s+)*?([A-Za-z_]\w*)\s*(?:final\s*)?(?::[^:]|$)",
                      header.rstrip() + " ")
        return "scope", m.group(1) if m else None
    if re.match(r"^\s*enum\b", header):
        return "skip", None
    at = assignment_at(header)
    if at >= 0:  # `name = [..](..) {`: a lambda; `name = {`: an initializer
        if opens_body(header) and "[" in header[at:]:
            m = QUALIFIED_NAME.search(header[:at])
            return "function", (m.group(1) if m else "?") + " (lambda)"
        return "skip", None
    if opens_body(header):
        return "function", function_name(header)
    return "skip", None  # `int x{3}`, a member initializer `b_{1}`


def find_functions(text):
    """(name, line of the name, body lines) of every function in a C++ source text."""
    code = blank(text)
    newlines = [k for k, ch in enumerate(code) if ch == "\n"]

    def line_of(offset):
        return bisect.bisect_left(newlines, offset) + 1

    functions = []
    scopes = [None]  # the class names around the scan; None for the file and namespaces
    header_start = 0
    k = 0
    while k < len(code):
        ch = code[k]
        if ch == ";":
            header_start = k + 1
        elif ch == "}":
            if len(scopes) > 1:
                scopes.pop()
            header_start = k + 1
        elif ch == "{":
            header = code[header_start:k]
            kind, name = classify(header)
            if kind == "scope":
                scopes.append(name)
                header_start = k + 1
            else:
                close = matching_brace(code, k)
                if kind == "function":
                    owner = "::".join(s for s in scopes if s)
                    full = owner + "::" + name if owner and not name.endswith("(lambda)") else name
                    stripped = len(header) - len(header.lstrip())
                    name_line = line_of(header_start + stripped)
                    named = re.search(re.escape(name.split("::")[-1].split(" ")[0]), header)
                    if named:
                        name_line = line_of(header_start + named.start())
                    functions.append((full, name_line, line_of(close) - line_of(k) + 1))
                    header_start = close + 1
                k = close  # an initializer's braces belong to the header that continues
        k += 1
    return functions


def scan(root, folders, max_lines):
    files = []
    for folder in folders:
        base = root / folder
        files += sorted(p for p in base.rglob("*") if p.is_file() and p.name.endswith(SUFFIXES))
    long_ones = []
    for f in files:
        for name, line, length in find_functions(f.read_text(errors="replace")):
            if length > max_lines:
                long_ones.append(f"{f.relative_to(root).as_posix()}:{line}: {name} is {length} lines "
                                 f"(limit {max_lines})")
    for entry in long_ones:
        print(entry)
    print(f"{len(files)} files, {len(long_ones)} function(s) over {max_lines} lines")
    return 1 if long_ones else 0


def body(lines):
    """A function body of exactly `lines` lines (braces included)."""
    assert lines >= 2
    return "{\n" + "  x += 1;\n" * (lines - 2) + "}\n"


def self_test():
    """The scanner on small snippets whose functions and lengths are known."""
    cases = [
        ("braces in strings, comments, raw strings and directives", r'''
// a comment { with braces
/* and a block comment } here */
#define OPEN {
#define CLOSE \
  }
int tricky(int a) {
  const char* s = "}{\"}";
  char c = '{';
  char d = '\'';
  long big = 1'000'000;
  const char* raw = R"x( } " { )x";
  const char* raw2 = u8R"(})";
  return a + c + d + s[0] + raw[0] + raw2[0] + big;  // }
}
void after() {}
''', [("tricky", 7, 9), ("after", 16, 1)]),
        ("a class with inline members", '''
namespace klmini {
class Counter : public Base<int> {
 public:
  Counter() : count_{0}, step_(1) {
    reset();
  }
  explicit Counter(int c) : count_{c} {}
  int next() const noexcept {
    return count_ + step_;
  }
  bool operator==(const Counter& o) const { return count_ == o.count_; }
  int operator()(int x) const { return x; }
  struct Inner {
    void touch() {
    }
  };
  int count_{3};
  static constexpr int kTable[] = {1, 2, 3};
};
auto Counter::later() -> int {
  return 1;
}
}  // namespace klmini
''', [("Counter::Counter", 5, 3), ("Counter::Counter", 8, 1), ("Counter::next", 9, 3),
      ("Counter::operator==", 12, 1), ("Counter::operator()", 13, 1), ("Counter::Inner::touch", 15, 2),
      ("Counter::later", 21, 3)]),
        ("namespaces, a template and an enum", '''
namespace a::b {
namespace {
enum class Colour { red, green };
const int kSizes[] = {1, 2};
template <class T, int N = sizeof(T)>
T twice(T x) {
  return x + x;
}
template <>
KOKKOS_INLINE_FUNCTION double twice<double>(double x) {
  return 2 * x;
}
}  // namespace
}  // namespace a::b
extern "C" {
void c_entry(void) {
}
}
''', [("twice", 7, 3), ("twice<double>", 11, 3), ("c_entry", 17, 2)]),
        ("a lambda is part of its function; a namespace-scope lambda counts on its own", '''
void outer() {
  const auto f = [&](int i) {
    if (i) {
      return i;
    }
    return 0;
  };
  f(1);
}
const auto helper = [](int x) {
  return x;
};
''', [("outer", 2, 9), ("helper (lambda)", 11, 3)]),
        ("exactly at the limit and one over", "void at_limit() " + body(60) + "void over_limit() " + body(61),
         [("at_limit", 1, 60), ("over_limit", 61, 61)]),
    ]
    failures = 0
    for title, source, expected in cases:
        found = find_functions(source)
        if found != expected:
            failures += 1
            print(f"FAIL {title}:\n  expected {expected}\n  found    {found}")
        else:
            print(f"ok   {title}")
    # The limit itself: a function of exactly 60 lines passes, one of 61 does not.
    long_ones = [f for f in find_functions(cases[-1][1]) if f[2] > 60]
    if [f[0] for f in long_ones] != ["over_limit"]:
        failures += 1
        print(f"FAIL the limit of 60 lines: over it {long_ones}")
    else:
        print("ok   the limit of 60 lines")
    print(f"{len(cases) + 1 - failures} of {len(cases) + 1} self-tests passed")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-lines", type=int, default=60, help="longest body allowed (default 60)")
    parser.add_argument("--self-test", action="store_true", help="check the scanner on known snippets")
    parser.add_argument("source_dir", nargs="?", help="the project root")
    parser.add_argument("folders", nargs="*", help=f"folders to scan (default {' '.join(DEFAULT_FOLDERS)})")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.source_dir:
        parser.error("SOURCE_DIR is required (or --self-test)")
    return scan(pathlib.Path(args.source_dir), args.folders or DEFAULT_FOLDERS, args.max_lines)


if __name__ == "__main__":
    sys.exit(main())
