"""Entry rules: how one entry of a step is written in terms of its operands' entries.

A rule takes a lookup ``at(key, *index)`` (an operand's entry as an expression: a printed
number for a numeric example, a named entry such as p_{a,b} for a symbolic one) and the
entry's index, and returns a :class:`~symattn.pipeline.steps.Worked` chain of
unevaluated SymPy expressions, in the order a textbook writes them. The step functions
of the forward and backward passes (and of any variant) compose these.

>>> import sympy
>>> at = lambda key, i, j: sympy.Symbol(f"{key.lower()}{i}{j}")
>>> e = product("A", "B", 2)(at, 0, 1).chain[0]
>>> e.args    # unevaluated, in the order written
(a00*b01, a01*b11)
>>> scale("S", divisor=sympy.sqrt(2))(at, 0, 0).chain[0].args[0]
s00
"""

from __future__ import annotations

from typing import Callable, Sequence

import sympy

from .notation import Masked, Sigmoid
from .steps import Lookup, Rule, Worked

__all__ = ["times", "plus", "over", "product", "scale", "add", "softmax", "copy", "pieces", "total",
           "given", "constant"]

NEG_INF = sympy.S.NegativeInfinity


def times(*factors: sympy.Basic) -> sympy.Basic:
    """A product kept in the order written."""
    fs = [f for f in factors if f is not None]
    return fs[0] if len(fs) == 1 else sympy.Mul(*fs, evaluate=False)


def plus(*terms: sympy.Basic) -> sympy.Basic:
    """A sum kept in the order written."""
    ts = [t for t in terms if t is not None]
    if not ts:
        return sympy.Integer(0)
    return ts[0] if len(ts) == 1 else sympy.Add(*ts, evaluate=False)


def minus(a: sympy.Basic, b: sympy.Basic) -> sympy.Basic:
    """a − b, kept as written."""
    return plus(a, times(sympy.Integer(-1), b))


def over(num: sympy.Basic, den: sympy.Basic) -> sympy.Basic:
    """num / den, kept as written."""
    return sympy.Mul(num, sympy.Pow(den, -1, evaluate=False), evaluate=False)


def product(a: str, b: str, inner: int, bias: str | None = None, bias_index: Callable[[int, int], tuple] | None = None,
            factor: sympy.Basic | None = None) -> Rule:
    """Entry (i, j) of A·B (+ a bias entry) (times a factor): Σ_t a_it b_tj."""
    def rule(at: Lookup, i: int, j: int) -> Worked:
        terms = [times(at(a, i, t), at(b, t, j)) for t in range(inner)]
        if bias is not None:
            terms.append(at(bias, *(bias_index(i, j) if bias_index else (0, j))))
        body = plus(*terms)
        return Worked([times(factor, body) if factor is not None else body])
    return rule


def scale(a: str, factor: sympy.Basic | None = None, divisor: sympy.Basic | None = None) -> Rule:
    """Entry (i, j) of τ·A, or of A/d."""
    def rule(at: Lookup, i: int, j: int) -> Worked:
        x = at(a, i, j)
        if x == NEG_INF:
            return Worked([Masked()], "masked")
        if divisor is not None:
            return Worked([over(x, divisor)])
        if factor is None or factor == 1:
            return Worked([x])
        return Worked([times(x, factor)])
    return rule


def add(keys: Sequence[str], masked: Callable[[int, int], object]) -> Rule:
    """Entry (i, j) of a sum of matrices (scaled scores + bias), or the mask's value when
    ``masked(i, j)`` gives one (−∞, or the finite value that replaces the score)."""
    def rule(at: Lookup, i: int, j: int) -> Worked:
        m = masked(i, j)
        if m is not None:
            return Worked([Masked() if m == NEG_INF else m], "masked")
        parts = [at(k, i, j) for k in keys]
        if any(p == NEG_INF for p in parts):
            return Worked([Masked()], "masked")
        return Worked([plus(*parts)])
    return rule


def softmax(x: str, over_queries: bool = False, kind: str = "softmax", row: Callable[[int], int] = lambda i: i,
            length: int = 0) -> Rule:
    """Entry (i, j) of the softmax (or the division by the sum) of ``x`` over its row (over
    its column with ``over_queries``); ``row`` maps the shown row to the row of ``x`` (a
    focus query), ``length`` is the number of entries normalised together. With two
    unmasked entries the sigmoid form follows: e^a/(e^a + e^b) = σ(a − b)."""
    def rule(at: Lookup, i: int, j: int) -> Worked:
        r = row(i)
        line = [(l, j) for l in range(length)] if over_queries else [(r, l) for l in range(length)]
        me = (r, j)
        vals = {ix: at(x, *ix) for ix in line}
        if vals[me] == NEG_INF:
            return Worked([sympy.Integer(0)], "masked")
        live = [ix for ix in line if vals[ix] != NEG_INF]
        if kind == "sum":
            return Worked([over(vals[me], plus(*[vals[ix] for ix in live]))])
        chain = [over(sympy.exp(vals[me]), plus(*[sympy.exp(vals[ix]) for ix in live]))]
        if len(live) == 2:
            other = live[0] if live[1] == me else live[1]
            chain.append(Sigmoid(sympy.Add(vals[me], times(sympy.Integer(-1), vals[other]), evaluate=False)))
        return Worked(chain)
    return rule


def copy(a: str, shift: Callable[[int, int], tuple]) -> Rule:
    """Entry (i, j) is an entry of ``a`` (a slice: one head's columns)."""
    def rule(at: Lookup, i: int, j: int) -> Worked:
        return Worked([at(a, *shift(i, j))])
    return rule


def pieces(parts: Sequence[tuple[str, int, int]], along_rows: bool = False) -> Rule:
    """Entry (i, j) of matrices side by side (or stacked): ``parts`` are (key, start, width)."""
    def rule(at: Lookup, i: int, j: int) -> Worked:
        pos = i if along_rows else j
        for key, start, width in parts:
            if start <= pos < start + width:
                return Worked([at(key, i - start, j) if along_rows else at(key, i, j - start)])
        raise IndexError(pos)  # pragma: no cover
    return rule


def total(term: Callable[[Lookup, int, int], sympy.Basic], rows: int, cols: int,
          factor: sympy.Basic | None = None) -> Rule:
    """A scalar: Σ over every (r, c) of ``term(at, r, c)`` (times a factor)."""
    def rule(at: Lookup, *_: int) -> Worked:
        body = plus(*[term(at, r, c) for r in range(rows) for c in range(cols)])
        return Worked([times(factor, body) if factor is not None else body])
    return rule


def given(a: str) -> Rule:
    """The entry as given."""
    def rule(at: Lookup, *idx: int) -> Worked:
        return Worked([at(a, *idx)], "given")
    return rule


def constant(value: sympy.Basic) -> Rule:
    """Every entry is the same constant (dO = 1 for the loss Σ O)."""
    def rule(at: Lookup, *idx: int) -> Worked:
        return Worked([value])
    return rule
