"""The float64 fast path of the certified reference: attention in NumPy with proven error bounds.

Every quantity is computed in IEEE float64 (round to nearest) together with a bound on
its distance from the exact value, from the standard model |fl(a ∘ b) − a ∘ b| ≤ u|a ∘ b|,
u = 2⁻⁵³. A dot product of n terms, summed in *any* order (so also by a BLAS), is within
γₙ·Σ|aᵢbᵢ| of the exact one, γₙ = nu/(1 − nu) (Higham, *Accuracy and Stability of
Numerical Algorithms*, §3.1). Long dot products are split into chunks whose results are
added pairwise, which gives γ_{c + ⌈log₂(n/c)⌉} instead of γₙ. Nothing relies on a
library's claim about its accuracy: the exponential is this module's own (:func:`exp_nonpos`),
its error bound is computed in ball arithmetic when the module is imported, and log only
appears on n row sums, which are enclosed with python-flint ``arb``.

An entry is *decided* when both ends of its enclosure round to the same value (same bits,
so also the same sign of zero); rounding is monotone, so every point in between does too.
Entries that are not decided go to ball arithmetic (:mod:`symattn.exact.reference_exact`).

>>> x = np.array([0.0, -1.0, -745.0, -800.0])
>>> y = exp_nonpos(x)
>>> bool(y[0] == 1.0), bool(abs(y[1] - 0.36787944117144233) < 1e-16), bool(y[3] == 0.0)
(True, True, True)
>>> EXP_RHO < 2.0**-49
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np
from flint import arb

from .floats import Format, round_to, to_bits
from .reference_exact import workprec as _prec

__all__ = ["U", "gamma", "exp_nonpos", "EXP_RHO", "EXP_ABS", "tanh_bounded", "TANH_ABS", "chunked_matmul",
           "decide", "outward", "SAFETY"]

#: unit roundoff of float64
U = 2.0 ** -53
#: factor applied to every computed bound, covering the rounding of the bound's own arithmetic
#: (at most a few dozen operations on non-negative numbers, each off by at most u) and
#: products of small quantities dropped in the first-order algebra
SAFETY = 1.0 + 2.0 ** -30
#: an absolute term added to every bound (covers underflow in the bound's own arithmetic);
#: far below the smallest subnormal of float32 (2⁻¹⁴⁹), and float64 outputs never rely on it
FLOOR = 2.0 ** -1000


def gamma(n: int) -> float:
    """γₙ = nu/(1 − nu), rounded up.

    >>> gamma(1) > 2.0**-53
    True
    """
    return float(n * U / (1 - n * U)) * (1 + 4 * U)


# ------------------------------------------------------------------------------------------- the exponential

_N = 13                                    # degree of the Taylor polynomial of e^r
_LN2 = arb.const_log2
_C1 = float.fromhex("0x1.62e42fefa0000p-1")  # ln 2 to 37 bits: k·C1 is exact for |k| < 2^16
_LOG2E = 1.4426950408889634                  # fl(1/ln 2); any float near it works, the bound uses RMAX
_COEF = [1.0 / math.factorial(i) for i in range(_N + 1)]
_XMIN = -745.2                              # e^x < 2^-1075 below this: the result 0 is within 2^-1074


def _c2() -> float:
    with _prec(256):
        return float((_LN2() - arb(_C1)).mid())


_C2 = _c2()


def _exp_error_bound() -> tuple[float, float]:
    """(ρ, RMAX): |exp_nonpos(x) − eˣ| ≤ ρ·eˣ + 2⁻¹⁰⁷⁴ for float64 x in [−745.2, 0].

    Argument reduction: k = rint(x·LOG2E) (|k| ≤ 1076), t = fl(x − k·C1) with k·C1 exact
    (C1 has 37 significant bits, k at most 11), r = fl(t − fl(k·C2)). Since
    |x·LOG2E − k| ≤ ½, |x/ln2 − k| ≤ ½ + 746·|LOG2E − 1/ln2| and |r| ≤ RMAX. The computed r
    differs from the exact x − k·ln2 by at most u|t| + u|k·C2| + |k|·|ln2 − C1 − C2| + u|r|.
    Horner's rule on the float coefficients fl(1/i!) is bounded by the running-error
    recursion |eᵢ| ≤ |eᵢ₊₁|·R(1+u)² + |Tᵢ₊₁|·R(2u + u²) + |cᵢ|u (Tᵢ the exact tail), plus
    the coefficient errors and the Taylor remainder R^{N+1}/(N+1)!·e^R. Scaling by 2^k with
    ``ldexp`` is exact unless the result is subnormal, where it is off by at most 2⁻¹⁰⁷⁴.
    Every step is evaluated here in ball arithmetic and rounded up.
    """
    with _prec(256):
        u = arb(2) ** -53
        ln2 = _LN2()
        kmax = arb(1076)
        dev = abs(arb(_LOG2E) - 1 / ln2) * 746
        R = ln2 * (arb(1) / 2 + dev) + arb(2) ** -40
        t_max = R + kmax * abs(arb(_C2)) + arb(2) ** -40
        xi = u * t_max + u * kmax * abs(arb(_C2)) * (1 + u) + kmax * abs(ln2 - arb(_C1) - arb(_C2)) + u * R
        # Horner running error
        tails = [arb(0)] * (_N + 2)
        for i in range(_N, -1, -1):
            tails[i] = abs(arb(_COEF[i])) + R * tails[i + 1]
        e = arb(0)
        for i in range(_N - 1, -1, -1):
            e = e * R * (1 + u) ** 2 + tails[i + 1] * R * (2 * u + u * u) + abs(arb(_COEF[i])) * u
        coef_err = sum((abs(arb(_COEF[i]) - 1 / arb.fac_ui(i)) * R ** i for i in range(_N + 1)), arb(0))
        trunc = R ** (_N + 1) / arb.fac_ui(_N + 1) * R.exp()
        emin = (-R).exp()
        eta1 = (e + coef_err + trunc) / emin
        rho = (1 + eta1) * xi.exp() - 1
        up = rho.mid() + rho.rad()
        return float(up) * (1 + 2.0 ** -20), float((R.mid() + R.rad()))


EXP_RHO, _RMAX = _exp_error_bound()
#: absolute part of the exponential's error bound (subnormal results)
EXP_ABS = 2.0 ** -1074


def exp_nonpos(x: np.ndarray) -> np.ndarray:
    """eˣ for float64 x ≤ 0 (−inf gives 0), with |result − eˣ| ≤ EXP_RHO·eˣ + 2⁻¹⁰⁷⁴.

    exp(0) is exactly 1. Large arrays are worked in pieces that stay in the CPU cache.
    """
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    flat_in = x.reshape(-1)
    flat_out = out.reshape(-1)
    for s in range(0, flat_in.size, _PIECE):
        flat_out[s:s + _PIECE] = _exp_piece(flat_in[s:s + _PIECE].copy())
    return out


_PIECE = 16384


def _exp_piece(x: np.ndarray) -> np.ndarray:
    small = x < _XMIN
    np.maximum(x, _XMIN, out=x)
    k = np.rint(x * _LOG2E)
    t = k * _C1
    np.subtract(x, t, out=t)
    r = np.multiply(k, _C2)
    np.subtract(t, r, out=r)
    p = np.full_like(r, _COEF[_N])
    for c in reversed(_COEF[:_N]):
        np.multiply(p, r, out=p)
        np.add(p, c, out=p)
    out = np.ldexp(p, k.astype(np.int32))
    out[small] = 0.0
    return out


#: |tanh_bounded(z) − tanh(z)| ≤ TANH_ABS (absolute)
TANH_ABS = (2 * EXP_RHO + 2 * EXP_ABS + 3.01 * U) * (1 + 2.0 ** -20)


def tanh_bounded(z: np.ndarray) -> np.ndarray:
    """tanh(z) = sign(z)·(1 − e^{−2|z|})/(1 + e^{−2|z|}) with |error| ≤ TANH_ABS.

    The map E ↦ (1 − E)/(1 + E) has slope at most 2 on [0, 1], so an exponential within
    ρE + 2⁻¹⁰⁷⁴ moves it by at most 2ρ + 2⁻¹⁰⁷³; the subtraction, addition and division
    add at most 3.01u relative to a result of size ≤ 1.

    >>> float(abs(tanh_bounded(np.array([0.5]))[0] - math.tanh(0.5))) <= TANH_ABS
    True
    """
    z = np.asarray(z, dtype=np.float64)
    e = exp_nonpos(-2.0 * np.abs(z))
    return np.copysign((1.0 - e) / (1.0 + e), z)


# ------------------------------------------------------------------------------------------- products

def chunked_matmul(a: np.ndarray, b: np.ndarray, chunk: int) -> tuple[np.ndarray, int]:
    """``a @ b`` with the inner dimension split into chunks summed pairwise, and the index k of
    its bound: |result − ab| ≤ γ_k·|a||b| entrywise.

    >>> a = np.ones((2, 100)); b = np.ones((100, 3))
    >>> c, k = chunked_matmul(a, b, 16)
    >>> float(c[0, 0]), k
    (100.0, 19)
    """
    n = a.shape[1]
    if n <= chunk:
        return a @ b, max(n, 1)
    parts = [a[:, s:s + chunk] @ b[s:s + chunk] for s in range(0, n, chunk)]
    depth = 0
    while len(parts) > 1:
        nxt = []
        for i in range(0, len(parts) - 1, 2):
            np.add(parts[i], parts[i + 1], out=parts[i])
            nxt.append(parts[i])
        if len(parts) % 2:
            nxt.append(parts[-1])
        parts = nxt
        depth += 1
    return parts[0], chunk + depth


# ------------------------------------------------------------------------------------------- decisions

def outward(value: np.ndarray, bound: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[value − bound, value + bound] with both ends moved one float outward (a sure enclosure)."""
    with np.errstate(over="ignore", invalid="ignore"):
        lo = np.nextafter(value - bound, -np.inf)
        hi = np.nextafter(value + bound, np.inf)
    return lo, hi


def decide(value: np.ndarray, bound: np.ndarray, fmt: Format, zero_sign: bool = True) \
        -> tuple[np.ndarray, np.ndarray]:
    """(rounded values, decided mask): an entry is decided when both ends of its enclosure
    round to the same ``fmt`` value, bit for bit.

    >>> from symattn.exact.floats import FORMATS
    >>> v, ok = decide(np.array([1.0 + 2**-10, 1.0 + 2**-24]), np.array([1e-12, 1e-12]), FORMATS["float32"])
    >>> ok.tolist()
    [True, False]
    """
    lo, hi = outward(value, bound)
    rlo = round_to(lo, fmt)
    rhi = round_to(hi, fmt)
    same = to_bits(rlo, fmt) == to_bits(rhi, fmt)
    if not zero_sign:  # an enclosure that rounds to ±0 at both ends is decided as +0
        zero = (rlo == 0) & (rhi == 0)
        same |= zero
        rlo = np.where(zero, 0.0, rlo)
    ok = np.isfinite(value) & np.isfinite(bound) & same
    return rlo, ok


@dataclass
class Enclosure:
    """Float64 values with entrywise error bounds (|exact − value| ≤ bound)."""

    value: np.ndarray
    bound: np.ndarray
    scale: Optional[np.ndarray] = None


# ------------------------------------------------------------------------------------------- attention

#: chunk of the head dimension for score products, and of the key dimension for P·V
D_CHUNK = 16
K_CHUNK = 64


def _norms_up(a: np.ndarray) -> np.ndarray:
    """Upper bounds on the Euclidean norms of the rows of ``a``."""
    n = a.shape[1]
    sq = np.einsum("ij,ij->i", a, a)
    return np.sqrt(sq) * (1 + (n + 8) * 2 * U)


@dataclass
class Forward:
    """The fast path's forward pass for a block of query rows, with proven bounds."""

    o: np.ndarray          # (R, Dv) outputs
    o_bound: np.ndarray    # |o_exact − o| ≤ o_bound
    scale: np.ndarray      # Σ_j p_ij |v_jl| (approximately): the condition-aware scale of o
    e: np.ndarray          # (R, Sk) ê = exp(ŝ − m̂), 0 where masked
    ref: np.ndarray        # (R,) m̂, the row maximum of the computed scores (reference of the exp)
    l_hat: np.ndarray      # (R,) computed Σ ê
    l_lo: np.ndarray       # (R,) L = Σ_j exp(s_j − m̂) lies in [l_lo, l_hi]
    l_hi: np.ndarray
    eps: np.ndarray        # (R,) relative bound of ê against exp(s − m̂)
    masked: np.ndarray     # (R,) rows with no key allowed
    smax_abs: np.ndarray   # (R,) max |ŝ| over allowed keys (|ref| from :func:`forward_from`)
    e_abs: float = 2.0 ** -1000   # absolute part of ê's bound, per entry


def forward(q: np.ndarray, kside: "Side", v: np.ndarray, tau: float, tau_rel: float,
            add: Optional[np.ndarray], add_exact: bool, allowed: Optional[np.ndarray],
            softcap: Optional[float]) -> Forward:
    """Attention rows with bounds: s = τ·q·kᵀ [→ c·tanh(s/c)] + add, masked where not allowed.

    ``kside`` is K prepared by :func:`make_side`; ``tau_rel`` bounds |τ_float − τ|/τ (0 for a
    float scale); ``add_exact`` says whether ``add`` holds the exact additive terms (one
    bias, or ALiBi with exact products) or was rounded once when two were summed.
    """
    R, D = q.shape
    Sk = v.shape[0]
    s, delta = side_product(q, kside)
    tau_pow2 = tau_rel == 0 and math.frexp(tau)[0] == 0.5
    s *= tau
    a = np.abs(s).max(axis=1, initial=0.0) if Sk else np.zeros(R)
    delta = tau * (1 + tau_rel) * (1 + U) * delta + (0 if tau_pow2 else (1 + 2 * U) * U) * a \
        + tau_rel * (1 + 2 * U) * a + FLOOR
    if softcap is not None:
        c = softcap
        z = s / c
        s = c * tanh_bounded(z)
        delta = delta + (1 + 2 * U) * U * a + c * (TANH_ABS + U) * (1 + 2 * U) + FLOOR
    if add is not None:
        amax = np.where(np.isfinite(add), np.abs(add), 0.0).max(axis=1, initial=0.0)
        s = s + add
        sabs = np.where(np.isfinite(s), np.abs(s), 0.0).max(axis=1, initial=0.0)
        delta = delta + U * sabs * (1 + 2 * U) + (0.0 if add_exact else U * (1 + 2 * U)) * amax
    if allowed is not None:
        s[~allowed] = -np.inf
    masked = ~np.isfinite(s.max(axis=1, initial=-np.inf)) if Sk else np.ones(R, dtype=bool)
    with np.errstate(invalid="ignore"):
        ref = np.where(masked, 0.0, s.max(axis=1, initial=-np.inf))
    fin = np.isfinite(s)
    smax_abs = np.where(fin, np.abs(s), 0.0).max(axis=1, initial=0.0)
    x = s - ref[:, None]
    Delta = SAFETY * (delta + 2 * U * smax_abs * (1 + 2 * U))
    with np.errstate(invalid="ignore"):
        e = exp_nonpos(np.where(np.isnan(x), -np.inf, x))
    e[masked] = 0.0
    # relative bound of ê: (1 + ρ)·e^Δ − 1 ≤ ρ + Δ + Δ² + ρ(Δ + Δ²) for Δ ≤ 1/2
    dd = Delta + Delta * Delta
    eps = np.where(Delta <= 0.5, SAFETY * (EXP_RHO + dd + EXP_RHO * dd) / (1 - EXP_RHO), np.inf)
    eps = np.where(np.isfinite(delta), eps, np.inf)
    return _forward_tail(e, eps, 2.0 ** -1000, ref, masked, smax_abs, v)


def extend_v(v: np.ndarray) -> np.ndarray:
    """[V | |V| | 1]: one product with it gives O's numerator, its scale and the row sum."""
    return np.concatenate([v, np.abs(v), np.ones((v.shape[0], 1))], axis=1)


def _forward_tail(e: np.ndarray, eps: np.ndarray, e_abs: float, ref: np.ndarray, masked: np.ndarray,
                  smax_abs: np.ndarray, v: np.ndarray, vext: Optional[np.ndarray] = None,
                  vmax: Optional[np.ndarray] = None) -> Forward:
    """O and L from ê with |ê − exp(s − ref)| ≤ eps·exp(s − ref) + e_abs entrywise; ``vext`` and
    ``vmax`` may hold :func:`extend_v` of v and max_j |v_j|, made once for many row blocks."""
    R, Sk = e.shape
    dv = v.shape[1]
    if vext is None:
        vext = extend_v(v)
    absv = vext[:, dv:2 * dv]
    y, kk = chunked_matmul(e, vext, K_CHUNK)
    g = gamma(kk)
    n_hat, a_hat, l_hat = y[:, :dv], y[:, dv:2 * dv], y[:, 2 * dv]
    vmax = absv.max(axis=0, initial=0.0) if vmax is None else vmax
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a_up = a_hat / (1 - g)
        le_up = l_hat / (1 - g)
        le_lo = l_hat / (1 + g)
        abs_n = (Sk * vmax)[None, :] * e_abs + FLOOR
        abs_l = Sk * e_abs + FLOOR
        ge = (g + eps)[:, None]
        d_n = ge * a_up + abs_n
        d_l = (g + eps) * le_up + abs_l
        l_lo = (le_lo * (1 - eps) - abs_l) * (1 - 8 * U)   # 8u covers the rounding of these few operations
        l_hi = (le_up * (1 + eps) + abs_l) * (1 + 8 * U)
        c_up = ((1 + eps)[:, None] * a_up + abs_n) / l_lo[:, None]
        o = n_hat / l_hat[:, None]
        bound = SAFETY * (U * np.abs(o) * (1 + 2 * U) + (d_n + c_up * d_l[:, None]) / l_hat[:, None]) + FLOOR
        scale = a_hat / l_hat[:, None]
    bad = ~(l_lo > 0)
    bound[bad] = np.inf
    o[masked] = 0.0
    bound[masked] = 0.0
    scale[masked] = 0.0
    return Forward(o, bound, scale, e, ref, l_hat, l_lo, l_hi, eps, masked, smax_abs, e_abs)


def forward_from(e: np.ndarray, e_rel: np.ndarray, e_abs: float, ref: np.ndarray, live: np.ndarray,
                 v: np.ndarray, l_dd: tuple[np.ndarray, np.ndarray, np.ndarray],
                 vext: Optional[np.ndarray] = None, vmax: Optional[np.ndarray] = None) -> Forward:
    """The fast path's forward pass from exponentials made elsewhere (the double-float tier's
    :class:`~symattn.exact.reference_dd.RowsDD`, when it runs over every row anyway).

    ``e`` is the high part of a double-float exponential: |e − exp(s − ref)| ≤
    e_rel·exp(s − ref) + e_abs entrywise (exact scores s). ``l_dd`` = (L_h, L_l, L_err) encloses
    L = Σⱼ exp(sⱼ − ref) to about 2⁻⁶⁰: the returned enclosure [l_lo, l_hi] of L is that one
    (rounded outward, widened to hold l_hat = fl(L_h + L_l)), so the backward pass's
    P = e/l_hat is off by about 2u relative instead of the float64 sum's γ bound. O itself is
    formed as in :func:`forward` (numerator and row sum from one chunked product).
    """
    masked = ~live
    f = _forward_tail(e, e_rel, e_abs, ref, masked, np.abs(ref), v, vext, vmax)
    lh, ll, lerr = l_dd
    with np.errstate(invalid="ignore", over="ignore"):
        l_hat = lh + ll
        lo = np.nextafter((l_hat - lerr - U * np.abs(l_hat)) * (1 - 4 * U), -np.inf)
        hi = np.nextafter((l_hat + lerr + U * np.abs(l_hat)) * (1 + 4 * U), np.inf)
    ok = live & np.isfinite(lo) & np.isfinite(hi) & (lo > 0)
    f.l_hat = np.where(ok, l_hat, f.l_hat)
    f.l_lo = np.where(ok, np.minimum(lo, f.l_hat), f.l_lo)
    f.l_hi = np.where(ok, np.maximum(hi, f.l_hat), f.l_hi)
    return f


@dataclass
class Backward:
    """The fast path's backward pass for a block of rows: dQ with bounds, and this block's
    contributions to dK and dV (Σ over its rows) with what their bounds are made of (summed over
    blocks by :class:`KVSum`)."""

    dq: np.ndarray
    dq_bound: np.ndarray
    dq_scale: np.ndarray
    dk: np.ndarray          # partial Σ_i dS_ij q_i (unscaled by τ)
    dk_scale: np.ndarray    # Σ_i |dS_ij| |q_i| as computed (condition scale, unscaled)
    tk: np.ndarray          # Σ_i r2_i P̂_ij |q_i| as computed
    w1: float               # |dk − exact| ≤ (w1·dk_scale + tk)/g + k_extra
    dv: np.ndarray
    dv_scale: np.ndarray    # Σ_i P̂_ij |dO_i| as computed
    wv: float               # |dv − exact| ≤ wv·dv_scale/g + v_extra
    g: float                # 1 − γ of the products' inner length (their computed values ≥ g·exact)
    k_extra: np.ndarray     # (D,) absolute terms
    v_extra: np.ndarray     # (Dv,)


class KVSum:
    """Running sums of row blocks' dK and dV partials and of what their bounds are made of.

    Per block only sums are formed (no bound arrays): Σ_b w1_b·dk_scale_b ≤ max_b w1_b·Σ_b dk_scale_b
    (nonnegative terms), likewise for dV, and the products' 1/(1 − γ) is applied once with the
    smallest g. The sums are themselves rounded (each at most u low per addition, nonnegative
    terms): :meth:`partial` divides them by 1 − γ_blocks.
    """

    def __init__(self) -> None:
        self.blocks = 0

    def add(self, bw: Backward) -> None:
        if self.blocks == 0:
            self.dk, self.dk_sc, self.tk = bw.dk.copy(), bw.dk_scale.copy(), bw.tk.copy()
            self.dv, self.dv_sc = bw.dv.copy(), np.array(bw.dv_scale)
            self.dk_abs, self.dv_abs = np.abs(bw.dk), np.abs(bw.dv)
            self.w1, self.wv, self.g = bw.w1, bw.wv, bw.g
            self.k_extra, self.v_extra = bw.k_extra.copy(), bw.v_extra.copy()
        else:
            self.dk += bw.dk
            self.dk_sc += bw.dk_scale
            self.tk += bw.tk
            self.dv += bw.dv
            self.dv_sc += bw.dv_scale
            np.abs(bw.dk, out=bw.dk)
            self.dk_abs += bw.dk
            np.abs(bw.dv, out=bw.dv)
            self.dv_abs += bw.dv
            self.w1, self.wv, self.g = max(self.w1, bw.w1), max(self.wv, bw.wv), min(self.g, bw.g)
            self.k_extra += bw.k_extra
            self.v_extra += bw.v_extra
        self.blocks += 1

    def partial(self, gp: float) -> list[np.ndarray]:
        """[Σ dk, bound, Σ dk scale (float32), Σ dv, bound, Σ dv scale (float32)] of the blocks
        added; the bounds include gp·Σ|partial| for the later summation of all partials (γ of
        their number)."""
        up = 1 / (1 - gamma(self.blocks + 1))
        kb = (self.w1 * self.dk_sc + self.tk) * (up / self.g)
        kb += (self.k_extra * up + FLOOR * self.blocks)[None, :]
        kb += gp * up * self.dk_abs
        vb = self.dv_sc * (self.wv * up / self.g)
        vb += (self.v_extra * up + FLOOR * self.blocks)[None, :]
        vb += gp * up * self.dv_abs
        return [self.dk, kb, self.dk_sc.astype(np.float32), self.dv, vb, self.dv_sc.astype(np.float32)]


def backward(f: Forward, q: np.ndarray, k: np.ndarray, vside: "Side", v: np.ndarray, do: np.ndarray,
             tau: float, tau_rel: float, stats: Optional[tuple] = None,
             absk: Optional[np.ndarray] = None) -> Backward:
    """dQ, and this block's parts of dK and dV, for upstream gradient ``do``, with bounds.

    dP = dO·Vᵀ, D = rowsum(dO ∘ O), dS = P ∘ (dP − D), dQ = τ·dS·K, dK = τ·dSᵀ·Q, dV = Pᵀ·dO.
    ``stats`` = (dP_h, dP_err, D_h, D_l, D_err) from the double-float tier, when it ran over
    these rows (:func:`forward_from`): dP_h is dP rounded once (|dP_h − dP| ≤ u|dP_h| + dP_err
    per row) and D = D_h + D_l within D_err, so dP and D are not formed again here. ``absk``
    may hold |k|, made once for many row blocks.
    """
    R, D = q.shape
    Sk = k.shape[0]
    live = ~f.masked
    with np.errstate(divide="ignore", invalid="ignore"):
        p = f.e / np.where(live, f.l_hat, 1.0)[:, None]
        lam = np.where(live, (f.l_hi - f.l_lo) / f.l_lo, 0.0)
        # absolute error of p from ê's absolute part (L ≥ l_lo)
        p_abs = np.where(live, f.e_abs / f.l_lo, 0.0)
    lam = np.where(np.isfinite(lam), lam, np.inf)
    p_abs = np.where(np.isfinite(p_abs), p_abs, np.inf) * (1 + 4 * U)
    pi = SAFETY * (f.eps + lam + U) * (1 + 2 * (f.eps + lam + U))
    pi = np.where(live, pi, 0.0)
    if stats is None:
        dp, eta = side_product(do, vside)
        # D = rowsum(dO ∘ O) = Σ_j P_ij dP_ij, summed from P and dP (tighter than from O's enclosure):
        # |D_computed − D| ≤ (γ + π)·Σ_j P̂|dP̂| + (1 + π)·η + tiny (Σ_j P = 1)
        pdp = p * dp
        both, kd = chunked_matmul(np.concatenate([pdp, np.abs(pdp)], axis=0), np.ones((Sk, 1)), K_CHUNK)
        dsum, pabs = both[:R, 0], both[R:, 0]
        derr = SAFETY * ((gamma(kd + 1) + pi) * pabs / (1 - gamma(kd)) + (1 + pi) * eta) + FLOOR
    else:
        dp, dp_err, d_h, d_l, d_err = stats
        eta = SAFETY * (U * np.abs(dp).max(axis=1, initial=0.0) * (1 + 2 * U) + dp_err) + FLOOR
        with np.errstate(invalid="ignore"):
            dsum = np.where(live, d_h + d_l, 0.0)       # one rounding: u·|dsum|
            derr = np.where(live, SAFETY * (d_err + U * np.abs(dsum) * (1 + 2 * U)) + FLOOR, 0.0)
        derr = np.where(np.isnan(derr), np.inf, derr)
    gmat = dp - dsum[:, None]
    gmax = np.abs(gmat).max(axis=1, initial=0.0)
    gerr = SAFETY * (eta + derr + U * gmax * (1 + 2 * U)) + FLOOR
    ds = p * gmat
    ds[~live] = 0.0
    absds = np.abs(ds)
    # |dS_computed − dS| ≤ r1_i·|dS_computed| + r2_i·P̂ + tiny_i, r1 = (u + π)(1 + 4u), r2 = (1 + π)·g.
    # The bounds of the three products below are Σ(γ + r1)|dS̃||x| + Σ r2·P̂|x| (x = k, q; and
    # Σ(γ + π)P̂|dO| for dV). r1 and r2 are per query row, so these are the condition scales
    # Σ|dS̃||x| and Σ P̂|x| weighted by row: exactly per row for dQ (a row of the result), and for
    # dK, dV (a sum over rows) r1 by its largest value in the block, which hardly varies across
    # rows (π is about 2u once the row statistics are double-float), r2 exactly (a product with
    # r2·|q|). Every product here has nonnegative terms, so its computed value is at least
    # (1 − γ_m) times the exact one (m its inner length): dividing by 1 − γ_m makes it an upper bound.
    r1 = np.where(live, (U + pi) * (1 + 4 * U), 0.0)
    r2 = np.where(live, (1 + pi) * gerr, 0.0)
    tiny = p_abs * (1 + gmax + gerr)
    # dQ
    y, k1 = chunked_matmul(ds, k, K_CHUNK)
    g1 = gamma(k1)
    absk = np.abs(k) if absk is None else absk
    absq = np.abs(q)
    absdo = np.abs(do)
    Dv = do.shape[1]
    rhs = np.concatenate([absdo, r2[:, None] * absq], axis=1)
    # the bound and scale products (nonnegative terms): in float32 with their rounding bounded
    # (:func:`upper_from32`, about 2.5× faster) where that is safe, else in float64
    mx = [float(a.max(initial=0.0)) for a in (absds, p, absk, absq, rhs)]
    if use_float32(max(Sk, R), *mx):
        ds32, p32, k32 = absds.astype(np.float32), p.astype(np.float32), absk.astype(np.float32)
        sq = upper_from32(ds32 @ k32, Sk, mx[0], mx[2])      # ≥ Σ_j |dS̃_ij||k_j|
        tq = upper_from32(p32 @ k32, Sk, mx[1], mx[2])       # ≥ Σ_j P̂_ij |k_j|
        dk_scale = upper_from32(ds32.T @ absq.astype(np.float32), R, mx[0], mx[3])
        pt = upper_from32(p32.T @ rhs.astype(np.float32), R, mx[1], mx[4])
        g_k = g_r = 1.0
    else:
        sq = absds @ absk
        tq = p @ absk
        dk_scale = absds.T @ absq
        pt = p.T @ rhs
        g_k, g_r = 1 - gamma(Sk), 1 - gamma(max(R, 1))   # computed ≥ (1 − γ_m)·exact
    bq = ((g1 + r1)[:, None] * sq + r2[:, None] * tq) / g_k
    kabs_col = absk.max(axis=0, initial=0.0)
    dq = tau * y
    dq_bound = SAFETY * (tau * (1 + tau_rel) * (1 + U) * (bq + (tiny * Sk)[:, None] * kabs_col[None, :])
                         + (2 * U + tau_rel * (1 + 2 * U)) * np.abs(dq)) + FLOOR
    dq_scale = sq
    dq_scale *= tau
    dq[~live] = 0.0
    dq_bound[~live] = 0.0
    # dK, dV partials over this block's rows (inner dimension R)
    dk, kr = chunked_matmul(ds.T, q, K_CHUNK)
    w1 = float((gamma(kr) + r1).max(initial=0.0))
    dv_scale, tk = pt[:, :Dv], pt[:, Dv:]   # Σ_i P̂_ij|dO_i| and Σ_i r2_i P̂_ij |q_i|
    dv, kr = chunked_matmul(p.T, do, K_CHUNK)
    wv = float((gamma(kr) + pi).max(initial=0.0))
    k_extra = float(tiny.sum()) * absq.max(axis=0, initial=0.0)
    v_extra = float(p_abs.sum()) * absdo.max(axis=0, initial=0.0)
    return Backward(dq, dq_bound, dq_scale, dk, dk_scale, tk, w1, dv, dv_scale, wv, g_r, k_extra, v_extra)


#: absolute error allowed per float32 operation near underflow: covers the rounding of a subnormal
#: result (2⁻¹⁵⁰) and flush-to-zero or denormals-are-zero modes (2⁻¹²⁶)
ETA32 = 2.0 ** -125


def use_float32(m: int, *maxima: float) -> bool:
    """Whether :func:`upper_from32` may bound products of inner length m of nonnegative matrices
    whose largest entries are ``maxima`` (pairs multiplied): finite, and far from float32's overflow."""
    if m >= 1 << 20 or not all(math.isfinite(x) and x < 2.0 ** 40 for x in maxima):
        return False
    return max(maxima, default=0.0) ** 2 * m < 2.0 ** 100


def upper_from32(g: np.ndarray, m: int, amax: float, bmax: float) -> np.ndarray:
    """An upper bound of a·b (a, b ≥ 0 float64, entries at most amax and bmax) from the float32
    product g = fl32(a)·fl32(b) of inner length m (:func:`use_float32` must hold).

    Rounding x ≥ 0 to float32 gives x ≤ fl32(x)(1 + 2⁻²³) + η (η = :data:`ETA32`: relative 2⁻²⁴ in
    the normal range, absolute otherwise, also under flush-to-zero). The float32 product of
    nonnegative a′, b′ in any order of summation is within γ′_m·Σa′b′ + 4mη of Σa′b′
    (γ′_m = m2⁻²⁴/(1 − m2⁻²⁴); each product and addition adds at most η near underflow), so
    Σa′b′ ≤ (g + 4mη)/(1 − γ′_m), and Σab ≤ (1 + δ)²Σa′b′ + mη(1 + δ)(a′max + b′max) + mη² with
    δ = 2⁻²³, a′max ≤ amax(1 + δ) + η. No overflow: the maxima are below 2⁴⁰ and m·max² < 2¹⁰⁰.

    >>> a = np.full((1, 3), 0.1); b = np.full((3, 1), 0.3)
    >>> up = upper_from32(a.astype(np.float32) @ b.astype(np.float32), 3, 0.1, 0.3)
    >>> bool(0.09 <= float(up[0, 0]) < 0.09 * (1 + 2.0 ** -20))
    True
    """
    d = 2.0 ** -23
    u32 = m * 2.0 ** -24
    g32 = u32 / (1 - u32)
    eta = ETA32
    extra = m * eta * (1 + d) ** 2 * (amax + bmax + 2 * eta) + m * eta * eta
    out = g.astype(np.float64)
    out += 4 * m * eta
    out *= (1 + d) ** 2 / (1 - g32) * (1 + 2.0 ** -40)
    out += extra
    return out


def finish_sum(total: np.ndarray, bound_sum: np.ndarray, abs_sum: np.ndarray, parts: int, factor: float,
               factor_rel: float) -> tuple[np.ndarray, np.ndarray]:
    """The value and bound of ``factor · Σ partials`` from the summed partials, the summed
    bounds and Σ|partials| (any order of summation: γ_parts·Σ|partials|)."""
    gp = gamma(max(parts, 1))
    value = factor * total
    bound = SAFETY * (factor * (1 + factor_rel) * (1 + U) * (bound_sum + gp * abs_sum) * (1 + gp)
                      + ((0 if factor == 1.0 else 2 * U) + factor_rel * (1 + 2 * U)) * np.abs(value)) + FLOOR
    return value, bound


# ------------------------------------------------------------------------------------------- split products

def slice_width(d: int) -> int:
    """The widest w such that d products of two integers below 2^w sum exactly in float64.

    >>> slice_width(128), slice_width(64), slice_width(256)
    (23, 23, 22)
    """
    w = 26
    while d * (2 ** w - 1) ** 2 >= 2 ** 53:
        w -= 1
    return w


def split_rows(a: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """(hi, lo) with a = hi + lo exactly: hi keeps each row's top w bits (entries are integers
    times 2^{top_i − w}), lo is the exact remainder (|lo_il| < 2^{top_i − w})."""
    _, e = np.frexp(a)
    top = np.where(a != 0, e.astype(np.int64), -2000).max(axis=1, initial=-2000)
    exp = np.where(top == -2000, 0, top - w)
    hi = np.ldexp(np.trunc(np.ldexp(a, -exp[:, None])), exp[:, None])
    return hi, a - hi


@dataclass
class Side:
    """The right-hand side of split products q·kᵀ (K for scores, V for dO·Vᵀ), prepared once."""

    hi: np.ndarray          # (Sk, d)
    right: np.ndarray       # [lo | k]ᵀ, (2d, Sk)
    hi_norm: float          # max_j ‖hi_j‖ (upper bound)
    lo_norm: float          # max_j ‖lo_j‖
    norm: float             # max_j ‖k_j‖
    w: int


def make_side(k: np.ndarray) -> Side:
    """Split the rows of ``k`` for :func:`side_product`."""
    d = k.shape[1]
    w = slice_width(d)
    hi, lo = split_rows(k, w)
    right = np.ascontiguousarray(np.concatenate([lo, k], axis=1).T)
    n = lambda a: float(_norms_up(a).max(initial=0.0)) if a.size else 0.0  # noqa: E731
    return Side(np.ascontiguousarray(hi.T), right, n(hi), n(lo), n(k), w)


def side_product(q: np.ndarray, side: Side) -> tuple[np.ndarray, np.ndarray]:
    """q·kᵀ and a per-row bound on its error (absolute), from split rows.

    q = q_hi + q_lo and k = k_hi + k_lo, where the hi parts keep each row's top w bits. All
    terms of a row of q_hi·k_hiᵀ share one exponent (2^{e_i + f_j}) and the integer sum is
    below 2^53 (:func:`slice_width`), so that product is exact in float64 (unless it
    underflows: FLOOR). The rest, [q_hi | q_lo]·[k_lo | k]ᵀ, is a GEMM of inner dimension 2d
    with error ≤ γ_{2d}(‖q_hi,i‖·‖k_lo,j‖ + ‖q_lo,i‖·‖k_j‖) (Cauchy–Schwarz), about 2^{−w}
    of a plain product's; adding the two is off by at most u·|result|.
    """
    d = q.shape[1]
    qh, ql = split_rows(q, side.w)
    s = qh @ side.hi
    rest = np.concatenate([qh, ql], axis=1) @ side.right
    s += rest
    g = gamma(2 * d)
    err = U * np.abs(s).max(axis=1, initial=0.0) * (1 + 2 * U) \
        + g * (_norms_up(qh) * side.lo_norm + _norms_up(ql) * side.norm) * (1 + 4 * U)
    return s, err + FLOOR
