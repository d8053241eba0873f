"""The loss is bitwise the same for any decomposition on the hosts: one deck on 1, 2 and 3 MPI
ranks, 1 and 2 OpenMP threads, the serial and openmp backends and each host launch shape of
`fused`; the `loss:` lines must match byte for byte (and each variant's loss in the JSON), every
run must pass verification, and the JSON and the report must state that class. Besides the
generated deck in several forms, adversarial .npy decks (written here) in both precisions: huge
terms, tiny terms, heavy cancellation, rows of one value, +inf and NaN terms.
    python3 repro_compare.py KLMINI DECK MPIEXEC NUMPROC_FLAG [MPI_FLAGS...]"""
import array
import json
import math
import os
import random
import subprocess
import sys
import tempfile

klmini, deck, mpiexec, numproc = sys.argv[1:5]
mpi_flags = sys.argv[5:]
workdir = tempfile.TemporaryDirectory(prefix="klmini-repro-")  # the JSON files, removed at exit
# 257 rows: no even split among 2 or 3 ranks, and enough rows that fp64 sums in another order
# differ in the last bits. vocab 2101: rows start at every alignment, and a row is more than one
# segment of the host's segments_2048 shape.
base = [deck, "--set", "tokens=257", "--set", "vocab=2101", "--set", "warmup=0", "--set", "repeats=2"]
kinds = {
    "fast": [],
    "exact": ["--set", "precision=exact"],
    "none": ["--set", "reduction=none"],
    "grad": ["--set", "gradient=true", "--set", "variant=fused"],
    "bf16_log_target": ["--set", "dtype=bf16", "--set", "log_target=true"],
}


def write_npy(path, rows, columns, values):
    """A little-endian fp32 .npy file of rows x columns from a flat list (no numpy needed)."""
    header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': ({rows}, {columns}), }}"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"  # data 64-byte aligned
    data = array.array("f", values)
    if sys.byteorder != "little":
        data.byteswap()
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + data.tobytes())


# Adversarial decks: (name, t(row, column), lp(row, column)), 131 x 2101, as the generated deck. Each term below fp32's overflow, so `fast` is finite.
ADV_ROWS, ADV_COLUMNS = 131, 2101
rng = random.Random(20261207)
noise = [rng.random() for _ in range(ADV_ROWS * ADV_COLUMNS)]
u = lambda i, j: noise[i * ADV_COLUMNS + j]


def cancelling_sign(i, j):
    if j == ADV_COLUMNS - 1:
        return 0
    if i == ADV_ROWS - 1:
        return 1 if j % 2 else -1
    return (1 if j < 1300 else -1) * (1 if i % 2 else -1)


adversarial = {
    # terms of 1e36 to 3e38 (row sums near 1e41, past fp32's range)
    "huge": (lambda i, j: 1.0, lambda i, j: -(1e36 + 3e38 * u(i, j))),
    # terms near 1e-25 and 1e-5 mixed: the tiny ones vanish in an fp64 sum of the large ones
    "tiny": (lambda i, j: 1e-27 if (i + j) % 3 else 1e-7, lambda i, j: -30.0 * u(i, j)),
    # terms of +-1e38: each row but the last sums to +-5e40, the rows cancel in pairs, and the
    # last row's terms alternate in sign before one term below 1 (the loss)
    "cancel": (lambda i, j: 1.0, lambda i, j: -u(i, j) - cancelling_sign(i, j) * 1e38),
    # every row the same single value: t = 1/vocab, lp = log(t) - 0.5
    "one_value": (lambda i, j: 1.0 / ADV_COLUMNS, lambda i, j: math.log(1.0 / ADV_COLUMNS) - 0.5),
    # one lp = -inf under a positive target in row 77: the loss is +inf
    "plus_inf": (lambda i, j: 1.0 / ADV_COLUMNS, lambda i, j: -math.inf if (i, j) == (77, 1500) else -7.0 * u(i, j)),
    # one NaN target in row 100: the loss is NaN
    "nan": (lambda i, j: math.nan if (i, j) == (100, 3) else u(i, j) / ADV_COLUMNS, lambda i, j: -7.0 * u(i, j)),
}
decks = {}
for name, (t, lp) in adversarial.items():
    for array_name, f in (("t", t), ("lp", lp)):
        write_npy(os.path.join(workdir.name, f"{name}_{array_name}.npy"), ADV_ROWS, ADV_COLUMNS,
                  [f(i, j) for i in range(ADV_ROWS) for j in range(ADV_COLUMNS)])
    deck_path = os.path.join(workdir.name, f"{name}.toml")
    with open(deck_path, "w") as f:
        f.write(f'tokens = {ADV_ROWS}\nvocab = {ADV_COLUMNS}\ninput = "npy"\nlog_probs = "{name}_lp.npy"\n'
                f'targets = "{name}_t.npy"\nvariant = "all"\nwarmup = 0\nrepeats = 2\n')
    for precision in ("fast", "exact"):
        decks[f"{name}_{precision}"] = [deck_path, "--set", f"precision={precision}"]
expected_loss = {"plus_inf_fast": "loss: inf", "plus_inf_exact": "loss: inf", "nan_fast": "loss: nan",
                 "nan_exact": "loss: nan"}
cases = [(kind, [*base, *extra]) for kind, extra in kinds.items()] + list(decks.items())

# (name, ranks, threads, backend, fused's launch shape)
runs = [("serial_t1", 1, 1, "serial", "auto"), ("openmp_t1", 1, 1, "openmp", "auto"),
        ("openmp_t2", 1, 2, "openmp", "auto"), ("openmp_n2", 2, 1, "openmp", "auto"),
        ("openmp_n3", 3, 1, "openmp", "auto"), ("serial_n3", 3, 1, "serial", "auto"),
        ("openmp_n2_t2", 2, 2, "openmp", "auto"), ("openmp_rows", 1, 2, "openmp", "rows"),
        ("openmp_seg2048", 1, 2, "openmp", "segments_2048"), ("serial_seg2048", 1, 1, "serial", "segments_2048")]
failures = []
for kind, deck_args in cases:
    lines, losses = {}, {}
    for name, ranks, threads, backend, shape in runs:
        path = os.path.join(workdir.name, f"{kind}_{name}.json")
        args = [klmini, *deck_args, "--set", f"backend={backend}", "--set", f"shape={shape}", "--json", path]
        command = [mpiexec, numproc, str(ranks), *mpi_flags, *args] if ranks > 1 else args
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="false")
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        out = done.stdout
        loss_lines = [l for l in out.splitlines() if l.startswith("loss:")]
        repro = [l for l in out.splitlines() if l.startswith("reproducibility:")]
        if done.returncode != 0 or len(loss_lines) != 1 or "Verification: PASSED" not in out:
            failures.append(f"{kind} {name}: exit {done.returncode}, {loss_lines}\n{out}{done.stderr}")
            continue
        with open(path) as f:
            doc = json.load(f)
        rep = doc["loss_reproducibility"]
        if not (rep["across_decompositions"] and rep["same_on"] == ["openmp", "serial"]):
            failures.append(f"{kind} {name}: loss_reproducibility {rep}")
        if repro != ["reproducibility: " + rep["text"]] or f"on {backend} " not in rep["text"]:
            failures.append(f"{kind} {name}: reproducibility line {repro}")
        finite = kind not in expected_loss
        if doc["parameters"]["ranks"] != ranks or finite != (doc["loss"] is not None and math.isfinite(doc["loss"])):
            failures.append(f"{kind} {name}: ranks {doc['parameters']['ranks']}, loss {doc['loss']!r}")
        if not finite and loss_lines[0] != expected_loss[kind]:
            failures.append(f"{kind} {name}: {loss_lines[0]!r}, expected {expected_loss[kind]!r}")
        lines[name] = loss_lines[0]
        # Each variant's loss but the fp64 baselines' (flat, kokkos_kernels: not reproducible).
        baselines = ("flat", "kokkos_kernels")
        losses[name] = {v["variant"]: v["loss"] for v in doc["results"] if v["variant"] not in baselines}
    if not lines:
        continue
    first = next(iter(lines))
    for name, line in lines.items():
        print(f"{kind:16} {name:14} {line}  {losses[name]}")
        if line != lines[first]:
            failures.append(f"{kind}: {name} printed {line!r}, {first} {lines[first]!r}")
        if losses[name] != losses[first]:
            failures.append(f"{kind}: {name}'s variants {losses[name]}, {first}'s {losses[first]}")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
