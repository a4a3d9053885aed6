"""Identities of the score variants (issue 13), each with SymPy checks that can fail.

* ``general-identity-is-dot``: Luong's general score with W_a = I is the dot score, and in
  general qᵀ W_a k = (W_aᵀ q)·k.
* ``additive-tanh-gradient``: tanh x = (e^{2x} − 1)/(e^{2x} + 1), tanh′ = 1 − tanh², and
  ∂e/∂a_t = v_t (1 − tanh²(a_t + b_t)) for the energy e = v_aᵀ tanh(a + b).
* ``linear-equals-weights``: φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1) = normalize(φ(Q)φ(K)ᵀ) V (associativity).
* ``linear-recurrent-equals-masked``: causal linear attention's recurrent form equals the masked form.
* ``elu-plus-one-positive``: φ(x) = elu(x) + 1 > 0 for every real x, so every normaliser is positive.

The registry (``IDENTITIES``) maps a name to a function of the ``Proof`` class (passed in by
:mod:`symattn.analyses.proofs`, which registers them with one line; no import cycle).

>>> from symattn.analyses.proofs import prove
>>> prove("linear-recurrent-equals-masked").holds
True
"""

from __future__ import annotations

from typing import Any, Callable

import sympy

from ..exact.zero import is_zero
from ..pipeline.notation import Chain, Continued, Dot, MatrixSoftmax, matrix
from ..pipeline.rules import over, plus, times

__all__ = ["IDENTITIES"]

_i, _j, _s, _t = sympy.symbols("i j s t", integer=True, positive=True)
_n, _d = sympy.symbols("n d", integer=True, positive=True)
_x = sympy.Symbol("x", real=True)


def _vec(name: str, d: int, **kw: Any) -> sympy.Matrix:
    return sympy.Matrix([sympy.Symbol(f"{name}_{k + 1}", **kw) for k in range(d)])


def _general(Proof: Any) -> Any:
    checks = []
    for d in (1, 2, 3):
        q, k = _vec("q", d, real=True), _vec("k", d, real=True)
        W = sympy.Matrix(d, d, lambda r, c: sympy.Symbol(f"w_{r + 1}{c + 1}", real=True))
        checks.append((f"qᵀ·I·k − q·k expands to 0 for d = {d}",
                       sympy.expand((q.T * sympy.eye(d) * k)[0] - q.dot(k)) == 0))
        checks.append((f"qᵀ·W_a·k − (W_aᵀ·q)·k expands to 0 for d = {d}, symbolic W_a",
                       sympy.expand((q.T * W * k)[0] - (W.T * q).dot(k)) == 0))
    Q, K, W = matrix("Q"), matrix("K"), matrix("W_a")
    return Proof("general-identity-is-dot", "Luong's general score with W_a = I is the dot score",
                 [sympy.Eq(Q * sympy.Identity(_n) * K.T, Q * K.T, evaluate=False), "; in general ",
                  sympy.Eq(Q * W * K.T, (Q * W) * K.T, evaluate=False), " (the queries through W_a, then dot)"],
                 [(Chain(Q * sympy.Identity(_n) * K.T, Q * K.T), ["I is the identity of the matrix product"]),
                  (Chain(Q * W * K.T, matrix("Q_a") * K.T), ["associativity, with ", sympy.Eq(matrix("Q_a"), Q * W)])],
                 checks)


def _tanh(Proof: Any) -> Any:
    th = sympy.tanh(_x)
    closed = (sympy.exp(2 * _x) - 1) / (sympy.exp(2 * _x) + 1)
    checks = [("tanh x − (e^{2x} − 1)/(e^{2x} + 1) cancels to 0 (rewritten in exp)", is_zero(th.rewrite(sympy.exp)
                                                                                            - closed)),
              ("d tanh x/dx − (1 − tanh² x) simplifies to 0", sympy.simplify(sympy.diff(th, _x) - (1 - th ** 2)) == 0)]
    for d in (1, 2, 3):
        a, b, v = _vec("a", d, real=True), _vec("b", d, real=True), _vec("v", d, real=True)
        e = sum(v[t] * sympy.tanh(a[t] + b[t]) for t in range(d))
        ok = all(sympy.simplify(sympy.diff(e, a[t]) - v[t] * (1 - sympy.tanh(a[t] + b[t]) ** 2)) == 0
                 and sympy.simplify(sympy.diff(e, b[t]) - v[t] * (1 - sympy.tanh(a[t] + b[t]) ** 2)) == 0
                 and sympy.simplify(sympy.diff(e, v[t]) - sympy.tanh(a[t] + b[t])) == 0 for t in range(d))
        checks.append((f"∂e/∂a_t, ∂e/∂b_t, ∂e/∂v_t as stated, d_a = {d}, symbolic a, b, v", ok))
    vb, ab, bb = (sympy.IndexedBase(sympy.Symbol(c)) for c in ("v_a", "a", "b"))
    e = sympy.Symbol("e")
    return Proof("additive-tanh-gradient", "The additive energy through tanh: exact form and gradient",
                 [sympy.Eq(sympy.tanh(_x), closed, evaluate=False), "; ",
                  sympy.Eq(sympy.Derivative(e, ab[_t]), times(vb[_t], plus(sympy.Integer(1), times(
                      sympy.Integer(-1), sympy.Pow(sympy.tanh(plus(ab[_t], bb[_t])), 2)))), evaluate=False),
                  " for ", sympy.Eq(e, sympy.Sum(vb[_t] * sympy.tanh(ab[_t] + bb[_t]), (_t, 1, _d)), evaluate=False)],
                 [(Chain(sympy.tanh(_x), over(sympy.sinh(_x), sympy.cosh(_x)), closed),
                   ["multiply numerator and denominator by ", sympy.exp(_x)]),
                  (Chain(sympy.Derivative(sympy.tanh(_x), _x), over(1, sympy.cosh(_x) ** 2),
                         plus(sympy.Integer(1), times(sympy.Integer(-1), sympy.tanh(_x) ** 2))),
                   ["the quotient rule; cosh² − sinh² = 1"]),
                  (Chain(Continued(), sympy.Integer(0)), ["the chain rule through a_t + b_t gives the gradient"])],
                 checks)


def _linear_forms(n: int, d: int, dv: int, causal: bool) -> tuple[sympy.Matrix, sympy.Matrix]:
    """(linear or recurrent form, attention-matrix form) with symbolic features and values."""
    fq = [_vec(f"f{i + 1}", d, positive=True) for i in range(n)]  # φ(q_i): any positive features
    fk = [_vec(f"g{j + 1}", d, positive=True) for j in range(n)]  # φ(k_j)
    v = [_vec(f"v{j + 1}", dv, real=True) for j in range(n)]
    lin = []
    ref = []
    for i in range(n):
        keys = range(i + 1) if causal else range(n)
        S = sympy.zeros(d, dv)
        z = sympy.zeros(d, 1)
        for j in keys:  # the recurrent (or summed-once) state
            S += fk[j] * v[j].T
            z += fk[j]
        lin.append((fq[i].T * S) / (fq[i].T * z)[0])
        a = [fq[i].dot(fk[j]) for j in keys]
        ref.append(sum((a[m] * v[j].T for m, j in enumerate(keys)), sympy.zeros(1, dv)) / sum(a))
    return sympy.Matrix.vstack(*lin), sympy.Matrix.vstack(*ref)


def _linear_weights(Proof: Any) -> Any:
    checks = []
    for n, d in ((1, 1), (2, 2), (3, 2), (3, 3)):
        a, b = _linear_forms(n, d, 2, causal=False)
        checks.append((f"φ(Q)(φ(K)ᵀV)/φ(Q)(φ(K)ᵀ1) − normalize(φ(Q)φ(K)ᵀ)V cancels to 0, n = {n}, d = {d}",
                       all(sympy.cancel(x - y) == 0 for x, y in zip(a, b))))
    PQ, PK, V = matrix("phi_Q"), matrix("phi_K"), matrix("V")
    fq, fk, vv = (sympy.IndexedBase(sympy.Symbol(c)) for c in ("phi_q", "phi_k", "v"))
    return Proof("linear-equals-weights", "Linear attention equals its attention matrix times V",
                 [sympy.Eq(sympy.Function("rowdiv")(PQ * (PK.T * V), PQ * (PK.T * sympy.OneMatrix(_n, 1))),
                           MatrixSoftmax(PQ * PK.T, "keys", "sum") * V, evaluate=False)],
                 [(Chain(over(sympy.Sum(Dot(fq[_i], fk[_j]) * vv[_j], (_j, 1, _n)),
                              sympy.Sum(Dot(fq[_i], fk[_j]), (_j, 1, _n))),
                         over(Dot(fq[_i], sympy.Sum(fk[_j] * vv[_j], (_j, 1, _n))),
                              Dot(fq[_i], sympy.Sum(fk[_j], (_j, 1, _n))))),
                   ["the dot product is linear: φ(q_i) comes out of both sums (associativity of the product)"])],
                 checks)


def _linear_recurrent(Proof: Any) -> Any:
    checks = []
    for n, d in ((1, 1), (2, 1), (2, 2), (3, 2), (4, 2)):
        a, b = _linear_forms(n, d, 1, causal=True)
        checks.append((f"recurrent − masked cancels to 0 for every row, n = {n}, d = {d}, symbolic φ(q), φ(k), v",
                       all(sympy.cancel(x - y) == 0 for x, y in zip(a, b))))
    Sb, zb, fq, fk, vv = (sympy.IndexedBase(sympy.Symbol(c)) for c in ("S", "z", "phi_q", "phi_k", "v"))
    rec = over(Dot(fq[_t], Sb[_t]), Dot(fq[_t], zb[_t]))
    masked = over(sympy.Sum(Dot(fq[_t], fk[_j]) * vv[_j], (_j, 1, _t)), sympy.Sum(Dot(fq[_t], fk[_j]), (_j, 1, _t)))
    return Proof("linear-recurrent-equals-masked", "Causal linear attention: the recurrent form equals the masked form",
                 [sympy.Eq(rec, masked, evaluate=False), " with ",
                  sympy.Eq(Sb[_t], plus(Sb[_t - 1], times(fk[_t], vv[_t])), evaluate=False), ", ",
                  sympy.Eq(zb[_t], plus(zb[_t - 1], fk[_t]), evaluate=False), ", ", sympy.Eq(Sb[0], 0),
                  ", ", sympy.Eq(zb[0], 0)],
                 [(Chain(Sb[_t], sympy.Sum(fk[_s] * vv[_s], (_s, 1, _t))), ["unroll the recurrence from ",
                                                                           sympy.Eq(Sb[0], 0)]),
                  (Chain(rec, masked), ["φ(q_t) comes out of the sums over s ≤ t (linearity); the causal mask keeps "
                                        "exactly the keys j ≤ t"])],
                 checks)


def _elu_positive(Proof: Any) -> Any:
    xp = sympy.Symbol("x", positive=True)
    xn = sympy.Symbol("x", nonpositive=True)
    checks = [("x + 1 > 0 for x > 0 (SymPy decides)", bool((xp + 1).is_positive)),
              ("exp(x) > 0 for x ≤ 0 (SymPy decides)", bool(sympy.exp(xn).is_positive)),
              ("both branches are 1 at x = 0 (φ is continuous)", (xp + 1).subs(xp, 0) == sympy.exp(0) == 1)]
    g = [sympy.Symbol(f"g_{k}", positive=True) for k in range(1, 4)]
    f = [sympy.Symbol(f"f_{k}", positive=True) for k in range(1, 4)]
    checks.append(("a normaliser Σ_j φ(q)·φ(k_j) of positive features is positive (3×3 terms)",
                   bool(sum(a * b for a in f for b in g).is_positive)))
    return Proof("elu-plus-one-positive", "The elu + 1 feature map is positive, so every normaliser is",
                 [sympy.StrictGreaterThan(sympy.Piecewise((_x + 1, _x > 0), (sympy.exp(_x), True)), 0), " for every real ",
                  _x],
                 [(Chain(sympy.Piecewise((_x + 1, _x > 0), (sympy.exp(_x), True)), sympy.Function("phi")(_x)),
                   ["x + 1 > 1 when x > 0; exp(x) > 0 always"])],
                 checks)


#: name -> a function of the Proof class (registered in symattn.analyses.proofs)
IDENTITIES: dict[str, Callable[[Any], Any]] = {
    "general-identity-is-dot": _general,
    "additive-tanh-gradient": _tanh,
    "linear-equals-weights": _linear_weights,
    "linear-recurrent-equals-masked": _linear_recurrent,
    "elu-plus-one-positive": _elu_positive,
}
