"""The proof of an identity: a statement, its argument and the SymPy checks that carry it
(shared by :mod:`symattn.analyses.proofs` and the variants' proof modules)."""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy

from ..display import render

__all__ = ["Proof"]


@dataclass
class Proof:
    """A statement, its argument and the checks that hold. The statement and every line of
    the argument are SymPy expressions (with words between them), printed by the views'
    printers; each line has its reason, as words and expressions."""

    name: str
    title: str
    statement: list  # a phrase: words and expressions
    argument: list[tuple[sympy.Basic, list]]  # (a chain of equal expressions, the reason as a phrase)
    checks: list[tuple[str, bool]] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return bool(self.checks) and all(ok for _, ok in self.checks)

    def __str__(self) -> str:
        return render(self, "text") or repr(self)

    def _repr_markdown_(self) -> str | None:
        return render(self, "markdown")
