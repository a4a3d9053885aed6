"""Ways of writing numbers met on held-out batch j (tests/pages/heldout/j/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import pytest

import symattn as sa
from import_snippets import claims, imported, notebook
from symattn.analyses.importer import _scores_literal_root, _wo_out_by_in
from symattn.analyses.importer_placer import _not_weights
from symattn.analyses.importer_items import Item, _sum_term, scalar_times
from symattn.read.pages import Line, Where
from symattn.views.draft import draft




# Q = K = V = I (2×2): scores I, scaled I/√2 = [[0.707, 0], [0, 0.707]], weights softmax per row:
# e^0.707 / (e^0.707 + 1) = 0.67 (0.670), the other 0.33 (0.330); every row of the weights sums to 1
QKV = ("import numpy as np\nQ = np.array([[1.0, 0.0], [0.0, 1.0]])\nK = Q\nV = Q\nd_k = 2\n"
       "S = (Q @ K.T) / np.sqrt(d_k)\nprint(np.round(S, 3))\n", "[[0.707 0.   ]\n [0.    0.707]]\n")


def softmax_cell(label):
    return ("A = softmax(S)\nprint(np.round(A, 3))\n" f"print({label!r})\nprint(np.round(A.sum(axis=1), 3))\n",
            f"[[0.67 0.33]\n [0.33 0.67]]\n{label}\n[1. 1.]\n")


# (line printed above the row sums, read as the weights' row sums?): a line naming sums of rows, in English
# or French, names the printout below it even under a heading that names the weights ("Softmax par ligne")
ROW_SUM_LABELS = [
    ("Vérification (somme des lignes de A) :", True),
    ("Sum of each row:", True),
    ("Row sums:", True),
]


@pytest.mark.parametrize("label,is_sum", ROW_SUM_LABELS)
def test_row_sums_named_by_the_line_above(label, is_sum):
    page = notebook("# 2. Scores", QKV, "# 3. Softmax ligne par ligne", softmax_cell(label))
    ex = imported(page, "ipynb")[0]
    got = claims(ex)
    assert (("weights_sum", "1", ("1.",)) in got) == is_sum
    assert not any(c.step == "scaled" and c.values == ["1.", "1."] for c in ex.claims)


# A page that prints one step's matrix and nothing else (no Q, K, V, no weights): the scaled scores as a grid
# of one cell per line (2 decimals) and again as a table by query token (3 decimals). The draft is a file of
# claims only: the table (the most precise printing) first, the grid, read row by row, as its restatement.
GRID = ('<h3>Scaled Scores = Q·K^T / √d_k</h3><div class="grid"><div>0.23</div>\n<div>0.83</div>\n'
        '<div>0.41</div>\n<div>0.82</div></div>\n')
TABLE = ('<p>Score matrix</p>\n<table><tr><th>Query</th><th>Key: a</th><th>Key: b</th></tr>\n'
         '<tr><td>a</td><td>0.226</td><td>0.827</td></tr>\n<tr><td>b</td><td>0.413</td><td>0.820</td></tr></table>\n')

# (page, format, claims (step, row, values, restatement?)); None: no worked example (the page is refused)
PRINTED_ONLY = [
    (GRID + TABLE, "html",
     {("scaled", "a", ("0.226", "0.827"), False), ("scaled", "b", ("0.413", "0.820"), False),
      ("scaled", "a", ("0.23", "0.83"), True), ("scaled", "b", ("0.41", "0.82"), True)}),
    # one matrix named as the scores, alone on the page
    ("Attention scores:\n\n```\n[[1.0, 2.0],\n [3.0, 4.0]]\n```\n", "markdown",
     {("scores", "1", ("1.0", "2.0"), False), ("scores", "2", ("3.0", "4.0"), False)}),
    # the same step printed again with one slip (0.2 and 0.5): still one matrix printed twice; check judges the
    # slip against the first printing (tests/test_check_claims_only.py)
    ("Scaled scores:\n\n[[0.2, 0.8], [0.4, 0.8]]\n\nScaled scores again:\n\n[[0.5, 0.8], [0.4, 0.8]]\n", "markdown",
     {("scaled", "1", ("0.2", "0.8"), False), ("scaled", "2", ("0.4", "0.8"), False),
      ("scaled", "1", ("0.5", "0.8"), True), ("scaled", "2", ("0.4", "0.8"), True)}),
    # two printings that differ in most of their numbers are not one matrix printed twice
    ("Scaled scores:\n\n[[0.2, 0.8], [0.4, 0.8]]\n\nScaled scores again:\n\n[[0.5, 0.1], [0.9, 0.8]]\n", "markdown",
     None),
    # another block of numbers on the page (not the same matrix): no example is made of the weights alone
    ("Attention weights:\n\n[[0.2, 0.8], [0.4, 0.6]]\n\nSome vector: [1, 2, 3]\n", "markdown", None),
    # Q alone is an input without the rest, not a printed step
    ("Q:\n\n[[1.0, 0.0], [0.0, 1.0]]\n", "markdown", None),
]


@pytest.mark.parametrize("page,fmt,want", PRINTED_ONLY)
def test_a_page_that_prints_only_one_step(page, fmt, want):
    if want is None:
        with pytest.raises(sa.SymattnError, match="no worked example"):
            imported(page, fmt)
        return
    (ex,) = imported(page, fmt)
    assert ex.inputs == {} and "inputs" not in ex.data()
    assert {(c.step, c.row, tuple(c.values), c.group is not None) for c in ex.claims} == want
    # the draft file (no [inputs] table) loads back as a file of claims only, which `check` reads
    spec = sa.loads(draft(ex))
    assert spec.inputs == {} and set(spec.claims) >= {c.step for c in ex.claims}


# (code lines, the scores literal the attention code starts from): followed back from softmax's argument
# through masked_fill to a tensor written in the code; None when the code multiplies (Q·Kᵀ is computed)
# or softmax's argument is no literal
ROOTS = [
    (["scores = torch.tensor([[1.0, 2.0], [3.0, 4.0]])", "masked = scores.masked_fill(~keep, float('-inf'))",
      "print(torch.softmax(masked, dim=-1))"], "scores"),
    (["s = np.array([[1.0, 2.0], [3.0, 4.0]])", "w = softmax(s)"], "s"),
    (["scores = torch.tensor([[1.0, 2.0], [3.0, 4.0]])", "scores = Q @ K.T", "w = torch.softmax(scores, -1)"], None),
    (["x = torch.arange(4.0).reshape(2, 2)", "w = torch.softmax(x - x.max(), -1)"], None),
    (["w = torch.softmax(scores, -1)"], None),
]


@pytest.mark.parametrize("code,root", ROOTS)
def test_the_scores_the_attention_code_starts_from(code, root):
    lines = [Line(t, Where(k + 1), "code") for k, t in enumerate(code)]
    assert _scores_literal_root(lines) == root


# a chapter on tensors: a gather demo with `logits` (a name for scores) and `x = arange(12)` printed before the
# mask section, whose code starts from its own scores literal; the masked scores and the softmax printed after.
# The example is the mask section's: scores from the literal, masked = its printout with -inf, weights the
# softmax; `logits` and x are other demos' tensors, listed, not inputs (softmax([2, 5]) = [0.047, 0.953])
CHAPTER = ("```python\nx = torch.arange(4).reshape(2, 2)\nprint('x =', x)\n"
           "logits = torch.tensor([[0.1, 0.7], [0.8, 0.1]])\nprint(logits.gather(1, labels[:, None]))\n"
           "scores = torch.tensor([[1.0, 3.0], [2.0, 5.0]])\n"
           "keep = torch.ones(2, 2, dtype=torch.bool).tril()\n"
           "masked = scores.masked_fill(~keep, float('-inf'))\nprint('masked:', masked)\n"
           "print('after softmax:', torch.softmax(masked, dim=-1).round(decimals=3))\n```\n\n"
           "```text\nx = tensor([[0, 1],\n        [2, 3]])\n"
           "masked: tensor([[1., -inf],\n        [2., 5.]])\n"
           "after softmax: tensor([[1.0000, 0.0000],\n        [0.0470, 0.9530]])\n```\n")


def test_the_example_is_built_on_the_scores_the_mask_code_uses():
    (ex,) = imported(CHAPTER)
    assert ex.inputs["scores"].rows == [["1.0", "3.0"], ["2.0", "5.0"]] and set(ex.inputs) == {"scores"}
    got = claims(ex)
    assert ("masked", "1", ("1.", "-inf")) in got and ("masked", "2", ("2.", "5.")) in got
    assert ("weights", "2", ("0.0470", "0.9530")) in got


# (rows named like weights, not weights?): numbers outside [0, 1] are not weights unless a row of percentages
NOT_WEIGHTS = [
    ([["2", "3", "1"]], True),
    ([["-0.1", "1.1"]], True),
    ([["0.25", "0.75"]], False),
    ([["25", "75"]], False),  # percentages
    ([["1.0000", "0.0000"], ["0.0470", "0.9530"]], False),
]


@pytest.mark.parametrize("rows,not_weights", NOT_WEIGHTS)
def test_numbers_that_cannot_be_weights(rows, not_weights):
    assert _not_weights(rows) == not_weights


# (text before a matrix, text after it, rows, (rows multiplied out, factor)): a number times a matrix after '='
SCALAR_TIMES = [
    ("W^O = \\frac{1}{2} \\cdot \\text{", "]]}", [["1", "0"], ["0", "1"]], ([["1/2", "0"], ["0", "1/2"]], "1/2")),
    ("W = 0.5 * ", "", [["2", "1"]], ([["1", "1/2"]], "0.5")),
    ("W = ½·", "", [["1.0", "3"]], ([["1/2", "3/2"]], "½")),
    ("out = 0.73 * ", " + 0.27 * [[0, 1]]", [["1", "0"]], None),  # a term of a sum, not the matrix
    ("W = ", "", [["1", "0"]], None),  # no factor
    ("A = 2 ", "", [["1", "0"]], None),  # no sign of multiplication
]


@pytest.mark.parametrize("before,after,rows,want", SCALAR_TIMES)
def test_a_number_times_a_matrix(before, after, rows, want):
    assert scalar_times(before, after, rows) == want


# two heads with their own square weights (W_Q1 = W_K1 = W_V1 = I, W_Q2 = … = [[0, 1], [1, 0]], written
# X @ W_h), no scaling, and an output projection printed 2 × 4 (out × in: ½ · [[1, 0, 1, 0], [0, 1, 0, 1]]) that
# multiplies the joined heads (2 × 4) only as X·Wᵀ: the draft reads the torch layout, each head's block of
# rows its W_h transposed; the per-head product rows ("Q2 = X @ W_Q2 → [0, 1]") are no new weights; the
# final output named by the equation's left side: Combined @ W^O = ((0.73 + 0.27)/2, …) = 0.50 everywhere
HEADS = ("Token 1: [1.0, 0.0]\nToken 2: [0.0, 1.0]\n\n$$\nX = \\begin{bmatrix} 1.0 & 0.0 \\\\ 0.0 & 1.0 \\end{bmatrix}\n$$\n\n"
         "### Head 1\n\n```plaintext\nW_Q1 = W_K1 = W_V1 = Identity matrix\n        [[1, 0],\n         [0, 1]]\n```\n\n"
         "Head 1 output: [[0.73, 0.27], [0.27, 0.73]]\n\n"
         "### Head 2\n\nThis time take W\\_Q2 = W\\_K2 = W\\_V2 = \\[\\[0, 1], \\[1, 0]]\n\n"
         "* New Q2 = X @ W\\_Q2 →\n\n  * \"I\" → \\[1, 0] @ \\[\\[0,1],\\[1,0]] = \\[0, 1]\n\n"
         "Attention for “I”:\n\n* Q = \\[0, 1], K1 = \\[0, 1], K2 = \\[1, 0]\n\n"
         "Head 2 output: [[0.27, 0.73], [0.73, 0.27]]\n\n"
         "### Output Projection\n\n$$\nW^O = \\frac{1}{2} \\cdot \\text{[[1, 0, 1, 0], [0, 1, 0, 1]]}\n$$\n\n"
         "Applying it:\n\n$$\n\\text{Final Output} = \\text{Combined} @ W^O\n=\n\\begin{bmatrix}\n0.50 & 0.50 \\\\\n"
         "0.50 & 0.50\n\\end{bmatrix}\n$$\n")


def test_an_output_projection_printed_out_by_in_reads_the_torch_layout():
    (ex,) = imported(HEADS)
    assert ex.convention["layout"].value == "torch" and ex.convention["heads"].value == 2
    assert ex.inputs["Wq"].rows == [["1", "0"], ["0", "1"], ["0", "1"], ["1", "0"]]
    assert ex.inputs["Wo"].rows == [["1/2", "0", "1/2", "0"], ["0", "1/2", "0", "1/2"]]
    got = claims(ex)
    assert ("output", "1", ("0.50", "0.50")) in got and ("head2.output", "1", ("0.27", "0.73")) in got
    assert set(ex.inputs) == {"X", "Wq", "Wk", "Wv", "Wo"}  # the row [0, 1] after W_Q2 is not new weights
    # K1, K2 written under "Head 2" are head 2's keys (X·W_K2: the rows of X swapped)
    assert ("head2.K", "1", ("0", "1")) in got and ("head2.K", "2", ("1", "0")) in got


# (X's width, heads, a head's W shape, Wo's shape, read out × in?)
WO_SHAPES = [(2, 2, (2, 2), (2, 4), True), (2, 2, (2, 2), (4, 2), False), (2, 1, (2, 2), (2, 2), False),
             (3, 2, (3, 1), (3, 2), False)]


@pytest.mark.parametrize("dm,heads,w,wo,torch", WO_SHAPES)
def test_an_output_projection_out_by_in(dm, heads, w, wo, torch):
    def item(shape):
        return Item(rows=[["1"] * shape[1] for _ in range(shape[0])], where=[], line=0, end=0)
    assert _wo_out_by_in(item(wo), item((2, dm)), heads, *w) == torch


# dot products of two vectors written out with no names, two on one line: which query and key each is comes
# from the vectors (rows of Q and K); Q = [[1, 0], [0, 1]], K = [[1, 0], [1, 1]]: q1·k2 = 1, q1·k1 = 1,
# q2·k2 = 1; [2, 2] is no row of Q, so its dot product is listed, not placed
QK = ("```python\nQ = np.array([[1.0, 0.0], [0.0, 1.0]])\nK = np.array([[1.0, 0.0], [1.0, 1.0]])\n"
      "V = np.array([[1.0, 2.0], [3.0, 4.0]])\nweights = softmax(Q @ K.T)\n```\n\n")
VECTOR_DOTS = [
    ("* Dot products: [1, 0] · [1, 1] = 1, [1, 0] · [1, 0] = 1\n", {("scores", "1", ("1", "1"))}),
    ("* Dot product: \\[0, 1] · \\[1, 1] = 1\n", {("scores", "2", ("..", "1"))}),
    ("* Dot product: [2, 2] · [1, 0] = 2\n", set()),
]


@pytest.mark.parametrize("line,want", VECTOR_DOTS)
def test_dot_products_of_vectors_written_out(line, want):
    (ex,) = imported(QK + "## Scores\n\n" + line)
    assert {c for c in claims(ex) if c[0] == "scores"} == want
    if not want:
        assert any("dot product of two vectors" in str(n) for n in ex.unplaced)


# a weighted sum written on one line, "0.67 · [1, 2] + 0.33 · [3, 4] = …": each vector a weight multiplies is the
# value row it equals (V = X·W_v = [[1, 2], [3, 4]], a step derived, not given), when the weight is a weight on that key (X = W_q = W_k = I, scaled by 1/√2:
# softmax([0.707, 0]) = [0.67, 0.33]); a vector that is no row of V, or a weight on no key, is not placed as V
VALUE_TERMS = [
    ("Output for the first token: 0.67 · [1, 2] + 0.33 · [3, 4] = [1.66, 2.66]\n",
     {("V", "1", ("1", "2")), ("V", "2", ("3", "4"))}),
    ("Output for the first token: 0.67 · [5, 6] + 0.33 · [3, 4] = [3.34, 5.34]\n", {("V", "2", ("3", "4"))}),
    ("Output for the first token: 0.5 · [1, 2] + 0.5 · [3, 4] = [2, 3]\n", set()),
]
QKV_I = ("```python\nX = np.array([[1.0, 0.0], [0.0, 1.0]])\nW_q = np.array([[1.0, 0.0], [0.0, 1.0]])\n"
         "W_k = np.array([[1.0, 0.0], [0.0, 1.0]])\nW_v = np.array([[1.0, 2.0], [3.0, 4.0]])\n"
         "Q, K, V = X @ W_q, X @ W_k, X @ W_v\nweights = softmax(Q @ K.T / np.sqrt(2))\n```\n\n")


@pytest.mark.parametrize("line,want", VALUE_TERMS)
def test_value_rows_in_a_weighted_sum_on_one_line(line, want):
    (ex,) = imported(QKV_I + line)
    assert {c for c in claims(ex) if c[0] == "V"} == want


# (text before a vector, text after it, a term of a sum?): LaTeX's \cdot and \times and Markdown's escaped \*
# mark a weight times a vector as well as * and ·
SUM_TERMS = [
    ("= 0.73 \\cdot [1, 0] + 0.27 \\cdot ", " = [0.73, 0.27]", True),
    ("= 0.73 \\times ", " + 0.27 \\times [0, 1]", True),
    ("Output: 0.73 \\* [0, 1] + 0.27 \\* ", " = [0.27, 0.73]", True),
    ("\\text{Output} = ", "", False),
]


@pytest.mark.parametrize("before,after,term", SUM_TERMS)
def test_a_term_of_a_weighted_sum(before, after, term):
    assert _sum_term(before, after) == term
