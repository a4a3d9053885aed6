"""Exact arithmetic on closed forms of attention: fractions of polynomials in exponentials,
radicals and constants, and sound exact-zero tests.

A closed form of attention (a rational function of exponentials) is a DAG: SymPy shares
equal subexpressions. :class:`Field` evaluates it once, in exact arithmetic:

* every value is a fraction of polynomials with rational coefficients (python-flint
  ``fmpq_mpoly``) in a few generators: one per *direction* of the exponents (each
  exponential e^{c₀ + c₁√2 + …} is the monomial A₁^{c₀·L₁} A₂^{c₁·L₂} …, with L the common
  denominator of the coefficients: the polynomials are sparse, so a large L costs nothing),
  one per radical (√2, with t² = 2), one per other constant (π, log 3), and one per symbol
  that has no value;
* denominators are kept as products of named factors (each sum of exponentials a row's
  softmax divides by is one factor), so that adding fractions multiplies in only the
  factors that are missing, and no polynomial gcd is ever taken.

A value is *proved* zero when its numerator reduces to the zero polynomial. The
generators are treated as independent variables, so a polynomial that vanishes
identically vanishes at their true values: "zero" is always sound. (By
Lindemann–Weierstrass the exponential generators are in fact algebraically independent
for exponents in linearly independent directions, so zero is also what is expected when
an identity holds.) :mod:`symattn.analyses.adjoint` differentiates in the same field.

>>> import sympy
>>> e2 = sympy.exp(sympy.Rational(5, 2) * sympy.sqrt(2))
>>> w = e2 / (1 + e2) + 1 / (1 + e2) - 1
>>> field = Field([w], {})
>>> field.is_zero(field.value(w)), field.is_zero(field.value(sympy.sqrt(2) ** 3 - 2 * sympy.sqrt(2) + 1))
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from math import gcd, lcm
from typing import Iterable, Mapping, Sequence

import sympy
from flint import fmpq, fmpq_mpoly, fmpq_mpoly_ctx

__all__ = ["Field", "Value", "Unsupported", "postorder", "radical_basis"]


class Unsupported(Exception):
    """The expression holds something this evaluator does not handle (the caller falls back)."""


@dataclass
class Value:
    """num · A^shift / Π factor^k: a numerator polynomial, a shift of the exponential
    generators (a Laurent monomial), and the denominator as factor ids with exponents."""

    num: fmpq_mpoly
    shift: tuple[int, ...]
    dens: dict[int, int] = dc_field(default_factory=dict)


def postorder(roots: Iterable[sympy.Basic]) -> list[sympy.Basic]:
    """The distinct subexpressions of ``roots``, each after its arguments (a DAG walk).

    >>> x = sympy.Symbol("x")
    >>> postorder([sympy.exp(x) + x])
    [x, exp(x), x + exp(x)]
    """
    seen: set[sympy.Basic] = set()
    order: list[sympy.Basic] = []
    for root in roots:
        if root in seen:
            continue
        stack: list[tuple[sympy.Basic, bool]] = [(root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
                continue
            if node in seen:
                continue
            seen.add(node)
            stack.append((node, True))
            for a in reversed(node.args):
                if a not in seen:
                    stack.append((a, False))
    return order


def _terms(w: sympy.Expr) -> list[tuple[sympy.Rational, sympy.Expr]]:
    """An exponent at the point as (rational coefficient, direction) pairs."""
    out = []
    for t in sympy.Add.make_args(sympy.expand(w)):
        c, rest = t.as_coeff_Mul()
        if not c.is_Rational:
            c, rest = sympy.Integer(1), t
        out.append((c, rest))
    return out


#: radicands up to which a perfect power is detected (10^100; past it a radicand is kept whole, which
#: can only leave an identity unproved, never prove a false one)
_PERFECT_POWER_MAX = 10**100


def radical_basis(radicals: Iterable[tuple[int, int]]) -> tuple[list[tuple[int, int]],
                                                                 dict[tuple[int, int], tuple[int, ...]]]:
    """Generators for the radicals b^(1/q) (integers b > 1): pairwise coprime c_i that are not
    perfect powers, each with its root order Q_i, and each b^(1/q) as exponents e with
    b^(1/q) = Π_i (c_i^(1/Q_i))^e_i. Products of such generators with exponents below the Q_i are
    linearly independent over the rationals (Besicovitch, Mordell), so a polynomial reduced by
    t_i^Q_i = c_i is zero exactly when its value is.

    >>> radical_basis([(2, 2), (3, 2), (6, 2), (12, 3)])
    ([(2, 6), (3, 6)], {(2, 2): (3, 0), (3, 2): (0, 3), (6, 2): (3, 3), (12, 3): (4, 2)})
    """
    pairs = sorted(set(radicals))
    basis: list[int] = []
    for b, _ in pairs:  # a coprime basis by gcd refinement (no factoring)
        todo = [b]
        while todo:
            x = todo.pop()
            if x == 1 or x in basis:
                continue
            for k, c in enumerate(basis):
                g = gcd(x, c)
                if g > 1:
                    basis.pop(k)
                    todo += [g, c // g, x // g]
                    break
            else:
                basis.append(x)
    roots = []
    for c in basis:
        pp = sympy.perfect_power(c) if c < _PERFECT_POWER_MAX else False
        roots.append(int(pp[0]) if pp else c)
    roots.sort()
    powers: dict[tuple[int, int], list[int]] = {}
    for b, q in pairs:
        a, rest = [], b
        for m in roots:
            n = 0
            while rest % m == 0:
                rest //= m
                n += 1
            a.append(n)
        powers[(b, q)] = a
    order = [lcm(1, *[q // gcd(a[i], q) for (_, q), a in powers.items() if a[i]]) for i in range(len(roots))]
    monomials = {bq: tuple(a[i] * order[i] // bq[1] for i in range(len(roots))) for bq, a in powers.items()}
    return list(zip(roots, order)), monomials


class Field:
    """The exact arithmetic for a set of expressions at a point (``at``: symbol -> number).

    With ``free``, a symbol that has no value is a generator of its own (an identity in
    it is then proved for every value); otherwise it is :class:`Unsupported`.
    """

    def __init__(self, exprs: Sequence[sympy.Expr], at: Mapping[sympy.Symbol, sympy.Expr],
                 free: bool = False) -> None:
        self.at = dict(at)
        unknowns: set[sympy.Symbol] = set()
        directions: dict[sympy.Expr, int] = {}
        radicals: set[tuple[int, int]] = set()  # b**(1/q) as (b, q)
        opaque: list[sympy.Expr] = []
        self._exponent: dict[sympy.Basic, list[tuple[sympy.Rational, sympy.Expr]]] = {}
        bad_atoms = (sympy.S.Infinity, sympy.S.NegativeInfinity, sympy.S.ComplexInfinity, sympy.S.NaN)
        self._deps: dict[sympy.Basic, bool] = {}  # whether a node holds an unknown (by type, no assumptions)
        for node in postorder(exprs):
            deps = self._deps[node] = isinstance(node, sympy.Symbol) or any(self._deps[a] for a in node.args)
            if isinstance(node, sympy.exp) or node is sympy.E:
                w = sympy.Integer(1) if node is sympy.E else node.args[0]
                terms = _terms(w.xreplace(self.at) if deps else w)
                if not free and any(rest.free_symbols for _, rest in terms):
                    raise Unsupported(f"an exponent with unknowns at the point: {w}")
                self._exponent[node] = terms
                for c, rest in terms:
                    directions[rest] = lcm(directions.get(rest, 1), int(c.q))
            elif isinstance(node, sympy.Symbol):
                if free and node not in self.at:
                    unknowns.add(node)
            elif isinstance(node, (sympy.Add, sympy.Mul, sympy.Rational)):
                continue
            elif isinstance(node, sympy.Pow):
                if node.exp.is_Integer:
                    continue
                if deps:
                    raise Unsupported(f"a non-integer power of unknowns: {node}")
                b, e = node.base, node.exp
                if isinstance(b, sympy.Integer) and isinstance(e, sympy.Rational) and b > 0:
                    radicals.add((int(b), int(e.q)))
                elif node not in opaque:
                    opaque.append(node)
            elif node in bad_atoms or isinstance(node, sympy.Float):
                raise Unsupported(f"the value {node}")
            elif deps:
                raise Unsupported(f"{type(node).__name__} of unknowns")
            elif (isinstance(node, (sympy.NumberSymbol, sympy.Function))) and node not in opaque:
                opaque.append(node)  # π, log 3, ...: an independent generator
            elif not isinstance(node, (sympy.NumberSymbol, sympy.Function)):
                raise Unsupported(f"cannot evaluate {type(node).__name__}")
        self.directions = sorted(directions, key=sympy.default_sort_key)
        self.scale = [directions[d] for d in self.directions]
        # generators t_i = c_i^(1/Q_i) of multiplicatively independent c_i (t_i^Q_i = c_i), and each
        # b^(1/q) as a monomial in them: √6 is t_2·t_3, not a third generator (or √2·√3 − √6 = 0
        # would not reduce to the zero polynomial)
        self.relations, self._root_of = radical_basis(radicals)
        self.radicals = self.relations
        self.opaque = opaque + sorted(unknowns, key=sympy.default_sort_key)  # generators with no relation
        names = ([f"A{k}" for k in range(len(self.directions))] + [f"r{k}" for k in range(len(self.radicals))]
                 + [f"c{k}" for k in range(len(self.opaque))]) or ["_"]
        self.ctx = fmpq_mpoly_ctx.get(tuple(names), "lex")
        self.gens = self.ctx.gens()
        self.nd = len(self.directions)
        self.factors: list[fmpq_mpoly] = []
        self._values: dict[sympy.Basic, Value] = {}

    # -- arithmetic -------------------------------------------------------------------------------

    def const(self, c: fmpq | int) -> Value:
        return Value(self.ctx.from_dict({(0,) * self.ctx.nvars(): fmpq(c)}) if c else self.ctx.from_dict({}),
                     (0,) * self.nd)

    def _reduce(self, p: fmpq_mpoly) -> fmpq_mpoly:
        """Apply r^q = b for each radical r = b^(1/q)."""
        if not self.radicals or p.is_zero():
            return p
        degs = p.degrees()
        if all(degs[self.nd + k] < q for k, (_, q) in enumerate(self.relations)):
            return p
        out: dict[tuple[int, ...], fmpq] = {}
        for exps, c in p.to_dict().items():
            e = list(exps)
            for k, (b, q) in enumerate(self.relations):
                pos = self.nd + k
                if e[pos] >= q:
                    c = c * fmpq(b) ** (e[pos] // q)
                    e[pos] %= q
            key = tuple(e)
            out[key] = out.get(key, fmpq(0)) + c
        return self.ctx.from_dict({k: v for k, v in out.items() if v != 0})

    def mul(self, a: Value, b: Value) -> Value:
        if a.num.is_zero() or b.num.is_zero():
            return self.const(0)
        dens = dict(a.dens)
        for k, e in b.dens.items():
            dens[k] = dens.get(k, 0) + e
        return Value(self._reduce(a.num * b.num), tuple(x + y for x, y in zip(a.shift, b.shift)), dens)

    def _lift(self, v: Value, dens: dict[int, int], shift: tuple[int, ...]) -> fmpq_mpoly:
        num = v.num
        for k, e in dens.items():
            missing = e - v.dens.get(k, 0)
            if missing:
                num = num * self.factors[k] ** missing
        up = [s - m for s, m in zip(v.shift, shift)]
        if any(up):
            num = num * self.ctx.from_dict({tuple(up) + (0,) * (self.ctx.nvars() - self.nd): 1})
        return num

    def add(self, a: Value, b: Value) -> Value:
        if a.num.is_zero():
            return b
        if b.num.is_zero():
            return a
        dens = dict(a.dens)
        for k, e in b.dens.items():
            dens[k] = max(dens.get(k, 0), e)
        shift = tuple(min(x, y) for x, y in zip(a.shift, b.shift))
        num = self._reduce(self._lift(a, dens, shift) + self._lift(b, dens, shift))
        if num.is_zero():
            return self.const(0)
        return Value(num, shift, dens)

    def total(self, values: Sequence[Value]) -> Value:
        """The sum of many values: those over the same denominator first (numerators added,
        nothing multiplied in), then the groups pairwise, so that products stay small."""
        groups: dict[tuple[tuple[int, int], ...], Value] = {}
        for v in values:
            if v.num.is_zero():
                continue
            key = tuple(sorted(v.dens.items()))
            groups[key] = self.add(groups[key], v) if key in groups else v
        parts = list(groups.values())
        if not parts:
            return self.const(0)
        while len(parts) > 1:
            parts = [self.add(parts[k], parts[k + 1]) if k + 1 < len(parts) else parts[k]
                     for k in range(0, len(parts), 2)]
        return parts[0]

    def neg(self, a: Value) -> Value:
        return Value(-a.num, a.shift, dict(a.dens))

    def sub(self, a: Value, b: Value) -> Value:
        return self.add(a, self.neg(b))

    def inv(self, a: Value) -> Value:
        """1/a. The numerator becomes a denominator factor, normalised (no monomial of the
        exponential generators, leading coefficient 1) so that the same sum of exponentials
        written with another shift, or another constant, is the same factor."""
        if a.num.is_zero():
            raise ZeroDivisionError("division by an exact zero")
        # split off the exponential generators' common monomial and the leading coefficient
        down = tuple(a.num.term_content().monoms()[0][: self.nd])
        p = a.num
        if any(down):
            p = a.num / self.ctx.from_dict({down + (0,) * (self.ctx.nvars() - self.nd): 1})
        lead = p.coeffs()[0]
        p = p * (1 / lead)
        num = self.const(1).num * (1 / lead)
        for k, e in a.dens.items():
            num = num * self.factors[k] ** e
        shift = tuple(-s - d for s, d in zip(a.shift, down))
        if p.is_constant():
            return Value(self._reduce(num), shift, {})
        for k, f in enumerate(self.factors):
            if f == p:
                break
        else:
            k = len(self.factors)
            self.factors.append(p)
        return Value(self._reduce(num), shift, {k: 1})

    def power(self, a: Value, n: int) -> Value:
        if n < 0:
            return self.power(self.inv(a), -n)
        out = self.const(1)
        base = a
        while n:
            if n & 1:
                out = self.mul(out, base)
            n >>= 1
            if n:
                base = self.mul(base, base)
        return out

    def is_zero(self, a: Value) -> bool:
        return self._reduce(a.num).is_zero()

    # -- expressions ------------------------------------------------------------------------------

    def _exp(self, node: sympy.Basic) -> Value:
        terms = self._exponent.get(node)
        if terms is None:  # not among the expressions the field was made for
            w = sympy.Integer(1) if node is sympy.E else node.args[0]
            terms = _terms(w.xreplace(self.at))
        shift = [0] * self.nd
        for c, rest in terms:
            if rest not in self.directions or (c * self.scale[self.directions.index(rest)]).q != 1:
                raise Unsupported(f"the exponent of {node} is not on the field's grid")
            k = self.directions.index(rest)
            shift[k] += int(c * self.scale[k])
        return Value(self.const(1).num, tuple(shift))

    def value(self, expr: sympy.Basic) -> Value:
        """The exact value of an expression at the point."""
        for node in postorder([expr]):
            if node not in self._values:
                self._values[node] = self._node(node)
        return self._values[expr]

    def _node(self, node: sympy.Basic) -> Value:
        vals = self._values
        if isinstance(node, sympy.Symbol) and node not in self.opaque:
            if node not in self.at:
                raise Unsupported(f"no value for {node}")
            return self.value(self.at[node])
        if node.is_Rational:
            return self.const(fmpq(int(node.p), int(node.q)))
        if isinstance(node, sympy.exp) or node is sympy.E:
            return self._exp(node)
        if isinstance(node, sympy.Add):
            return self.total([vals[a] for a in node.args])
        if isinstance(node, sympy.Mul):
            out = self.const(1)
            for a in node.args:
                out = self.mul(out, vals[a])
            return out
        if isinstance(node, sympy.Pow):
            if node.exp.is_Integer:
                return self.power(vals[node.base], int(node.exp))
            b, e = node.base, node.exp
            exps = self._root_of.get((int(b), int(e.q))) if b.is_Integer and e.is_Rational else None
            if exps is not None:
                monomial = (0,) * self.nd + exps + (0,) * len(self.opaque)
                return self.power(Value(self.ctx.from_dict({monomial: 1}), (0,) * self.nd), int(e.p))
        if node in self.opaque:
            k = self.opaque.index(node)
            return Value(self.gens[self.nd + len(self.radicals) + k], (0,) * self.nd)
        raise Unsupported(f"cannot evaluate {type(node).__name__}: {node}")
