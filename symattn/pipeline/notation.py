"""The notation of attention as SymPy objects, so formulas print and compose by SymPy's own mechanisms.

>>> import sympy
>>> S = sympy.MatrixSymbol("S", 2, 3)
>>> Softmax(S).shape
(2, 3)
"""

from __future__ import annotations

import sympy
from sympy.matrices.expressions.matexpr import MatrixExpr

__all__ = ["Softmax"]


class Softmax(MatrixExpr):
    """Row-wise softmax of a matrix expression (symbolic; the numbers are computed by
    :mod:`symattn.exact.nodes`). Products with it do not commute."""

    def __new__(cls, arg: sympy.Basic) -> "Softmax":
        if not isinstance(arg, sympy.Basic):
            raise TypeError("Softmax takes a SymPy matrix expression")
        return super().__new__(cls, arg)

    @property
    def arg(self) -> sympy.Basic:
        return self.args[0]

    @property
    def shape(self) -> tuple:
        return self.arg.shape

    def _sympystr(self, printer: object) -> str:
        return f"softmax({printer._print(self.arg)})"  # type: ignore[attr-defined]
