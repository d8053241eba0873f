#!/usr/bin/env python3
"""Checks that every module of src/ has its tests where a reader looks for them: a test file of
its name (tests/<layer>/test_<module>.cpp), or a test whose opening comment (its first lines)
names the module's file (src/<folder>/<module>.<ext>).

Usage: test_files.py SOURCE_DIR. Prints each module without either and exits 1 if any.
"""
import pathlib
import sys

TEST_SUFFIXES = (".cpp", ".hpp", ".py", ".cmake", ".sh")


HEAD_LINES = 15  # where a test's opening comment says what it tests


def opening_comment(path):
    return "\n".join(path.read_text().splitlines()[:HEAD_LINES])


def main(source_dir):
    root = pathlib.Path(source_dir)
    src = root / "src"
    tests = [p for p in (root / "tests").rglob("*") if p.is_file() and p.suffix in TEST_SUFFIXES]
    heads = "\n".join(opening_comment(t) for t in tests)
    modules = sorted({(f.parent.relative_to(src), f.name.split(".")[0]) for f in src.rglob("*") if f.is_file()})
    missing = []
    for folder, module in modules:
        layer = folder.parts[0]
        if (root / "tests" / layer / f"test_{module}.cpp").exists():
            continue
        if f"src/{folder.as_posix()}/{module}." not in heads:
            missing.append(f"src/{folder.as_posix()}/{module}: no tests/{layer}/test_{module}.cpp, and no test names it")
    for m in missing:
        print(m)
    print(f"{len(modules)} modules, {len(missing)} without a test that names them")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
