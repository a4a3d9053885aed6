"""Forward-pass benchmark: all output rows at 50 certified digits.

Compares, in the same run and on the same random rational inputs (entries k/100):

* symattn: ``derive(spec)["output"].decimals(50)`` from a validated spec;
* plain SymPy: Matrix products, ``applyfunc(exp)``, row sums, ``evalf(50)``;
* bare python-flint: ``fmpq_mat`` products, then ``arb_mat`` at a fixed working
  precision, element-wise ``exp``, row sums, ``arb_mat`` product, ``str(50)``
  (no certification of the rounding, no closed forms).

Targets (issue 2): at n = 32, d = 8, symattn at least 100x faster than plain
SymPy; at n = 512, d = 64, within 3x of bare python-flint.

Run: ``python benchmarks/forward.py`` (add ``--quick`` to skip n = 512).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from decimal import Decimal
from fractions import Fraction

import sympy
from flint import arb, arb_mat, ctx, fmpq, fmpq_mat

import symattn as sa

DIGITS = 50


def make_inputs(n: int, d: int, seed: int = 0) -> dict[str, list[list[Fraction]]]:
    rng = random.Random(seed)

    def mat() -> list[list[Fraction]]:
        return [[Fraction(rng.randint(-100, 100), 100) for _ in range(d)] for _ in range(n)]

    return {"Q": mat(), "K": mat(), "V": mat()}


def run_symattn(inputs: dict, d: int) -> list[list[str]]:
    spec = sa.from_dict({"title": "bench", "inputs": inputs})
    return sa.derive(spec)["output"].decimals(DIGITS)


def run_sympy(inputs: dict, d: int) -> list[list[str]]:
    Q, K, V = (sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in r] for r in inputs[k]])
               for k in ("Q", "K", "V"))
    S = (Q * K.T) / sympy.sqrt(d)
    E = S.applyfunc(sympy.exp)
    P = sympy.Matrix(E.rows, E.cols, lambda i, j: E[i, j] / sum(E.row(i)))
    O = P * V
    return [[str(O[i, j].evalf(DIGITS)) for j in range(O.cols)] for i in range(O.rows)]


def run_flint(inputs: dict, d: int) -> list[list[str]]:
    Q, K, V = (fmpq_mat([[fmpq(x.numerator, x.denominator) for x in r] for r in inputs[k]])
               for k in ("Q", "K", "V"))
    old = ctx.prec
    ctx.prec = int(DIGITS * 3.33) + 64
    try:
        S = (arb_mat(Q * K.transpose()) * arb(d).rsqrt()).tolist()
        rows = []
        for r in S:
            ex = [x.exp() for x in r]
            inv = 1 / sum(ex[1:], ex[0])
            rows.append([e * inv for e in ex])
        O = arb_mat(rows) * arb_mat(V)
        return [[x.str(DIGITS, radius=False) for x in r] for r in O.tolist()]
    finally:
        ctx.prec = old


def timed(fn, *args) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t, out


def agree(a: list[list[str]], b: list[list[str]]) -> bool:
    """Same values to within 2 units in the 48th significant digit."""
    for ra, rb in zip(a, b):
        for x, y in zip(ra, rb):
            dx, dy = Decimal(x.replace("-0e", "0e")), Decimal(y.split(" ")[0].strip("[]"))
            if abs(dx - dy) > abs(dx) * Decimal(10) ** -(DIGITS - 3) + Decimal(10) ** -60:
                return False
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="skip n = 512")
    args = ap.parse_args()
    cases = [(3, 8, True), (16, 8, True), (32, 8, True), (3, 64, True), (16, 64, True), (32, 64, False),
             (128, 64, False)]
    if not args.quick:
        cases.append((512, 64, False))
    print(f"forward pass, all output rows at {DIGITS} certified digits (times in seconds)\n")
    header = f"{'n':>5} {'d':>4} {'symattn':>9} {'sympy':>9} {'flint':>9} {'sympy/symattn':>14} {'symattn/flint':>14}"
    print(header)
    print("-" * len(header))
    ok = True
    for n, d, with_sympy in cases:
        inputs = make_inputs(n, d)
        t_fl, out_fl = timed(run_flint, inputs, d)
        t_sa, out_sa = timed(run_symattn, inputs, d)
        if not agree(out_sa, out_fl):  # type: ignore[arg-type]
            print(f"MISMATCH at n={n}, d={d}", file=sys.stderr)
            ok = False
        if with_sympy:
            t_sp, out_sp = timed(run_sympy, inputs, d)
            if not agree(out_sa, out_sp):  # type: ignore[arg-type]
                print(f"MISMATCH with SymPy at n={n}, d={d}", file=sys.stderr)
                ok = False
            sp, ratio_sp = f"{t_sp:9.3f}", f"{t_sp / t_sa:13.1f}x"
        else:
            sp, ratio_sp = f"{'—':>9}", f"{'—':>14}"
        print(f"{n:>5} {d:>4} {t_sa:9.3f} {sp} {t_fl:9.3f} {ratio_sp} {t_sa / t_fl:13.2f}x")
    print("\ntargets: n=32, d=8: sympy/symattn >= 100x; n=512, d=64: symattn/flint <= 3x")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
