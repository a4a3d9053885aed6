"""Matrix values of the derivation: exact forms, ball enclosures, exact-rational tests.

A value is a node in a small graph (a product of two nodes, a softmax of a node,
...). Each node can give

* ``entry(i, j)`` / ``exact()``: its exact SymPy value (built lazily; a closed
  form in ``exp`` for weights and outputs);
* ``ball_mat(prec)``: an ``arb_mat`` enclosing every entry, computed from the
  enclosures of the nodes it depends on at the same precision;
* ``rational(k)``: entry ``k`` (flat index) as an exact :class:`Fraction` when it
  is provably rational, else None (used to decide exact ties and zeros);
* ``decimals(digits)``: certified decimals (:mod:`symattn.exact.certify`).

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
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Iterable, Sequence

import sympy
from flint import arb, arb_mat, fmpq, fmpq_mat

from .certify import certify, check_digits, format_rational, to_arb, workprec
from ..errors import CertificationError, FullyMaskedRow
from ..limits import EXACT_CHECK_MAX_TERMS
from .zero import is_zero

__all__ = [
    "Node", "RationalNode", "SympyNode", "rational_matrix", "sympy_matrix", "matmul", "transpose",
    "scale", "masked", "softmax", "attend", "weighted", "concat", "columns", "rows",
    "FullyMaskedRow",
]

NEG_INF = sympy.S.NegativeInfinity


def _frac(q: fmpq) -> Fraction:
    return Fraction(int(q.p), int(q.q))


def _rat(q: fmpq) -> sympy.Rational:
    return sympy.Rational(int(q.p), int(q.q))


class Node:
    """A matrix value (2-D unless ``shape`` has three entries)."""

    shape: tuple[int, ...]
    symbolic: bool = False

    def __init__(self) -> None:
        self._ball: tuple[int, object] | None = None
        self._exact: object = None
        self._decimals: dict[int, list] = {}

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

    # -- exact --
    def entry(self, *idx: int) -> sympy.Expr:
        raise NotImplementedError

    def exact(self) -> sympy.Matrix:
        """The exact value as a SymPy Matrix (or a 3-D SymPy Array)."""
        if self._exact is None:
            if len(self.shape) == 2:
                r, c = self.shape
                self._exact = sympy.ImmutableMatrix(r, c, lambda i, j: self.entry(int(i), int(j)))
            else:
                a, b, c = self.shape
                self._exact = sympy.ImmutableDenseNDimArray(
                    [self.entry(i, j, l) for i in range(a) for j in range(b) for l in range(c)], self.shape)
        return self._exact  # type: ignore[return-value]

    def is_infinite(self, k: int) -> bool:
        """True when flat entry ``k`` is exactly -inf (a masked score)."""
        return False

    def rational(self, k: int) -> Fraction | None:
        """Entry ``k`` exactly, when SymPy's closed form is a rational number (only for
        closed forms of at most ``EXACT_CHECK_MAX_TERMS`` exponentials: None past that)."""
        if self.terms() > EXACT_CHECK_MAX_TERMS:
            return None
        e = self.entry(*self.index(k))
        return Fraction(int(e.p), int(e.q)) if e.is_Rational else None

    def value_key(self, i: int, j: int) -> object:
        """A hashable key: equal keys imply equal exact values (used for exact ties)."""
        return self.entry(i, j)

    def is_exact_zero(self, k: int) -> bool:
        """Prove entry ``k`` exactly 0 from its closed form (bounded: small forms only)."""
        q = self.rational(k)
        if q is not None:
            return q == 0
        if self.terms() > EXACT_CHECK_MAX_TERMS:
            return False
        e = self.entry(*self.index(k))
        if e == 0:
            return True
        if sympy.count_ops(e) > 20000:
            return False
        return is_zero(e)

    def terms(self) -> int:
        """How many exponentials one exact entry may hold (the size of its closed form)."""
        return max((c.terms() for c in getattr(self, "children", [])), default=1)

    # -- enclosures --
    def ball_mat(self, prec: int) -> arb_mat:
        if self.symbolic:
            raise CertificationError("a value with symbols has no decimals")
        if self._ball is None or self._ball[0] != prec:
            with workprec(prec):
                self._ball = (prec, self._compute_ball(prec))
        return self._ball[1]  # type: ignore[return-value]

    def _compute_ball(self, prec: int) -> arb_mat:
        raise NotImplementedError

    def balls(self, prec: int) -> list[arb]:
        """All entries enclosed at precision ``prec``, flat in row-major order."""
        m = self.ball_mat(prec)
        return [x for row in m.tolist() for x in row]

    # -- certified decimals --
    def decimals(self, digits: int = 6) -> list | None:
        """Certified decimals (strings), nested like the value; None when symbolic."""
        if self.symbolic:
            return None
        got = self._decimals.get(digits)
        if got is None:
            flat = self._flat_decimals(digits)
            got = self._decimals[digits] = _nest(flat, self.shape)
        return got

    def decimal(self, k: int, digits: int = 6) -> str:
        """Certified decimals of one entry (flat index ``k``), by the same rules as
        :meth:`decimals`; the exact text when the value has symbols."""
        if self.is_infinite(k):
            return "-inf"
        if self.symbolic:
            return str(self.entry(*self.index(k)))
        if isinstance(self, RationalNode):
            return format_rational(self.rational(k), digits)
        s = certify(1, digits, lambda p: [self.balls(p)[k]], lambda _: self.rational(k),
                    zero=lambda _: self.is_exact_zero(k))[0]
        if _may_terminate(s, digits):
            q = self.rational(k)
            if q is not None:
                s = format_rational(q, digits)
        return s

    def _flat_decimals(self, digits: int) -> list[str]:
        finite = [k for k in range(self.size) if not self.is_infinite(k)]
        out = ["-inf"] * self.size
        if finite:
            values = certify(len(finite), digits, lambda p: _pick(self.balls(p), finite),
                             lambda t: self.rational(finite[t]),
                             lambda t: f"entry {self.index(finite[t])}",
                             lambda t: self.is_exact_zero(finite[t]))
            for k, s in zip(finite, values):
                if _may_terminate(s, digits):
                    q = self.rational(k)
                    if q is not None:
                        s = format_rational(q, digits)
                out[k] = s
        return out


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


# ---------------------------------------------------------------------------------------
# leaves


class RationalNode(Node):
    """An exact rational matrix (python-flint ``fmpq_mat``), computed lazily."""

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

    def value_key(self, i: int, j: int) -> object:
        q = self.mat[i, j]
        return (int(q.p), int(q.q))

    def _compute_ball(self, prec: int) -> arb_mat:
        return arb_mat(self.mat)

    def _flat_decimals(self, digits: int) -> list[str]:
        check_digits(digits, self.size)
        r, c = self.shape
        m = self.mat
        return [format_rational(_frac(m[i, j]), digits) for i in range(r) for j in range(c)]


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


class SympyNode(Node):
    """A matrix of SymPy expressions (symbolic examples, or irregular exact values)."""

    def __init__(self, m: sympy.MatrixBase) -> None:
        super().__init__()
        self.m = sympy.ImmutableMatrix(m)
        self.shape = (self.m.rows, self.m.cols)
        self.symbolic = bool(self.m.free_symbols)
        self._exact = self.m

    def entry(self, i: int, j: int) -> sympy.Expr:
        return self.m[i, j]

    def is_infinite(self, k: int) -> bool:
        return self.m[self.index(k)] == NEG_INF

    def rational(self, k: int) -> Fraction | None:
        e = self.m[self.index(k)]
        return Fraction(int(e.p), int(e.q)) if e.is_Rational else None

    def _compute_ball(self, prec: int) -> arb_mat:
        r, c = self.shape
        return arb_mat([[to_arb(self.m[i, j], prec) if self.m[i, j] != NEG_INF else arb(0)
                         for j in range(c)] for i in range(r)])


def sympy_matrix(rows: Sequence[Sequence[sympy.Expr]]) -> Node:
    """The best node for a matrix of SymPy values: rational when every entry is."""
    if all(isinstance(x, sympy.Rational) for row in rows for x in row) and rows and rows[0]:
        return rational_matrix(rows)  # type: ignore[arg-type]
    return SympyNode(sympy.Matrix(rows))


# ---------------------------------------------------------------------------------------
# operations


class _Derived(Node):
    def __init__(self, children: Iterable[Node]) -> None:
        super().__init__()
        self.children = list(children)
        self.symbolic = any(c.symbolic for c in self.children)


def _is_rat(*nodes: Node | None) -> bool:
    return all(n is None or isinstance(n, RationalNode) for n in nodes)


class MatMulNode(_Derived):
    """``A @ B (+ bias row)`` where some factor is not rational."""

    def __init__(self, a: Node, b: Node, bias: Node | None = None) -> None:
        super().__init__([a, b] + ([bias] if bias is not None else []))
        self.a, self.b, self.bias = a, b, bias
        self.shape = (a.shape[0], b.shape[1])

    def entry(self, i: int, j: int) -> sympy.Expr:
        total = sympy.Add(*[self.a.entry(i, k) * self.b.entry(k, j) for k in range(self.a.shape[1])])
        if self.bias is not None:
            total += self.bias.entry(0, j)
        return total

    def terms(self) -> int:
        inner = max(self.a.terms(), self.b.terms())
        return inner if isinstance(self, AttendNode) else inner * self.a.shape[1]

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
    if _is_rat(a, b, bias):
        def compute() -> fmpq_mat:
            out = a.mat * b.mat  # type: ignore[attr-defined]
            if bias is not None:
                ones = fmpq_mat(a.shape[0], 1, [1] * a.shape[0])
                out = out + ones * bias.mat  # type: ignore[attr-defined]
            return out
        return RationalNode((a.shape[0], b.shape[1]), compute)
    if a.symbolic or b.symbolic or (bias is not None and bias.symbolic):
        m = a.exact() * b.exact()
        if bias is not None:
            m = m + sympy.ones(a.shape[0], 1) * bias.exact()
        return SympyNode(m)
    return MatMulNode(a, b, bias)


class TransposeNode(_Derived):
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

    def is_infinite(self, k: int) -> bool:
        return self.a.is_infinite(self._flip(k))

    def rational(self, k: int) -> Fraction | None:
        return self.a.rational(self._flip(k))

    def _compute_ball(self, prec: int) -> arb_mat:
        return self.a.ball_mat(prec).transpose()


def transpose(a: Node) -> Node:
    """The transpose of a value (exact, no copy of the work)."""
    if isinstance(a, RationalNode):
        return RationalNode((a.shape[1], a.shape[0]), lambda: a.mat.transpose())
    if isinstance(a, SympyNode):
        return SympyNode(a.m.T)
    return TransposeNode(a)


class ScaleNode(_Derived):
    """``tau * A`` for an exact constant ``tau`` (irrational, or ``A`` not rational)."""

    def __init__(self, a: Node, tau: sympy.Expr) -> None:
        super().__init__([a])
        self.a, self.tau = a, tau
        self.shape = a.shape

    def entry(self, i: int, j: int) -> sympy.Expr:
        return self.tau * self.a.entry(i, j)

    def rational(self, k: int) -> Fraction | None:
        q = self.a.rational(k)
        if q == 0:
            return Fraction(0)
        if q is not None and self.tau.is_Rational:
            return q * Fraction(int(self.tau.p), int(self.tau.q))
        return None

    def value_key(self, i: int, j: int) -> object:
        return self.a.value_key(i, j)  # tau is a fixed nonzero constant

    def _compute_ball(self, prec: int) -> arb_mat:
        return self.a.ball_mat(prec) * to_arb(self.tau, prec)


def scale(a: Node, tau: sympy.Expr) -> Node:
    """``tau * a`` for an exact constant ``tau``.

    >>> scale(rational_matrix([[2]]), 1 / sympy.sqrt(2)).exact()
    Matrix([[sqrt(2)]])
    """
    if tau == 1:
        return a
    if tau.is_Rational and isinstance(a, RationalNode):
        t = fmpq(int(tau.p), int(tau.q))
        return RationalNode(a.shape, lambda: a.mat * t)
    if a.symbolic or tau.free_symbols:
        return SympyNode(a.exact() * tau)
    return ScaleNode(a, tau)


class MaskNode(_Derived):
    """Scores with an additive bias and masked entries (-inf, or replaced by a finite value)."""

    def __init__(self, s: Node, bias: Node | None, neg_inf: set[tuple[int, int]],
                 replace: dict[tuple[int, int], sympy.Expr]) -> None:
        super().__init__([s] + ([bias] if bias is not None else []))
        self.s, self.bias = s, bias
        self.neg_inf = set(neg_inf)
        self.replace = dict(replace)
        self.shape = s.shape

    def entry(self, i: int, j: int) -> sympy.Expr:
        if (i, j) in self.neg_inf:
            return NEG_INF
        if (i, j) in self.replace:
            return self.replace[(i, j)]
        e = self.s.entry(i, j)
        return e + self.bias.entry(i, j) if self.bias is not None else e

    def is_infinite(self, k: int) -> bool:
        return self.index(k) in self.neg_inf  # type: ignore[operator]

    def value_key(self, i: int, j: int) -> object:
        if (i, j) in self.neg_inf:
            return "-inf"
        if (i, j) in self.replace:
            return ("replaced", self.replace[(i, j)])
        return (self.s.value_key(i, j), self.bias.value_key(i, j) if self.bias is not None else 0)

    def rational(self, k: int) -> Fraction | None:
        idx = self.index(k)
        if idx in self.replace:
            v = self.replace[idx]  # type: ignore[index]
            return Fraction(int(v.p), int(v.q)) if v.is_Rational else None
        q = self.s.rational(k)
        if self.bias is None or q is None:
            return q
        b = self.bias.rational(k)
        return None if b is None else q + b

    def _compute_ball(self, prec: int) -> arb_mat:
        base = self.s.ball_mat(prec)
        if self.bias is not None:
            bias = self.bias.ball_mat(prec)
        rows = []
        for i in range(self.shape[0]):
            row = []
            for j in range(self.shape[1]):
                if (i, j) in self.neg_inf:
                    row.append(arb(0))  # placeholder; softmax reads neg_inf structurally
                elif (i, j) in self.replace:
                    row.append(to_arb(self.replace[(i, j)], prec))
                elif self.bias is not None:
                    row.append(base[i, j] + bias[i, j])
                else:
                    row.append(base[i, j])
            rows.append(row)
        return arb_mat(rows)


def masked(s: Node, bias: Node | None = None, neg_inf: Iterable[tuple[int, int]] = (),
           replace: dict[tuple[int, int], sympy.Expr] | None = None) -> MaskNode:
    """Scores plus an additive bias (whose -inf entries mask), with masked entries.

    >>> m = masked(rational_matrix([[1, 2]]), neg_inf=[(0, 1)])
    >>> m.exact(), m.decimals(3)
    (Matrix([[1, -oo]]), [['1', '-inf']])
    """
    neg = set(neg_inf)
    if bias is not None:
        for i in range(bias.shape[0]):
            for j in range(bias.shape[1]):
                if bias.is_infinite(i * bias.shape[1] + j):
                    neg.add((i, j))
        if neg and isinstance(bias, SympyNode):
            bias = SympyNode(bias.m.applyfunc(lambda x: 0 if x == NEG_INF else x))
            if not bias.m.free_symbols and all(x.is_Rational for x in bias.m):
                bias = rational_matrix(bias.m.tolist())
    replace = {k: v for k, v in (replace or {}).items() if k not in neg}
    return MaskNode(s, bias, neg, replace)


def _neg_inf_of(m: Node) -> set[tuple[int, int]]:
    if isinstance(m, MaskNode):
        return m.neg_inf
    if isinstance(m, TransposeNode):
        return {(j, i) for (i, j) in _neg_inf_of(m.a)}
    if isinstance(m, SympyNode):
        return {(i, j) for i in range(m.shape[0]) for j in range(m.shape[1]) if m.m[i, j] == NEG_INF}
    return set()


class SoftmaxNode(_Derived):
    """Row-wise softmax, exp(x_ij - x_ir) / sum_k exp(x_ik - x_ir), with x_ir the smallest
    unmasked entry of row i (so exponents are >= 0 and rows read like (1, e^2, e^2)/(1 + 2e^2))."""

    def __init__(self, m: Node, masked_rows: str = "error") -> None:
        super().__init__([m])
        self.m = m
        self.shape = m.shape
        neg = _neg_inf_of(m)
        self.keys: list[list[int]] = []
        self.zero_rows: set[int] = set()
        for i in range(m.shape[0]):
            keys = [j for j in range(m.shape[1]) if (i, j) not in neg]
            if not keys:
                if masked_rows != "zero":
                    raise FullyMaskedRow(i)
                self.zero_rows.add(i)
            self.keys.append(keys)
        self._ref: list[int | None] | None = None
        self._den: dict[int, sympy.Expr] = {}
        self._groups: dict[int, dict[object, list[int]]] = {}

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

    def exponent(self, i: int, j: int) -> sympy.Expr:
        """The exact exponent of entry (i, j): x_ij - x_ir."""
        r = self.ref[i]
        e = self.m.entry(i, j)
        return e if r is None else (sympy.Integer(0) if r == j else e - self.m.entry(i, r))

    def denominator(self, i: int) -> sympy.Expr:
        d = self._den.get(i)
        if d is None:
            d = self._den[i] = sympy.Add(*[sympy.exp(self.exponent(i, k)) for k in self.keys[i]])
        return d

    def entry(self, i: int, j: int) -> sympy.Expr:
        if i in self.zero_rows or j not in self.keys[i]:
            return sympy.Integer(0)
        return sympy.exp(self.exponent(i, j)) / self.denominator(i)

    def groups(self, i: int) -> dict[object, list[int]]:
        """Unmasked keys of row i grouped by equal exact score (cached)."""
        g = self._groups.get(i)
        if g is None:
            g = {}
            for k in self.keys[i]:
                g.setdefault(self.m.value_key(i, k), []).append(k)
            self._groups[i] = g
        return g

    def _uniform(self, i: int) -> bool:
        return len(self.groups(i)) == 1

    def rational(self, k: int) -> Fraction | None:
        i, j = self.index(k)
        if i in self.zero_rows or j not in self.keys[i]:
            return Fraction(0)
        # Lindemann-Weierstrass: with algebraic exponents, a weight is rational only
        # when every unmasked exponent of its row is equal.
        return Fraction(1, len(self.keys[i])) if self._uniform(i) else None

    def _compute_ball(self, prec: int) -> arb_mat:
        x = self.m.ball_mat(prec).tolist()
        if self._ref is None:
            self._choose_ref(x)
        refs = self._ref
        assert refs is not None
        zero = arb(0)
        width = self.shape[1]
        out = []
        for i, keys in enumerate(self.keys):
            xi = x[i]
            if not keys:
                out.append([zero] * width)
                continue
            ref = xi[refs[i]]  # type: ignore[index]
            if len(keys) == width:
                ex = [(v - ref).exp() for v in xi]
                total = sum(ex[1:], ex[0])
                inv = 1 / total
                out.append([e * inv for e in ex])
            else:
                row = [zero] * width
                ex = [(xi[j] - ref).exp() for j in keys]
                total = sum(ex[1:], ex[0])
                inv = 1 / total
                for j, e in zip(keys, ex):
                    row[j] = e * inv
                out.append(row)
        return arb_mat(out)


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
        num = sympy.Add(*[self.b.entry(k, j) * sympy.exp(p.exponent(i, k)) for k in p.keys[i]])
        return num / p.denominator(i)

    def rational(self, k: int) -> Fraction | None:
        p, v = self.a, self.b
        i, j = self.index(k)
        if not isinstance(p, SoftmaxNode) or not isinstance(v, RationalNode):
            return super().rational(k)
        if i in p.zero_rows:
            return Fraction(0)
        # Group keys by equal score: when every group has the same mean value c, the
        # output is exactly c (whatever the exponentials). Otherwise, by
        # Lindemann-Weierstrass it is irrational for algebraic scores; either way None.
        means = {sum((v.fraction(key, j) for key in g), Fraction(0)) / len(g)
                 for g in p.groups(i).values()}
        return means.pop() if len(means) == 1 else None


def attend(p: Node, v: Node) -> Node:
    """The attention output ``P @ V``."""
    if p.shape[1] != v.shape[0]:
        raise ValueError(f"cannot multiply weights {p.shape} by values {v.shape}")
    if p.symbolic or v.symbolic:
        node = AttendNode(p, v)
        return SympyNode(node.exact())
    return AttendNode(p, v)


class WeightedNode(_Derived):
    """The terms ``p_ij * v_jl`` before they are summed: shape (queries, keys, d_v)."""

    def __init__(self, p: Node, v: Node) -> None:
        super().__init__([p, v])
        self.p, self.v = p, v
        self.shape = (p.shape[0], p.shape[1], v.shape[1])

    def entry(self, i: int, j: int, l: int) -> sympy.Expr:  # type: ignore[override]
        return self.p.entry(i, j) * self.v.entry(j, l)

    def rational(self, k: int) -> Fraction | None:
        i, j, l = self.index(k)
        a = self.p.rational(i * self.p.shape[1] + j)
        b = self.v.rational(j * self.v.shape[1] + l)
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
            return [p[i, j] * v[j, l] for i in range(a) for j in range(b) for l in range(c)]


def weighted(p: Node, v: Node) -> Node:
    return WeightedNode(p, v)


class ConcatNode(_Derived):
    """Columns of several values side by side (multi-head concatenation)."""

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

    def rational(self, k: int) -> Fraction | None:
        i, j = self.index(k)
        p, jj = self._locate(j)
        return p.rational(i * p.shape[1] + jj)

    def _compute_ball(self, prec: int) -> arb_mat:
        mats = [p.ball_mat(prec).tolist() for p in self.parts]
        return arb_mat([sum((m[i] for m in mats), []) for i in range(self.shape[0])])


def concat(parts: Sequence[Node]) -> Node:
    """Concatenate values column-wise."""
    if all(isinstance(p, RationalNode) for p in parts):
        def compute() -> fmpq_mat:
            rows = [sum((list(p.mat.table()[i]) for p in parts), []) for i in range(parts[0].shape[0])]  # type: ignore[attr-defined]
            return fmpq_mat(rows)
        return RationalNode((parts[0].shape[0], sum(p.shape[1] for p in parts)), compute)
    if any(p.symbolic for p in parts):
        return SympyNode(sympy.Matrix.hstack(*[p.exact() for p in parts]))
    return ConcatNode(parts)


class SliceNode(_Derived):
    """Selected rows and columns of a value."""

    def __init__(self, a: Node, rows: Sequence[int], cols: Sequence[int]) -> None:
        super().__init__([a])
        self.a = a
        self.r, self.c = list(rows), list(cols)
        self.shape = (len(self.r), len(self.c))

    def _inner(self, k: int) -> int:
        i, j = self.index(k)
        return self.r[i] * self.a.shape[1] + self.c[j]

    def entry(self, i: int, j: int) -> sympy.Expr:
        return self.a.entry(self.r[i], self.c[j])

    def value_key(self, i: int, j: int) -> object:
        return self.a.value_key(self.r[i], self.c[j])

    def is_infinite(self, k: int) -> bool:
        return self.a.is_infinite(self._inner(k))

    def rational(self, k: int) -> Fraction | None:
        return self.a.rational(self._inner(k))

    def _compute_ball(self, prec: int) -> arb_mat:
        m = self.a.ball_mat(prec)
        return arb_mat([[m[i, j] for j in self.c] for i in self.r])


def _slice(a: Node, rows_: Sequence[int], cols_: Sequence[int]) -> Node:
    if list(rows_) == list(range(a.shape[0])) and list(cols_) == list(range(a.shape[1])):
        return a
    if isinstance(a, RationalNode):
        def compute() -> fmpq_mat:
            t = a.mat.table()
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
    """A value with some entries replaced by given rationals (optionally ± a radius):
    the author's printed numbers in place of the exact ones."""

    def __init__(self, base: Node, patches: dict[tuple[int, int], tuple[Fraction, Fraction]]) -> None:
        super().__init__([base])
        self.base = base
        self.patches = dict(patches)
        self.shape = base.shape

    def entry(self, i: int, j: int) -> sympy.Expr:
        p = self.patches.get((i, j))
        if p is None:
            return self.base.entry(i, j)
        return sympy.Rational(p[0].numerator, p[0].denominator)

    def is_infinite(self, k: int) -> bool:
        return self.index(k) not in self.patches and self.base.is_infinite(k)

    def rational(self, k: int) -> Fraction | None:
        p = self.patches.get(self.index(k))  # type: ignore[arg-type]
        if p is None:
            return self.base.rational(k)
        return p[0] if p[1] == 0 else None

    def value_key(self, i: int, j: int) -> object:
        p = self.patches.get((i, j))
        if p is None:
            return self.base.value_key(i, j)
        return ("patched", i, j) if p[1] else p[0]

    def _compute_ball(self, prec: int) -> arb_mat:
        rows = self.base.ball_mat(prec).tolist()
        for (i, j), (v, r) in self.patches.items():
            rows[i][j] = _interval(v, r, prec)
        return arb_mat(rows)


def patch(base: Node, patches: dict[tuple[int, int], tuple[Fraction, Fraction]]) -> Node:
    """``base`` with some entries replaced (value, radius); exact when possible."""
    if not patches:
        return base
    if isinstance(base, RationalNode) and all(r == 0 for _, r in patches.values()):
        def compute() -> fmpq_mat:
            m = fmpq_mat(base.mat)
            for (i, j), (v, _) in patches.items():
                m[i, j] = fmpq(v.numerator, v.denominator)
            return m
        return RationalNode(base.shape, compute)
    return PatchNode(base, patches)


class RowSumNode(_Derived):
    """Row sums of a value: shape (rows, 1)."""

    def __init__(self, a: Node) -> None:
        super().__init__([a])
        self.a = a
        self.shape = (a.shape[0], 1)

    def entry(self, i: int, j: int = 0) -> sympy.Expr:
        return sympy.Add(*[self.a.entry(i, c) for c in range(self.a.shape[1])])

    def rational(self, k: int) -> Fraction | None:
        a = self.a
        if isinstance(a, SoftmaxNode):  # rows of a softmax sum to exactly 1 (or 0 when zeroed)
            return Fraction(0) if k in a.zero_rows else Fraction(1)
        parts = [a.rational(k * a.shape[1] + c) for c in range(a.shape[1])]
        if all(p is not None for p in parts):
            return sum(parts, Fraction(0))  # type: ignore[arg-type]
        return super().rational(k)

    def terms(self) -> int:
        return self.a.terms() * self.a.shape[1]

    def _compute_ball(self, prec: int) -> arb_mat:
        rows = self.a.ball_mat(prec).tolist()
        return arb_mat([[sum(r[1:], r[0])] for r in rows])


def row_sums(a: Node) -> Node:
    """The row sums of a value (``weights_sum`` claims): shape (rows, 1)."""
    if isinstance(a, RationalNode):
        return matmul(a, ones(a.shape[1], 1))
    if a.symbolic:
        return SympyNode(RowSumNode(a).exact())
    return RowSumNode(a)


class SumNormalizeNode(_Derived):
    """``x_ij / sum_k x_ik``: dividing by the row sum instead of a softmax (a common bug,
    reproduced on request)."""

    def __init__(self, m: Node) -> None:
        super().__init__([m])
        self.m = m
        self.shape = m.shape
        self.sums = RowSumNode(m)

    def entry(self, i: int, j: int) -> sympy.Expr:
        return self.m.entry(i, j) / self.sums.entry(i, 0)

    def rational(self, k: int) -> Fraction | None:
        i, j = self.index(k)
        a, b = self.m.rational(k), self.sums.rational(i)
        if a is not None and b:
            return a / b
        return None

    def _compute_ball(self, prec: int) -> arb_mat:
        rows = self.m.ball_mat(prec).tolist()
        out = []
        for r in rows:
            total = sum(r[1:], r[0])
            out.append([x / total for x in r])
        return arb_mat(out)


def normalize(m: Node, how: str = "softmax", axis: str = "keys", masked_rows: str = "error") -> Node:
    """Attention weights from logits: ``softmax`` (the standard) or ``sum`` (dividing by
    the row sum, a bug some pages make)."""
    if how == "softmax":
        return softmax(m, axis, masked_rows)
    if how != "sum":
        raise ValueError(f"unknown normalization {how!r}")
    if m.symbolic:
        node = SumNormalizeNode(m if axis == "keys" else transpose(m))
        out: Node = SympyNode(node.exact())
    else:
        out = SumNormalizeNode(m if axis == "keys" else transpose(m))
    return out if axis == "keys" else transpose(out)


# ---------------------------------------------------------------------------------------
# element-wise arithmetic (the backward pass)


def _op(op: str, x: object, y: object) -> object:
    if op == "mul":
        return x * y  # type: ignore[operator]
    if op == "sub":
        return x - y  # type: ignore[operator]
    return x + y  # type: ignore[operator]


class ElementwiseNode(_Derived):
    """``a (op) b`` element by element, with ``b`` broadcast when it is one row or one column."""

    def __init__(self, op: str, a: Node, b: Node) -> None:
        super().__init__([a, b])
        self.op, self.a, self.b = op, a, b
        self.shape = a.shape

    def _bidx(self, i: int, j: int) -> tuple[int, int]:
        return (0 if self.b.shape[0] == 1 else i, 0 if self.b.shape[1] == 1 else j)

    def terms(self) -> int:
        return self.a.terms() + self.b.terms()

    def entry(self, i: int, j: int) -> sympy.Expr:
        return _op(self.op, self.a.entry(i, j), self.b.entry(*self._bidx(i, j)))  # type: ignore[return-value]

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
            return _op(self.op, x, y)  # type: ignore[return-value]
        return None

    def _compute_ball(self, prec: int) -> arb_mat:
        a = self.a.ball_mat(prec).tolist()
        b = self.b.ball_mat(prec).tolist()
        r, c = self.shape
        return arb_mat([[_op(self.op, a[i][j], b[i if len(b) > 1 else 0][j if len(b[0]) > 1 else 0])
                         for j in range(c)] for i in range(r)])


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
    if isinstance(a, RationalNode) and isinstance(b, RationalNode):
        def compute() -> fmpq_mat:
            r, c = a.shape
            bm = b.mat
            rows_ = [[_op(op, a.mat[i, j], bm[0 if b.shape[0] == 1 else i, 0 if b.shape[1] == 1 else j])
                      for j in range(c)] for i in range(r)]
            return fmpq_mat(rows_)
        return RationalNode(a.shape, compute)
    if a.symbolic or b.symbolic:
        node = ElementwiseNode(op, a, b)
        return SympyNode(node.exact())
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


class SoftmaxBackwardNode(_Derived):
    """dS = P ∘ (dP − D) in one pass, with D one value per row (keys axis) or per column."""

    def __init__(self, p: Node, dp: Node, d: Node) -> None:
        super().__init__([p, dp, d])
        self.p, self.dp, self.d = p, dp, d
        self.shape = p.shape
        self.per_row = d.shape[1] == 1

    def _d(self, i: int, j: int) -> tuple[int, int]:
        return (i, 0) if self.per_row else (0, j)

    def entry(self, i: int, j: int) -> sympy.Expr:
        return self.p.entry(i, j) * (self.dp.entry(i, j) - self.d.entry(*self._d(i, j)))

    def terms(self) -> int:
        return self.p.terms() + self.dp.terms() + self.d.terms()

    def rational(self, k: int) -> Fraction | None:
        if self.p.rational(k) == 0:
            return Fraction(0)
        return super().rational(k)

    def _compute_ball(self, prec: int) -> arb_mat:
        P = self.p.ball_mat(prec).tolist()
        dP = self.dp.ball_mat(prec).tolist()
        D = self.d.ball_mat(prec).tolist()
        if self.per_row:
            return arb_mat([[p * (x - d[0]) for p, x in zip(pr, dr)] for pr, dr, d in zip(P, dP, D)])
        return arb_mat([[p * (x - d) for p, x, d in zip(pr, dr, D[0])] for pr, dr in zip(P, dP)])


def softmax_backward(p: Node, dp: Node, d: Node) -> Node:
    """dS = P ∘ (dP − D 1ᵀ) (or P ∘ (dP − 1 D) for a softmax over queries)."""
    if p.symbolic or dp.symbolic or d.symbolic:
        return SympyNode(SoftmaxBackwardNode(p, dp, d).exact())
    return SoftmaxBackwardNode(p, dp, d)
