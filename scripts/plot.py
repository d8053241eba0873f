"""Scaling plots from klmini's CSV rows (klmini --csv, scripts/host_scaling.sh, gpu_benchmark.sh).

Writes, for every backend in the CSVs:
  vocab_time_<backend>.png      median time vs vocab (log-log), one line per variant
  vocab_bandwidth_<backend>.png achieved GB/s vs vocab with the measured read ceiling drawn
  threads_<backend>.png         time and GB/s vs threads (when one size was run at several)
  ranks_<backend>.png           strong scaling: time and aggregate GB/s vs MPI ranks
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


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def vocab_figure(by_variant, peers, column, draw, ylabel, title, ceiling=None):
    """One plot against vocab: klmini's variants, the peers, and the ceiling when given."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    if ceiling:
        cv = sorted(ceiling)
        ax.plot(cv, [ceiling[v] for v in cv], "k-", lw=2, label="klmini read ceiling (measured)")
    for prefix, fmt, alpha, series in (("klmini ", "o-", 1.0, by_variant), ("", "s--", 0.7, peers)):
        for name, pts in sorted(series.items()):
            pts.sort()
            draw(ax)([p[0] for p in pts], [column(p) for p in pts], fmt, alpha=alpha, label=f"{prefix}{name}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("vocab")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig, ax


# What makes two rows the same line: the variant, and the dtype and precision when a CSV holds
# several (CSVs from before those columns existed are fp32, fast).
SERIES_FIELDS = ("variant", "dtype", "precision")


def series(r):
    name = r["variant"]
    if r.get("dtype", "fp32") != "fp32":
        name += " " + r["dtype"]
    if r.get("precision", "fast") == "exact":
        name += " exact"
    return name


def vocab_plots(rows, peers, out, backend):
    by_variant = collections.defaultdict(list)
    ceiling = {}
    for r in rows:
        v = int(r["vocab"])
        by_variant[series(r)].append((v, float(r["median_s"]), float(r["GBps"])))
        # The line drawn is the fp32 read ceiling (other dtypes and the copy ceiling are in the CSV).
        if r.get("ceiling", "read") == "read" and r.get("dtype", "fp32") == "fp32":
            ceiling[v] = float(r["ceiling_GBps"])
    if len({v for pts in by_variant.values() for v, _, _ in pts}) < 2:
        return []
    tokens = rows[0]["tokens"]
    fig, _ = vocab_figure(by_variant, peers, lambda p: p[1] * 1e6, lambda ax: ax.loglog, "median time (us)",
                          f"KL-div loss, tokens {tokens}, {backend}")
    written = [save(fig, os.path.join(out, f"vocab_time_{backend}.png"))]
    fig, ax = vocab_figure(by_variant, peers, lambda p: p[2], lambda ax: ax.plot,
                           "GB/s (bytes moved / time)", f"Achieved bandwidth, tokens {tokens}, {backend}",
                           ceiling=ceiling)
    ax.set_ylim(bottom=0)
    written.append(save(fig, os.path.join(out, f"vocab_bandwidth_{backend}.png")))
    return written


def most_common(rows, key):
    return collections.Counter(r[key] for r in rows).most_common(1)[0][0]


def dedupe(rows, fields):
    """Rows measured more than once (a rerun, two sweeps): keep the run with the median time."""
    groups = collections.defaultdict(list)
    for r in rows:
        groups[tuple(r.get(f, "") for f in fields)].append(r)
    kept = []
    for group in groups.values():
        group.sort(key=lambda r: float(r["median_s"]))
        kept.append(group[(len(group) - 1) // 2])
    return kept


def vocab_subset(rows):
    """One line per variant: ranks 1 (or the fewest), the most threads, the most common token count."""
    ranks = min(int(r.get("ranks", 1) or 1) for r in rows)
    rows = [r for r in rows if int(r.get("ranks", 1) or 1) == ranks]
    tokens = most_common(rows, "tokens")
    rows = [r for r in rows if r["tokens"] == tokens]
    conc = max(int(r["concurrency"]) for r in rows)
    return dedupe([r for r in rows if int(r["concurrency"]) == conc], SERIES_FIELDS + ("vocab",))


def scaling_plot(rows, out, backend, key, label, filename):
    """Time and GB/s against `key` (concurrency or ranks) for the size run at most values of it."""
    if key == "concurrency":  # threads of one rank
        rows = [r for r in rows if int(r.get("ranks", 1) or 1) == 1]
    by_size = collections.defaultdict(set)
    for r in rows:
        by_size[(r["tokens"], r["vocab"])].add(r[key])
    if not by_size:
        return []
    size, values = max(by_size.items(), key=lambda kv: len(kv[1]))
    if len(values) < 2:
        return []
    rows = dedupe([r for r in rows if (r["tokens"], r["vocab"]) == size], SERIES_FIELDS + (key,))
    pts = collections.defaultdict(dict)
    for r in rows:
        pts[series(r)][int(r[key])] = (float(r["median_s"]), float(r["GBps"]), float(r["ceiling_GBps"]))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    for name, p in sorted(pts.items()):
        xs = sorted(p)
        ax1.loglog(xs, [p[x][0] * 1e3 for x in xs], "o-", label=name)
        ax1.loglog(xs, [p[xs[0]][0] * 1e3 * xs[0] / x for x in xs], ":", color="gray")
        ax2.plot(xs, [p[x][1] for x in xs], "o-", label=f"{name} GB/s")
    first = sorted(pts.items())[0][1]
    xs = sorted(first)
    ax2.plot(xs, [first[x][2] for x in xs], "k--", label="read ceiling (measured)")
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_xlabel(label)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    ax1.set_ylabel("median time (ms); dotted: ideal")
    ax2.set_ylabel("aggregate GB/s")
    ax2.set_ylim(bottom=0)
    fig.suptitle(f"Strong scaling, {backend}, tokens {size[0]} x vocab {size[1]}")
    return [save(fig, os.path.join(out, filename))]


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
        written += vocab_plots(vocab_subset(sub), peers if backend == "cuda" else {}, args.out, backend)
        written += scaling_plot(sub, args.out, backend, "concurrency",
                                "OpenMP threads" if backend != "cuda" else "concurrency", f"threads_{backend}.png")
        if "ranks" in sub[0]:
            written += scaling_plot(sub, args.out, backend, "ranks", "MPI ranks", f"ranks_{backend}.png")
    for w in written:
        print(w)
    if not written:
        print("plot: nothing to plot (every row has the same vocab, thread count and rank count)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
