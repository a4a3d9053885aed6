"""The attention backward pass, derived step by step with the same step model as the forward pass.

For a scalar loss L with upstream gradient dO = ∂L/∂O (FlashAttention notation,
Dao et al. 2022, App. B.2; the scale τ as in the reference implementation):

    dV = Pᵀ dO,  dP = dO Vᵀ,  D = rowsum(P ∘ dP) = rowsum(dO ∘ O),  dS = P ∘ (dP − D 1ᵀ),
    dQ = τ dS K,  dK = τ dSᵀ Q,  ∂L/∂τ = ⟨dS, QKᵀ⟩,  dB = dS,

then through the projections for each layout (row: dW_q = Xᵀ dQ) to dX.

>>> import symattn as sa
>>> g = sa.grad(sa.derive(sa.load("illustrated_self_attention")), loss="sum")
>>> g["dV"].decimals(6)[0]
['0.0636804', '0.0636804', '0.0636804']
>>> import sympy   # 1ᵀ dV = 1ᵀ dO: the weights of each row sum to 1
>>> sympy.simplify(sum(g["dV"].exact.col(0)) - 3)
0
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import sympy

from ..errors import OptionError, SymattnError
from ..exact import nodes as V
from ..read.numbers import did_you_mean
from ..read.spec import GivenMatrix, Matrix, read_matrix
from .forward import derive, num_labels
from .loss import LOSSES, loss_value, upstream_gradient
from .steps import Derivation, Step, Substitution

__all__ = ["grad", "Gradient", "LOSSES", "WRT"]
#: what --wrt may name, and the step that holds its gradient
WRT = {"O": "dO", "V": "dV", "P": "dP", "S": "dS", "Q": "dQ", "K": "dK", "tau": "dtau", "B": "dB",
       "scores": "dscores", "X": "dX", "X_kv": "dX_kv", "Wq": "dWq", "Wk": "dWk", "Wv": "dWv", "Wo": "dWo",
       "bq": "dbq", "bk": "dbk", "bv": "dbv", "bo": "dbo"}


class Gradient(Derivation):
    """The backward steps of a derivation; ``g["dQ"]`` gives a step. Views (text, JSON,
    LaTeX) are the forward pass's."""

    def __init__(self, forward: Derivation, steps: list[Step], default: list[str], loss: str,
                 target: object = None, upstream: object = None, given: V.Node | None = None) -> None:
        conv = dict(forward.convention)
        conv["loss"] = loss
        super().__init__(forward.spec, steps, default, None, conv)
        self.forward = forward
        self.loss = loss
        self.target, self.upstream = target, upstream  # as given to grad()
        self.given = given  # the target T or the upstream dO, in row form

    @property
    def title(self) -> str:
        return f"{self.spec.title}: gradients ({self.loss})"


def _mx(rows: Matrix) -> V.Node:
    if all(isinstance(x, Fraction) for r in rows for x in r):
        return V.rational_matrix(rows)
    return V.SympyNode(sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else x
                                      for x in r] for r in rows]))


class _Backward:
    def __init__(self, d: Derivation) -> None:
        self.d = d
        self.spec = d.spec
        self.conv = d.spec.convention
        self.col = self.conv.layout == "column"
        self.steps: list[Step] = []

    def fwd(self, name: str) -> Step:
        return self.d[name]

    def add(self, name: str, title: str, formula: str, text: str, node: V.Node, like: Step | None,
            rows: list[str] | None = None, cols: list[str] | None = None, tokens_as_columns: bool = False,
            sub: Substitution | None = None, symbol: str = "") -> V.Node:
        """Add a gradient step (row-form ``node``), shown like the forward value it belongs to."""
        if like is not None:
            rows = like.row_labels if not like.transposed else like.col_labels
            cols = like.col_labels if not like.transposed else like.row_labels
            tokens_as_columns = like.transposed
        assert rows is not None and cols is not None
        node.name_as(name, rows, cols)
        shown = V.transpose(node) if tokens_as_columns else node
        r, c = (cols, rows) if tokens_as_columns else (rows, cols)
        shown.name_as(name, r, c)
        self.steps.append(Step(name, title, formula, text, shown, list(r), list(c), transposed=tokens_as_columns,
                               substitution=sub, symbol=symbol or name, row_node=node))
        return node

    # -- one head: from dO to dQ, dK, dV --
    def head(self, prefix: str, d_o: V.Node) -> tuple[V.Node | None, V.Node | None, V.Node]:
        conv = self.conv
        P = self.fwd(prefix + "weights").value
        Vv = self.fwd(prefix + "V").value
        q_step = prefix + "Q"
        has_qk = q_step in self.d
        tau = self.d.spec.convention.tau(d_k=self.spec.d_k, d_v=self.spec.d_v or None, d_model=self.spec.d_model,
                                         h=conv.heads)
        w_like = self.fwd(prefix + "weights")
        dV = self.add(prefix + "dV", "gradient of the values", r"dV = P^{\top} dO", "dV = Pᵀ·dO",
                      V.matmul(V.transpose(P), d_o), self.fwd(prefix + "V"), symbol="dV")
        dP = self.add(prefix + "dP", "gradient of the weights", r"dP = dO\, V^{\top}", "dP = dO·Vᵀ",
                      V.matmul(d_o, V.transpose(Vv)), w_like, symbol="dP")
        # dS and D are built together, so that the rows of dS provably sum to 0 (see nodes)
        dS, D = V.softmax_backward(P, dP, conv.softmax_axis)
        if conv.softmax_axis == "keys":
            self.add(prefix + "D", "row sums D_i = Σ_j P_ij dP_ij = dO_i · O_i",
                     r"D = \operatorname{rowsum}(P \odot dP) = \operatorname{rowsum}(dO \odot O)",
                     "D = rowsum(P ∘ dP) = rowsum(dO ∘ O)", D, None, rows=w_like.row_labels, cols=["1"], symbol="D")
        else:
            self.add(prefix + "D", "column sums D_j = Σ_i P_ij dP_ij",
                     r"D = \mathbf{1}^{\top}(P \odot dP)", "D = colsum(P ∘ dP)", D, None, rows=["1"],
                     cols=w_like.col_labels, symbol="D")
        keep = self._keep(prefix)
        if keep is not None:
            dS = V.elementwise("mul", dS, keep)
        dS = self.add(prefix + "dS", "gradient of the scores (softmax backward)",
                      r"dS = P \odot (dP - D\mathbf{1}^{\top})" if conv.softmax_axis == "keys"
                      else r"dS = P \odot (dP - \mathbf{1} D)",
                      "dS = P ∘ (dP − D·1ᵀ)", dS, w_like, symbol="dS")
        if self.spec.score_bias is not None:
            self.add(prefix + "dB", "gradient of the score bias", r"dB = dS", "dB = dS", dS, w_like, symbol="dB")
        if not has_qk:
            self.add("dscores", "gradient of the given scores", r"\frac{\partial L}{\partial S} = \tau\, dS",
                     "dscores = τ·dS", V.scale(dS, tau), w_like, symbol="dS_{raw}")
            return None, None, dV
        Q, K = self.fwd(q_step).value, self.fwd(prefix + "K").value
        # τ applied to the (smaller) products, not to dS
        dQ = self.add(prefix + "dQ", "gradient of the queries", r"dQ = \tau\, dS\, K", "dQ = τ·dS·K",
                      V.scale(V.matmul(dS, K), tau), self.fwd(q_step), symbol="dQ")
        dK = self.add(prefix + "dK", "gradient of the keys", r"dK = \tau\, dS^{\top} Q", "dK = τ·dSᵀ·Q",
                      V.scale(V.matmul(V.transpose(dS), Q), tau), self.fwd(prefix + "K"), symbol="dK")
        raw = self.fwd(prefix + "scores").value
        self.add(prefix + "dtau", "gradient of the scale τ",
                 r"\frac{\partial L}{\partial \tau} = \langle dS,\, Q K^{\top} \rangle",
                 "∂L/∂τ = ⟨dS, Q·Kᵀ⟩", V.total(V.elementwise("mul", dS, raw)), None, rows=["1"], cols=["1"],
                 symbol=r"\partial L / \partial \tau")
        return dQ, dK, dV

    def _keep(self, prefix: str) -> V.Node | None:
        """Zero where a finite mask value replaced the score (no gradient flows through it)."""
        _, replaced = self.spec.masked_pairs()
        if not replaced:
            return None
        n, m = self.fwd(prefix + "weights").value.shape
        return V.rational_matrix([[0 if (i, j) in replaced else 1 for j in range(m)] for i in range(n)])

    # -- projections --
    def projection(self, tgt: str, w: str, b: str, src: str, dY: V.Node) -> V.Node | None:
        """dW, db for Y = X W + b (row form); returns dX's part dY Wᵀ."""
        spec = self.spec
        if w not in spec.inputs:
            return None
        X = self._input_row(src)
        W = self._input_row(w)
        lay = self.conv.layout
        dW = V.matmul(V.transpose(X), dY)  # row form (d_in, d_out)
        formula = {"row": f"dW^{{{tgt}}} = X^{{\\top}} d{tgt}", "torch": f"dW^{{{tgt}}} = d{tgt}^{{\\top}} X",
                   "column": f"dW^{{{tgt}}} = d{tgt}\\, X^{{\\top}}"}[lay]
        text = {"row": f"dW_{tgt.lower()} = Xᵀ·d{tgt}", "torch": f"dW_{tgt.lower()} = d{tgt}ᵀ·X",
                "column": f"dW_{tgt.lower()} = d{tgt}·Xᵀ"}[lay]
        if src == "X_kv":
            formula, text = formula.replace("X", "X_{kv}"), text.replace("X", "X_kv")
        shown_t = lay != "row"
        self.add("d" + w, f"gradient of {w}", formula, text, dW, None, rows=num_labels(dW.shape[0]),
                 cols=num_labels(dW.shape[1]), tokens_as_columns=shown_t, symbol=f"dW^{{{tgt}}}")
        if b in spec.inputs:
            self.add("d" + b, f"gradient of {b}", f"db^{{{tgt}}} = \\mathbf{{1}}^{{\\top}} d{tgt}",
                     f"d{b} = column sums of d{tgt}", V.col_sums(dY), None, rows=["1"],
                     cols=num_labels(dY.shape[1]), symbol=f"db^{{{tgt}}}")
        return V.matmul(dY, V.transpose(W))

    def _input_row(self, name: str) -> V.Node:
        node = _mx(self.spec.inputs[name])
        lay = self.conv.layout
        if lay == "row" or (lay == "torch" and name in ("X", "X_kv")):
            return node
        return V.transpose(node)

    def build(self, loss: str, target: V.Node | None, upstream: V.Node | None) -> list[Step]:
        spec, conv = self.spec, self.conv
        out_step = self.fwd("output")
        O = out_step.value
        # dO and the loss
        given = target if loss == "mse" else upstream
        d_o = upstream_gradient(loss, O, given)
        L = loss_value(loss, O, given)
        f, t, lf = {"sum": (r"dO = \mathbf{1}", "dO = 1 (L = Σ O)", r"L = \sum_{ij} O_{ij}"),
                    "mse": (r"dO = O - T", "dO = O − T (L = ½‖O − T‖²)", r"L = \tfrac12 \lVert O - T \rVert^2"),
                    "upstream": (r"dO \text{ (given)}", "dO (given upstream gradient)",
                                 r"L = \langle dO, O \rangle")}[loss]
        self.add("loss", "the loss", lf, t.split("(")[-1].rstrip(")") if "(" in t else t, L, None, rows=["1"],
                 cols=["1"], symbol="L")
        d_o = self.add("dO", "upstream gradient", f, t, d_o, out_step, symbol="dO")
        multi = conv.heads > 1 or "Wo" in spec.inputs
        if not multi:
            dQ, dK, dV = self.head("", d_o)
            heads = [(dQ, dK, dV)]
        else:
            cat = self.fwd("concat").value
            if "Wo" in spec.inputs:
                Wo = self._input_row("Wo")
                dWo = V.matmul(V.transpose(cat), d_o)
                lay = conv.layout
                self.add("dWo", "gradient of Wo", {"row": r"dW^{O} = \operatorname{Concat}^{\top} dO",
                                                    "torch": r"dW^{O} = dO^{\top} \operatorname{Concat}",
                                                    "column": r"dW^{O} = dO\, \operatorname{Concat}^{\top}"}[lay],
                         "dWo from the concatenated heads", dWo, None, rows=num_labels(dWo.shape[0]),
                         cols=num_labels(dWo.shape[1]), tokens_as_columns=lay != "row", symbol="dW^{O}")
                if "bo" in spec.inputs:
                    self.add("dbo", "gradient of bo", r"db^{O} = \mathbf{1}^{\top} dO", "dbo = column sums of dO",
                             V.col_sums(d_o), None, rows=["1"], cols=num_labels(d_o.shape[1]), symbol="db^{O}")
                d_cat = self.add("dConcat", "gradient of the concatenated heads", r"d\operatorname{Concat} = dO\, "
                                 r"{W^{O}}^{\top}", "dConcat = dO·W_oᵀ", V.matmul(d_o, V.transpose(Wo)),
                                 self.fwd("concat"), symbol=r"d\operatorname{Concat}")
            else:
                d_cat = d_o
            dv = spec.d_v
            heads = []
            for i in range(conv.heads):
                p = f"head{i + 1}."
                dOh = self.add(p + "dO", f"head {i + 1}: its share of the upstream gradient",
                               f"dO_{{{i + 1}}} = d\\operatorname{{Concat}}_{{:, {i * dv + 1}..{(i + 1) * dv}}}",
                               f"columns {i * dv + 1}..{(i + 1) * dv} of dConcat",
                               V.columns(d_cat, i * dv, (i + 1) * dv), self.fwd(p + "output"), symbol="dO")
                heads.append(self.head(p, dOh))
        if spec.stage == "scores":
            dV = heads[0][2]
            self.projection("V", "Wv", "bv", "X_kv" if "X_kv" in spec.inputs else "X", dV)
            return self.steps
        if multi:
            dQ = V.concat([h[0] for h in heads])  # type: ignore[misc]
            dK = V.concat([h[1] for h in heads])  # type: ignore[misc]
            dV = V.concat([h[2] for h in heads])
            dQ = self.add("dQ", "gradient of the queries (all heads)", r"dQ = [dQ_1 \cdots dQ_h]",
                          "dQ = Concat(head dQ)", dQ, self.fwd("Q"), symbol="dQ")
            dK = self.add("dK", "gradient of the keys (all heads)", r"dK = [dK_1 \cdots dK_h]",
                          "dK = Concat(head dK)", dK, self.fwd("K"), symbol="dK")
            dV = self.add("dV", "gradient of the values (all heads)", r"dV = [dV_1 \cdots dV_h]",
                          "dV = Concat(head dV)", dV, self.fwd("V"), symbol="dV")
        else:
            dQ, dK, dV = heads[0]
        kv = "X_kv" if "X_kv" in spec.inputs else "X"
        parts_q = self.projection("Q", "Wq", "bq", "X", dQ)  # type: ignore[arg-type]
        parts_k = self.projection("K", "Wk", "bk", kv, dK)  # type: ignore[arg-type]
        parts_v = self.projection("V", "Wv", "bv", kv, dV)
        self._input_grads(parts_q, parts_k, parts_v, kv)
        return self.steps

    def _input_grads(self, pq: V.Node | None, pk: V.Node | None, pv: V.Node | None, kv: str) -> None:
        spec = self.spec
        x_like = "X" in spec.inputs
        if not x_like:
            return
        names = self.spec.query_labels()
        lay = self.conv.layout
        w = {"row": "{W^{%s}}^{\\top}", "torch": "W^{%s}", "column": "{W^{%s}}^{\\top}"}[lay]

        def total(parts: list[tuple[str, V.Node | None]]) -> tuple[V.Node | None, str]:
            live = [(t, p) for t, p in parts if p is not None]
            if not live:
                return None, ""
            node = live[0][1]
            for _, p in live[1:]:
                node = V.elementwise("add", node, p)  # type: ignore[arg-type]
            return node, " + ".join(f"d{t}\\, {w % t}" for t, _ in live)

        if kv == "X":
            node, f = total([("Q", pq), ("K", pk), ("V", pv)])
            if node is not None:
                self.add("dX", "gradient of the inputs", "dX = " + f, "dX = sum over Q, K, V", node, None,
                         rows=names, cols=num_labels(node.shape[1]), tokens_as_columns=lay == "column", symbol="dX")
        else:
            node, f = total([("Q", pq)])
            if node is not None:
                self.add("dX", "gradient of the query inputs", "dX = " + f, "dX from Q", node, None, rows=names,
                         cols=num_labels(node.shape[1]), tokens_as_columns=lay == "column", symbol="dX")
            node, f = total([("K", pk), ("V", pv)])
            if node is not None:
                self.add("dX_kv", "gradient of the key/value inputs", "dX_{kv} = " + f, "dX_kv from K and V", node,
                         None, rows=spec.key_labels(), cols=num_labels(node.shape[1]),
                         tokens_as_columns=lay == "column", symbol="dX_{kv}")


def _matrix_input(value: object, name: str, shape: tuple[int, int]) -> V.Node:
    """A matrix the loss needs (validated), shaped like the output as shown; errors name its file."""
    given = value if isinstance(value, GivenMatrix) else read_matrix(value, "<argument>", name)
    m = given.rows
    if (len(m), len(m[0])) != shape:
        raise given.error(f"expected a {shape[0]}×{shape[1]} matrix (the shape of the output O as shown), "
                          f"got {len(m)}×{len(m[0])}")
    return _mx(m)


def grad(d: Derivation, loss: str = "sum", target: object = None, upstream: object = None,
         wrt: Sequence[str] | None = None) -> Gradient:
    """Derive the backward pass of a derivation for a scalar loss.

    ``loss``: ``sum`` (L = Σ O), ``mse`` (½‖O − T‖², with ``target`` T) or ``upstream``
    (a given gradient dO, a matrix of numbers or symbols, shaped like the output as
    shown). ``wrt`` limits the default steps to the gradients asked for (and what they
    need): names such as ``Q``, ``K``, ``V``, ``Wq``, ``X``, ``tau``.
    """
    if loss not in LOSSES:
        raise SymattnError(f"unknown loss {loss!r}{did_you_mean(loss, list(LOSSES))}")
    spec = d.spec
    if spec.convention.normalization != "softmax":
        raise SymattnError("gradients are derived for softmax attention (normalization = \"softmax\")")
    if d.query is not None:  # gradients flow through every row: derive without a focus query
        spec = spec.unfocused()
        d = derive(spec)
    if "output" not in d:
        raise SymattnError("there is no output to differentiate (the example has no values V)")
    out = d["output"]

    def given(value: object, name: str, need: str) -> V.Node | None:
        """A matrix the loss needs, shaped like the output as shown, in row form."""
        if loss != need:
            return None
        if value is None:
            raise OptionError(name, f"the loss {need} needs a {name} matrix")
        node = _matrix_input(value, name, out.shape)
        return V.transpose(node) if out.transposed else node

    t_node, up_node = given(target, "target", "mse"), given(upstream, "upstream", "upstream")
    steps = _Backward(d).build(loss, t_node, up_node)
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
    return Gradient(d, steps, default, loss, target, upstream, t_node if t_node is not None else up_node)
