"""Gradient benchmark: dQ, dK, dV at 50 certified digits, against the forward pass.

In the same run, on the same random rational inputs (entries k/100):

* forward: ``derive(spec)["output"].decimals(50)``;
* gradients: ``grad(derive(spec))`` then dQ, dK, dV ``.decimals(50)``, from a fresh
  derivation (so the time includes the forward values the backward pass needs);
* elementwise SymPy differentiation (small sizes only): the loss Σ O expanded as a
  SymPy expression of symbolic Q, K, V, differentiated entry by entry, then evaluated
  at 50 digits.

Target (issue 5): all of dQ, dK, dV at most 3x the forward pass at the same size.

Run: ``python benchmarks/grad.py`` (``--quick`` skips n = 512).
"""

from __future__ import annotations

import argparse
import random
import time
from fractions import Fraction

import sympy

import symattn as sa

DIGITS = 50


def make_spec(n: int, d: int, seed: int = 0) -> sa.Spec:
    rng = random.Random(seed)

    def mat() -> list[list[Fraction]]:
        return [[Fraction(rng.randint(-100, 100), 100) for _ in range(d)] for _ in range(n)]

    return sa.from_dict({"title": "bench", "inputs": {"Q": mat(), "K": mat(), "V": mat()}})


def forward(spec: sa.Spec) -> None:
    sa.derive(spec)["output"].decimals(DIGITS)


def backward(spec: sa.Spec) -> None:
    g = sa.grad(sa.derive(spec))
    for name in ("dQ", "dK", "dV"):
        g[name].decimals(DIGITS)


def sympy_elementwise(spec: sa.Spec) -> None:
    n, d = len(spec.inputs["Q"]), len(spec.inputs["Q"][0])
    syms = {k: sympy.Matrix(n, d, lambda i, j, k=k: sympy.Symbol(f"{k.lower()}_{i}{j}")) for k in ("Q", "K", "V")}
    S = syms["Q"] * syms["K"].T / sympy.sqrt(d)
    E = S.applyfunc(sympy.exp)
    P = sympy.Matrix(n, n, lambda i, j: E[i, j] / sum(E.row(i)))
    L = sum(P * syms["V"])
    values = {s: sympy.Rational(x.numerator, x.denominator) for k in syms
              for s, x in zip(syms[k], [x for r in spec.inputs[k] for x in r])}
    for k in syms:
        for s in syms[k]:
            sympy.diff(L, s).xreplace(values).evalf(DIGITS)


def timed(fn, *args) -> float:  # noqa: ANN001
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="skip n = 512")
    args = ap.parse_args()
    cases = [(2, 2, True), (3, 2, True), (16, 64, False), (128, 64, False)]
    if not args.quick:
        cases.append((512, 64, False))
    print(f"dQ, dK, dV at {DIGITS} certified digits vs the forward pass (times in seconds)\n")
    head = f"{'n':>5} {'d':>4} {'forward':>9} {'dQ,dK,dV':>9} {'ratio':>7} {'sympy diff':>11} {'sympy/ours':>11}"
    print(head)
    print("-" * len(head))
    worst = 0.0
    for n, d, with_sympy in cases:
        spec = make_spec(n, d)
        t_f = timed(forward, spec)
        t_b = timed(backward, spec)
        ratio = t_b / t_f
        if n >= 16:
            worst = max(worst, ratio)
        if with_sympy:
            t_s = timed(sympy_elementwise, spec)
            sp, rs = f"{t_s:11.3f}", f"{t_s / t_b:10.1f}x"
        else:
            sp, rs = f"{'—':>11}", f"{'—':>11}"
        print(f"{n:>5} {d:>4} {t_f:9.3f} {t_b:9.3f} {ratio:6.2f}x {sp} {rs}")
    print(f"\ntarget: dQ, dK, dV at most 3x the forward pass for n >= 16 (worst here: {worst:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
