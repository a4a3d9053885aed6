"""Identities of attention, each proved: an argument, and SymPy checks that carry it.

Every check is a computation that could fail: an expression that must cancel to 0
(exponentials as independent atoms where the identity must hold for all values),
or a property SymPy decides. ``symattn prove NAME`` prints one; ``--list`` lists them.

>>> p = prove("rows-sum-to-one")
>>> p.holds
True
>>> {"block-merge", "convex-hull", "dk-sums-to-zero", "rope-relative"} <= set(IDENTITIES)
True
"""

from __future__ import annotations

from typing import Callable

import sympy

from ..errors import SymattnError
from ..exact.zero import is_zero
from ..pipeline.notation import (TAU, Chain, Continued, Diag, Dot, Elem, Hull, MatrixSoftmax, Ones, Partial,
                                 SoftmaxEntry, SumIn, matrix)
from ..pipeline.rules import minus, over, plus, times
from ..read.numbers import did_you_mean
from . import proofs_scores
from .proof_model import Proof
from .proofs_structure import IDENTITIES as _structure_identities

__all__ = ["Proof", "prove", "IDENTITIES"]


_zero = is_zero  # the SymPy check behind every identity


def _softmax(x: list[sympy.Expr]) -> list[sympy.Expr]:
    z = sum(sympy.exp(v) for v in x)
    return [sympy.exp(v) / z for v in x]


# -- notation of the statements (generic indices i, j, k, l and size n) --------------------------

_i, _j, _k, _l = sympy.symbols("i j k l", integer=True, positive=True)
_n = sympy.Symbol("n", integer=True, positive=True)
_p, _s, _x, _r, _d, _v, _o, _q = (sympy.IndexedBase(sympy.Symbol(c)) for c in "psxrdvoq")
_kk = sympy.IndexedBase(sympy.Symbol("k"))
_P, _dP, _D, _dS, _dK, _J = (sympy.IndexedBase(sympy.Symbol(c)) for c in ("P", "dP", "D", "dS", "dK", "J"))


def _sum(f: sympy.Basic, var: sympy.Symbol, hi: sympy.Basic = _n) -> sympy.Sum:
    return sympy.Sum(f, (var, 1, hi))


def _e(*terms: sympy.Basic) -> sympy.Basic:
    """e^{a − b + …} with the exponent kept as written."""
    return sympy.exp(plus(*terms) if len(terms) > 1 else terms[0], evaluate=False)


def _neg(x: sympy.Basic) -> sympy.Basic:
    return times(sympy.Integer(-1), x)


def _softmax_def(i: sympy.Basic, j: sympy.Basic) -> sympy.Basic:
    """e^{s_ij} / Σ_l e^{s_il}."""
    return over(sympy.exp(_s[i, j]), _sum(sympy.exp(_s[i, _l]), _l))


def _rows_sum(n: int = 5) -> Proof:
    x = list(sympy.symbols(f"x_1:{n + 1}", real=True))
    p = _softmax(x)
    return Proof("rows-sum-to-one", "Each row of the weights sums to 1",
                 [sympy.Eq(_sum(_p[_i, _j], _j), 1), ", where ",
                  sympy.Eq(_p[_i, _j], _softmax_def(_i, _j), evaluate=False)],
                 [(Chain(_sum(_p[_i, _j], _j), over(_sum(sympy.exp(_s[_i, _j]), _j), _sum(sympy.exp(_s[_i, _l]), _l))),
                   ["the denominator does not depend on ", _j]),
                  (Chain(Continued(), sympy.Integer(1)), ["the numerator and the denominator are the same sum"])],
                 [(f"Σ p_j − 1 cancels to 0 for n = {m} symbolic scores", _zero(sum(_softmax(x[:m])) - 1))
                  for m in range(1, n + 1)] + [("each p_j > 0 for real scores", all(v.is_positive for v in p))])


def _shift(n: int = 4) -> Proof:
    x = list(sympy.symbols(f"x_1:{n + 1}", real=True))
    c = sympy.Symbol("c", real=True)
    a, b = _softmax(x), [sympy.powsimp(sympy.expand(v, power_exp=True)) for v in _softmax([v + c for v in x])]
    X = matrix("x")
    ea, eb = sympy.symbols("a b")
    return Proof("shift-invariance", "Adding a constant to a row of scores changes nothing",
                 [sympy.Eq(MatrixSoftmax(sympy.MatAdd(X, c * Ones(), evaluate=False)), MatrixSoftmax(X),
                           evaluate=False)],
                 [(Chain(over(_e(_x[_i], c), _sum(_e(_x[_j], c), _j)),
                         over(times(sympy.exp(c), sympy.exp(_x[_i])), times(sympy.exp(c), _sum(sympy.exp(_x[_j]), _j)))),
                   [sympy.Eq(_e(ea, eb), times(sympy.exp(ea), sympy.exp(eb)), evaluate=False)]),
                  (Chain(Continued(), over(sympy.exp(_x[_i]), _sum(sympy.exp(_x[_j]), _j))),
                   ["cancel ", sympy.StrictGreaterThan(sympy.exp(c), 0, evaluate=False)])],
                 [(f"softmax(x + c) − softmax(x) simplifies to 0 for n = {n}, symbolic c",
                   all(sympy.simplify(u - v) == 0 for u, v in zip(b, a)))])


def _jacobian(n: int = 4) -> Proof:
    x = sympy.Matrix(sympy.symbols(f"x_1:{n + 1}", real=True))
    z = sum(sympy.exp(v) for v in x)
    p = x.applyfunc(lambda v: sympy.exp(v) / z)
    J = p.jacobian(x)
    closed = sympy.diag(*p) - p * p.T
    ones = sympy.ones(n, 1)
    Jm, pm = matrix("J"), matrix("p")
    delta = sympy.KroneckerDelta
    return Proof("jacobian", "The softmax Jacobian is symmetric, its rows sum to 0, and it is singular",
                 [Chain(Jm, sympy.MatAdd(Diag(pm), -pm * pm.T, evaluate=False), Jm.T), ", ",
                  sympy.Eq(Jm * Ones(), sympy.Integer(0), evaluate=False), ", ",
                  sympy.Eq(sympy.Determinant(Jm), 0, evaluate=False)],
                 [(Chain(_J[_i, _k], Partial(_p[_i], _x[_k]), times(_p[_i], minus(delta(_i, _k), _p[_k]))),
                   ["the quotient rule"]),
                  (Chain(_J[_k, _i], times(_p[_k], minus(delta(_k, _i), _p[_i])), _J[_i, _k]),
                   [delta(_i, _k), " is symmetric, and ",
                    sympy.Eq(times(_p[_i], _p[_k]), times(_p[_k], _p[_i]), evaluate=False)]),
                  (Chain(sympy.Indexed(sympy.IndexedBase(sympy.Symbol("(J1)")), _i),
                         minus(_p[_i], times(_p[_i], _sum(_p[_k], _k))), sympy.Integer(0)), ["the weights sum to 1"]),
                  (Chain(sympy.Determinant(Jm), sympy.Integer(0)), [Jm, " has the non-zero kernel vector ", Ones()])],
                 [(f"SymPy's Jacobian equals diag(p) − ppᵀ (n = {n})",
                   all(_zero(v) for v in (J - closed))),
                  ("J − Jᵀ = 0", all(_zero(v) for v in (J - J.T))),
                  ("J·1 = 0", all(_zero(v) for v in (J * ones))),
                  ("det J = 0", _zero(closed.det(method="berkowitz")))])


def _attention_grad(nq: int = 2, nk: int = 3, d: int = 2):  # noqa: ANN202
    """A fully symbolic example through symattn's own forward and backward steps."""
    from ..pipeline.backward import grad
    from ..pipeline.forward import derive
    from ..read.spec import from_dict

    def m(prefix: str, r: int, c: int) -> list[list[str]]:
        return [[f"{prefix}_{i + 1}{j + 1}" for j in range(c)] for i in range(r)]

    spec = from_dict({"title": "symbolic", "inputs": {"Q": m("q", nq, d), "K": m("k", nk, d), "V": m("v", nk, d)}})
    fwd = derive(spec)
    up = [[f"g_{i + 1}{j + 1}" for j in range(d)] for i in range(nq)]
    return fwd, grad(fwd, loss="upstream", upstream=up)


def _ds_rows() -> Proof:
    _, g = _attention_grad()
    dS = g["dS"].exact
    P, dP, D = matrix("P"), matrix("dP"), matrix("D")
    return Proof("ds-rows-sum-to-zero", "Each row of dS sums to 0",
                 [sympy.Eq(_sum(_dS[_i, _j], _j), 0)],
                 [(Chain(_sum(_dS[_i, _j], _j), minus(_sum(times(_P[_i, _j], _dP[_i, _j]), _j),
                                                      times(_D[_i], _sum(_P[_i, _j], _j)))),
                   [sympy.Eq(matrix("dS"), sympy.HadamardProduct(P, sympy.MatAdd(dP, -D * Ones(row=True),
                                                                                   evaluate=False)), evaluate=False)]),
                  (Chain(Continued(), minus(_D[_i], _D[_i]), sympy.Integer(0)),
                   [sympy.Eq(_D[_i], _sum(times(_P[_i, _j], _dP[_i, _j]), _j), evaluate=False),
                    ", and the rows of P sum to 1"])],
                 [(f"row {i + 1} of symattn's dS (symbolic Q, K, V, dO) sums to 0",
                   _zero(sum(dS.row(i)))) for i in range(dS.rows)])


def _dk_sum() -> Proof:
    _, g = _attention_grad()
    dK = g["dK"].exact
    return Proof("dk-sums-to-zero", "The key gradients sum to 0",
                 [sympy.Eq(Ones(row=True) * matrix("dK"), sympy.Integer(0), evaluate=False)],
                 [(Chain(_sum(_dK[_j], _j), times(TAU, _sum(_sum(times(_dS[_i, _j], _q[_i]), _i), _j)),
                         times(TAU, _sum(times(_q[_i], _sum(_dS[_i, _j], _j)), _i))),
                   [sympy.Eq(matrix("dK"), TAU * matrix("dS").T * matrix("Q"), evaluate=False)]),
                  (Chain(Continued(), sympy.Integer(0)),
                   ["the rows of dS sum to 0 (the keys are invariant to a common shift)"])],
                 [(f"column {c + 1} of symattn's dK sums to 0 (symbolic Q, K, V, dO)", _zero(sum(dK.col(c))))
                  for c in range(dK.cols)])


def _hull() -> Proof:
    fwd, _ = _attention_grad()
    P = fwd["weights"].exact
    pos = all(sympy.simplify(v).is_positive for v in P)
    return Proof("convex-hull", "The output lies in the convex hull of the value rows",
                 [sympy.Eq(_o[_i], _sum(times(_p[_i, _j], _v[_j]), _j), evaluate=False), ", ",
                  sympy.StrictGreaterThan(_p[_i, _j], 0, evaluate=False), ", ",
                  sympy.Eq(_sum(_p[_i, _j], _j), 1, evaluate=False)],
                 [(Chain(_p[_i, _j], sympy.StrictGreaterThan(_softmax_def(_i, _j), 0, evaluate=False)),
                   ["exponentials are positive"]),
                  (sympy.Eq(_sum(_p[_i, _j], _j), 1, evaluate=False), ["the rows sum to 1"]),
                  (Elem(_o[_i], Hull(_v[_j])), ["a convex combination"])],
                 [("every weight of a symbolic example is positive", pos),
                  ("every row of the weights sums to 1", all(_zero(sum(P.row(i)) - 1) for i in range(P.rows)))])


def _online() -> Proof:
    n = 5
    x = list(sympy.symbols(f"x_1:{n + 1}", real=True))
    r = list(sympy.symbols(f"r_1:{n + 1}", real=True))  # any running reference values, not only the maximum
    d = sympy.exp(x[0] - r[0])
    for j in range(1, n):
        d = d * sympy.exp(r[j - 1] - r[j]) + sympy.exp(x[j] - r[j])
    target = sum(sympy.exp(v - r[-1]) for v in x)
    y = [sympy.exp(v - r[-1]) / d for v in x]
    simp = sympy.powsimp(sympy.expand(d - target, power_exp=True))
    j1 = _j - 1
    a, b = sympy.symbols("a b")
    return Proof("online-softmax", "The online-softmax recurrence gives the softmax, for any reference values",
                 [sympy.Eq(_d[_j], plus(times(_d[j1], _e(_r[j1], _neg(_r[_j]))), _e(_x[_j], _neg(_r[_j]))),
                           evaluate=False), " implies ",
                  sympy.Eq(_d[_n], _sum(_e(_x[_k], _neg(_r[_n])), _k), evaluate=False), " and ",
                  sympy.Eq(over(_e(_x[_i], _neg(_r[_n])), _d[_n]), SoftmaxEntry(_x, _i), evaluate=False)],
                 [(sympy.Eq(_d[_j], _sum(_e(_x[_k], _neg(_r[_j])), _k, _j), evaluate=False),
                   ["by induction: true for ", sympy.Eq(_j, 1, evaluate=False)]),
                  (Chain(_d[_j], plus(times(_e(_r[j1], _neg(_r[_j])), _sum(_e(_x[_k], _neg(_r[j1])), _k, j1)),
                                      _e(_x[_j], _neg(_r[_j]))), _sum(_e(_x[_k], _neg(_r[_j])), _k, _j)),
                   [sympy.Eq(times(sympy.exp(a), sympy.exp(b)), _e(a, b), evaluate=False)]),
                  (sympy.Eq(over(_e(_x[_i], _neg(_r[_n])), _d[_n]), over(sympy.exp(_x[_i]), _sum(sympy.exp(_x[_k]), _k)),
                            evaluate=False), ["cancel ", _e(_neg(_r[_n]))])],
                 [(f"d_{n} − Σ e^(x_k − r_{n}) expands to 0 with {n} symbolic scores and {n} free references "
                   "(running maxima are one choice)", simp == 0),
                  ("e^(x_i − r_n)/d_n equals softmax(x)_i", all(sympy.simplify(a_ - b_) == 0
                                                              for a_, b_ in zip(y, _softmax(x))))])


def _block_merge() -> Proof:
    x = list(sympy.symbols("x_1:5", real=True))
    v = list(sympy.symbols("v_1:5", real=True))
    m1, m2, m = sympy.symbols("m_1 m_2 m", real=True)  # arbitrary: not only the block maxima
    l1 = sum(sympy.exp(a - m1) for a in x[:2])
    l2 = sum(sympy.exp(a - m2) for a in x[2:])
    ell = sympy.exp(m1 - m) * l1 + sympy.exp(m2 - m) * l2
    merged_ok = sympy.powsimp(sympy.expand(ell - sum(sympy.exp(a - m) for a in x), power_exp=True)) == 0
    o1 = sum(sympy.exp(a - m1) * b for a, b in zip(x[:2], v[:2])) / l1  # softmax(x_B1) · v_B1
    p2v2 = sum(sympy.exp(a - m2) * b for a, b in zip(x[2:], v[2:]))
    exact = sum(p * b for p, b in zip(_softmax(x), v))
    fa1 = (l1 * sympy.exp(m1 - m) * o1 + sympy.exp(m2 - m) * p2v2) / ell
    # FA2: un-normalised accumulator, rescaled by e^{m1 - m} (no inverse), normalised once at the end
    acc1 = sum(sympy.exp(a - m1) * b for a, b in zip(x[:2], v[:2]))
    fa2 = (sympy.exp(m1 - m) * acc1 + sum(sympy.exp(a - m) * b for a, b in zip(x[2:], v[2:]))) / \
        (sympy.exp(m1 - m) * l1 + sum(sympy.exp(a - m) for a in x[2:]))
    typo = (acc1 / sympy.exp(m1 - m) + sum(sympy.exp(a - m) * b for a, b in zip(x[2:], v[2:]))) / \
        (sympy.exp(m1 - m) * l1 + sum(sympy.exp(a - m) for a in x[2:]))

    def same(a: sympy.Expr, b: sympy.Expr) -> bool:
        return sympy.simplify(sympy.powsimp(sympy.expand(a - b, power_exp=True))) == 0

    # the printed FA2 diag(...)^{-1} differs as soon as the reference changes between blocks
    at = {x[0]: 1, x[1]: 2, x[2]: 5, x[3]: 3, v[0]: 1, v[1]: 2, v[2]: 3, v[3]: 4, m1: 2, m2: 5, m: 5}
    typo_differs = sympy.simplify((typo - exact).subs(at)) != 0
    ell_s, ell1, ell2, ellk = (sympy.Symbol(nm) for nm in ("ell", "ell_1", "ell_2", "ell_k"))
    M, M1, M2, Mk = (sympy.Symbol(nm) for nm in ("m", "m_1", "m_2", "m_k"))
    O1, P2, V2 = sympy.Symbol("O_1"), sympy.Symbol("Ptilde_2"), sympy.Symbol("V_2")
    B1, Bk = sympy.Symbol("B_1"), sympy.Symbol("B_k")
    return Proof("block-merge", "Tiled attention: merging blocks rescales each by e^(m_k − m), for any reference values",
                 [Chain(ell_s, plus(times(_e(M1, _neg(M)), ell1), times(_e(M2, _neg(M)), ell2)),
                        _sum(_e(_x[_j], _neg(M)), _j)), " and ",
                  sympy.Eq(over(plus(times(ell1, _e(M1, _neg(M)), O1), times(_e(M2, _neg(M)), P2, V2)), ell_s),
                           MatrixSoftmax(matrix("x")) * matrix("V"), evaluate=False)],
                 [(sympy.Eq(times(_e(Mk, _neg(M)), ellk), SumIn(_e(_x[_j], _neg(M)), _j, Bk), evaluate=False),
                   [sympy.Eq(times(sympy.exp(sympy.Symbol("a")), sympy.exp(sympy.Symbol("b"))),
                             _e(sympy.Symbol("a"), sympy.Symbol("b")), evaluate=False)]),
                  (sympy.Eq(times(ell1, _e(M1, _neg(M)), O1), SumIn(times(_e(_x[_j], _neg(M)), _v[_j]), _j, B1),
                            evaluate=False),
                   [O1, " is the first block's own softmax average of its values"]),
                  (["sum the blocks and divide by ", ell_s],
                   ["FA1 Alg. 1, FA2 Alg. 1 (typo corrected, issue #991)"])],
                 [("the merged normaliser equals Σ e^(x_j − m) (free m_1, m_2, m)", merged_ok),
                  ("FA1's output update equals softmax(x)·v", same(fa1, exact)),
                  ("FA2's un-normalised accumulator (rescaled without an inverse) equals softmax(x)·v", same(fa2, exact)),
                  ("the FA2 paper's printed diag(·)^(−1) does NOT reproduce it when the reference changes",
                   typo_differs)])


def _permutation() -> Proof:
    from ..pipeline.forward import derive
    from ..read.spec import from_dict

    def m(prefix: str, r: int, c: int) -> list[list[str]]:
        return [[f"{prefix}_{i + 1}{j + 1}" for j in range(c)] for i in range(r)]

    Q, K, Vv = m("q", 3, 2), m("k", 3, 2), m("v", 3, 1)
    base = derive(from_dict({"inputs": {"Q": Q, "K": K, "V": Vv}}))["output"].exact
    perm = [2, 0, 1]
    pq = derive(from_dict({"inputs": {"Q": [Q[i] for i in perm], "K": K, "V": Vv}}))["output"].exact
    pkv = derive(from_dict({"inputs": {"Q": Q, "K": [K[i] for i in perm], "V": [Vv[i] for i in perm]}}))["output"].exact
    pk_only = derive(from_dict({"inputs": {"Q": Q, "K": [K[i] for i in perm], "V": Vv}}))["output"].exact
    attn = sympy.Function("Attn")
    Pi, Qs, Ks, Vs = sympy.symbols("Pi Q K V")
    pi = sympy.Function("pi")

    def row(j: sympy.Basic, l: sympy.Basic) -> sympy.Basic:
        return times(over(sympy.exp(Dot(_q[_i], _kk[j])), _sum(sympy.exp(Dot(_q[_i], _kk[l])), _l)), _v[j])

    return Proof("permutation", "Attention is permutation-equivariant in the queries and invariant under "
                 "permuting key/value pairs together",
                 [sympy.Eq(attn(times(Pi, Qs), Ks, Vs), times(Pi, attn(Qs, Ks, Vs)), evaluate=False), " and ",
                  sympy.Eq(attn(Qs, times(Pi, Ks), times(Pi, Vs)), attn(Qs, Ks, Vs), evaluate=False)],
                 [([_o[_i], " depends on ", _q[_i], " and on the set of pairs ", sympy.Tuple(_kk[_j], _v[_j]),
                    " only"], ["the softmax is row-wise"]),
                  (sympy.Eq(_sum(row(pi(_j), pi(_l)), _j), _sum(row(_j, _l), _j), evaluate=False),
                   ["reorder a finite sum"])],
                 [("permuting the query rows permutes the output rows (3 symbolic queries)",
                   all(_zero(pq[r, 0] - base[perm[r], 0]) for r in range(3))),
                  ("permuting keys and values together leaves the output unchanged",
                   all(_zero(pkv[r, 0] - base[r, 0]) for r in range(3))),
                  ("permuting the keys alone does change it (the check can fail)",
                   not all(_zero(pk_only[r, 0] - base[r, 0]) for r in range(3)))])


IDENTITIES: dict[str, Callable[[], Proof]] = {
    "rows-sum-to-one": _rows_sum,
    "shift-invariance": _shift,
    "jacobian": _jacobian,
    "ds-rows-sum-to-zero": _ds_rows,
    "dk-sums-to-zero": _dk_sum,
    "convex-hull": _hull,
    "online-softmax": _online,
    "block-merge": _block_merge,
    "permutation": _permutation,
}
IDENTITIES.update({k: (lambda f=f: f(Proof)) for k, f in proofs_scores.IDENTITIES.items()})  # issue 13: scores
IDENTITIES.update(_structure_identities)  # GQA, sliding windows, KV-cache decoding


def _register_positions() -> None:
    from .proofs_positions import POSITION_IDENTITIES  # sinusoidal, RoPE, ALiBi (issue 13)

    for name, fields in POSITION_IDENTITIES.items():
        IDENTITIES[name] = lambda fields=fields: Proof(*fields())


_register_positions()


def prove(name: str) -> Proof:
    """The proof of one identity (see :data:`IDENTITIES`)."""
    fn = IDENTITIES.get(name)
    if fn is None:
        raise SymattnError(f"no identity {name!r}{did_you_mean(name, list(IDENTITIES))} "
                           "(symattn prove --list)")
    return fn()
