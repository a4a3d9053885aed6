"""The attention backward pass, derived step by step with the same step model as the forward pass.

For a scalar loss L with upstream gradient dO = ∂L/∂O (FlashAttention notation,
Dao et al. 2022, App. B.2; the scale τ as in the reference implementation):

    dV = Pᵀ dO,  dP = dO Vᵀ,  D = rowsum(dO ∘ O),  dS = P ∘ (dP − D 1ᵀ),
    dQ = τ dS K,  dK = τ dSᵀ Q,  ∂L/∂τ = ⟨dS, QKᵀ⟩,  dB = dS,

then through the projections for each layout (row: dW_q = Xᵀ dQ) to dX. Each step is one
small function of :data:`HEAD_GRADIENTS` (per head) or of the projections, with the same
:class:`~symattn.pipeline.steps.Step` model as the forward pass: a formula (as the step
is shown, so in the column layout dV = dO P), an entry rule (dSᵢⱼ = pᵢⱼ(dPᵢⱼ − Dᵢ)), the
value. τ is read from the forward pass's ``scaled`` step.

With a focus query the loss is that of the focus row (the output ``derive`` shows), and a
given target or upstream gradient has that row's shape.

>>> import symattn as sa
>>> g = sa.grad(sa.derive(sa.load("illustrated_self_attention")), loss="sum")
>>> g["dV"].decimals(6)[0]
['0.0636804', '0.0636804', '0.0636804']
>>> import sympy   # 1ᵀ dV = 1ᵀ dO: the weights of each row sum to 1
>>> sympy.simplify(sum(g["dV"].exact.col(0)) - 3)
0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import sympy

from ..errors import OptionError, SymattnError
from ..exact import nodes as V
from ..read.numbers import did_you_mean
from ..read.spec import GivenMatrix, read_matrix
from . import positions as PS
from . import rules as R
from . import scores as variant_scores
from .forward import Builder, input_node, num_labels
from .loss import LOSSES, loss_value, upstream_gradient
from .notation import TAU, Chain, ColSum, Columns, Concat, Inner, Ones, Partial, RowSum, matrix
from .steps import Derivation, Lookup, Operand, Rule, Step, Worked

__all__ = ["grad", "Gradient", "LOSSES", "WRT", "HEAD_GRADIENTS"]

#: what ``wrt`` may name, and the step that holds its gradient
WRT = {"O": "dO", "V": "dV", "P": "dP", "S": "dS", "Q": "dQ", "K": "dK", "tau": "dtau", "B": "dB",
       "scores": "dscores", "X": "dX", "X_kv": "dX_kv", "Wq": "dWq", "Wk": "dWk", "Wv": "dWv", "Wo": "dWo",
       "bq": "dbq", "bk": "dbk", "bv": "dbv", "bo": "dbo",
       "Wa": "dWa", "Ua": "dUa", "va": "dva"}  # the general and additive scores (pipeline/scores_backward.py)


class Gradient(Derivation):
    """The backward steps of a derivation; ``g["dQ"]`` gives a step. Views (text, JSON,
    LaTeX) are the forward pass's."""

    def __init__(self, forward: Derivation, steps: list[Step], default: list[str], loss: str,
                 target: object = None, upstream: object = None, given: V.Node | None = None,
                 focus: str | None = None) -> None:
        conv = dict(forward.convention)
        conv["loss"] = loss
        super().__init__(forward.spec, steps, default, None, conv)
        self.forward = forward
        self.loss = loss
        self.target, self.upstream = target, upstream  # as given to grad()
        self.given = given  # the target T or the upstream dO, in row form (all rows)
        self.focus = focus  # the focus query whose loss this is, or None for every row

    @property
    def title(self) -> str:
        return f"{self.spec.title}: gradients ({self.loss}" + (f", row {self.focus}" if self.focus else "") + ")"

    def loss_of(self, output: V.Node) -> V.Node:
        """The loss of another derivation's output (row form, every row) as this gradient
        defines it (the same loss, given matrix and focus row): for verification."""
        focus = self.spec.query_labels().index(self.focus) if self.focus is not None else None
        return loss_value(self.loss, output, self.given, focus)


@dataclass
class HeadGrad:
    """What the gradient functions of one head read and update."""

    prefix: str
    number: int | None
    d_o: V.Node
    dS: V.Node | None = None
    dQ: V.Node | None = None
    dK: V.Node | None = None
    dV: V.Node | None = None

    def name(self, step: str) -> str:
        return self.prefix + step

    def sym(self, name: str) -> sympy.MatrixSymbol:
        return matrix(name if self.number is None else f"{name}_{self.number}")

    def entry(self, name: str) -> str:
        return name if self.number is None else f"{name}^({self.number})"


class Backward:
    """Builds the gradient steps from a forward derivation."""

    def __init__(self, d: Derivation) -> None:
        self.d = d
        self.spec = d.spec
        self.conv = d.spec.convention
        self.layout = self.conv.layout
        self.col = self.layout == "column"
        self.inputs = Builder(d.spec, None)  # the inputs as written and in row form (one layout rule)
        self.steps: list[Step] = []
        self.focus: str | None = None  # the focus query's label: its row is the one written out

    def fwd(self, name: str) -> Step:
        return self.d[name]

    def step(self, name: str) -> Step:
        for st in reversed(self.steps):
            if st.name == name:
                return st
        raise KeyError(name)  # pragma: no cover

    def add(self, name: str, title: str, formula: sympy.Basic, node: V.Node, *, like: Step | None = None,
            rows: Sequence[str] | None = None, cols: Sequence[str] | None = None, tokens_as_columns: bool = False,
            operands: dict[str, Operand] | None = None, rule: Rule | None = None, symbol: sympy.Basic | None = None,
            entry_name: str = "", notes: list | None = None, given: bool = False) -> V.Node:
        """Add a gradient step (row-form ``node``), shown like the forward value it belongs to."""
        if like is not None:
            rows = like.row_labels if not like.transposed else like.col_labels
            cols = like.col_labels if not like.transposed else like.row_labels
            tokens_as_columns = like.transposed
        assert rows is not None and cols is not None
        node.name_as(name, list(rows), list(cols))
        shown = V.transpose(node) if tokens_as_columns else node
        r, c = (cols, rows) if tokens_as_columns else (rows, cols)
        shown.name_as(name, list(r), list(c))
        example = (0, 0)
        queries = self.spec.query_labels()
        if self.focus is not None and list(r) == queries:
            example = (queries.index(self.focus), 0)
        elif self.focus is not None and list(c) == queries:
            example = (0, queries.index(self.focus))
        self.steps.append(Step(name, title, formula, shown, list(r), list(c), symbol=symbol, entry_name=entry_name,
                               operands=dict(operands or {}), rule=rule, example=example, notes=list(notes or []),
                               given=given, transposed=tokens_as_columns, row_node=node))
        return node

    def op(self, st: Step, symbol: sympy.Basic, transpose: bool = False) -> Operand:
        """A step (forward or backward) as an operand, as shown or transposed."""
        if transpose:
            return Operand(symbol, V.transpose(st.node), st.col_labels, st.row_labels, st.entry_name, st.given,
                           transposed=True)
        return Operand(symbol, st.node, st.row_labels, st.col_labels, st.entry_name, st.given)

    def row_op(self, st: Step, symbol: sympy.Basic) -> Operand:
        """A step as an operand in row form (tokens as rows), whatever the layout."""
        return self.op(st, symbol, transpose=st.transposed)

    def tau(self, prefix: str) -> sympy.Expr:
        """τ as the forward pass applied it (its ``scaled`` step)."""
        return self.fwd(prefix + "scaled").params["tau"]

    def keep(self, prefix: str) -> V.Node | None:
        """Zero where a finite mask value replaced the score (no gradient flows through it)."""
        _, replaced = self.spec.masked_pairs()
        if not replaced:
            return None
        n, m = self.fwd(prefix + "weights").value.shape
        return V.rational_matrix([[0 if (i, j) in replaced else 1 for j in range(m)] for i in range(n)])


# ---------------------------------------------------------------------------------------
# one head: dV, dP, D, dS, dB, dscores, dQ, dK, dtau


def grad_values(b: Backward, h: HeadGrad) -> None:
    """dV = Pᵀ dO (column layout, as shown: dV = dO P)."""
    P, dO, dV = h.sym("P"), h.sym("dO"), h.sym("dV")
    pst, vst, dost = b.fwd(h.name("weights")), b.fwd(h.name("V")), b.step(h.name("dO"))
    if not b.col:
        ops, rhs = {"A": b.op(pst, P.T, transpose=True), "B": b.op(dost, dO)}, P.T * dO
    else:
        ops, rhs = {"A": b.op(dost, dO), "B": b.op(pst, P)}, dO * P
    h.dV = b.add(h.name("dV"), "gradient of the values", sympy.Eq(dV, rhs, evaluate=False),
                 V.matmul(V.transpose(pst.value), h.d_o), like=vst, operands=ops,
                 rule=R.product("A", "B", pst.shape[0]), symbol=dV, entry_name=h.entry("dV"))


def grad_weights(b: Backward, h: HeadGrad) -> None:
    """dP = dO Vᵀ (column layout: dOᵀ V)."""
    dO, Vs, dP = h.sym("dO"), h.sym("V"), h.sym("dP")
    vst, dost, pst = b.fwd(h.name("V")), b.step(h.name("dO")), b.fwd(h.name("weights"))
    if not b.col:
        ops, rhs = {"A": b.op(dost, dO), "B": b.op(vst, Vs.T, transpose=True)}, dO * Vs.T
    else:
        ops, rhs = {"A": b.op(dost, dO.T, transpose=True), "B": b.op(vst, Vs)}, dO.T * Vs
    b.add(h.name("dP"), "gradient of the weights", sympy.Eq(dP, rhs, evaluate=False),
          V.matmul(h.d_o, V.transpose(vst.value)), like=pst, operands=ops,
          rule=R.product("A", "B", vst.value.shape[1]), symbol=dP, entry_name=h.entry("dP"))


def grad_rowsums(b: Backward, h: HeadGrad) -> None:
    """D = rowsum(P ∘ dP) = rowsum(dO ∘ O); over queries the column sums of P ∘ dP. D and dS are
    built together (:func:`~symattn.exact.nodes.softmax_backward`), so that the rows of dS
    provably sum to 0."""
    pst, dpst = b.fwd(h.name("weights")), b.step(h.name("dP"))
    D, P, dP = h.sym("D"), h.sym("P"), h.sym("dP")
    h.dS, node = V.softmax_backward(pst.value, dpst.value, b.conv.softmax_axis)
    n, m = pst.shape
    if b.conv.softmax_axis == "keys":
        ost, dost = b.fwd(h.name("output")), b.step(h.name("dO"))
        dO, O = h.sym("dO"), h.sym("O")
        width = ost.value.shape[1]

        def rule(at: Lookup, i: int, j: int) -> Worked:
            return Worked([R.plus(*[R.times(at("P", i, k), at("dP", i, k)) for k in range(m)]),
                           R.plus(*[R.times(at("G", i, t), at("O", i, t)) for t in range(width)])])

        b.add(h.name("D"), "row sums of P ∘ dP (= row sums of dO ∘ O)",
              Chain(D, RowSum(sympy.HadamardProduct(P, dP)), RowSum(sympy.HadamardProduct(dO, O))), node,
              rows=pst.row_labels, cols=["1"], operands={"P": b.op(pst, P), "dP": b.op(dpst, dP),
                                                         "G": b.row_op(dost, dO), "O": b.row_op(ost, O)},
              rule=rule, symbol=D, entry_name=h.entry("D"))
        return

    def col_rule(at: Lookup, i: int, j: int) -> Worked:
        return Worked([R.plus(*[R.times(at("P", r, j), at("dP", r, j)) for r in range(n)])])

    b.add(h.name("D"), "column sums of P ∘ dP", sympy.Eq(D, ColSum(sympy.HadamardProduct(P, dP)), evaluate=False),
          node, rows=["1"], cols=pst.col_labels, operands={"P": b.op(pst, P), "dP": b.op(dpst, dP)},
          rule=col_rule, symbol=D, entry_name=h.entry("D"))


def grad_scores(b: Backward, h: HeadGrad) -> None:
    """dS = P ∘ (dP − D 1ᵀ): dSᵢⱼ = pᵢⱼ(dPᵢⱼ − Dᵢ); zero where a finite mask value replaced a score."""
    pst, dpst, dst = b.fwd(h.name("weights")), b.step(h.name("dP")), b.step(h.name("D"))
    P, dP, D, dS = h.sym("P"), h.sym("dP"), h.sym("D"), h.sym("dS")
    keys = b.conv.softmax_axis == "keys"
    assert h.dS is not None  # from grad_rowsums
    node = h.dS
    keep = b.keep(h.prefix)
    replaced = b.spec.masked_pairs()[1] if keep is not None else set()
    if keep is not None:
        node = V.elementwise("mul", node, keep)
    if keys:
        rhs = sympy.HadamardProduct(P, sympy.MatAdd(dP, -D * Ones(row=True), evaluate=False))
    else:
        rhs = sympy.HadamardProduct(P, sympy.MatAdd(dP, -Ones() * D, evaluate=False))

    def rule(at: Lookup, i: int, j: int) -> Worked:
        if (i, j) in replaced:
            return Worked([sympy.Integer(0)], "masked: the mask value replaced the score")
        d = at("D", i, 0) if keys else at("D", 0, j)
        return Worked([R.times(at("P", i, j), R.minus(at("dP", i, j), d))])

    h.dS = b.add(h.name("dS"), "gradient of the scores (softmax backward)", sympy.Eq(dS, rhs, evaluate=False), node,
                 like=pst, operands={"P": b.op(pst, P), "dP": b.op(dpst, dP), "D": b.op(dst, D)}, rule=rule,
                 symbol=dS, entry_name=h.entry("dS"))


def grad_bias(b: Backward, h: HeadGrad) -> None:
    """dB = dS (with an additive score bias)."""
    if b.spec.score_bias is None or h.dS is None:
        return
    dst = b.step(h.name("dS"))
    dB, dS = h.sym("dB"), h.sym("dS")
    b.add(h.name("dB"), "gradient of the score bias", sympy.Eq(dB, dS, evaluate=False), h.dS, like=dst,
          operands={"S": b.op(dst, dS)}, rule=R.copy("S", lambda i, j: (i, j)), symbol=dB, entry_name=h.entry("dB"))


def grad_given_scores(b: Backward, h: HeadGrad) -> None:
    """∂L/∂S = τ dS for an example that starts from given scores."""
    if h.name("Q") in b.d or h.dS is None:
        return
    tau = b.tau(h.prefix)
    dst = b.step(h.name("dS"))
    lhs = sympy.Symbol("dS_raw")
    b.add("dscores", "gradient of the given scores",
          sympy.Eq(Partial(sympy.Symbol("L"), matrix("S")), TAU * h.sym("dS"), evaluate=False), V.scale(h.dS, tau),
          like=dst, operands={"S": b.op(dst, h.sym("dS"))}, rule=R.scale("S", factor=tau), symbol=lhs,
          entry_name="dS_raw")


def _through_scores(b: Backward, h: HeadGrad, tgt: str) -> V.Node | None:
    """dQ = τ dS K or dK = τ dSᵀ Q (column layout, as shown: τ K dSᵀ, τ Q dS); τ is applied to
    the (smaller) product."""
    if h.name("Q") not in b.d or h.dS is None:
        return None
    other = "K" if tgt == "Q" else "Q"
    tau = b.tau(h.prefix)
    rot = "_rot" if h.name(tgt + "_rot") in b.d else ""  # RoPE: the gradient of the rotated Q, K first
    tst, ost, dst = b.fwd(h.name(tgt + rot)), b.fwd(h.name(other + rot)), b.step(h.name("dS"))
    dY, dS, M = matrix("d" + tst.symbol.name), h.sym("dS"), ost.symbol
    ds_t = tgt == "K"  # dK uses dSᵀ (row layout)
    if not b.col:
        ops = {"A": b.op(dst, dS.T if ds_t else dS, transpose=ds_t), "B": b.op(ost, M)}
        rhs = TAU * (dS.T if ds_t else dS) * M
    else:
        ops = {"A": b.op(ost, M), "B": b.op(dst, dS if ds_t else dS.T, transpose=not ds_t)}
        rhs = TAU * M * (dS if ds_t else dS.T)
    # the inner index runs over the other operand's tokens (row form): keys for dQ, queries for dK
    ds_row = V.transpose(h.dS) if ds_t else h.dS
    return b.add(h.name("d" + tgt + rot), f"gradient of the {'queries' if tgt == 'Q' else 'keys'}"
                 + (" (rotated)" if rot else ""),
                 sympy.Eq(dY, rhs, evaluate=False), V.scale(V.matmul(ds_row, ost.value), tau), like=tst,
                 operands=ops, rule=R.product("A", "B", ost.value.shape[0], factor=tau),
                 symbol=dY, entry_name=h.entry("d" + tgt) + ("^rot" if rot else ""))


def grad_queries(b: Backward, h: HeadGrad) -> None:
    """dQ = τ dS K."""
    h.dQ = _through_scores(b, h, "Q")


def grad_keys(b: Backward, h: HeadGrad) -> None:
    """dK = τ dSᵀ Q."""
    h.dK = _through_scores(b, h, "K")


def grad_scale(b: Backward, h: HeadGrad) -> None:
    """∂L/∂τ = ⟨dS, Q Kᵀ⟩ = Σᵢⱼ dSᵢⱼ sᵢⱼ."""
    if h.name("Q") not in b.d or h.dS is None:
        return
    dst, sst = b.step(h.name("dS")), b.fwd(h.name("scores"))
    n, m = dst.shape
    L = sympy.Symbol("L")
    b.add(h.name("dtau"), "gradient of the scale τ", sympy.Eq(Partial(L, TAU), Inner(h.sym("dS"), sst.formula.rhs),
                                                               evaluate=False),
          V.total(V.elementwise("mul", h.dS, sst.value)), rows=["1"], cols=["1"],
          operands={"G": b.op(dst, h.sym("dS")), "S": b.op(sst, h.sym("S"))},
          rule=R.total(lambda at, r, c: R.times(at("G", r, c), at("S", r, c)), n, m), symbol=Partial(L, TAU),
          entry_name=h.entry("dtau"))


#: the gradient steps of one head, in order; a variant adds its own (e.g. through RoPE)
HEAD_GRADIENTS: list[Callable[[Backward, HeadGrad], None]] = [
    grad_values, grad_weights, grad_rowsums, grad_scores, grad_bias, grad_given_scores, grad_queries, grad_keys,
    PS.grad_rope, grad_scale]


def run_head(b: Backward, h: HeadGrad) -> HeadGrad:
    for fn in variant_scores.head_gradients(HEAD_GRADIENTS, b.conv):
        fn(b, h)
    return h


# ---------------------------------------------------------------------------------------
# the loss, several heads, projections, inputs


def loss_steps(b: Backward, loss: str, given: V.Node | None, focus: int | None) -> V.Node:
    """L and dO = ∂L/∂O (only the focus row's output counts when there is one)."""
    out = b.fwd("output")
    O = out.value
    spec = LOSSES[loss]
    tokens = out.row_labels if not out.transposed else out.col_labels
    cols = num_labels(O.shape[1])
    if focus is not None:
        O_used, labels = V.rows(O, [focus]), [tokens[focus]]
        g_used = V.rows(given, [focus]) if given is not None else None
    else:
        O_used, g_used, labels = O, given, tokens
    L = loss_value(loss, O_used, g_used)
    d_used = upstream_gradient(loss, O_used, g_used)
    d_o = d_used if focus is None else _embed_row(d_used, focus, O.shape[0])
    key, gsym = ("T", matrix("T")) if loss == "mse" else ("G", matrix("dO"))
    lops = {"O": Operand(matrix("O"), O_used, labels, cols, out.entry_name)}
    if g_used is not None:
        lops[key] = Operand(gsym, g_used, labels, cols, given=True)
    notes: list = []
    if focus is not None:
        notes.append([f"the loss of the focus row {tokens[focus]} (the output derive shows); dO is 0 in the "
                      "other rows"])
    b.add("loss", "the loss", spec.formula, L, rows=["1"], cols=["1"], operands=lops,
          rule=spec.value_rule(*O_used.shape), symbol=sympy.Symbol("L"), entry_name="L", notes=notes)
    dops = {"O": b.op(out, matrix("O"))}
    if given is not None:
        dops[key] = Operand(gsym, V.transpose(given) if out.transposed else given, out.row_labels, out.col_labels,
                            given=True)
    rule = spec.gradient_rule()
    if focus is not None:
        rule = _focus_rule(rule, focus, out.transposed)
    return b.add("dO", "upstream gradient", spec.gradient, d_o, like=out, operands=dops, rule=rule,
                 symbol=matrix("dO"), entry_name="dO", given=loss != "mse")


def _embed_row(row: V.Node, i: int, n: int) -> V.Node:
    """An n-row matrix that is ``row`` in row i and 0 elsewhere."""
    parts = []
    w = row.shape[1]
    if i > 0:
        parts.append(V.rational_matrix([[0] * w for _ in range(i)]))
    parts.append(row)
    if i < n - 1:
        parts.append(V.rational_matrix([[0] * w for _ in range(n - 1 - i)]))
    return V.transpose(V.concat([V.transpose(p) for p in parts])) if len(parts) > 1 else row


def _focus_rule(rule: Rule, focus: int, transposed: bool) -> Rule:
    def r(at: Lookup, i: int, j: int) -> Worked:
        row = j if transposed else i
        if row != focus:
            return Worked([sympy.Integer(0)], "not the focus row")
        return rule(at, i, j)
    return r


def multi_head(b: Backward, d_o: V.Node) -> list[HeadGrad]:
    """W_O's gradients, dConcat, and each head's share of it, then each head's gradients."""
    spec, lay = b.spec, b.layout
    cat = b.fwd("concat")
    dost = b.step("dO")
    dO, C = matrix("dO"), matrix("Concat")
    if "Wo" in spec.inputs:
        W = matrix("W^O")
        dW = matrix("dW^O")
        dWo = V.matmul(V.transpose(cat.value), d_o)
        if lay == "row":
            ops, rhs = {"A": b.op(cat, C.T, transpose=True), "B": b.op(dost, dO)}, C.T * dO
        elif lay == "torch":
            ops, rhs = {"A": b.op(dost, dO.T, transpose=True), "B": b.op(cat, C)}, dO.T * C
        else:
            ops, rhs = {"A": b.op(dost, dO), "B": b.op(cat, C.T, transpose=True)}, dO * C.T
        b.add("dWo", "gradient of Wo", sympy.Eq(dW, rhs, evaluate=False), dWo, rows=num_labels(dWo.shape[0]),
              cols=num_labels(dWo.shape[1]), tokens_as_columns=lay != "row", operands=ops,
              rule=R.product("A", "B", cat.value.shape[0]), symbol=dW, entry_name="dW^O")
        if "bo" in spec.inputs:
            _bias_grad(b, "dbo", "gradient of bo", "O", dost, d_o)
        wo_written = b.inputs.written["Wo"]
        if lay == "row":
            ops = {"A": b.op(dost, dO), "B": Operand(W.T, V.transpose(wo_written), num_labels(wo_written.shape[1]),
                                                      num_labels(wo_written.shape[0]), given=True, transposed=True)}
            rhs = dO * W.T
        elif lay == "torch":
            ops, rhs = {"A": b.op(dost, dO), "B": b.inputs.input_operand("Wo", W)}, dO * W
        else:
            ops = {"A": b.inputs.input_operand("Wo", W.T, transpose=True), "B": b.op(dost, dO)}
            rhs = W.T * dO
        d_cat = b.add("dConcat", "gradient of the concatenated heads", sympy.Eq(matrix("dConcat"), rhs, evaluate=False),
                      V.matmul(d_o, V.transpose(b.inputs.input("Wo"))), like=cat, operands=ops,
                      rule=R.product("A", "B", d_o.shape[1]), symbol=matrix("dConcat"), entry_name="dConcat")
    else:
        d_cat = d_o
    dv = spec.d_v
    hs = []
    for i in range(b.conv.heads):
        h = HeadGrad(f"head{i + 1}.", i + 1, d_o)
        src = b.step("dConcat") if "Wo" in spec.inputs else dost
        off = i * dv
        shift = (lambda r, c, off=off: (r + off, c)) if b.col else (lambda r, c, off=off: (r, c + off))
        h.d_o = b.add(h.name("dO"), f"head {i + 1}: its share of the upstream gradient",
                      sympy.Eq(h.sym("dO"), Columns(src.symbol, off + 1, off + dv, rows=b.col), evaluate=False),
                      V.columns(d_cat, off, off + dv), like=b.fwd(h.name("output")),
                      operands={"A": b.op(src, src.symbol)}, rule=R.copy("A", shift), symbol=h.sym("dO"),
                      entry_name=h.entry("dO"))
        hs.append(run_head(b, h))
    return hs


def _bias_grad(b: Backward, name: str, title: str, tgt: str, dyst: Step, dY: V.Node) -> None:
    """db = 1ᵀ dY: the column sums of dY (row form)."""
    dY_sym = dyst.symbol if dyst.symbol is not None else matrix("d" + tgt)
    n = dY.shape[0]
    sym = matrix(f"db^{tgt}")

    def rule(at: Lookup, i: int, j: int) -> Worked:
        return Worked([R.plus(*[at("G", r, j) for r in range(n)])])

    node, notes = V.col_sums(dY), []
    if tgt == "K" and b.conv.softmax_axis == "keys" and not b.spec.masked_pairs()[1]:
        # Σ_j dK_j = τ Σ_i q_i Σ_j dS_ij = 0: the rows of dS sum to 0 (symattn prove dk-sums-to-zero)
        node = V.rational_matrix([[0] * dY.shape[1]])
        notes.append(["exactly 0: the rows of dS sum to 0, so the key gradients sum to 0 "
                      "(symattn prove dk-sums-to-zero)"])
    b.add(name, title, sympy.Eq(sym, ColSum(dY_sym), evaluate=False), node, rows=["1"],
          cols=num_labels(dY.shape[1]), operands={"G": b.row_op(dyst, dY_sym)}, rule=rule, symbol=sym,
          entry_name=f"db^{tgt}", notes=notes)


def projection_grads(b: Backward, tgt: str, src: str, dY: V.Node) -> tuple[str, V.Node] | None:
    """dW and db for Y = X W + b; returns (tgt, dY) for dX's part dY Wᵀ."""
    spec, lay = b.spec, b.layout
    w, bname = f"W{tgt.lower()}", f"b{tgt.lower()}"
    if w not in spec.inputs:
        return None
    dyst = b.step("d" + tgt)
    X = matrix("X" if src == "X" else "X_kv")
    dYs, dW = matrix("d" + tgt), matrix(f"dW^{tgt}")
    emb = PS.embedded_forward(b, src)  # X + PE with sinusoidal positions
    x_row = b.inputs.input(src) if emb is None else emb[0]
    node = V.matmul(V.transpose(x_row), dY)  # row form (d_in, d_out)
    xw = b.inputs.written[src]
    if emb is not None:
        X, labels, dims = emb[1], spec_labels(b, src), num_labels(x_row.shape[1])
        ops = {"row": {"A": Operand(X.T, V.transpose(x_row), dims, labels, transposed=True), "B": b.op(dyst, dYs)},
               "torch": {"A": b.op(dyst, dYs.T, transpose=True), "B": Operand(X, x_row, labels, dims)},
               "column": {"A": b.op(dyst, dYs), "B": Operand(X.T, x_row, labels, dims, transposed=True)}}[lay]
        rhs = {"row": X.T * dYs, "torch": dYs.T * X, "column": dYs * X.T}[lay]
    elif lay == "row":
        ops = {"A": Operand(X.T, V.transpose(xw), num_labels(xw.shape[1]), spec_labels(b, src), given=True,
                            transposed=True), "B": b.op(dyst, dYs)}
        rhs = X.T * dYs
    elif lay == "torch":
        ops = {"A": b.op(dyst, dYs.T, transpose=True), "B": b.inputs.input_operand(src, X, None, spec_labels(b, src))}
        rhs = dYs.T * X
    else:
        ops = {"A": b.op(dyst, dYs), "B": b.inputs.input_operand(src, X.T, None, spec_labels(b, src), transpose=True)}
        rhs = dYs * X.T
    b.add("d" + w, f"gradient of {w}", sympy.Eq(dW, rhs, evaluate=False), node, rows=num_labels(node.shape[0]),
          cols=num_labels(node.shape[1]), tokens_as_columns=lay != "row", operands=ops,
          rule=R.product("A", "B", x_row.shape[0]), symbol=dW, entry_name=f"dW^{tgt}")
    if bname in spec.inputs:
        _bias_grad(b, "d" + bname, f"gradient of {bname}", tgt, dyst, dY)
    return tgt, dY


def spec_labels(b: Backward, src: str) -> list[str]:
    return b.spec.query_labels() if src == "X" else b.spec.key_labels()


def input_grads(b: Backward, parts: list[tuple[str, V.Node] | None], kv: str) -> None:
    """dX = dQ (W^Q)ᵀ + dK (W^K)ᵀ + dV (W^V)ᵀ (row layout; the others accordingly), split into
    dX and dX_kv for cross-attention."""
    if "X" not in b.spec.inputs:
        return
    live = {tgt: dY for tgt, dY in (p for p in parts if p is not None)}
    groups = [("dX", "gradient of the inputs", ["Q", "K", "V"], b.spec.query_labels())] if kv == "X" else [
        ("dX", "gradient of the query inputs", ["Q"], b.spec.query_labels()),
        ("dX_kv", "gradient of the key/value inputs", ["K", "V"], b.spec.key_labels())]
    for name, title, tgts, labels in groups:
        use = [t for t in tgts if t in live]
        if not use:
            continue
        node = None
        terms = []
        ops: dict[str, Operand] = {}
        for t in use:
            w = f"W{t.lower()}"
            part = V.matmul(live[t], V.transpose(b.inputs.input(w)))
            node = part if node is None else V.elementwise("add", node, part)
            dYs, W = matrix("d" + t), matrix(f"W^{t}")
            ops["d" + t] = b.row_op(b.step("d" + t), dYs)
            wr = b.inputs.input(w)  # row form (d_in, d_out)
            ops["W" + t] = Operand(W, wr, num_labels(wr.shape[0]), num_labels(wr.shape[1]), given=True)
            terms.append({"row": dYs * W.T, "torch": dYs * W, "column": W.T * dYs}[b.layout])
        width = {t: live[t].shape[1] for t in use}

        def rule(at: Lookup, i: int, k: int, use: list[str] = use, width: dict = width) -> Worked:
            return Worked([R.plus(*[R.times(at("d" + t, i, s), at("W" + t, k, s))
                                    for t in use for s in range(width[t])])])

        sym = matrix(name)
        assert node is not None
        pe = PS.embedded_forward(b, "X" if name == "dX" else "X_kv")
        if pe is not None:  # X + PE: the gradient reaches X through the sum unchanged
            name, sym = name + "_embedded", matrix(name + "^pe")
        b.add(name, title, sympy.Eq(sym, sympy.MatAdd(*terms, evaluate=False) if len(terms) > 1 else terms[0],
                                    evaluate=False), node, rows=labels, cols=num_labels(node.shape[1]),
              tokens_as_columns=b.col, operands=ops,
              rule=_row_rule(rule) if b.col else rule, symbol=sym, entry_name=name)
        if pe is not None:
            PS.grad_embedded(b, name)


def _row_rule(rule: Rule) -> Rule:
    """A rule written for the row form, for a step shown transposed."""
    def r(at: Lookup, i: int, j: int) -> Worked:
        return rule(at, j, i)
    return r


def build(d: Derivation, loss: str, given: V.Node | None, focus: int | None) -> list[Step]:
    b = Backward(d)
    b.focus = d.spec.query_labels()[focus] if focus is not None else None
    spec = b.spec
    d_o = loss_steps(b, loss, given, focus)
    multi = b.conv.heads > 1 or "Wo" in spec.inputs
    hs = multi_head(b, d_o) if multi else [run_head(b, HeadGrad("", None, d_o))]
    kv = "X_kv" if "X_kv" in spec.inputs else "X"
    if spec.stage == "scores":
        dV = hs[0].dV
        assert dV is not None
        projection_grads(b, "V", kv, dV)
        return b.steps
    if multi:
        for name, attr, title in (("Q", "dQ", "queries"), ("K", "dK", "keys"), ("V", "dV", "values")):
            if name != "Q" and b.conv.groups != b.conv.heads:  # grouped-query: sum over shared heads
                from .structure import grouped_kv_grads

                grouped_kv_grads(b, hs, name, attr, title)
                continue
            nodes = [getattr(h, attr) for h in hs]
            first = b.step(hs[0].name("d" + name))
            width = nodes[0].shape[1]
            ops = {f"h{h.number}": b.op(b.step(h.name("d" + name)), h.sym("d" + name)) for h in hs}
            parts = [(f"h{h.number}", n * width, width) for n, h in enumerate(hs)]
            sym = matrix("d" + name)
            b.add("d" + name, f"gradient of the {title} (all heads)",
                  sympy.Eq(sym, Concat(*[h.sym("d" + name) for h in hs]), evaluate=False), V.concat(nodes),
                  like=b.fwd(name), operands=ops, rule=R.pieces(parts, along_rows=first.transposed), symbol=sym,
                  entry_name="d" + name)
        dQ, dK, dV = (b.step(n).value for n in ("dQ", "dK", "dV"))
    else:
        dQ, dK, dV = hs[0].dQ, hs[0].dK, hs[0].dV  # type: ignore[assignment]
    parts = [projection_grads(b, "Q", "X", dQ), projection_grads(b, "K", kv, dK), projection_grads(b, "V", kv, dV)]
    input_grads(b, parts, kv)
    return b.steps


def _matrix_input(value: object, name: str, shape: tuple[int, int]) -> V.Node:
    """A matrix the loss needs (validated), shaped like the output as shown; errors name its file."""
    given = value if isinstance(value, GivenMatrix) else read_matrix(value, "<argument>", name)
    m = given.rows
    if (len(m), len(m[0])) != shape:
        raise given.error(f"expected a {shape[0]}×{shape[1]} matrix (the shape of the output O as derive shows it), "
                          f"got {len(m)}×{len(m[0])}")
    return input_node(m)


def grad(d: Derivation, loss: str = "sum", target: object = None, upstream: object = None,
         wrt: Sequence[str] | None = None, focus: str | int | None = None) -> Gradient:
    """Derive the backward pass of a derivation for a scalar loss.

    ``loss``: ``sum`` (L = Σ O), ``mse`` (½‖O − T‖², with ``target`` T) or ``upstream``
    (a given gradient dO, a matrix of numbers or symbols, shaped like the output as
    shown). With a focus query (``derive(spec, query=...)`` or the file's, or ``focus``),
    the loss is that of the focus row, the output ``derive`` shows: T or dO then have one
    row. ``wrt``
    limits the default steps to the gradients asked for (and what they need): names such
    as ``Q``, ``K``, ``V``, ``Wq``, ``X``, ``tau``.
    """
    if loss not in LOSSES:
        raise SymattnError(f"unknown loss {loss!r}{did_you_mean(loss, list(LOSSES))}")
    spec = d.spec
    if spec.convention.normalization != "softmax" and spec.convention.score != "linear":
        raise SymattnError("gradients are derived for softmax attention (normalization = \"softmax\")")
    focus = spec.resolve_query(focus, "focus") if focus is not None else d.query
    if d.query is not None:  # gradients flow through every row: derive all rows, keep the focus row's loss
        from .forward import derive

        d = derive(spec.unfocused())
    if "output" not in d:
        raise SymattnError("there is no output to differentiate (the example has no values V)")
    out = d["output"]

    def given(value: object, name: str, need: str) -> V.Node | None:
        """A matrix the loss needs, shaped like the output derive shows, in row form (all rows)."""
        if LOSSES[loss].given != name:
            return None
        if value is None:
            raise OptionError(name, f"the loss {need} needs a {name} matrix (shaped like the output O)")
        shape = out.shape
        if focus is not None:
            shape = (shape[0], 1) if out.transposed else (1, shape[1])
        node = _matrix_input(value, name, shape)
        node = V.transpose(node) if out.transposed else node
        if focus is not None:
            node = _embed_row(node, focus, out.value.shape[0])
        return node

    t_node, up_node = given(target, "target", "mse"), given(upstream, "upstream", "upstream")
    g_node = t_node if t_node is not None else up_node
    steps = build(d, loss, g_node, focus)
    names = [s.name for s in steps]
    if wrt:
        wanted = set()
        for w in wrt:
            step = WRT.get(w, w if w in names else None)
            if step is None or step not in names:
                available = [k for k, v in WRT.items() if v in names]
                raise OptionError("wrt", f"no gradient with respect to {w!r} in this example"
                                         f"{did_you_mean(w, available)}")
            wanted.add(step)
        default = [n for n in names if n in wanted or n in ("loss", "dO")]
    else:
        default = names
    label = spec.query_labels()[focus] if focus is not None else None
    return Gradient(d, steps, default, loss, target, upstream, g_node, label)
