"""Identities of the structural variants, each proved by SymPy computations that can fail:
grouped-query attention equals multi-head attention with K and V repeated (repeat_interleave);
the gradient of a shared key/value head is the sum over its query heads; a sliding window at
least n wide is no window; decoding from a KV cache reproduces the causal rows.

The checks run symattn's own forward and backward steps on fully symbolic inputs and compare
them with an independent computation (the repeated multi-head pass; SymPy differentiation of
the loss; the causal full pass), entry by entry, with exponentials as independent atoms.

>>> p = IDENTITIES["window-wide-is-no-window"]()
>>> p.holds
True
"""

from __future__ import annotations

from typing import Callable

import sympy

from ..exact.zero import is_zero
from ..pipeline.notation import Chain, Partial
from ..pipeline.rules import plus
from .proof_model import Proof

__all__ = ["IDENTITIES"]

_h, _g, _r, _i, _j, _n = sympy.symbols("h g r i j n", integer=True, positive=True)
_attn = sympy.Function("Attn")
_Q, _K, _V = (sympy.IndexedBase(sympy.Symbol(c)) for c in "QKV")


def _sym(prefix: str, r: int, c: int) -> list[list[str]]:
    return [[f"{prefix}_{i + 1}{j + 1}" for j in range(c)] for i in range(r)]


def _derive(inputs: dict, conv: dict):  # noqa: ANN202
    from ..pipeline.forward import derive
    from ..read.spec import from_dict

    return derive(from_dict({"title": "symbolic", "inputs": inputs, "convention": conv}))


def _repeat(m: list[list[str]], heads: int, groups: int, width: int, interleave: bool = True) -> list[list[str]]:
    per = heads // groups
    idx = [h // per if interleave else h % groups for h in range(heads)]
    return [sum((r[g * width:(g + 1) * width] for g in idx), []) for r in m]


def _gqa_equals_mha() -> Proof:
    n, heads, groups = 2, 4, 2
    Q, K, Vv = _sym("q", n, heads), _sym("k", n, groups), _sym("v", n, groups)
    conv = {"heads": heads, "scale": "none"}
    gqa = _derive({"Q": Q, "K": K, "V": Vv}, {**conv, "kv_heads": groups})["output"].exact
    mha = _derive({"Q": Q, "K": _repeat(K, heads, groups, 1), "V": _repeat(Vv, heads, groups, 1)}, conv)
    tiled = _derive({"Q": Q, "K": _repeat(K, heads, groups, 1, False), "V": _repeat(Vv, heads, groups, 1, False)},
                    conv)
    g_of_h = sympy.floor((_h - 1) / _r) + 1
    return Proof("gqa-repeated-mha", "Grouped-query attention is multi-head attention with K and V repeated",
                 [sympy.Eq(_attn(_Q[_h], _K[g_of_h], _V[g_of_h]), _attn(_Q[_h], _K[_h], _V[_h]), evaluate=False),
                  " where the right side uses K and V with each key/value head repeated r = H/G times in place "
                  "(repeat_interleave), so query head h reads key/value head ", g_of_h],
                 [(Chain(_attn(_Q[_h], _K[g_of_h], _V[g_of_h])),
                   ["each head's attention reads only its own query columns and the columns of the key/value "
                    "head it is given; repeating a key/value head r times in place puts it under query heads "
                    "r(g − 1) + 1 … rg"])],
                 [(f"symattn's GQA output (H = {heads}, G = {groups}, symbolic Q, K, V) equals multi-head "
                   "attention on repeat_interleave(K), repeat_interleave(V), entry by entry",
                   all(is_zero(a - b) for a, b in zip(gqa, mha["output"].exact))),
                  ("tiling instead (head h reads key/value head h mod G) gives a different output: the order "
                   "matters and the check can fail",
                   not all(is_zero(a - b) for a, b in zip(gqa, tiled["output"].exact)))])


def _gqa_shared_gradient() -> Proof:
    from ..pipeline.backward import grad

    n, heads, groups = 2, 2, 1
    Q, K, Vv = _sym("q", n, heads), _sym("k", n, groups), _sym("v", n, groups)
    fwd = _derive({"Q": Q, "K": K, "V": Vv}, {"heads": heads, "kv_heads": groups, "scale": "none"})
    up = _sym("g", n, heads)
    g = grad(fwd, loss="upstream", upstream=up)
    O = fwd["output"].exact
    dO = g["dO"].exact  # the upstream gradient as symattn read it (its symbols, their assumptions)
    L = sum(dO[i, j] * O[i, j] for i in range(n) for j in range(heads))
    by_name = {str(x): x for x in O.free_symbols}
    dK, dV = g["dK"].exact, g["dV"].exact
    dK_auto = sympy.Matrix(n, 1, lambda i, j: sympy.diff(L, by_name[K[i][j]]))
    dV_auto = sympy.Matrix(n, 1, lambda i, j: sympy.diff(L, by_name[Vv[i][j]]))
    per_head = g["head1.dK"].exact + g["head2.dK"].exact
    dL, dKh = sympy.Symbol("L"), sympy.IndexedBase(sympy.Symbol("dK"))
    return Proof("gqa-shared-gradient", "The gradient of a shared key/value head is the sum over its query heads",
                 [sympy.Eq(Partial(dL, _K[_g]), sympy.Sum(dKh[_h], (_h, _r * (_g - 1) + 1, _r * _g)),
                           evaluate=False)],
                 [(Chain(Partial(dL, _K[_g]),
                         sympy.Sum(Partial(dL, _K[_h]), (_h, _r * (_g - 1) + 1, _r * _g))),
                   ["the chain rule: K_g is copied into the r query heads that read it, and the derivative of a "
                    "copy is the sum of the derivatives of its uses"])],
                 [("symattn's dK of the shared head (MQA, 2 query heads, symbolic Q, K, V, dO) equals SymPy's "
                   "derivative of the loss", all(is_zero(a - b) for a, b in zip(dK, dK_auto))),
                  ("symattn's dV of the shared head equals SymPy's derivative of the loss",
                   all(is_zero(a - b) for a, b in zip(dV, dV_auto))),
                  ("it is the sum of the two query heads' dK", all(is_zero(a - b) for a, b in zip(dK, per_head))),
                  ("one head's dK alone is not the gradient (the check can fail)",
                   not all(is_zero(a - b) for a, b in zip(g["head1.dK"].exact, dK_auto)))])


def _window_wide() -> Proof:
    from ..read.conventions import allowed_pattern, window_pattern

    n = 3
    Q, K, Vv = _sym("q", n, 1), _sym("k", n, 1), _sym("v", n, 1)
    inputs = {"Q": Q, "K": K, "V": Vv}
    plain = _derive(inputs, {"scale": "none"})["output"].exact
    causal = _derive(inputs, {"scale": "none", "mask": "causal"})["output"].exact
    wide = _derive(inputs, {"scale": "none", "window": [n, n]})["output"].exact
    wide_causal = _derive(inputs, {"scale": "none", "mask": "causal", "window": [n - 1, 0]})["output"].exact
    narrow = _derive(inputs, {"scale": "none", "mask": "causal", "window": [1, 0]})["output"].exact
    patterns = all(
        window_pattern((w, w), off, nq, nk) >= allowed_pattern("none", None, nq, nk)
        for nq in range(1, 7) for nk in range(1, 7) for off in (0, nk - nq) for w in (max(nq, nk) + abs(off),))
    left = sympy.Symbol("left", integer=True, nonnegative=True)
    return Proof("window-wide-is-no-window", "A sliding window at least n wide equals the plain (or causal) mask",
                 [sympy.Implies(sympy.GreaterThan(left, _n - 1), sympy.Eq(sympy.Symbol("M_win"),
                                                                           sympy.Symbol("M")), evaluate=False)],
                 [(Chain(sympy.LessThan(plus(_i, -_j), _n - 1), sympy.LessThan(_n - 1, left)),
                   ["query i and key j both lie in 1 … n, so |i − j| ≤ n − 1 and no key is outside the window"])],
                 [(f"{n} symbolic tokens: window [{n}, {n}] gives the plain output", all(
                     is_zero(a - b) for a, b in zip(wide, plain))),
                  (f"window [{n - 1}, 0] with the causal mask gives the causal output",
                   all(is_zero(a - b) for a, b in zip(wide_causal, causal))),
                  ("window [1, 0] (narrower than n) changes the last row (the check can fail)",
                   not all(is_zero(a - b) for a, b in zip(narrow, causal))),
                  ("every window of width ≥ max(n_q, n_k) + |off| contains every (query, key) pair, for "
                   "n_q, n_k = 1 … 6 and both alignments", patterns)])


def _decode_causal() -> Proof:
    from ..pipeline.decode import decode
    from ..read.spec import from_dict

    n = 3
    spec = from_dict({"title": "symbolic", "inputs": {"Q": _sym("q", n, 1), "K": _sym("k", n, 1),
                                                      "V": _sym("v", n, 1)}, "convention": {"scale": "none"}})
    dec = decode(spec)
    causal = _derive({"Q": _sym("q", n, 1), "K": _sym("k", n, 1), "V": _sym("v", n, 1)},
                     {"scale": "none", "mask": "causal"})["output"].exact
    plain = _derive({"Q": _sym("q", n, 1), "K": _sym("k", n, 1), "V": _sym("v", n, 1)},
                    {"scale": "none"})["output"].exact
    rows = [dec[f"t{t + 1}.output"].exact[0, 0] for t in range(n)]
    o = sympy.IndexedBase(sympy.Symbol("o"))
    kc, vc = sympy.IndexedBase(sympy.Symbol("K_cache")), sympy.IndexedBase(sympy.Symbol("V_cache"))
    return Proof("decode-causal-row", "Decoding token t from the KV cache gives row t of the causal full pass",
                 [sympy.Eq(_attn(_Q[_i], kc[_i], vc[_i]), o[_i], evaluate=False),
                  ", where o is the causal full pass and the cache after token i holds the keys and values of tokens 1 … i"],
                 [(Chain(o[_i], _attn(_Q[_i], kc[_i], vc[_i])),
                   ["the causal mask gives the keys after i weight exactly 0, so row i of the full pass "
                    "is attention over the keys and values 1 … i, which is the cache after token i"])],
                 [(f"decoded row {t + 1} equals row {t + 1} of the causal pass ({n} symbolic tokens)",
                   is_zero(rows[t] - causal[t, 0])) for t in range(n)]
                 + [("the first decoded row differs from the first row of the unmasked pass (the check can fail)",
                     not is_zero(rows[0] - plain[0, 0]))])


IDENTITIES: dict[str, Callable[[], Proof]] = {
    "gqa-repeated-mha": _gqa_equals_mha,
    "gqa-shared-gradient": _gqa_shared_gradient,
    "window-wide-is-no-window": _window_wide,
    "decode-causal-row": _decode_causal,
}
