"""The cost of RoPE (and ALiBi, sinusoidal encodings) against the same attention without positions.

    python benchmarks/positions.py [--n 512] [--d 64] [--heads 8] [--kv-heads 2] [--digits 50] [--repeat 1]

Each row derives one example (random rational Q, K, V, or X with identity-like projections for the
sinusoidal row) and certifies every output entry to ``--digits`` significant digits; the time
excludes reading the file. The ratio is against the baseline without positions measured in the
same run (timings on a shared machine are noisy; ratios are what to compare). Issue 13's target:
RoPE + GQA (n = 512, d = 64, 8 query heads, 2 key/value heads, 50 digits) within 1.5× of the same
size without RoPE; the defaults are that case (``--kv-heads 8`` for plain multi-head attention).
"""

from __future__ import annotations

import argparse
import random
import time
from fractions import Fraction

import symattn as sa
from symattn.read.spec import from_dict


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--d", type=int, default=64, help="key width per head")
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--digits", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--kv-heads", type=int, default=2, help="key/value heads (grouped-query attention)")
    a = ap.parse_args()
    rng = random.Random(0)
    width = a.d * a.heads

    def mat(r: int, c: int) -> list:
        return [[Fraction(rng.randint(-9, 9), 10) for _ in range(c)] for _ in range(r)]

    kv_width = a.d * a.kv_heads
    q, k, v = mat(a.n, width), mat(a.n, kv_width), mat(a.n, kv_width)
    gqa = {"kv_heads": a.kv_heads} if a.kv_heads != a.heads else {}
    rows = [("none (baseline)", {}), ("rope interleaved", {"positions": "rope"}),
            ("rope half", {"positions": "rope", "rope_style": "half"}), ("alibi", {"alibi": True})]
    for _, conv in rows:  # warm-up: every variant's modules loaded before anything is timed
        small = [r[: 2 * a.d] for r in q[:4]], [r[: 2 * a.d] for r in k[:4]], [r[: 2 * a.d] for r in v[:4]]
        sa.derive(from_dict({"inputs": dict(zip("QKV", small)), "convention": {"heads": 2, **conv}}))["output"].decimals(5)
    base = None
    print(f"n = {a.n}, d_k = {a.d}, {a.heads} query heads, {a.kv_heads} key/value heads, {a.digits} certified "
          "digits of every output entry")
    print(f"{'variant':<20} {'seconds':>9} {'ratio':>7}")
    for name, conv in rows:
        spec = from_dict({"inputs": {"Q": q, "K": k, "V": v}, "convention": {"heads": a.heads, **gqa, **conv}})
        best = float("inf")
        for _ in range(a.repeat):
            t = time.perf_counter()
            sa.derive(spec)["output"].decimals(a.digits)
            best = min(best, time.perf_counter() - t)
        base = base or best
        verdict = "" if "rope" not in name else ("  (target 1.5×: met)" if best / base <= 1.5 else "  (target 1.5×: NOT met)")
        print(f"{name:<20} {best:>9.2f} {best / base:>7.2f}{verdict}")


if __name__ == "__main__":
    main()
