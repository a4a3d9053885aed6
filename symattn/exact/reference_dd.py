"""The second tier of the certified reference: attention in double-float arithmetic (a value as
an unevaluated sum hi + lo of two float64s) with proven error bounds, vectorised in NumPy.

The float64 fast path (:mod:`~symattn.exact.reference_fast`) is accurate to about 2⁻⁴⁵ of each
entry's scale, which leaves some float32 gradient entries undecided; dK and dV are sums over every
query row whose terms cancel, so deciding them needs each row's softmax normaliser L and
D = rowsum(dO ∘ O) far more precisely than float64 gives. This tier computes them to about 2⁻⁶⁰:

- scores: the exact part q_hi·k_hiᵀ and the small rest of the split product
  (:func:`~symattn.exact.reference_fast.side_product`) are kept apart and added without
  rounding (TwoSum), then scaled by τ with an exact product (TwoProd);
- the exponential in double-float: k = rint(x·256/ln 2), a three-part ln 2/256, a degree-6
  polynomial, a table of 2^{j/256} in double-float; its relative error bound :data:`DD_EXP_RHO`
  (about 2⁻⁶⁹) is computed in ball arithmetic when the module is imported;
- row sums by a pairwise tree of error-free additions.

Error-free transformations (Knuth's TwoSum, Dekker's Fast2Sum, split and TwoProd) are exact in
IEEE binary64 round-to-nearest barring overflow and underflow; values here stay far from overflow,
and entries below e^{-700} are set to 0, their contribution bounded absolutely.

>>> xh = np.array([0.0, -1.0, -3.5]); xl = np.array([0.0, 2.0 ** -60, 0.0])
>>> h, l = dd_exp(xh, xl)
>>> bool(h[0] == 1.0 and l[0] == 0.0), bool(abs(h[1] - 0.36787944117144233) < 1e-16)
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Optional, Sequence

import numpy as np
from flint import arb

from .reference_exact import workprec as _prec
from .reference_fast import FLOOR, SAFETY, U, _norms_up, gamma, make_side, split_rows

__all__ = ["two_sum", "fast_two_sum", "two_prod", "dd_exp", "DD_EXP_RHO", "dd_scores", "dd_rowsum", "dd_rowdot", "dd_product",
           "dd_split_product", "RowStats", "RowsDD"]

_SPLITTER = 134217729.0  # 2^27 + 1


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s + e = a + b exactly (Knuth); infinite inputs give e = NaN (callers mask them)."""
    with np.errstate(invalid="ignore"):
        s = a + b
        bb = s - a
        e = (a - (s - bb)) + (b - bb)
    return s, e


def fast_two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s + e = a + b exactly, when |a| ≥ |b| or a = 0 (Dekker)."""
    s = a + b
    e = b - (s - a)
    return s, e


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a: np.ndarray, b: np.ndarray, b_split: Optional[tuple] = None) -> tuple[np.ndarray, np.ndarray]:
    """p + e = a·b exactly (Dekker), barring underflow. ``b_split`` may hold ``_split(b)`` made
    once (a constant or a table): the same operations, so the same result."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b) if b_split is None else b_split
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


# ------------------------------------------------------------------------------------------- exp

def _constants() -> tuple[float, float, float, float, np.ndarray, np.ndarray]:
    with _prec(400):
        c = arb.const_log2() / 256
        inv = float((256 / arb.const_log2()).mid())
        m, e = math.frexp(float(c.mid()))
        c1 = math.ldexp(math.floor(math.ldexp(m, 32)), e - 32)      # 32 significant bits
        rest = c - arb(c1)
        m2, e2 = math.frexp(float(rest.mid()))
        c2 = math.ldexp(math.floor(math.ldexp(m2, 32)), e2 - 32)   # 32 bits too: k·C2 is exact
        c3 = float((rest - arb(c2)).mid())
        th, tl = [], []
        for j in range(256):
            t = (arb(j) / 256 * arb.const_log2()).exp()
            h = float(t.mid())
            th.append(h)
            tl.append(float((t - arb(h)).mid()))
    return inv, c1, c2, c3, np.array(th), np.array(tl)


_INV, _C1, _C2, _C3, _TH, _TL = _constants()
_TH_SPLIT = _split(_TH)
_COEF = [1 / 2, 1 / 6, 1 / 24, 1 / 120, 1 / 720]
_XMIN = -700.0


def _dd_exp_bound() -> float:
    """Relative error bound of :func:`dd_exp` for x ≥ −700 (in ball arithmetic, rounded up).

    With |xh| ≤ 700 (so ulp(xh) ≤ 2⁻⁴³ and |xl| ≤ 2⁻⁴³), |k| < 2¹⁸: k·C1 and k·C2 are exact
    (32-bit C1 and C2; C3 holds the rest of ln 2/256 to 53 bits), TwoSum and TwoProd are exact, and the four float operations forming rl act on numbers below
    3·2⁻⁴³, so rh + rl is within 2⁻⁹⁰ + |k|·|ln2/256 − C1 − C2 − C3| of x − k·ln2/256, whose size is
    at most R = ln2/512 + 2⁻⁴⁰. e^{rh + rl} = 1 + rh + rl + q + rl(rh + q) + O(rl²) with
    q = e^{rh} − 1 − rh: Horner's rule for q (float coefficients) is bounded by the running-error
    recursion, the Taylor remainder by R⁷/7!·e^R, the two additions forming the low part by
    2u·2⁻¹⁹, the dropped rl² terms by 2⁻⁸⁵; the table entries are within 2⁻¹⁰⁵ relative and the
    double-float product adds at most 2⁻¹⁰³.
    """
    with _prec(256):
        u = arb(2) ** -53
        R = arb.const_log2() / 512 + arb(2) ** -40
        ln = arb.const_log2() / 256
        red = arb(2) ** -90 + arb(2) ** 18 * abs(ln - arb(_C1) - arb(_C2) - arb(_C3))
        # Horner for P(r) = 1/2 + r/6 + ... + r^4/720, then q = r²·P(r): running error
        coef = [arb(c) for c in _COEF]
        tails = [arb(0)] * (len(coef) + 1)
        for i in range(len(coef) - 1, -1, -1):
            tails[i] = abs(coef[i]) + R * tails[i + 1]
        err = arb(0)
        for i in range(len(coef) - 2, -1, -1):
            err = err * R * (1 + u) ** 2 + tails[i + 1] * R * (2 * u + u * u) + abs(coef[i]) * u
        p_max = tails[0]
        q_err = (err + p_max * 3 * u) * R * R + sum((abs(arb(_COEF[i]) - 1 / arb.fac_ui(i + 2)) * R ** (i + 2)
                                                    for i in range(len(_COEF))), arb(0))
        trunc = R ** 7 / arb.fac_ui(7) * R.exp()
        adds = 2 * u * arb(2) ** -19 + u * arb(2) ** -40
        dropped = arb(2) ** -85
        table = arb(2) ** -105 + arb(2) ** -103
        emin = (-R).exp()
        rel = (red + (q_err + trunc + adds + dropped) / emin) * R.exp() + table
        up = rel.mid() + rel.rad()
        return float(up) * 2.0


#: |dd_exp(x) − eˣ| ≤ DD_EXP_RHO·eˣ + 2⁻¹⁰⁰⁰ for x = xh + xl ≤ 1/2 (entries below −700 give 0)
DD_EXP_RHO = _dd_exp_bound()
_PIECE = 16384
#: entries of the row pieces in which :class:`RowsDD` does its elementwise work
_ROW_PIECE = 1 << 16


def dd_exp(xh: np.ndarray, xl: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """e^{xh + xl} as a double-float (hi, lo), elementwise; −inf (or below −700) gives 0."""
    xh = np.asarray(xh, dtype=np.float64)
    xl = np.asarray(xl, dtype=np.float64)
    oh = np.empty_like(xh)
    ol = np.empty_like(xh)
    fh, fl, gh, gl = xh.reshape(-1), xl.reshape(-1), oh.reshape(-1), ol.reshape(-1)
    for s in range(0, fh.size, _PIECE):
        gh[s:s + _PIECE], gl[s:s + _PIECE] = _dd_exp_piece(fh[s:s + _PIECE], fl[s:s + _PIECE])
    return oh, ol


def _dd_exp_piece(xh: np.ndarray, xl: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    small = ~(xh >= _XMIN)
    any_small = bool(small.any())
    if any_small:
        xh = np.where(small, 0.0, xh)
        xl = np.where(small, 0.0, xl)
    k = np.rint(xh * _INV)
    ki = k.astype(np.int64)
    j = ki & 255
    # 2^big (big = ⌊k/256⌋ ≥ −1010 here, a normal number) from its bits: multiplying by it is
    # exact, or rounds a subnormal result once as ldexp would
    scale = ((ki >> 8) + 1023 << 52).view(np.float64)
    a, b = two_sum(xh, -(k * _C1))
    rh, e = two_sum(a, -(k * _C2))          # k·C2 exact: 32-bit C2, |k| < 2^18
    rl = ((e + b) + xl) - k * _C3
    p = _COEF[-1] * rh
    for co in reversed(_COEF[:-1]):
        p = (p + co) * rh if co is not _COEF[0] else p + co
    q = rh * rh * p
    s1 = 1.0 + rh                           # Fast2Sum(1, rh): |rh| < 1
    s2 = rh - (s1 - 1.0)
    t = s2 + (rl + (q + rl * (rh + q)))
    e1, e2 = fast_two_sum(s1, t)
    th, tl = _TH[j], _TL[j]
    ph, pe = two_prod(e1, th, (_TH_SPLIT[0][j], _TH_SPLIT[1][j]))   # the same exact error term either way
    pl = pe + (th * e2 + tl * e1)
    oh, ol = fast_two_sum(ph, pl)
    oh *= scale
    ol *= scale
    if any_small:
        oh[small] = 0.0
        ol[small] = 0.0
    return oh, ol


# ------------------------------------------------------------------------------------------- sums

def dd_rowsum(h: np.ndarray, lo: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Σ_j (h_ij + lo_ij) per row as a double-float, and a bound on its error.

    The h parts are summed exactly by rounding each to a multiple of one quantum per row:
    with 2^E > 2m·max_j|h_ij| (m terms) and q = 2^(E − 52), C = 1.5·2^E, fl(h + C) lies in
    [2^E, 2^(E+1)] where the spacing is q, so hi = fl(h + C) − C (exact, Sterbenz) is h rounded to
    a multiple of q and h − hi is exact. Every partial sum of the hi is a multiple of q below
    m(max|h| + q/2) < 2^(E+1) = 2^53·q, so their sum is exact in any order. The remainders
    r = (h − hi) + lo (|h − hi| ≤ q/2) are summed in float64: one rounding each and any order of
    summation, γ_(m+1)·Σ|r|. (E is at least −1000, so q stays representable.)

    >>> h = np.array([[1.0, 2.0 ** -60, 3.0]]); lo = np.array([[2.0 ** -70, 0.0, -(2.0 ** -80)]])
    >>> sh, sl, b = dd_rowsum(h, lo)
    >>> float(sh[0]), float(sl[0]) == 2.0 ** -60 + 2.0 ** -70 - 2.0 ** -80, bool(b[0] < 2.0 ** -100)
    (4.0, True, True)
    """
    R, m = h.shape
    if m == 0:
        z = np.zeros(R)
        return z, z.copy(), z.copy() + FLOOR
    with np.errstate(over="ignore", invalid="ignore"):
        M = np.maximum(h.max(axis=1), -h.min(axis=1))
        fin = np.isfinite(M) & np.isfinite(2.0 * m * M)
        _, E = np.frexp(np.where(fin, 2.0 * m * M, 1.0))
        E = np.maximum(E, -1000)
        C = np.ldexp(np.full(R, 1.5), E)[:, None]
        hi = h + C
        hi -= C
        s_hi = hi.sum(axis=1)                 # exact
        r = h - hi                            # exact
        r += lo
        s_r = r.sum(axis=1)
        np.abs(r, out=r)
        a_r = r.sum(axis=1) / (1 - gamma(m))
    sh, sl = two_sum(s_hi, s_r)
    bound = SAFETY * gamma(m + 1) * a_r + FLOOR
    return sh, sl, np.where(fin & np.isfinite(bound), bound, np.inf)


def dd_rowdot(ah: np.ndarray, al: np.ndarray, bh: np.ndarray, bl: np.ndarray) \
        -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Σ_j (a_h + a_l)(b_h + b_l) per row as a double-float, a bound on its error, and an upper
    bound on Σ_j |a_h b_h|; for pairs with |a_l| ≤ u|a_h| and |b_l| ≤ u|b_h| (normalised
    double-floats; a subnormal low part may be off that by 2⁻¹⁰⁷⁵).

    t + e = a_h·b_h exactly (TwoProd); the low part w = fl(e + fl(fl(a_h b_l) + fl(a_l b_h))) drops
    a_l b_l and rounds three times. With P = |a_h b_h|: |a_h b_l|, |a_l b_h| ≤ uP, |e| ≤ u|t|,
    |w| ≤ 3uP(1 + 3u), so |w − (e + a_h b_l + a_l b_h + a_l b_l)| ≤ u|w| + u·2uP(1 + u)² + 2u²P + u²P
    ≤ 8u²P(1 + 5u), plus 2⁻¹⁰⁷⁴ per product near underflow; P ≤ |t|/(1 − u). The row sums of
    t + w are those of :func:`dd_rowsum`.

    >>> a = np.array([[1.5, 2.0 ** -30]]); b = np.array([[1.0 + 2.0 ** -40, 3.0]])
    >>> sh, sl, err, ab = dd_rowdot(a, np.zeros_like(a), b, np.zeros_like(b))
    >>> float(sh[0]) + float(sl[0]) == 1.5 + 1.5 * 2.0 ** -40 + 3 * 2.0 ** -30, bool(err[0] < 2.0 ** -100)
    (True, True)
    """
    R, m = ah.shape
    t, e = two_prod(ah, bh)
    w = ah * bl
    w += al * bh
    w += e
    sh, sl, sb = dd_rowsum(t, w)
    abs_t = np.abs(t).sum(axis=1) / (1 - gamma(max(m, 1)))   # ≥ Σ|t|
    bmax = np.maximum(bh.max(axis=1, initial=0.0), -bh.min(axis=1, initial=0.0)) if m else np.zeros(R)
    err = sb + SAFETY * (8 * U * U * (1 + 5 * U) / (1 - U) * abs_t + m * 2.0 ** -1070 * (1 + bmax)) + FLOOR
    return sh, sl, np.where(np.isfinite(err), err, np.inf), abs_t * (1 + gamma(3))


def dd_product(ah: np.ndarray, al: np.ndarray, bh: np.ndarray, bl: np.ndarray) \
        -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a_h + a_l)(b_h + b_l) as a double-float and an absolute error bound (≤ 2⁻¹⁰⁴·|ab| + tiny)."""
    ph, pe = two_prod(ah, bh)
    cross = ah * bl + al * bh
    pl = pe + cross
    bound = 4 * U * (np.abs(cross) + np.abs(pl)) + np.abs(al * bl) * (1 + 2 * U) + FLOOR
    return ph, pl, bound


# ------------------------------------------------------------------------------------------- scores

def _scaled_exactly(q: np.ndarray, tau_h: float, tau_l: float) -> Optional[np.ndarray]:
    """τ·q when every product q_il·τ is a float64 exactly (τ = tau_h, a float scale), else None.

    TwoProd's error term is exact when no product comes near underflow (every nonzero |q·τ| at
    least 2⁻⁹⁶⁰ here), so an all-zero error term proves each product exact. float32 inputs times a
    float32 scale (24 + 24 significant bits) always pass.

    >>> q = np.array([[0.75, -3.0]], dtype=np.float32).astype(np.float64)
    >>> _scaled_exactly(q, float(np.float32(0.1)), 0.0) is not None, _scaled_exactly(q, 0.1, 2.0 ** -60)
    (True, None)
    """
    if tau_l != 0.0 or not np.isfinite(tau_h) or q.size == 0:
        return None
    p, e = two_prod(q, np.full_like(q, tau_h))
    a = np.abs(p)
    if np.all(e == 0.0) and np.all(np.isfinite(p)) and np.all((a == 0.0) == (q == 0.0)) \
            and np.all((a == 0.0) | (a >= 2.0 ** -960)):
        return p
    return None


def _split_parts(q: np.ndarray, kside) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two products of q·kᵀ's split: the exact part q_hi·k_hiᵀ, the rest, and the per-row
    bound γ_2d(‖q_hi‖‖k_lo‖ + ‖q_lo‖‖k‖) of the rest's GEMM."""
    d = q.shape[1]
    qh, ql = split_rows(q, kside.w)
    a = qh @ kside.hi                                       # exact
    rest = np.concatenate([qh, ql], axis=1) @ kside.right   # error ≤ γ_2d(‖qh‖‖k_lo‖ + ‖ql‖‖k‖)
    err_rest = gamma(2 * d) * (_norms_up(qh) * kside.lo_norm + _norms_up(ql) * kside.norm) * (1 + 4 * U)
    return a, rest, err_rest


def _split_scores(q: np.ndarray, kside) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q·kᵀ as hi + lo (the exact part q_hi·k_hiᵀ and the rest, added by TwoSum) and the per-row
    bound γ_2d(‖q_hi‖‖k_lo‖ + ‖q_lo‖‖k‖) of the rest's GEMM."""
    a, rest, err_rest = _split_parts(q, kside)
    sh, sl = two_sum(a, rest)
    return sh, sl, err_rest


def dd_scores(q: np.ndarray, kside, tau_h: float, tau_l: float, add_h: Optional[np.ndarray],
              add_l: Optional[np.ndarray], allowed: Optional[np.ndarray], ref: Optional[np.ndarray],
              parts: Optional[tuple] = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x = τ·q·kᵀ + add − ref as a double-float, masked keys −inf, with a per-row absolute error
    bound. τ = tau_h + tau_l (exactly, or within 2⁻¹⁰⁶ relative for 1/√d). Without ``ref`` the
    row maximum of the high parts is used (any reference works: it cancels in every result);
    ``dd_scores.last_ref`` holds it, and rows with no allowed key get 0. ``parts`` may hold
    :func:`score_parts` of these rows (the products, made for a larger block of rows)."""
    folded, a, rest, err_rest = score_parts(q, kside, tau_h, tau_l) if parts is None else parts
    if folded:
        # τ·q is exact, so the split product of τ·q and k is already τ·q·kᵀ: no TwoProd pass over
        # the scores; hi + lo = a + rest exactly (TwoSum), off only by the rest's γ_2d bound
        ph, pl = two_sum(a, rest)
        err = err_rest * (1 + 2.0 ** -50)
    else:
        sh, sl = two_sum(a, rest)
        ph, pe = two_prod(sh, np.full_like(sh, tau_h))
        pl = pe + (sl * tau_h + sh * tau_l)
        err = abs(tau_h) * err_rest * (1 + 2.0 ** -50) + 4 * U * np.abs(pl).max(axis=1, initial=0.0) \
            + 2.0 ** -100 * np.abs(ph).max(axis=1, initial=0.0)
    if add_h is not None:
        fin = np.isfinite(add_h)
        hh, he = two_sum(ph, np.where(fin, add_h, 0.0))
        pl = pl + he + (np.where(fin, add_l, 0.0) if add_l is not None else 0.0)
        ph = np.where(fin, hh, -np.inf)
        err = err + 4 * U * np.abs(np.where(fin, pl, 0.0)).max(axis=1, initial=0.0)
    if ref is None:
        live = np.isfinite(ph) if allowed is None else np.isfinite(ph) & allowed
        with np.errstate(invalid="ignore"):
            ref = np.where(live, ph, -np.inf).max(axis=1, initial=-np.inf)
        ref = np.where(np.isfinite(ref), ref, 0.0)
    dd_scores.last_ref = ref  # type: ignore[attr-defined]
    xh, xe = two_sum(ph, -ref[:, None])
    xl = xe + pl
    err = err + 2 * U * np.abs(np.where(np.isfinite(xl), xl, 0.0)).max(axis=1, initial=0.0)
    xh, xl = two_sum(xh, xl)
    if allowed is not None:
        xh = np.where(allowed, xh, -np.inf)
    bad = ~np.isfinite(xh)
    xh = np.where(bad, -np.inf, xh)
    xl = np.where(bad, 0.0, xl)
    return xh, xl, SAFETY * err + FLOOR


def score_parts(q: np.ndarray, kside, tau_h: float, tau_l: float) -> tuple[bool, np.ndarray, np.ndarray,
                                                                            np.ndarray]:
    """The products of :func:`dd_scores` (the BLAS part): (whether τ·q was folded in exactly, the
    exact part, the rest, the rest's per-row bound); rows of them may be passed on as ``parts``."""
    scaled = _scaled_exactly(q, tau_h, tau_l)
    return (scaled is not None,) + _split_parts(q if scaled is None else scaled, kside)


def dd_split_product(q: np.ndarray, side) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q·kᵀ as a double-float (the exact part and the rest of the split product, added without
    rounding) and a per-row absolute error bound (the rest's γ_2d bound)."""
    h, lo, err = _split_scores(q, side)
    return h, lo, err * SAFETY + FLOOR


# ------------------------------------------------------------------------------------------- the backward tier

def dd_div(ah: np.ndarray, al: np.ndarray, bh: np.ndarray, bl: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                                    np.ndarray]:
    """(a_h + a_l)/(b_h + b_l) as a double-float, and the bound of its own rounding (absolute).

    q₁ = a_h/b_h; the remainder a − q₁·b is formed exactly up to its last two float additions
    (TwoProd), q₂ = remainder/b_h: the result is within 8u·|q₂| + 2⁻¹⁰⁰·|q₁| of a/b for
    |b_l| ≤ 2⁻⁵²|b_h|.
    """
    with np.errstate(divide="ignore", invalid="ignore"):   # empty rows (b = 0) are masked by the callers
        q1 = ah / bh
        p, pe = two_prod(q1, bh)
        r = (((ah - p) - pe) + al) - q1 * bl
        q2 = r / bh
        return q1, q2, 8 * U * np.abs(q2) + 2.0 ** -100 * np.abs(q1) + FLOOR


#: inner length of the pieces :func:`dd_matmul` adds by TwoSum (see there)
DD_PIECE = 64


def dd_matmul(ah: np.ndarray, al: np.ndarray, a_err: np.ndarray, right: np.ndarray, side=None) \
        -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A)·right with A = a_h + a_l (entrywise within ``a_err``) and ``right`` exact floats, as a
    double-float with an entrywise error bound; ``side`` may hold ``make_side(right.T)``.

    The split product's rest is bounded by γ_2m(‖a_hi‖‖r_lo‖ + ‖a_lo‖‖r‖) over an inner length m,
    about 2m·u·2⁻ʷ·m·max|a|·max|r|: over a whole row of n = 4096 keys (w = 20) that is only 2⁻⁴⁸ of
    max|a|·max|r|, no better than float64 once the sum cancels. So the inner dimension is cut into
    pieces of :data:`DD_PIECE` (w = 23), each a split product, and the pieces are added by TwoSum
    (exact) with their low parts in float64 (two roundings each, bounded by u·|result| each):
    about 2⁻⁵⁷ of max|a|·max|r| at n = 4096.

    >>> a = np.full((1, 200), 0.1); r = np.full((200, 1), 3.0)
    >>> h, lo, err = dd_matmul(a, np.zeros_like(a), np.zeros_like(a), r)
    >>> bool(abs(float(h[0, 0]) + float(lo[0, 0]) - 200 * 0.1 * 3.0) < 1e-12), bool(err[0, 0] < 2.0 ** -50)
    (True, True)
    """
    n = ah.shape[1]
    if n <= DD_PIECE:
        return _dd_matmul_piece(ah, al, a_err, right,
                                side if side is not None else make_side(np.ascontiguousarray(right.T)))
    sh = sl = sb = None
    for s0 in range(0, n, DD_PIECE):
        cut = slice(s0, s0 + DD_PIECE)
        r = right[cut]
        h, lo, b = _dd_matmul_piece(ah[:, cut], al[:, cut], a_err[:, cut], r, make_side(np.ascontiguousarray(r.T)))
        if sh is None:
            sh, sl, sb = h, lo, b
            continue
        sh, e = two_sum(sh, h)       # exact
        t1 = lo + sl                 # |error| ≤ u·|t1|
        sl = e + t1                  # |error| ≤ u·|sl|
        sb = sb + b + SAFETY * 2 * U * (np.abs(t1) + np.abs(sl))
    sh, sl = two_sum(sh, sl)
    return sh, sl, sb


def _dd_matmul_piece(ah: np.ndarray, al: np.ndarray, a_err: np.ndarray, right: np.ndarray, side) \
        -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One piece of :func:`dd_matmul`. The high parts go through the split product (exact part
    and the bounded rest), the low parts through a plain product (error γ_m·|a_l||right|, far
    below), the entry errors through |a_err|·|right|."""
    n = ah.shape[1]
    h, l, err_rows = dd_split_product(ah, side)
    absr = np.abs(right)
    low = al @ right
    low_abs = np.abs(al) @ absr
    prop = a_err @ absr
    s, e = two_sum(h, l + low)
    g = gamma(n)
    bound = err_rows[:, None] + g * low_abs / (1 - g) + prop / (1 - g) + 4 * U * (np.abs(l) + np.abs(low)) \
        + 2 * U * np.abs(e)
    return s, e, SAFETY * bound + FLOOR


@dataclass
class RowStats:
    """The per-row statistics of attention's backward in double-float, for rows of one head:
    the reference ``ref`` of the exponentials, whether a row has an allowed key, the normaliser
    L = Σⱼ exp(sⱼ − ref) = lh + ll within l_err, and D = rowsum(dO ∘ O) = dh + dl within d_err.

    The dK/dV pass needs them for every row (their errors do not cancel across rows); made once
    with the row block's other work (:meth:`RowsDD.stats`), they let that pass form the
    exponentials, dP and dS only on the key columns it decides (``RowsDD(..., stats=...)``).
    """

    ref: np.ndarray
    live: np.ndarray
    lh: np.ndarray
    ll: np.ndarray
    l_err: np.ndarray
    dh: np.ndarray
    dl: np.ndarray
    d_err: np.ndarray

    def rows(self, sel: Any) -> "RowStats":
        """The statistics of rows ``sel`` (a slice or index array)."""
        return RowStats(*(getattr(self, f.name)[sel] for f in fields(self)))

    @staticmethod
    def concat(parts: Sequence["RowStats"]) -> "RowStats":
        return RowStats(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(RowStats)))


class RowsDD:
    """A block of query rows in double-float: e = exp(s − ref), L = Σe, dP = dO·Vᵀ, D = Σ_j P dP,
    each with an absolute error bound (per entry or per row).

    With ``stats`` (:class:`RowStats` of these rows, made earlier over all keys), ``kside`` and
    ``vside`` may hold only some key columns (``make_side(k[cols])``, with ``add_*`` and
    ``allowed`` cut to them): e, dP and dS are formed on those columns with the given ref, L and
    D. Every bound here is entrywise (or per row over the columns at hand), so it holds for a
    subset of columns as it does for all of them.
    """

    def __init__(self, q: np.ndarray, do: Optional[np.ndarray], kside, vside, tau_h: float, tau_l: float,
                 add_h: Optional[np.ndarray], add_l: Optional[np.ndarray], allowed: Optional[np.ndarray],
                 ref: Optional[np.ndarray], stats: Optional[RowStats] = None) -> None:
        if stats is not None:
            ref = stats.ref
        R = q.shape[0]
        m = kside.hi.shape[1]
        self.m = m
        # the products (BLAS) for the whole block; the elementwise work in pieces of rows that
        # stay in the cache (about twice as fast as whole-block temporaries here)
        sparts = score_parts(q, kside, tau_h, tau_l)
        dparts = None if do is None else _split_parts(do, vside)
        self.eh, self.el = np.empty((R, m)), np.empty((R, m))
        self.ref, self.eps = np.empty(R), np.empty(R)
        if stats is None:
            self.live = np.empty(R, dtype=bool)
            self.lh, self.ll, self.l_err = np.empty(R), np.empty(R), np.empty(R)
            if do is not None:
                self.dh, self.dl, self.d_err = np.empty(R), np.empty(R), np.empty(R)
        else:
            self.live = stats.live
            self.lh, self.ll, self.l_err = stats.lh, stats.ll, stats.l_err
            self.dh, self.dl, self.d_err = stats.dh, stats.dl, stats.d_err
        if do is not None:
            self.dph, self.dpl = np.empty((R, m)), np.empty((R, m))
            self.dperr = SAFETY * dparts[2] + FLOOR
        step = max(1, _ROW_PIECE // max(m, 1))
        cut = lambda a, c: None if a is None else a[c]  # noqa: E731
        for s0 in range(0, R, step):
            c = slice(s0, s0 + step)
            xh, xl, xerr = dd_scores(q[c], kside, tau_h, tau_l, cut(add_h, c), cut(add_l, c), cut(allowed, c),
                                     cut(ref, c), parts=(sparts[0],) + tuple(x[c] for x in sparts[1:]))
            self.ref[c] = dd_scores.last_ref  # type: ignore[attr-defined]
            eh, el = dd_exp(xh, xl)
            self.eh[c], self.el[c] = eh, el
            eps = SAFETY * (DD_EXP_RHO + xerr + xerr * xerr) * (1 + DD_EXP_RHO)
            self.eps[c] = eps
            if do is not None:
                dph, dpl = two_sum(dparts[0][c], dparts[1][c])
                self.dph[c], self.dpl[c] = dph, dpl
            if stats is not None:
                continue
            self.live[c] = np.isfinite(xh).any(axis=1)
            lh, ll, lb = dd_rowsum(eh, el)
            l_err = SAFETY * (lb + eps * (np.abs(lh) + np.abs(ll)) * (1 + 4 * U) + m * 2.0 ** -999)
            self.lh[c], self.ll[c], self.l_err[c] = lh, ll, l_err
            if do is None:
                continue
            dperr = self.dperr[c]
            sh, sl, sb, abs_edp = dd_rowdot(eh, el, dph, dpl)
            esum = (lh + np.abs(ll)) * (1 + 4 * U)
            t_err = sb + eps * abs_edp * (1 + 4 * U) \
                + (esum + m * 2.0 ** -999) * dperr + m * 2.0 ** -999 * np.abs(dph).max(axis=1, initial=0.0)
            dh, dl, dc = dd_div(sh, sl, lh, ll)
            lo = lh * (1 - 2.0 ** -50) - l_err
            with np.errstate(divide="ignore", invalid="ignore"):
                prop = (t_err + np.abs(dh) * l_err * (1 + 2.0 ** -40)) / lo
            self.dh[c], self.dl[c] = dh, dl
            self.d_err[c] = np.where(lo > 0, SAFETY * (dc + prop), np.inf)

    def stats(self) -> RowStats:
        """This block's row statistics (made with ``do``)."""
        return RowStats(self.ref, self.live, self.lh, self.ll, self.l_err, self.dh, self.dl, self.d_err)

    def e_rel(self) -> np.ndarray:
        """ρ per row with |e_h − exp(s − ref)| ≤ ρ·exp(s − ref) + 2⁻⁹⁹⁸ for the high parts e_h alone.

        |e_h − e| ≤ |e_l| + |E − e| with E = e_h + e_l, |E − e| ≤ eps·e + 2⁻¹⁰⁰⁰ (:data:`DD_EXP_RHO`
        with the score error, and entries below e⁻⁷⁰⁰ set to 0), and |e_l| ≤ u|e_h| ≤
        u(e + |e_h − e|) (the pair is normalised by Fast2Sum), so
        |e_h − e| ≤ ((u + eps)·e + 2⁻¹⁰⁰⁰)/(1 − u).
        """
        return SAFETY * (U + self.eps) / (1 - U)

    def e_err(self, cols: Optional[np.ndarray] = None) -> np.ndarray:
        """|e − e_exact| ≤ e_err entrywise, on key columns ``cols`` (all when None): formed only
        where asked (the dK/dV pass needs a few columns of an n × n block)."""
        eh = self.eh if cols is None else self.eh[:, cols]
        return self.eps[:, None] * np.abs(eh) * (1 + 4 * U) + 2.0 ** -999

    def output(self, v: np.ndarray, vt_side) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """O = (Σ_j e_j v_j)/L as a double-float with an absolute error bound (entrywise)."""
        nh, nl, nb = dd_matmul(self.eh, self.el, self.e_err(), v, vt_side)
        oh, ol, oc = dd_div(nh, nl, self.lh[:, None] + 0 * nh, self.ll[:, None] + 0 * nh)
        lo = (self.lh * (1 - 2.0 ** -50) - self.l_err)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            err = SAFETY * (oc + (nb + np.abs(oh) * self.l_err[:, None] * (1 + 2.0 ** -40)) / lo) + FLOOR
        return oh, ol, np.where(lo > 0, err, np.inf)

    def ds(self, cols: Optional[np.ndarray] = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                             np.ndarray, np.ndarray]:
        """(P_h, P_l, P_err, dS_h, dS_l, dS_err) on key columns ``cols`` (all when None)."""
        sel = slice(None) if cols is None else cols
        eh, el, ee = self.eh[:, sel], self.el[:, sel], self.e_err(cols)
        L = lambda a: a[:, None]  # noqa: E731
        ph, pl, pc = dd_div(eh, el, L(self.lh) + 0 * eh, L(self.ll) + 0 * eh)
        lo = L(self.lh * (1 - 2.0 ** -50) - self.l_err)
        with np.errstate(divide="ignore", invalid="ignore"):
            p_err = SAFETY * (pc + (ee + np.abs(ph) * L(self.l_err) * (1 + 2.0 ** -40)) / lo)
        p_err = np.where(lo > 0, p_err, np.inf)
        gh, ge = two_sum(self.dph[:, sel], -L(self.dh) + 0 * eh)
        gl = (ge + self.dpl[:, sel]) - L(self.dl)
        g_err = SAFETY * (4 * U * np.abs(gl) + L(self.dperr) + L(self.d_err)) + FLOOR
        sh, sl, sb = dd_product(ph, pl, gh, gl)
        pa = np.abs(ph) + np.abs(pl)
        ga = np.abs(gh) + np.abs(gl)
        s_err = SAFETY * (sb + pa * g_err + p_err * ga + p_err * g_err) + FLOOR
        return ph, pl, p_err, sh, sl, s_err
