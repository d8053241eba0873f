#!/usr/bin/env python3
"""Checks that src/ keeps its layers: a file includes only its own layer and the ones below,
the host layer never includes Kokkos (so toml++ never meets nvcc), and no two modules (a
header and its .cpp) depend on each other through their includes.

    numerics < host < core < kernels < run

Usage: check_layers.py SOURCE_DIR. Prints every include that runs back up and exits 1.
"""
import pathlib
import re
import sys

LAYERS = ["numerics", "host", "core", "kernels", "run"]
KOKKOS_FREE = {"numerics", "host"}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def layer_of(path):
    return LAYERS.index(path.split("/")[0]) if path.split("/")[0] in LAYERS else None


def module_cycles(src, files):
    """Each pair of modules that reach each other through includes ("host/config <-> host/variants")."""
    needs = {}
    for f in files:
        rel = f.relative_to(src).as_posix()
        module = rel.split(".")[0]
        for inc in INCLUDE.findall(f.read_text()):
            target = inc.split(".")[0]
            if target != module and (src / inc).exists():
                needs.setdefault(module, set()).add(target)

    def reaches(start):
        seen, todo = set(), [start]
        while todo:
            for nxt in needs.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    return sorted({" <-> ".join(sorted((a, b))) for a in needs for b in needs[a] if a in reaches(b)})


def main(source_dir):
    src = pathlib.Path(source_dir) / "src"
    problems = []
    files = sorted(p for p in src.rglob("*") if p.suffix in (".hpp", ".cpp", ".in"))
    for f in files:
        rel = f.relative_to(src).as_posix()
        own = layer_of(rel)
        if own is None:
            problems.append(f"src/{rel}: not in one of the layers {', '.join(LAYERS)}")
            continue
        for inc in INCLUDE.findall(f.read_text()):
            if LAYERS[own] in KOKKOS_FREE and (inc.startswith("Kokkos") or inc.startswith("KokkosBlas")):
                problems.append(f"src/{rel}: includes <{inc}>, but src/{LAYERS[own]}/ is free of Kokkos")
            target = layer_of(inc)
            if target is not None and target > own:
                problems.append(f"src/{rel}: includes {inc}, a layer above {LAYERS[own]}/")
    problems += [f"src/{pair}: include each other" for pair in module_cycles(src, files)]
    for p in problems:
        print(p)
    print(f"{len(files)} files, {len(problems)} include(s) against the layers")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
