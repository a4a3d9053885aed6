"""Speed of the certified reference against float attention, measured in one run.

For each size, one head of random normal float32 inputs:

- NumPy float64 attention (softmax(q·kᵀ·τ)·v, the usual "reference"), and its backward;
- PyTorch float64 SDPA (math backend on the CPU) and autograd, when torch is installed;
- symattn's certified reference: O and LSE correctly rounded to float32 (and dQ, dK, dV for a
  random dO), with the number of entries that needed ball arithmetic.

Ratios are against NumPy float64 in the same run, so they mean something on a busy machine;
the load average is printed before and after. Targets (issue 14): forward 4096×128 within 10 s
and 15× NumPy float64; backward 4096×128 within 3× the forward.

    python benchmarks/reference.py                 # 1024×64, 4096×128; forward and backward
    python benchmarks/reference.py --quick         # 256×64 and 1024×64
    python benchmarks/reference.py --workers 2 --sizes 4096x128 --dtype bfloat16
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import symattn as sa  # noqa: E402


def numpy_forward(q, k, v, tau):
    s = q @ k.T * tau
    m = s.max(axis=1, keepdims=True)
    p = np.exp(s - m)
    lsum = p.sum(axis=1, keepdims=True)
    return (p / lsum) @ v, (m + np.log(lsum))[:, 0]


def numpy_backward(q, k, v, do, tau):
    s = q @ k.T * tau
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    o = p @ v
    dv = p.T @ do
    dp = do @ v.T
    ds = p * (dp - (do * o).sum(axis=1, keepdims=True))
    return ds @ k * tau, ds.T @ q * tau, dv


def best(f, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=None, help="comma-separated NxD (default 1024x64,4096x128)")
    ap.add_argument("--quick", action="store_true", help="256x64 and 1024x64 only")
    ap.add_argument("--workers", type=int, default=None, help="symattn worker processes (default: all cores)")
    ap.add_argument("--dtype", default="float32", help="output format of the reference (default float32)")
    ap.add_argument("--no-backward", action="store_true")
    args = ap.parse_args()
    sizes = args.sizes or ("256x64,1024x64" if args.quick else "1024x64,4096x128")
    sizes = [tuple(int(x) for x in s.split("x")) for s in sizes.split(",")]
    try:
        import torch
    except ImportError:
        torch = None
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; cores: {os.cpu_count()}; "
          f"symattn workers: {args.workers or 'all cores'}; output {args.dtype}")
    head = (f"{'n':>5} {'d':>4} {'pass':<8} {'numpy f64':>10} {'torch f64':>10} {'symattn':>9} {'/numpy':>8} "
            f"{'/torch':>8} {'ball arith.':>12}")
    print(head)
    print("-" * len(head))
    results = {}
    for n, d in sizes:
        rng = np.random.default_rng(0)
        q, k, v, do = (rng.standard_normal((n, d)).astype(np.float32) for _ in range(4))
        q64, k64, v64, do64 = (a.astype(np.float64) for a in (q, k, v, do))
        tau = float(np.float32(1 / math.sqrt(d)))
        passes = [("forward", None)] + ([] if args.no_backward else [("backward", do)])
        for label, grad in passes:
            rep = 3 if n * n * d < 2 ** 28 else 2
            if grad is None:
                t_np, _ = best(lambda: numpy_forward(q64, k64, v64, tau), rep)
            else:
                t_np, _ = best(lambda: numpy_backward(q64, k64, v64, do64, tau), rep)
            t_torch = None
            if torch is not None:
                tq, tk, tv, tdo = (torch.from_numpy(a) for a in (q64, k64, v64, do64))
                sdpa = torch.nn.functional.scaled_dot_product_attention
                if grad is None:
                    t_torch, _ = best(lambda: sdpa(tq[None], tk[None], tv[None], scale=tau), rep)
                else:
                    def tb():
                        a, b, c = (x.clone().requires_grad_(True) for x in (tq, tk, tv))
                        sdpa(a[None], b[None], c[None], scale=tau).backward(tdo[None])
                    t_torch, _ = best(tb, rep)
            t = time.perf_counter()
            r = sa.reference(q, k, v, grad=grad, dtype=args.dtype, workers=args.workers)
            t_ref = time.perf_counter() - t
            fb = sum(val for key, val in r.stats.items() if key.endswith((".fallback", ".double_float")))
            tot = sum(val for key, val in r.stats.items() if key.endswith(".entries"))
            results[(n, d, label)] = t_ref
            print(f"{n:>5} {d:>4} {label:<8} {t_np:>10.3f} {t_torch if t_torch is not None else float('nan'):>10.3f} "
                  f"{t_ref:>9.2f} {t_ref / t_np:>7.1f}x "
                  f"{(t_ref / t_torch) if t_torch else float('nan'):>7.1f}x {fb:>6}/{tot:<6}", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for n, d in sizes:
        f, b = results.get((n, d, "forward")), results.get((n, d, "backward"))
        if f and b:
            print(f"{n}×{d}: backward / forward = {b / f:.2f}x")


if __name__ == "__main__":
    main()
