"""Ways of writing numbers met on held-out batches w and y (tests/pages/heldout/w/, y/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import pytest

from import_snippets import claims, imported, notebook

from symattn.analyses.importer import _heads_project_qkv
from symattn.analyses.importer_code_dims import root_divisor
from symattn.analyses.importer_fused import fused_name, split_fused, splits_into_thirds
from symattn.analyses.importer_grids import shape_that_fits
from symattn.analyses.importer_items import Item, _operation_lead, _step_column, collect
from symattn.analyses.importer_names import step_of_text
from symattn.analyses.importer_sections import outside_attention
from symattn.read.pages.model import Line, Where

# --- a section on another part of a transformer block (the feed-forward layer, the loss) ---------------

# the nearest heading above a line decides; a heading that names attention (or its softmax, its scores)
# keeps the section attention's
SECTIONS = [
    ("Step 6: Feedforward Layer (FFN)", True),
    ("FFN Layer 1 (3 → 3):", True),
    ("Position-wise Feed-Forward Networks", True),
    ("5. FeedForward Block", True),
    ("The MLP", True),
    ("Step 7: Loss Computation", True),
    ("Backpropagation", True),
    ("6. Add & Layer Normalization (Residual Network)", True),
    ("Step 5: Add & Norm", True),
    ("LayerNorm", True),
    ("Positional encoding", False),  # X + PE is attention's input
    ("Step 3: Scaled Dot-Product Attention", False),
    ("Softmax over rows", False),
    ("Attention after the feed-forward layer", False),  # names attention too
    ("Example 2", False),
    ("Lossless scores", False),  # a word that only starts like one
    ("Scaling against a loss of precision", False),  # "loss of": not the loss
]


@pytest.mark.parametrize("heading,outside", SECTIONS)
def test_heading_of_a_section_outside_attention(heading, outside):
    lines = [Line(heading, Where(1), "heading"), Line("", Where(2), "prose"), Line("W = [[1, 2]]", Where(3), "math")]
    assert bool(outside_attention(lines, 2)) is outside


# a worked attention example, then a feed-forward section whose matrices have the output's shape (W_1), a
# hidden H that reads as embeddings, and a loss section with labels that sum to 1: the attention example keeps
# its steps, nothing of the other sections is placed (no second example from H, no "also" output from W_1)
FFN_PAGE = r"""
## Attention

$$
Q = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix},\quad
K = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix},\quad
V = \begin{bmatrix} 2 & 0 \\ 0 & 4 \end{bmatrix}
$$

Scores $QK^T$:

$$
\begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}
$$

Final attention output:

$$
\begin{bmatrix} 1.34 & 1.07 \\ 0.66 & 2.93 \end{bmatrix}
$$

## Step 6: Feedforward Layer (FFN)

$$
W_1 = \begin{bmatrix} 0.1 & 0.2 \\ 0.3 & 0.4 \end{bmatrix}, \quad b_1 = [0, 0]
$$

$$
H = \begin{bmatrix} 0.3 & 0.2 \\ 0.3 & 0.2 \end{bmatrix}
$$

## Step 7: Loss Computation

Take the labels to be `[1.0, 0.0]`.
"""


def test_feed_forward_and_loss_sections_place_nothing():
    exs = imported(FFN_PAGE)
    assert len(exs) == 1
    got = claims(exs[0])
    assert ("output", "1", ("1.34", "1.07")) in got and ("output", "2", ("0.66", "2.93")) in got
    assert {c.step for c in exs[0].claims} == {"scores", "output"}
    assert all(c.group is None for c in exs[0].claims)  # no "printed again" output from W_1
    listed = " ".join(n.text for n in exs[0].notes if n.kind == "unplaced")
    for name in ("W_1", "b_1", "H"):
        assert f"'{name}'" in listed


# --- a score the page defines with its scale ------------------------------------------------------------

# the one score matrix printed under "Score_ij = Q_i·K_j^T / √2", headed "Raw Attention Score Matrix", is the
# scaled scores (the formula defines the page's score); with a block called scaled elsewhere, or with no
# such formula, it stays the scores
DEFINED = r"""
$$
Q = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix},\quad
K = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix},\quad
V = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}
$$

$$
FORMULA
$$

### Raw Attention Score Matrix:

$$
\begin{bmatrix} 0.5 & 0.1 \\ 0.1 & 0.5 \end{bmatrix}
$$
"""
SCORE_FORMULAS = [
    (r"\text{Score}_{ij} = \frac{Q_i \cdot K_j^T}{\sqrt{2}}", "scaled"),
    (r"\text{score}(q, k) = \frac{q \cdot k}{\sqrt{d_k}}", "scores"),  # no Q…K product of the page's names
    (r"\text{Score}_{ij} = Q_i \cdot K_j^T", "scores"),  # no scale in the definition
    (r"S = Q K^T", "scores"),
    (r"\text{Score}_{ij} = \dfrac{Q_i K_j^\top}{\sqrt{d_k}}", "scaled"),
]


# the same in plain text: 'Score_ij = (Q_i · K_j) / √2' over rows one a line
PLAIN_DEFINED = """Q = [[1, 0], [0, 1]]
K = [[1, 0], [0, 1]]
V = [[1, 0], [0, 1]]

Score_ij = (Q_i · K_j) / √2

Raw scores:
[0.5, 0.1]
[0.1, 0.5]
"""


def test_plain_score_defined_with_its_scale():
    assert ("scaled", "1", ("0.5", "0.1")) in claims(imported(PLAIN_DEFINED, "text")[0])


@pytest.mark.parametrize("formula,step", SCORE_FORMULAS)
def test_score_defined_with_its_scale(formula, step):
    exs = imported(DEFINED.replace("FORMULA", formula))
    got = claims(exs[0])
    assert (step, "1", ("0.5", "0.1")) in got  # numbers no step follows (a pasted chat answer's): the words decide


# --- heads that project a printed Q, K and V again ------------------------------------------------------

# MultiHead(Q, K, V) worked from printed Q, K, V (no embeddings) with each head's own weights (joined into
# Wq, one block of columns per head): a printed Q as wide as the joined Wq is tall is what the weights take,
# so no example starts from it as the queries; without heads' weights, or with a Q as wide as the weights'
# output only, it is the queries
def _item(r, c):
    return Item(rows=[["1"] * c for _ in range(r)], where=[Where(1)] * r, line=0, end=0)


HEADS = [
    (2, (4, 4), (3, 4), True),   # W^Q_1, W^Q_2 (4×2 each) joined; Q 3×4 is what they multiply
    (0, (4, 4), (3, 4), False),  # one Wq given whole: Q may be its product (the embeddings unnamed)
    (2, (6, 4), (3, 4), False),  # Q as wide as the weights' output, not their input
    (2, None, (3, 4), False),    # no weights at all
]


@pytest.mark.parametrize("heads,wq,q,want", HEADS)
def test_heads_that_project_printed_qkv(heads, wq, q, want):
    ws = {"Wq": _item(*wq)} if wq else {}
    assert _heads_project_qkv(heads, ws, _item(*q)) is want


# --- a fused Q/K/V projection -------------------------------------------------------------------------

FUSED_NAMES = [
    ("qkv_proj_weight", "weight"), ("self.c_attn.weight", "weight"), ("in_proj_weight", "weight"),
    ("W_qkv", "weight"), ("Wqkv", "weight"), ("qkv:", "product"), ("\\nqkv:", "product"), ("qkv", "product"),
    ("qkv_proj_bias", None), ("grad_qkv", None), ("q", None), ("attn_weights", None), ("qk", None),
]


@pytest.mark.parametrize("name,want", FUSED_NAMES)
def test_fused_projection_names(name, want):
    assert fused_name(name) == want


# x (2×2) and one fused 6×2 weight in nn.Linear's (out, in) layout: rows 1–2 are Wq, 3–4 Wk, 5–6 Wv; the fused
# product printed (2×6) holds Q | K | V side by side. Q = x·Wqᵀ = [[1, 2], [3, 4]]·[[1, 1], [0, 1]]ᵀ =
# [[3, 2], [7, 4]]; K = x·[[0, 1], [1, 0]]ᵀ = [[2, 1], [4, 3]]; V = x·[[2, 0], [0, 2]]ᵀ = 2x
FUSED_NB = notebook(
    ("x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])\n"
     "qkv_proj_weight = torch.tensor([[1.0, 1.0], [0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [0.0, 2.0]])\n"
     "qkv = x @ qkv_proj_weight.T\nprint(qkv)",
     "tensor([[3., 2., 2., 1., 2., 4.],\n        [7., 4., 4., 3., 6., 8.]])\n"),
    ("q, k, v = qkv.split(2, dim=1)\natt = q @ k.T / math.sqrt(2)\nprint(att)", None),
)


SPLITS = [
    ("q, k, v = torch.split(qkv, C, dim=1)", True),
    ("q, k, v = self.c_attn(x).split(self.n_embd, dim=2)", True),
    ("q, k, v = qkv.chunk(3, dim=-1)", True),
    ("q, k, v = qkv.unbind(0)", True),
    ("q, k, v = x @ wq, x @ wk, x @ wv", False),
    ("# q, k, v = qkv.split(C)", False),
]


@pytest.mark.parametrize("line,want", SPLITS)
def test_code_that_splits_a_fused_product(line, want):
    assert splits_into_thirds([line]) is want


def test_fused_weight_left_whole_when_the_code_never_splits_it():
    w = _item(6, 2)
    w.label = "qkv_proj_weight"
    assert split_fused([w], ["qkv = x @ qkv_proj_weight.T", "q = qkv"]) == [w]
    assert [p.step for p in split_fused([w], ["q, k, v = qkv.split(2, dim=1)"])] == ["Wq", "Wk", "Wv"]


def test_fused_weight_and_product_split_into_q_k_v():
    ex = imported(FUSED_NB, "notebook")[0]
    assert ex.spec.inputs["Wq"] == [[1, 1], [0, 1]]
    assert ex.spec.inputs["Wk"] == [[0, 1], [1, 0]]
    assert ex.spec.inputs["Wv"] == [[2, 0], [0, 2]]
    assert ex.spec.convention.layout == "torch"
    got = claims(ex)
    assert ("Q", "1", ("3.", "2.")) in got and ("K", "2", ("4.", "3.")) in got and ("V", "2", ("6.", "8.")) in got


# --- whole numbers the code sets, and the one it divides the scores by the root of --------------------

CODE_DIMS = [
    (["C = 4", "n_heads = 2", "head_dim = C // n_heads", "s = q @ k.T / math.sqrt(head_dim)"], ("head_dim", 2)),
    (["d_model = 8", "h = 4", "d_k = d_model // h", "s = q @ k.T / d_k ** 0.5"], ("d_k", 2)),
    (["self.d = 6", "self.dk = self.d / 3", "s = q @ k.T * self.dk ** -0.5"], ("dk", 2)),
    (["d = 7", "h = 2", "dk = d / h", "s = q @ k.T / math.sqrt(dk)"], None),  # 7/2 is no whole number
    (["dk = 4", "dk = 8", "s = q @ k.T / np.sqrt(dk)"], None),  # set twice: not one number
    (["dk = 4", "s = q @ k.T / np.sqrt(dk)", "t = s / np.sqrt(dv)"], None),  # two different roots
    (["s = q @ k.T / np.sqrt(q.shape[-1])"], None),  # a shape, not a number the code sets
    (["head_dim = 2", "self.scale = head_dim ** -0.5", "att = (q @ k.T) * self.scale"], ("head_dim", 2)),
    (["d_k = 3", "scaling = float(d_k) ** -0.5", "q = q * scaling"], ("d_k", 3)),
    (["d_k = 5", "norm = math.sqrt(d_k)", "s = q @ k.T / norm"], ("d_k", 5)),
    (["d_k = 6", "att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d_k))"], ("d_k", 6)),
    (["d_k = 6", "scale = d_k ** -0.5"], None),  # defined, never used
]


def test_root_division_looked_for_in_the_example_only():
    lines = [Line(t, Where(k + 1), "code") for k, t in enumerate(
        ["d_k = 64", "s = q @ k.T / math.sqrt(d_k)", "toy = Q @ K.T / np.sqrt(K.shape[-1])"])]
    assert root_divisor(lines)[:2] == ("d_k", 64)
    assert root_divisor(lines, lines[2:]) is None  # the toy example's own division names no number


@pytest.mark.parametrize("code,want", CODE_DIMS)
def test_root_the_code_divides_by(code, want):
    lines = [Line(t, Where(k + 1), "code") for k, t in enumerate(code)]
    got = root_divisor(lines)
    assert (got[:2] if got else None) == want


# the code divides by √head_dim (head_dim = C // n_heads = 2) though Q is 4 wide and never split into heads:
# the scale is 1/√2, as the code computes (the printed scores 404/√2 = 285.6711 follow only that)
HEAD_DIM_NB = notebook(
    ("C = 4\nn_heads = 2\nhead_dim = C // n_heads\n"
     "q = torch.tensor([[3.0, 7.0, 11.0, 15.0]])\nk = torch.tensor([[3.0, 7.0, 11.0, 15.0]])\n"
     "v = torch.tensor([[1.0, 2.0, 3.0, 4.0]])\natt = q @ k.T / math.sqrt(head_dim)\nprint(att)",
     "tensor([[285.6711]])\n"),
)


def test_scale_of_a_head_dim_the_code_sets():
    ex = imported(HEAD_DIM_NB, "notebook")[0]
    assert ex.spec.convention.scale_text == "1/sqrt(2)"
    assert ("scaled", "1", ("285.6711",)) in claims(ex)


# --- scores named after the softmax are the weights --------------------------------------------------------

AFTER_SOFTMAX = [
    ("Attention Scores (depois do Softmax):", "weights"),
    ("Scores after softmax:", "weights"),
    ("attention scores after the softmax", "weights"),
    ("Attention Scores (depois da máscara):", "scores"),
    ("Scores after scaling:", "scaled"),
    ("Scores before softmax:", "scores"),
]


@pytest.mark.parametrize("label,step", AFTER_SOFTMAX)
def test_scores_after_softmax(label, step):
    assert step_of_text(label) == step


# --- an HTML table whose every column is a matrix of bracketed vectors, its header naming it --------------

# | Query(Q) | over one cell, | Key(K) | Value(V) | over two: Q, K and V given as inputs, a cell a row
STEP_COLUMNS = """<p>The query:</p>
<table><thead><tr><th>Query(Q)</th></tr></thead><tbody><tr><td>[0.5, 0.5]</td></tr></tbody></table>
<p>Keys and values:</p>
<table><thead><tr><th>Key(K)</th><th>Value(V)</th></tr></thead>
<tbody><tr><td>[1, 0]</td><td>[2, 0]</td></tr><tr><td>[1, 1]</td><td>[0, 2]</td></tr></tbody></table>
<p>Q·K<sup>T</sup> = [0.5, 1.0]</p>
"""


def test_table_of_step_columns():
    ex = imported(STEP_COLUMNS, "html")[0]
    assert ex.spec.inputs["Q"] == [[0.5, 0.5]]
    assert ex.spec.inputs["K"] == [[1, 0], [1, 1]]
    assert ex.spec.inputs["V"] == [[2, 0], [0, 2]]
    assert ("scores", "1", ("0.5", "1.0")) in claims(ex)


STEP_HEADERS = [("Query(Q)", "Q"), ("Key (K)", "K"), ("Value(V)", "V"), ("K", "K"), ("Keys", "K"),
                ("Word", None), ("벡터", None)]


@pytest.mark.parametrize("header,step", STEP_HEADERS)
def test_step_column_headers(header, step):
    assert _step_column(header) == step


# --- a line that opens with the operation it writes out on numbers -----------------------------------------

# 'Softmax: [exp(…)/(…), …] = [0.5, 0.5]' names its result the weights; 'Output = 0.5*[1,0] + 0.5*[0,1] =
# [0.5, 0.5]' is the sum's result (the output), not the product of its last term; the output is placed
# though it has the same numbers as Q
OPERATION_LINES = r"""
Q = [0.5, 0.5]
K = [[1, 0], [0, 1]]
V = [[1, 0], [0, 1]]

- Q·K^T = [0.5, 0.5]
- Scaling: [0.5/1.414, 0.5/1.414] ≈ [0.354, 0.354]
- Softmax: [exp(0.354)/(exp(0.354)+exp(0.354)), exp(0.354)/(exp(0.354)+exp(0.354))] = [0.5, 0.5]
- Output = 0.5*[1,0] + 0.5*[0,1] = [0.5,0.5]
"""


def test_lines_that_open_with_their_operation():
    got = claims(imported(OPERATION_LINES)[0])
    assert ("weights", "1", ("0.5", "0.5")) in got
    assert ("output", "1", ("0.5", "0.5")) in got


OPERATION_LEADS = [
    ("Softmax: [exp(0.354)/(exp(0.354)+exp(0.354)), exp(0.354)/(exp(0.354)+exp(0.354))] = ", "Softmax"),
    ("- Scaling: [0.5/1.414, 0.5/1.414] ≈ ", "Scaling"),
    ("Output: [0.5, 0.5] × V = ", ""),  # a product with V: its result is not what the lead names alone
    ("Softmax: [1, 2] = [0.27, 0.73], so y = ", ""),  # another name given after it
    ("Row 2: [0, 1, 1, 1] W = ", ""),
    ("Softmax: [1, 2]", ""),  # no '=' before the block
]


@pytest.mark.parametrize("before,want", OPERATION_LEADS)
def test_operation_leads(before, want):
    assert _operation_lead(before) == want


# --- a matrix written as plain text, one bracketed row a line under the line naming it ---------------------

# X (rows with "← token" comments), Kᵀ, S, a bare "≈" under a caption, A and Y: each one matrix; rows with
# names of their own ("q1 = […]") or "Row 2:" before them stay rows
STACKED = """```
X =
[ 1  0 ]   ← token 1 ("I")
[ 0  2 ]   ← token 2 ("code")
```

```
W_Q = W_K = W_V = I₂
```

So:

```
Q = X
K = X
V = X
```

```
S =
[ 1  0 ]
[ 0  4 ]
```

Scaled scores:

```
≈
[ 0.707  0     ]
[ 0      2.828 ]
```

```
A =
[ 0.67  0.33 ]
[ 0.06  0.94 ]
```

```
Y =
[ 0.67  0.66 ]
[ 0.06  1.88 ]
```
"""


def test_rows_stacked_under_their_name():
    ex = imported(STACKED)[0]
    got = claims(ex)
    for step, rows in (("scores", (("1", "0"), ("0", "4"))), ("scaled", (("0.707", "0"), ("0", "2.828"))),
                       ("weights", (("0.67", "0.33"), ("0.06", "0.94"))), ("output", (("0.67", "0.66"), ("0.06", "1.88")))):
        for r, row in enumerate(rows, 1):
            assert (step, str(r), row) in got


STACKED_ROWS = [
    ("S =\n[ 1  0 ]\n[ 0  1 ]\n", "scores", (2, 2)),
    ("Kᵀ =\n[ 1  2 ]\n[ 3  4 ]\n", "K", (2, 2)),
    ("A =\n[ 0.5  0.5 ]\n[ 0.2  0.8 ]   # second token\n", "weights", (2, 2)),
    ("Weights:\n[0.5, 0.5],\n[0.2, 0.8]\n", "weights", (2, 2)),  # rows ending in a comma
    ("S =\n[ 1  0 ]\n\n[ 0  1 ]\n", None, None),  # a blank line between: not one matrix
    ("S =\n[ 1  0 ]\n[ 0  1  2 ]\n", None, None),  # rows of different widths
    ("q1 = [ 1  0 ]\nk1 = [ 0  1 ]\n", None, None),  # each row named on its own
    ("Row 1:\n[ 1  0 ]\nRow 2:\n[ 0  1 ]\n", None, None),
]


@pytest.mark.parametrize("text,step,shape", STACKED_ROWS)
def test_stacked_rows(text, step, shape):
    from symattn.read.pages import read_page

    page = read_page("```\n" + text + "```\n", "markdown", source="s.md")
    mats = [it for it in collect(page).items if it.kind == "matrix"]
    if step is None:
        assert not mats
    else:
        assert [(m.step, m.shape) for m in mats] == [(step, shape)]


# --- an exercise's grids copied one number a line, an arrow before the expected output ---------------------

# Q [[1.0, 2], [3, 4]], K [[1.0, 1], [0, 0]], V [[2.0, 2], [3, 3]] ↓ the output (softmax([3, 0]/√2) = [0.893,
# 0.107]: 0.893·2 + 0.107·3 = 2.107; softmax([7, 0]/√2) = [0.993, 0.007]: 2.007), then a second example (2×3,
# every score equal, so each row averages V) ↓ its output. 1×4 and 4×1 give other outputs: only 2×2 fits.
GRIDS = "\n".join(["Examples:", ""] + "1.0 2 3 4 1.0 1 0 0 2.0 2 3 3".split() + ["↓"]
                  + "2.1070 2.1070 2.0070 2.0070 1.0 0 1 0 1 1 1.0 1 0 0 0 1 1.0 2 3 4 5 6".split() + ["↓"]
                  + "2.5 3.5 4.5 2.5 3.5 4.5".split() + ["", "Divide the scores by the square root of d_k."])


def test_grids_one_number_a_line():
    exs = imported(GRIDS, "text")
    assert len(exs) == 2
    assert exs[0].spec.inputs["Q"] == [[1, 2], [3, 4]] and exs[0].spec.inputs["V"] == [[2, 2], [3, 3]]
    assert claims(exs[0]) == {("output", "1", ("2.1070", "2.1070")), ("output", "2", ("2.0070", "2.0070"))}
    assert exs[1].spec.inputs["K"] == [[1, 1, 0], [0, 0, 1]]
    assert claims(exs[1]) == {("output", "1", ("2.5", "3.5", "4.5")), ("output", "2", ("2.5", "3.5", "4.5"))}


SHAPES = [
    ("1.0 2 3 4", "1.0 1 0 0", "2.0 2 3 3", "2.1070 2.1070 2.0070 2.0070", True, (2, 2, 2, 2)),
    ("1.0 2 3 4", "1.0 1 0 0", "2.0 2 3 3", "2.2 2.2 2.0 2.0", True, None),  # no shape gives these digits
    ("1 0 0 1", "1 0 0 1", "1 1 1 1", "1 1 1 1", True, None),  # V all ones: every shape gives it (ambiguous)
    ("1 2", "3 4", "5 6", "5 6", True, (1, 2, 1, 2)),  # one key gives V back; as 2×1, softmax([3, 4]) mixes 5, 6
    # one query over three keys, V one wide: Q [1, 0], K [[1, 0], [0, 1], [0, 0]], V [[3], [0], [0]];
    # softmax([1, 0, 0]) = [0.576, 0.212, 0.212] unscaled: 3 · 0.57612 = 1.728
    ("1 0", "1 0 0 1 0 0", "3 0 0", "1.728", False, (1, 2, 3, 1)),
    ("1 2 3", "1 2 3", "1 2 3", "1 2 3 4", True, None),  # an output no shape has
]


@pytest.mark.parametrize("q,k,v,out,scaled,want", SHAPES)
def test_grid_shape_that_fits(q, k, v, out, scaled, want):
    assert shape_that_fits(q.split(), k.split(), v.split(), out.split(), scaled) == want


# a column of bare numbers 1.0, 2, 3, 4 is numbers one a line, not a listing numbered 1, 2, 3, 4; a listing
# copied with its line numbers still loses them
@pytest.mark.parametrize("text,first", [("1.0\n2\n3\n4\n", "1.0"), ("1x = [1, 2]\n2y = [3, 4]\n3z = x\n", "x = [1, 2]")])
def test_bare_number_column_is_no_numbered_listing(text, first):
    from symattn.read.pages import read_page

    assert read_page(text, "text", source="t.txt").lines[0].text == first


# the grids each under a line naming them (query, key, value, output), K and V with more rows than Q: one
# query [1, 0] over three keys, unscaled ("no scaling"): softmax([1, 0, 0]) · [3, 0, 0] = 1.728
NAMED_GRIDS = "\n".join(["No scaling is applied.", "", "query"] + "1 0".split() + ["key"] + "1 0 0 1 0 0".split()
                        + ["value"] + "3 0 0".split() + ["output", "1.728", ""])


def test_named_grids_one_number_a_line():
    ex = imported(NAMED_GRIDS, "text")[0]
    assert ex.spec.inputs["Q"] == [[1, 0]] and ex.spec.inputs["K"] == [[1, 0], [0, 1], [0, 0]]
    assert ex.spec.inputs["V"] == [[3], [0], [0]]
    assert claims(ex) == {("output", "1", ("1.728",))}


# the grid bound (256 numbers a grid): at it, one key gives V back and only 1×256 fits; one past it, the same
# construction is not tried (257 is prime: 1×257 would fit)
@pytest.mark.parametrize("n,want", [(256, (1, 256, 1, 256)), (257, None)])
def test_grid_bound(n, want):
    zeros, vals = ["0"] * n, [str(i) for i in range(n)]
    assert shape_that_fits(zeros, zeros, vals, vals, True) == want
