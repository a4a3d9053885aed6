"""The scalar losses a backward pass starts from, written once: their value and ∂L/∂O.

>>> from symattn.exact.nodes import rational_matrix
>>> O, T = rational_matrix([[1, 2]]), rational_matrix([[0, 2]])
>>> loss_value("mse", O, T).exact(), upstream_gradient("mse", O, T).exact()
(Matrix([[1/2]]), Matrix([[1, 0]]))
"""

from __future__ import annotations

import sympy

from ..exact import nodes as V

__all__ = ["LOSSES", "loss_value", "upstream_gradient"]

#: loss -> what it is
LOSSES = {
    "sum": "L = Σ_ij O_ij (dO = 1)",
    "mse": "L = ½‖O − T‖² with a target T (dO = O − T)",
    "upstream": "L = ⟨dO, O⟩ for a given upstream gradient dO",
}


def loss_value(loss: str, O: V.Node, given: V.Node | None = None) -> V.Node:
    """L (1×1) from the output O: Σ O; ½‖O − T‖² with ``given`` = T; or ⟨dO, O⟩ with ``given`` = dO."""
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
