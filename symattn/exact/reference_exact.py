"""Ball arithmetic for the entries the float64 fast path leaves undecided: exact scores,
exact ties (Lindemann–Weierstrass) and precision raised only where a rounding is undecided.

Inputs are floats, so each is ``integer · 2^e``. With a common exponent per tensor, the
dot products q·k are exact integers (python-flint ``fmpz_mat``), and every score
``s = τ·q·k + b`` is known exactly: a dyadic rational when τ is a float, or τ times one
when τ = 1/√d. Exponentials, sums and quotients are enclosed in ``arb`` balls.

**Deciding a rounding.** An output ``o = Σⱼ e^{sⱼ} vⱼ / Σⱼ e^{sⱼ}`` whose ball holds one
rounding boundary ``m`` (a midpoint between neighbouring format values, or 0 for the sign
of zero) lies above or below it as ``T = Σⱼ e^{sⱼ}(vⱼ − m)`` is positive or negative.
Keys with exactly equal scores are grouped first, ``T = Σ_g c_g e^{s_g}`` with the exact
coefficient ``c_g = Σ_{j∈g}(vⱼ − m)``: by Lindemann–Weierstrass the exponentials of
distinct algebraic numbers are linearly independent over the algebraic numbers, so T = 0
exactly when every c_g = 0. Then o = m exactly and rounds to even. Otherwise T ≠ 0 and its
sign is found at the precision it needs (groups with c_g = 0 drop out exactly, so no
precision is spent on them). The LSE is handled alike: ``log Σ e^{sⱼ} = m`` only when one
key has score m (base e), or when all scores are 0 and there are 2^m keys (base 2).

With a softcap, scores pass through tanh and are transcendental; the group test still
proves a tie (all c_g = 0 ⇒ T = 0) but cannot exclude one, so an entry that no precision
up to the limit decides is reported with its enclosure, as gradient entries are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional, Sequence

import numpy as np
from flint import arb, arb_mat, ctx, fmpz, fmpz_mat

from ..errors import CertificationError
from .floats import Format, neighbors_midpoint, ordered, round_dyadic

__all__ = ["workprec", "IntTensor", "Tau", "ExactRows", "ball_ends", "round_ball", "pack_arb", "unpack_arb"]


class workprec:
    """python-flint's working precision for a block of code."""

    def __init__(self, bits: int) -> None:
        self.bits = bits

    def __enter__(self) -> None:
        self.old = ctx.prec
        ctx.prec = self.bits

    def __exit__(self, *exc: object) -> None:
        ctx.prec = self.old


# ------------------------------------------------------------------------------------------- exact inputs

@dataclass
class IntTensor:
    """A float64 matrix as exact integers with one exponent: ``values = ints · 2^exp``."""

    ints: list[list[int]]
    exp: int

    @classmethod
    def of(cls, a: np.ndarray) -> "IntTensor":
        """Exact integers of a float64 matrix (any exponent spread).

        >>> t = IntTensor.of(np.array([[0.5, 3.0], [0.0, -0.25]]))
        >>> t.ints, t.exp
        ([[2, 12], [0, -1]], -2)
        """
        a = np.asarray(a, dtype=np.float64)
        nz = a[a != 0]
        if nz.size == 0:
            return cls([[0] * a.shape[1] for _ in range(a.shape[0])], 0)
        frac, e = np.frexp(nz)
        man = np.ldexp(frac, 53).astype(np.int64)
        low = (man & -man).astype(np.float64)
        tz = np.log2(low).astype(np.int64)  # exact: a power of two below 2^53
        exp = int((e.astype(np.int64) - 53 + tz).min())
        top = int(e.max()) - exp
        if top <= 62:
            ints = np.ldexp(a, -exp).astype(np.int64).tolist()
        else:  # a wide exponent spread: 53-bit mantissas shifted as Python integers
            fr, ex = np.frexp(a)
            man = np.ldexp(fr, 53).astype(np.int64).astype(object)
            shift = (ex.astype(np.int64) - 53 - exp)
            up = np.left_shift(man, np.maximum(shift, 0).astype(object))
            down = np.right_shift(man, np.maximum(-shift, 0).astype(object))   # exact: trailing zero bits
            ints = np.where(a == 0, 0, np.where(shift >= 0, up, down)).tolist()
        return cls(ints, exp)

    def fmpz(self, transpose: bool = False) -> fmpz_mat:
        if transpose:
            return fmpz_mat([list(col) for col in zip(*self.ints)]) if self.ints else fmpz_mat(0, 0)
        return fmpz_mat(self.ints)


def _exact_int(x: float, exp: int) -> int:
    if x == 0:
        return 0
    num, den = x.as_integer_ratio()
    shift = -exp
    # x · 2^shift is an integer by the choice of exp
    if shift >= 0:
        return (num << shift) // den
    return num // (den << -shift)


@dataclass(frozen=True)
class Tau:
    """The softmax scale: a float (``dyadic``), or the exact 1/√d (``invsqrt``)."""

    kind: str            # "dyadic" | "invsqrt"
    value: float         # the float used on the fast path (exact for dyadic; fl(1/√d) otherwise)
    d: int = 0           # for invsqrt
    rel_error: float = 0.0  # |value − τ| ≤ rel_error·τ

    def arb(self) -> arb:
        if self.kind == "dyadic":
            return arb(self.value)
        return 1 / arb(self.d).sqrt()

    @property
    def rational(self) -> Optional[Fraction]:
        """τ as an exact rational, or None when it is irrational."""
        if self.kind == "dyadic":
            return Fraction(self.value)
        r = math.isqrt(self.d)
        return Fraction(1, r) if r * r == self.d else None

    def describe(self) -> str:
        if self.kind == "dyadic":
            return f"{self.value!r} = {self.value.hex()}"
        return f"1/√{self.d} (exact)"


# ------------------------------------------------------------------------------------------- balls

def ball_ends(b: arb) -> Optional[tuple[tuple[int, int], tuple[int, int]]]:
    """The exact ends (lo, hi) of a ball as dyadics ``(man, exp)``; None if not finite."""
    if not b.is_finite():
        return None
    mm, me = b.mid().man_exp()
    rm, re = b.rad().man_exp()
    mm, me, rm, re = int(mm), int(me), int(rm), int(re)
    if rm == 0:
        return (mm, me), (mm, me)
    e = min(me, re)
    m = mm << (me - e)
    r = rm << (re - e)
    return (m - r, e), (m + r, e)


def round_ball(b: arb, fmt: Format, zero_sign: bool = True) -> tuple[Optional[float], Optional[tuple[float, float]]]:
    """(value, None) when the ball rounds to one ``fmt`` value (same bits), else (None, (rlo, rhi)).

    With ``zero_sign=False`` a ball rounding to ±0 at its two ends gives +0."""
    ends = ball_ends(b)
    if ends is None:
        return None, None
    (lm, le), (hm, he) = ends
    rlo, rhi = round_dyadic(lm, le, fmt), round_dyadic(hm, he, fmt)
    if rlo == rhi and (math.copysign(1, rlo) == math.copysign(1, rhi) or (not zero_sign and rlo == 0)):
        return (0.0 if rlo == 0 and not zero_sign else rlo), None
    return None, (rlo, rhi)


def pack_arb(b: arb) -> tuple[int, int, int, int]:
    """An arb as plain integers (mid man, mid exp, rad man, rad exp), to send between processes."""
    mm, me = b.mid().man_exp()
    rm, re = b.rad().man_exp()
    return int(mm), int(me), int(rm), int(re)


def unpack_arb(t: Sequence[int]) -> arb:
    return arb((t[0], t[1]), (t[2], t[3]))


def _arb_dyadic(man: int, exp: int) -> arb:
    return arb((man, exp)) if man != 0 else arb(0)


def rows_times(rows: list[list[arb]], right: arb_mat) -> list[list[arb]]:
    """(rows as a matrix)·right, choosing flint's faster algorithm: a product with at least 64
    rows uses block multiplication (rows are padded with zeros up to 64 when there are at
    least 12); fewer go column by column against rightᵀ."""
    n = len(rows)
    if n == 0:
        return []
    m = len(rows[0])
    if n >= 12:
        pad = [[arb(0)] * m for _ in range(max(0, 64 - n))]
        prod = arb_mat(rows + pad) * right
        w = prod.ncols()
        flat = prod.entries()
        return [flat[r * w:(r + 1) * w] for r in range(n)]
    prod = right.transpose() * arb_mat(rows).transpose()
    w = prod.nrows()
    flat = prod.entries()
    return [[flat[c * n + r] for c in range(w)] for r in range(n)]


@dataclass
class FixedRight:
    """The exact right factor of :func:`fixed_rows_times`: integers ``ints · 2^exp`` (m × c), with
    each column's largest entry and sum of magnitudes (as integers at the same exponent)."""

    mat: fmpz_mat
    exp: int
    colmax: list[int]
    colabs: list[int]

    @classmethod
    def of(cls, it: IntTensor) -> "FixedRight":
        cols = list(zip(*it.ints)) if it.ints else []
        return cls(fmpz_mat(it.ints), it.exp, [max((abs(x) for x in c), default=0) for c in cols],
                   [sum(abs(x) for x in c) for c in cols])


def fixed_rows_times(rows: list[list[arb]], right: FixedRight, prec: int) -> list[list[arb]]:
    """(rows)·right with the balls of ``rows`` rounded to fixed point and one exact integer product.

    Row r's entries are truncated to integers at 2^{E_r}, E_r = (its largest exponent) − prec
    − 16, so each is within rad_j + 2^{E_r} of its ball's centre; the product of integers is
    exact (``fmpz_mat``), and column c is off by at most (Σ_j rad_j)·max_j|v_jc| +
    2^{E_r}·Σ_j|v_jc|. Σ_j rad_j comes from (row − mid(row))·1 (its radius), in C.
    """
    n = len(rows)
    if n == 0:
        return []
    m = len(rows[0])
    ints_rows, exps = [], []
    for row in rows:
        me = [x.mid().man_exp() for x in row]
        top = max(((int(a).bit_length() + int(e)) for a, e in me if a != 0), default=0)
        e0 = top - prec - 16
        ints = []
        for a, e in me:
            a, e = int(a), int(e)
            ints.append(a << (e - e0) if e >= e0 else a >> (e0 - e))
        ints_rows.append(ints)
        exps.append(e0)
    em = arb_mat(rows)
    radsum = (em - em.mid()) * arb_mat([[1]] * m)
    prod = fmpz_mat(ints_rows) * right.mat
    c = prod.ncols()
    flat = prod.entries()
    unit = arb(0, 1)
    out = []
    for r in range(n):
        rs = radsum[r, 0]
        rs = arb(rs.abs_upper())
        base = exps[r] + right.exp
        row_out = []
        for col in range(c):
            err = rs * arb((right.colmax[col], right.exp)) + arb((right.colabs[col], base))
            row_out.append(arb((int(flat[r * c + col]), base)) + err * unit)
        out.append(row_out)
    return out


# ------------------------------------------------------------------------------------------- rows

@dataclass
class RowData:
    """What the exact path knows about one query row: exact scores and the keys that count.

    Score j is ``τ·ints[j]·2^qk_exp`` (through the softcap), plus ``add[j]·2^add_exp``
    (bias and ALiBi, exact) when ``add`` is given; ``ref`` (a dyadic) is subtracted before exp.
    """

    ints: list[int]
    allowed: np.ndarray
    add: Optional[list[int]]
    add_exp: int
    ref: tuple[int, int]
    _groups: Optional[dict] = field(default=None, repr=False)


class ExactRows:
    """Exact evaluation of rows of one head (query head h, key/value head g).

    ``k``, ``v`` (and ``dO`` rows) are float64 arrays of exact values; ``tau`` the scale;
    ``softcap`` an exact Fraction or None.
    """

    def __init__(self, k: np.ndarray, v: np.ndarray, tau: Tau, softcap: Optional[Fraction]) -> None:
        self.k = k
        self.v = v
        self.tau = tau
        self.softcap = softcap
        self.kint = IntTensor.of(k)
        self.kT = self.kint.fmpz(transpose=True)
        self.vint = IntTensor.of(v)
        self._v_arb: dict[int, arb_mat] = {}
        self._k_arb: dict[int, arb_mat] = {}
        self.lw = softcap is None   # Lindemann–Weierstrass decides ties only for algebraic scores

    # ---------------------------------------------------------------- exact scores

    def score_ints(self, q: np.ndarray) -> tuple[list[list[int]], int]:
        """Exact q·kᵀ for query rows ``q`` as integers (fmpz) and their exponent; the product
        matrix is kept as ``last_scores`` for :meth:`scores_arb` on the same rows."""
        qi = IntTensor.of(q)
        prod = qi.fmpz() * self.kT
        n, m = prod.nrows(), prod.ncols()
        flat = prod.entries()
        rows = [flat[r * m:(r + 1) * m] for r in range(n)]
        self.last_scores = (rows, prod)
        return rows, qi.exp + self.kint.exp

    def keys(self, row: RowData, qk_exp: int) -> dict[Any, list[int]]:
        """Groups of keys with exactly equal scores: {exact score key: [j, ...]} (allowed keys only)."""
        if row._groups is not None:
            return row._groups
        js = np.flatnonzero(row.allowed).tolist()
        rat = self.tau.rational
        groups: dict[Any, list[int]] = {}
        if row.add is None:
            # scores τ·I·2^e (through tanh, which is injective): equal exactly when the integers are
            for j in js:
                groups.setdefault(row.ints[j], []).append(j)
        elif rat is None or self.softcap is not None:
            # τ·I·2^e + b (or c·tanh(τ·I·2^e/c) + b) with τ irrational, or through tanh: two scores
            # are equal exactly when both I and b are (a transcendental or irrational difference is
            # never the rational b' − b, by Lindemann–Weierstrass)
            for j in js:
                groups.setdefault((row.ints[j], row.add[j]), []).append(j)
        else:
            # all rational: den·s = num·I·2^e + den·b, as integers at one exponent
            num, den = rat.numerator, rat.denominator
            e0 = min(qk_exp, row.add_exp)
            a, b = 1 << (qk_exp - e0), 1 << (row.add_exp - e0)
            for j in js:
                groups.setdefault(num * row.ints[j] * a + den * row.add[j] * b, []).append(j)
        row._groups = groups
        return groups

    def score_equals(self, row: RowData, j: int, m: tuple[int, int], qk_exp: int) -> bool:
        """Whether key j's exact score equals the dyadic m."""
        mf = Fraction(m[0]) * Fraction(2) ** m[1]
        b = Fraction(row.add[j]) * Fraction(2) ** row.add_exp if row.add is not None else Fraction(0)
        if self.softcap is not None:
            # c·tanh(x) + b is rational only for x = 0 (Lindemann); then it is b
            return row.ints[j] == 0 and b == mf
        rat = self.tau.rational
        if rat is None:
            return row.ints[j] == 0 and b == mf
        return rat * int(row.ints[j]) * Fraction(2) ** qk_exp + b == mf

    # ---------------------------------------------------------------- balls

    def scores_arb(self, rows: Sequence[RowData], qk_exp: int, prec: int) -> list[list[arb]]:
        """Enclosures of the scores minus each row's reference value (masked keys: None).

        τ·I·2^e (+ the additive terms) − ref is formed with matrix operations in C; only a
        softcap and the masking touch entries one by one."""
        with workprec(prec):
            n = len(rows)
            m = len(rows[0].ints) if n else 0
            factor = self.tau.arb() * arb(2) ** qk_exp
            last = getattr(self, "last_scores", None)
            if last is not None and len(last[0]) == n and all(a is b.ints for a, b in zip(last[0], rows)):
                mat = last[1]
            else:
                mat = fmpz_mat([list(r.ints) for r in rows])
            sm = arb_mat(mat) * factor
            if self.softcap is not None:
                cap = arb(self.softcap.numerator) / self.softcap.denominator
                flat = [cap * (x / cap).tanh() for x in sm.entries()]
                sm = arb_mat([flat[r * m:(r + 1) * m] for r in range(n)])
            if any(r.add is not None for r in rows):
                e0 = min(r.add_exp for r in rows if r.add is not None)
                adds = [[a << (r.add_exp - e0) for a in r.add] if r.add is not None else [0] * m for r in rows]
                sm = sm + arb_mat(fmpz_mat(adds)) * arb(2) ** e0
            refs = arb_mat([[_arb_dyadic(*r.ref)] for r in rows])
            sm = sm - refs * arb_mat([[1] * m])
            flat = sm.entries()
            out: list[list[Any]] = []
            for r, row in enumerate(rows):
                xs: list[Any] = flat[r * m:(r + 1) * m]
                if not row.allowed.all():
                    xs = [x if ok else None for x, ok in zip(xs, row.allowed.tolist())]
                out.append(xs)
            return out

    def kv_columns(self, rows: Sequence[RowData], do: np.ndarray, qk_exp: int, prec: int, cols: Sequence[int],
                   zero: Sequence[bool]) -> tuple[list[list[arb]], list[list[arb]]]:
        """(P, dS) of rows for key columns ``cols``, without the product with V: L = Σ_j e_j and
        D·L = Σ_j e_j dP_j with dP = dO·Vᵀ exact (D = rowsum(dO ∘ O) = Σ_j P_j dP_j)."""
        xs = self.scores_arb(rows, qk_exp, prec)
        if not hasattr(self, "_vT"):
            self._vT = self.vint.fmpz(transpose=True)
        di = IntTensor.of(do)
        dpm = di.fmpz() * self._vT
        m = dpm.ncols()
        dpflat = dpm.entries()
        with workprec(prec):
            scale = arb(2) ** (di.exp + self.vint.exp)
            zero_ = arb(0)
            ps, dss = [], []
            ones = arb_mat([[1]] * m)
            for r, row in enumerate(rows):
                es = [zero_ if x is None else x.exp() for x in xs[r]]
                dprow = dpflat[r * m:(r + 1) * m]
                erow = arb_mat([es])
                L = (erow * ones)[0, 0]
                T = (erow * arb_mat(fmpz_mat(m, 1, dprow)))[0, 0]
                D = T * scale / L
                prow, dsrow = [], []
                for j in cols:
                    if not row.allowed[j]:
                        prow.append(zero_)
                        dsrow.append(zero_)
                        continue
                    pj = es[j] / L
                    prow.append(pj)
                    dsrow.append(zero_ if zero[r] else pj * (arb(dprow[j]) * scale - D))
                ps.append(prow)
                dss.append(dsrow)
        return ps, dss

    def v_arb(self, prec: int, ones: bool = True) -> arb_mat:
        """[V | 1] as an arb matrix (exact at any precision ≥ 53)."""
        key = prec * 2 + int(ones)
        if key not in self._v_arb:
            with workprec(max(prec, 64)):
                rows = self.v.tolist()
                if ones:
                    rows = [r + [1.0] for r in rows]
                self._v_arb[key] = arb_mat(rows)
        return self._v_arb[key]

    def _times_v(self, es: list[list[arb]], prec: int) -> list[list[arb]]:
        """es·[V | 1]: exact fixed point for a few rows, flint's block product for many."""
        if len(es) >= 48:
            return rows_times(es, self.v_arb(prec))
        if not hasattr(self, "_v_fixed"):
            vexp = min(self.vint.exp, 0)
            sh = self.vint.exp - vexp
            ints = [[x << sh for x in row] + [1 << -vexp] for row in self.vint.ints]
            self._v_fixed = FixedRight.of(IntTensor(ints, vexp))
        return fixed_rows_times(es, self._v_fixed, prec)

    def _times_k(self, ds: list[list[arb]], prec: int) -> list[list[arb]]:
        if len(ds) >= 48:
            return rows_times(ds, self.k_arb(prec))
        if not hasattr(self, "_k_fixed"):
            self._k_fixed = FixedRight.of(self.kint)
        return fixed_rows_times(ds, self._k_fixed, prec)

    def k_arb(self, prec: int) -> arb_mat:
        if prec not in self._k_arb:
            with workprec(max(prec, 64)):
                self._k_arb[prec] = arb_mat(self.k.tolist())
        return self._k_arb[prec]

    def forward_balls(self, rows: Sequence[RowData], qk_exp: int, prec: int) \
            -> tuple[list[list[arb]], list[list[arb]], list[arb]]:
        """(exps per row, outputs per row, L per row) at precision ``prec``."""
        xs = self.scores_arb(rows, qk_exp, prec)
        with workprec(prec):
            zero = arb(0)
            es = [[zero if x is None else x.exp() for x in row] for row in xs]
            nl = self._times_v(es, prec)
            dv = self.v.shape[1]
            outs, ls = [], []
            for r in range(len(rows)):
                L = nl[r][dv]
                ls.append(L)
                outs.append([nl[r][c] / L for c in range(dv)])
            return es, outs, ls

    def _dp(self, do: np.ndarray, cols: Optional[Sequence[int]], prec: int) -> list[list[arb]]:
        """Exact dP = dO·Vᵀ (for key columns ``cols``, or all) as arb rows."""
        if not hasattr(self, "_vT"):
            self._vT = self.vint.fmpz(transpose=True)
        di = IntTensor.of(do)
        vT = self._vT if cols is None else fmpz_mat([[self.vint.ints[j][c] for j in cols]
                                                     for c in range(self.v.shape[1])])
        prod = di.fmpz() * vT
        with workprec(prec):
            m = arb_mat(prod) * arb(2) ** (di.exp + self.vint.exp)
            n, w = m.nrows(), m.ncols()
            flat = m.entries()
        return [flat[r * w:(r + 1) * w] for r in range(n)]

    def ds_zero(self, rows: Sequence[RowData], do: np.ndarray) -> list[bool]:
        """Whether dS = P ∘ (dP − D) is exactly zero on each row: when dP_ij = dO_i·v_j takes one
        value over the allowed keys, D_i (a weighted mean of them) equals it. A float64 product
        rules most rows out (a spread beyond twice its error bound γ_d·‖dO_i‖·max‖v_j‖); the
        rest are checked on exact integers."""
        dp = do @ self.v.T
        d = do.shape[1]
        bound = (d * 2.0 ** -53 / (1 - d * 2.0 ** -53)) * np.sqrt((do * do).sum(axis=1)) * 1.01 \
            * float(np.sqrt((self.v * self.v).sum(axis=1)).max(initial=0.0)) + 2.0 ** -1000
        out = []
        check = []
        for r, row in enumerate(rows):
            vals = dp[r][row.allowed]
            if vals.size and vals.max() - vals.min() > 2 * bound[r] * 1.01:
                out.append(False)
            else:
                out.append(True)
                check.append(r)
        if check:
            if not hasattr(self, "_vT"):
                self._vT = self.vint.fmpz(transpose=True)
            prod = IntTensor.of(do[check]).fmpz() * self._vT
            m = prod.ncols()
            flat = prod.entries()
            for t, r in enumerate(check):
                vals = {flat[t * m + j] for j in np.flatnonzero(rows[r].allowed)}
                out[r] = len(vals) <= 1
        return out

    def _ds(self, rows: Sequence[RowData], do: np.ndarray, qk_exp: int, prec: int,
            cols: Optional[Sequence[int]], zero: Optional[Sequence[bool]] = None) \
            -> tuple[list[list[arb]], list[list[arb]]]:
        """(P, dS) rows at precision ``prec`` for key columns ``cols`` (or all keys)."""
        es, outs, ls = self.forward_balls(rows, qk_exp, prec)
        dps = self._dp(do, cols, prec)
        ps, dss = [], []
        with workprec(prec):
            zero_ = arb(0)
            for r, row in enumerate(rows):
                L = ls[r]
                dsum = sum((arb(float(do[r, c])) * outs[r][c] for c in range(do.shape[1])), zero_)
                js = range(len(es[r])) if cols is None else cols
                prow, dsrow = [], []
                for t, j in enumerate(js):
                    if not row.allowed[j]:
                        prow.append(zero_)
                        dsrow.append(zero_)
                        continue
                    pj = es[r][j] / L
                    prow.append(pj)
                    dsrow.append(zero_ if zero is not None and zero[r] else pj * (dps[r][t] - dsum))
                ps.append(prow)
                dss.append(dsrow)
        return ps, dss

    def dq_balls(self, rows: Sequence[RowData], do: np.ndarray, qk_exp: int, prec: int) -> list[list[arb]]:
        """dQ rows (τ·dS·K) at precision ``prec``."""
        _, dss = self._ds(rows, do, qk_exp, prec, None)
        with workprec(prec):
            tau = self.tau.arb()
            return [[x * tau for x in row] for row in self._times_k(dss, prec)]

    def dkdv_partial(self, rows: Sequence[RowData], q: np.ndarray, do: np.ndarray, cols: Sequence[int],
                     qk_exp: int, prec: int, zero: Optional[Sequence[bool]] = None) -> tuple[arb_mat, arb_mat]:
        """This block's Σ_i dS_ij q_i and Σ_i P_ij dO_i for key columns ``cols`` (dK without τ);
        rows flagged in ``zero`` have dS exactly 0 (:meth:`ds_zero`)."""
        ps, dss = self.kv_columns(rows, do, qk_exp, prec, cols, zero if zero is not None else [False] * len(rows))
        with workprec(prec):
            qa = arb_mat(q.tolist())
            da = arb_mat(do.tolist())
            dk = arb_mat(dss).transpose() * qa
            dv = arb_mat(ps).transpose() * da
        return dk, dv

    # ---------------------------------------------------------------- sign tests

    def _score_arb(self, row: RowData, j: int, qk_exp: int) -> arb:
        s = arb(row.ints[j]) * self.tau.arb() * arb(2) ** qk_exp
        if self.softcap is not None:
            cap = arb(self.softcap.numerator) / self.softcap.denominator
            s = cap * (s / cap).tanh()
        if row.add is not None and row.add[j]:
            s = s + arb((row.add[j], row.add_exp))
        return s

    def output_vs(self, row: RowData, col: int, m: tuple[int, int], qk_exp: int, max_bits: int,
                  start: int = 128) -> tuple[int, int]:
        """Compare the exact output o[col] of a row with the dyadic m.

        Returns (sign, bits): sign ∈ {−1, 0, +1} of o − m, 0 meaning an exact tie proved by
        the group test; sign None when undecided up to ``max_bits`` (softcap only).
        """
        groups = self.keys(row, qk_exp)
        vint, vexp = self.vint.ints, self.vint.exp
        mm, me = m
        e0 = min(vexp, me)
        coefs = []
        for g in groups.values():
            c = sum(vint[j][col] for j in g) << (vexp - e0)
            c -= len(g) * (mm << (me - e0))
            if c != 0:
                coefs.append((c, g[0]))
        if not coefs:
            return 0, 0
        prec = start
        while prec <= max_bits:
            with workprec(prec):
                t = arb(0)
                for c, j in coefs:
                    t += arb((c, e0)) * (self._score_arb(row, j, qk_exp) - _arb_dyadic(*row.ref)).exp()
                if t > 0:
                    return 1, prec
                if t < 0:
                    return -1, prec
            prec *= 2
        if not self.lw:
            return None, prec  # type: ignore[return-value]
        raise CertificationError(f"an output's position against a rounding boundary was not decided within "
                                 f"{max_bits} bits")

    def lse_vs(self, row: RowData, m: tuple[int, int], base: str, qk_exp: int, max_bits: int,
               start: int = 128) -> tuple[Optional[int], int]:
        """Sign of LSE − m for the row (0: an exact tie)."""
        groups = self.keys(row, qk_exp)
        mf = Fraction(m[0]) * Fraction(2) ** m[1]
        if base == "e":
            same = [g for g in groups.values() if self.score_equals(row, g[0], m, qk_exp)]
            c0 = -1 + sum(len(g) for g in same)
            others = [g for g in groups.values() if not any(g is s for s in same)]
            if c0 == 0 and not others:
                return 0, 0
            if c0 >= 0:
                return 1, 0
            target = None
        else:
            zero = (0, 0)
            same = [g for g in groups.values() if self.score_equals(row, g[0], zero, qk_exp)]
            n0 = sum(len(g) for g in same)
            others = [g for g in groups.values() if not any(g is s for s in same)]
            c0: Any
            if mf.denominator == 1 and mf >= 0:
                c0 = Fraction(n0 - 2 ** int(mf))
            elif mf.denominator == 1:
                c0 = Fraction(n0) - Fraction(1, 2 ** int(-mf))
            else:
                c0 = None  # 2^m irrational
            if c0 is not None:
                if c0 == 0 and not others:
                    return 0, 0
                if c0 >= 0 and (c0 > 0 or others):
                    return 1, 0
                if not others:
                    return (1 if c0 > 0 else -1), 0
            target = mf
        prec = start
        while prec <= max_bits:
            with workprec(prec):
                if base == "e":
                    ma = _arb_dyadic(*m)
                    t = arb(-1)
                    for g in others:
                        t += len(g) * (self._score_arb(row, g[0], qk_exp) - ma).exp()
                else:
                    # Σ n_g e^{s_g} − 2^m, scaled by 2^{-m}
                    ma = _arb_dyadic(*m)
                    t = arb(n0) * (-ma * arb.const_log2()).exp() - 1
                    for g in others:
                        t += len(g) * (self._score_arb(row, g[0], qk_exp) - ma * arb.const_log2()).exp()
                    _ = target
                if t > 0:
                    return 1, prec
                if t < 0:
                    return -1, prec
            prec *= 2
        if not self.lw:
            return None, prec
        raise CertificationError(f"an LSE's position against a rounding boundary was not decided within "
                                 f"{max_bits} bits")


def decide_with_boundary(ball: arb, fmt: Format, compare) -> tuple[Optional[float], str, int]:
    """Round a ball, using ``compare(m) -> (sign, bits)`` at a single boundary m inside it.

    Returns (value, how, bits): how is "ball", "tie", "sign", or "wide" (the ball holds
    more than one boundary: raise the precision), or "undecided".
    """
    value, pair = round_ball(ball, fmt)
    if value is not None:
        return value, "ball", 0
    if pair is None:
        return None, "wide", 0
    rlo, rhi = pair
    ends = ball_ends(ball)
    assert ends is not None
    (lm, le), (hm, he) = ends
    bits = 0
    if lm <= 0 <= hm and (lm < 0 or hm > 0):
        # the ball meets zero: decide the sign first (m = 0 decides exact zeros too)
        sign, b = compare((0, 0))
        bits = max(bits, b)
        if sign is None:
            return None, "undecided", bits
        if sign == 0:
            return 0.0, "tie", bits
        if sign > 0:
            lm = 0
            rlo = 0.0
        else:
            hm = 0
            rhi = -0.0
        if rlo == rhi and math.copysign(1, rlo) == math.copysign(1, rhi):
            return rlo, "sign", bits
    m = neighbors_midpoint(rlo, rhi, fmt)
    if m is None or (rlo == 0 and rhi == 0):
        return None, "wide", bits
    sign, b = compare(m)
    bits = max(bits, b)
    if sign is None:
        return None, "undecided", bits
    if sign == 0:
        return round_dyadic(m[0], m[1], fmt), "tie", bits
    return (rhi if sign > 0 else rlo), "sign", bits


def adjacent(a: float, b: float, fmt: Format) -> bool:
    return abs(int(ordered(np.array([b]), fmt)[0]) - int(ordered(np.array([a]), fmt)[0])) <= 1


_ = fmpz
