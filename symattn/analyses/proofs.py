"""Identities of attention, each proved: an argument, and SymPy checks that carry it.

Every check is a computation that could fail: an expression that must cancel to 0
(exponentials as independent atoms where the identity must hold for all values),
or a property SymPy decides. ``symattn prove NAME`` prints one; ``--list`` lists them.

>>> p = prove("rows-sum-to-one")
>>> p.holds
True
>>> sorted(IDENTITIES)[:3]
['block-merge', 'convex-hull', 'dk-sums-to-zero']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import sympy

from ..display import render
from ..errors import SymattnError
from ..exact.zero import is_zero
from ..read.numbers import did_you_mean

__all__ = ["Proof", "prove", "IDENTITIES"]


@dataclass
class Proof:
    """A statement, its argument (LaTeX lines with reasons) and the checks that hold."""

    name: str
    title: str
    statement: str  # LaTeX
    argument: list[tuple[str, str]]  # (LaTeX, why)
    checks: list[tuple[str, bool]] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return bool(self.checks) and all(ok for _, ok in self.checks)

    def __str__(self) -> str:
        return render(self, "text") or repr(self)

    def _repr_markdown_(self) -> str | None:
        return render(self, "markdown")

    def to_data(self) -> dict:
        return {"name": self.name, "title": self.title, "statement": self.statement, "holds": self.holds,
                "argument": [{"latex": t, "why": w} for t, w in self.argument],
                "checks": [{"check": w, "holds": ok} for w, ok in self.checks]}


_zero = is_zero  # the SymPy check behind every identity


def _softmax(x: list[sympy.Expr]) -> list[sympy.Expr]:
    z = sum(sympy.exp(v) for v in x)
    return [sympy.exp(v) / z for v in x]


def _rows_sum(n: int = 5) -> Proof:
    x = list(sympy.symbols(f"x_1:{n + 1}", real=True))
    p = _softmax(x)
    return Proof("rows-sum-to-one", "Each row of the weights sums to 1",
                 r"\sum_j p_{ij} = 1,\quad p_{ij} = \frac{e^{s_{ij}}}{\sum_l e^{s_{il}}}",
                 [(r"\sum_j p_{ij} = \frac{\sum_j e^{s_{ij}}}{\sum_l e^{s_{il}}}", "the denominator does not depend on j"),
                  (r"= 1", "the numerator and the denominator are the same sum")],
                 [(f"Σ p_j − 1 cancels to 0 for n = {m} symbolic scores", _zero(sum(_softmax(x[:m])) - 1))
                  for m in range(1, n + 1)] + [("each p_j > 0 for real scores", all(v.is_positive for v in p))])


def _shift(n: int = 4) -> Proof:
    x = list(sympy.symbols(f"x_1:{n + 1}", real=True))
    c = sympy.Symbol("c", real=True)
    a, b = _softmax(x), [sympy.powsimp(sympy.expand(v, power_exp=True)) for v in _softmax([v + c for v in x])]
    return Proof("shift-invariance", "Adding a constant to a row of scores changes nothing",
                 r"\operatorname{softmax}(x + c\mathbf{1}) = \operatorname{softmax}(x)",
                 [(r"\frac{e^{x_i + c}}{\sum_j e^{x_j + c}} = \frac{e^{c} e^{x_i}}{e^{c}\sum_j e^{x_j}}", "e^{a+b} = e^a e^b"),
                  (r"= \frac{e^{x_i}}{\sum_j e^{x_j}}", "cancel e^c > 0")],
                 [(f"softmax(x + c) − softmax(x) simplifies to 0 for n = {n}, symbolic c",
                   all(sympy.simplify(u - v) == 0 for u, v in zip(b, a)))])


def _jacobian(n: int = 4) -> Proof:
    x = sympy.Matrix(sympy.symbols(f"x_1:{n + 1}", real=True))
    z = sum(sympy.exp(v) for v in x)
    p = x.applyfunc(lambda v: sympy.exp(v) / z)
    J = p.jacobian(x)
    closed = sympy.diag(*p) - p * p.T
    ones = sympy.ones(n, 1)
    return Proof("jacobian", "The softmax Jacobian is symmetric, its rows sum to 0, and it is singular",
                 r"J = \operatorname{diag}(p) - pp^{\top} = J^{\top},\quad J\mathbf{1} = 0,\quad \det J = 0",
                 [(r"J_{ik} = \frac{\partial p_i}{\partial x_k} = p_i(\delta_{ik} - p_k)", "quotient rule"),
                  (r"J_{ki} = p_k(\delta_{ki} - p_i) = J_{ik}", "δ is symmetric; p_i p_k = p_k p_i"),
                  (r"(J\mathbf{1})_i = p_i - p_i \sum_k p_k = 0", "the weights sum to 1"),
                  (r"\det J = 0", "J has the non-zero kernel vector 1")],
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
    return Proof("ds-rows-sum-to-zero", "Each row of dS sums to 0",
                 r"\sum_j dS_{ij} = 0",
                 [(r"\sum_j dS_{ij} = \sum_j P_{ij} dP_{ij} - D_i \sum_j P_{ij}", "dS = P ∘ (dP − D1ᵀ)"),
                  (r"= D_i - D_i = 0", "D_i = Σ_j P_ij dP_ij = dO_i·O_i, and rows of P sum to 1")],
                 [(f"row {i + 1} of symattn's dS (symbolic Q, K, V, dO) sums to 0",
                   _zero(sum(dS.row(i)))) for i in range(dS.rows)])


def _dk_sum() -> Proof:
    _, g = _attention_grad()
    dK = g["dK"].exact
    return Proof("dk-sums-to-zero", "The key gradients sum to 0", r"\mathbf{1}^{\top} dK = 0",
                 [(r"\sum_j dK_j = \tau \sum_j \sum_i dS_{ij} q_i = \tau \sum_i q_i \sum_j dS_{ij}", "dK = τ dSᵀ Q"),
                  (r"= 0", "rows of dS sum to 0 (keys are invariant to a common shift)")],
                 [(f"column {c + 1} of symattn's dK sums to 0 (symbolic Q, K, V, dO)", _zero(sum(dK.col(c))))
                  for c in range(dK.cols)])


def _hull() -> Proof:
    fwd, _ = _attention_grad()
    P = fwd["weights"].exact
    pos = all(sympy.simplify(v).is_positive for v in P)
    return Proof("convex-hull", "The output lies in the convex hull of the value rows",
                 r"o_i = \sum_j p_{ij} v_j,\quad p_{ij} > 0,\ \sum_j p_{ij} = 1",
                 [(r"p_{ij} = \frac{e^{s_{ij}}}{\sum_l e^{s_{il}}} > 0", "exponentials are positive"),
                  (r"\sum_j p_{ij} = 1", "rows sum to 1"),
                  (r"o_i \in \operatorname{conv}\{v_j\}", "a convex combination")],
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
    return Proof("online-softmax", "The online-softmax recurrence gives the softmax, for any reference values",
                 r"d_j = d_{j-1} e^{r_{j-1} - r_j} + e^{x_j - r_j} \;\Rightarrow\; d_n = \sum_{k \le n} e^{x_k - r_n},"
                 r"\quad \frac{e^{x_i - r_n}}{d_n} = \operatorname{softmax}(x)_i",
                 [(r"d_j = \sum_{k \le j} e^{x_k - r_j}", "induction: true for j = 1"),
                  (r"d_{j} = e^{r_{j-1} - r_j}\sum_{k < j} e^{x_k - r_{j-1}} + e^{x_j - r_j} = \sum_{k \le j} e^{x_k - r_j}",
                   "e^{a}e^{b} = e^{a+b}"),
                  (r"\frac{e^{x_i - r_n}}{d_n} = \frac{e^{x_i}}{\sum_k e^{x_k}}", "cancel e^{-r_n}")],
                 [(f"d_{n} − Σ e^(x_k − r_{n}) expands to 0 with {n} symbolic scores and {n} free references "
                   "(running maxima are one choice)", simp == 0),
                  ("e^(x_i − r_n)/d_n equals softmax(x)_i", all(sympy.simplify(a - b) == 0
                                                              for a, b in zip(y, _softmax(x))))])


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
    return Proof("block-merge", "Tiled attention: merging blocks rescales by e^{m_k − m}, for any reference values",
                 r"\ell = e^{m_1 - m}\ell_1 + e^{m_2 - m}\ell_2 = \sum_j e^{x_j - m},\quad "
                 r"\frac{\ell_1 e^{m_1 - m} O_1 + e^{m_2 - m}\tilde P_2 V_2}{\ell} = \operatorname{softmax}(x) V",
                 [(r"e^{m_k - m}\ell_k = \sum_{j \in B_k} e^{x_j - m}", "e^{a}e^{b} = e^{a+b}"),
                  (r"\ell_1 e^{m_1 - m} O_1 = \sum_{j \in B_1} e^{x_j - m} v_j", "O_1 = softmax(x_{B_1}) V_{B_1}"),
                  (r"\text{sum the blocks and divide by } \ell", "FA1 Alg. 1, FA2 Alg. 1 (typo corrected, issue #991)")],
                 [("the merged normaliser equals Σ e^(x_j − m) (free m_1, m_2, m)", merged_ok),
                  ("FA1's output update equals softmax(x)·v", same(fa1, exact)),
                  ("FA2's un-normalised accumulator (rescaled without an inverse) equals softmax(x)·v", same(fa2, exact)),
                  ("the FA2 paper's printed diag(·)^{-1} does NOT reproduce it when the reference changes",
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
    return Proof("permutation", "Attention is permutation-equivariant in the queries and invariant under "
                 "permuting key/value pairs together",
                 r"\operatorname{Attn}(\Pi Q, K, V) = \Pi\,\operatorname{Attn}(Q, K, V),\quad "
                 r"\operatorname{Attn}(Q, \Pi K, \Pi V) = \operatorname{Attn}(Q, K, V)",
                 [(r"o_i \text{ depends on } q_i \text{ and the set of pairs } (k_j, v_j) \text{ only}",
                   "the softmax is row-wise"),
                  (r"\sum_j \frac{e^{q_i \cdot k_{\pi(j)}}}{\sum_l e^{q_i \cdot k_{\pi(l)}}} v_{\pi(j)} = \sum_j "
                   r"\frac{e^{q_i \cdot k_j}}{\sum_l e^{q_i \cdot k_l}} v_j", "reorder a finite sum")],
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


def prove(name: str) -> Proof:
    """The proof of one identity (see :data:`IDENTITIES`)."""
    fn = IDENTITIES.get(name)
    if fn is None:
        raise SymattnError(f"no identity {name!r}{did_you_mean(name, list(IDENTITIES))} "
                           "(symattn prove --list)")
    return fn()
