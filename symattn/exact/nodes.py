"""Matrix values of the derivation: exact forms, ball enclosures, exact-rational tests.

A value is a node in a small graph (a product of two nodes, a softmax of a node,
...). Each node can give

* ``entry(i, j)`` / ``exact()``: its exact SymPy value (built lazily; a closed
  form in ``exp`` for weights and outputs);
* ``ball_mat(prec)``: an ``arb_mat`` enclosing every entry, computed from the
  enclosures of the nodes it depends on at the same precision;
* ``rational(k)``: entry ``k`` (flat index) as an exact :class:`Fraction` when it
  is provably rational, else None (used to decide exact ties and zeros);
* ``row_sum(i)`` / ``col_sum(j)``: a row or column sum known exactly from the
  structure (softmax rows sum to 1; the rows of the softmax backward dS sum to 0, so
  1ᵀ·dK = τ·(dS·1)ᵀ·Q = 0): exact zeros in gradients are proved, not searched for;
* ``undefined()``: the first undefined value (0/0, ∞ − ∞, a -inf where a finite
  number is needed) this value is computed from, or None;
* ``decimals(digits)``: certified decimals (:mod:`symattn.exact.certify`). This is
  the one place digits are made, and it refuses an undefined value.

An element-wise or row-wise operation is written once, as a formula over rows of its
operands (``_row``); the same formula runs on exact SymPy values (``entry``) and on
balls (``ball_mat``).

Rational values (projections, scores) are held as python-flint ``fmpq_mat`` and
never leave exact arithmetic. Values whose entries contain symbols are plain
SymPy matrices. Values cannot be computed in two places: a step is a node, and
every view reads the node.

>>> import sympy
>>> S = rational_matrix([[0, 2, 2]])
>>> P = softmax(S)
>>> P.entry(0, 1)
exp(2)/(1 + 2*exp(2))
>>> P.decimals(6)
[['0.0633789', '0.468311', '0.468311']]
>>> P.row_sum(0), P.is_rational_matrix, S.is_rational_matrix
(Fraction(1, 1), False, True)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Iterable, Sequence

import sympy
from flint import arb, arb_mat, fmpq, fmpq_mat

from ..errors import CertificationError, FullyMaskedRow, LimitError, UndefinedValueError
from ..limits import EXACT_CHECK_MAX_TERMS, EXACT_ZERO_MAX_TERMS, MAX_EXACT_NODES
from .certify import certify, check_digits, format_rational, is_exact_decimal, to_arb, workprec
from .zero import is_zero

__all__ = [
    "Node", "RationalNode", "SympyNode", "rational_matrix", "matmul", "transpose",
    "scale", "masked", "softmax", "attend", "weighted", "concat", "columns", "rows",
    "IntervalNode", "patch", "row_sums", "row_dots", "col_sums", "total", "normalize", "elementwise", "ones",
    "softmax_backward", "FullyMaskedRow", "as_exact",
    # score variants (issue 13)
    "pair_sums", "energies", "additive_grad", "elu_plus_one", "feature_map", "feature_map_derivative", "row_divide", "row_normalize",
    "prefix_state", "row_contract", "lower_ones",
    "rotate", "RotateNode", "rotary_scores", "RotaryScoresNode", "trig_table", "TrigTableNode", "distance_bias", "DistanceBiasNode",
]

NEG_INF = sympy.S.NegativeInfinity
_UNSET: Any = object()


def _frac(q: fmpq) -> Fraction:
    return Fraction(int(q.p), int(q.q))


def _rat(q: fmpq) -> sympy.Rational:
    return sympy.Rational(int(q.p), int(q.q))


def as_exact(x: Any) -> sympy.Expr:
    """A validated number (int, Fraction, or a SymPy number or symbol) as a SymPy expression,
    without parsing anything: a string is refused.

    >>> as_exact(Fraction(1, 3)), as_exact(7), as_exact(sympy.Symbol("m"))
    (1/3, 7, m)
    """
    if isinstance(x, sympy.Basic):
        return x
    if isinstance(x, bool) or not isinstance(x, (int, Fraction)):
        raise TypeError(f"expected an exact number, got {type(x).__name__}")
    return sympy.Integer(x) if isinstance(x, int) else sympy.Rational(x.numerator, x.denominator)


# ---------------------------------------------------------------------------------------
# one formula, two number systems


class _Exact:
    """Evaluates a formula on exact SymPy values."""

    zero = sympy.Integer(0)
    minus_infinity = NEG_INF

    def row(self, node: "Node", i: int) -> list:
        return node.exact_row(i)

    @staticmethod
    def exp(x: sympy.Expr) -> sympy.Expr:
        return sympy.exp(x)

    @staticmethod
    def sum(xs: Sequence[sympy.Expr]) -> sympy.Expr:
        return sympy.Add(*xs)

    @staticmethod
    def tanh(x: sympy.Expr) -> sympy.Expr:
        return sympy.tanh(x)

    @staticmethod
    def const(c: sympy.Expr) -> sympy.Expr:
        return c


class _Balls:
    """Evaluates the same formula on ``arb`` balls at one working precision."""

    def __init__(self, prec: int) -> None:
        self.prec = prec
        self.zero = arb(0)
        # a masked score's ball: never read (softmax and the sum normalisation read the
        # mask structurally, and :meth:`Node.undefined` refuses any other reader), and a
        # NaN if it were, so that it can never turn into digits
        self.minus_infinity = arb.nan()
        self._rows: dict[int, list[list[arb]]] = {}

    def row(self, node: "Node", i: int) -> list:
        m = self._rows.get(id(node))
        if m is None:
            m = self._rows[id(node)] = node.ball_mat(self.prec).tolist()
        return m[i]

    @staticmethod
    def exp(x: arb) -> arb:
        return x.exp()

    @staticmethod
    def sum(xs: Sequence[arb]) -> arb:
        return sum(xs[1:], xs[0]) if xs else arb(0)

    @staticmethod
    def tanh(x: arb) -> arb:
        return x.tanh()

    def const(self, c: sympy.Expr) -> arb:
        return to_arb(c, self.prec)


_EXACT = _Exact()


# ---------------------------------------------------------------------------------------
# the base


class Node:
    """A matrix value (2-D unless ``shape`` has three entries)."""

    shape: tuple[int, ...]
    symbolic: bool = False
    #: held as an exact rational matrix (python-flint ``fmpq_mat``): every entry is rational
    is_rational_matrix: bool = False
    children: tuple["Node", ...] | list["Node"] = ()
    #: reads -inf entries of its operands as masks (softmax, the sum normalisation) or
    #: passes them through unchanged (transpose, slices); other operations refuse them
    reads_infinite: bool = False
    #: what the operation is, for messages ("a product", "a scaling")
    op_name: str = "an operation"

    def __init__(self) -> None:
        self._ball: tuple[int, object] | None = None
        self._exact: object = None
        self._too_big: LimitError | None = None  # exact() is past MAX_EXACT_NODES
        self._decimals: dict[int, list] = {}
        self._infinite: set | None = None
        self._undefined: object = _UNSET
        self.label: str | None = None
        self.axis_labels: tuple[list[str] | None, ...] = ()

    # -- shape helpers --
    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def index(self, k: int) -> tuple[int, ...]:
        """Flat index -> (i, j) or (i, j, l)."""
        out = []
        for s in reversed(self.shape):
            out.append(k % s)
            k //= s
        return tuple(reversed(out))

    def flat(self, *idx: int) -> int:
        """(i, j) or (i, j, l) -> flat index."""
        k = 0
        for n, i in zip(self.shape, idx):
            k = k * n + i
        return k

    # -- names, for messages --
    def name_as(self, step: str, *labels: list[str] | None) -> None:
        """Name this value after the step that shows it (the first name given stays), with
        the labels of its rows and columns, so that a message can say ``weights[love, I]``."""
        if self.label is None:
            self.label = step
            self.axis_labels = tuple(labels)

    def describe(self, k: int) -> str:
        """Entry ``k`` as a person would name it: ``weights[love, I]``, or by 1-based position."""
        idx = self.index(k)
        parts = []
        for axis, i in enumerate(idx):
            names = self.axis_labels[axis] if axis < len(self.axis_labels) else None
            parts.append(names[i] if names and i < len(names) else str(i + 1))
        if self.label is None:
            return f"entry ({', '.join(parts)}) of an intermediate value"
        return f"{self.label}[{', '.join(parts)}]"

    # -- exact --
    def entry(self, *idx: int) -> sympy.Expr:
        raise NotImplementedError

    def exact_row(self, i: int) -> list:
        """The exact entries of row ``i``."""
        return [self.entry(i, j) for j in range(self.shape[1])]

    def exact(self) -> sympy.Matrix:
        """The exact value as a SymPy Matrix (or a 3-D SymPy Array), to be shown: its closed
        forms together hold at most ``MAX_EXACT_NODES`` nodes, else :class:`LimitError`
        (closed forms of gradients grow fast; building and printing them is bounded by
        their size, counted as they are built).

        >>> softmax(rational_matrix([[0, 1]])).exact()
        Matrix([[1/(1 + E), E/(1 + E)]])
        """
        if self._exact is None and self._too_big is None:
            try:
                self._exact = self._matrix(self._bounded_entries())
            except LimitError as e:
                self._too_big = e
        if self._too_big is not None:
            raise self._too_big
        return self._exact  # type: ignore[return-value]

    def build(self) -> sympy.Matrix:
        """The exact value, whatever its size: for computing a symbolic value from another
        (bounded by the size limits of symbolic examples), not for showing it."""
        if self._exact is not None:
            return self._exact  # type: ignore[return-value]
        return self._matrix([self.entry(*self.index(k)) for k in range(self.size)])

    def _matrix(self, entries: list[sympy.Expr]) -> sympy.Matrix:
        if len(self.shape) == 2:
            return sympy.ImmutableMatrix(*self.shape, entries)
        return sympy.ImmutableDenseNDimArray(entries, self.shape)

    def exact_fits(self) -> bool:
        """Whether :meth:`exact` is within the size limit (it is built to find out)."""
        try:
            self.exact()
        except LimitError:
            return False
        return True

    def _bounded_entries(self) -> list[sympy.Expr]:
        """The entries, counted as they are built; a value held as rationals is exempt (one
        number an entry), and one whose exponentials alone are past the limit is not built."""
        if self.is_rational_matrix:
            return [self.entry(*self.index(k)) for k in range(self.size)]
        if self.terms() * self.size > MAX_EXACT_NODES:
            raise self._too_large()
        left = MAX_EXACT_NODES
        out = []
        for k in range(self.size):
            e = self.entry(*self.index(k))
            left -= expression_size(e, left + 1)
            if left < 0:
                raise self._too_large()
            out.append(e)
        return out

    def _too_large(self) -> LimitError:
        hint = "" if self.symbolic else "leave out --exact to see the certified decimals alone, or "
        return LimitError(f"the exact closed forms of {self.label or 'a value'} are larger than the limit of "
                          f"{MAX_EXACT_NODES} nodes (numbers, symbols and operations, all entries together): "
                          f"{hint}ask for fewer steps (--steps, --wrt)")

    def rational(self, k: int) -> Fraction | None:
        """Entry ``k`` exactly, when SymPy's closed form is a rational number (only for
        closed forms of at most ``EXACT_CHECK_MAX_TERMS`` exponentials: None past that)."""
        if self.terms() > EXACT_CHECK_MAX_TERMS:
            return None
        e = self.entry(*self.index(k))
        return Fraction(int(e.p), int(e.q)) if e.is_Rational else None

    def row_sum(self, i: int) -> Fraction | None:
        """The sum of row ``i``, when the structure of the value fixes it exactly."""
        return None

    def col_sum(self, j: int) -> Fraction | None:
        """The sum of column ``j``, when the structure of the value fixes it exactly."""
        return None

    def row_dot(self, i: int, values: Sequence[Fraction | None]) -> Fraction | None:
        """Σ_j self[i, j]·values[j] exactly, when that is provable (``values[j]`` None:
        not rational). By default, when every term is a proven rational, or when every value
        is the same c and the row's sum is known (c times it: 1ᵀ-style structure, so that
        dQ·1 = 0 gives dQ·(c, c, …)ᵀ = 0)."""
        got = self._dot([self.flat(i, j) for j in range(self.shape[1])], values)
        return got if got is not None else _times(_same_sums(list(values)), lambda: self.row_sum(i))

    def col_dot(self, j: int, values: Sequence[Fraction | None]) -> Fraction | None:
        """Σ_i self[i, j]·values[i] exactly, when that is provable (as :meth:`row_dot`)."""
        got = self._dot([self.flat(i, j) for i in range(self.shape[0])], values)
        return got if got is not None else _times(_same_sums(list(values)), lambda: self.col_sum(j))

    def _dot(self, ks: list[int], values: Sequence[Fraction | None]) -> Fraction | None:
        total = Fraction(0)
        for k, v in zip(ks, values):
            if v == 0:
                continue
            x = self.rational(k)
            if x == 0:
                continue
            if x is None or v is None:
                return None
            total += x * v
        return total

    def value_key(self, i: int, j: int) -> object:
        """A hashable key: equal keys imply equal exact values (used for exact ties)."""
        return self.entry(i, j)

    def is_exact_zero(self, k: int) -> bool:
        """Prove entry ``k`` exactly 0 from its closed form (bounded: a closed form of at most
        ``EXACT_ZERO_MAX_TERMS`` exponentials and ``MAX_EXACT_NODES`` nodes)."""
        q = self.rational(k)
        if q is not None:
            return q == 0
        if self.terms() > EXACT_ZERO_MAX_TERMS:
            return False
        e = self.entry(*self.index(k))
        if e == 0:
            return True
        if expression_size(e, MAX_EXACT_NODES + 1) > MAX_EXACT_NODES:
            return False
        return is_zero(e)

    def terms(self) -> int:
        """How many exponentials one exact entry may hold (the size of its closed form)."""
        return max((c.terms() for c in self.children), default=1)

    # -- infinities and undefined values --
    def infinite_entries(self) -> set[tuple[int, ...]]:
        """The entries that are exactly -inf (masked scores), as (i, j) pairs (cached)."""
        if self._infinite is None:
            self._infinite = self._find_infinite()
        return self._infinite

    def _find_infinite(self) -> set[tuple[int, ...]]:
        return set()

    def has_infinite(self) -> bool:
        return bool(self.infinite_entries())

    def is_infinite(self, k: int) -> bool:
        """True when flat entry ``k`` is exactly -inf (a masked score)."""
        return self.has_infinite() and self.index(k) in self.infinite_entries()

    def undefined(self) -> UndefinedValueError | None:
        """The first undefined value this value is computed from, or None (cached).

        Undefined: 0/0, ∞ − ∞, NaN, a division by zero, or a -inf (a masked score) that
        reaches an operation other than a softmax or a normalisation. Such a value never
        gets digits; :meth:`decimals` raises this error instead.
        """
        if self._undefined is _UNSET:
            self._undefined = self._find_undefined()
        return self._undefined  # type: ignore[return-value]

    def _find_undefined(self) -> UndefinedValueError | None:
        for c in self.children:
            u = c.undefined()
            if u is not None:
                return u
        if not self.reads_infinite:
            for c in self.children:
                if c.has_infinite():
                    k = c.flat(*min(c.infinite_entries()))
                    return UndefinedValueError(
                        c.describe(k), f"it is -inf (a masked score) and enters {self.op_name}, which needs a "
                                       "finite number (only a softmax or a normalisation reads -inf as a mask)")
        return None

    # -- enclosures --
    def ball_mat(self, prec: int) -> arb_mat:
        """Every entry enclosed at working precision ``prec`` (or higher: an enclosure
        computed at a higher precision is kept and reused, it is only tighter)."""
        if self.symbolic:
            raise CertificationError("a value with symbols has no decimals")
        if self._ball is None or self._ball[0] < prec:
            with workprec(prec):
                self._ball = (prec, self._compute_ball(prec))
        return self._ball[1]  # type: ignore[return-value]

    def _compute_ball(self, prec: int) -> arb_mat:
        raise NotImplementedError

    def balls(self, prec: int) -> list[arb]:
        """All entries enclosed at precision ``prec``, flat in row-major order."""
        m = self.ball_mat(prec)
        return [x for row in m.tolist() for x in row]

    # -- certified decimals: the one place digits are made --
    def decimals(self, digits: int = 6) -> list | None:
        """Certified decimals (strings), nested like the value; None when symbolic."""
        if self.symbolic:
            return None
        got = self._decimals.get(digits)
        if got is None:
            flat = self._certified(list(range(self.size)), digits)
            got = self._decimals[digits] = _nest(flat, self.shape)
        return got

    def decimal(self, k: int, digits: int = 6) -> str:
        """Certified decimals of one entry (flat index ``k``), by the same rules as
        :meth:`decimals`; the exact text when the value has symbols."""
        if self.symbolic:
            return str(self.entry(*self.index(k)))
        got = self._decimals.get(digits)
        if got is not None:
            return _nest_get(got, self.index(k))
        return self._certified([k], digits)[0]

    def prints_exactly(self, k: int, digits: int) -> bool:
        """Whether the decimal of entry ``k`` at ``digits`` digits is its exact value (a -inf,
        or a rational whose decimal expansion ends within ``digits`` significant digits)."""
        if self.is_infinite(k):
            return True
        q = self.rational(k)
        return q is not None and is_exact_decimal(q, digits)

    def refuse_undefined(self) -> None:
        """Raise :class:`UndefinedValueError` when this value depends on an undefined one."""
        u = self.undefined()
        if u is not None:
            raise UndefinedValueError(u.where, u.reason,
                                      self.label if self.label and not u.where.startswith(self.label + "[")
                                      else None)

    def _certified(self, ks: list[int], digits: int) -> list[str]:
        check_digits(digits, len(ks))
        self.refuse_undefined()
        out = {k: "-inf" for k in ks if self.is_infinite(k)}
        finite = [k for k in ks if k not in out]
        if finite:
            values = certify(len(finite), digits, lambda p: _pick(self.balls(p), finite),
                             lambda t: self.rational(finite[t]), lambda t: self.describe(finite[t]),
                             lambda t: self.is_exact_zero(finite[t]))
            for k, s in zip(finite, values):
                if _may_terminate(s, digits):
                    q = self.rational(k)
                    if q is not None:
                        s = format_rational(q, digits)
                out[k] = s
        return [out[k] for k in ks]


def expression_size(e: sympy.Basic, cap: int) -> int:
    """Nodes of an expression as a tree (shared subexpressions counted each time they are
    printed), counting no further than ``cap``.

    >>> expression_size(sympy.exp(2) / (1 + sympy.exp(2)), 100), expression_size(sympy.exp(2) + 1, 2)
    (9, 2)
    """
    n = 0
    for _ in sympy.preorder_traversal(e):
        n += 1
        if n >= cap:
            break
    return n


def _may_terminate(text: str, digits: int) -> bool:
    """Whether certified digits end in enough zeros that the value may be an exact
    terminating rational (then printed exactly, e.g. '1' rather than '1.00000')."""
    mant = text.split("e")[0]
    if "." not in mant:
        return False
    need = max(1, min(4, digits // 2))
    return len(mant) - len(mant.rstrip("0")) >= need


def _pick(seq: Sequence[arb], idx: list[int]) -> list[arb]:
    if len(idx) == len(seq):
        return list(seq)
    return [seq[k] for k in idx]


def _nest(flat: list, shape: tuple[int, ...]) -> list:
    if len(shape) == 1:
        return list(flat)
    step = len(flat) // shape[0]
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _nest_get(nested: list, idx: tuple[int, ...]) -> str:
    for i in idx:
        nested = nested[i]
    return nested  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------
# leaves


class RationalNode(Node):
    """An exact rational matrix (python-flint ``fmpq_mat``), computed lazily."""

    is_rational_matrix = True

    def __init__(self, shape: tuple[int, int], compute: Callable[[], fmpq_mat]) -> None:
        super().__init__()
        self.shape = shape
        self._compute = compute
        self._mat: fmpq_mat | None = None

    @property
    def mat(self) -> fmpq_mat:
        if self._mat is None:
            self._mat = self._compute()
        return self._mat

    def entry(self, i: int, j: int) -> sympy.Rational:
        return _rat(self.mat[i, j])

    def fraction(self, i: int, j: int) -> Fraction:
        return _frac(self.mat[i, j])

    def rational(self, k: int) -> Fraction:
        i, j = self.index(k)
        return self.fraction(i, j)

    def row_sum(self, i: int) -> Fraction:
        return sum((self.fraction(i, j) for j in range(self.shape[1])), Fraction(0))

    def col_sum(self, j: int) -> Fraction:
        return sum((self.fraction(i, j) for i in range(self.shape[0])), Fraction(0))

    def value_key(self, i: int, j: int) -> object:
        q = self.mat[i, j]
        return (int(q.p), int(q.q))

    def _compute_ball(self, prec: int) -> arb_mat:
        return arb_mat(self.mat)

    def _certified(self, ks: list[int], digits: int) -> list[str]:
        check_digits(digits, len(ks))
        return [format_rational(self.rational(k), digits) for k in ks]


def rational_matrix(rows: Sequence[Sequence[object]]) -> RationalNode:
    """A :class:`RationalNode` from nested ints, Fractions or SymPy rationals.

    >>> rational_matrix([[1, Fraction(1, 2)]]).exact()
    Matrix([[1, 1/2]])
    """
    data = [[_to_fmpq(x) for x in row] for row in rows]
    m = fmpq_mat(data) if data and data[0] else fmpq_mat(len(data), 0)
    return RationalNode((len(data), len(data[0]) if data else 0), lambda: m)


def _to_fmpq(x: object) -> fmpq:
    if isinstance(x, fmpq):
        return x
    if isinstance(x, int):
        return fmpq(x)
    if isinstance(x, Fraction):
        return fmpq(x.numerator, x.denominator)
    if isinstance(x, sympy.Rational):
        return fmpq(int(x.p), int(x.q))
    raise TypeError(f"not a rational: {x!r}")


def _not_a_number(e: sympy.Expr) -> str | None:
    """Why an exact entry given as a leaf is not a finite number (-inf is a mask: allowed)."""
    if e == NEG_INF:
        return None
    if e.has(sympy.S.NaN):
        return "it is not a number (NaN)"
    if e.has(sympy.S.ComplexInfinity):
        return "it is a division by zero"
    if e.has(sympy.S.Infinity) or e.has(NEG_INF):
        return "it is infinite (only -inf, a masked score, is allowed, and only in a bias or mask_value)"
    return None


class SympyNode(Node):
    """A matrix of SymPy expressions (symbolic examples, or irregular exact values)."""

    def __init__(self, m: sympy.MatrixBase) -> None:
        super().__init__()
        self.m = sympy.ImmutableMatrix(m)
        self.shape = (self.m.rows, self.m.cols)
        self.symbolic = bool(self.m.free_symbols)

    def entry(self, i: int, j: int) -> sympy.Expr:
        return self.m[i, j]

    def build(self) -> sympy.Matrix:
        return self.m

    def _find_infinite(self) -> set[tuple[int, ...]]:
        r, c = self.shape
        return {(i, j) for i in range(r) for j in range(c) if self.m[i, j] == NEG_INF}

    def _find_undefined(self) -> UndefinedValueError | None:
        for k, e in enumerate(self.m):
            why = _not_a_number(e)
            if why is not None:
                return UndefinedValueError(self.describe(k), why)
        return None

    def rational(self, k: int) -> Fraction | None:
        e = self.m[self.index(k)]
        return Fraction(int(e.p), int(e.q)) if e.is_Rational else None

    def _compute_ball(self, prec: int) -> arb_mat:
        r, c = self.shape
        nan = arb.nan()  # -inf and undefined entries: never turned into digits
        return arb_mat([[nan if _not_a_number(self.m[i, j]) is not None or self.m[i, j] == NEG_INF
                         else to_arb(self.m[i, j], prec) for j in range(c)] for i in range(r)])


# ---------------------------------------------------------------------------------------
# operations


class _Derived(Node):
    def __init__(self, children: Iterable[Node]) -> None:
        super().__init__()
        self.children = list(children)
        self.symbolic = any(c.symbolic for c in self.children)


class _Formula(_Derived):
    """A value computed row by row by one formula, :meth:`_row` (``ar`` is the arithmetic:
    exact SymPy values or balls). Exact rows are cached."""

    def __init__(self, children: Iterable[Node]) -> None:
        super().__init__(children)
        self._exact_rows: dict[int, list] = {}

    def _row(self, ar: Any, i: int) -> list:
        raise NotImplementedError

    def exact_row(self, i: int) -> list:
        row = self._exact_rows.get(i)
        if row is None:
            row = self._exact_rows[i] = self._row(_EXACT, i)
        return row

    def entry(self, i: int, j: int) -> sympy.Expr:
        return self.exact_row(i)[j]

    def _compute_ball(self, prec: int) -> arb_mat:
        ar = _Balls(prec)
        return arb_mat([self._row(ar, i) for i in range(self.shape[0])])


def _times(c: Fraction | None, other: Callable[[], Fraction | None]) -> Fraction | None:
    """c·other() when both are known; 0 when c is 0 (``other`` is then not computed)."""
    if c is None:
        return None
    if c == 0:
        return Fraction(0)
    x = other()
    return None if x is None else c * x


def _same_sums(sums: list[Fraction | None]) -> Fraction | None:
    """The common value of a list of known sums, or None."""
    if not sums or any(s is None for s in sums) or len(set(sums)) != 1:
        return None
    return sums[0]


class MatMulNode(_Derived):
    """``A @ B (+ bias row)`` where some factor is not rational."""

    op_name = "a product"

    def __init__(self, a: Node, b: Node, bias: Node | None = None) -> None:
        super().__init__([a, b] + ([bias] if bias is not None else []))
        self.a, self.b, self.bias = a, b, bias
        self.shape = (a.shape[0], b.shape[1])
        self._entries: dict[tuple[int, int], sympy.Expr] = {}
        self._rationals: dict[int, Fraction | None] = {}

    def entry(self, i: int, j: int) -> sympy.Expr:
        total = self._entries.get((i, j))
        if total is None:  # cached: a product of products would build its factors' entries again
            total = sympy.Add(*[self.a.entry(i, k) * self.b.entry(k, j) for k in range(self.a.shape[1])])
            if self.bias is not None:
                total += self.bias.entry(0, j)
            self._entries[(i, j)] = total
        return total

    def terms(self) -> int:
        inner = max(self.a.terms(), self.b.terms())
        return inner if isinstance(self, AttendNode) else inner * self.a.shape[1]

    def rational(self, k: int) -> Fraction | None:
        if k not in self._rationals:  # cached: a product of products asks for whole rows and columns
            self._rationals[k] = self._rational(k)
        return self._rationals[k]

    def _rational(self, k: int) -> Fraction | None:
        # a sum of products of proven rationals is rational (whatever SymPy's form says); or the
        # structure of one factor decides the product with the other's (rational) row or column
        i, j = self.index(k)
        a, b = self.a, self.b
        total: Fraction | None = Fraction(0)
        for t in range(a.shape[1]):
            x = a.rational(a.flat(i, t))
            if x == 0:
                continue
            y = b.rational(b.flat(t, j)) if x is not None else None
            if x is None or y is None:
                total = None
                break
            total += x * y
        if total is None:
            total = a.row_dot(i, [b.rational(b.flat(t, j)) for t in range(a.shape[1])])
        if total is None:
            total = b.col_dot(j, [a.rational(a.flat(i, t)) for t in range(a.shape[1])])
        if total is None:
            return super().rational(k)
        if self.bias is not None:
            c = self.bias.rational(j)
            if c is None:
                return super().rational(k)
            total += c
        return total

    def row_sum(self, i: int) -> Fraction | None:
        # A·B·1 = A·(B·1): when every row of B sums to c, this row sums to c·(row sum of A) + Σ bias
        c = _same_sums([self.b.row_sum(t) for t in range(self.b.shape[0])])
        return self._plus_bias(_times(c, lambda: self.a.row_sum(i)), lambda b: b.row_sum(0))

    def col_sum(self, j: int) -> Fraction | None:
        # 1ᵀ·A·B = (1ᵀ·A)·B: when every column of A sums to c, this column sums to c·(column sum
        # of B) + rows·bias_j
        c = _same_sums([self.a.col_sum(t) for t in range(self.a.shape[1])])
        return self._plus_bias(_times(c, lambda: self.b.col_sum(j)),
                               lambda b: _times(Fraction(self.shape[0]), lambda: b.rational(j)))

    def _plus_bias(self, s: Fraction | None, part: Callable[[Node], Fraction | None]) -> Fraction | None:
        if s is None or self.bias is None:
            return s
        extra = part(self.bias)
        return None if extra is None else s + extra

    def _compute_ball(self, prec: int) -> arb_mat:
        out = self.a.ball_mat(prec) * self.b.ball_mat(prec)
        if self.bias is not None:
            bias = self.bias.ball_mat(prec)
            out = out + arb_mat([[bias[0, j] for j in range(self.shape[1])]] * self.shape[0])
        return out


def matmul(a: Node, b: Node, bias: Node | None = None) -> Node:
    """``a @ b``, plus an optional bias row (1 x cols) added to every row.

    >>> matmul(rational_matrix([[1, 2]]), rational_matrix([[3], [4]])).exact()
    Matrix([[11]])
    """
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"cannot multiply {a.shape} by {b.shape}")
    if a.is_rational_matrix and b.is_rational_matrix and (bias is None or bias.is_rational_matrix):
        def compute() -> fmpq_mat:
            out = a.mat * b.mat  # type: ignore[attr-defined]
            if bias is not None:
                ones_ = fmpq_mat(a.shape[0], 1, [1] * a.shape[0])
                out = out + ones_ * bias.mat  # type: ignore[attr-defined]
            return out
        return RationalNode((a.shape[0], b.shape[1]), compute)
    if a.symbolic or b.symbolic or (bias is not None and bias.symbolic):
        m = a.exact() * b.exact()
        if bias is not None:
            m = m + sympy.ones(a.shape[0], 1) * bias.exact()
        return SympyNode(m)
    return MatMulNode(a, b, bias)


class TransposeNode(_Derived):
    reads_infinite = True  # passes them through

    def __init__(self, a: Node) -> None:
        super().__init__([a])
        self.a = a
        self.shape = (a.shape[1], a.shape[0])

    def _flip(self, k: int) -> int:
        i, j = self.index(k)
        return j * self.shape[0] + i

    def entry(self, i: int, j: int) -> sympy.Expr:
        return self.a.entry(j, i)

    def value_key(self, i: int, j: int) -> object:
        return self.a.value_key(j, i)

    def _find_infinite(self) -> set[tuple[int, ...]]:
        return {(j, i) for (i, j) in self.a.infinite_entries()}

    def rational(self, k: int) -> Fraction | None:
        return self.a.rational(self._flip(k))

    def row_sum(self, i: int) -> Fraction | None:
        return self.a.col_sum(i)

    def col_sum(self, j: int) -> Fraction | None:
        return self.a.row_sum(j)

    def row_dot(self, i: int, values: Sequence[Fraction | None]) -> Fraction | None:
        return self.a.col_dot(i, values)

    def col_dot(self, j: int, values: Sequence[Fraction | None]) -> Fraction | None:
        return self.a.row_dot(j, values)

    def _compute_ball(self, prec: int) -> arb_mat:
        return self.a.ball_mat(prec).transpose()


def transpose(a: Node) -> Node:
    """The transpose of a value (exact, no copy of the work)."""
    if a.is_rational_matrix:
        return RationalNode((a.shape[1], a.shape[0]), lambda: a.mat.transpose())  # type: ignore[attr-defined]
    if isinstance(a, SympyNode):
        return SympyNode(a.m.T)
    return TransposeNode(a)


def _scaled(tau: Any, x: Any) -> Any:
    """τ·x: one formula for an exact entry and for a matrix of balls."""
    return tau * x


class ScaleNode(_Derived):
    """``tau * A`` for an exact constant ``tau`` (irrational, or ``A`` not rational)."""

    op_name = "a scaling"

    def __init__(self, a: Node, tau: sympy.Expr) -> None:
        super().__init__([a])
        self.a, self.tau = a, tau
        self.shape = a.shape

    def entry(self, i: int, j: int) -> sympy.Expr:
        return _scaled(self.tau, self.a.entry(i, j))

    def _times_tau(self, q: Fraction | None) -> Fraction | None:
        if q == 0:
            return Fraction(0)
        if q is not None and self.tau.is_Rational:
            return q * Fraction(int(self.tau.p), int(self.tau.q))
        return None

    def rational(self, k: int) -> Fraction | None:
        return self._times_tau(self.a.rational(k))

    def row_sum(self, i: int) -> Fraction | None:
        return self._times_tau(self.a.row_sum(i))

    def col_sum(self, j: int) -> Fraction | None:
        return self._times_tau(self.a.col_sum(j))

    def value_key(self, i: int, j: int) -> object:
        return self.a.value_key(i, j)  # tau is a fixed nonzero constant

    def _find_undefined(self) -> UndefinedValueError | None:
        why = _not_a_number(self.tau) or ("it is -inf" if self.tau == NEG_INF else None)
        if why is not None:
            return UndefinedValueError(f"the scale τ = {self.tau}", why)
        return super()._find_undefined()

    def _compute_ball(self, prec: int) -> arb_mat:
        return _scaled(to_arb(self.tau, prec), self.a.ball_mat(prec))


def scale(a: Node, tau: sympy.Expr) -> Node:
    """``tau * a`` for an exact constant ``tau``.

    >>> scale(rational_matrix([[2]]), 1 / sympy.sqrt(2)).exact()
    Matrix([[sqrt(2)]])
    """
    if tau == 1:
        return a
    if tau.is_Rational and a.is_rational_matrix:
        t = fmpq(int(tau.p), int(tau.q))
        return RationalNode(a.shape, lambda: a.mat * t)  # type: ignore[attr-defined]
    if a.symbolic or tau.free_symbols:
        return SympyNode(a.build() * tau)
    return ScaleNode(a, tau)


class MaskNode(_Formula):
    """Scores with an additive bias and masked entries (-inf, or replaced by a finite value)."""

    op_name = "a sum with the bias"

    def __init__(self, s: Node, bias: Node | None, neg_inf: set[tuple[int, int]],
                 replace: dict[tuple[int, int], sympy.Expr]) -> None:
        super().__init__([s] + ([bias] if bias is not None else []))
        self.s, self.bias = s, bias
        self.neg_inf = set(neg_inf)
        self.replace = dict(replace)
        self.shape = s.shape

    def _row(self, ar: Any, i: int) -> list:
        s = ar.row(self.s, i)
        b = ar.row(self.bias, i) if self.bias is not None else None
        out = []
        for j in range(self.shape[1]):
            if (i, j) in self.neg_inf:
                out.append(ar.minus_infinity)
            elif (i, j) in self.replace:
                out.append(ar.const(self.replace[(i, j)]))
            else:
                out.append(s[j] + b[j] if b is not None else s[j])
        return out

    def _find_infinite(self) -> set[tuple[int, ...]]:
        return set(self.neg_inf)  # type: ignore[arg-type]

    def _find_undefined(self) -> UndefinedValueError | None:
        for (i, j), v in sorted(self.replace.items()):
            why = _not_a_number(v) or ("it is -inf" if v == NEG_INF else None)
            if why is not None:
                return UndefinedValueError(f"the mask value {v}", why)
        return super()._find_undefined()

    def value_key(self, i: int, j: int) -> object:
        if (i, j) in self.neg_inf:
            return "-inf"
        if (i, j) in self.replace:
            return ("replaced", self.replace[(i, j)])
        return (self.s.value_key(i, j), self.bias.value_key(i, j) if self.bias is not None else 0)

    def rational(self, k: int) -> Fraction | None:
        idx = self.index(k)
        if idx in self.neg_inf:
            return None
        if idx in self.replace:
            v = self.replace[idx]  # type: ignore[index]
            return Fraction(int(v.p), int(v.q)) if v.is_Rational else None
        q = self.s.rational(k)
        if self.bias is None or q is None:
            return q
        b = self.bias.rational(k)
        return None if b is None else q + b


def masked(s: Node, bias: Node | None = None, neg_inf: Iterable[tuple[int, int]] = (),
           replace: dict[tuple[int, int], sympy.Expr] | None = None) -> MaskNode:
    """Scores plus an additive bias (whose -inf entries mask), with masked entries.

    >>> m = masked(rational_matrix([[1, 2]]), neg_inf=[(0, 1)])
    >>> m.exact(), m.decimals(3)
    (Matrix([[1, -oo]]), [['1', '-inf']])
    """
    neg = set(neg_inf)
    if bias is not None:
        neg |= {(int(i), int(j)) for (i, j) in bias.infinite_entries()}
        if neg and isinstance(bias, SympyNode):
            bias = SympyNode(bias.m.applyfunc(lambda x: 0 if x == NEG_INF else x))
            if not bias.m.free_symbols and all(x.is_Rational for x in bias.m):
                bias = rational_matrix(bias.m.tolist())
    replace = {k: v for k, v in (replace or {}).items() if k not in neg}
    return MaskNode(s, bias, neg, replace)


def _unmasked(m: Node, masked_rows: str) -> tuple[list[list[int]], set[int]]:
    """Per row, the keys that are not -inf; and the fully masked rows (an error, or rows
    of zeros with ``masked_rows = "zero"``)."""
    neg = m.infinite_entries()
    keys: list[list[int]] = []
    zero_rows: set[int] = set()
    for i in range(m.shape[0]):
        row = [j for j in range(m.shape[1]) if (i, j) not in neg] if neg else list(range(m.shape[1]))
        if not row:
            if masked_rows != "zero":
                raise FullyMaskedRow(i)
            zero_rows.add(i)
        keys.append(row)
    return keys, zero_rows


class SoftmaxNode(_Formula):
    """Row-wise softmax, exp(x_ij - x_ir) / sum_k exp(x_ik - x_ir), with x_ir the smallest
    unmasked entry of row i (so exponents are >= 0 and rows read like (1, e^2, e^2)/(1 + 2e^2))."""

    reads_infinite = True  # -inf entries are masked keys

    def __init__(self, m: Node, masked_rows: str = "error") -> None:
        super().__init__([m])
        self.m = m
        self.shape = m.shape
        self.keys, self.zero_rows = _unmasked(m, masked_rows)
        self._ref: list[int | None] | None = None
        self._groups: dict[int, dict[object, list[int]]] = {}
        self._exact_exponents: dict[int, dict[int, sympy.Expr]] = {}

    @property
    def ref(self) -> list[int | None]:
        """Per row, the column whose value is subtracted in the exponents (None: no shift)."""
        if self._ref is None:
            if self.m.symbolic:
                self._ref = [None] * self.shape[0]
            else:
                self._choose_ref(self.m.ball_mat(64).tolist())
        return self._ref  # type: ignore[return-value]

    def _choose_ref(self, rows: list[list[arb]]) -> None:
        """Pick each row's smallest unmasked entry (by ball midpoint). Any choice gives a
        correct closed form; this one makes every exponent >= 0."""
        refs: list[int | None] = []
        for i, keys in enumerate(self.keys):
            row = rows[i]
            best = None
            best_mid = None
            for j in keys:
                mid = row[j].mid()
                if best is None or mid < best_mid:
                    best, best_mid = j, mid
            refs.append(best)
        self._ref = refs

    def terms(self) -> int:
        return max((len(k) for k in self.keys), default=1) * self.m.terms()

    def exponents(self, ar: Any, i: int) -> dict[int, Any]:
        """The exponents x_ij − x_ir of row i's unmasked keys (the formula's one shift)."""
        if ar is _EXACT and i in self._exact_exponents:
            return self._exact_exponents[i]
        x = ar.row(self.m, i)
        r = self.ref[i]
        out = {j: x[j] for j in self.keys[i]} if r is None else {j: x[j] - x[r] for j in self.keys[i]}
        if ar is _EXACT:
            self._exact_exponents[i] = out
        return out

    def _row(self, ar: Any, i: int) -> list:
        if i in self.zero_rows:
            return [ar.zero] * self.shape[1]
        e = {j: ar.exp(x) for j, x in self.exponents(ar, i).items()}
        total = ar.sum(list(e.values()))
        return [e[j] / total if j in e else ar.zero for j in range(self.shape[1])]

    def exponent(self, i: int, j: int) -> sympy.Expr:
        """The exact exponent of entry (i, j): x_ij - x_ir."""
        return self.exponents(_EXACT, i)[j]

    def denominator(self, i: int) -> sympy.Expr:
        """The exact denominator of row i: Σ_k exp(x_ik − x_ir)."""
        return sympy.Add(*[sympy.exp(x) for x in self.exponents(_EXACT, i).values()])

    def groups(self, i: int) -> dict[object, list[int]]:
        """Unmasked keys of row i grouped by equal exact score (cached)."""
        g = self._groups.get(i)
        if g is None:
            g = {}
            for k in self.keys[i]:
                g.setdefault(self.m.value_key(i, k), []).append(k)
            self._groups[i] = g
        return g

    def rational(self, k: int) -> Fraction | None:
        i, j = self.index(k)
        if i in self.zero_rows or j not in self.keys[i]:
            return Fraction(0)
        # Lindemann-Weierstrass: with algebraic exponents, a weight is rational only
        # when every unmasked exponent of its row is equal.
        return Fraction(1, len(self.keys[i])) if len(self.groups(i)) == 1 else None

    def row_sum(self, i: int) -> Fraction:
        return Fraction(0) if i in self.zero_rows else Fraction(1)

    def row_dot(self, i: int, values: Sequence[Fraction | None]) -> Fraction | None:
        """Σ_j p_ij·values[j], a weighted mean of the values over the unmasked keys. Group the
        keys by equal score: when every group has the same mean value c, the result is exactly
        c, whatever the exponentials. Otherwise, by Lindemann–Weierstrass, it is irrational
        for algebraic scores: None either way."""
        if i in self.zero_rows:
            return Fraction(0)
        means = set()
        for g in self.groups(i).values():
            vals = [values[k] for k in g]
            if any(v is None for v in vals):
                return None
            means.add(sum(vals, Fraction(0)) / len(g))  # type: ignore[arg-type]
        return means.pop() if len(means) == 1 else None

    def _compute_ball(self, prec: int) -> arb_mat:
        if self._ref is None and not self.m.symbolic:
            self._choose_ref(self.m.ball_mat(prec).tolist())
        return super()._compute_ball(prec)


def softmax(m: Node, axis: str = "keys", masked_rows: str = "error") -> Node:
    """Softmax over keys (each row sums to 1) or over queries (each column sums to 1)."""
    if axis == "keys":
        return SoftmaxNode(m, masked_rows)
    if axis == "queries":
        return transpose(SoftmaxNode(transpose(m), masked_rows))
    raise ValueError(f"unknown softmax axis {axis!r}")


class AttendNode(MatMulNode):
    """``P @ V`` for softmax weights ``P``: exact entries written over the common denominator."""

    def __init__(self, p: Node, v: Node) -> None:
        super().__init__(p, v)

    def entry(self, i: int, j: int) -> sympy.Expr:
        p = self.a
        if not isinstance(p, SoftmaxNode):
            return super().entry(i, j)
        if i in p.zero_rows:
            return sympy.Integer(0)
        num = sympy.Add(*[self.b.entry(k, j) * sympy.exp(x) for k, x in p.exponents(_EXACT, i).items()])
        return num / p.denominator(i)

    def rational(self, k: int) -> Fraction | None:
        p, v = self.a, self.b
        i, j = self.index(k)
        # a weighted mean of the value column: exact when the weights' structure makes it so
        q = p.row_dot(i, [v.rational(v.flat(key, j)) for key in range(v.shape[0])])
        return q if q is not None else super().rational(k)


def attend(p: Node, v: Node) -> Node:
    """The attention output ``P @ V``."""
    if p.shape[1] != v.shape[0]:
        raise ValueError(f"cannot multiply weights {p.shape} by values {v.shape}")
    if p.symbolic or v.symbolic:
        node = AttendNode(p, v)
        return SympyNode(node.build())
    return AttendNode(p, v)


def _product(x: Any, y: Any) -> Any:
    """p_ij·v_jl: one formula for exact values and balls."""
    return x * y


class WeightedNode(_Derived):
    """The terms ``p_ij * v_jl`` before they are summed: shape (queries, keys, d_v)."""

    op_name = "a product"

    def __init__(self, p: Node, v: Node) -> None:
        super().__init__([p, v])
        self.p, self.v = p, v
        self.shape = (p.shape[0], p.shape[1], v.shape[1])

    def entry(self, i: int, j: int, l: int) -> sympy.Expr:  # type: ignore[override]
        return _product(self.p.entry(i, j), self.v.entry(j, l))

    def rational(self, k: int) -> Fraction | None:
        i, j, l = self.index(k)
        a = self.p.rational(self.p.flat(i, j))
        b = self.v.rational(self.v.flat(j, l))
        if a == 0 or b == 0:
            return Fraction(0)
        return None if a is None or b is None else a * b

    def balls(self, prec: int) -> list[arb]:
        if self.symbolic:
            raise CertificationError("a value with symbols has no decimals")
        with workprec(prec):
            p = self.p.ball_mat(prec)
            v = self.v.ball_mat(prec)
            a, b, c = self.shape
            return [_product(p[i, j], v[j, l]) for i in range(a) for j in range(b) for l in range(c)]


def weighted(p: Node, v: Node) -> Node:
    return WeightedNode(p, v)


class ConcatNode(_Derived):
    """Columns of several values side by side (multi-head concatenation)."""

    reads_infinite = True  # passes them through

    def __init__(self, parts: Sequence[Node]) -> None:
        super().__init__(parts)
        self.parts = list(parts)
        self.offsets = []
        c = 0
        for p in parts:
            self.offsets.append(c)
            c += p.shape[1]
        self.shape = (parts[0].shape[0], c)

    def _locate(self, j: int) -> tuple[Node, int]:
        for p, off in zip(reversed(self.parts), reversed(self.offsets)):
            if j >= off:
                return p, j - off
        raise IndexError(j)  # pragma: no cover

    def entry(self, i: int, j: int) -> sympy.Expr:
        p, jj = self._locate(j)
        return p.entry(i, jj)

    def value_key(self, i: int, j: int) -> object:
        p, jj = self._locate(j)
        return p.value_key(i, jj)

    def _find_infinite(self) -> set[tuple[int, ...]]:
        return {(i, j + off) for p, off in zip(self.parts, self.offsets) for (i, j) in p.infinite_entries()}

    def rational(self, k: int) -> Fraction | None:
        i, j = self.index(k)
        p, jj = self._locate(j)
        return p.rational(p.flat(i, jj))

    def row_sum(self, i: int) -> Fraction | None:
        sums = [p.row_sum(i) for p in self.parts]
        return None if any(s is None for s in sums) else sum(sums, Fraction(0))  # type: ignore[arg-type]

    def col_sum(self, j: int) -> Fraction | None:
        p, jj = self._locate(j)
        return p.col_sum(jj)

    def _compute_ball(self, prec: int) -> arb_mat:
        mats = [p.ball_mat(prec).tolist() for p in self.parts]
        return arb_mat([sum((m[i] for m in mats), []) for i in range(self.shape[0])])


def concat(parts: Sequence[Node]) -> Node:
    """Concatenate values column-wise."""
    if all(p.is_rational_matrix for p in parts):
        def compute() -> fmpq_mat:
            rows_ = [sum((list(p.mat.table()[i]) for p in parts), []) for i in range(parts[0].shape[0])]  # type: ignore[attr-defined]
            return fmpq_mat(rows_)
        return RationalNode((parts[0].shape[0], sum(p.shape[1] for p in parts)), compute)
    if any(p.symbolic for p in parts):
        return SympyNode(sympy.Matrix.hstack(*[p.build() for p in parts]))
    return ConcatNode(parts)


class SliceNode(_Derived):
    """Selected rows and columns of a value."""

    reads_infinite = True  # passes them through

    def __init__(self, a: Node, rows_: Sequence[int], cols: Sequence[int]) -> None:
        super().__init__([a])
        self.a = a
        self.r, self.c = list(rows_), list(cols)
        self.shape = (len(self.r), len(self.c))

    def _inner(self, k: int) -> int:
        i, j = self.index(k)
        return self.r[i] * self.a.shape[1] + self.c[j]

    def entry(self, i: int, j: int) -> sympy.Expr:
        return self.a.entry(self.r[i], self.c[j])

    def value_key(self, i: int, j: int) -> object:
        return self.a.value_key(self.r[i], self.c[j])

    def _find_infinite(self) -> set[tuple[int, ...]]:
        inner = self.a.infinite_entries()
        if not inner:
            return set()
        return {(i, j) for i, r in enumerate(self.r) for j, c in enumerate(self.c) if (r, c) in inner}

    def rational(self, k: int) -> Fraction | None:
        return self.a.rational(self._inner(k))

    def row_sum(self, i: int) -> Fraction | None:
        return self.a.row_sum(self.r[i]) if self.c == list(range(self.a.shape[1])) else None

    def col_sum(self, j: int) -> Fraction | None:
        return self.a.col_sum(self.c[j]) if self.r == list(range(self.a.shape[0])) else None

    def _compute_ball(self, prec: int) -> arb_mat:
        m = self.a.ball_mat(prec)
        return arb_mat([[m[i, j] for j in self.c] for i in self.r])


def _slice(a: Node, rows_: Sequence[int], cols_: Sequence[int]) -> Node:
    if list(rows_) == list(range(a.shape[0])) and list(cols_) == list(range(a.shape[1])):
        return a
    if a.is_rational_matrix:
        def compute() -> fmpq_mat:
            t = a.mat.table()  # type: ignore[attr-defined]
            return fmpq_mat([[t[i][j] for j in cols_] for i in rows_]) if rows_ and cols_ \
                else fmpq_mat(len(rows_), len(cols_))
        return RationalNode((len(rows_), len(cols_)), compute)
    if isinstance(a, SympyNode):
        return SympyNode(a.m.extract(list(rows_), list(cols_)))
    return SliceNode(a, rows_, cols_)


def columns(a: Node, start: int, stop: int) -> Node:
    """Columns ``start:stop`` of a value (one head's share)."""
    return _slice(a, range(a.shape[0]), range(start, stop))


def rows(a: Node, which: Sequence[int]) -> Node:
    """The given rows of a value (a focus query)."""
    return _slice(a, which, range(a.shape[1]))


# ---------------------------------------------------------------------------------------
# checking: intervals, the author's own numbers, row sums, a normalisation bug


def _interval(mid: Fraction | sympy.Expr, rad: Fraction, prec: int) -> arb:
    if not isinstance(mid, Fraction):  # an exact irrational entry beside rounded decimals
        return to_arb(mid, prec)
    if rad == 0:
        return arb(fmpq(mid.numerator, mid.denominator))
    lo, hi = mid - rad, mid + rad
    return arb(fmpq(lo.numerator, lo.denominator)).union(arb(fmpq(hi.numerator, hi.denominator)))


class IntervalNode(Node):
    """Rational values known only to ± a radius (inputs printed rounded). Its exact
    value is the printed one; its enclosures hold every value the rounding allows."""

    def __init__(self, mid: Sequence[Sequence[Fraction]], rad: Sequence[Sequence[Fraction]]) -> None:
        super().__init__()
        self.mid = [list(r) for r in mid]
        self.rad = [list(r) for r in rad]
        self.shape = (len(self.mid), len(self.mid[0]))

    def entry(self, i: int, j: int) -> sympy.Expr:
        q = self.mid[i][j]
        return sympy.Rational(q.numerator, q.denominator) if isinstance(q, Fraction) else q

    def rational(self, k: int) -> Fraction | None:
        i, j = self.index(k)
        q = self.mid[i][j]
        return q if self.rad[i][j] == 0 and isinstance(q, Fraction) else None

    def value_key(self, i: int, j: int) -> object:
        return ("interval", i, j) if self.rad[i][j] else self.mid[i][j]

    def _compute_ball(self, prec: int) -> arb_mat:
        return arb_mat([[_interval(m, r, prec) for m, r in zip(mr, rr)] for mr, rr in zip(self.mid, self.rad)])


class PatchNode(_Derived):
    """A value with some entries replaced by given rationals (optionally ± a radius), or by
    -inf (value None: a masked score as the author printed it): the author's printed numbers in
    place of the exact ones."""

    reads_infinite = True  # passes them through

    def __init__(self, base: Node, patches: dict[tuple[int, int], tuple[Fraction | None, Fraction]]) -> None:
        super().__init__([base])
        self.base = base
        self.patches = dict(patches)
        self.shape = base.shape

    def entry(self, i: int, j: int) -> sympy.Expr:
        p = self.patches.get((i, j))
        if p is None:
            return self.base.entry(i, j)
        return NEG_INF if p[0] is None else sympy.Rational(p[0].numerator, p[0].denominator)

    def _find_infinite(self) -> set[tuple[int, ...]]:
        return ({ij for ij in self.base.infinite_entries() if ij not in self.patches}
                | {ij for ij, (v, _) in self.patches.items() if v is None})

    def rational(self, k: int) -> Fraction | None:
        p = self.patches.get(self.index(k))  # type: ignore[arg-type]
        if p is None:
            return self.base.rational(k)
        return p[0] if p[1] == 0 else None

    def value_key(self, i: int, j: int) -> object:
        p = self.patches.get((i, j))
        if p is None:
            return self.base.value_key(i, j)
        return "-inf" if p[0] is None else ("patched", i, j) if p[1] else p[0]

    def _compute_ball(self, prec: int) -> arb_mat:
        rows_ = self.base.ball_mat(prec).tolist()
        for (i, j), (v, r) in self.patches.items():
            rows_[i][j] = arb.nan() if v is None else _interval(v, r, prec)
        return arb_mat(rows_)


def patch(base: Node, patches: dict[tuple[int, int], tuple[Fraction | None, Fraction]]) -> Node:
    """``base`` with some entries replaced (value, radius; value None: -inf); exact when possible.

    >>> m = patch(rational_matrix([[1, 2]]), {(0, 1): (None, Fraction(0))})
    >>> m.infinite_entries(), softmax(m).decimals(3)
    ({(0, 1)}, [['1', '0']])
    """
    if not patches:
        return base
    if base.is_rational_matrix and all(r == 0 and v is not None for v, r in patches.values()):
        def compute() -> fmpq_mat:
            m = fmpq_mat(base.mat)  # type: ignore[attr-defined]
            for (i, j), (v, _) in patches.items():
                m[i, j] = fmpq(v.numerator, v.denominator)
            return m
        return RationalNode(base.shape, compute)  # type: ignore[arg-type]
    return PatchNode(base, patches)


class RowSumNode(_Formula):
    """Row sums of a value: shape (rows, 1)."""

    op_name = "a sum"

    def __init__(self, a: Node) -> None:
        super().__init__([a])
        self.a = a
        self.shape = (a.shape[0], 1)

    def _row(self, ar: Any, i: int) -> list:
        return [ar.sum(ar.row(self.a, i))]

    def rational(self, k: int) -> Fraction | None:
        a = self.a
        known = a.row_sum(k)  # rows of a softmax sum to 1, rows of dS to 0, ...
        if known is not None:
            return known
        parts = [a.rational(k * a.shape[1] + c) for c in range(a.shape[1])]
        if all(p is not None for p in parts):
            return sum(parts, Fraction(0))  # type: ignore[arg-type]
        return super().rational(k)

    def row_sum(self, i: int) -> Fraction | None:
        return self.a.row_sum(i)

    def col_sum(self, j: int) -> Fraction | None:
        return _sum_known([self.a.row_sum(i) for i in range(self.a.shape[0])])

    def terms(self) -> int:
        return self.a.terms() * self.a.shape[1]


def _sum_known(parts: list[Fraction | None]) -> Fraction | None:
    return None if any(p is None for p in parts) else sum(parts, Fraction(0))  # type: ignore[arg-type]


def row_sums(a: Node) -> Node:
    """The row sums of a value (``weights_sum`` claims): shape (rows, 1)."""
    if a.is_rational_matrix:
        return matmul(a, ones(a.shape[1], 1))
    if a.symbolic:
        return SympyNode(RowSumNode(a).build())
    return RowSumNode(a)


class SumNormalizeNode(_Formula):
    """``x_ij / sum_k x_ik``: dividing by the row sum instead of a softmax (a common bug,
    reproduced on request). Masked entries (-inf) get weight 0 and are left out of the sum,
    as a softmax leaves them out; a finite ``mask_value`` is an ordinary entry. A row whose
    entries sum to exactly 0 is undefined (:meth:`undefined` names it)."""

    reads_infinite = True  # -inf entries are masked keys
    op_name = "a division by the row sum"

    def __init__(self, m: Node, masked_rows: str = "error") -> None:
        super().__init__([m])
        self.m = m
        self.shape = m.shape
        self.keys, self.zero_rows = _unmasked(m, masked_rows)

    def _row(self, ar: Any, i: int) -> list:
        if i in self.zero_rows:
            return [ar.zero] * self.shape[1]
        x = ar.row(self.m, i)
        keys = self.keys[i]
        total = ar.sum([x[j] for j in keys])
        out = [ar.zero] * self.shape[1]
        for j in keys:
            out[j] = x[j] / total
        return out

    def _row_total(self, i: int) -> Fraction | None:
        parts = [self.m.rational(self.m.flat(i, j)) for j in self.keys[i]]
        return _sum_known(parts)

    def _find_undefined(self) -> UndefinedValueError | None:
        u = super()._find_undefined()
        if u is not None or self.symbolic:
            return u
        balls = self.m.ball_mat(64).tolist()
        for i, keys in enumerate(self.keys):
            if i in self.zero_rows or not _Balls.sum([balls[i][j] for j in keys]).contains(0):
                continue
            total = self._row_total(i)
            if total == 0 or (total is None and sympy.Add(*[self.m.entry(i, j) for j in keys]) == 0):
                what = "unmasked entries" if len(keys) < self.shape[1] else "entries"
                return UndefinedValueError(
                    self.describe(self.flat(i, keys[0])),
                    f"the {what} of row {i + 1} sum to exactly 0, and normalization = \"sum\" divides by "
                    "that sum")
        return None

    def rational(self, k: int) -> Fraction | None:
        i, j = self.index(k)
        if i in self.zero_rows or j not in self.keys[i]:
            return Fraction(0)
        a, b = self.m.rational(k), self._row_total(i)
        if a is not None and b:
            return a / b
        return None

    def row_sum(self, i: int) -> Fraction:
        return Fraction(0) if i in self.zero_rows else Fraction(1)


def normalize(m: Node, how: str = "softmax", axis: str = "keys", masked_rows: str = "error") -> Node:
    """Attention weights from logits: ``softmax`` (the standard) or ``sum`` (dividing by
    the row sum, a bug some pages make; masked entries get weight 0).

    >>> normalize(masked(rational_matrix([[1, 3, 5]]), neg_inf=[(0, 2)]), "sum").decimals(6)
    [['0.25', '0.75', '0']]
    """
    if how == "softmax":
        return softmax(m, axis, masked_rows)
    if how != "sum":
        raise ValueError(f"unknown normalization {how!r}")
    node = SumNormalizeNode(m if axis == "keys" else transpose(m), masked_rows)
    out: Node = SympyNode(node.build()) if m.symbolic else node
    return out if axis == "keys" else transpose(out)


# ---------------------------------------------------------------------------------------
# element-wise arithmetic (the backward pass)


def _op(op: str, x: Any, y: Any) -> Any:
    if op == "mul":
        return x * y
    if op == "sub":
        return x - y
    return x + y


class ElementwiseNode(_Formula):
    """``a (op) b`` element by element, with ``b`` broadcast when it is one row or one column."""

    def __init__(self, op: str, a: Node, b: Node) -> None:
        super().__init__([a, b])
        self.op, self.a, self.b = op, a, b
        self.shape = a.shape
        self.op_name = {"mul": "a product", "sub": "a difference"}.get(op, "a sum")

    def _bidx(self, i: int, j: int) -> tuple[int, int]:
        return (0 if self.b.shape[0] == 1 else i, 0 if self.b.shape[1] == 1 else j)

    def terms(self) -> int:
        return self.a.terms() + self.b.terms()

    def _row(self, ar: Any, i: int) -> list:
        a = ar.row(self.a, i)
        b = ar.row(self.b, 0 if self.b.shape[0] == 1 else i)
        one = self.b.shape[1] == 1
        return [_op(self.op, a[j], b[0 if one else j]) for j in range(self.shape[1])]

    def rational(self, k: int) -> Fraction | None:
        i, j = self.index(k)
        bi, bj = self._bidx(i, j)
        x = self.a.rational(k)
        if self.op == "mul" and x == 0:
            return Fraction(0)
        y = self.b.rational(bi * self.b.shape[1] + bj)
        if self.op == "mul" and y == 0:
            return Fraction(0)
        if x is not None and y is not None:
            return _op(self.op, x, y)  # type: ignore[no-any-return]
        return None

    def _combined(self, sums: Callable[[Node], Fraction | None]) -> Fraction | None:
        # (A ± B)·1 = A·1 ± B·1, for B of A's shape (not broadcast)
        if self.op == "mul" or self.b.shape != self.a.shape:
            return None
        x, y = sums(self.a), sums(self.b)
        return None if x is None or y is None else _op(self.op, x, y)  # type: ignore[no-any-return]

    def row_sum(self, i: int) -> Fraction | None:
        return self._combined(lambda n: n.row_sum(i))

    def col_sum(self, j: int) -> Fraction | None:
        return self._combined(lambda n: n.col_sum(j))


def elementwise(op: str, a: Node, b: Node) -> Node:
    """``a * b``, ``a - b`` or ``a + b`` element-wise (``op``: mul, sub, add); ``b`` may be a
    single row or column, broadcast.

    >>> elementwise("mul", rational_matrix([[1, 2], [3, 4]]), rational_matrix([[10], [100]])).exact()
    Matrix([
    [ 10,  20],
    [300, 400]])
    """
    ok = b.shape == a.shape or (b.shape[0] in (1, a.shape[0]) and b.shape[1] in (1, a.shape[1]))
    if not ok:
        raise ValueError(f"cannot combine {a.shape} with {b.shape}")
    if a.is_rational_matrix and b.is_rational_matrix:
        def compute() -> fmpq_mat:
            r, c = a.shape
            am, bm = a.mat, b.mat  # type: ignore[attr-defined]
            rows_ = [[_op(op, am[i, j], bm[0 if b.shape[0] == 1 else i, 0 if b.shape[1] == 1 else j])
                      for j in range(c)] for i in range(r)]
            return fmpq_mat(rows_)
        return RationalNode(a.shape, compute)  # type: ignore[arg-type]
    if a.symbolic or b.symbolic:
        return SympyNode(ElementwiseNode(op, a, b).build())
    return ElementwiseNode(op, a, b)


def ones(r: int, c: int) -> RationalNode:
    """A matrix of ones."""
    return RationalNode((r, c), lambda: fmpq_mat(r, c, [1] * (r * c)))


def col_sums(a: Node) -> Node:
    """Column sums, as one row (1 x cols)."""
    return transpose(row_sums(transpose(a)))


def total(a: Node) -> Node:
    """The sum of all entries (1 x 1)."""
    return row_sums(col_sums(a))


class RowDotNode(_Formula):
    """Σ_j A_ij·B_ij per row (rowsum(A ∘ B)), shape (rows, 1): exact when one factor's
    structure proves it (:meth:`Node.row_dot`)."""

    op_name = "a sum of products"

    def __init__(self, a: Node, b: Node) -> None:
        super().__init__([a, b])
        self.a, self.b = a, b
        self.shape = (a.shape[0], 1)

    def _row(self, ar: Any, i: int) -> list:
        return [ar.sum([_product(x, y) for x, y in zip(ar.row(self.a, i), ar.row(self.b, i))])]

    def terms(self) -> int:
        return (self.a.terms() + self.b.terms()) * self.a.shape[1]

    def rational(self, k: int) -> Fraction | None:
        a, b = self.a, self.b
        q = a.row_dot(k, [b.rational(b.flat(k, j)) for j in range(b.shape[1])])
        if q is None:
            q = b.row_dot(k, [a.rational(a.flat(k, j)) for j in range(a.shape[1])])
        return q if q is not None else super().rational(k)


def row_dots(a: Node, b: Node) -> Node:
    """rowsum(a ∘ b) as a column (rows x 1).

    >>> row_dots(softmax(rational_matrix([[0, 5, 0]])), rational_matrix([[2, 2, 2]])).rational(0)
    Fraction(2, 1)
    """
    if a.is_rational_matrix and b.is_rational_matrix:
        return row_sums(elementwise("mul", a, b))
    node = RowDotNode(a, b)
    return SympyNode(node.build()) if node.symbolic else node


def _softmax_backward(p: Any, dp: Any, d: Any) -> Any:
    """dS_ij = P_ij·(dP_ij − D_i): one formula for exact values and balls."""
    return p * (dp - d)


def _softmax_backward_pivoted(p: list[arb], dp: list[arb]) -> list[arb]:
    """Enclosures of dS_j = P_j·(dP_j − D), D = Σ_k P_k dP_k, on a line whose weights sum to
    exactly 1, without cancellation. With r the largest weight, D − dP_r = Σ_k P_k (dP_k − dP_r)
    (as Σ_k P_k = 1), a sum of terms that are each small when P_r is close to 1, so

        dS_j = P_j·((dP_j − dP_r) − Σ_{k≠r} P_k (dP_k − dP_r)),  dS_r = −P_r·Σ_{k≠r} P_k (dP_k − dP_r).

    When a weight is within e^-10000 of 1 (a finite mask value such as -1e9), dP_r and D agree
    to thousands of digits, and the formula's dP_r − D would need that many bits; here every
    term keeps its relative precision. (Balls only: the exact value is the formula's.)

    >>> from flint import arb
    >>> tiny = arb(-10**9).exp()  # a weight e^-1e9 beside one of 1 − e^-1e9
    >>> ds = _softmax_backward_pivoted([1 - tiny, tiny], [arb(3), arb(5)])
    >>> ((ds[0] / (-2 * tiny)) - 1).abs_upper() < arb("1e-14")  # −P_0·P_1·(5 − 3), to 14 digits
    True
    >>> ((1 - tiny) * (3 - ((1 - tiny) * 3 + tiny * 5))).contains(0)  # the formula at the same precision
    True
    """
    r = max(range(len(p)), key=lambda k: p[k].mid())
    diff = [dp[k] - dp[r] if k != r else arb(0) for k in range(len(p))]  # dP_r − dP_r is exactly 0
    shift = sum((p[k] * diff[k] for k in range(len(p)) if k != r), arb(0))
    return [p[k] * (diff[k] - shift) for k in range(len(p))]


class SoftmaxBackwardNode(_Formula):
    """dS = P ∘ (dP − D 1ᵀ) with D = rowsum(P ∘ dP) (softmax over keys), or
    dS = P ∘ (dP − 1 D) with D = colsum(P ∘ dP) (softmax over queries).

    D is built here from P and dP, so the structure proves what the algebra says: a row
    of dS sums to Σ_j P_ij dP_ij − D_i Σ_j P_ij = D_i − D_i = 0 when the row of P sums to 1.
    """

    op_name = "the softmax backward"

    def __init__(self, p: Node, dp: Node, axis: str = "keys") -> None:
        d = row_dots(p, dp) if axis == "keys" else transpose(row_dots(transpose(p), transpose(dp)))
        super().__init__([p, dp, d])
        self.p, self.dp, self.d = p, dp, d
        self.shape = p.shape
        self.per_row = axis == "keys"
        self._flat: dict[int, bool] = {}

    def _row(self, ar: Any, i: int) -> list:
        p, dp = ar.row(self.p, i), ar.row(self.dp, i)
        if self.per_row:
            d = ar.row(self.d, i)[0]
            return [_softmax_backward(x, y, d) for x, y in zip(p, dp)]
        return [_softmax_backward(x, y, d) for x, y, d in zip(p, dp, ar.row(self.d, 0))]

    def terms(self) -> int:
        return self.p.terms() + self.dp.terms() + self.d.terms()

    def _compute_ball(self, prec: int) -> arb_mat:
        """The enclosures of the formula, except on a line (a row; a column for a softmax over
        queries) whose weights provably sum to 1: there :func:`_softmax_backward_pivoted`, the
        same values written without the cancellation of dP − D."""
        out = super()._compute_ball(prec)
        p, dp = self.p.ball_mat(prec), self.dp.ball_mat(prec)
        r, c = self.shape
        with workprec(prec):
            for n in range(r if self.per_row else c):
                if (self.p.row_sum(n) if self.per_row else self.p.col_sum(n)) != 1:
                    continue
                at = [(n, j) for j in range(c)] if self.per_row else [(i, n) for i in range(r)]
                for ij, x in zip(at, _softmax_backward_pivoted([p[ij] for ij in at], [dp[ij] for ij in at])):
                    out[ij] = x
        return out

    def rational(self, k: int) -> Fraction | None:
        w = self.p.rational(k)
        if w == 0:
            return Fraction(0)
        i, j = self.index(k)
        if self._flat_line(i if self.per_row else j):
            return Fraction(0)
        x = self.dp.rational(k)
        d = self.d.rational(i if self.per_row else j)
        if x is not None and d is not None:
            if x == d:  # dP_ij equals the weighted mean D: no gradient
                return Fraction(0)
            if w is not None:
                return _softmax_backward(w, x, d)  # type: ignore[no-any-return]
        return super().rational(k)

    def _line(self, n: int) -> list[int]:
        """The flat indices of the n-th line along the softmax (a row, or a column)."""
        if self.per_row:
            return [self.flat(n, j) for j in range(self.shape[1])]
        return [self.flat(i, n) for i in range(self.shape[0])]

    def _flat_line(self, n: int) -> bool:
        """Whether dS is 0 on the whole line: its weights sum to 1 and dP is the same exact value at
        every weight not proved 0, so D, the weighted mean of dP, is that value and dP − D = 0 (for
        example a sum loss with a softmax over queries: dP_ij = Σ_l V_jl whatever the query)."""
        got = self._flat.get(n)
        if got is None:
            line = self._line(n)
            total = self.p.row_sum(n) if self.per_row else self.p.col_sum(n)
            got = False
            if total == 1 and self.dp.terms() <= EXACT_CHECK_MAX_TERMS:  # value keys are closed forms: bounded
                got = len({self.dp.value_key(*self.index(k)) for k in line if self.p.rational(k) != 0}) == 1
            self._flat[n] = got
        return got

    def _zero_line(self, weight_sum: Fraction | None, line: list[int]) -> Fraction | None:
        if weight_sum == 1:
            return Fraction(0)
        if all(self.p.rational(k) == 0 for k in line):
            return Fraction(0)
        return None

    def row_sum(self, i: int) -> Fraction | None:
        if not self.per_row:
            return None
        return self._zero_line(self.p.row_sum(i), [self.flat(i, j) for j in range(self.shape[1])])

    def col_sum(self, j: int) -> Fraction | None:
        if self.per_row:
            return None
        return self._zero_line(self.p.col_sum(j), [self.flat(i, j) for i in range(self.shape[0])])


def softmax_backward(p: Node, dp: Node, axis: str = "keys") -> tuple[Node, Node]:
    """(dS, D): dS = P ∘ (dP − D 1ᵀ) with D = rowsum(P ∘ dP) (which equals rowsum(dO ∘ O)),
    or, for a softmax over queries, dS = P ∘ (dP − 1 D) with D = colsum(P ∘ dP).

    >>> P = softmax(rational_matrix([[0, 1]]))
    >>> dS, D = softmax_backward(P, rational_matrix([[3, 5]]))
    >>> dS.row_sum(0), row_sums(dS).decimals(6)
    (Fraction(0, 1), [['0']])
    """
    node = SoftmaxBackwardNode(p, dp, axis)
    if node.symbolic:
        return SympyNode(node.build()), node.d
    return node, node.d


# ---------------------------------------------------------------------------------------
# score variants (issue 13): additive (Bahdanau) energies through tanh, linear attention's
# feature map, row-wise division by a normaliser, and the recurrent state of causal linear
# attention. Each formula is written once and runs on exact values and on balls.


class PairSumNode(_Derived):
    """``H[i, j, t] = a[i, t] + b[j, t]``: the tanh pre-activations W_a q_i + U_a k_j of
    additive attention, shape (queries, keys, d_a).

    >>> pair_sums(rational_matrix([[1, 2]]), rational_matrix([[10, 20], [30, 40]])).exact().tolist()
    [[[11, 22], [31, 42]]]
    """

    op_name = "a sum"

    def __init__(self, a: Node, b: Node) -> None:
        super().__init__([a, b])
        self.a, self.b = a, b
        self.shape = (a.shape[0], b.shape[0], a.shape[1])

    def entry(self, i: int, j: int, t: int) -> sympy.Expr:  # type: ignore[override]
        return self.a.entry(i, t) + self.b.entry(j, t)

    def rational(self, k: int) -> Fraction | None:
        i, j, t = self.index(k)
        x, y = self.a.rational(self.a.flat(i, t)), self.b.rational(self.b.flat(j, t))
        return None if x is None or y is None else x + y

    def balls(self, prec: int) -> list[arb]:
        if self.symbolic:
            raise CertificationError("a value with symbols has no decimals")
        with workprec(prec):
            a, b = self.a.ball_mat(prec), self.b.ball_mat(prec)
            n, m, d = self.shape
            return [a[i, t] + b[j, t] for i in range(n) for j in range(m) for t in range(d)]


def pair_sums(a: Node, b: Node) -> Node:
    """The 3-index pre-activations ``a[i, :] + b[j, :]`` (see :class:`PairSumNode`)."""
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"cannot pair {a.shape} with {b.shape}")
    return PairSumNode(a, b)


def _energy(ar: Any, a: list, b: list, va: list) -> Any:
    """v_aᵀ tanh(a + b) = Σ_t va_t·tanh(a_t + b_t): one formula for exact values and balls."""
    return ar.sum([w * ar.tanh(x + y) for w, x, y in zip(va, a, b)])


class EnergyNode(_Formula):
    """Additive (Bahdanau) energies ``e_ij = v_aᵀ tanh(a_i + b_j)`` with ``a = Q W_a`` and
    ``b = K U_a`` (row form). Exact entries are sums of ``tanh`` of algebraic numbers
    (tanh x = (e^{2x} − 1)/(e^{2x} + 1)); balls use arb's tanh."""

    op_name = "the additive energies"

    def __init__(self, a: Node, b: Node, va: Node) -> None:
        super().__init__([a, b, va])
        self.a, self.b, self.va = a, b, va
        self.shape = (a.shape[0], b.shape[0])

    def _row(self, ar: Any, i: int) -> list:
        a, va = ar.row(self.a, i), ar.row(self.va, 0)
        return [_energy(ar, a, ar.row(self.b, j), va) for j in range(self.shape[1])]

    def terms(self) -> int:
        return self.a.shape[1] * max(self.a.terms(), self.b.terms())


def energies(a: Node, b: Node, va: Node) -> Node:
    """``e_ij = Σ_t va_t tanh(a_it + b_jt)`` (additive attention).

    >>> e = energies(rational_matrix([[0, 1]]), rational_matrix([[0, 0]]), rational_matrix([[2, 1]]))
    >>> e.exact(), e.decimals(6)
    (Matrix([[tanh(1)]]), [['0.761594']])
    """
    node = EnergyNode(a, b, va)
    return SympyNode(node.exact()) if node.symbolic else node


def _additive_grad(ar: Any, kind: str, a: list, b: list, va: list, de: Any) -> list:
    """One (query, key) pair's share of the additive gradients, per t: ``de·va_t·(1 − tanh²)``
    (d a_it and d b_jt) or ``de·tanh`` (d va_t)."""
    out = []
    for w, x, y in zip(va, a, b):
        t = ar.tanh(x + y)
        out.append(de * t if kind == "va" else de * w * (1 - t * t))
    return out


class AdditiveGradNode(_Formula):
    """Gradients through the additive energies, from dE (row form):

    * ``kind = "a"``: dA_it = Σ_j dE_ij va_t (1 − tanh²(a_it + b_jt)), shape of A = Q W_a;
    * ``kind = "b"``: dB_jt = Σ_i dE_ij va_t (1 − tanh²(a_it + b_jt)), shape of B = K U_a;
    * ``kind = "va"``: dva_t = Σ_ij dE_ij tanh(a_it + b_jt), one row.
    """

    op_name = "a gradient through tanh"

    def __init__(self, kind: str, a: Node, b: Node, va: Node, de: Node) -> None:
        super().__init__([a, b, va, de])
        self.kind, self.a, self.b, self.va, self.de = kind, a, b, va, de
        self.shape = {"a": a.shape, "b": b.shape, "va": va.shape}[kind]

    def _pairs(self, i: int) -> list[tuple[int, int]]:
        n, m = self.de.shape
        if self.kind == "a":
            return [(i, j) for j in range(m)]
        if self.kind == "b":
            return [(r, i) for r in range(n)]
        return [(r, j) for r in range(n) for j in range(m)]

    def _row(self, ar: Any, i: int) -> list:
        va = ar.row(self.va, 0)
        parts = [_additive_grad(ar, self.kind, ar.row(self.a, r), ar.row(self.b, j), va, ar.row(self.de, r)[j])
                 for r, j in self._pairs(i)]
        return [ar.sum([p[t] for p in parts]) for t in range(self.shape[1])]

    def terms(self) -> int:
        return max(c.terms() for c in self.children) * self.de.size


def additive_grad(kind: str, a: Node, b: Node, va: Node, de: Node) -> Node:
    """See :class:`AdditiveGradNode`.

    >>> g = additive_grad("va", rational_matrix([[0]]), rational_matrix([[0]]), rational_matrix([[1]]),
    ...                   rational_matrix([[1]]))
    >>> g.exact()
    Matrix([[0]])
    """
    node = AdditiveGradNode(kind, a, b, va, de)
    return SympyNode(node.exact()) if node.symbolic else node


def elu_plus_one(x: sympy.Expr) -> sympy.Expr:
    """φ(x) = elu(x) + 1 (Katharopoulos et al. 2020): x + 1 for x > 0, exp(x) for x ≤ 0 (a
    Piecewise when the sign of x is unknown).

    >>> elu_plus_one(sympy.Rational(1, 2)), elu_plus_one(sympy.Integer(-1)), elu_plus_one(sympy.Integer(0))
    (3/2, exp(-1), 1)
    """
    if x.is_positive:
        return x + 1
    if x.is_nonpositive:
        return sympy.exp(x)
    return sympy.Piecewise((x + 1, x > 0), (sympy.exp(x), True))


class FeatureMapNode(_Formula):
    """φ(X) element-wise for linear attention, with φ = elu + 1. The branch of each entry is
    decided exactly (its sign) once; the same branch then runs on balls."""

    op_name = "the feature map"

    def __init__(self, x: Node, derivative: bool = False) -> None:
        super().__init__([x])
        self.x = x
        self.shape = x.shape
        self.derivative = derivative  # φ′: 1 for x > 0, eˣ for x ≤ 0
        self._positive: dict[int, bool] = {}

    def positive(self, i: int, j: int) -> bool:
        """Whether entry (i, j) of the input is > 0 (decided exactly)."""
        k = self.x.flat(i, j)
        got = self._positive.get(k)
        if got is None:
            q = self.x.rational(k)
            if q is not None:
                got = q > 0
            else:
                e = self.x.entry(i, j)
                if e.is_positive is None and e.is_nonpositive is None:
                    raise CertificationError(f"cannot decide the sign of {self.x.describe(k)} for elu + 1")
                got = bool(e.is_positive)
            self._positive[k] = got
        return got

    def _row(self, ar: Any, i: int) -> list:
        x = ar.row(self.x, i)
        if self.derivative:
            return [ar.const(sympy.Integer(1)) if self.positive(i, j) else ar.exp(v) for j, v in enumerate(x)]
        return [v + 1 if self.positive(i, j) else ar.exp(v) for j, v in enumerate(x)]

    def rational(self, k: int) -> Fraction | None:
        q = self.x.rational(k)
        if q is None:
            return None
        if q > 0:
            return Fraction(1) if self.derivative else q + 1
        return Fraction(1) if q == 0 else None  # e^q is irrational for rational q ≠ 0

    def terms(self) -> int:
        return self.x.terms() + 1


def feature_map(x: Node, kind: str = "elu+1") -> Node:
    """φ(x) element-wise: ``elu+1`` or ``identity``.

    >>> feature_map(rational_matrix([[1, 0, -2]])).exact()
    Matrix([[2, 1, exp(-2)]])
    """
    if kind == "identity":
        return x
    if kind != "elu+1":
        raise ValueError(f"unknown feature map {kind!r}")
    if x.symbolic:
        return SympyNode(x.exact().applyfunc(elu_plus_one))
    return FeatureMapNode(x)


def feature_map_derivative(x: Node) -> Node:
    """φ′(x) element-wise for φ = elu + 1: 1 for x > 0, eˣ for x ≤ 0 (both 1 at 0).

    >>> feature_map_derivative(rational_matrix([[1, 0, -2]])).exact()
    Matrix([[1, 1, exp(-2)]])
    """
    if x.symbolic:
        y = sympy.Dummy("y", real=True)
        d = sympy.diff(elu_plus_one(y), y)
        return SympyNode(x.exact().applyfunc(lambda e: d.subs(y, e)))
    return FeatureMapNode(x, derivative=True)


class RowDivideNode(_Formula):
    """``num_ij / den_i``: linear attention's output, numerator over normaliser (den is one
    column). A normaliser that is exactly 0 is an undefined value: no digits, an error
    naming the row."""

    op_name = "a division by the normaliser"

    def __init__(self, num: Node, den: Node, why: str = "", rowsum: bool = False) -> None:
        super().__init__([num, den])
        self.num, self.den, self.why = num, den, why
        self.rowsum = rowsum  # den is the row sum of num: the rows sum to 1
        self.shape = num.shape

    def _row(self, ar: Any, i: int) -> list:
        d = ar.row(self.den, i)[0]
        return [x / d for x in ar.row(self.num, i)]

    def _find_undefined(self) -> UndefinedValueError | None:
        u = super()._find_undefined()
        if u is not None or self.symbolic:
            return u
        balls = self.den.ball_mat(64)
        for i in range(self.den.shape[0]):
            if balls[i, 0].contains(0) and self.den.is_exact_zero(self.den.flat(i, 0)):
                return UndefinedValueError(self.den.describe(self.den.flat(i, 0)),
                                           "it is exactly 0, and the output divides by it" + self.why)
        return None

    def rational(self, k: int) -> Fraction | None:
        i, j = self.index(k)
        n = self.num.rational(k)
        if n == 0:
            return Fraction(0)  # (a zero normaliser is refused as undefined before any digits)
        d = self.den.rational(i)
        return n / d if n is not None and d else None

    def row_sum(self, i: int) -> Fraction | None:
        # P = A / rowsum(A): each row sums to 1 (when the normaliser is the row sum of num)
        return Fraction(1) if self.rowsum else None

    def row_dot(self, i: int, values: Sequence[Fraction | None]) -> Fraction | None:
        # weights summing to 1: Σ_j p_ij·c = c when every value on the row's support is c
        if self.rowsum:
            live = {values[j] for j in range(self.shape[1]) if self.rational(self.flat(i, j)) != 0}
            if len(live) == 1 and None not in live:
                return live.pop()
        return super().row_dot(i, values)

    def terms(self) -> int:
        return self.num.terms() + self.den.terms()


def row_divide(num: Node, den: Node, why: str = "", rowsum: bool = False) -> Node:
    """``num / den`` row by row (``den`` one column); ``why`` ends the message for a zero
    normaliser; ``rowsum``: ``den`` is the row sum of ``num`` (then each row sums to 1).

    >>> row_divide(rational_matrix([[1, 3], [2, 2]]), rational_matrix([[2], [4]])).exact()
    Matrix([
    [1/2, 3/2],
    [1/2, 1/2]])
    """
    if den.shape != (num.shape[0], 1):
        raise ValueError(f"cannot divide {num.shape} by {den.shape}")
    node = RowDivideNode(num, den, why, rowsum)
    if node.symbolic:
        node.refuse_undefined()
        return SympyNode(node.exact())
    return node


def row_normalize(a: Node) -> Node:
    """``a`` divided by its row sums (linear attention's implicit weights; rows sum to 1)."""
    return row_divide(a, row_sums(a), " (its row sum)", rowsum=True)


class PrefixStateNode(_Derived):
    """The state of causal linear attention: ``S[t, a, b] = Σ_{s ≤ t} φk[s, a]·v[s, b]``
    (S_t = S_{t−1} + φ(k_t) v_tᵀ), shape (tokens, d, d_v)."""

    op_name = "the recurrent state"

    def __init__(self, phik: Node, v: Node) -> None:
        super().__init__([phik, v])
        self.phik, self.v = phik, v
        self.shape = (phik.shape[0], phik.shape[1], v.shape[1])

    def entry(self, t: int, a: int, b: int) -> sympy.Expr:  # type: ignore[override]
        return sympy.Add(*[self.phik.entry(s, a) * self.v.entry(s, b) for s in range(t + 1)])

    def terms(self) -> int:
        return max(self.phik.terms(), self.v.terms()) * self.shape[0]

    def balls(self, prec: int) -> list[arb]:
        if self.symbolic:
            raise CertificationError("a value with symbols has no decimals")
        with workprec(prec):
            k, v = self.phik.ball_mat(prec), self.v.ball_mat(prec)
            n, d, e = self.shape
            out = []
            for t in range(n):
                out.extend(_Balls.sum([k[s, a] * v[s, b] for s in range(t + 1)]) for a in range(d) for b in range(e))
            return out


def prefix_state(phik: Node, v: Node) -> Node:
    """S_t = Σ_{s ≤ t} φ(k_s) v_sᵀ for every t (see :class:`PrefixStateNode`).

    >>> prefix_state(rational_matrix([[1], [2]]), rational_matrix([[3], [5]])).exact().tolist()
    [[[3]], [[13]]]
    """
    return PrefixStateNode(phik, v)


class RowContractNode(_Formula):
    """``out[t, b] = Σ_a x[t, a]·S[t, a, b]``: each query against its own state (causal
    linear attention's numerator φ(q_t)ᵀ S_t)."""

    op_name = "a product with the state"

    def __init__(self, x: Node, state: Node) -> None:
        super().__init__([x, state])
        self.x, self.state = x, state
        self.shape = (x.shape[0], state.shape[2])
        self._state_balls: tuple[int, list] | None = None

    def _s(self, ar: Any, t: int, a: int, b: int) -> Any:
        if ar is _EXACT:
            return self.state.entry(t, a, b)
        if self._state_balls is None or self._state_balls[0] != ar.prec:
            self._state_balls = (ar.prec, self.state.balls(ar.prec))
        _, d, e = self.state.shape
        return self._state_balls[1][(t * d + a) * e + b]

    def _row(self, ar: Any, i: int) -> list:
        x = ar.row(self.x, i)
        return [ar.sum([x[a] * self._s(ar, i, a, b) for a in range(len(x))]) for b in range(self.shape[1])]

    def terms(self) -> int:
        return self.x.terms() + self.state.terms()


def row_contract(x: Node, state: Node) -> Node:
    """Σ_a x[t, a] S[t, a, b] (see :class:`RowContractNode`)."""
    node = RowContractNode(x, state)
    return SympyNode(node.exact()) if node.symbolic else node


def lower_ones(n: int, m: int) -> RationalNode:
    """The causal pattern as 0/1: entry (i, j) is 1 when j ≤ i."""
    return RationalNode((n, m), lambda: fmpq_mat(n, m, [1 if j <= i else 0 for i in range(n) for j in range(m)]))
# rotations of coordinate pairs (RoPE; symattn.pipeline.positions)


class RotateNode(_Formula):
    """Each row of ``x`` with its coordinate pairs (a, b) rotated by the row's angles:
    x'_a = x_a cos φ − x_b sin φ, x'_b = x_b cos φ + x_a sin φ (RoFormer Eq. 34); with
    ``inverse`` the transposed rotation (by −φ), which carries a gradient back. ``cos`` and
    ``sin`` are (rows, pairs) values of the angles.

    >>> import sympy
    >>> c = SympyNode(sympy.Matrix([[sympy.cos(1)]])); s = SympyNode(sympy.Matrix([[sympy.sin(1)]]))
    >>> r = rotate(rational_matrix([[1, 0]]), c, s, [(0, 1)])
    >>> r.entry(0, 1), r.decimals(5)
    (sin(1), [['0.54030', '0.84147']])
    """

    def __init__(self, x: Node, cos: Node, sin: Node, pairs: Sequence[tuple[int, int]], inverse: bool = False) -> None:
        super().__init__([x, cos, sin])
        self.x, self.cos, self.sin, self.pairs, self.inverse = x, cos, sin, list(pairs), inverse
        self.shape = x.shape

    def terms(self) -> int:
        return 2 * self.x.terms()

    def _row(self, ar: Any, i: int) -> list:
        x, c, s = ar.row(self.x, i), ar.row(self.cos, i), ar.row(self.sin, i)
        out = list(x)
        for k, (a, b) in enumerate(self.pairs):
            if self.inverse:
                out[a] = x[a] * c[k] + x[b] * s[k]
                out[b] = x[b] * c[k] - x[a] * s[k]
            else:
                out[a] = x[a] * c[k] - x[b] * s[k]
                out[b] = x[b] * c[k] + x[a] * s[k]
        return out

    def rational(self, k: int) -> Fraction | None:
        e = self.entry(*self.index(k))  # cos(0) = 1: a token at position 0 is not turned
        return Fraction(int(e.p), int(e.q)) if e.is_Rational else None


def rotate(x: Node, cos: Node, sin: Node, pairs: Sequence[tuple[int, int]], inverse: bool = False) -> Node:
    """Rotate the coordinate pairs of each row of ``x`` (:class:`RotateNode`)."""
    node = RotateNode(x, cos, sin, pairs, inverse)
    return SympyNode(node.exact()) if node.symbolic else node


class RotaryScoresNode(MatMulNode):
    """Scores of rotated queries and keys, ``rotate(Q)·rotate(K)ᵀ``, whose exact entries are
    written in relative form (RoFormer Eq. 16): (R_m q)ᵀ(R_n k) = qᵀ R_{n−m} k, a sum over the
    pairs (a, b) of (q_a k_a + q_b k_b)·cos Δ + (q_b k_a − q_a k_b)·sin Δ with Δ = (n − m)·θ. So
    s = qᵀk exactly when m = n, and each entry shows that it depends on the offset only. The
    balls are those of the product (python-flint's matrix product).

    >>> import sympy
    >>> q, k = rational_matrix([[1, 2]]), rational_matrix([[3, 4], [1, 0]])
    >>> ang_q, ang_k = sympy.Matrix([[5]]), sympy.Matrix([[5], [7]])
    >>> c = lambda a: SympyNode(a.applyfunc(sympy.cos)); s = lambda a: SympyNode(a.applyfunc(sympy.sin))
    >>> S = rotary_scores(q, k, ang_q, ang_k, [(0, 1)], rotate(q, c(ang_q), s(ang_q), [(0, 1)]),
    ...                   rotate(k, c(ang_k), s(ang_k), [(0, 1)]))
    >>> S.entry(0, 0), S.entry(0, 1), S.decimals(6)
    (11, cos(2) + 2*sin(2), [['11', '1.40245']])
    """

    def __init__(self, q: Node, k: Node, ang_q: Any, ang_k: Any, pairs: Sequence[tuple[int, int]], q_rot: Node,
                 k_rot: Node, relative: bool = True) -> None:
        super().__init__(q_rot, transpose(k_rot))
        self.q, self.k, self.ang_q, self.ang_k, self.pairs = q, k, ang_q, ang_k, list(pairs)
        self.relative = relative

    def _offsets(self, i: int, j: int) -> tuple:
        ids_q, ids_k = getattr(self.ang_q, "ids", None), getattr(self.ang_k, "ids", None)
        if ids_q is not None and ids_k is not None:  # angles p·θ with θ > 0: the position offset decides
            off = ids_k[j] - ids_q[i]
            return (off,) * len(self.pairs)
        return tuple(self.ang_k[j, p] - self.ang_q[i, p] for p in range(len(self.pairs)))

    def value_key(self, i: int, j: int) -> object:
        # equal query and key rows at equal offsets have equal scores (cheap: no closed form is built;
        # each distinct row gets a small number once, so a key is three small values)
        if self.q.is_rational_matrix and self.k.is_rational_matrix:
            pos = self._positions()
            off = pos[1][j] - pos[0][i] if pos is not None else self._offsets(i, j)
            return self._row_id(self.q, "_q_ids", i), self._row_id(self.k, "_k_ids", j), off
        return self.entry(i, j)

    def _positions(self) -> tuple[list, list] | None:
        """The query and key positions as Python numbers when the angles are p·θ (else None)."""
        if "_pos" not in self.__dict__:
            ids_q, ids_k = getattr(self.ang_q, "ids", None), getattr(self.ang_k, "ids", None)
            conv = (lambda p: Fraction(int(p.p), int(p.q)) if getattr(p, "is_Rational", False) else p)
            self._pos = None if ids_q is None or ids_k is None else ([conv(p) for p in ids_q], [conv(p) for p in ids_k])
        return self._pos

    def _row_id(self, node: Node, cache: str, r: int) -> int:
        ids = self.__dict__.get(cache)
        if ids is None:  # rows with equal entries share a number
            seen: dict[tuple, int] = {}
            ids = self.__dict__[cache] = [
                seen.setdefault(tuple(node.rational(node.flat(row, c)) for c in range(node.shape[1])), len(seen))
                for row in range(node.shape[0])]
        return ids[r]

    def entry(self, i: int, j: int) -> sympy.Expr:
        if not self.relative:
            return super().entry(i, j)
        total = sympy.Integer(0)
        for p, (a, b) in enumerate(self.pairs):
            qa, qb, ka, kb = self.q.entry(i, a), self.q.entry(i, b), self.k.entry(j, a), self.k.entry(j, b)
            delta = self.ang_k[j, p] - self.ang_q[i, p]
            total += (qa * ka + qb * kb) * sympy.cos(delta) + (qb * ka - qa * kb) * sympy.sin(delta)
        return total

    def rational(self, k: int) -> Fraction | None:
        # a pair contributes (q_a k_a + q_b k_b) at offset 0 and 0 when both coefficients vanish; any other
        # term is a nonzero combination of cos and sin of a nonzero algebraic angle: not known rational
        if not (self.q.is_rational_matrix and self.k.is_rational_matrix):
            e = self.entry(*self.index(k))
            return Fraction(int(e.p), int(e.q)) if e.is_Rational else None
        i, j = self.index(k)
        total = Fraction(0)
        for (a, b), delta in zip(self.pairs, self._offsets(i, j)):
            qa, qb = self.q.rational(self.q.flat(i, a)), self.q.rational(self.q.flat(i, b))
            ka, kb = self.k.rational(self.k.flat(j, a)), self.k.rational(self.k.flat(j, b))
            ca, cs = qa * ka + qb * kb, qb * ka - qa * kb  # type: ignore[operator]
            if delta == 0:
                total += ca
            elif ca != 0 or cs != 0:
                return None
        return total


def rotary_scores(q: Node, k: Node, ang_q: Any, ang_k: Any, pairs: Sequence[tuple[int, int]], q_rot: Node,
                  k_rot: Node, relative: bool = True) -> Node:
    """``q_rot·k_rotᵀ``, with exact entries in relative form (or, with ``relative`` False, the product
    form) and cheap exact tie keys (:class:`RotaryScoresNode`)."""
    node = RotaryScoresNode(q, k, ang_q, ang_k, pairs, q_rot, k_rot, relative)
    return SympyNode(sympy.Matrix(node.shape[0], node.shape[1], node.entry)) if node.symbolic else node


class TrigTableNode(Node):
    """A table of sines and cosines of positions times frequencies, p·base^(−2i/d): RoPE's cos and
    sin tables (``kind`` "cos" or "sin", one column per pair i) or the sinusoidal encoding (``kind``
    "pe": columns sin, cos, sin, cos, …). Exact entries are built lazily (SymPy ``sin(1/100)``);
    balls come straight from arb (no SymPy), so long sequences stay fast.

    >>> t = trig_table([0, 1], 4, 10000, "pe")
    >>> t.entry(1, 2), t.decimals(4)
    (sin(1/100), [['0', '1', '0', '1'], ['0.8415', '0.5403', '0.01000', '1.000']])
    """

    def __init__(self, ids: Sequence[Any], d: int, base: Any, kind: str) -> None:
        super().__init__()
        self.ids = [as_exact(p) for p in ids]  # validated numbers
        self.d, self.base, self.kind = d, sympy.Integer(base) if isinstance(base, int) else base, kind
        self.shape = (len(self.ids), d if kind == "pe" else d // 2)
        self.symbolic = any(p.free_symbols for p in self.ids) or bool(getattr(self.base, "free_symbols", None))
        self._cache: dict[tuple[int, int], sympy.Expr] = {}

    def _pair(self, j: int) -> tuple[int, str]:
        if self.kind == "pe":
            return j // 2, "sin" if j % 2 == 0 else "cos"
        return j, self.kind

    def entry(self, i: int, j: int) -> sympy.Expr:
        e = self._cache.get((i, j))
        if e is None:
            k, fn = self._pair(j)
            arg = self.ids[i] * self.base ** sympy.Rational(-2 * k, self.d)
            e = self._cache[(i, j)] = (sympy.sin if fn == "sin" else sympy.cos)(arg)
        return e

    def rational(self, k: int) -> Fraction | None:
        i, j = self.index(k)
        if self.ids[i] == 0:  # sin 0 = 0, cos 0 = 1; every other entry is transcendental (Lindemann)
            return Fraction(0 if self._pair(j)[1] == "sin" else 1)
        return None

    def _compute_ball(self, prec: int) -> arb_mat:
        with workprec(prec):
            b = to_arb(self.base, prec)
            pos = [to_arb(p, prec) for p in self.ids]
            pairs = self.d // 2
            freq = [(b.log() * arb(fmpq(-2 * k, self.d))).exp() if k else arb(1) for k in range(pairs)]
            rows = []
            for p in pos:
                row = []
                for j in range(self.shape[1]):
                    k, fn = self._pair(j)
                    x = p * freq[k]
                    row.append(x.sin() if fn == "sin" else x.cos())
                rows.append(row)
            return arb_mat(rows)


def trig_table(ids: Sequence[Any], d: int, base: Any, kind: str) -> Node:
    """A :class:`TrigTableNode` (a SymPy matrix when the positions are symbols)."""
    node = TrigTableNode(ids, d, base, kind)
    return SympyNode(sympy.Matrix(node.shape[0], node.shape[1], node.entry)) if node.symbolic else node


class DistanceBiasNode(Node):
    """ALiBi's bias −m·|pᵢ − pⱼ| for a slope m that is not rational (e.g. √2/2 for 12 heads): exact entries
    built lazily, balls from arb. (A rational slope gives a rational matrix: :func:`distance_bias`.)"""

    def __init__(self, slope: sympy.Expr, qpos: Sequence[Any], kpos: Sequence[Any]) -> None:
        super().__init__()
        self.slope, self.qpos, self.kpos = slope, list(qpos), list(kpos)
        self.shape = (len(self.qpos), len(self.kpos))

    def entry(self, i: int, j: int) -> sympy.Expr:
        return -self.slope * sympy.Abs(self.qpos[i] - self.kpos[j])

    def rational(self, k: int) -> Fraction | None:
        i, j = self.index(k)
        return Fraction(0) if self.qpos[i] == self.kpos[j] else None

    def _compute_ball(self, prec: int) -> arb_mat:
        with workprec(prec):
            m = to_arb(self.slope, prec)
            return arb_mat([[-m * abs(to_arb(p - q, prec)) for q in self.kpos] for p in self.qpos])


def distance_bias(slope: Any, qpos: Sequence[Any], kpos: Sequence[Any]) -> Node:
    """−m·|pᵢ − pⱼ|: rational when the slope and positions are; symbolic when any is a symbol.

    >>> distance_bias(sympy.Rational(1, 2), [0, 1], [0, 1, 2]).exact()
    Matrix([
    [   0, -1/2,   -1],
    [-1/2,    0, -1/2]])
    """
    exprs = [as_exact(x) for x in (slope, *qpos, *kpos)]  # validated numbers or symbols
    if any(e.free_symbols for e in exprs):
        return SympyNode(sympy.Matrix(len(qpos), len(kpos), lambda i, j: -exprs[0] * sympy.Abs(
            exprs[1 + i] - exprs[1 + len(qpos) + j])))
    if all(e.is_Rational for e in exprs):
        m = Fraction(int(exprs[0].p), int(exprs[0].q))
        fq = [Fraction(int(e.p), int(e.q)) for e in exprs[1:1 + len(qpos)]]
        fk = [Fraction(int(e.p), int(e.q)) for e in exprs[1 + len(qpos):]]
        return rational_matrix([[-m * abs(p - q) for q in fk] for p in fq])
    return DistanceBiasNode(exprs[0], exprs[1:1 + len(qpos)], exprs[1 + len(qpos):])
