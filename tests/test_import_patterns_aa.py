"""Ways of writing numbers met on held-out batches aa and ad (tests/pages/heldout/aa/, ad/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import pytest

from import_snippets import claims, imported

from symattn.analyses.importer_placer import _probability_rows
from symattn.read.pages import read_page

INPUTS = r"""
$$ X = \begin{bmatrix} 1 & 0 \\ 1 & 1 \end{bmatrix} $$

$$ W_Q = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}, \quad W_K = \begin{bmatrix} 1 & 2 \\ 0 & 1 \end{bmatrix},
\quad W_V = \begin{bmatrix} 1 & 0 \\ 0 & 2 \end{bmatrix} $$

"""


# a square matrix named transposed ("K^T = [...]") prints K's columns as its rows: K = X W_K = [[1, 2], [1, 3]]
def test_square_matrix_named_transposed():
    (ex,) = imported(INPUTS + "$$ K^T = \\begin{bmatrix} 1 & 1 \\\\ 2 & 3 \\end{bmatrix} $$\n")
    assert claims(ex) == {("K", "1", ("1", "2")), ("K", "2", ("1", "3"))}
    assert not [c for c in ex.claims if c.group is not None]


# "Attention scores" for two matrices: Q K^T, then the softmax results the page takes (rows summing to 1)
# are the weights, not scores printed again differently
SCORES_THEN_SOFTMAX = INPUTS + r"""
$$ \text{Attention scores} = Q K^T = \begin{bmatrix} 1 & 1 \\ 1 & 1 \end{bmatrix} $$

To keep it simple, take the softmax results to be:

$$ \text{Attention scores} = \begin{bmatrix} 0.7 & 0.3 \\ 0.4 & 0.6 \end{bmatrix} $$
"""


def test_scores_named_matrix_of_distributions_is_the_weights():
    (ex,) = imported(SCORES_THEN_SOFTMAX)
    assert claims(ex) == {("scores", "1", ("1", "1")), ("scores", "2", ("1", "1")),
                          ("weights", "1", ("0.7", "0.3")), ("weights", "2", ("0.4", "0.6"))}
    assert not [c for c in ex.claims if c.group is not None]


# rows that are distributions up to the rounding printed; a whole number is exact
ROWS = [
    ([["0.6", "0.1", "0.3"]], True),
    ([["0.045", "0.768", "0.187"]], True),
    ([["0.33", "0.33", "0.33"]], True),   # 0.99, within 3 × 0.005
    ([["0.3", "0.3", "0.3"]], True),      # 0.9, within 3 × 0.05
    ([["0.2", "0.2", "0.2"]], False),
    ([["1", "0", "1", "0"]], False),      # whole numbers: exactly 2
    ([["1", "0"]], True),
    ([["1.5", "-0.5"]], False),           # outside [0, 1]
    ([["1.0"]], False),                   # one number is no distribution
    ([], False),
]


@pytest.mark.parametrize("rows,want", ROWS)
def test_probability_rows(rows, want):
    assert _probability_rows(rows) is want


# a fenced div that opens an exercise (Pandoc/Quarto/MyST): its numbers are a what-if, listed and not placed,
# and its words ("the softmax of the raw, unscaled scores") say nothing of the example's scale
EXERCISE = INPUTS + r"""
::: card
Scores, divided by $\sqrt{d_k} = \sqrt{2}$:

$$ Q K^T = \begin{bmatrix} 1 & 1 \\ 1 & 1 \end{bmatrix} $$
:::

::: exercise unscaled
If you skip the division, what are the weights?

::: answer
$[0.5, 0.5]$: the softmax of the raw, unscaled scores.
:::

$$ \mathbf{V} = \begin{bmatrix} 9 & 9 \\ 9 & 9 \end{bmatrix} $$
:::
"""


@pytest.mark.parametrize("opener", ["::: exercise unscaled", "::: {.exercise}", ":::{exercise}", "::: quiz",
                                    "::: problem"])
def test_numbers_in_an_exercise_div(opener):
    (ex,) = imported(EXERCISE.replace("::: exercise unscaled", opener))
    assert ex.spec.convention.scale_text == "1/sqrt(d_k)"
    assert claims(ex) == {("scores", "1", ("1", "1")), ("scores", "2", ("1", "1"))}
    asides = [n for n in ex.notes if n.kind == "unplaced" and "in an exercise" in n.text]
    assert len(asides) == 2


# the same div named otherwise ("card", "note") is part of the example
def test_numbers_in_another_div_are_read():
    (ex,) = imported(EXERCISE.replace("::: exercise unscaled", "::: note"))
    assert ex.spec.convention.scale_text == "none"


# LaTeX's control space between entries ([0.045,\ 0.768]) separates them like \, and \;
SPACES = [
    (r"$$ \operatorname{softmax}([0, 2.83]) \approx [0.045,\ 0.955] $$", [["0.045", "0.955"]]),
    (r"$$ w \approx [0.045,\;0.955] $$", [["0.045", "0.955"]]),
    (r"$$ w \approx [0.045,\,0.955] $$", [["0.045", "0.955"]]),
]


@pytest.mark.parametrize("text,rows", SPACES)
def test_latex_spaces_between_entries(text, rows):
    page = read_page(text, "markdown")
    assert [b.rows for b in page.blocks][-1] == rows


def _dots(text):
    from symattn.analyses.importer_items import collect
    return [(it.dot, it.rows[0][0]) for it in collect(read_page(text, "markdown")).items if it.dot is not None]


# a dot product of two vectors in inline code, its result after '=' (or after the products' sum written out)
DOTS = [
    ('- Score to "Jane" = `[1, 0]` · `[1, 1]` = 1', [((["1", "0"], ["1", "1"]), "1")]),
    ('- Score to "Jane" = `[1.35, 0.8]` · `[1.35, 0.8]` = 1.8225 + 0.64 = 2.4625',
     [((["1.35", "0.8"], ["1.35", "0.8"]), "2.4625")]),
    ("[1, 0] · [0, 1] = 0, [0, 1] · [0, 1] = 1", [((["1", "0"], ["0", "1"]), "0"), ((["0", "1"], ["0", "1"]), "1")]),
    ("`[1, 2]` · `[3, 4]` = 3 + 8", []),  # a sum with no result: nothing read
]


@pytest.mark.parametrize("text,want", DOTS)
def test_vector_dot_in_inline_code(text, want):
    assert _dots(text) == want


# a subsection under a heading on the feed-forward layer is in that layer, whatever its own title says
FFN = INPUTS + r"""
#### Attention

$$ Q K^T = \begin{bmatrix} 1 & 1 \\ 1 & 1 \end{bmatrix} $$

#### Feed-Forward Network 1 (FFNN1):
##### Transformation of Attention Outputs:
- Output for "Jane": `[1.35, 0.8]` once scaling and bias are applied.
"""


def test_subsection_of_a_feed_forward_section():
    (ex,) = imported(FFN)
    assert claims(ex) == {("scores", "1", ("1", "1")), ("scores", "2", ("1", "1"))}
    assert any("Feed-Forward Network 1" in n.text for n in ex.notes if n.kind == "unplaced")


# a vector written as a LaTeX tuple after '≈' (or \approx), its entries spaced with \,
TUPLES = [
    (r"$$ \text{weights}_0 \approx (0.39,\, 0.14,\, 0.235,\, 0.235) $$", [["0.39", "0.14", "0.235", "0.235"]]),
    (r"$$ w ≈ (0.5, 0.5) $$", [["0.5", "0.5"]]),
    (r"$$ w = (0.5, 0.5) $$", [["0.5", "0.5"]]),
]


@pytest.mark.parametrize("text,rows", TUPLES)
def test_tuple_after_approx(text, rows):
    page = read_page(text, "markdown")
    assert [b.rows for b in page.blocks] == [rows]


# a practice page's test-case boxes copied as text: "Input:" then the call's three arguments with no names
# (Q, K, V in order) and "Expected:" glued after them, the output on the next line; each test case an example
TEST_CASES = """Write a scaled dot-product attention function. Given the input [[1,0],[0,1]] and [[1,1],[0,1]], \
return the weighted sum of the values.
Test Case 1
Input:
[[1,0],[0,1]] [[1,1],[0,1]] [[1,2],[3,4]]Expected:
[[2.5,3.5],[6.5,7.5]]Test Case 2
Input:
[[1,1],[1,1]] [[1,1],[1,1]] [[1,1],[1,1]]Expected:
[[1.0,1.0],[1.0,1.0]]+ 3 hidden test cases
"""


def test_test_case_boxes():
    one, two = imported(TEST_CASES, "text")
    assert {k: [list(r) for r in g.rows] for k, g in one.inputs.items()} == {
        "Q": [["1", "0"], ["0", "1"]], "K": [["1", "1"], ["0", "1"]], "V": [["1", "2"], ["3", "4"]]}
    assert claims(one) == {("output", "1", ("2.5", "3.5")), ("output", "2", ("6.5", "7.5"))}
    assert {k: [list(r) for r in g.rows] for k, g in two.inputs.items()} == {
        k: [["1", "1"], ["1", "1"]] for k in "QKV"}
    assert claims(two) == {("output", "1", ("1.0", "1.0")), ("output", "2", ("1.0", "1.0"))}


# three matrices whose shapes cannot be Q, K and V (K not as wide as Q) are not read as a test case
def test_test_case_shapes_must_fit():
    from symattn.analyses.importer_testcases import read_test_cases
    from symattn.analyses.importer_items import collect
    page = read_page(TEST_CASES.replace("[[1,1],[0,1]] [[1,2]", "[[1,1,1],[0,1,1]] [[1,2]"), "text")
    items = collect(page).items
    assert read_test_cases(items, page.lines) == 1  # only test case 2


# a README's raw HTML <pre> block: its tags are no part of the names on the lines they open and close
PRE = """- Inputs:
<pre>Q = np.array([[1, 0, 1, 0], [0, 1, 0, 1]])
K = np.array([[1, 0, 1, 0], [0, 1, 0, 1]])
V = np.array([[1, 2, 3, 4], [5, 6, 7, 8]])
</pre>
- Output:
<pre>Attention Weights:
 [[0.73105858 0.26894142]
 [0.26894142 0.73105858]]</pre>
"""


@pytest.mark.parametrize("tag", ["<pre>", "<pre class=\"out\">", "<pre><code>"])
def test_raw_pre_block_in_markdown(tag):
    page = PRE.replace("<pre>Q", tag + "Q").replace("]])\n</pre>", "]])\n" + ("</code></pre>" if "code" in tag else "</pre>"))
    (ex,) = imported(page)
    assert {k: [list(r) for r in g.rows] for k, g in ex.inputs.items()} == {
        "Q": [["1", "0", "1", "0"], ["0", "1", "0", "1"]], "K": [["1", "0", "1", "0"], ["0", "1", "0", "1"]],
        "V": [["1", "2", "3", "4"], ["5", "6", "7", "8"]]}
    assert claims(ex) == {("weights", "1", ("0.73105858", "0.26894142")), ("weights", "2", ("0.26894142", "0.73105858"))}


# a page that works attention through two layers and names no input in the second layer's section: the
# second layer's numbers are listed, not placed as restatements of the first layer's
LAYERS = "### Layer 1 Processing:\n" + INPUTS + r"""
#### Scores

$$ Q K^T = \begin{bmatrix} 1 & 1 \\ 1 & 1 \end{bmatrix} $$

### Layer 2 Processing:
#### Scores again

$$ Q K^T = \begin{bmatrix} 2 & 0 \\ 0 & 2 \end{bmatrix} $$
"""


def test_second_layer_without_named_inputs():
    (ex,) = imported(LAYERS)
    assert claims(ex) == {("scores", "1", ("1", "1")), ("scores", "2", ("1", "1"))}
    assert not [c for c in ex.claims if c.group is not None]
    assert any("the next layer's attention" in n.text for n in ex.notes if n.kind == "unplaced")


# the second layer naming its own inputs is left to the segmenter (a new example), nothing set aside
def test_second_layer_with_named_inputs():
    page = LAYERS.replace("#### Scores again", "#### Scores again\n\n$$ Q = \\begin{bmatrix} 1 & 1 \\\\ 0 & 1 \\end{bmatrix} $$")
    exs = imported(page)
    assert not any("the next layer's attention" in n.text for ex in exs for n in ex.notes)
