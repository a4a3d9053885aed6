"""Exact reverse-mode differentiation of a SymPy expression at a point, and exact zero tests.

The forward expression of attention (a rational function of exponentials) is a DAG:
SymPy shares equal subexpressions. Instead of expanding it and differentiating each
entry with ``sympy.diff`` (whose cost explodes with the expansion), :meth:`Adjoint.gradient`
evaluates the DAG once at the example's values and sweeps it once backwards (reverse
mode: every partial derivative of one scalar in one pass), in the exact arithmetic of
:class:`symattn.exact.field.Field`:

a reverse sweep that adds and multiplies fractions of polynomials, never taking a gcd. A
difference is *proved* zero when its numerator reduces to the zero polynomial.

>>> import sympy
>>> x, y = sympy.symbols("x y")
>>> f = sympy.exp(x * y) / (1 + sympy.exp(x))
>>> at = {x: sympy.Rational(1, 2), y: sympy.sqrt(2)}
>>> h, e = sympy.Rational(1, 2), sympy.exp(sympy.sqrt(2) / 2)
>>> want = (sympy.sqrt(2) * e * (1 + sympy.exp(h)) - e * sympy.exp(h)) / (1 + sympy.exp(h))**2  # by hand
>>> field = Adjoint([f, want], at)
>>> dfdx = field.gradient(f, [x])[x]
>>> field.is_zero(field.sub(field.value(want), dfdx))
True
>>> field.is_zero(field.sub(field.value(want), field.value(sympy.Integer(1))))
False
"""

from __future__ import annotations

from typing import Sequence

import sympy

from ..exact.field import Field, Unsupported, Value, postorder

__all__ = ["Adjoint", "Unsupported"]


class Adjoint(Field):
    """The exact field of :mod:`symattn.exact.field`, with reverse-mode derivatives."""

    def _depends(self, node: sympy.Basic) -> bool:
        d = self._deps.get(node)
        if d is None:
            for n in postorder([node]):
                if n not in self._deps:
                    self._deps[n] = isinstance(n, sympy.Symbol) or any(self._deps[a] for a in n.args)
            d = self._deps[node]
        return d

    def gradient(self, f: sympy.Expr, wrt: Sequence[sympy.Symbol]) -> dict[sympy.Symbol, Value]:
        """∂f/∂x at the point for every x in ``wrt``, in one reverse sweep over f's DAG."""
        self.value(f)
        order = [n for n in postorder([f]) if self._depends(n)]
        adj: dict[sympy.Basic, list[Value]] = {f: [self.const(1)]}  # contributions, summed when used
        vals = self._values
        for node in reversed(order):
            if isinstance(node, sympy.Symbol):
                continue
            parts = adj.pop(node, None)
            if parts is None:
                continue
            g = self.total(parts)
            if g.num.is_zero():
                continue

            def give(child: sympy.Basic, v: Value) -> None:
                if self._depends(child):
                    adj.setdefault(child, []).append(v)

            if isinstance(node, sympy.Add):
                for a in node.args:
                    give(a, g)
            elif isinstance(node, sympy.Mul):
                args = node.args
                prefix = [self.const(1)]
                for a in args[:-1]:
                    prefix.append(self.mul(prefix[-1], vals[a]))
                suffix = self.const(1)
                for k in range(len(args) - 1, -1, -1):
                    if self._depends(args[k]):
                        give(args[k], self.mul(g, self.mul(prefix[k], suffix)))
                    suffix = self.mul(vals[args[k]], suffix)
            elif isinstance(node, sympy.Pow) and node.exp.is_Integer:
                n = int(node.exp)
                give(node.base, self.mul(g, self.mul(self.const(n), self.power(vals[node.base], n - 1))))
            elif isinstance(node, sympy.exp):
                give(node.args[0], self.mul(g, vals[node]))
            else:
                raise Unsupported(f"cannot differentiate {type(node).__name__}")
        return {x: self.total(adj.get(x, [])) for x in wrt}
