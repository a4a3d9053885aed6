"""The backward pass through the general and additive scores (issue 13), as gradient step
functions that replace dQ, dK and ∂L/∂τ of the dot score (:data:`GRADIENTS`).

General (S = Q_a Kᵀ, Q_a = Q W_a, S̃ = τ S):
    dQ_a = τ dS K,  dQ = dQ_a W_aᵀ,  dK = τ dSᵀ Q_a,  dW_a = Qᵀ dQ_a,  ∂L/∂τ = ⟨dS, S⟩.
Additive (e_ij = Σ_t v_t tanh(a_it + b_jt), A = Q W_a, B = K U_a, S̃ = τ E):
    dE = τ dS,  dA_it = Σ_j dE_ij v_t (1 − tanh²(a_it + b_jt)),  dB_jt = Σ_i (the same),
    dv_t = Σ_ij dE_ij tanh(a_it + b_jt),  dQ = dA W_aᵀ,  dW_a = Qᵀ dA,  dK = dB U_aᵀ,
    dU_a = Kᵀ dB,  ∂L/∂τ = ⟨dS, E⟩.
Values are computed in row form (tokens as rows, weights (d_in, d_out)); a step whose forward
value is shown transposed (the column layout) is shown transposed too, with its formula.

>>> import symattn as sa
>>> g = sa.grad(sa.derive(sa.load("bahdanau_additive")))
>>> [s.name for s in g.steps if s.name in ("dE", "dQ_a", "dK_a", "dva", "dWa", "dUa")]
['dE', 'dQ_a', 'dK_a', 'dva', 'dWa', 'dUa']
"""

from __future__ import annotations

from typing import Any, Callable

import sympy

from ..exact import nodes as V
from . import rules as R
from .notation import TAU, Diag, Inner, Ones, Partial, matrix
from .steps import Lookup, Operand, Worked

__all__ = ["GRADIENTS"]


def _labels(n: int) -> list[str]:
    return [str(i + 1) for i in range(n)]


def _add(b: Any, h: Any, name: str, title: str, rhs: sympy.Basic, node: V.Node, ops: dict, rule: Callable,
         *, like: Any = None, rows: list | None = None, cols: list | None = None, shown_t: bool = False) -> V.Node:
    """A gradient step from its row form: formula, operands and rule are written for the row
    form; shown transposed (like a column-layout forward value, or a weight stored transposed),
    the formula is transposed and the rule reads (j, i)."""
    t = like.transposed if like is not None else shown_t
    sym = h.sym(name)
    formula = sympy.Eq(sym, rhs.T if t else rhs, evaluate=False)
    r = (lambda at, i, j: rule(at, j, i)) if t else rule
    if like is not None:
        return b.add(h.name(name), title, formula, node, like=like, operands=ops, rule=r, symbol=sym,
                     entry_name=h.entry(name))
    return b.add(h.name(name), title, formula, node, rows=rows, cols=cols, tokens_as_columns=t, operands=ops,
                 rule=r, symbol=sym, entry_name=h.entry(name))


def _weight_op(b: Any, w: str, sym: sympy.MatrixSymbol, transpose: bool = False) -> Operand:
    """An input weight in row form (d_in, d_out), or its transpose, as a given operand."""
    node = b.inputs.input(w)
    if transpose:
        return Operand(sym.T, V.transpose(node), _labels(node.shape[1]), _labels(node.shape[0]), given=True,
                       transposed=True)
    return Operand(sym, node, _labels(node.shape[0]), _labels(node.shape[1]), given=True)


def _through_weight(b: Any, h: Any, d_part: V.Node, part_sym: sympy.MatrixSymbol, part_step: str, tgt: str,
                    w: str, wsym: sympy.MatrixSymbol, title: str) -> V.Node:
    """dX = dX_a W_aᵀ (X = Q or K): back through the weights."""
    wr = b.inputs.input(w)
    node = V.matmul(d_part, V.transpose(wr))
    ops = {"A": b.row_op(b.step(h.name(part_step)), part_sym), "W": _weight_op(b, w, wsym, transpose=True)}
    return _add(b, h, "d" + tgt, title, part_sym * wsym.T, node, ops, R.product("A", "W", wr.shape[1]),
                like=b.fwd(h.name(tgt)))


def _weight_grad(b: Any, h: Any, src: str, d_part: V.Node, part_sym: sympy.MatrixSymbol, part_step: str,
                 w: str, title: str) -> None:
    """dW = Xᵀ dX_a (row form (d_in, d_out)), shown as the file stores W."""
    x = b.fwd(h.name(src)).value
    node = V.matmul(V.transpose(x), d_part)
    X = h.sym(src)
    ops = {"XT": b.op(b.fwd(h.name(src)), X.T, transpose=not b.fwd(h.name(src)).transposed),
           "A": b.row_op(b.step(h.name(part_step)), part_sym)}
    st = b.spec.stored_transposed(w)
    _add(b, h, "d" + w, title, X.T * part_sym, node, ops, R.product("XT", "A", x.shape[0]),
         rows=_labels(node.shape[0]) if not st else _labels(node.shape[1]),
         cols=_labels(node.shape[1]) if not st else _labels(node.shape[0]), shown_t=st)


def _dtau(b: Any, h: Any, logits: str, sym: sympy.MatrixSymbol) -> None:
    """∂L/∂τ = ⟨dS, S⟩ with S the unscaled scores (general) or energies (additive)."""
    dst, sst = b.step(h.name("dS")), b.fwd(h.name(logits))
    n, m = dst.shape
    L = sympy.Symbol("L")
    b.add(h.name("dtau"), "gradient of the scale τ", sympy.Eq(Partial(L, TAU), Inner(h.sym("dS"), sym), evaluate=False),
          V.total(V.elementwise("mul", h.dS, sst.value)), rows=["1"], cols=["1"],
          operands={"G": b.op(dst, h.sym("dS")), "S": b.op(sst, sym)},
          rule=R.total(lambda at, r, c: R.times(at("G", r, c), at("S", r, c)), n, m), symbol=Partial(L, TAU),
          entry_name=h.entry("dtau"))


def grad_general(b: Any, h: Any) -> None:
    """dQ_a = τ dS K, dQ = dQ_a W_aᵀ, dK = τ dSᵀ Q_a, dW_a = Qᵀ dQ_a, ∂L/∂τ = ⟨dS, S⟩."""
    if h.dS is None:
        return
    tau = b.tau(h.prefix)
    dst = b.step(h.name("dS"))
    qa_st, k_st = b.fwd(h.name("Q_a")), b.fwd(h.name("K"))
    dS, K, Qa, dQa = h.sym("dS"), h.sym("K"), matrix("Q_a"), matrix("dQ_a")
    d_qa = V.scale(V.matmul(h.dS, k_st.value), tau)
    ops = {"G": b.op(dst, dS), "K": b.row_op(k_st, K)}
    _add(b, h, "dQ_a", "gradient of the queries through W_a", TAU * dS * K, d_qa, ops,
         R.product("G", "K", dst.shape[1], factor=tau if tau != 1 else None), like=qa_st)
    h.dQ = _through_weight(b, h, d_qa, dQa, "dQ_a", "Q", "Wa", matrix("W_a"), "gradient of the queries")
    dk = V.scale(V.matmul(V.transpose(h.dS), qa_st.value), tau)
    ops = {"GT": b.op(dst, dS.T, transpose=True), "A": b.row_op(qa_st, Qa)}
    h.dK = _add(b, h, "dK", "gradient of the keys", TAU * dS.T * Qa, dk, ops,
                R.product("GT", "A", dst.shape[0], factor=tau if tau != 1 else None), like=k_st)
    _weight_grad(b, h, "Q", d_qa, dQa, "dQ_a", "Wa", "gradient of W_a")
    _dtau(b, h, "scores", h.sym("S"))


def grad_additive(b: Any, h: Any) -> None:
    """dE = τ dS, then through tanh: dQ_a, dK_a, dv_a; then dQ, dK, dW_a, dU_a; ∂L/∂τ = ⟨dS, E⟩."""
    if h.dS is None:
        return
    tau = b.tau(h.prefix)
    dst = b.step(h.name("dS"))
    est = b.fwd(h.name("energies"))
    qa_st, ka_st = b.fwd(h.name("Q_a")), b.fwd(h.name("K_a"))
    qa, ka, va = qa_st.value, ka_st.value, b.inputs.input("va")
    dS, dE = h.sym("dS"), h.sym("dE")
    de = V.scale(h.dS, tau)
    _add(b, h, "dE", "gradient of the energies", TAU * dS, de, {"G": b.op(dst, dS)},
         R.scale("G", factor=tau), like=est)
    dest = b.step(h.name("dE"))
    n, m = dest.shape
    da = qa.shape[1]
    ops = {"dE": b.op(dest, dE), "A": b.row_op(qa_st, matrix("Q_a")), "B": b.row_op(ka_st, matrix("K_a")),
           "va": Operand(matrix("v_a"), va, ["1"], _labels(da), given=True)}

    def sech2(at: Lookup, i: int, j: int, t: int) -> sympy.Basic:
        th = sympy.tanh(R.plus(at("A", i, t), at("B", j, t)), evaluate=False)
        return R.minus(sympy.Integer(1), sympy.Pow(th, 2, evaluate=False))

    def rule_a(at: Lookup, i: int, t: int) -> Worked:
        return Worked([R.plus(*[R.times(at("dE", i, j), at("va", 0, t), sech2(at, i, j, t)) for j in range(m)])])

    def rule_b(at: Lookup, j: int, t: int) -> Worked:
        return Worked([R.plus(*[R.times(at("dE", i, j), at("va", 0, t), sech2(at, i, j, t)) for i in range(n)])])

    def rule_v(at: Lookup, _: int, t: int) -> Worked:
        return Worked([R.plus(*[R.times(at("dE", i, j), sympy.tanh(R.plus(at("A", i, t), at("B", j, t)),
                                                                     evaluate=False))
                                for i in range(n) for j in range(m)])])

    eb, vb, hb = sympy.IndexedBase("dE"), sympy.IndexedBase(sympy.Symbol("v_a")), sympy.IndexedBase("h")
    i, j, t = sympy.symbols("i j t", integer=True)
    sech = 1 - sympy.tanh(hb[i, j, t]) ** 2
    d_qa = V.additive_grad("a", qa, ka, va, de)
    b.add(h.name("dQ_a"), "gradient of W_a·qᵢ (through tanh: 1 − tanh²)",
          sympy.Eq(sympy.IndexedBase("dQ_a")[i, t], sympy.Sum(eb[i, j] * vb[t] * sech, (j, 1, sympy.Symbol("n"))),
                   evaluate=False), d_qa, like=qa_st, operands=ops,
          rule=(lambda at, r, c: rule_a(at, c, r)) if qa_st.transposed else rule_a, symbol=matrix("dQ_a"),
          entry_name="dQ_a")
    d_ka = V.additive_grad("b", qa, ka, va, de)
    b.add(h.name("dK_a"), "gradient of U_a·kⱼ (through tanh: 1 − tanh²)",
          sympy.Eq(sympy.IndexedBase("dK_a")[j, t], sympy.Sum(eb[i, j] * vb[t] * sech, (i, 1, sympy.Symbol("n"))),
                   evaluate=False), d_ka, like=ka_st, operands=ops,
          rule=(lambda at, r, c: rule_b(at, c, r)) if ka_st.transposed else rule_b, symbol=matrix("dK_a"),
          entry_name="dK_a")
    dva = V.additive_grad("va", qa, ka, va, de)
    b.add(h.name("dva"), "gradient of v_a", sympy.Eq(sympy.IndexedBase("dv_a")[t], sympy.Sum(
        eb[i, j] * sympy.tanh(hb[i, j, t]), (i, 1, sympy.Symbol("n")), (j, 1, sympy.Symbol("m"))), evaluate=False),
        dva, rows=["1"], cols=_labels(da), operands=ops, rule=rule_v, symbol=matrix("dv_a"), entry_name="dv_a")
    h.dQ = _through_weight(b, h, d_qa, matrix("dQ_a"), "dQ_a", "Q", "Wa", matrix("W_a"), "gradient of the queries")
    h.dK = _through_weight(b, h, d_ka, matrix("dK_a"), "dK_a", "K", "Ua", matrix("U_a"), "gradient of the keys")
    _weight_grad(b, h, "Q", d_qa, matrix("dQ_a"), "dQ_a", "Wa", "gradient of W_a")
    _weight_grad(b, h, "K", d_ka, matrix("dK_a"), "dK_a", "Ua", "gradient of U_a")
    _dtau(b, h, "energies", h.sym("E_a"))


def grad_linear(b: Any, h: Any) -> None:
    """Linear attention, O = P V with P = A / rowsum(A), A = φ(Q)φ(K)ᵀ (∘ M causal):
    D = rowsum(P ∘ dP), dA = (dP − D 1ᵀ) / rowsum(A) (∘ M), dφ(Q) = dA φ(K), dφ(K) = dAᵀ φ(Q),
    dQ = dφ(Q) ∘ φ′(Q), dK = dφ(K) ∘ φ′(K) (φ′ = 1 for x > 0, eˣ for x ≤ 0; 1 for the identity)."""
    pst, dpst, nst = b.fwd(h.name("weights")), b.step(h.name("dP")), b.fwd(h.name("normaliser"))
    P, dP, D, dA, r = h.sym("P"), h.sym("dP"), h.sym("D"), h.sym("dA"), matrix("r")
    n, m = pst.shape
    d_node = V.row_dots(pst.value, dpst.value)
    b.add(h.name("D"), "row sums of P ∘ dP", sympy.Eq(D, sympy.Function("rowsum")(sympy.HadamardProduct(P, dP)),
                                                    evaluate=False), d_node,
          rows=pst.row_labels, cols=["1"], operands={"P": b.op(pst, P), "dP": b.op(dpst, dP)},
          rule=lambda at, i, _: Worked([R.plus(*[R.times(at("P", i, k), at("dP", i, k)) for k in range(m)])]),
          symbol=D, entry_name=h.entry("D"))
    causal = b.conv.mask == "causal"
    da = V.row_divide(V.elementwise("sub", dpst.value, d_node), nst.value, " (the normaliser of linear attention)")
    if causal:
        da = V.elementwise("mul", da, V.lower_ones(n, m))
    dst = b.step(h.name("D"))

    def rule_a(at: Lookup, i: int, j: int) -> Worked:
        if causal and j > i:
            return Worked([sympy.Integer(0)], "masked (causal)")
        return Worked([R.over(R.minus(at("dP", i, j), at("D", i, 0)), at("r", i, 0))])

    rhs = sympy.Inverse(Diag(r)) * sympy.MatAdd(dP, -D * Ones(row=True), evaluate=False)
    if causal:
        rhs = sympy.HadamardProduct(rhs, matrix("M"))
    b.add(h.name("dA"), "gradient of the scores φ(qᵢ)·φ(kⱼ) (the division by the row sum, backward)",
          sympy.Eq(dA, rhs, evaluate=False), da, like=pst,
          operands={"dP": b.op(dpst, dP), "D": b.op(dst, D), "r": b.op(nst, r)}, rule=rule_a, symbol=dA,
          entry_name=h.entry("dA"), notes=[["r is the normaliser φ(qᵢ)·Σⱼ φ(kⱼ) (the row sum of the similarities)"
                                            + ("; 0 where the causal mask drops the pair" if causal else "")]])
    dast = b.step(h.name("dA"))
    fm = b.conv.feature_map
    for tgt, other, d_sim in (("Q", "K", da), ("K", "Q", V.transpose(da))):
        ost, tst = b.fwd(h.name(f"phi{other}")), b.fwd(h.name(f"phi{tgt}"))
        osym = matrix(f"phi_{other}")
        node = V.matmul(d_sim, ost.value)
        ops = {"G": b.op(dast, dA.T if tgt == "K" else dA, transpose=tgt == "K"), "F": b.row_op(ost, osym)}
        inner = m if tgt == "Q" else n
        dphi = _add(b, h, f"dphi{tgt}", f"gradient of the features φ({tgt})", (dA.T if tgt == "K" else dA) * osym,
                    node, ops, R.product("G", "F", inner), like=tst)
        x_st = b.fwd(h.name(tgt))
        dsym = h.sym(f"dphi{tgt}")
        if fm == "identity":
            out = dphi
            rule = R.copy("G", lambda i, j: (i, j))
            ops2 = {"G": b.row_op(b.step(h.name(f"dphi{tgt}")), dsym)}
            rhs2: sympy.Basic = dsym
        else:
            deriv = V.feature_map_derivative(x_st.value)
            out = V.elementwise("mul", dphi, deriv)
            ops2 = {"G": b.row_op(b.step(h.name(f"dphi{tgt}")), dsym), "X": b.row_op(x_st, h.sym(tgt))}

            def rule(at: Lookup, i: int, j: int, x_st: Any = x_st) -> Worked:
                row = x_st.value.entry(i, j)
                if row.is_positive:
                    return Worked([at("G", i, j)], "x > 0: the derivative of φ is 1")
                return Worked([R.times(at("G", i, j), sympy.Pow(sympy.E, at("X", i, j), evaluate=False))],
                              "x ≤ 0: the derivative of φ is e to the x")
            rhs2 = sympy.HadamardProduct(dsym, matrix(f"J_{tgt}"))  # J = φ′(X), named in the step's note
        node_out = _add(b, h, "d" + tgt, f"gradient of the {'queries' if tgt == 'Q' else 'keys'}", rhs2, out, ops2,
                        rule, like=x_st)
        if fm != "identity":
            b.steps[-1].notes.append([f"J_{tgt} = the derivative of φ at each entry x of {tgt}: 1 where x > 0, ",
                                      sympy.exp(sympy.Symbol("x")), " where x ≤ 0"])
        if tgt == "Q":
            h.dQ = node_out
        else:
            h.dK = node_out


GRADIENTS: dict[str, list[Callable[[Any, Any], None]]] = {"general": [grad_general], "additive": [grad_additive],
                                                         "linear": [grad_linear]}
