#!/usr/bin/env python3
"""Checks the event log that tests/tools/event_log_tool.cpp wrote for one klmini run: the run's
phases are Kokkos Tools regions (src/core/region.hpp), opened in order and closed; every kernel runs inside the run's
region and carries a klmini label (or is Kokkos' own construction or destruction of a view, or a
Kokkos Kernels kernel inside Kokkos Kernels' region); every allocation carries a klmini label (or
is Kokkos' own scratch).

    check_events.py VARIANT[,VARIANT...] -- COMMAND [ARG...]

runs COMMAND (a klmini run that loads the tool) with KLMINI_TOOL_LOG naming a log in a fresh
temporary folder, which it removes afterwards. Prints what is wrong and exits 1.
"""
import os
import subprocess
import sys
import tempfile

PHASES = ["klmini::run", "klmini::setup", "klmini::ceilings", "klmini::reference"]
KOKKOS_LIFETIME = ("Kokkos::View::initialization", "Kokkos::View::destruction")


def main(path, variants):
    lines = open(path).read().splitlines()
    problems = []
    if not lines or lines[0] != "init" or lines[-1] != "finalize":
        problems.append("the tool was not initialized and finalized (is the tools library loaded?)")
    pushed, depth = [], 0
    for line in lines:
        kind, _, rest = line.partition(" ")
        if kind == "push":
            pushed.append(rest)
            depth += 1
        elif kind == "pop":
            depth -= 1
            if depth < 0:
                problems.append("a region was closed that was not open")
        elif kind == "kernel":
            _, regions, name = rest.split(" ", 2)
            open_regions = regions.split("/")
            if "klmini::run" not in open_regions:
                problems.append(f"kernel '{name}' ran outside the run's region (regions: {regions})")
            library = open_regions[-1].startswith("KokkosBlas::") and name.startswith("KokkosBlas::")
            if not (name.startswith("klmini::") or name.startswith(KOKKOS_LIFETIME) or library):
                problems.append(f"kernel '{name}' has no klmini label (regions: {regions})")
        elif kind == "alloc":
            space, _, label = rest.partition(" ")
            # Kokkos' own scratch: the host backends of Kokkos 3.x grow their threads' reduction
            # space (32 bytes a thread at start, less than the kernels' 72-byte sum) without a
            # label; every view klmini allocates has one.
            kokkos_scratch = space == "Host" and label == "[unlabeled]"
            if not (label.startswith("klmini::") or label.startswith("Kokkos::") or kokkos_scratch):
                problems.append(f"an allocation in {space} has no klmini label: '{label}'")
    if depth != 0:
        problems.append(f"{depth} region(s) left open")
    expected = PHASES + [f"klmini::variant::{v}" for v in variants] + ["klmini::time", "klmini::verify", "klmini::output"]
    for name in expected:
        if name not in pushed:
            problems.append(f"no region '{name}' (regions seen: {', '.join(dict.fromkeys(pushed))})")
    order = [pushed.index(n) for n in PHASES + ["klmini::output"] if n in pushed]
    if order != sorted(order):
        problems.append(f"the phases were not opened in the order {PHASES + ['klmini::output']}")
    for p in problems:
        print(p)
    print(f"{len(lines)} events, {len(problems)} problem(s)")
    return 1 if problems else 0


def run_and_check(variants, command):
    with tempfile.TemporaryDirectory(prefix="klmini_test_tools_") as folder:
        log = os.path.join(folder, "events.log")
        done = subprocess.run(command, env=dict(os.environ, KLMINI_TOOL_LOG=log), capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stdout + done.stderr)
            print(f"klmini exited with {done.returncode}")
            return 1
        if not os.path.exists(log):
            print("no event log: the tools library was not loaded")
            return 1
        return main(log, variants)


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    sys.exit(run_and_check(sys.argv[1].split(","), sys.argv[3:]))
