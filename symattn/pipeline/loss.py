"""The scalar losses a backward pass starts from, written once: their value, ∂L/∂O, and
both as formulas and entry rules.

>>> from symattn.exact.nodes import rational_matrix
>>> O, T = rational_matrix([[1, 2]]), rational_matrix([[0, 2]])
>>> loss_value("mse", O, T).exact(), upstream_gradient("mse", O, T).exact()
(Matrix([[1/2]]), Matrix([[1, 0]]))
>>> LOSSES["mse"].formula
Eq(L, SquaredNorm(O - T)/2)
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from ..exact import nodes as V
from . import rules as R
from .notation import Given, Inner, SquaredNorm, matrix
from .steps import Lookup, Rule, Worked

__all__ = ["LOSSES", "Loss", "loss_value", "upstream_gradient"]

L_SYMBOL = sympy.Symbol("L")
_O, _T, _DO = matrix("O"), matrix("T"), matrix("dO")
_i, _j = sympy.symbols("i j", integer=True)


@dataclass(frozen=True)
class Loss:
    """A loss: what it is (in words), L as a formula, dO = ∂L/∂O as a formula, and whether it
    needs a given matrix (the target T, or the upstream dO)."""

    name: str
    words: str
    formula: sympy.Basic
    gradient: sympy.Basic
    given: str | None = None  # "target" or "upstream"

    def value_rule(self, rows: int, cols: int) -> Rule:
        """L written out: Σ o_ij, ½ Σ (o_ij − t_ij)², or Σ dO_ij o_ij (keys O, T, G)."""
        if self.name == "sum":
            return R.total(lambda at, r, c: at("O", r, c), rows, cols)
        if self.name == "mse":
            return R.total(lambda at, r, c: sympy.Pow(R.minus(at("O", r, c), at("T", r, c)), 2, evaluate=False),
                           rows, cols, factor=sympy.Rational(1, 2))
        return R.total(lambda at, r, c: R.times(at("G", r, c), at("O", r, c)), rows, cols)

    def gradient_rule(self) -> Rule:
        """dO_ij written out: 1, o_ij − t_ij, or the given entry."""
        if self.name == "sum":
            return R.constant(sympy.Integer(1))
        if self.name == "mse":
            def rule(at: Lookup, i: int, j: int) -> Worked:
                return Worked([R.minus(at("O", i, j), at("T", i, j))])
            return rule
        return R.given("G")


#: loss -> its definition
LOSSES = {
    "sum": Loss("sum", "L = Σ_ij O_ij (dO = 1)",
                sympy.Eq(L_SYMBOL, sympy.Sum(sympy.Indexed(sympy.IndexedBase(sympy.Symbol("O")), _i, _j),
                                             (_i, 1, sympy.Symbol("n")), (_j, 1, sympy.Symbol("d"))), evaluate=False),
                sympy.Eq(_DO, sympy.OneMatrix(_O.shape[0], _O.shape[1]), evaluate=False)),
    "mse": Loss("mse", "L = ½‖O − T‖² with a target T (dO = O − T)",
                sympy.Eq(L_SYMBOL, SquaredNorm(sympy.MatAdd(_O, -_T, evaluate=False)) / 2, evaluate=False),
                sympy.Eq(_DO, sympy.MatAdd(_O, -_T, evaluate=False), evaluate=False), given="target"),
    "upstream": Loss("upstream", "L = ⟨dO, O⟩ for a given upstream gradient dO",
                     sympy.Eq(L_SYMBOL, Inner(_DO, _O), evaluate=False), Given(_DO), given="upstream"),
}


def loss_value(loss: str, O: V.Node, given: V.Node | None = None, focus: int | None = None) -> V.Node:
    """L (1×1) from the output O (row form): Σ O; ½‖O − T‖² with ``given`` = T; or ⟨dO, O⟩
    with ``given`` = dO. With ``focus``, only that row of O (and of the given matrix) counts."""
    if focus is not None:
        O = V.rows(O, [focus])
        given = V.rows(given, [focus]) if given is not None and given.shape[0] > 1 else given
    if loss == "sum":
        return V.total(O)
    assert given is not None, f"loss {loss} needs a given matrix"
    if loss == "upstream":
        return V.total(V.elementwise("mul", given, O))
    if loss == "mse":
        diff = V.elementwise("sub", O, given)
        return V.scale(V.total(V.elementwise("mul", diff, diff)), sympy.Rational(1, 2))
    raise ValueError(f"unknown loss {loss!r}")


def upstream_gradient(loss: str, O: V.Node, given: V.Node | None = None) -> V.Node:
    """∂L/∂O for the same losses: 1, O − T, or the given dO."""
    if loss == "sum":
        return V.ones(*O.shape)
    assert given is not None, f"loss {loss} needs a given matrix"
    if loss == "upstream":
        return given
    if loss == "mse":
        return V.elementwise("sub", O, given)
    raise ValueError(f"unknown loss {loss!r}")
