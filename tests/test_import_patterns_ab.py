"""Ways of writing numbers met on held-out batch ab (tests/pages/heldout/ab/), as tables of (snippet, what it
must yield). Each expected value was read off the snippet by hand."""

import pytest

from import_snippets import claims, imported

from symattn.analyses.importer_names import product_step, step_of_ident

# a product of two symbols written alone before '=' names the product, not its last factor
PRODUCTS = [
    (r"\mathbf{Q} \mathbf{K}^T", "scores"),
    (r"QK^\top", "scores"),
    (r"\mathbf{A}_{\text{Row 3}} \times \mathbf{V}", "output"),
    (r"A \cdot V", "output"),
    (r"X W_Q", "Q"),
    (r"X W^V", "V"),
    (r"Q K", None),  # K not transposed: no step
    (r"A B", None),
    (r"W_Q X", None),  # the torch order is not read here
    (r"\text{softmax}(S)", None),
]


@pytest.mark.parametrize("formula,want", PRODUCTS)
def test_the_step_a_written_product_makes(formula, want):
    assert product_step(formula) == want


# a subscript saying 'scaled' on a scores name names the scaled scores
SCALED_TAGS = [
    (r"QK^T_{\text{scaled}}", "scaled"),
    (r"S_{scaled}", "scaled"),
    (r"scores_scaled", "scaled"),
    (r"QK^T", "scores"),
    (r"K_{scaled}", None),  # a key matrix is not a score
    (r"X_{\mathrm{scaled}}", None),
]


@pytest.mark.parametrize("name,want", SCALED_TAGS)
def test_a_scaled_subscript(name, want):
    assert step_of_ident(name) == want


# Q, K, V given; QKᵀ written first as its two factors with no result (Q's numbers, 2×2 like the scores: a
# factor must not be taken for the scores), then with its result; the scaled scores under QK^T_scaled; the
# softmax of "Row 2" and A_Row2 × V: the second query's weights and output (not the first's, not V's)
PAGE = r"""
$$
\mathbf{Q} = \begin{bmatrix} 1 & 0 \\ 1 & 1 \end{bmatrix}, \quad
\mathbf{K} = \begin{bmatrix} 2 & 0 \\ 0 & 2 \end{bmatrix}, \quad
\mathbf{V} = \begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}
$$

$$
\mathbf{Q} \mathbf{K}^T =
\begin{bmatrix}
1 & 0 \\
1 & 1
\end{bmatrix}
\begin{bmatrix}
2 & 0 \\
0 & 2
\end{bmatrix}
$$

$$
\mathbf{Q} \mathbf{K}^T =
\begin{bmatrix}
2 & 0 \\
2 & 2
\end{bmatrix}
$$

Divided by $\sqrt{d_k} = \sqrt{2}$:

$$
\mathbf{QK^T}_{\text{scaled}} =
\begin{bmatrix}
1.414 & 0 \\
1.414 & 1.414
\end{bmatrix}
$$

$$
\text{Softmax}(\text{Row 2}) = \begin{bmatrix}
0.5 & 0.5
\end{bmatrix}
$$

$$
\mathbf{A}_{\text{Row 2}} \times \mathbf{V} =
[2, 3]
$$
"""


def test_products_factors_and_rows_named_in_displays():
    (ex,) = imported(PAGE)
    assert ex.inputs["Q"].rows == [["1", "0"], ["1", "1"]]
    got = claims(ex)
    assert ("scores", "1", ("2", "0")) in got and ("scores", "2", ("2", "2")) in got
    assert ("scaled", "1", ("1.414", "0")) in got and ("scaled", "2", ("1.414", "1.414")) in got
    assert ("weights", "2", ("0.5", "0.5")) in got
    assert ("output", "2", ("2", "3")) in got
    everything = {(c.step, c.row, tuple(c.values)) for c in ex.claims}
    assert not any(s in ("scores", "scaled") and v == ("1", "0") for s, _, v in everything)  # the factor Q
    assert not any(s in ("weights", "V") and r == "1" and v in (("0.5", "0.5"), ("2", "3")) for s, r, v in everything)


# one query's steps printed as vectors under code names with its index, from random inputs never printed
RUNS = [
    ([("output", 2, ["1.0"]), ("scores", 2, ["3.0", "1.0"]), ("weights", 2, ["0.9", "0.1"]), ("output", 2, ["2.0"])],
     [[0], [1, 2, 3]]),  # back to the scores: another example
    ([("scores", 2, ["3.0"]), ("scores", 2, ["3.0"]), ("weights", 2, ["1.0"])], [[0, 1, 2]]),  # a restatement
    ([("scores", 2, ["3.0"]), ("scores", 2, ["4.0"])], [[0], [1]]),  # the same row with other numbers
    ([("weights", 1, ["1.0"]), ("weights", 2, ["1.0"]), ("output", 1, ["5"])], [[0, 1, 2]]),
]


@pytest.mark.parametrize("found,want", RUNS)
def test_runs_of_one_query_steps(found, want):
    from symattn.analyses.importer_one_query import runs_in_order
    assert runs_in_order(found) == want


def _one_query_nb(weights: str, second: bool = False, scores: bool = True):
    from import_snippets import notebook
    cells = [("torch.manual_seed(123)\nx = torch.rand(3, 4)", None)]
    if second:
        cells.append(("context_vec_2 = attention_weights[1] @ x\ncontext_vec_2", "tensor([ 0.2500, -1.5000])\n"))
    if scores:
        cells.append(("omega_2 = query_2 @ keys.T\nomega_2", "tensor([ 2.0000,  0.0000, -2.0000])\n"))
    cells += [("attention_weights_2 = F.softmax(omega_2 / 4**0.5, dim=0)\nattention_weights_2",
               f"tensor([{weights}])\n"),
              ("context_vector_2 = attention_weights_2 @ values\ncontext_vector_2", "tensor([ 0.5000, -1.2500])\n")]
    return notebook(*cells)


def test_scores_from_random_inputs_named_by_index_are_that_row():
    # softmax([2, 0, -2] / √4) = softmax([1, 0, -1]) = [0.6652, 0.2447, 0.0900]; the scores start a file of
    # claims, all of the second query's row (omega_2), not the first's; the output has no V to be made from
    (ex,) = imported(_one_query_nb("0.6652, 0.2447, 0.0900"), "notebook")
    assert not ex.inputs
    assert claims(ex) == {("scores", "2", ("2.0000", "0.0000", "-2.0000")),
                          ("weights", "2", ("0.6652", "0.2447", "0.0900"))}
    assert (ex.convention["scale"].value, ex.convention["d_k"].value) == ("1/sqrt(d_k)", 4)


def test_one_query_steps_named_by_index():
    # no scores printed: the weights and the output of the second query are claims of row 2
    (ex,) = imported(_one_query_nb("0.6652, 0.2447, 0.0900", scores=False), "notebook")
    assert not ex.inputs
    assert claims(ex) == {("weights", "2", ("0.6652", "0.2447", "0.0900")), ("output", "2", ("0.5000", "-1.2500"))}


def test_one_query_steps_two_examples():
    # the second query's context vector printed alone (an example without projections), then the same
    # query's weights and output of another example: going back to the weights starts a second draft
    exs = imported(_one_query_nb("0.6652, 0.2447, 0.0900", second=True, scores=False), "notebook")
    assert [claims(e) for e in exs] == [
        {("output", "2", ("0.2500", "-1.5000"))},
        {("weights", "2", ("0.6652", "0.2447", "0.0900")), ("output", "2", ("0.5000", "-1.2500"))}]


@pytest.mark.parametrize("weights", [
    "0.9000, 0.5000, 0.1000",  # no distribution
    "0.9000, 0.5000",  # no distribution, and narrower than the scores
])
def test_one_query_steps_that_do_not_agree_are_not_placed(weights):
    # (with the scores printed, the scores start the file and the weights are claims however wrong: check judges
    # them; without, a block named weights that is no distribution is not taken for one query's weights)
    import symattn as sa
    try:
        exs = imported(_one_query_nb(weights, scores=False), "notebook")
    except sa.SymattnError:
        exs = []
    assert not any(c.step == "weights" for e in exs for c in e.claims)


# the page writes Q = XW_Q, K = XW_K, V = XW_V and prints X but none of the weights: its QKᵀ block (not the dot
# products of X) is a result, not an input, and X is not V; d_k stated in the text ("if d_k = 64, √64 = 8") when
# the printed weights (made up: the softmax of the scores for no d) do not tell it
PROJECTED = r"""
| Word | Vector |
|------|--------|
| Ben | [0.2, 0.7, 0.1] |
| Okula | [0.9, 0.1, 0.3] |

\[
Q = XW_Q,\quad K = XW_K,\quad V = XW_V
\]

\[
QK^T =
\begin{bmatrix}
4 & 2 \\
2 & 3
\end{bmatrix}
\]

\[
\text{Attention Weights} = softmax\left(\frac{QK^T}{\sqrt{d_k}}\right)
\]

For example if \( d_k = 64 \), √64 = 8.

\[
\text{Attention Weights} =
\begin{bmatrix}
0.3 & 0.7 \\
0.5 & 0.5
\end{bmatrix}
\]
"""


def test_scores_of_projections_never_printed_are_claims():
    (ex,) = imported(PROJECTED)
    assert not ex.inputs
    assert claims(ex) == {("scores", "1", ("4", "2")), ("scores", "2", ("2", "3")),
                          ("weights", "1", ("0.3", "0.7")), ("weights", "2", ("0.5", "0.5"))}
    assert (ex.convention["scale"].value, ex.convention["d_k"].value) == ("1/sqrt(d_k)", 64)


def test_without_the_projections_written_the_embeddings_are_the_values():
    # the same page with no 'V = XW_V': the draft starts from the printed scores with X as V (as before)
    (ex,) = imported(PROJECTED.replace(r"Q = XW_Q,\quad K = XW_K,\quad V = XW_V", "Q K^T"))
    assert set(ex.inputs) == {"scores", "V"}
    assert ex.inputs["V"].rows == [["0.2", "0.7", "0.1"], ["0.9", "0.1", "0.3"]]


def test_a_printed_weight_is_no_projection_never_printed():
    from symattn.analyses.importer import _projected_unprinted
    from symattn.read.pages import read_page
    from symattn.analyses.importer_items import collect
    page = read_page(PROJECTED.replace("\\[\nQK^T", "\\[\nW_V = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}\n\\]\n\n\\[\nQK^T"),
                     "markdown")
    got = _projected_unprinted(page.lines, collect(page).items)
    assert set(got) == {"Q", "K"}
    assert got["Q"] == "Q = XW_Q"


def _commented_nb():
    from import_snippets import notebook
    return notebook(
        ("torch.manual_seed(123)\nx = torch.rand(3, 2)", None),
        ("context_vec_2 = attention_weights[1] @ x\ncontext_vec_2", "tensor([ 0.2500, -1.5000])\n"),
        ("# X = np.array([\n#     [1, 0],   # x1\n#     [0, 1],   # x2\n# ], dtype=float)\n"
         "# scores = X @ X[0]\n# weights = softmax(scores)", None),
        ("attention_weights_2 = F.softmax(omega_2 / 2**0.5, dim=0)\nattention_weights_2",
         "tensor([0.6652, 0.2447, 0.0900])\n"),
        ("context_vector_2 = attention_weights_2 @ values\ncontext_vector_2", "tensor([ 0.5000, -1.2500, 2.0000])\n"))


def test_commented_out_inputs_and_one_query_steps_beside_them():
    # X in a commented-out cell next to attention code: Q = K = V = X, a draft of inputs only (said so); the
    # second query's printed steps on either side of it are drafts of their own, in page order
    exs = imported(_commented_nb(), "notebook")
    assert [claims(e) for e in exs] == [
        {("output", "2", ("0.2500", "-1.5000"))},
        set(),
        {("weights", "2", ("0.6652", "0.2447", "0.0900")), ("output", "2", ("0.5000", "-1.2500", "2.0000"))}]
    x = exs[1]
    assert {k: g.rows for k, g in x.inputs.items()} == {k: [["1", "0"], ["0", "1"]] for k in ("Q", "K", "V")}
    assert any("commented out" in n.text for n in x.assumptions)
    assert not any("0.2500" in n.text or "0.6652" in n.text for e in exs for n in e.unplaced)


# a product written with an operator names no factor of it: a block under '\text{Scores} \times V =' is neither
# the scores nor V; under '\text{Attention Weights} \times V =' it is the output
NAMED_PRODUCTS = [
    (r"\text{Attention Weights} \times V", "output"),
    (r"\text{Scores} \times V", None),
    (r"\mathbf{Q} \mathbf{K}^T", "scores"),
    (r"\mathbf{X} \mathbf{W}_Q", "Q"),
]


@pytest.mark.parametrize("lhs,want", NAMED_PRODUCTS)
def test_a_block_under_a_written_product(lhs, want):
    page = ("$$\n" + lhs + " =\n\\begin{bmatrix}\n1 & 2 \\\\\n3 & 4\n\\end{bmatrix}\n$$\n")
    from symattn.analyses.importer_items import collect
    from symattn.read.pages import read_page
    (it,) = collect(read_page(page, "markdown")).items
    assert it.step == want


def test_scores_written_as_a_code_literal_stay_inputs():
    # the same projections written, but the scores given as a literal in code: the page's own inputs
    page = PROJECTED.split(r"\[" + "\nQK^T")[0] + (
        "```python\nscores = np.array([[4, 2], [2, 3]])\nweights = softmax(scores)\nprint(weights)\n```\n\n"
        "```\n[[0.881 0.119]\n [0.269 0.731]]\n```\n")
    (ex,) = imported(page)
    assert ex.inputs["scores"].rows == [["4", "2"], ["2", "3"]]
    assert claims(ex) == {("weights", "1", ("0.881", "0.119")), ("weights", "2", ("0.269", "0.731"))}


# TeX comments inside a bmatrix ('0.1 & 0.2 \\  % 어제'): not part of the next row (before, the display was read as a
# table with '% 어제 0.0' in a cell); a one-word comment after each row names the row's token, in any script
COMMENTED = r"""
$$
\mathbf{X} =
\begin{bmatrix}
0.1 & 0.2 \\  % 어제
0.0 & 0.1 \\  % 밤에
0.5 & 0.3     % 배
\end{bmatrix}
$$
"""

BODIES = [
    ("1 & 2 \\\\  % I\n3 & 4     % love\n", ("1 & 2 \\\\  \n3 & 4     \n", ["I", "love"])),
    ("1 & 2 \\\\ % first\n3 & 4 \\\\\n", ("1 & 2 \\\\ \n3 & 4 \\\\\n", ["first", ""])),
    ("1 & 2 % one\n\\\\ 3 & 4", ("1 & 2 \n\\\\ 3 & 4", ["one", ""])),  # the comment before the break: row 1's
    (r"50\% & 2 \\ 3 & 4", (r"50\% & 2 \\ 3 & 4", [])),  # an escaped percent sign is no comment
]


@pytest.mark.parametrize("body,want", BODIES)
def test_tex_comments_in_a_matrix_body(body, want):
    from symattn.read.pages.latex_cells import body_comments
    assert body_comments(body) == want


def test_a_matrix_with_tex_comments_after_its_rows():
    from symattn.analyses.importer_items import collect
    from symattn.read.pages import read_page
    (it,) = collect(read_page(COMMENTED, "markdown")).items
    assert it.step == "X"
    assert it.rows == [["0.1", "0.2"], ["0.0", "0.1"], ["0.5", "0.3"]]
    assert it.row_labels == ["어제", "밤에", "배"]
