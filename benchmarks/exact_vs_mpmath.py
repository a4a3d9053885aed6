"""Every certified digit of random valid worked examples against an independent mpmath attention.

    python benchmarks/exact_vs_mpmath.py [--specs 500] [--seed 0] [--digits 30]

Each spec (2–6 tokens, widths 1–4, layouts row/torch/column, scales, temperatures, causal,
bottom-right and boolean masks, biases with -inf, finite mask values such as -1e9, heads with
and without W_O, cross-attention, focus queries, softmax over queries) is derived by symattn,
and every printed value of every step, at ``--digits`` significant digits, must equal the
mpmath value (``tests/mp_attention.py``, computed at digits + 50 and digits + 80) correctly
rounded, half away from zero: not close, equal. Prints a table by feature and exits 1 when
any digit is wrong. The test suite runs the same check on 100 specs (Hypothesis).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import symattn as sa  # noqa: E402
from mp_attention import RandomDraw, check_one, random_spec  # noqa: E402


def features(spec: dict) -> list[str]:
    conv, inputs = spec["convention"], spec["inputs"]
    out = [f"layout {conv['layout']}"]
    out.append("from X" if "X" in inputs else ("from scores" if "scores" in inputs else "from Q, K, V"))
    mask = conv.get("mask", "none")
    out.append(f"mask {'matrix' if isinstance(mask, list) else mask}")
    if "bias" in conv:
        out.append("bias")
    if conv.get("mask_value") not in (None, "-inf"):
        out.append(f"mask_value {conv['mask_value']}")
    if conv.get("heads", 1) > 1:
        out.append("heads 2" + (" + W_O" if "Wo" in inputs else ""))
    parsed = sa.from_dict(spec)
    if "X_kv" in inputs or parsed.n_queries != parsed.n_keys:
        out.append("cross-attention")
    if "query" in conv:
        out.append("focus query")
    if conv.get("softmax_axis") == "queries":
        out.append("softmax over queries")
    if conv.get("masked_rows") == "zero":
        out.append("fully masked rows (zero)")
    if conv.get("scale") != "1/sqrt(d_k)":
        out.append(f"scale {conv.get('scale')}")
    if "temperature" in conv:
        out.append("temperature")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--specs", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--digits", type=int, default=30)
    args = ap.parse_args()
    start = time.perf_counter()
    specs = values = wrong_specs = 0
    by_feature: Counter[str] = Counter()
    wrong_by_feature: Counter[str] = Counter()
    problems = []
    for seed in range(args.seed, args.seed + args.specs):
        spec = random_spec(RandomDraw(seed))
        n, bad = check_one(spec, lambda s: sa.derive(sa.from_dict(s)), args.digits)
        specs += 1
        values += n
        for f in features(spec):
            by_feature[f] += 1
            if bad:
                wrong_by_feature[f] += 1
        if bad:
            wrong_specs += 1
            problems.append((seed, bad[:3]))
    elapsed = time.perf_counter() - start
    print(f"{'feature':<32} {'specs':>6} {'wrong':>6}")
    print("-" * 46)
    for f, n in sorted(by_feature.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{f:<32} {n:>6} {wrong_by_feature[f]:>6}")
    print("-" * 46)
    print(f"{specs} specs, {values} printed values at {args.digits} digits, {wrong_specs} specs with a wrong digit, "
          f"{elapsed:.1f} s")
    for seed, bad in problems[:10]:
        print(f"  seed {seed}: {'; '.join(bad)}")
    return 1 if wrong_specs else 0


if __name__ == "__main__":
    raise SystemExit(main())
