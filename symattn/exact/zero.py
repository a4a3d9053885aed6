"""Exact zero decisions for closed forms in exponentials.

A closed form of attention is a rational function of exponentials. Each exponential
is written as a product of powers of atoms, and the atoms are treated as independent
symbols: when the rational function then cancels to 0, the expression is 0 for every
value of the atoms, so the answer "zero" is always sound. (By Lindemann–Weierstrass,
for algebraic exponents whose parts are linearly independent over the rationals the
atoms really are algebraically independent, and "not zero" is exact too.)

>>> import sympy
>>> cancel_zero(sympy.exp(2) / (1 + sympy.exp(2)) + 1 / (1 + sympy.exp(2)) - 1)
True
"""

from __future__ import annotations

import sympy

__all__ = ["is_zero", "cancel_zero"]


def is_zero(expr: sympy.Expr) -> bool:
    """Whether an expression in exponentials is identically zero.

    Each exponential is written as a product of powers of base atoms, one per term of
    its (expanded) argument, e^{2a + b/3} = A^6 B with A = e^{a/3}, B = e^{b/3}; the bases
    are then independent symbols, and ``cancel`` decides the rational function. Zero
    here means zero for every value of the exponents.

    >>> a, b = sympy.symbols("a b", real=True)
    >>> is_zero(sympy.exp(2 * a) * sympy.exp(b) - sympy.exp(a) ** 2 * sympy.exp(b)), is_zero(sympy.exp(a) - 1)
    (True, False)
    """
    pairs: list[tuple[sympy.Expr, sympy.Rational]] = []
    exps = expr.atoms(sympy.exp)
    for e in exps:
        for t in sympy.Add.make_args(sympy.expand(e.args[0])):
            c, rest = t.as_coeff_Mul()
            pairs.append((rest, c) if c.is_Rational else (t, sympy.Integer(1)))
    denom: dict[sympy.Expr, int] = {}
    for rest, c in pairs:
        denom[rest] = int(sympy.ilcm(denom.get(rest, 1), c.q))
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


def cancel_zero(expr: sympy.Expr) -> bool:
    """Whether an expression in exponentials cancels to 0. First with every exponential an
    independent atom (fast; zero then is zero), else by :func:`symattn.proofs.is_zero`."""
    atoms = sorted(expr.atoms(sympy.exp), key=sympy.default_sort_key)
    dummies = {a: sympy.Dummy(f"e{k}") for k, a in enumerate(atoms)}
    if sympy.cancel(sympy.together(expr.xreplace(dummies))) == 0:
        return True
    return is_zero(expr)
