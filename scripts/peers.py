#!/usr/bin/env python3
"""Time the peers klmini is compared with, on the same sizes, in the same run.

PyTorch eager and torch.compile `kl_div(lp, t, reduction="batchmean")` on CUDA, fp32, inputs
as in the seed benchmark (lp = log_softmax(randn), t = softmax(randn)), timed with CUDA events
the way klmini times itself (median; before each run a read of a 256 MiB buffer evicts L2 and
keeps the GPU busy while the host enqueues: triton.testing.do_bench's method, with a read
instead of its write, whose dirty lines the timed kernel would pay for), plus a plain `lp.sum() + t.sum()` read of the same bytes and
a device-to-device copy as bandwidth references. --dtype bf16 runs the peers on bf16 inputs
(rounded from the same fp32 data; fp64 reference on the rounded values); --backward times the
loss and its gradient (torch.autograd.grad of the loss with respect to lp) instead of the loss
alone. Liger-Kernel's real kernel is timed when it is installed or when --liger-src names the
`src` folder of a checkout of the public linkedin/Liger-Kernel repository (copied to the GPU
machine for the run, never part of klmini); `triton_rows` is klmini's own Triton kernel of a
similar design (one program per row, a blocked loop over the row, tl.log, per-row sums then a
sum), written for this comparison. torch.compile is compiled once per shape (dynamic=False): a
compile shared across vocab sizes recompiles for dynamic shapes and is slower. For kernel times
without any host timer, run this under Nsight Compute with --reps 5 (the ncu section of
scripts/gpu_benchmark.sh).
Writes one CSV row per (vocab, peer).

    python3 scripts/peers.py --tokens 16384 --vocab 4096,8192 --out peers.csv [--liger-src DIR]
"""
import argparse
import csv
import sys


def time_cuda(torch, fn, warmup=100, reps=500):
    """Median milliseconds of fn() over reps runs, as klmini's KernelTimer on Cuda: before each
    start event the stream reads a 256 MiB buffer (clean L2 eviction, the GPU kept busy while
    the host enqueues fn); every run is queued before the one synchronization."""
    flush = torch.zeros(256 * 1024 * 1024 // 8, dtype=torch.int64, device="cuda")
    for _ in range(warmup):
        fn()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for start, end in events:
        flush.sum()
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    times = sorted(start.elapsed_time(end) for start, end in events)
    return times[len(times) // 2] if len(times) % 2 else 0.5 * (times[len(times) // 2 - 1] + times[len(times) // 2])


def fp64_batchmean(F, lp, t, block_bytes=2 << 30):
    """The fp64 batchmean loss, computed over blocks of rows: the whole matrix in fp64 (two
    16 GiB copies and a 16 GiB result at tokens 16384, vocab 131072) does not fit an 80 GB card
    beside the inputs."""
    rows = max(1, block_bytes // (8 * lp.shape[1]))
    total = 0.0
    for first in range(0, lp.shape[0], rows):
        total += F.kl_div(lp[first:first + rows].double(), t[first:first + rows].double(), reduction="sum").item()
    return total / lp.shape[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokens", type=int, default=16384)
    ap.add_argument("--vocab", default="4096,8192,16384,32768,65536,131072",
                    help="comma-separated vocab sizes")
    ap.add_argument("--out", required=True, help="CSV file to write")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--dtype", choices=["fp32", "bf16", "fp16"], default="fp32", help="input element type")
    ap.add_argument("--backward", action="store_true", help="time loss + gradient with respect to lp")
    ap.add_argument("--liger-src", help="the src folder of a Liger-Kernel checkout (time its kl_div)")
    ap.add_argument("--warmup", type=int, default=100, help="untimed runs per peer and size")
    ap.add_argument("--reps", type=int, default=500, help="timed runs per peer and size (median)")
    ap.add_argument("--cpu-threads", type=int, default=0,
                    help="time PyTorch's CPU kl_div on this many threads instead of the GPU peers")
    args = ap.parse_args()
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:  # the peers need PyTorch and Triton; say so instead of a traceback
        print(f"peers.py: {e}: PyTorch with CUDA and Triton are needed", file=sys.stderr)
        return 2
    if args.cpu_threads > 0:
        return time_cpu(torch, F, args)
    if not torch.cuda.is_available():
        print("peers.py: no CUDA device", file=sys.stderr)
        return 2
    vocabs = [int(v) for v in args.vocab.split(",")]
    import triton
    import triton.language as tl

    @triton.jit
    def kl_rows(lp_ptr, t_ptr, out_ptr, vocab, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, vocab, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            mask = cols < vocab
            t = tl.load(t_ptr + row * vocab + cols, mask=mask, other=0.0)
            lp = tl.load(lp_ptr + row * vocab + cols, mask=mask, other=0.0)
            acc += tl.where(t > 0, t * tl.log(t), 0.0) - t * lp
        tl.store(out_ptr + row, tl.sum(acc, axis=0))

    def triton_rows(lp, t):
        rows = torch.empty(lp.shape[0], device=lp.device, dtype=torch.float32)
        kl_rows[(lp.shape[0],)](lp, t, rows, lp.shape[1], BLOCK=4096, num_warps=16)
        return rows.sum() / lp.shape[0]

    if args.liger_src:
        sys.path.insert(0, args.liger_src)
    try:
        from liger_kernel.ops.kl_div import LigerKLDivLossFunction
        liger = lambda lp, t: LigerKLDivLossFunction.apply(lp, t, "batchmean", False)
    except ImportError as e:
        if args.liger_src:
            print(f"peers.py: --liger-src {args.liger_src}: {e}", file=sys.stderr)
            return 2
        liger = None
    dev = torch.device("cuda")
    eager = lambda lp, t: F.kl_div(lp, t, reduction="batchmean")
    rows = []
    for vocab in vocabs:
        compiled = None if args.no_compile else torch.compile(eager, dynamic=False)
        gen = torch.Generator(device=dev).manual_seed(1234 + vocab)
        dtype = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
        lp = torch.log_softmax(torch.randn(args.tokens, vocab, device=dev, generator=gen), dim=-1).to(dtype)
        t = torch.softmax(torch.randn(args.tokens, vocab, device=dev, generator=gen), dim=-1).to(dtype)
        ref = fp64_batchmean(F, lp, t)
        nbytes = 2 * lp.numel() * lp.element_size()
        peers = [("pytorch_eager", eager), ("triton_rows", triton_rows), ("read_sum", lambda a, b: a.sum() + b.sum())]
        if args.dtype != "fp32" or args.backward:
            peers = [p for p in peers if p[0] != "triton_rows"]  # written for fp32 loss only
        if liger is not None:
            peers.insert(1, ("liger_kernel", liger))
        if compiled is not None:
            peers.insert(1, ("torch_compile", compiled))
        if args.backward:
            lp.requires_grad_(True)
            with_grad = lambda f: (lambda a, b: (lambda loss: (loss, torch.autograd.grad(loss, a)[0]))(f(a, b))[0].detach())
            peers = [(name + "_fwd_bwd", with_grad(fn)) for name, fn in peers if name != "read_sum"]
            nbytes = 2 * lp.numel() * lp.element_size() + lp.numel() * 4  # two reads, one gradient written
        for name, fn in peers:
            value = fn(lp, t).item()
            ms = time_cuda(torch, lambda: fn(lp, t), args.warmup, args.reps)
            rel = abs(value - ref) / abs(ref) if name != "read_sum" else float("nan")
            rows.append(dict(peer=name, dtype=args.dtype, tokens=args.tokens, vocab=vocab, median_s=ms * 1e-3, bytes=nbytes,
                             GBps=nbytes / (ms * 1e-3) / 1e9, relative_error=rel))
            print(f"{name:15s} vocab {vocab:7d}: {ms * 1e3:10.1f} us  {nbytes / (ms * 1e-3) / 1e12:5.2f} TB/s"
                  + (f"  rel.err {rel:.2e}" if name != "read_sum" else ""), flush=True)
        dst = torch.empty_like(lp.detach())
        ms = time_cuda(torch, lambda: dst.copy_(lp.detach()), args.warmup, args.reps)
        copy_bytes = 2 * lp.numel() * lp.element_size()  # read + write
        rows.append(dict(peer="d2d_copy", dtype=args.dtype, tokens=args.tokens, vocab=vocab, median_s=ms * 1e-3, bytes=copy_bytes,
                         GBps=copy_bytes / (ms * 1e-3) / 1e9, relative_error=float("nan")))
        print(f"{'d2d_copy':15s} vocab {vocab:7d}: {ms * 1e3:10.1f} us  {copy_bytes / (ms * 1e-3) / 1e12:5.2f} TB/s", flush=True)
        del lp, t, dst
        torch.cuda.empty_cache()
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    return 0


def time_cpu(torch, F, args) -> int:
    """PyTorch eager kl_div on the host, wall-clock median of 7 runs after 2 warm-ups."""
    import time
    torch.set_num_threads(args.cpu_threads)
    rows = []
    for vocab in [int(v) for v in args.vocab.split(",")]:
        gen = torch.Generator().manual_seed(1234 + vocab)
        lp = torch.log_softmax(torch.randn(args.tokens, vocab, generator=gen), dim=-1)
        t = torch.softmax(torch.randn(args.tokens, vocab, generator=gen), dim=-1)
        ref = fp64_batchmean(F, lp, t)
        times = []
        for i in range(9):
            start = time.perf_counter()
            value = F.kl_div(lp, t, reduction="batchmean").item()
            if i >= 2:
                times.append(time.perf_counter() - start)
        times.sort()
        median = times[len(times) // 2]
        nbytes = 2 * lp.numel() * lp.element_size()
        rows.append(dict(peer="pytorch_cpu", threads=args.cpu_threads, tokens=args.tokens, vocab=vocab, median_s=median,
                         bytes=nbytes, GBps=nbytes / median / 1e9, relative_error=abs(value - ref) / abs(ref)))
        print(f"pytorch_cpu     vocab {vocab:7d}: {median * 1e3:10.2f} ms  {nbytes / median / 1e9:6.1f} GB/s "
              f"on {args.cpu_threads} threads", flush=True)
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
