"""The forward pass: Spec -> Derivation, the ordered list of named steps of attention.

Each step is built by one small function (:func:`projection`, :func:`scores`,
:func:`scaled`, :func:`masked`, :func:`weights`, :func:`weighted`, :func:`output`,
:func:`concat`, :func:`output_projection`) that reads what it needs from the
:class:`Builder` and the current :class:`Head`, adds one :class:`Step` (formula, rule,
value) and passes its value on. A head runs the functions in :data:`HEAD_STEPS` in
order; a variant of attention adds its own step function to that list (or replaces
one) and reads or updates the head's current queries, keys and logits.

>>> import symattn as sa
>>> d = sa.derive(sa.load("i_love_statistics"))
>>> [s.name for s in d.steps]
['Q', 'K', 'V', 'scores', 'scaled', 'weights', 'weighted', 'output']
>>> d["Q"].exact
Matrix([[1/2, 4/5]])
>>> d["scaled"].params["tau"]
sqrt(2)/2
>>> d["weights"].decimals(4)
[['0.3046', '0.3387', '0.3567']]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Sequence

import sympy

from ..errors import SymattnError
from ..exact import nodes as V
from ..limits import WEIGHTED_DEFAULT_MAX
from ..read.spec import Matrix, Spec
from . import positions as PS
from . import rules as R
from . import scores as variant_scores
from .notation import TAU, TEMPERATURE, D_K, Concat, Columns, Given, MatrixSoftmax, matrix
from .steps import Derivation, Operand, Rule, Step, Worked

__all__ = ["derive", "Patch", "num_labels", "Builder", "Head", "HEAD_STEPS", "input_node"]


def num_labels(n: int) -> list[str]:
    """Labels 1..n for an axis without token names."""
    return [str(i + 1) for i in range(n)]


Patch = Callable[[str, V.Node], V.Node]

#: inputs whose rows are tokens
TOKEN_INPUTS = ("X", "X_kv", "Q", "K", "V")
#: the entry names of the forward steps (entries are named in lower case: q, s̃, p)
ENTRY = {"Q": "q", "K": "k", "V": "v", "scores": "s", "scaled": "stilde", "masked": "shat", "weights": "p",
         "output": "o", "concat": "c"}


def input_node(m: Matrix) -> V.Node:
    """An input matrix as a value node (exact rationals as python-flint matrices)."""
    if all(isinstance(x, Fraction) for r in m for x in r):
        return V.rational_matrix(m)
    return V.SympyNode(sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else x
                                      for x in r] for r in m]))


def _head_name(name: str, number: int | None) -> str:
    """``p`` -> ``p^(1)`` for head 1 (entries of different heads have different names)."""
    return name if number is None else f"{name}^({number})"


@dataclass
class Head:
    """What the step functions of one head read and update: the current queries, keys and
    values (row form), the step holding the logits the softmax reads, and the weights."""

    prefix: str
    number: int | None  # 1-based head number, None for a single head
    q: V.Node | None
    k: V.Node | None
    v: V.Node | None
    d_k: int | None
    logits_step: str = ""  # the step with the current logits (scores, scaled, masked, …)
    logits: V.Node | None = None  # its value as later steps use it
    weights: V.Node | None = None
    out: V.Node | None = None
    extra: dict = field(default_factory=dict)  # for variants

    def name(self, step: str) -> str:
        return self.prefix + step

    def entry(self, step: str) -> str:
        return _head_name(ENTRY.get(step, step), self.number)

    def sym(self, name: str) -> str:
        """A matrix symbol's name for this head: ``Q`` -> ``Q_1``."""
        return name if self.number is None else f"{name}_{self.number}"


class Builder:
    """Builds the steps. Each step's value is passed to the next step through ``patch``
    (identity by default): the checker passes a patch that puts the author's printed
    numbers in place, so a step's own value is then its value recomputed from the
    author's numbers (the "local" judgment)."""

    def __init__(self, spec: Spec, query: int | None, rounded: bool = False, patch: Patch | None = None) -> None:
        self.spec = spec
        self.conv = spec.convention
        self.layout = self.conv.layout
        self.col = self.layout == "column"
        self.query = query
        self.rounded = rounded
        self.patch = patch or (lambda name, node: node)
        self.written = {k: self.leaf(k, m) for k, m in spec.inputs.items()}  # as in the file
        self.steps: list[Step] = []
        self.q_all = spec.query_labels()
        self.k_labels = spec.key_labels()
        # query rows computed: the focus only, unless the softmax runs over queries
        if query is not None and self.conv.softmax_axis == "keys":
            self.rows = [query]
        else:
            self.rows = list(range(spec.n_queries))
        self.q_labels = [self.q_all[i] for i in self.rows]
        self.embedded: dict[str, V.Node] = {}  # X + PE (sinusoidal positions), read by the projections

    # -- inputs --
    def leaf(self, name: str, m: Matrix) -> V.Node:
        """An input value; with ``rounded``, each printed number ± half a unit of its last digit."""
        if self.rounded and not self.spec.symbolic:
            ulps = self.spec.input_ulps.get(name)
            if ulps is not None and any(u for r in ulps for u in r):
                return V.IntervalNode(m, [[(u or Fraction(0)) / 2 for u in r] for r in ulps])  # type: ignore[arg-type]
        return input_node(m)

    def input(self, name: str) -> V.Node:
        """An input in row form (tokens as rows, weights (d_in, d_out)): the layout rule of
        :meth:`Spec.row`, applied to the value as written."""
        node = self.written[name]
        return V.transpose(node) if self.spec.stored_transposed(name) else node

    def input_operand(self, name: str, symbol: sympy.Basic, rows: list[int] | None = None,
                      labels: list[str] | None = None, transpose: bool = False) -> Operand:
        """An input matrix as written in the file (its focus rows only), optionally transposed."""
        node = self.written[name]
        token_rows = name in TOKEN_INPUTS and not self.spec.stored_transposed(name)
        token_cols = name in TOKEN_INPUTS and self.spec.stored_transposed(name)
        if rows is not None and token_rows:
            node = V.rows(node, rows)
        elif rows is not None and token_cols:
            node = V.transpose(V.rows(V.transpose(node), rows))
        r = labels if (token_rows and labels) else num_labels(node.shape[0])
        c = labels if (token_cols and labels) else num_labels(node.shape[1])
        if transpose:
            node, r, c = V.transpose(node), c, r
        return Operand(symbol, node, list(r), list(c), given=True, transposed=transpose)

    # -- steps --
    def add(self, name: str, title: str, formula: sympy.Basic, node: V.Node, rows: Sequence[str],
            cols: Sequence[str], *, operands: dict[str, Operand] | None = None, rule: Rule | None = None,
            example: tuple[int, int] = (0, 0), tokens_as_columns: bool = False, notes: list | None = None,
            symbol: sympy.Basic | None = None, entry_name: str = "", substituted: sympy.Basic | None = None,
            params: dict | None = None, given: bool = False) -> V.Node:
        """Add a step and return the value later steps use. ``node`` is in row form; in the
        column layout, token-indexed values (Q, K, V, outputs) are shown transposed, and the
        formula, operands, rule and ``example`` describe the step as shown."""
        node.name_as(name, list(rows), list(cols))
        shown = node
        transposed = tokens_as_columns and self.col
        if transposed:
            shown = V.transpose(node)
            rows, cols = cols, rows
        shown.name_as(name, list(rows), list(cols))
        self.steps.append(Step(name, title, formula, shown, list(rows), list(cols), symbol=symbol,
                               entry_name=entry_name, operands=dict(operands or {}), rule=rule,
                               example=example, substituted=substituted, notes=list(notes or []),
                               params=dict(params or {}), given=given, transposed=transposed, row_node=node))
        return self.patch(name, node)

    def step(self, name: str) -> Step:
        for st in reversed(self.steps):
            if st.name == name:
                return st
        raise KeyError(name)  # pragma: no cover

    def operand(self, name: str, symbol: sympy.Basic, transpose: bool = False) -> Operand:
        """A previous step as an operand, as it is shown (or transposed)."""
        st = self.step(name)
        if transpose:
            return Operand(symbol, V.transpose(st.node), st.col_labels, st.row_labels, st.entry_name, st.given,
                           transposed=True)
        return Operand(symbol, st.node, st.row_labels, st.col_labels, st.entry_name, st.given)

    def build(self) -> tuple[list[Step], list[str]]:
        spec = self.spec
        multi = self.conv.heads > 1 or "Wo" in spec.inputs
        kv_src = "X_kv" if "X_kv" in spec.inputs else "X"
        has_v = "V" in spec.inputs or "Wv" in spec.inputs
        if spec.stage == "scores":
            v = projection(self, "V", kv_src, None, self.k_labels, "values") if has_v else None
            run_head(self, Head("", None, None, None, v, spec.d_k))
        else:
            PS.embed(self)
            q = projection(self, "Q", "X", self.rows, self.q_labels, "queries")
            k = projection(self, "K", kv_src, None, self.k_labels, "keys")
            v = projection(self, "V", kv_src, None, self.k_labels, "values")
            if not multi:
                run_head(self, Head("", None, q, k, v, spec.d_k))
            else:
                heads(self, q, k, v)
        default = [st.name for st in self.steps
                   if not (st.name.split(".")[-1] == "weighted"
                           and not (self.query is not None or st.node.size <= WEIGHTED_DEFAULT_MAX))]
        return self.steps, default


# ---------------------------------------------------------------------------------------
# projections


def _projection_formula(layout: str, tgt: str, src: str, w: str, bias: bool, r: int, c: int) -> tuple:
    """(formula's right side, operand symbols in order) of Q = X W (+ b) in a layout."""
    X = matrix(src)
    W = matrix(f"W^{tgt}")
    if layout == "row":
        rhs, syms = X * W, (X, W)
    elif layout == "torch":
        rhs, syms = X * W.T, (X, W.T)
    else:
        rhs, syms = W * X, (W, X)
    if bias:
        rhs = sympy.MatAdd(rhs, matrix(f"b^{tgt}"), evaluate=False)
    return rhs, syms


def projection(b: Builder, tgt: str, src: str, rows: list[int] | None, labels: list[str], title: str,
               head: Head | None = None) -> V.Node:
    """Q, K or V: given in the file, or projected from X (or X_kv) with W (and a bias)."""
    spec = b.spec
    Y = matrix(tgt)
    if tgt in spec.inputs:
        node = V.rows(b.input(tgt), rows) if rows is not None else b.input(tgt)
        op = b.input_operand(tgt, Y, rows, labels)
        return b.add(tgt, title, Given(Y), node, labels, num_labels(node.shape[1]),
                     operands={"Y": op}, rule=R.given("Y"), tokens_as_columns=True, symbol=Y,
                     entry_name=ENTRY[tgt], given=True)
    w, bname = f"W{tgt.lower()}", f"b{tgt.lower()}"
    emb = PS.embedded_input(b, src, rows, labels)  # X + PE with sinusoidal positions
    x = b.input(src) if emb is None else emb[0]
    if rows is not None and emb is None:
        x = V.rows(x, rows)
    bias = b.written.get(bname)
    node = V.matmul(x, b.input(w), bias)
    src_name = ("X" if src == "X" else "X_kv") + ("" if emb is None else "^pe")
    rhs, (s1, s2) = _projection_formula(b.layout, tgt, src_name, w, bias is not None, 0, 0)
    xo = b.input_operand(src, matrix(src_name), rows, labels) if emb is None else emb[1]
    if b.layout == "row":
        a, c = xo, b.input_operand(w, s2)
    elif b.layout == "torch":
        a, c = xo, b.input_operand(w, s2, transpose=True)
    else:
        a, c = b.input_operand(w, s1), xo
    ops = {"A": a, "B": c}
    if bias is not None:
        ops["b"] = Operand(matrix(f"b^{tgt}"), bias, ["1"], num_labels(bias.shape[1]), given=True)
    # in the column layout the shown Q is (d, n): its bias entry for (t, i) is b[t]
    bias_index = (lambda i, j: (0, i)) if b.col else (lambda i, j: (0, j))
    return b.add(tgt, title, sympy.Eq(Y, rhs, evaluate=False), node, labels, num_labels(node.shape[1]),
                 operands=ops, rule=R.product("A", "B", x.shape[1], "b" if bias is not None else None, bias_index),
                 tokens_as_columns=True, symbol=Y, entry_name=ENTRY[tgt])


# ---------------------------------------------------------------------------------------
# one head: scores, scaled, masked, weights, weighted, output


def scores(b: Builder, h: Head) -> None:
    """S = Q Kᵀ (Qᵀ K in the column layout), or the scores as given."""
    qn, kn = b.q_labels, b.k_labels
    S = matrix(h.sym("S"))
    if h.q is None or h.k is None:
        node = V.rows(b.input("scores"), b.rows)
        op = Operand(S, node, qn, kn, given=True)
        h.logits = b.add(h.name("scores"), "scores (given)", Given(S), node, qn, kn, operands={"S": op},
                         rule=R.given("S"), symbol=S, entry_name=h.entry("scores"), given=True)
        h.logits_step = h.name("scores")
        return
    (qs, Q), (ks, K) = (PS.rotated(h, "Q", h.name("Q"), matrix(h.sym("Q"))),
                        PS.rotated(h, "K", h.name("K"), matrix(h.sym("K"))))  # rotated with RoPE
    if not b.col:
        ops = {"A": b.operand(qs, Q), "B": b.operand(ks, K.T, transpose=True)}
        rhs = Q * K.T
    else:
        ops = {"A": b.operand(qs, Q.T, transpose=True), "B": b.operand(ks, K)}
        rhs = Q.T * K
    h.logits = b.add(h.name("scores"), "scores (query · key)", sympy.Eq(S, rhs, evaluate=False),
                     h.extra.get("scores") or V.matmul(h.q, V.transpose(h.k)), qn, kn, operands=ops,  # RoPE: relative form
                     rule=R.product("A", "B", h.q.shape[1]),
                     symbol=S, entry_name=h.entry("scores"))
    h.logits_step = h.name("scores")


def _scale_kind(scale_text: str) -> str:
    """``none``, ``sqrt`` (the standard 1/√d_k, however written) or ``custom``."""
    t = scale_text.replace(" ", "").lower()
    if t == "none":
        return "none"
    if t == "1/sqrt(d_k)":
        return "sqrt"
    if "\\" in scale_text:  # LaTeX: the standard scale written as \frac{1}{\sqrt{d_k}}?
        from ..read.latex_numbers import parse_latex

        try:
            if parse_latex(scale_text, {"d_k": D_K, "d_v": 1, "d_model": 1, "h": 1}) == 1 / sympy.sqrt(D_K):
                return "sqrt"
        except Exception:  # noqa: BLE001 - any other scale is shown as τ
            pass
    return "custom"


def scaled(b: Builder, h: Head) -> None:
    """S̃ = τ S with τ = scale / temperature (S/√d_k for the standard scale). τ is computed
    here once; every later use reads it from this step's ``params``."""
    conv, spec = b.conv, b.spec
    tau = conv.tau(d_k=h.d_k, d_v=spec.d_v or None, d_model=spec.d_model, h=conv.heads)
    kind, temp = _scale_kind(conv.scale_text), conv.temperature
    S, St = b.step(h.logits_step).symbol or matrix(h.sym("S")), matrix(h.sym("Stilde"))
    notes: list = []
    if kind == "none":
        rhs = S if temp == 1 else S / TEMPERATURE
        divisor = None if temp == 1 else temp
    elif kind == "sqrt":
        rhs = S / sympy.sqrt(D_K) if temp == 1 else S / (TEMPERATURE * sympy.sqrt(D_K))
        divisor = sympy.sqrt(h.d_k) * temp if h.d_k else None
    else:
        rhs = TAU * S if temp == 1 else TAU * S / TEMPERATURE
        divisor = None
    if kind == "custom" or divisor is None and tau != 1:
        notes.append(["scale: ", sympy.Eq(TAU, tau, evaluate=False), f" ({conv.scale_text})"
                      + (f" divided by the temperature T = {temp}" if temp != 1 else "")])
    elif temp != 1:
        notes.append(["temperature: ", sympy.Eq(TEMPERATURE, temp, evaluate=False)])
    rule = R.scale("S", divisor=divisor) if divisor is not None else R.scale("S", factor=tau)
    assert h.logits is not None
    h.logits = b.add(h.name("scaled"), "scaled scores", sympy.Eq(St, rhs, evaluate=False), V.scale(h.logits, tau),
                     b.q_labels, b.k_labels, operands={"S": b.operand(h.logits_step, S)}, rule=rule, notes=notes,
                     symbol=St, entry_name=h.entry("scaled"),
                     substituted=sympy.MatMul(tau, S) if tau != 1 else S, params={"tau": tau})
    h.logits_step = h.name("scaled")


def masked(b: Builder, h: Head) -> None:
    """Ŝ = S̃ + B + M: an additive bias and the mask (−∞, or a finite value replacing the score)."""
    spec, conv = b.spec, b.conv
    if conv.mask == "none" and spec.score_bias is None and conv.window is None:
        return
    from ..read.conventions import MASKS
    from .structure import window_note

    qn, kn = b.q_labels, b.k_labels
    neg_all, rep_all = spec.masked_pairs()
    pos = {orig: new for new, orig in enumerate(b.rows)}
    neg = {(pos[i], j) for (i, j) in neg_all if i in pos}
    rep = {(pos[i], j): conv.mask_value for (i, j) in rep_all if i in pos}
    bias = None
    if spec.score_bias is not None:
        bias = V.rows(b.leaf("bias", [[x if not (isinstance(x, sympy.Expr) and x.is_infinite) else Fraction(0)
                                       for x in r] for r in spec.score_bias]), b.rows)
    assert h.logits is not None
    node = V.masked(h.logits, bias, neg, rep)
    St, Sh, B, M = matrix(h.sym("Stilde")), matrix(h.sym("Shat")), matrix("B"), matrix("M")
    ops = {"S": b.operand(h.logits_step, b.step(h.logits_step).symbol or St)}
    keys = ["S"]
    if bias is not None:
        ops["B"] = Operand(B, bias, qn, kn, given=True)
        keys.append("B")
    mask_m = V.SympyNode(sympy.Matrix(len(b.rows), spec.n_keys, lambda i, j: (
        -sympy.oo if (int(i), int(j)) in neg else (conv.mask_value if (int(i), int(j)) in rep else 0))))
    ops["M"] = Operand(M, mask_m, qn, kn, given=True)
    rhs = sympy.MatAdd(*[o.symbol for o in ops.values()], evaluate=False)
    i0, j0 = min(neg | set(rep)) if (neg or rep) else (0, 0)
    note = [f"mask: {MASKS[conv.mask]}" + (window_note(conv, spec.n_queries, spec.n_keys) if conv.window else "")
            + ("; plus the additive bias B" if bias is not None else "")
            + "; masked entries are ", conv.mask_value,
            "" if conv.mask_value == -sympy.oo else " (replacing the score)"]
    h.logits = b.add(h.name("masked"), "masked scores", sympy.Eq(Sh, rhs, evaluate=False), node, qn, kn,
                     operands=ops, rule=R.add(keys, lambda i, j: -sympy.oo if (i, j) in neg else rep.get((i, j))),
                     example=(i0, j0), notes=[note], symbol=Sh, entry_name=h.entry("masked"))
    h.logits_step = h.name("masked")


def weights(b: Builder, h: Head) -> None:
    """P = softmax(Ŝ) over keys (each row sums to 1) or over queries, or divided by the sum."""
    conv = b.conv
    logits = b.step(h.logits_step)
    assert h.logits is not None
    node = V.normalize(h.logits, conv.normalization, conv.softmax_axis, conv.masked_rows)
    wrows = b.q_labels
    over_q = conv.softmax_axis == "queries"
    row = (lambda i: i)
    if over_q and b.query is not None:
        node = V.rows(node, [b.query])
        wrows = [b.q_all[b.query]]
        focus = b.query
        row = (lambda i: focus)
    P = matrix(h.sym("P"))
    kind = "softmax" if conv.normalization == "softmax" else "sum"
    rhs = MatrixSoftmax(logits.symbol, "queries" if over_q else "keys", kind)
    length = logits.shape[0] if over_q else logits.shape[1]
    note = "each column sums to 1" if over_q else "each row sums to 1"
    if kind == "sum":
        note += " (dividing by the sum instead of a softmax)"
    h.weights = b.add(h.name("weights"), "attention weights", sympy.Eq(P, rhs, evaluate=False), node, wrows,
                      b.k_labels, operands={"S": b.operand(h.logits_step, logits.symbol)},
                      rule=R.softmax("S", over_q, kind, row, length), notes=[[note]], symbol=P,
                      entry_name=h.entry("weights"))


def weighted(b: Builder, h: Head) -> None:
    """The terms p_ij v_j of the output before they are summed: shape (queries, keys, d_v)."""
    if h.v is None or h.weights is None:
        return
    wst = b.step(h.name("weights"))
    node = V.weighted(h.weights, h.v)
    node.name_as(h.name("weighted"), wst.row_labels, wst.col_labels, num_labels(h.v.shape[1]))
    p, v = sympy.IndexedBase(sympy.Symbol(h.entry("weights"))), sympy.IndexedBase(sympy.Symbol(h.entry("V")))
    i, j, l = sympy.symbols("i j l", integer=True)
    formula = sympy.Mul(p[i, j], v[j, l], evaluate=False)
    ops = {"P": b.operand(h.name("weights"), matrix(h.sym("P"))),
           "V": b.operand(h.name("V"), matrix(h.sym("V")), transpose=b.col)}

    def rule(at: Callable, i: int, j: int, l: int) -> Worked:
        return Worked([R.times(at("P", i, j), at("V", j, l))])

    b.steps.append(Step(h.name("weighted"), "weighted values (before summing)", formula, node, wst.row_labels,
                        wst.col_labels, depth_labels=num_labels(h.v.shape[1]), operands=ops, rule=rule,
                        example=(0, 0, 0), axis_names=("query", "key", "dim")))


def output(b: Builder, h: Head) -> None:
    """O = P V (V Pᵀ in the column layout): each output is the weights' average of the values."""
    if h.v is None or h.weights is None:
        return
    wst = b.step(h.name("weights"))
    O, P, Vs = matrix(h.sym("O")), matrix(h.sym("P")), matrix(h.sym("V"))
    if not b.col:
        ops = {"A": b.operand(h.name("weights"), P), "B": b.operand(h.name("V"), Vs)}
        rhs = P * Vs
    else:
        ops = {"A": b.operand(h.name("V"), Vs), "B": b.operand(h.name("weights"), P.T, transpose=True)}
        rhs = Vs * P.T
    h.out = b.add(h.name("output"), "attention output", sympy.Eq(O, rhs, evaluate=False), V.attend(h.weights, h.v),
                  wst.row_labels, num_labels(h.v.shape[1]), operands=ops, rule=R.product("A", "B", h.weights.shape[1]),
                  tokens_as_columns=True, symbol=O, entry_name=h.entry("output"))


#: the steps of one head, in order; a variant inserts or replaces step functions here
HEAD_STEPS: list[Callable[[Builder, Head], None]] = [PS.rope, scores, scaled, PS.alibi, masked, weights, weighted,
                                                    output]


def run_head(b: Builder, h: Head, steps: Sequence[Callable[[Builder, Head], None]] | None = None) -> Head:
    """Run the step functions of one head."""
    for fn in steps if steps is not None else variant_scores.head_steps(HEAD_STEPS, b.conv):
        if fn is masked and b.conv.window is not None:
            from .structure import window_step

            window_step(b, h)
        fn(b, h)
    return h


# ---------------------------------------------------------------------------------------
# several heads: slices, one head each, concat, W_O


def head_slices(b: Builder, h: Head, q: V.Node, k: V.Node, v: V.Node) -> None:
    """Head i's Q, K and V: columns i·d_k … (i+1)·d_k − 1 (rows in the column layout)."""
    spec = b.spec
    dk, dv = spec.d_k or 0, spec.d_v
    i = (h.number or 1) - 1
    g = b.conv.kv_head(i)  # grouped-query attention: the key/value head serving head i
    for name, full, width, labels in (("Q", q, dk, b.q_labels), ("K", k, dk, b.k_labels), ("V", v, dv, b.k_labels)):
        n = i if name == "Q" else g
        a, z = n * width + 1, (n + 1) * width
        part = "rows" if b.col else "columns"
        sym = matrix(h.sym(name))
        off = n * width
        shift = (lambda r, c, off=off: (r + off, c)) if b.col else (lambda r, c, off=off: (r, c + off))
        shared = ""
        if name != "Q" and b.conv.groups != b.conv.heads:
            from .structure import kv_title

            shared = f"; {kv_title(b.conv, i)}"
        node = b.add(h.name(name), f"head {i + 1}: {name} ({part} {a}–{z} of {name}{shared})",
                     sympy.Eq(sym, Columns(matrix(name), a, z, rows=b.col), evaluate=False),
                     V.columns(full, off, off + width), labels, num_labels(width),
                     operands={"A": b.operand(name, matrix(name))}, rule=R.copy("A", shift),
                     tokens_as_columns=True, symbol=sym, entry_name=h.entry(name))
        setattr(h, name.lower(), node)


def heads(b: Builder, q: V.Node, k: V.Node, v: V.Node) -> None:
    """Multi-head attention: per head the slices and :data:`HEAD_STEPS`, then the concat and W_O."""
    outs = []
    for i in range(b.conv.heads):
        h = Head(f"head{i + 1}.", i + 1, None, None, None, b.spec.d_k)
        head_slices(b, h, q, k, v)
        run_head(b, h)
        assert h.out is not None
        outs.append(h)
    concat(b, outs)
    output_projection(b)


def concat(b: Builder, hs: list[Head]) -> None:
    """Concat(O₁, …, O_h): the heads' outputs side by side."""
    dv = b.spec.d_v
    rows_l = b.step(hs[0].name("output")).row_labels if not b.col else b.step(hs[0].name("output")).col_labels
    ops = {f"O{h.number}": b.operand(h.name("output"), matrix(h.sym("O"))) for h in hs}
    parts = [(f"O{h.number}", n * dv, dv) for n, h in enumerate(hs)]
    C = matrix("Concat")
    b.add("concat", "concatenated heads", sympy.Eq(C, Concat(*[matrix(h.sym("O")) for h in hs]), evaluate=False),
          V.concat([h.out for h in hs]), rows_l, num_labels(len(hs) * dv), operands=ops,  # type: ignore[misc]
          rule=R.pieces(parts, along_rows=b.col), tokens_as_columns=True, symbol=C, entry_name="c")


def output_projection(b: Builder) -> None:
    """O = Concat W^O (+ b^O); without W_O the output is the concatenation."""
    spec = b.spec
    cat = b.step("concat")
    O, C = matrix("O"), matrix("Concat")
    if "Wo" not in spec.inputs:
        b.steps.append(Step("output", "output (the concatenated heads)", sympy.Eq(O, C, evaluate=False), cat.node,
                            cat.row_labels, cat.col_labels, symbol=O, entry_name="o",
                            operands={"C": b.operand("concat", C)}, rule=R.copy("C", lambda i, j: (i, j)),
                            transposed=cat.transposed, row_node=cat.row_node))
        return
    bo = b.written.get("bo")
    final = V.matmul(cat.value, b.input("Wo"), bo)
    W = matrix("W^O")
    co = b.operand("concat", C)
    if b.layout == "row":
        ops, rhs = {"A": co, "B": b.input_operand("Wo", W)}, C * W
    elif b.layout == "torch":
        ops, rhs = {"A": co, "B": b.input_operand("Wo", W.T, transpose=True)}, C * W.T
    else:
        ops, rhs = {"A": b.input_operand("Wo", W), "B": co}, W * C
    if bo is not None:
        ops["b"] = Operand(matrix("b^O"), bo, ["1"], num_labels(bo.shape[1]), given=True)
        rhs = sympy.MatAdd(rhs, matrix("b^O"), evaluate=False)
    rows_l = cat.row_labels if not cat.transposed else cat.col_labels
    bias_index = (lambda i, j: (0, i)) if b.col else (lambda i, j: (0, j))
    b.add("output", "output (after W_O)", sympy.Eq(O, rhs, evaluate=False), final, rows_l,
          num_labels(final.shape[1]), operands=ops,
          rule=R.product("A", "B", cat.value.shape[1], "b" if bo is not None else None, bias_index),
          tokens_as_columns=True, symbol=O, entry_name="o")


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
    if "K_cache" in spec.inputs:  # a given KV cache: the full pass over the cache and the new tokens
        from .structure import full_pass_spec

        spec = full_pass_spec(spec)
    q = spec.resolve_query(query, "--query") if query is not None else spec.resolve_query(spec.convention.query)
    b = Builder(spec, q, rounded=rounded, patch=patch)
    steps, default = b.build()
    conv = spec.convention
    echo = conv.echo(d_k=spec.d_k, d_v=spec.d_v, d_model=spec.d_model, h=conv.heads)
    scaled_steps = [s for s in steps if s.name.split(".")[-1] == "scaled"]
    if scaled_steps:  # τ as the derivation applied it (read from the scaled step)
        echo["tau"] = str(scaled_steps[0].params["tau"])
    echo["query"] = spec.query_labels()[q] if q is not None else None
    return Derivation(spec, steps, default, q, echo)
