"""LaTeX input benchmark: reading numbers and matrices written in LaTeX (symattn.read.latex_numbers).

In the same run, best of N (interleaved, so that a burst of load on a shared machine hits every
row alike), each row's time and its ratio to the baseline, a 16×16 matrix of decimals written as
a TOML array (read by the text grammar, no LaTeX):

* the same matrix as a ``bmatrix`` of decimals (one shape: the parser runs once);
* a ``bmatrix`` of ``\\frac{p}{q}``, and one of mixed forms (``\\frac``, ``\\sqrt``, ``e^{…}``,
  ``\\ln``, ``\\cdot 10^{…}``, signs);
* the deepest entries the nesting limit lets through (``\\ln(`` and ``\\frac{1}{`` ten deep);
* a file's whole parse budget spent on entries of different shapes;
* latex2sympy2_extended alone on raw LaTeX, without symattn's front-end: a 16×16 ``bmatrix`` of
  decimals, and 10 nested braces (the reason for the front-end and the nesting limit).

Each measured call starts with the parser's cache of shapes empty. A last table gives the cost
of the first LaTeX in a fresh process (importing latex2sympy2_extended and its ANTLR tables)
beside ``python -c "import sympy"``.

Run: ``python benchmarks/latex_input.py`` (``--runs N`` for another best-of).
"""

from __future__ import annotations

import argparse
import functools
import random
import subprocess
import sys
import time
from typing import Callable

import sympy

from symattn.read import latex_numbers
from symattn.read.latex_numbers import ParseBudget, parse_latex
from symattn.read.numbers import exact_number


def _bmatrix(cells: list[str], n: int = 16) -> str:
    rows = [" & ".join(cells[i * n:(i + 1) * n]) for i in range(n)]
    return r"\begin{bmatrix}" + r" \\ ".join(rows) + r"\end{bmatrix}"


def cases() -> dict[str, Callable[[], object]]:
    rng = random.Random(0)
    decimals = [f"0.{rng.randint(0, 99999):05d}" for _ in range(256)]
    fracs = [rf"\frac{{{rng.randint(1, 99)}}}{{{rng.randint(1, 99)}}}" for _ in range(256)]
    forms = [r"-0.5", r"\frac{1}{3}", r"\sqrt{2}", r"e^{-1}", r"2 \cdot 10^{-3}", r"\frac{1}{\sqrt{2}}",
             r"-\frac{3}{4}", r"\ln 2", r"\exp(0.5)"]
    mixed = [rng.choice(forms) for _ in range(256)]
    n = latex_numbers.MAX_LATEX_DEPTH
    deep_ln = r"\ln(1+" * n + "2" + ")" * n
    deep_frac = r"\frac{1}{" * n + "2" + "}" * n
    shapes = [r"(" * (k % n) + r" \cdot ".join(["2"] * (k // n + 1)) + ")" * (k % n) for k in range(256)]
    raw = functools.partial(__import__("latex2sympy2_extended").latex2sympy, normalization_config=None)

    def fresh(f: Callable[[], object]) -> Callable[[], object]:
        def g() -> object:
            latex_numbers._SHAPES.clear()
            return f()
        return g

    def spend_budget() -> object:
        try:
            return parse_latex(_bmatrix(shapes))
        except Exception as e:  # the budget runs out part of the way: that is the point
            return e

    def raw_parse(text: str) -> Callable[[], object]:
        def g() -> object:
            with sympy.evaluate(False):
                return raw(text)
        return g

    return {
        "baseline: 16x16 decimals as TOML text": lambda: sympy.Matrix(16, 16, [exact_number(c) for c in decimals]),
        "16x16 bmatrix of decimals": fresh(lambda: parse_latex(_bmatrix(decimals))),
        r"16x16 bmatrix of \frac{p}{q}": fresh(lambda: parse_latex(_bmatrix(fracs))),
        "16x16 bmatrix of mixed forms": fresh(lambda: parse_latex(_bmatrix(mixed))),
        rf"\ln(1+ nested {n} deep (the limit)": fresh(lambda: parse_latex(deep_ln)),
        rf"\frac{{1}}{{ nested {n} deep (the limit)": fresh(lambda: parse_latex(deep_frac)),
        "a file's parse budget, different shapes": fresh(spend_budget),
        "latex2sympy2_extended alone: 16x16 decimals": raw_parse(_bmatrix(decimals)),
        "latex2sympy2_extended alone: 10 nested {}": raw_parse("{" * 10 + "1" + "}" * 10),
    }


def first_latex(runs: int) -> None:
    """The first LaTeX in a fresh process against importing SymPy alone."""
    rows = {
        'python -c "import sympy"': "import sympy",
        "import symattn.read.latex_numbers": "import symattn.read.latex_numbers",
        r"... and parse_latex(r'\frac{1}{2}')": "from symattn.read.latex_numbers import parse_latex; "
                                                  r"parse_latex(r'\frac{1}{2}')",
    }
    best = {k: float("inf") for k in rows}
    for _ in range(runs + 1):
        for k, code in rows.items():
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            best[k] = min(best[k], time.perf_counter() - t)
    base = best['python -c "import sympy"']
    width = max(map(len, rows))
    print(f"\nthe first LaTeX in a fresh process, best of {runs}\n")
    print(f"{'command':<{width}} {'wall s':>8} {'ratio':>7}")
    print("-" * (width + 17))
    for k, t in best.items():
        print(f"{k:<{width}} {t:8.3f} {t / base:6.2f}x")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="best of this many runs (default 5)")
    args = ap.parse_args()
    parse_latex("1")  # load the parser once: the per-process cost is the last table
    table = cases()
    for f in table.values():  # warm up
        f()
    best = {k: float("inf") for k in table}
    for _ in range(args.runs):
        for k, f in table.items():
            t = time.perf_counter()
            f()
            best[k] = min(best[k], time.perf_counter() - t)
    base = best["baseline: 16x16 decimals as TOML text"]
    width = max(map(len, table))
    print(f"LaTeX input, best of {args.runs} (ratio to the baseline in the same run; the parser's cache of "
          f"shapes emptied before each call; budget {ParseBudget().limit} tokens)\n")
    print(f"{'case':<{width}} {'ms':>9} {'ratio':>8}")
    print("-" * (width + 19))
    for k, t in best.items():
        print(f"{k:<{width}} {t * 1000:9.1f} {t / base:7.1f}x")
    first_latex(args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
