"""Scaling plots from klmini's CSV rows (klmini --csv, scripts/host_scaling.sh, gpu_benchmark.sh).

Writes, for every backend in the CSVs:
  vocab_time_<backend>.png      median time vs vocab (log-log), one line per variant
  vocab_bandwidth_<backend>.png achieved GB/s vs vocab with the measured read ceiling drawn
  threads_<backend>.png         time and GB/s vs threads (when one size was run at several)
Peers (scripts/peers.py CSV) are drawn on the vocab plots when given with --peers.
"""
import argparse
import collections
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_rows(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                r["_file"] = p
                rows.append(r)
    return rows


def vocab_plots(rows, peers, out, backend):
    by_variant = collections.defaultdict(list)
    ceiling = {}
    for r in rows:
        v = int(r["vocab"])
        by_variant[r["variant"]].append((v, float(r["median_s"]), float(r["GBps"])))
        ceiling[v] = float(r["ceiling_GBps"])
    if len({v for pts in by_variant.values() for v, _, _ in pts}) < 2:
        return []
    tokens = rows[0]["tokens"]
    written = []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, pts in sorted(by_variant.items()):
        pts.sort()
        ax.loglog([p[0] for p in pts], [p[1] * 1e6 for p in pts], "o-", label=f"klmini {name}")
    for name, pts in sorted(peers.items()):
        pts.sort()
        ax.loglog([p[0] for p in pts], [p[1] * 1e6 for p in pts], "s--", alpha=0.7, label=name)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("vocab")
    ax.set_ylabel("median time (us)")
    ax.set_title(f"KL-div loss, tokens {tokens}, {backend}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    path = os.path.join(out, f"vocab_time_{backend}.png")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    cv = sorted(ceiling)
    ax.plot(cv, [ceiling[v] for v in cv], "k-", lw=2, label="klmini read ceiling (measured)")
    for name, pts in sorted(by_variant.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[2] for p in pts], "o-", label=f"klmini {name}")
    for name, pts in sorted(peers.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[2] for p in pts], "s--", alpha=0.7, label=name)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("vocab")
    ax.set_ylabel("GB/s (2 x tokens x vocab x 4 B / time)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"Achieved bandwidth, tokens {tokens}, {backend}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    path = os.path.join(out, f"vocab_bandwidth_{backend}.png")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)
    return written


def thread_plot(rows, out, backend):
    pts = collections.defaultdict(list)
    for r in rows:
        pts[r["variant"]].append((int(r["concurrency"]), float(r["median_s"]), float(r["GBps"]), float(r["ceiling_GBps"])))
    if len({p[0] for v in pts.values() for p in v}) < 2:
        return []
    r0 = rows[0]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    for name, p in sorted(pts.items()):
        p.sort()
        th = [x[0] for x in p]
        ax1.loglog(th, [x[1] * 1e3 for x in p], "o-", label=f"{name}")
        ax1.loglog(th, [p[0][1] * 1e3 * th[0] / t for t in th], ":", color="gray", label="ideal" if name == "fused" else None)
        ax2.plot(th, [x[2] for x in p], "o-", label=f"{name} GB/s")
        ax2.plot(th, [x[3] for x in p], "k--", label="read ceiling (measured)")
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("OpenMP threads" if backend != "cuda" else "concurrency")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    ax1.set_ylabel("median time (ms)")
    ax2.set_ylabel("GB/s")
    ax2.set_ylim(bottom=0)
    fig.suptitle(f"Thread scaling, {backend}, tokens {r0['tokens']} x vocab {r0['vocab']}")
    fig.tight_layout()
    path = os.path.join(out, f"threads_{backend}.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return [path]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--peers", help="scripts/peers.py CSV to draw beside klmini")
    args = ap.parse_args()
    try:
        rows = read_rows(args.csv)
    except (OSError, KeyError, csv.Error) as e:
        print(f"plot: {e}", file=sys.stderr)
        return 2
    if not rows:
        print("plot: no rows", file=sys.stderr)
        return 2
    for key in ("backend", "variant", "vocab", "tokens", "median_s", "GBps", "ceiling_GBps", "concurrency"):
        if key not in rows[0]:
            print(f"plot: {args.csv[0]} has no '{key}' column (not a klmini CSV?)", file=sys.stderr)
            return 2
    peers = collections.defaultdict(list)
    if args.peers:
        for r in read_rows([args.peers]):
            if r["peer"] in ("read_sum", "d2d_copy"):
                continue
            peers[r["peer"]].append((int(r["vocab"]), float(r["median_s"]), float(r["GBps"])))
    os.makedirs(args.out, exist_ok=True)
    written = []
    for backend in sorted({r["backend"] for r in rows}):
        sub = [r for r in rows if r["backend"] == backend]
        written += vocab_plots(sub, peers if backend == "cuda" else {}, args.out, backend)
        written += thread_plot(sub, args.out, backend)
    for w in written:
        print(w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
