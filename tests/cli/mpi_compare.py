"""The loss of one deck on 2 and 3 ranks equals the 1-rank loss to 1e-12 relative, each JSON
records its rank count, and the matrices written (the `none` terms, the gradient) are byte-identical.
    python3 mpi_compare.py DIR KIND"""
import filecmp
import json
import math
import sys

directory, kind = sys.argv[1], sys.argv[2]
docs = {n: json.load(open(f"{directory}/{kind}_n{n}.json")) for n in (1, 2, 3)}
one = docs[1]["loss"]
failures = []
for n, doc in docs.items():
    if doc["parameters"]["ranks"] != n:
        failures.append(f"{kind}_n{n}.json records {doc['parameters']['ranks']} ranks")
    loss = doc["loss"]
    if not (isinstance(loss, float) and math.isfinite(loss)):
        failures.append(f"{kind} on {n} ranks: loss {loss!r}")
    elif abs(loss - one) > 1e-12 * abs(one):
        failures.append(f"{kind} on {n} ranks: loss {loss!r} differs from 1 rank {one!r} by {abs(loss - one) / abs(one):.2e}")
    print(f"{kind} on {n} ranks: loss {loss!r}")
written = {"none": "terms", "grad": "grad"}.get(kind)
if written:
    for n in (2, 3):
        if not filecmp.cmp(f"{directory}/{written}_n1.npy", f"{directory}/{written}_n{n}.npy", shallow=False):
            failures.append(f"the {written} matrix written by {n} ranks differs from the 1-rank one")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
