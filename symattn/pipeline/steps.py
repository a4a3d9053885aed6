"""The data of a derivation: named steps, each with its general formula, the rule that
gives one entry from the entries it is computed from, the exact value and certified
decimals. Data only: views render it (:mod:`symattn.views`).

A step's ``formula`` is a SymPy expression (``Eq(S, Q Kᵀ)``) and its ``rule`` builds
the SymPy expression of one entry from its operands' entries (``s_ij = Σ_t q_it k_jt``),
so that every view prints both with its printer: numbers for a numeric example, the
named entries of the earlier steps (s̃ᵢⱼ, pᵢⱼ, …) for a symbolic one.

>>> import symattn as sa
>>> d = sa.derive(sa.load("i_love_statistics"))
>>> d["Q"].exact
Matrix([[1/2, 4/5]])
>>> d["scores"].decimals(6)
[['1.116', '1.266', '1.339']]
>>> d["scores"].formula
Eq(S, Q*K.T)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

import sympy

from ..display import render
from ..errors import OptionError, SymattnError
from ..exact import nodes as V
from ..read.numbers import did_you_mean
from ..read.spec import Spec

__all__ = ["Step", "Derivation", "Operand", "Lookup", "Rule", "Worked", "exact_decimal"]


def exact_decimal(node: V.Node, k: int, digits: int) -> bool:
    """Whether entry ``k``'s decimals at ``digits`` significant digits are its exact value
    (a terminating rational, or a masked −∞): the value graph's one terminating-decimal test.

    >>> from fractions import Fraction
    >>> exact_decimal(V.rational_matrix([[Fraction(1339, 1000), Fraction(1, 3)]]), 0, 6)
    True
    >>> exact_decimal(V.rational_matrix([[Fraction(1339, 1000), Fraction(1, 3)]]), 1, 6)
    False
    """
    return node.prints_exactly(k, digits)


@dataclass(frozen=True)
class Operand:
    """A matrix a step is computed from, as shown beside the step.

    ``symbol`` is the sub-expression of the step's formula it stands for (``K``, or
    ``Kᵀ`` for the keys transposed); ``node`` its value as shown; ``entry_name`` names
    its entries (``k``) and ``transposed`` says that ``node`` is that matrix transposed
    (so entry (i, j) of the operand is entry (j, i) of the named matrix); a ``given``
    operand (an input of the file) is shown by its values, never by a name."""

    symbol: sympy.Basic
    node: V.Node
    rows: list[str]
    cols: list[str]
    entry_name: str = ""
    given: bool = False
    transposed: bool = False

    def labels(self, *idx: int) -> list[str]:
        """The labels of entry ``idx`` of the named matrix (undoing ``transposed``)."""
        r, c = self.rows[idx[0]], self.cols[idx[1]]
        return [c, r] if self.transposed else [r, c]


#: (operand key, index into that operand as shown) -> the entry as an expression
Lookup = Callable[..., sympy.Basic]


@dataclass
class Worked:
    """One entry written out: a chain of equal expressions, and a word when the entry is
    fixed by a convention (``masked``) or given."""

    chain: list[sympy.Basic]
    note: str = ""


#: (lookup, index as shown) -> the entry in terms of its operands' entries
Rule = Callable[..., Worked]


@dataclass
class Step:
    """A named step: its general formula, the rule for one entry, the exact value, decimals.

    ``node`` is the value as shown (tokens as columns in the column layout); ``value`` is
    the same in row form, as the later steps use it."""

    name: str
    title: str
    formula: sympy.Basic  # Eq(lhs, rhs) of matrix expressions
    node: V.Node
    row_labels: list[str]
    col_labels: list[str]
    depth_labels: list[str] | None = None  # third axis (weighted: d_v)
    symbol: sympy.Basic | None = None  # the value's matrix symbol (P, Stilde, dS)
    entry_name: str = ""  # the name of one entry (p, stilde, dS); "" when entries are unnamed
    operands: dict[str, Operand] = field(default_factory=dict)
    rule: Rule | None = None
    example: tuple[int, ...] = (0, 0)  # the entry written out, as shown
    substituted: sympy.Basic | None = None  # the formula's right side with the values' constants in
    notes: list[Sequence[object]] = field(default_factory=list)  # phrases: words and expressions
    params: dict[str, sympy.Basic] = field(default_factory=dict)  # e.g. {"tau": sqrt(2)/2}
    given: bool = False  # the value as written in the file
    axis_names: tuple[str, ...] = ("row", "col")
    transposed: bool = False  # shown transposed (column layout): node = (row-form value)ᵀ
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

    def flat(self, *idx: int) -> int:
        """The flat index of entry ``idx`` (as shown)."""
        k = 0
        for n, i in zip(self.shape, idx):
            k = k * n + i
        return k

    def labels(self, *idx: int) -> list[str]:
        """The row, column (and depth) labels of entry ``idx``."""
        out = [self.row_labels[idx[0]], self.col_labels[idx[1]]]
        if len(idx) == 3 and self.depth_labels is not None:
            out.append(self.depth_labels[idx[2]])
        return out

    def exact_decimals(self, digits: int) -> bool:
        """Whether every decimal of the step at ``digits`` digits is exact (a rational step
        whose values terminate): then one table shows both."""
        if self.symbolic or len(self.shape) != 2:
            return False
        return all(exact_decimal(self.node, k, digits) for k in range(self.node.size))

    def __repr__(self) -> str:
        formula = render(self.formula, "text") or str(self.formula)
        return f"<Step {self.name} {'×'.join(map(str, self.shape))}: {formula}>"

    def __str__(self) -> str:
        return render(self, "text") or repr(self)

    def _repr_latex_(self) -> str | None:
        return render(self, "latex")

    def _repr_markdown_(self) -> str | None:
        return render(self, "markdown")


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

    @property
    def symbolic(self) -> bool:
        return any(s.symbolic for s in self.all_steps)

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
