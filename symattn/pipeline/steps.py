"""The data of a derivation: named steps, each with its formula, one entry written out,
its exact value and certified decimals. Data only: views render it (:mod:`symattn.views`).

>>> import symattn as sa
>>> d = sa.derive(sa.load("i_love_statistics"))
>>> d["Q"].exact
Matrix([[1/2, 4/5]])
>>> d["scores"].decimals(6)
[['1.116', '1.266', '1.339']]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Sequence

import sympy

from ..display import render
from ..errors import OptionError, SymattnError
from ..exact import nodes as V
from ..read.numbers import did_you_mean
from ..read.spec import Spec

__all__ = ["Step", "Derivation", "Example", "Ref", "Operand", "Substitution"]


@dataclass(frozen=True)
class Ref:
    """One entry of a value: a node and a flat index (for writing a step term by term)."""

    node: V.Node
    index: int

    def decimal(self, digits: int) -> str:
        if self.node.is_infinite(self.index):
            return "-inf"
        dec = self.node.decimals(digits)
        if dec is None:
            return str(self.exact())
        idx = self.node.index(self.index)
        for k in idx:
            dec = dec[k]
        return dec  # type: ignore[return-value]

    def exact(self) -> sympy.Expr:
        return self.node.entry(*self.node.index(self.index))

    def is_exact_decimal(self, digits: int) -> bool:
        """Whether :meth:`decimal` is the exact value (a terminating rational)."""
        return self.node.prints_exactly(self.index, digits)


@dataclass
class Example:
    """One entry of a step written out, as worked examples do.

    ``kind`` is ``dot`` (sum of products, plus an optional bias), ``scale``,
    ``mask``, ``softmax``, ``product`` or ``given``.
    """

    kind: str
    target: str  # e.g. "Q[love, 1]"
    result: Ref
    terms: list[tuple[Ref, Ref]] = field(default_factory=list)
    bias: Ref | None = None
    operand: Ref | None = None  # scale, mask
    factor: sympy.Expr | None = None  # scale: tau
    exponents: list[Ref] = field(default_factory=list)  # softmax: the row
    position: int = 0  # softmax: which exponent is on top
    masked: bool = False  # mask: the entry is masked


@dataclass
class Operand:
    """A matrix a step is computed from, as shown when the step is written out."""

    symbol: str  # LaTeX, e.g. "X", "{W^{Q}}^{\\top}", "\\tilde S"
    node: V.Node
    rows: list[str]
    cols: list[str]


@dataclass
class Substitution:
    """How a step combines its operands: ``product`` (juxtaposed), ``scale`` (factor · M),
    ``add`` (M + B), ``softmax`` or ``ratio`` (of M), ``slice`` (a part of M)."""

    kind: str
    operands: list[Operand]
    factor: sympy.Expr | None = None


@dataclass
class Step:
    """A named step: its general formula, an entry written out, the exact value, decimals."""

    name: str
    title: str
    formula: str  # LaTeX
    formula_text: str  # plain text
    node: V.Node
    row_labels: list[str]
    col_labels: list[str]
    depth_labels: list[str] | None = None  # third axis (weighted: d_v)
    example: Example | None = None
    notes: list[str] = field(default_factory=list)
    axis_names: tuple[str, ...] = ("row", "col")
    transposed: bool = False  # shown transposed (column layout): node = (row-form value)ᵀ
    substitution: Substitution | None = None
    symbol: str = ""  # LaTeX symbol of the value, e.g. "Q", "\\tilde S", "P"
    row_node: V.Node | None = None  # the value in row form (tokens as rows), as later steps use it

    @property
    def value(self) -> V.Node:
        """The value in row form (the same as ``node`` except in the column layout)."""
        return self.row_node if self.row_node is not None else self.node

    @property
    def shape(self) -> tuple[int, ...]:
        return self.node.shape

    @property
    def exact(self) -> sympy.Matrix:
        """Exact value: a SymPy Matrix (a 3-D Array for ``weighted``)."""
        return self.node.exact()

    @property
    def symbolic(self) -> bool:
        return self.node.symbolic

    def decimals(self, digits: int = 6) -> list | None:
        """Certified decimals to ``digits`` significant digits (None for symbolic values)."""
        return self.node.decimals(digits)

    def __repr__(self) -> str:
        return f"<Step {self.name} {'×'.join(map(str, self.shape))}: {self.formula_text}>"

    def _repr_latex_(self) -> str | None:
        return render(self, "latex")



class Derivation:
    """The steps of one worked example, in pipeline order. ``d[name]`` gives a step."""

    def __init__(self, spec: Spec, steps: list[Step], default: list[str], query: int | None,
                 convention: dict) -> None:
        self.spec = spec
        self.all_steps = steps
        self._by_name = {s.name: s for s in steps}
        self.default_names = default
        self.query = query
        self.convention = convention

    @property
    def title(self) -> str:
        return self.spec.title

    @property
    def steps(self) -> list[Step]:
        """The steps shown by default (``weighted`` only for a focus query or small sizes)."""
        return [self._by_name[n] for n in self.default_names]

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.all_steps]

    def __getitem__(self, name: str) -> Step:
        try:
            return self._by_name[name]
        except KeyError:
            raise SymattnError(f"no step {name!r}{did_you_mean(name, self.names)}") from None

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def select(self, names: Sequence[str] | None) -> list[Step]:
        """Steps by name, in pipeline order (all default steps when ``names`` is None)."""
        if not names:
            return self.steps
        wanted = set()
        for n in names:
            if n not in self._by_name:
                raise OptionError("steps", f"no step {n!r} in this example{did_you_mean(n, self.names)}")
            wanted.add(n)
        return [s for s in self.all_steps if s.name in wanted]

    def __repr__(self) -> str:
        return f"<Derivation {self.title!r}: {', '.join(self.default_names)}>"

    def __str__(self) -> str:
        return render(self, "text") or repr(self)

    def _repr_html_(self) -> str | None:  # the heatmap and the steps (None without matplotlib)
        return render(self, "html")

    def _repr_markdown_(self) -> str | None:
        return render(self, "markdown")

    def _repr_latex_(self) -> str | None:
        return render(self, "latex")
