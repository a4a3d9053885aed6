"""The forward pass: Spec -> Derivation, the ordered list of named steps of attention.

>>> import symattn as sa
>>> d = sa.derive(sa.load("i_love_statistics"))
>>> [s.name for s in d.steps]
['Q', 'K', 'V', 'scores', 'scaled', 'weights', 'weighted', 'output']
>>> d["Q"].exact
Matrix([[1/2, 4/5]])
>>> d["scores"].decimals(6)
[['1.116', '1.266', '1.339']]
>>> d["weights"].decimals(4)
[['0.3046', '0.3387', '0.3567']]
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

import sympy

from ..errors import SymattnError
from ..exact import nodes as V
from ..limits import WEIGHTED_DEFAULT_MAX
from ..read.spec import Matrix, Spec
from .steps import Derivation, Example, Operand, Ref, Step, Substitution

__all__ = ["derive", "Patch", "num_labels"]


# ---------------------------------------------------------------------------------------


def _node(m: Matrix) -> V.Node:
    if all(isinstance(x, Fraction) for r in m for x in r):
        return V.rational_matrix(m)
    return V.SympyNode(sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else x
                                      for x in r] for r in m]))


def _flat(node: V.Node, *idx: int) -> int:
    k = 0
    for n, i in zip(node.shape, idx):
        k = k * n + i
    return k


def _ref(node: V.Node, *idx: int) -> Ref:
    return Ref(node, _flat(node, *idx))


def num_labels(n: int) -> list[str]:
    return [str(i + 1) for i in range(n)]


Patch = Callable[[str, V.Node], V.Node]


class _Builder:
    """Builds the steps. Each step's value is passed to the next step through
    ``patch`` (identity by default): the checker passes a patch that puts the
    author's printed numbers in place, so a step's own value is then its value
    recomputed from the author's numbers (the "local" judgment)."""

    def __init__(self, spec: Spec, query: int | None, rounded: bool = False,
                 patch: Patch | None = None) -> None:
        self.spec = spec
        self.conv = spec.convention
        self.layout = self.conv.layout
        self.col = self.layout == "column"
        self.query = query
        self.rounded = rounded
        self.patch = patch or (lambda name, node: node)
        self.inputs = {k: self.leaf(k, m) for k, m in spec.inputs.items()}
        self.steps: list[Step] = []
        self.q_all = spec.query_labels()
        self.k_labels = spec.key_labels()
        # query rows computed: the focus only, unless the softmax runs over queries
        if query is not None and self.conv.softmax_axis == "keys":
            self.rows = [query]
        else:
            self.rows = list(range(spec.n_queries))
        self.q_labels = [self.q_all[i] for i in self.rows]

    # -- helpers --
    def leaf(self, name: str, m: Matrix) -> V.Node:
        """An input value; with ``rounded``, each printed number ± half a unit of its last digit."""
        if self.rounded and not self.spec.symbolic:
            ulps = self.spec.input_ulps.get(name)
            if ulps is not None and any(u for r in ulps for u in r):
                return V.IntervalNode(m, [[(u or Fraction(0)) / 2 for u in r] for r in ulps])  # type: ignore[arg-type]
        return _node(m)

    def row_input(self, name: str) -> V.Node:
        """An input in row form (tokens as rows, weights (d_in, d_out))."""
        node = self.inputs[name]
        if self.layout == "row" or name.startswith("b") or name == "scores":
            return node
        if self.layout == "torch" and name in ("X", "X_kv", "Q", "K", "V"):
            return node
        return V.transpose(node)

    def add(self, name: str, title: str, formula: str, text: str, node: V.Node, rows: list[str],
            cols: list[str], example: Example | None = None, tokens_as_columns: bool = False,
            notes: list[str] | None = None, sub: Substitution | None = None, symbol: str = "") -> V.Node:
        """Add a step and return the value later steps use. ``node`` is in row form; in the
        column layout, token-indexed values (Q, K, V, outputs) are shown transposed."""
        node.name_as(name, rows, cols)
        shown = node
        transposed = tokens_as_columns and self.col
        if transposed:
            shown = V.transpose(node)
            rows, cols = cols, rows
            if example is not None:
                example.result = Ref(shown, _flat(shown, *reversed(node.index(example.result.index))))
                example.target = _swap_target(example.target)
        shown.name_as(name, rows, cols)
        self.steps.append(Step(name, title, formula, text, shown, rows, cols, example=example,
                               notes=list(notes or []), transposed=transposed, substitution=sub,
                               symbol=symbol or name.split(".")[-1], row_node=node))
        return self.patch(name, node)

    def operand(self, symbol: str, name: str) -> Operand:
        """A previous step as an operand, as it is shown."""
        for st in self.steps:
            if st.name == name:
                return Operand(symbol, st.node, st.row_labels, st.col_labels)
        raise KeyError(name)  # pragma: no cover

    def input_operand(self, symbol: str, name: str, rows: list[int] | None, labels: list[str] | None,
                      transpose: bool = False) -> Operand:
        """An input matrix as written in the file (its focus rows only), optionally transposed."""
        node = self.inputs[name]
        token_rows = name in ("X", "X_kv", "Q", "K", "V") and not self.col
        if rows is not None and token_rows:
            node = V.rows(node, rows)
        elif rows is not None and name in ("X", "X_kv") and self.col:
            node = V.transpose(V.rows(V.transpose(node), rows))
        r = labels if (token_rows and labels) else num_labels(node.shape[0])
        c = labels if (self.col and name in ("X", "X_kv") and labels) else num_labels(node.shape[1])
        if transpose:
            node, r, c = V.transpose(node), c, r
        return Operand(symbol, node, r, c)

    def shown(self, name: str) -> V.Node:
        for st in self.steps:
            if st.name == name:
                return st.node
        raise KeyError(name)  # pragma: no cover

    def label(self, step: str, r: str, c: str) -> str:
        return f"{step}[{r}, {c}]"

    def vec(self, node: V.Node, token: int, t: int) -> Ref:
        """Entry t of token ``token``'s vector in a shown Q/K/V step (a row, or a column)."""
        return _ref(node, *((token, t) if not self.col else (t, token)))

    # -- projections --
    def projection(self, prefix: str, tgt: str, w: str, b: str, src: str, rows: list[int] | None,
                   labels: list[str], title: str) -> V.Node:
        spec = self.spec
        if tgt in spec.inputs:
            node = V.rows(self.row_input(tgt), rows) if rows is not None else self.row_input(tgt)
            ex = Example("given", self.label(tgt, labels[0], "1"), _ref(node, 0, 0))
            return self.add(prefix + tgt, title, f"{tgt} \\text{{ (given)}}", f"{tgt} (given)", node, labels,
                            num_labels(node.shape[1]), ex, tokens_as_columns=True)
        x = self.row_input(src)
        if rows is not None:
            x = V.rows(x, rows)
        bias = self.inputs.get(b)
        node = V.matmul(x, self.row_input(w), bias)
        xs, xt = ("X", "X") if src == "X" else ("X_{kv}", "X_kv")
        wl = f"W^{{{tgt}}}"
        formula = {"row": f"{tgt} = {xs} {wl}", "torch": f"{tgt} = {xs} {{{wl}}}^{{\\top}}",
                   "column": f"{tgt} = {wl} {xs}"}[self.layout]
        text = {"row": f"{tgt} = {xt}·W_{tgt.lower()}", "torch": f"{tgt} = {xt}·W_{tgt.lower()}ᵀ",
                "column": f"{tgt} = W_{tgt.lower()}·{xt}"}[self.layout]
        if bias is not None:
            formula += f" + b^{{{tgt}}}"
            text += f" + b_{tgt.lower()}"
        # the first entry, term by term, in the file's own orientation
        xin, win = self.inputs[src], self.inputs[w]
        i0 = rows[0] if rows is not None else 0
        terms = []
        for k in range(x.shape[1]):
            if self.layout == "row":
                terms.append((_ref(xin, i0, k), _ref(win, k, 0)))
            elif self.layout == "torch":
                terms.append((_ref(xin, i0, k), _ref(win, 0, k)))
            else:
                terms.append((_ref(win, 0, k), _ref(xin, k, i0)))
        ex = Example("dot", self.label(tgt, labels[0], "1"), _ref(node, 0, 0), terms=terms,
                     bias=_ref(bias, 0, 0) if bias is not None else None)
        xo = self.input_operand(xs, src, rows, labels)
        if self.layout == "row":
            ops = [xo, self.input_operand(wl, w, None, None)]
        elif self.layout == "torch":
            ops = [xo, self.input_operand(f"{{{wl}}}^{{\\top}}", w, None, None, transpose=True)]
        else:
            ops = [self.input_operand(wl, w, None, None), xo]
        if bias is not None:
            ops.append(Operand(f"b^{{{tgt}}}", bias, ["1"], num_labels(bias.shape[1])))
        return self.add(prefix + tgt, title, formula, text, node, labels, num_labels(node.shape[1]), ex,
                        tokens_as_columns=True, sub=Substitution("product", ops), symbol=tgt)

    # -- one head --
    def head(self, prefix: str, q: V.Node | None, k: V.Node | None, v: V.Node | None,
             dk: int | None) -> V.Node | None:
        spec, conv = self.spec, self.conv
        qn, kn = self.q_labels, self.k_labels
        if q is not None and k is not None:
            node = V.matmul(q, V.transpose(k))
            qs, ks = self.shown(prefix + "Q"), self.shown(prefix + "K")
            terms = [(self.vec(qs, 0, t), self.vec(ks, 0, t)) for t in range(q.shape[1])]
            formula = "S = Q K^{\\top}" if not self.col else "S = Q^{\\top} K"
            text = "S = Q·Kᵀ" if not self.col else "S = Qᵀ·K"
            ko = self.operand("K", prefix + "K")
            kt = Operand("K^{\\top}", V.transpose(ko.node), ko.cols, ko.rows)
            qo = self.operand("Q", prefix + "Q")
            ops = [qo, kt] if not self.col else [Operand("Q^{\\top}", V.transpose(qo.node), qo.cols, qo.rows), ko]
            scores = self.add(prefix + "scores", "scores (query · key)", formula, text, node, qn, kn,
                              Example("dot", self.label("S", qn[0], kn[0]), _ref(node, 0, 0), terms=terms),
                              sub=Substitution("product", ops), symbol="S")
        else:
            node = V.rows(self.inputs["scores"], self.rows)
            scores = self.add(prefix + "scores", "scores (given)", "S \\text{ (given)}", "S (given)", node, qn, kn,
                              Example("given", self.label("S", qn[0], kn[0]), _ref(node, 0, 0)), symbol="S")
        tau = conv.tau(d_k=dk, d_v=spec.d_v or None, d_model=spec.d_model, h=conv.heads)
        node = V.scale(scores, tau)
        f, t = _scale_formula(conv.scale_text, conv.temperature)
        notes = [f"τ = {tau}"] if conv.scale_text.lower() != "none" or conv.temperature != 1 else []
        scaled_shown = node
        logits = self.add(prefix + "scaled", "scaled scores", f, t, node, qn, kn,
                          Example("scale", self.label("S̃", qn[0], kn[0]), _ref(node, 0, 0),
                                  operand=_ref(self.shown(prefix + "scores"), 0, 0), factor=tau), notes=notes,
                          sub=Substitution("scale", [self.operand("S", prefix + "scores")], tau),
                          symbol="\\tilde S")
        masked_step = False
        if conv.mask != "none" or spec.score_bias is not None:
            masked_step = True
            neg_all, rep_all = spec.masked_pairs()
            pos = {orig: new for new, orig in enumerate(self.rows)}
            neg = {(pos[i], j) for (i, j) in neg_all if i in pos}
            rep = {(pos[i], j): conv.mask_value for (i, j) in rep_all if i in pos}
            bias = None
            if spec.score_bias is not None:
                bias = V.rows(self.leaf("bias", [[x if not (isinstance(x, sympy.Expr) and x.is_infinite) else Fraction(0)
                                                  for x in r] for r in spec.score_bias]), self.rows)
            node = V.masked(logits, bias, neg, rep)
            i0, j0 = min(neg | set(rep)) if (neg or rep) else (0, 0)
            formula = "\\hat S = \\tilde S + M" if bias is None else "\\hat S = \\tilde S + B + M"
            text = "Ŝ = S̃ + M" if bias is None else "Ŝ = S̃ + B + M"
            mask_m = V.SympyNode(sympy.Matrix(len(self.rows), spec.n_keys, lambda i, j: (
                -sympy.oo if (int(i), int(j)) in neg else (conv.mask_value if (int(i), int(j)) in rep else 0))))
            ops = [self.operand("\\tilde S", prefix + "scaled")]
            if bias is not None:
                ops.append(Operand("B", bias, qn, kn))
            ops.append(Operand("M", mask_m, qn, kn))
            logits = self.add(prefix + "masked", "masked scores", formula, text, node, qn, kn,
                              Example("mask", self.label("Ŝ", qn[i0], kn[j0]), _ref(node, i0, j0),
                                      operand=_ref(scaled_shown, i0, j0),
                                      bias=_ref(bias, i0, j0) if bias is not None else None,
                                      masked=(i0, j0) in neg or (i0, j0) in rep), notes=[_mask_note(conv)],
                              sub=Substitution("add", ops), symbol="\\hat S")
        logits_shown = self.shown(prefix + ("masked" if masked_step else "scaled"))
        node = V.normalize(logits, conv.normalization, conv.softmax_axis, conv.masked_rows)
        wrows = qn
        if conv.softmax_axis == "queries" and self.query is not None:
            node = V.rows(node, [self.query])
            wrows = [self.q_all[self.query]]
        src, srct = ("\\hat S", "Ŝ") if masked_step else ("\\tilde S", "S̃")
        op, opt = ("\\operatorname{softmax}", "softmax") if conv.normalization == "softmax" else \
            ("\\operatorname{normalize}_{\\Sigma}", "divide by the sum")
        if conv.softmax_axis == "keys":
            formula, text = f"P = {op}({src})", f"P = {opt}({srct}) over keys (each row sums to 1)"
            exps = [_ref(logits_shown, 0, j) for j in range(logits_shown.shape[1])]
            pos0 = 0
        else:
            formula = f"P = {op}_{{\\text{{queries}}}}({src})"
            text = f"P = {opt}({srct}) over queries (each column sums to 1)"
            exps = [_ref(logits_shown, i, 0) for i in range(logits_shown.shape[0])]
            pos0 = self.query or 0
        kind = "softmax" if conv.normalization == "softmax" else "ratio"
        weights = self.add(prefix + "weights", "attention weights", formula, text, node, wrows, kn,
                           Example(kind, self.label("P", wrows[0], kn[0]), _ref(node, 0, 0), exponents=exps,
                                   position=pos0),
                           sub=Substitution(kind, [self.operand(src, prefix + ("masked" if masked_step else "scaled"))]),
                           symbol="P")
        if v is None:
            return None
        weights_shown = self.shown(prefix + "weights")
        vs = self.shown(prefix + "V")
        wv = V.weighted(weights, v)
        wv.name_as(prefix + "weighted", wrows, kn, num_labels(v.shape[1]))
        self.steps.append(Step(prefix + "weighted", "weighted values (before summing)", "p_{ij}\\, v_{j}",
                               "p_ij·v_j", wv, wrows, kn, depth_labels=num_labels(v.shape[1]),
                               example=Example("product", f"p[{wrows[0]}, {kn[0]}]·v[{kn[0]}]",
                                               _ref(wv, 0, 0, 0),
                                               terms=[(_ref(weights_shown, 0, 0), self.vec(vs, 0, 0))]),
                               axis_names=("query", "key", "dim")))
        node = V.attend(weights, v)
        terms = [(_ref(weights_shown, 0, j), self.vec(vs, j, 0)) for j in range(weights.shape[1])]
        f = "O = P V" if not self.col else "O = V P^{\\top}"
        if self.query is not None:
            f += " \\quad (o_i = \\sum_j p_{ij} v_j)"
        po, vo = self.operand("P", prefix + "weights"), self.operand("V", prefix + "V")
        ops = [po, vo] if not self.col else [vo, Operand("P^{\\top}", V.transpose(po.node), po.cols, po.rows)]
        return self.add(prefix + "output", "attention output", f, "O = P·V" if not self.col else "O = V·Pᵀ", node,
                        wrows, num_labels(v.shape[1]),
                        Example("dot", self.label("O", wrows[0], "1"), _ref(node, 0, 0), terms=terms),
                        tokens_as_columns=True, sub=Substitution("product", ops), symbol="O")

    def build(self) -> tuple[list[Step], list[str]]:
        spec, conv = self.spec, self.conv
        h = conv.heads
        multi = h > 1 or "Wo" in spec.inputs
        kv_src = "X_kv" if "X_kv" in spec.inputs else "X"
        has_v = "V" in spec.inputs or "Wv" in spec.inputs
        if spec.stage == "scores":
            v = self.projection("", "V", "Wv", "bv", kv_src, None, self.k_labels, "values") if has_v else None
            self.head("", None, None, v, spec.d_k)
        else:
            q = self.projection("", "Q", "Wq", "bq", "X", self.rows, self.q_labels, "queries")
            k = self.projection("", "K", "Wk", "bk", kv_src, None, self.k_labels, "keys")
            v = self.projection("", "V", "Wv", "bv", kv_src, None, self.k_labels, "values")
            if not multi:
                self.head("", q, k, v, spec.d_k)
            else:
                self.heads(q, k, v)
        default = []
        for st in self.steps:
            if st.name.split(".")[-1] == "weighted" and not (self.query is not None
                                                             or st.node.size <= WEIGHTED_DEFAULT_MAX):
                continue
            default.append(st.name)
        return self.steps, default

    def heads(self, q: V.Node, k: V.Node, v: V.Node) -> None:
        spec, conv = self.spec, self.conv
        h = conv.heads
        dk, dv = spec.d_k or 0, spec.d_v
        outs = []
        part = "rows" if self.col else "columns"
        for i in range(h):
            p = f"head{i + 1}."
            parts = {}
            for name, full, width, labels in (("Q", q, dk, self.q_labels), ("K", k, dk, self.k_labels),
                                              ("V", v, dv, self.k_labels)):
                a, b = i * width + 1, (i + 1) * width
                sub_ = f"{a}..{b},\\,:" if self.col else f":,\\,{a}..{b}"
                parts[name] = self.add(p + name, f"head {i + 1}: {name} ({part} {a}–{b} of {name})",
                                       f"{name}_{{{i + 1}}} = {name}_{{{sub_}}}",
                                       f"{name}{i + 1} = {part} {a}..{b} of {name}",
                                       V.columns(full, i * width, (i + 1) * width), labels, num_labels(width),
                                       tokens_as_columns=True, symbol=f"{name}_{{{i + 1}}}")
            out = self.head(p, parts["Q"], parts["K"], parts["V"], dk)
            assert out is not None
            outs.append(out)
        rows_l = self.steps[-1].row_labels if not self.col else self.steps[-1].col_labels
        cat = self.add("concat", "concatenated heads",
                       f"\\operatorname{{Concat}}(\\text{{head}}_1, \\dots, \\text{{head}}_{{{h}}})",
                       f"Concat(head1, …, head{h})", V.concat(outs), rows_l, num_labels(h * dv),
                       tokens_as_columns=True, symbol="\\operatorname{Concat}")
        if "Wo" not in spec.inputs:
            st = self.steps[-1]
            self.steps.append(Step("output", "output (the concatenated heads)",
                                   "O = \\operatorname{Concat}(\\text{head}_1, \\dots)", "O = Concat(heads)",
                                   st.node, st.row_labels, st.col_labels, transposed=st.transposed,
                                   row_node=st.row_node))
            return
        bo = self.inputs.get("bo")
        final = V.matmul(cat, self.row_input("Wo"), bo)
        formula = {"row": "O = \\operatorname{Concat}(\\dots) W^{O}",
                   "torch": "O = \\operatorname{Concat}(\\dots) {W^{O}}^{\\top}",
                   "column": "O = W^{O} \\operatorname{Concat}(\\dots)"}[self.layout]
        text = {"row": "O = Concat·W_o", "torch": "O = Concat·W_oᵀ", "column": "O = W_o·Concat"}[self.layout]
        if bo is not None:
            formula += " + b^{O}"
            text += " + b_o"
        cs, woin = self.shown("concat"), self.inputs["Wo"]
        terms = []
        for t in range(cat.shape[1]):
            if self.layout == "row":
                terms.append((_ref(cs, 0, t), _ref(woin, t, 0)))
            elif self.layout == "torch":
                terms.append((_ref(cs, 0, t), _ref(woin, 0, t)))
            else:
                terms.append((_ref(woin, 0, t), _ref(cs, t, 0)))
        co = self.operand("\\operatorname{Concat}", "concat")
        if self.layout == "row":
            ops = [co, self.input_operand("W^{O}", "Wo", None, None)]
        elif self.layout == "torch":
            ops = [co, self.input_operand("{W^{O}}^{\\top}", "Wo", None, None, transpose=True)]
        else:
            ops = [self.input_operand("W^{O}", "Wo", None, None), co]
        if bo is not None:
            ops.append(Operand("b^{O}", bo, ["1"], num_labels(bo.shape[1])))
        self.add("output", "output (after W_O)", formula, text, final, rows_l, num_labels(final.shape[1]),
                 Example("dot", self.label("O", rows_l[0], "1"), _ref(final, 0, 0), terms=terms,
                         bias=_ref(bo, 0, 0) if bo is not None else None), tokens_as_columns=True,
                 sub=Substitution("product", ops), symbol="O")


def _swap_target(t: str) -> str:
    if "[" not in t:
        return t
    head, rest = t.split("[", 1)
    a, b = rest.rstrip("]").split(", ", 1)
    return f"{head}[{b}, {a}]"


def _scale_formula(scale_text: str, temperature: sympy.Expr) -> tuple[str, str]:
    t = scale_text.replace(" ", "").lower()
    if "\\" in scale_text:  # LaTeX: the standard scale written as \frac{1}{\sqrt{d_k}}?
        from ..read.latex_numbers import parse_latex

        dk = sympy.Symbol("d_k", positive=True)
        if parse_latex(scale_text, {"d_k": dk, "d_v": 1, "d_model": 1, "h": 1}) == 1 / sympy.sqrt(dk):
            t = "1/sqrt(d_k)"
    temp = temperature != 1
    if t == "none":
        f, x = ("\\tilde S = S", "S̃ = S") if not temp else ("\\tilde S = S / T", "S̃ = S/T")
    elif t == "1/sqrt(d_k)":
        f = "\\tilde S = \\frac{S}{\\sqrt{d_k}}" if not temp else "\\tilde S = \\frac{S}{T \\sqrt{d_k}}"
        x = "S̃ = S/√d_k" if not temp else "S̃ = S/(T·√d_k)"
    else:
        f = "\\tilde S = \\tau S" if not temp else "\\tilde S = \\tau S / T"
        x = f"S̃ = τ·S, τ = {scale_text}" if not temp else f"S̃ = τ·S/T, τ = {scale_text}"
    if temp:
        x += f", T = {temperature}"
    return f, x


def _mask_note(conv: object) -> str:
    from ..read.conventions import MASKS

    c = conv  # type: ignore[assignment]
    parts = [f"mask: {MASKS[c.mask]}"]  # type: ignore[attr-defined]
    if c.has_bias:  # type: ignore[attr-defined]
        parts.append("plus the additive bias B")
    mv = c.mask_value  # type: ignore[attr-defined]
    parts.append("masked entries are -inf" if mv == sympy.S.NegativeInfinity
                 else f"masked entries are replaced by {mv}")
    return "; ".join(parts)


def derive(spec: Spec, query: str | int | None = None, *, rounded: bool = False,
           patch: Patch | None = None) -> Derivation:
    """Derive attention for a worked example, step by step.

    ``query`` (a token name or a 1-based index) derives one query row only; it
    overrides the file's ``convention.query``. ``rounded`` treats every input as
    known only to ± half a unit of its last printed digit (the enclosures then hold
    every value the rounding allows). ``patch(name, value)`` may replace a step's
    value before later steps use it (the checker's "local" judgment).
    """
    if not spec.inputs:
        raise SymattnError(f"{spec.source}: the file has no [inputs], so there is nothing to derive")
    q = spec.resolve_query(query, "--query") if query is not None else spec.resolve_query(spec.convention.query)
    b = _Builder(spec, q, rounded=rounded, patch=patch)
    steps, default = b.build()
    conv = spec.convention
    echo = conv.echo(d_k=spec.d_k, d_v=spec.d_v, d_model=spec.d_model, h=conv.heads)
    echo["query"] = spec.query_labels()[q] if q is not None else None
    return Derivation(spec, steps, default, q, echo)
