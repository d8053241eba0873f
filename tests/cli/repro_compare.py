"""The loss is bitwise the same for any decomposition on the hosts: one deck on 1, 2 and 3 MPI
ranks, 1 and 2 OpenMP threads, the serial and openmp backends; the `loss:` lines must match byte
for byte (and each variant's loss in the JSON), every run must pass verification, and the JSON
and the report must state that class.
    python3 repro_compare.py KLMINI DECK MPIEXEC NUMPROC_FLAG [MPI_FLAGS...]"""
import json
import math
import os
import subprocess
import sys
import tempfile

klmini, deck, mpiexec, numproc = sys.argv[1:5]
mpi_flags = sys.argv[5:]
workdir = tempfile.TemporaryDirectory(prefix="klmini-repro-")  # the JSON files, removed at exit
# 517 rows: no even split among 2 or 3 ranks, and enough rows that fp64 sums in another order
# differ in the last bits. vocab 1001: rows start at every alignment.
base = [deck, "--set", "tokens=517", "--set", "warmup=0", "--set", "repeats=2"]
kinds = {
    "fast": [],
    "exact": ["--set", "precision=exact"],
    "none": ["--set", "reduction=none"],
    "grad": ["--set", "gradient=true", "--set", "variant=fused"],
    "bf16_log_target": ["--set", "dtype=bf16", "--set", "log_target=true"],
}
# (name, ranks, threads, backend)
runs = [("serial_t1", 1, 1, "serial"), ("openmp_t1", 1, 1, "openmp"), ("openmp_t2", 1, 2, "openmp"),
        ("openmp_n2", 2, 1, "openmp"), ("openmp_n3", 3, 1, "openmp"), ("serial_n3", 3, 1, "serial"),
        ("openmp_n2_t2", 2, 2, "openmp")]
failures = []
for kind, extra in kinds.items():
    lines, losses = {}, {}
    for name, ranks, threads, backend in runs:
        path = os.path.join(workdir.name, f"{kind}_{name}.json")
        args = [klmini, *base, *extra, "--set", f"backend={backend}", "--json", path]
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
        if doc["parameters"]["ranks"] != ranks or not math.isfinite(doc["loss"]):
            failures.append(f"{kind} {name}: ranks {doc['parameters']['ranks']}, loss {doc['loss']!r}")
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
