"""Exact zero decisions for closed forms in exponentials.

A closed form of attention is a rational function of exponentials. Each exponential
is written as a product of powers of atoms, and the atoms are treated as independent
symbols: when the rational function then cancels to 0, the expression is 0 for every
value of the atoms, so the answer "zero" is always sound. (By Lindemann–Weierstrass,
for algebraic exponents whose parts are linearly independent over the rationals the
atoms really are algebraically independent, and "not zero" is exact too.)

The decision is made in the exact field of :mod:`symattn.exact.field` (sparse
polynomials of python-flint, no gcd), so that an exponent such as 61336764813/20000000
is a monomial of that degree, not a dense polynomial. Only an expression that field
cannot hold (a function of a symbol, say) goes to SymPy's ``cancel``, and then only with
exponents of a bounded degree.

>>> import sympy
>>> is_zero(sympy.exp(2) / (1 + sympy.exp(2)) + 1 / (1 + sympy.exp(2)) - 1)
True
"""

from __future__ import annotations

import sympy

from .field import Field, Unsupported

__all__ = ["is_zero"]

#: the largest power of an atom SymPy's ``cancel`` is given (its dense gcd takes time and memory
#: with the degree, and crashes the process past about 10^9)
_CANCEL_MAX_DEGREE = 64


def is_zero(expr: sympy.Expr) -> bool:
    """Whether an expression in exponentials is identically zero.

    Each exponential is written as a product of powers of base atoms, one per term of
    its (expanded) argument, e^{2a + b/3} = A^6 B with A = e^{a/3}, B = e^{b/3}; the bases
    (and the symbols) are then independent, and the rational function is decided exactly.
    Zero here means zero for every value of the exponents.

    >>> a, b = sympy.symbols("a b", real=True)
    >>> is_zero(sympy.exp(2 * a) * sympy.exp(b) - sympy.exp(a) ** 2 * sympy.exp(b)), is_zero(sympy.exp(a) - 1)
    (True, False)
    >>> w = sympy.exp(sympy.Rational(61336764813, 20000000) + sympy.sqrt(2) / 3)
    >>> is_zero(w / (1 + w) - 1 + 1 / (1 + w)), is_zero(sympy.sin(a) ** 2 + sympy.cos(a) ** 2 - 1)
    (True, False)
    """
    try:
        field = Field([expr], {}, free=True)
        return field.is_zero(field.value(expr))
    except Unsupported:
        return _cancel_is_zero(expr)


def _cancel_is_zero(expr: sympy.Expr) -> bool:
    """The same decision by SymPy's ``cancel``, for what the exact field cannot hold; False
    (not proved) when an atom would be raised past :data:`_CANCEL_MAX_DEGREE`."""
    pairs: list[tuple[sympy.Expr, sympy.Rational]] = []
    exps = expr.atoms(sympy.exp)
    for e in exps:
        for t in sympy.Add.make_args(sympy.expand(e.args[0])):
            c, rest = t.as_coeff_Mul()
            pairs.append((rest, c) if c.is_Rational else (t, sympy.Integer(1)))
    denom: dict[sympy.Expr, int] = {}
    for rest, c in pairs:
        denom[rest] = int(sympy.ilcm(denom.get(rest, 1), c.q))
    if any(abs(c * denom[rest]) > _CANCEL_MAX_DEGREE for rest, c in pairs):
        return False
    base = {rest: sympy.Dummy(f"E{k}") for k, rest in enumerate(sorted(denom, key=sympy.default_sort_key))}

    def power(e: sympy.exp) -> sympy.Expr:
        out = sympy.Integer(1)
        for t in sympy.Add.make_args(sympy.expand(e.args[0])):
            c, rest = t.as_coeff_Mul()
            if not c.is_Rational:
                c, rest = sympy.Integer(1), t
            out *= base[rest] ** int(c * denom[rest])
        return out

    return sympy.cancel(sympy.together(expr.xreplace({e: power(e) for e in exps}))) == 0
