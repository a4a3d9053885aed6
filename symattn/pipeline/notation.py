"""The notation of attention as SymPy objects, so that formulas are expressions that
print (one LaTeX printer, one text printer: :mod:`symattn.views.printers`) and compose
by SymPy's own mechanisms.

Matrices are ``MatrixSymbol``s (``Q``, ``K``, ``Stilde`` for S̃, ``W^Q``); an entry of a
step is an ``Indexed`` of its entry name with :class:`Label` indices (``p[love, I]``);
a number shown as printed (a certified decimal) is a :class:`Num`. ``Softmax`` and
``Sigmoid`` are SymPy functions with ``fdiff`` (as in ``sympy/codegen/cfunctions.py``):

>>> import sympy
>>> a, b = sympy.symbols("a b", real=True)
>>> Softmax(1, a, b).rewrite(sympy.exp)
exp(a)/(exp(a) + exp(b))
>>> sympy.simplify(sympy.diff(Softmax(1, a, b), a) - Softmax(1, a, b) * (1 - Softmax(1, a, b)))
0
>>> sympy.simplify((Softmax(1, a, b) - Sigmoid(a - b)).rewrite(sympy.exp))
0
>>> Softmax(1, a)
1
>>> S = sympy.MatrixSymbol("S", 2, 3)
>>> Softmax(S).shape, str(Softmax(S))
((2, 3), 'softmax(S)')
"""

from __future__ import annotations

from typing import Sequence

import sympy
from sympy.core.function import ArgumentIndexError
from sympy.matrices.expressions.matexpr import MatrixExpr

__all__ = ["Softmax", "Sigmoid", "MatrixSoftmax", "Given", "Rotary", "RowSum", "ColSum", "Concat", "Columns", "Inner",
           "SquaredNorm", "Partial", "Label", "Num", "RowOver", "Dots", "Chain", "Continued", "SoftmaxEntry", "Diag",
           "Elem", "Hull", "SumIn", "Dot", "Masked", "Ones", "matrix", "entry", "entry_base",
           "TAU", "TEMPERATURE", "D_K"]

#: the scale factor, the temperature and the key width, as symbols of the formulas
TAU = sympy.Symbol("tau", positive=True)
TEMPERATURE = sympy.Symbol("T", positive=True)
D_K = sympy.Symbol("d_k", positive=True)


class Softmax(sympy.Function):
    """Component ``i`` (1-based) of the softmax of ``x_1, …, x_n``: e^{x_i} / Σ_j e^{x_j}.

    ``Softmax(i, x_1, …, x_n)``; its derivative in x_k is p_i (δ_ik − p_k) (``fdiff``).
    ``Softmax(M)`` of one matrix expression is the row-wise :class:`MatrixSoftmax`."""

    def __new__(cls, *args: object, **options: object) -> sympy.Basic:  # type: ignore[misc]
        if len(args) == 1 and isinstance(args[0], MatrixExpr):
            return MatrixSoftmax(args[0])
        return super().__new__(cls, *args, **options)

    @classmethod
    def eval(cls, i: sympy.Basic, *x: sympy.Basic) -> sympy.Expr | None:  # type: ignore[override]
        if not x:
            raise TypeError("Softmax needs an index and at least one argument")
        if not (i.is_Integer and 1 <= int(i) <= len(x)):
            raise ValueError(f"Softmax: the index must be a whole number from 1 to {len(x)}, got {i}")
        if len(x) == 1:
            return sympy.Integer(1)
        return None

    @property
    def index(self) -> int:
        return int(self.args[0])

    @property
    def scores(self) -> tuple:
        return self.args[1:]

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        if argindex == 1:
            raise ArgumentIndexError(self, argindex)
        k = argindex - 1  # 1-based position among the scores
        i = self.index
        return self * ((1 if i == k else 0) - Softmax(k, *self.scores))

    def _eval_rewrite_as_exp(self, i: sympy.Basic, *x: sympy.Basic, **kwargs: object) -> sympy.Expr:
        return sympy.exp(x[int(i) - 1]) / sympy.Add(*[sympy.exp(v) for v in x])

    def _eval_is_positive(self) -> bool | None:
        return True if all(v.is_extended_real for v in self.scores) else None


class Sigmoid(sympy.Function):
    """The logistic function σ(x) = 1/(1 + e^{−x}); σ′ = σ(1 − σ) (``fdiff``).
    softmax(a, b)₁ = σ(a − b)."""

    @classmethod
    def eval(cls, x: sympy.Basic) -> sympy.Expr | None:  # type: ignore[override]
        if x.is_zero:
            return sympy.Rational(1, 2)
        return None

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        if argindex != 1:
            raise ArgumentIndexError(self, argindex)
        return self * (1 - self)

    def _eval_rewrite_as_exp(self, x: sympy.Basic, **kwargs: object) -> sympy.Expr:
        return 1 / (1 + sympy.exp(-x))

    def _eval_evalf(self, prec: int) -> sympy.Expr | None:
        x = self.args[0]
        if not x.is_number:
            return None
        return (1 / (1 + sympy.exp(-x)))._eval_evalf(prec)

    def _eval_is_real(self) -> bool | None:
        return self.args[0].is_real

    def _eval_is_positive(self) -> bool | None:
        return True if self.args[0].is_real else None


# -- matrix-level notation (general formulas) -------------------------------------------------------


class _MatrixFunction(MatrixExpr):
    """A function applied to a matrix expression, keeping its shape."""

    def __new__(cls, arg: sympy.Basic, *rest: sympy.Basic) -> "_MatrixFunction":
        if not isinstance(arg, sympy.Basic):
            raise TypeError(f"{cls.__name__} takes a SymPy matrix expression")
        return super().__new__(cls, arg, *rest)

    @property
    def arg(self) -> sympy.Basic:
        return self.args[0]

    @property
    def shape(self) -> tuple:
        return self.arg.shape


class MatrixSoftmax(_MatrixFunction):
    """Softmax of a matrix over keys (each row sums to 1) or over queries (each column);
    ``kind`` ``sum`` divides by the sum instead (a bug, reproduced)."""

    def __new__(cls, arg: sympy.Basic, over: object = "keys", kind: object = "softmax") -> "MatrixSoftmax":
        return super().__new__(cls, arg, sympy.Symbol(str(over)), sympy.Symbol(str(kind)))

    @property
    def over(self) -> str:
        return str(self.args[1])

    def _sympystr(self, printer: object) -> str:  # str(): the plain SymPy form (e.g. of a parsed formula)
        name = "softmax" if self.kind == "softmax" else "normalize"
        return f"{name}({printer._print(self.arg)})" + ("" if self.over == "keys" else "_queries")  # type: ignore[attr-defined]

    @property
    def kind(self) -> str:
        return str(self.args[2])


class Given(_MatrixFunction):
    """A matrix as given in the example file (no formula)."""


class Rotary(_MatrixFunction):
    """RoPE applied to each row (token) of a matrix: its coordinate pairs turned by the token's
    angles m·θᵢ; ``transposed`` turns them back (the gradient's path)."""

    def __new__(cls, arg: sympy.Basic, transposed: object = False) -> "Rotary":
        return super().__new__(cls, arg, sympy.true if bool(transposed) else sympy.false)

    @property
    def transposed(self) -> bool:
        return bool(self.args[1])


class RowSum(MatrixExpr):
    """Row sums, as a column: rowsum(A)."""

    def __new__(cls, arg: sympy.Basic) -> "RowSum":
        return super().__new__(cls, arg)

    @property
    def shape(self) -> tuple:
        return (self.args[0].shape[0], sympy.Integer(1))


class ColSum(MatrixExpr):
    """Column sums, as a row: 1ᵀA."""

    def __new__(cls, arg: sympy.Basic) -> "ColSum":
        return super().__new__(cls, arg)

    @property
    def shape(self) -> tuple:
        return (sympy.Integer(1), self.args[0].shape[1])


class Concat(MatrixExpr):
    """Heads side by side: Concat(head₁, …, head_h)."""

    def __new__(cls, *heads: sympy.Basic) -> "Concat":
        return super().__new__(cls, *heads)

    @property
    def shape(self) -> tuple:
        first = self.args[0].shape
        return (first[0], sympy.Add(*[h.shape[1] for h in self.args]))


class Columns(_MatrixFunction):
    """Columns ``start..stop`` (1-based, inclusive) of a matrix, or rows when ``rows``."""

    def __new__(cls, arg: sympy.Basic, start: object, stop: object, rows: object = False) -> "Columns":
        return super().__new__(cls, arg, sympy.Integer(start), sympy.Integer(stop),  # type: ignore[arg-type]
                               sympy.true if bool(rows) else sympy.false)

    @property
    def start(self) -> int:
        return int(self.args[1])

    @property
    def stop(self) -> int:
        return int(self.args[2])

    @property
    def rows(self) -> bool:
        return bool(self.args[3])

    @property
    def shape(self) -> tuple:
        r, c = self.arg.shape
        width = sympy.Integer(self.stop - self.start + 1)
        return (width, c) if self.rows else (r, width)


class Inner(sympy.Expr):
    """The Frobenius inner product ⟨A, B⟩ = Σ_ij A_ij B_ij (a scalar)."""

    def __new__(cls, a: sympy.Basic, b: sympy.Basic) -> "Inner":
        return super().__new__(cls, a, b)


class SquaredNorm(sympy.Expr):
    """‖A‖², the squared Frobenius norm (a scalar)."""

    def __new__(cls, a: sympy.Basic) -> "SquaredNorm":
        return super().__new__(cls, a)


class Partial(sympy.Expr):
    """∂f/∂x, as a name (not evaluated)."""

    def __new__(cls, f: sympy.Basic, x: sympy.Basic) -> "Partial":
        return super().__new__(cls, f, x)


# -- entries ------------------------------------------------------------------------------------------


class Label(sympy.Symbol):
    """A row or column label used as an index: a token name (``love``) or a number (``1``).
    Printed as text in LaTeX (``\\text{love}``)."""

    def __new__(cls, text: str) -> "Label":
        return super().__new__(cls, str(text))


class Num(sympy.Symbol):
    """A number as printed (a certified decimal such as ``0.789131`` or ``-0.5``), to write an
    entry out term by term without SymPy evaluating it. A negative one binds like a sum, so
    products parenthesise it."""

    def __new__(cls, text: str) -> "Num":
        return super().__new__(cls, str(text))

    @property
    def negative_text(self) -> bool:
        return self.name.startswith("-")

    @property
    def precedence(self) -> int:
        from sympy.printing.precedence import PRECEDENCE

        return PRECEDENCE["Add"] if self.negative_text else PRECEDENCE["Atom"]


class RowOver(sympy.Expr):
    """A row of numerators over one common denominator: (1, e², e²)/(1 + 2e²)."""

    def __new__(cls, numerators: Sequence[sympy.Basic], denominator: sympy.Basic) -> "RowOver":
        return super().__new__(cls, sympy.Tuple(*numerators), denominator)

    @property
    def numerators(self) -> tuple:
        return tuple(self.args[0])

    @property
    def denominator(self) -> sympy.Basic:
        return self.args[1]


class Chain(sympy.Basic):
    """Equal expressions in a row: a = b = c (a line of an argument). A first element
    :class:`Continued` continues the line above: = b."""

    def __new__(cls, *parts: sympy.Basic) -> "Chain":
        return super().__new__(cls, *parts)


class Continued(sympy.Symbol):
    """The empty left side of a continued chain."""

    def __new__(cls) -> "Continued":
        return super().__new__(cls, "continued")


class SoftmaxEntry(sympy.Expr):
    """softmax(x)_i for a vector named x (in statements about a generic vector)."""

    def __new__(cls, x: sympy.Basic, i: sympy.Basic) -> "SoftmaxEntry":
        return super().__new__(cls, x, i)


class Diag(_MatrixFunction):
    """diag(p): the diagonal matrix of a vector."""


class Elem(sympy.Basic):
    """a ∈ b."""

    def __new__(cls, a: sympy.Basic, b: sympy.Basic) -> "Elem":
        return super().__new__(cls, a, b)


class Hull(sympy.Basic):
    """conv{v_j}: the convex hull of some vectors."""

    def __new__(cls, v: sympy.Basic) -> "Hull":
        return super().__new__(cls, v)


class SumIn(sympy.Expr):
    """Σ_{j ∈ B} f: a sum over the indices of a named set (a block)."""

    def __new__(cls, f: sympy.Basic, j: sympy.Basic, where: sympy.Basic) -> "SumIn":
        return super().__new__(cls, f, j, where)


class Dot(sympy.Expr):
    """a · b: the dot product of two vectors."""

    def __new__(cls, a: sympy.Basic, b: sympy.Basic) -> "Dot":
        return super().__new__(cls, a, b)


class Dots(sympy.Symbol):
    """An elided run of terms or entries (⋯)."""

    def __new__(cls) -> "Dots":
        return super().__new__(cls, "...")


class Masked(sympy.Symbol):
    """A masked entry (−∞ before the softmax), shown with a word."""

    def __new__(cls) -> "Masked":
        return super().__new__(cls, "masked")


_N = sympy.Symbol("n", integer=True, positive=True)


def matrix(name: str) -> sympy.MatrixSymbol:
    """The matrix symbol ``name`` (``Q``, ``Stilde``, ``W^Q``, ``dO``). Formulas are for
    reading, so every symbol has the same generic square shape and any product is allowed."""
    return sympy.MatrixSymbol(name, _N, _N)


class Ones(MatrixExpr):
    """A vector of ones: the column 1 or, with ``row``, the row 1ᵀ (as in D 1ᵀ)."""

    def __new__(cls, row: object = False) -> "Ones":
        return super().__new__(cls, sympy.true if bool(row) else sympy.false)

    @property
    def row(self) -> bool:
        return bool(self.args[0])

    @property
    def shape(self) -> tuple:
        return (_N, _N)


def entry_base(name: str) -> sympy.IndexedBase:
    """The indexed name of a step's entries (``p``, ``stilde`` for s̃, ``dS``)."""
    return sympy.IndexedBase(sympy.Symbol(name))


def entry(name: str, labels: Sequence[str]) -> sympy.Indexed:
    """One entry of a step by its labels: ``entry("p", ["love", "I"])`` is p_{love,I}."""
    return entry_base(name)[tuple(Label(x) for x in labels)]
