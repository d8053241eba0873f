#!/usr/bin/env python3
"""Median kernel time per kernel from Nsight Compute CSV logs (ncu --csv --metrics
gpu__time_duration.sum --log-file FILE), one line per kernel name, in microseconds, with the
number of launches. Kernel names are shortened to their functor or Triton name.

    python3 scripts/ncu_summary.py ncu-klmini.csv [ncu-peers.csv ...]
"""
import csv
import re
import statistics
import sys


def short(name):
    # Kokkos: ..._launch_bounds<klmini::variants::GridStride<Kokkos::Cuda, 2, float, ...>> -> GridStride<2, float, Op>
    m = re.search(r"klmini::variants::(\w+)<Kokkos::Cuda,\s*(\d+),\s*([\w:]+),\s*klmini::variants::(\w+)", name)
    if m:
        return f"{m.group(1)}<{m.group(2)},{m.group(3).split('::')[-1]},{m.group(4)}>"
    return name.split("(")[0][:80]


def main():
    times = {}
    for path in sys.argv[1:]:
        with open(path, newline="") as f:
            lines = [line for line in f if line.startswith('"')]  # ncu's own messages start with ==
        for row in csv.DictReader(lines):
            if row.get("Metric Name") != "gpu__time_duration.sum":
                continue
            value = float(row["Metric Value"].replace(",", ""))
            scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "second": 1e6}.get(row.get("Metric Unit", ""), 1.0)
            times.setdefault((path, short(row["Kernel Name"])), []).append(value * scale)
    for (path, name), values in times.items():
        print(f"{name:60s} median {statistics.median(values):10.2f} us  min {min(values):10.2f}  n {len(values):3d}  ({path.split('/')[-1]})")
    return 0 if times else 1


if __name__ == "__main__":
    sys.exit(main())
