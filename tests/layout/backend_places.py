#!/usr/bin/env python3
"""Counts the places each backend of the backend table (src/host/backends.hpp) appears in the
code, so that a backend stays one row of that table and one Kokkos type beside it
(src/core/backend_spaces.hpp), and no file compares backend names of its own.

For each row it looks in src/, miniapp/, bench/ and fuzz/ for
  - its names as string literals ("openmp", "OpenMP"): only on its own row of the table;
  - its enumerator (Backend::openmp): only in the table and in src/core/backend_spaces.hpp;
  - its Kokkos type and macro (Kokkos::OpenMP, KOKKOS_ENABLE_OPENMP): only in the places
    listed in PLACES below, as often as listed there (code that only one space has, such as
    Cuda's event timer, and the benchmark's sizes for each backend).
A new backend adds its row and its type; a new place that names a backend fails here, and
belongs in the table instead (or, for code only one space has, in PLACES with a reason).

Usage: backend_places.py SOURCE_DIR | --self-test. Prints every place out of line; exits 1 if any.
"""
import pathlib
import re
import sys
import tempfile

TABLE = "src/host/backends.hpp"
SPACES = "src/core/backend_spaces.hpp"
FOLDERS = ["src", "miniapp", "bench", "fuzz"]
ROW = re.compile(r'\{\s*Backend::(\w+)\s*,\s*"(\w+)"\s*,\s*"(\w+)"')

# file -> {Kokkos type or macro: count}: where one space's own code is, beyond SPACES.
PLACES = {
    "src/core/cuda_check.hpp": {"KOKKOS_ENABLE_CUDA": 1},  # CUDA's runtime errors
    "src/core/timer.hpp": {"KOKKOS_ENABLE_CUDA": 1, "Kokkos::Cuda": 4},  # CUDA events around a launch
    "src/run/row_blocks.hpp": {"KOKKOS_ENABLE_CUDA": 1},  # pinned staging memory
    "src/run/setup.hpp": {"KOKKOS_ENABLE_CUDA": 2},  # the device's free memory, the rank's GPU
    "src/kernels/shapes.hpp": {"KOKKOS_ENABLE_CUDA": 1, "Kokkos::Cuda": 1},  # Cuda stages a log table in team scratch
    "miniapp/main.cpp": {"KOKKOS_ENABLE_OPENMP": 1},  # OpenMP's thread binding, before its runtime starts
    # The benchmark's sizes and shapes for each backend.
    "bench/bench_variants.cpp": {
        "KOKKOS_ENABLE_CUDA": 2, "Kokkos::Cuda": 7, "KOKKOS_ENABLE_OPENMP": 1, "Kokkos::OpenMP": 3,
        "KOKKOS_ENABLE_SERIAL": 1, "Kokkos::Serial": 2,
    },
}


def table_rows(root):
    text = (root / TABLE).read_text()
    return [(m.group(1), m.group(2), m.group(3)) for m in ROW.finditer(text)]


def sources(root):
    for folder in FOLDERS:
        for f in sorted((root / folder).rglob("*")):
            if f.is_file() and f.suffix in (".cpp", ".hpp", ".in"):
                yield f.relative_to(root).as_posix(), f.read_text()


def problems(root):
    rows = table_rows(root)
    out = [] if rows else [f"{TABLE}: no rows found"]
    for rel, text in sources(root):
        for ident, name, space in rows:
            for literal in {f'"{name}"', f'"{space}"'}:
                lines = [n for n, line in enumerate(text.splitlines(), 1) if literal in line]
                own_row = rel == TABLE and all(f"Backend::{ident}," in text.splitlines()[n - 1] for n in lines)
                if lines and not own_row:
                    out.append(f"{rel}:{lines[0]}: {literal} ({len(lines)} lines): a backend's name outside its row")
            enumerator = len(re.findall(rf"\bBackend::{ident}\b", text))
            if enumerator and rel not in (TABLE, SPACES):
                out.append(f"{rel}: Backend::{ident} ({enumerator}x): a backend special-cased outside the table")
            if rel == SPACES:
                continue
            for token in (f"Kokkos::{space}", f"KOKKOS_ENABLE_{space.upper()}"):
                count = len(re.findall(rf"\b{re.escape(token)}\b(?!::)", text))
                allowed = PLACES.get(rel, {}).get(token, 0)
                if count != allowed:
                    out.append(f"{rel}: {token} {count}x, PLACES says {allowed}x")
    return out


def main(source_dir):
    root = pathlib.Path(source_dir)
    found = problems(root)
    for p in found:
        print(p)
    print(f"{len(table_rows(root))} backends, {len(found)} place(s) out of line")
    return 1 if found else 0


def self_test():
    """A clean tree passes; a name compared elsewhere, or a new row's stray type, fails."""
    row = '{Backend::solo, "solo", "Solo", "Host", true},\n'
    with tempfile.TemporaryDirectory() as d:
        root = pathlib.Path(d)
        for folder in FOLDERS + ["src/host", "src/core"]:
            (root / folder).mkdir(parents=True, exist_ok=True)
        (root / TABLE).write_text(row)
        (root / SPACES).write_text("struct SpaceOf<Backend::solo> { using type = Kokkos::Solo; };\n")
        clean = problems(root)
        (root / "src/run.cpp").write_text('if (name == "solo") run<Kokkos::Solo>();\n')
        dirty = problems(root)
    ok = clean == [] and len(dirty) == 2 and "src/run.cpp:1:" in dirty[0] and "Kokkos::Solo 1x" in dirty[1]
    print("self-test", "passed" if ok else f"FAILED: clean {clean}, dirty {dirty}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(self_test() if sys.argv[1:] == ["--self-test"] else main(sys.argv[1]))
