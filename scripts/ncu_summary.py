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
    # Kokkos: ...<variants::GridStride<Kokkos::Cuda, 2, float, variants::ReadOp>, ...> -> GridStride<2,float,ReadOp>
    m = re.search(r"variants::(\w+)<Kokkos::Cuda,\s*(\d+),\s*([\w:]+),\s*variants::(\w+(?:<\d+>)?)", name)
    if m:
        return f"{m.group(1)}<{m.group(2)},{m.group(3).split('::')[-1]},{m.group(4)}>"
    if "SumOfElements" in name:  # builds before the row shapes added their sums atomically
        return "SumOfElements (the sum of RowSums' row sums)"
    if "KernelTimer" in name:
        return "klmini KernelTimer flush read"
    if "klmini::poison" in name:
        return "klmini poison"
    if "generate_detail" in name:
        return "klmini input generation"
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
            unit = row.get("Metric Unit", "")
            scales = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6,
                      "s": 1e6}
            if unit not in scales:
                print(f"ncu_summary: {path}: unknown unit '{unit}'", file=sys.stderr)
                return 2
            scale = scales[unit]
            times.setdefault((path, short(row["Kernel Name"])), []).append(value * scale)
    for (path, name), values in times.items():
        print(f"{name:60s} median {statistics.median(values):10.2f} us  min {min(values):10.2f}  n {len(values):3d}  ({path.split('/')[-1]})")
    return 0 if times else 1


if __name__ == "__main__":
    sys.exit(main())
