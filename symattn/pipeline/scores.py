"""Score variants (issue 13): Luong's general score, Bahdanau's additive score and linear
attention, as step functions of the forward pass (and, for general and additive, the backward
pass).

* ``score = "general"`` (Luong et al. 2015, eq. 8): s_ij = q_iᵀ W_a k_j, as two steps:
  ``Q_a`` = Q W_a, then ``scores`` = Q_a Kᵀ. With W_a = I it is the dot score.
* ``score = "additive"`` (Bahdanau et al. 2015, App. A.1.2): e_ij = v_aᵀ tanh(W_a q_i + U_a k_j),
  as ``Q_a`` (W_a q_i for every query), ``K_a`` (U_a k_j for every key), ``preact`` (the
  3-index pre-activations h_ijt = (W_a q_i)_t + (U_a k_j)_t, shown per query) and
  ``energies``; then the softmax as usual. Neither paper scales its scores, so the default
  scale of these two scores is ``none`` (a file may set one).
* ``score = "linear"`` (Katharopoulos et al. 2020, eq. 5–6): φ(Q)(φ(K)ᵀV) normalised row-wise by
  φ(Q)(φ(K)ᵀ1), with φ = elu + 1 or the identity; causal linear attention in its recurrent form
  S_t = S_{t−1} + φ(k_t)v_tᵀ, z_t = z_{t−1} + φ(k_t), o_t = φ(q_t)ᵀS_t / φ(q_t)ᵀz_t. The
  implicit attention weights φ(q_i)·φ(k_j) / Σ_l φ(q_i)·φ(k_l) are shown too (``weights``),
  so that ``check`` and ``plot`` read them like softmax weights.

This module reads the builder and head duck-typed (it imports neither forward nor backward:
they import it).

>>> import symattn as sa
>>> d = sa.derive(sa.load("luong_general"))
>>> [s.name for s in d.steps][:5]
['Q', 'K', 'V', 'Q_a', 'scores']
>>> d["scores"].exact.row(0)    # q_the·W_a = (1, 1/2) against the keys (1, 0), (0, 1), (1, −1)
Matrix([[1, 1/2, 1/2]])
"""

from __future__ import annotations

from typing import Any, Callable

import sympy

from ..exact import nodes as V
from . import rules as R
from .notation import Diag, MatrixSoftmax, matrix
from .steps import Lookup, Operand, Worked

__all__ = ["head_steps", "head_gradients", "W_A", "U_A"]

W_A, U_A = matrix("W_a"), matrix("U_a")
_I, _J, _T, _S = sympy.symbols("i j t s", integer=True)


def _labels(n: int) -> list[str]:
    return [str(i + 1) for i in range(n)]


def _base(name: str) -> sympy.IndexedBase:
    return sympy.IndexedBase(sympy.Symbol(name))


def _times_weight(b: Any, h: Any, src: str, w: str, name: str, title: str, wsym: sympy.MatrixSymbol,
                  out_sym: sympy.MatrixSymbol, entry: str, x: V.Node) -> V.Node:
    """Y = X W (row form: tokens as rows, W as (d_in, d_out)), shown in the file's layout:
    X·W or X·Wᵀ (W stored transposed) with tokens as rows, W·X or Wᵀ·X with tokens as columns."""
    st = b.spec.stored_transposed(w)
    xsym = b.step(h.name(src)).symbol
    xop = b.operand(h.name(src), xsym)
    if not b.col:
        ops = {"A": xop, "B": b.input_operand(w, wsym.T if st else wsym, transpose=st)}
        rhs = xsym * (wsym.T if st else wsym)
    else:
        ops = {"A": b.input_operand(w, wsym if st else wsym.T, transpose=not st), "B": xop}
        rhs = (wsym if st else wsym.T) * xsym
    node = V.matmul(x, b.input(w))
    return b.add(h.name(name), title, sympy.Eq(out_sym, rhs, evaluate=False), node,
                 b.q_labels if src == "Q" else b.k_labels, _labels(node.shape[1]), operands=ops,
                 rule=R.product("A", "B", x.shape[1]), tokens_as_columns=True, symbol=out_sym, entry_name=entry)


# ---------------------------------------------------------------------------------------
# general (Luong)


def general_scores(b: Any, h: Any) -> None:
    """Q_a = Q W_a, then S = Q_a Kᵀ = Q W_a Kᵀ (column layout: Qᵀ W_a K)."""
    assert h.q is not None and h.k is not None
    Qa = matrix("Q_a")
    qa = _times_weight(b, h, "Q", "Wa", "Q_a", "queries through W_a (Luong's general score)", W_A, Qa, "a", h.q)
    h.extra["Q_a"] = qa
    S, K = matrix(h.sym("S")), matrix(h.sym("K"))
    Q = matrix(h.sym("Q"))
    qa_row = b.operand(h.name("Q_a"), Qa.T if b.col else Qa, transpose=b.col)
    kst = b.operand(h.name("K"), K.T if not b.col else K, transpose=not b.col)
    rhs = Q * W_A * K.T if not b.col else Q.T * W_A * K
    h.logits = b.add(h.name("scores"), "scores (general: qᵢᵀ·W_a·kⱼ)", sympy.Eq(S, rhs, evaluate=False),
                     V.matmul(qa, V.transpose(h.k)), b.q_labels, b.k_labels, operands={"A": qa_row, "B": kst},
                     rule=R.product("A", "B", qa.shape[1]), symbol=S, entry_name=h.entry("scores"),
                     notes=[["Luong et al. (2015), eq. (8), 'general'; with W_a = I it is the dot score"]])
    h.logits_step = h.name("scores")


# ---------------------------------------------------------------------------------------
# additive (Bahdanau)


def additive_parts(b: Any, h: Any) -> None:
    """Q_a = W_a q_i for every query and K_a = U_a k_j for every key (row form Q W_a, K U_a)."""
    assert h.q is not None and h.k is not None
    h.extra["Q_a"] = _times_weight(b, h, "Q", "Wa", "Q_a", "queries through W_a (W_a·qᵢ)", W_A, matrix("Q_a"),
                                   "a", h.q)
    h.extra["K_a"] = _times_weight(b, h, "K", "Ua", "K_a", "keys through U_a (U_a·kⱼ)", U_A, matrix("K_a"),
                                   "b", h.k)


def preactivations(b: Any, h: Any) -> None:
    """h_ijt = (W_a q_i)_t + (U_a k_j)_t: the tanh pre-activations, (queries, keys, d_a)."""
    qa, ka = h.extra["Q_a"], h.extra["K_a"]
    node = V.pair_sums(qa, ka)
    da = qa.shape[1]
    node.name_as(h.name("preact"), b.q_labels, b.k_labels, _labels(da))
    hb, ab, bb = _base("h"), _base("a"), _base("b")
    formula = sympy.Eq(hb[_I, _J, _T], ab[_I, _T] + bb[_J, _T], evaluate=False)
    ops = {"A": b.operand(h.name("Q_a"), matrix("Q_a"), transpose=b.col),
           "B": b.operand(h.name("K_a"), matrix("K_a"), transpose=b.col)}

    def rule(at: Lookup, i: int, j: int, t: int) -> Worked:
        return Worked([R.plus(at("A", i, t), at("B", j, t))])

    from .steps import Step

    b.steps.append(Step(h.name("preact"), "tanh pre-activations (W_a·qᵢ + U_a·kⱼ, per query)", formula, node,
                        list(b.q_labels), list(b.k_labels), depth_labels=_labels(da), operands=ops, rule=rule,
                        example=(0, 0, 0), axis_names=("query", "key", "dim"), entry_name="h"))
    h.extra["preact"] = node


def energies(b: Any, h: Any) -> None:
    """e_ij = v_aᵀ tanh(W_a q_i + U_a k_j) = Σ_t v_a,t tanh(h_ijt): the additive scores."""
    qa, ka = h.extra["Q_a"], h.extra["K_a"]
    va = b.input("va")
    node = V.energies(qa, ka, va)
    da = qa.shape[1]
    E = matrix(h.sym("E_a"))
    eb, vb, hb = _base("e"), _base("v_a"), _base("h")
    formula = sympy.Eq(eb[_I, _J], sympy.Sum(vb[_T] * sympy.tanh(hb[_I, _J, _T]), (_T, 1, sympy.Symbol("d_a"))),
                       evaluate=False)
    ops = {"A": b.operand(h.name("Q_a"), matrix("Q_a"), transpose=b.col),
           "B": b.operand(h.name("K_a"), matrix("K_a"), transpose=b.col),
           "va": Operand(matrix("v_a"), va, ["1"], _labels(da), given=True)}

    def rule(at: Lookup, i: int, j: int) -> Worked:
        return Worked([R.plus(*[R.times(at("va", 0, t), sympy.tanh(R.plus(at("A", i, t), at("B", j, t)),
                                                                    evaluate=False))
                                for t in range(da)])])

    notes = [["Bahdanau et al. (2015), App. A.1.2; tanh x = (e^{2x} − 1)/(e^{2x} + 1), certified like exp"]]
    if b.conv.scale_text.lower() == "none" and b.conv.temperature == 1:
        notes.append(["not scaled (neither Bahdanau nor Luong scales the energies; set convention.scale for one)"])
    h.logits = b.add(h.name("energies"), "energies (additive: v_aᵀ·tanh(W_a·qᵢ + U_a·kⱼ))", formula, node,
                     b.q_labels, b.k_labels, operands=ops, rule=rule, symbol=E, entry_name="e", notes=notes)
    h.logits_step = h.name("energies")


# ---------------------------------------------------------------------------------------
# linear attention


def _phi_name(fm: str) -> str:
    return "elu + 1" if fm == "elu+1" else "identity"


def linear_features(b: Any, h: Any) -> None:
    """φ(Q) and φ(K) element-wise (elu + 1: x + 1 for x > 0, exp(x) for x ≤ 0; or the identity)."""
    assert h.q is not None and h.k is not None
    fm = b.conv.feature_map
    x = sympy.Symbol("x")
    phi_rule = (sympy.Piecewise((x + 1, x > 0), (sympy.exp(x), True)) if fm == "elu+1" else x)
    for src, node, labels in (("Q", h.q, b.q_labels), ("K", h.k, b.k_labels)):
        sym = matrix(f"phi_{src}")
        val = V.feature_map(node, fm)
        ysym = b.step(h.name(src)).symbol

        def rule(at: Lookup, i: int, j: int, src: str = src) -> Worked:
            v = at("X", i, j)
            if fm == "identity":
                return Worked([v])
            xv = b.step(h.name(src)).node.entry(i, j)  # the entry as shown
            if xv.is_positive:
                return Worked([R.plus(v, sympy.Integer(1))])
            if xv.is_nonpositive:
                return Worked([sympy.Pow(sympy.E, v, evaluate=False)])
            return Worked([phi_rule.subs(x, v)])

        h.extra[f"phi{src}"] = b.add(
            h.name(f"phi{src}"), f"feature map φ({src}) ({_phi_name(fm)})",
            sympy.Eq(sym, sympy.Function("phi")(ysym), evaluate=False), val, labels, _labels(node.shape[1]),
            operands={"X": b.operand(h.name(src), ysym)}, rule=rule, tokens_as_columns=True, symbol=sym,
            entry_name=f"phi_{src.lower()}",
            notes=[feature_note(fm)])


def feature_note(fm: str) -> list:
    """The note under a feature-map step (built when needed: a SymPy sum at import time would make
    SymPy import its tensor and combinatorics modules for every command)."""
    if fm == "identity":
        return ["φ = the identity (no feature map): the normaliser may be 0 or negative"]
    x = sympy.Symbol("x", real=True)
    return ["φ = elu(x) + 1: ", x + 1, " for x > 0, ", sympy.exp(x), " for x ≤ 0 (Katharopoulos et al. 2020)"]
_ZERO_WHY = (": linear attention's normaliser φ(qᵢ)·Σⱼ φ(kⱼ) is 0 for this query, so its output is undefined "
             '(the identity feature map allows it; feature_map = "elu+1" keeps every normaliser positive)')


def linear_weights(b: Any, h: Any) -> None:
    """The implicit weights P_ij = φ(q_i)·φ(k_j) / Σ_l φ(q_i)·φ(k_l) (causal: l ≤ i): the
    attention matrix that linear attention computes without forming it."""
    pq, pk = h.extra["phiQ"], h.extra["phiK"]
    sims = V.matmul(pq, V.transpose(pk))
    causal = b.conv.mask == "causal"
    if causal:
        mask = V.rows(V.lower_ones(b.spec.n_queries, b.spec.n_keys), b.rows)
        sims = V.elementwise("mul", sims, mask)
    total = V.row_sums(sims)
    total.name_as(h.name("normaliser"), b.q_labels, ["1"])  # the same value as the normaliser step
    node = V.row_divide(sims, total, _ZERO_WHY, rowsum=True)
    P, PQ, PK = matrix("P"), matrix("phi_Q"), matrix("phi_K")
    qo = b.operand(h.name("phiQ"), PQ, transpose=b.col)
    ko = b.operand(h.name("phiK"), PK, transpose=b.col)
    m = pk.shape[0]
    d = pk.shape[1]
    rows_shown = b.rows

    def rule(at: Lookup, i: int, j: int) -> Worked:
        live = [l for l in range(m) if not causal or l <= rows_shown[i]]
        if j not in live:
            return Worked([sympy.Integer(0)], "masked (causal)")

        def dot(l: int) -> sympy.Basic:
            return R.plus(*[R.times(at("Q", i, t), at("K", l, t)) for t in range(d)])
        return Worked([R.over(dot(j), R.plus(*[dot(l) for l in live]))])

    rhs = MatrixSoftmax(PQ * PK.T if not causal else sympy.HadamardProduct(PQ * PK.T, matrix("M")), "keys", "sum")
    h.weights = b.add(h.name("weights"), "implicit attention weights (φ(qᵢ)·φ(kⱼ) over its row sum)",
                      sympy.Eq(P, rhs, evaluate=False), node, b.q_labels, b.k_labels,
                      operands={"Q": qo, "K": ko}, rule=rule, symbol=P, entry_name=h.entry("weights"),
                      notes=[["each row sums to 1" + ("; M is the causal 0/1 pattern (j ≤ i)" if causal else "")
                              + "; linear attention never forms this matrix: the steps below give the same output"]])
    h.extra["sims"] = sims


def linear_output(b: Any, h: Any) -> None:
    """Non-causal: KV = φ(K)ᵀV, z = φ(K)ᵀ1, numerator φ(Q)·KV, normaliser φ(Q)·z, output.
    Causal: the states S_t and z_t, then φ(q_t)ᵀS_t over φ(q_t)ᵀz_t."""
    assert h.v is not None
    pq, pk = h.extra["phiQ"], h.extra["phiK"]
    PQ, PK, Vs = matrix("phi_Q"), matrix("phi_K"), matrix(h.sym("V"))
    d, dv, m = pk.shape[1], h.v.shape[1], pk.shape[0]
    qo = b.operand(h.name("phiQ"), PQ, transpose=b.col)
    ko = b.operand(h.name("phiK"), PK, transpose=b.col)
    vo = b.operand(h.name("V"), Vs, transpose=b.col)
    if b.conv.mask != "causal":
        kv = V.matmul(V.transpose(pk), h.v)
        KV = matrix("KV")
        b.add(h.name("KV"), "keys' features times values φ(K)ᵀ·V (summed over keys once)",
              sympy.Eq(KV, PK.T * Vs, evaluate=False), kv, _labels(d), _labels(dv),
              operands={"K": ko, "V": vo},
              rule=lambda at, a, c: Worked([R.plus(*[R.times(at("K", s, a), at("V", s, c)) for s in range(m)])]),
              symbol=KV, entry_name="KV")
        z = V.row_sums(V.transpose(pk))
        Z = matrix("z")
        b.add(h.name("z"), "sum of the keys' features φ(K)ᵀ·1", sympy.Eq(Z, PK.T * sympy.OneMatrix(m, 1),
                                                                        evaluate=False),
              z, _labels(d), ["1"], operands={"K": ko},
              rule=lambda at, a, c: Worked([R.plus(*[at("K", s, a) for s in range(m)])]), symbol=Z, entry_name="z")
        q_rows = pq
        num = V.matmul(q_rows, kv)
        den = V.matmul(q_rows, z)
        num_rhs, den_rhs = PQ * KV, PQ * Z
        kvop = Operand(KV, kv, _labels(d), _labels(dv), "KV")
        zop = Operand(Z, z, _labels(d), ["1"], "z")
        num_rule = R.product("Q", "KV", d)
        den_rule = R.product("Q", "z", d)
        num_ops = {"Q": qo, "KV": kvop}
        den_ops = {"Q": qo, "z": zop}
    else:
        state = V.prefix_state(pk, h.v)
        Sb = _base("S")
        tokens = b.k_labels
        state.name_as(h.name("state"), tokens, _labels(d), _labels(dv))
        from .steps import Step

        def state_rule(at: Lookup, t: int, a: int, c: int) -> Worked:
            return Worked([R.plus(*[R.times(at("K", s, a), at("V", s, c)) for s in range(t + 1)])])

        b.steps.append(Step(h.name("state"), "recurrent state Sₜ = Sₜ₋₁ + φ(kₜ)·vₜᵀ (per token t)",
                            sympy.Eq(Sb[_T, _I, _J], sympy.Sum(_base("phi_k")[_S, _I] * _base("v")[_S, _J],
                                                               (_S, 1, _T)), evaluate=False),
                            state, list(tokens), _labels(d), depth_labels=_labels(dv), operands={"K": ko, "V": vo},
                            rule=state_rule, example=(0, 0, 0), axis_names=("token", "feature", "dim"),
                            entry_name="S", notes=[["S₀ = 0; each token adds φ(kₜ)·vₜᵀ"]]))
        z = V.matmul(V.lower_ones(m, m), pk)
        Z = matrix("Z")
        b.add(h.name("z"), "recurrent normaliser state zₜ = zₜ₋₁ + φ(kₜ) (row t)",
              sympy.Eq(_base("z")[_T, _I], sympy.Sum(_base("phi_k")[_S, _I], (_S, 1, _T)), evaluate=False), z,
              tokens, _labels(d),
              operands={"K": ko}, rule=lambda at, t, a: Worked([R.plus(*[at("K", s, a) for s in range(t + 1)])]),
              symbol=Z, entry_name="z", notes=[["z₀ = 0"]])
        full_q = h.extra["phiQ_all"]
        num = V.rows(V.row_contract(full_q, state), b.rows)
        den = V.rows(V.row_dots(full_q, z), b.rows)
        _A = sympy.Symbol("a", integer=True)
        pq_b = _base("phi_q")
        num_rhs = sympy.Sum(pq_b[_T, _A] * _base("S")[_T, _A, _J], (_A, 1, sympy.Symbol("d")))
        den_rhs = sympy.Sum(pq_b[_T, _A] * _base("z")[_T, _A], (_A, 1, sympy.Symbol("d")))
        rows_shown = b.rows
        zop = Operand(Z, z, list(tokens), _labels(d), "z")

        def num_rule(at: Lookup, i: int, c: int) -> Worked:
            t = rows_shown[i]
            return Worked([R.plus(*[R.times(at("Q", i, a), R.plus(*[R.times(at("K", s, a), at("V", s, c))
                                                                    for s in range(t + 1)])) for a in range(d)])])

        def den_rule(at: Lookup, i: int, c: int) -> Worked:
            t = rows_shown[i]
            return Worked([R.plus(*[R.times(at("Q", i, a), at("z", t, a)) for a in range(d)])])

        num_ops = {"Q": qo, "K": ko, "V": vo}
        den_ops = {"Q": qo, "z": zop}
    N, D = matrix("N"), matrix("r")  # r: the normaliser (the row sums of φ(Q)·φ(K)ᵀ)
    causal = b.conv.mask == "causal"
    b.add(h.name("numerator"), "numerator φ(qᵢ)ᵀ·" + ("(φ(K)ᵀ·V)" if not causal else "Sᵢ"),
          sympy.Eq(_base("N")[_T, _J] if causal else N, num_rhs, evaluate=False), num, b.q_labels, _labels(dv),
          operands=num_ops, rule=num_rule, symbol=N, entry_name="N")
    b.add(h.name("normaliser"), "normaliser φ(qᵢ)ᵀ·" + ("(φ(K)ᵀ·1)" if b.conv.mask != "causal" else "zᵢ"),
          sympy.Eq(_base("r")[_T] if causal else D, den_rhs, evaluate=False), den, b.q_labels, ["1"],
          operands=den_ops, rule=den_rule, symbol=D, entry_name="r")
    out = V.row_divide(num, den, _ZERO_WHY)
    O = matrix(h.sym("O"))
    nop = Operand(N, num, b.q_labels, _labels(dv), "N")
    dop = Operand(D, den, b.q_labels, ["1"], "r")
    notes = [["the same as the implicit weights times V (P·V): symattn prove linear-equals-weights"
              + ("; the recurrent form equals the masked form: symattn prove linear-recurrent-equals-masked"
                 if b.conv.mask == "causal" else "")]]
    h.out = b.add(h.name("output"), "attention output (numerator over normaliser, row by row)",
                  sympy.Eq(O, sympy.Inverse(Diag(D)) * N, evaluate=False), out, b.q_labels, _labels(dv),
                  operands={"N": nop, "D": dop}, rule=lambda at, i, c: Worked([R.over(at("N", i, c), at("D", i, 0))]),
                  tokens_as_columns=True, symbol=O, entry_name=h.entry("output"), notes=notes)


def _linear_setup(b: Any, h: Any) -> None:
    """φ over every query (the causal state needs each query's own row)."""
    linear_features(b, h)
    if b.conv.mask == "causal":
        full = b.input("Q") if "Q" in b.spec.inputs else None
        h.extra["phiQ_all"] = V.feature_map(full if full is not None else _all_queries(b), b.conv.feature_map)


def _all_queries(b: Any) -> V.Node:
    x = b.input("X")
    return V.matmul(x, b.input("Wq"), b.written.get("bq"))


# ---------------------------------------------------------------------------------------
# the hooks


def head_steps(default: list[Callable], conv: Any) -> list[Callable]:
    """The step functions of one head for the example's score: ``default`` (forward's
    ``HEAD_STEPS``) with its ``scores`` step replaced, and for linear attention without the
    softmax steps."""
    score = getattr(conv, "score", "dot")
    if score == "dot":
        return default
    variant = {"general": [general_scores], "additive": [additive_parts, preactivations, energies],
               "linear": [_linear_setup, linear_weights, linear_output]}[score]
    out: list[Callable] = []
    for fn in default:
        if fn.__name__ == "scores":
            out.extend(variant)
        elif score == "linear" and fn.__name__ in ("scaled", "masked", "weights", "weighted", "output"):
            continue
        else:
            out.append(fn)
    return out


def head_gradients(default: list[Callable], conv: Any) -> list[Callable]:
    """The gradient functions of one head: for general and additive scores, the steps through
    the scores replaced (dQ, dK, ∂L/∂τ and the weights W_a, U_a, v_a); for linear attention
    also the softmax backward (D, dA, dφ(Q), dφ(K), dQ, dK)."""
    score = getattr(conv, "score", "dot")
    if score == "dot":
        return default
    from .scores_backward import GRADIENTS

    replaced = ("grad_queries", "grad_keys", "grad_scale", "grad_given_scores")
    if score == "linear":  # no softmax: the division by the row sum, backward
        replaced += ("grad_rowsums", "grad_scores", "grad_bias")
    out: list[Callable] = []
    inserted = False
    for fn in default:
        if fn.__name__ not in replaced:
            out.append(fn)
        elif not inserted:  # the variant's functions where the first replaced one was
            out.extend(GRADIENTS[score])
            inserted = True
    return out

