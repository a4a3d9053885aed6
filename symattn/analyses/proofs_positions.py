"""Identities of positional encodings (issue 13): sinusoidal shifts, RoPE's relativity, norm and
two styles, ALiBi's shift invariance and slopes. Each check is a SymPy computation with symbolic
positions (never sampled) that could fail; some checks assert that a false variant fails.

>>> from symattn.analyses.proofs import prove
>>> prove("rope-relative").holds, prove("alibi-slopes").holds
(True, True)
"""

from __future__ import annotations

from typing import Callable

import sympy

from ..exact.zero import is_zero
from ..pipeline.notation import Chain, Continued
from ..pipeline.positions import alibi_slopes, rope_pairs
from ..pipeline.rules import times

__all__ = ["POSITION_IDENTITIES"]

_m, _n, _p, _k, _q = sympy.symbols("m n p k q", real=True)
_theta = sympy.IndexedBase(sympy.Symbol("theta"))
_omega = sympy.IndexedBase(sympy.Symbol("omega"))
_i = sympy.Symbol("i", integer=True, nonnegative=True)


def _zero_trig(e: sympy.Expr) -> bool:
    """e is identically 0 as a function of its symbols (angle sums expanded, sin² + cos² = 1)."""
    return sympy.simplify(sympy.expand(sympy.expand_trig(e))) == 0


def _rot(phi: sympy.Expr) -> sympy.Matrix:
    return sympy.Matrix([[sympy.cos(phi), -sympy.sin(phi)], [sympy.sin(phi), sympy.cos(phi)]])


def rope_matrix(pos: sympy.Expr, thetas: list, style: str) -> sympy.Matrix:
    """R_pos for one vector: pair i of ``rope_pairs`` turned through pos·θᵢ."""
    d = 2 * len(thetas)
    R = sympy.zeros(d, d)
    for t, (a, b) in enumerate(rope_pairs(d, style)):
        c, s = sympy.cos(pos * thetas[t]), sympy.sin(pos * thetas[t])
        R[a, a], R[a, b], R[b, a], R[b, b] = c, -s, s, c
    return R


def _thetas(n: int) -> list[sympy.Symbol]:
    return list(sympy.symbols(f"theta_1:{n + 1}", positive=True))


def _vec(name: str, d: int) -> sympy.Matrix:
    return sympy.Matrix(sympy.symbols(f"{name}_1:{d + 1}", real=True))


def _rope_relative() -> tuple:
    checks = []
    for style in ("interleaved", "half"):
        th = _thetas(2)
        q, k = _vec("q", 4), _vec("k", 4)
        lhs = (rope_matrix(_m, th, style) * q).dot(rope_matrix(_n, th, style) * k)
        rhs = (q.T * rope_matrix(_n - _m, th, style) * k)[0, 0]
        checks.append((f"(R_m q)ᵀ(R_n k) − qᵀ R_(n−m) k = 0 for symbolic m, n, θ₁, θ₂, q, k (d = 4, {style})",
                       _zero_trig(lhs - rhs)))
        checks.append((f"R_mᵀ R_n = R_(n−m) entry by entry ({style})",
                       all(_zero_trig(e) for e in rope_matrix(_m, th, style).T * rope_matrix(_n, th, style)
                           - rope_matrix(_n - _m, th, style))))
    th = _thetas(2)
    q, k = _vec("q", 4), _vec("k", 4)
    shifted = (rope_matrix(_m + _k, th, "interleaved") * q).dot(rope_matrix(_n + _k, th, "interleaved") * k)
    plain = (rope_matrix(_m, th, "interleaved") * q).dot(rope_matrix(_n, th, "interleaved") * k)
    checks.append(("shifting both positions by k changes nothing (symbolic k)", _zero_trig(shifted - plain)))
    checks.append(("the unrotated score qᵀk is not shift-free in that sense: R_m q · k depends on m (the check "
                   "can fail)", not _zero_trig((rope_matrix(_m, th, "interleaved") * q).dot(k) - q.dot(k))))
    R = sympy.Function("R")
    qs, ks = sympy.symbols("q k")
    return ("rope-relative", "RoPE scores depend only on the offset n − m",
                 [sympy.Eq(times(sympy.Transpose(sympy.MatrixSymbol("R_m", 2, 2) * sympy.MatrixSymbol("q", 2, 1)),
                                 sympy.MatrixSymbol("R_n", 2, 2) * sympy.MatrixSymbol("k", 2, 1)),
                           sympy.MatrixSymbol("q", 2, 1).T * sympy.MatrixSymbol("R_{n-m}", 2, 2)
                           * sympy.MatrixSymbol("k", 2, 1), evaluate=False)],
                 [(Chain(sympy.MatrixSymbol("R_m", 2, 2).T * sympy.MatrixSymbol("R_n", 2, 2),
                         sympy.MatrixSymbol("R_{-m}", 2, 2) * sympy.MatrixSymbol("R_n", 2, 2)),
                   ["a rotation's transpose turns back: ", sympy.Eq(R(-_m * _theta[_i]),
                                                                     R(_m * _theta[_i]) ** -1, evaluate=False)]),
                  (Chain(Continued(), sympy.MatrixSymbol("R_{n-m}", 2, 2)),
                   ["rotations of one plane add their angles, pair by pair (block-diagonal R)"])],
                 checks)


def _rope_norm() -> tuple:
    checks = []
    for style in ("interleaved", "half"):
        th = _thetas(2)
        x = _vec("x", 4)
        R = rope_matrix(_m, th, style)
        checks.append((f"‖R_m x‖² − ‖x‖² = 0 for symbolic m, θ, x (d = 4, {style})",
                       _zero_trig((R * x).dot(R * x) - x.dot(x))))
        checks.append((f"R_mᵀ R_m = I ({style})", all(_zero_trig(e) for e in R.T * R - sympy.eye(4))))
    return ("rope-norm", "RoPE preserves lengths: R_m is orthogonal",
                 [sympy.Eq(sympy.MatrixSymbol("R_m", 2, 2).T * sympy.MatrixSymbol("R_m", 2, 2), sympy.Identity(2),
                           evaluate=False)],
                 [([sympy.Eq(sympy.cos(_m * _theta[_i]) ** 2 + sympy.sin(_m * _theta[_i]) ** 2, 1, evaluate=False)],
                   ["each 2×2 block is a rotation"])], checks)


def _rope_styles() -> tuple:
    checks = []
    for d in (4, 6, 8):
        th = _thetas(d // 2)
        half, inter = rope_matrix(_m, th, "half"), rope_matrix(_m, th, "interleaved")
        order = [c for a, b in rope_pairs(d, "half") for c in (a, b)]  # interleaved slot t holds half coord
        P = sympy.zeros(d, d)
        for t, c in enumerate(order):
            P[t, c] = 1
        checks.append((f"R_half = Pᵀ R_interleaved P exactly, P the fixed permutation (d = {d})",
                       (P.T * inter * P - half) == sympy.zeros(d, d)))
    th = _thetas(2)
    q, k = _vec("q", 4), _vec("k", 4)
    same = (rope_matrix(_m, th, "half") * q).dot(rope_matrix(_n, th, "half") * k)
    mixed = (rope_matrix(_m, th, "half") * q).dot(rope_matrix(_n, th, "interleaved") * k)
    checks.append(("q in the half style against k in the interleaved style gives other scores (the check can fail)",
                   not _zero_trig(same - mixed)))
    return ("rope-styles", "The half (rotate_half) style is the interleaved style with coordinates permuted",
                 [sympy.Eq(sympy.MatrixSymbol("R^half_m", 2, 2),
                           sympy.MatrixSymbol("P", 2, 2).T * sympy.MatrixSymbol("R^int_m", 2, 2)
                           * sympy.MatrixSymbol("P", 2, 2), evaluate=False),
                  ", P sending coordinates (1, 1 + d/2, 2, 2 + d/2, …) to (1, 2, 3, 4, …)"],
                 [(["coordinate ", _i, " pairs with ", _i + sympy.Symbol("d") / 2, " at angle ", _theta[_i]],
                   ["rotate_half: cat(−x₂, x₁)"]),
                  (["scores agree only when q and k use the same style"], ["P is the same on both sides"])],
                 checks)


def _pe_shift() -> tuple:
    w = list(sympy.symbols("omega_1:3", positive=True))

    def pe(pos: sympy.Expr) -> sympy.Matrix:
        return sympy.Matrix([f(pos * wi) for wi in w for f in (sympy.sin, sympy.cos)])

    M = sympy.zeros(4, 4)
    for t, wi in enumerate(w):
        c, s = sympy.cos(_k * wi), sympy.sin(_k * wi)
        M[2 * t:2 * t + 2, 2 * t:2 * t + 2] = sympy.Matrix([[c, s], [-s, c]])
    checks = [("PE_(p+k) − M_k PE_p = 0 for symbolic p, k, ω₁, ω₂ (d = 4)",
               all(_zero_trig(e) for e in pe(_p + _k) - M * pe(_p))),
              ("M_k does not depend on p", _p not in M.free_symbols),
              ("M_k is a rotation: M_kᵀ M_k = I", all(_zero_trig(e) for e in M.T * M - sympy.eye(4))),
              ("PE_p · PE_q − Σᵢ cos((p − q)ωᵢ) = 0 (symbolic p, q)",
               _zero_trig(pe(_p).dot(pe(_q)) - sum(sympy.cos((_p - _q) * wi) for wi in w))),
              ("shifting p by k is not the identity (the check can fail)",
               not all(_zero_trig(e) for e in pe(_p + _k) - pe(_p)))]
    PE = sympy.IndexedBase(sympy.Symbol("PE"))
    return ("pe-shift", "Sinusoidal encodings: a shift is a fixed rotation, and dot products see only p − q",
                 [sympy.Eq(PE[_p + _k], sympy.MatrixSymbol("M_k", 2, 2) * sympy.MatrixSymbol("PE_p", 2, 1),
                           evaluate=False), " with M_k block rotations by k·ωᵢ, and ",
                  sympy.Eq(sympy.Symbol("PE_p·PE_q"), sympy.Sum(sympy.cos((_p - _q) * _omega[_i]), (_i, 0, sympy.Symbol("d/2-1"))),
                           evaluate=False)],
                 [(Chain(sympy.sin((_p + _k) * _omega[_i]),
                         sympy.sin(_p * _omega[_i]) * sympy.cos(_k * _omega[_i])
                         + sympy.cos(_p * _omega[_i]) * sympy.sin(_k * _omega[_i])), ["the angle-sum formula"]),
                  (Chain(sympy.cos((_p + _k) * _omega[_i]),
                         sympy.cos(_p * _omega[_i]) * sympy.cos(_k * _omega[_i])
                         - sympy.sin(_p * _omega[_i]) * sympy.sin(_k * _omega[_i])), ["the angle-sum formula"])],
                 checks)


def _alibi_shift() -> tuple:
    n = 4
    m = sympy.Symbol("m", positive=True)
    checks = []
    for i in range(n):
        s = list(sympy.symbols(f"s_1:{i + 2}", real=True))  # the causal support j ≤ i
        a = [sympy.exp(s[j] - m * (i - j)) for j in range(i + 1)]
        b = [sympy.exp(s[j] + m * j) for j in range(i + 1)]
        za, zb = sum(a), sum(b)
        checks.append((f"row {i + 1}: softmax(s − m|i − j|) − softmax(s + m·j) = 0 (symbolic s, m)",
                       all(is_zero(x / za - y / zb) for x, y in zip(a, b))))
    s = list(sympy.symbols("s_1:4", real=True))
    full = [sympy.exp(s[j] - m * abs(1 - j)) for j in range(3)]
    row = [sympy.exp(s[j] + m * j) for j in range(3)]
    checks.append(("without the causal mask the two forms differ (the check can fail)",
                   not all(is_zero(x / sum(full) - y / sum(row)) for x, y in zip(full, row))))
    j = sympy.Symbol("j", integer=True)
    return ("alibi-shift", "ALiBi on the causal support: the row-constant form m·j gives the same weights",
                 [sympy.Eq(sympy.Function("softmax")(sympy.Symbol("s_ij") - m * sympy.Abs(_i - j)),
                           sympy.Function("softmax")(sympy.Symbol("s_ij") + m * j), evaluate=False),
                  " for j ≤ i"],
                 [(Chain(-m * sympy.Abs(_i - j), -m * (_i - j), m * j - m * _i), ["j ≤ i on the causal support"]),
                  (["−m·i is the same for the whole row"], ["softmax is shift-invariant (symattn prove shift-invariance)"])],
                 checks)


def _alibi_slopes_proof() -> tuple:
    two = sympy.Integer(2)
    checks = [("8 heads: 1/2, 1/4, …, 1/256", alibi_slopes(8) == [two ** -k for k in range(1, 9)])]
    for n in (1, 2, 4, 16, 32):
        sl = alibi_slopes(n)
        checks.append((f"{n} heads: a geometric sequence starting at 2^(−8/{n}) with ratio 2^(−8/{n})",
                       all(sympy.simplify(sl[k] - two ** sympy.Rational(-8 * (k + 1), n)) == 0 for k in range(n))))
    ref12 = [two ** -k for k in range(1, 9)] + [two ** sympy.Rational(-1, 2) / two ** k for k in range(4)]
    checks.append(("12 heads (not a power of 2): the 8-head slopes, then every other 16-head slope "
                   "(√2/2, √2/4, √2/8, √2/16)", all(sympy.simplify(a - b) == 0
                                                  for a, b in zip(alibi_slopes(12), ref12)) and len(alibi_slopes(12)) == 12))
    checks.append(("12 heads is not simply 2^(−8k/12) (the check can fail)",
                   not all(sympy.simplify(a - two ** sympy.Rational(-8 * (k + 1), 12)) == 0
                           for k, a in enumerate(alibi_slopes(12)))))
    nn, kk = sympy.symbols("n k", positive=True, integer=True)
    return ("alibi-slopes", "ALiBi's slopes (the official get_slopes rule)",
                 [sympy.Eq(sympy.Symbol("m_k"), two ** (-8 * kk / nn), evaluate=False),
                  " for n heads, n a power of 2; otherwise the closest power of 2 below n, then every other slope "
                  "of twice as many heads"],
                 [(Chain(sympy.Symbol("start"), two ** (-two ** (-(sympy.log(nn, 2) - 3))), two ** (-8 / nn)),
                   ["the published code's start = ratio"])],
                 checks)


#: name -> the fields of a :class:`symattn.analyses.proofs.Proof` (name, title, statement, argument, checks);
#: proofs.py registers them (this module does not import it: no cycle)
POSITION_IDENTITIES: dict[str, Callable[[], tuple]] = {
    "pe-shift": _pe_shift,
    "rope-relative": _rope_relative,
    "rope-norm": _rope_norm,
    "rope-styles": _rope_styles,
    "alibi-shift": _alibi_shift,
    "alibi-slopes": _alibi_slopes_proof,
}
