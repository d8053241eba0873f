"""Several ranks on fewer cores: the run says it is oversubscribed, and the aggregate GB/s of every
timed row (both ceilings and every variant) stays at or below what one rank with every core gets
on the same row. One rank with one thread is not oversubscribed.
    python3 mpi_oversubscribed.py KLMINI DECK MPIEXEC NUMPROC_FLAG [MPIEXEC_FLAGS...]

Two decks cover every row: the loss variants with the gradient (ceiling_read, ceiling_copy,
fused, flat, kokkos_kernels, fused_grad, grad_only) and the `none` reduction (ceiling_read,
ceiling_copy, terms). Each runs on 4 and 16 ranks (2 and 8 per CPU on the 2-core test machine),
between runs of one rank with every core. The ranks time-share the cores the 1-rank runs had to
themselves, so their bytes cannot cross memory faster: a row's aggregate (its median, timed from
the first rank's start to the last rank's end) is compared with the same row's fastest 1-rank
repeat over the runs before, between and after (the ceilings: of both decks), since this
machine's rates drift by up to 40% within a minute.

The bound is 1.5x, not 1.2x. 19 runs of this test (16 to 60 s each) on the 2-core development
machine, shared with others' builds and tests (load average 2.6 to 10.7), gave 380 ratios: 0.28 to
1.49x. Nine were above 1.2x, in 5 runs, all at a load average of 6.6 or more, on memory-bound rows
(fused, the ceilings) and compute-bound ones (flat, kokkos_kernels) alike: when other processes
take a core, the 1-rank run's team of 2 threads waits for its descheduled thread at every barrier,
while 4 or 16 single-thread ranks keep the other core busy. At a load average up to 6.3, the worst
was 1.18x. A row above the bound runs again, both its ranks and one rank (up to twice): a timing
that inflates the aggregate does so on every run (timing each rank from its own start, a rank
waiting for a core timed from late, gave 4-7x), a busy machine's slow 1-rank runs do not last; the
row's aggregate is then its slowest run's, and one rank's figure its fastest repeat over all runs.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

klmini, deck, mpiexec, numproc_flag, *mpi_flags = sys.argv[1:]
# 128 MiB per fp32 input: 4x the 32 MiB L3 of the 2-core test machine. No verification: the
# bandwidths are what is tested (the other MPI tests verify), and its reference would triple
# the test's time.
common = ["--set", "tokens=4096", "--set", "vocab=8192", "--set", "dtype=fp32", "--set", "warmup=1",
          "--set", "repeats=5", "--set", "verify=off"]
DECKS = {
    "loss": ["--set", "variant=all", "--set", "gradient=true"],
    "none": ["--set", "reduction=none"],
}
RANKS = (4, 16)
MARGIN = 1.5
RETRIES = 2
cpus = len(os.sched_getaffinity(0))
failures = []


def run(name, command, threads, settings, directory):
    path = os.path.join(directory, name + ".json")
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="false")
    done = subprocess.run(command + [deck, *settings, "--json", path], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"FAIL: {name} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    with open(path) as f:
        return json.load(f), done.stdout


def rows(doc):
    """Each timed row's median rate and fastest repeat's rate, GB/s, by name."""
    out = {}
    named = [("ceiling_read", doc["ceiling"], doc["ceiling_GBps"])]
    if doc["copy_ceiling"]:
        named.append(("ceiling_copy", doc["copy_ceiling"], doc["copy_ceiling"]["GBps"]))
    named += [(v["variant"], v, v["GBps"]) for v in doc["results"]]
    for name, timing, rate in named:
        out[name] = (rate, rate * timing["median_s"] / timing["min_s"])
    return out


def check_flags(name, doc, text, ranks):
    if doc["parameters"]["ranks"] != ranks:
        failures.append(f"{name}: the JSON records {doc['parameters']['ranks']} ranks")
    if doc["rank_clock"] != "node steady clock":
        failures.append(f"{name}: ranks on one node timed on {doc['rank_clock']!r}")
    if doc["oversubscribed"] is not True:
        failures.append(f"{name}: {ranks} ranks x 1 thread on {cpus} CPUs: oversubscribed is {doc['oversubscribed']!r}")
    expected = f"{ranks} ranks x 1 thread on {cpus} CPU{'s' if cpus > 1 else ''} of node "
    if not doc["oversubscription"].startswith(expected):
        failures.append(f"{name}: oversubscription {doc['oversubscription']!r} does not start with {expected!r}")
    lines = text.splitlines()
    warned = [k for k, line in enumerate(lines) if re.match(r"^warning: oversubscribed: ", line)]
    fom = [k for k, line in enumerate(lines) if line.startswith("FOM: ")]
    if len(warned) != 1 or len(fom) != 1 or warned[0] > fom[0]:
        failures.append(f"{name}: no single '^warning: oversubscribed: ' line before the FOM line:\n{text}")
    for v in doc["results"]:
        if len(v["rank_GBps"]) != ranks or not all(r > 0 for r in v["rank_GBps"]):
            failures.append(f"{name} {v['variant']}: rank_GBps {v['rank_GBps']!r}: not one positive rate per rank")


def one_rank(kind, settings, tmp, ones):
    doc, text = run(f"{kind}_one_rank_{len(ones[kind])}", [klmini], cpus, settings, tmp)
    if doc["oversubscribed"] or doc["oversubscription"] != "" or "warning: oversubscribed" in text:
        failures.append(f"{kind}: one rank of {cpus} threads on {cpus} CPUs is called oversubscribed: "
                        f"{doc['oversubscription']!r}")
    ones[kind].append(doc)


def fastest_one_rank(ones):
    """Each row's fastest 1-rank repeat over every 1-rank run; the ceilings are the same probes in
    both decks."""
    best = {}
    for docs in ones.values():
        for doc in docs:
            for name, (_, fastest) in rows(doc).items():
                best[name] = max(best.get(name, 0.0), fastest)
    return best


def over_bound(many, best):
    """(deck, ranks, row, rate, ratio) of every row, its rate the slowest of the row's runs; and
    the (deck, ranks) with a row above the bound."""
    ratios, over = [], set()
    for (kind, ranks), docs in many.items():
        for name in sorted(rows(docs[0])):
            rate = min(rows(doc)[name][0] for doc in docs)
            ratios.append((kind, ranks, name, rate, rate / best[name]))
            if rate / best[name] > MARGIN:
                over.add((kind, ranks))
    return ratios, over


def many_ranks(kind, ranks, tmp, many):
    doc, text = run(f"{kind}_{ranks}_ranks_{len(many.get((kind, ranks), []))}",
                    [mpiexec, numproc_flag, str(ranks), *mpi_flags, klmini], 1, common + DECKS[kind], tmp)
    check_flags(f"{kind} deck, {ranks} ranks", doc, text, ranks)
    many.setdefault((kind, ranks), []).append(doc)


with tempfile.TemporaryDirectory(prefix="klmini_mpi_oversubscribed_") as tmp:
    ones, many = {kind: [] for kind in DECKS}, {}
    for kind, settings in DECKS.items():
        for ranks in RANKS:  # one rank before, between and after the rank counts
            one_rank(kind, common + settings, tmp, ones)
            many_ranks(kind, ranks, tmp, many)
        one_rank(kind, common + settings, tmp, ones)
    ratios, over = over_bound(many, fastest_one_rank(ones))
    # A row above the bound: both runs again, in case the machine was busy. A timing that inflates
    # the aggregate does so on every run; a busy machine's slow 1-rank runs do not last.
    for _ in range(RETRIES):
        if not over:
            break
        for kind, ranks in sorted(over):
            one_rank(kind, common + DECKS[kind], tmp, ones)
            many_ranks(kind, ranks, tmp, many)
        ratios, over = over_bound(many, fastest_one_rank(ones))
    small = ["--set", "tokens=64", "--set", "vocab=256", "--set", "repeats=2"]
    single, single_text = run("one_rank_one_thread", [mpiexec, numproc_flag, "1", *mpi_flags, klmini], 1, small, tmp)

best = fastest_one_rank(ones)
for (kind, ranks), docs in many.items():
    doc = docs[0]
    if set(rows(doc)) - set(best):
        failures.append(f"{kind} deck, {ranks} ranks: rows {sorted(set(rows(doc)) - set(best))} not timed on one rank")
for kind, ranks, name, rate, ratio in ratios:
    print(f"{kind} deck, {ranks:2d} ranks, {name:15s}: {rate:6.1f} GB/s = {ratio:.2f} x one rank's fastest "
          f"{best[name]:.1f} GB/s")
    if not ratio <= MARGIN:
        failures.append(f"{kind} deck, {ranks} ranks' aggregate {name} {rate:.1f} GB/s exceeds {MARGIN} x one "
                        f"rank's fastest {best[name]:.1f} GB/s on the same {cpus} CPUs")
for (kind, ranks), docs in many.items():
    if len(docs) > 1:
        print(f"{kind} deck, {ranks} ranks: run {len(docs)} times, and one rank again as often (a row was above "
              f"the bound)")
if single["oversubscribed"] or "warning: oversubscribed" in single_text:
    failures.append(f"1 rank x 1 thread is called oversubscribed: {single['oversubscription']!r}")
print(f"worst ratio {max(r[4] for r in ratios):.2f} (bound {MARGIN}); load average {os.getloadavg()[0]:.1f}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
