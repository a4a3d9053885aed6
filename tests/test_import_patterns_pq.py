"""Ways of writing numbers met on held-out batches p and q (tests/pages/heldout/p, q/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import pytest

from import_snippets import claims, imported

# LaTeX spacing commands between the entries of a bracketed list ([0.5,\;0.5]) are spaces
SPACED = [
    (r"$$\frac{[1,\;1]}{1.41} \approx [0.71,\;0.71]$$", [["1", "1"], ["0.71", "0.71"]]),
    (r"$$[0.25,\,0.75]$$", [["0.25", "0.75"]]),
    (r"$$[1,\:2,\!3]$$", [["1", "2", "3"]]),
]


@pytest.mark.parametrize("text,want", SPACED)
def test_latex_spaces_between_entries(text, want):
    from symattn.read.pages import read_page
    rows = [b.rows[0] for b in read_page(text, "markdown").blocks if getattr(b, "rows", None)]
    assert rows == want


# a second worked example under its own heading that gives Q, K and V afresh (after the first was
# worked) is its own example; Q may be one row and V one column
TWO = r"""
#### Example 1
$$ Q = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}, \quad K = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix},
\quad V = \begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix} $$

Scores without scaling: $QK^T = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}$.

#### Example 2
$$ Q = \begin{bmatrix} 1 & 1 \end{bmatrix}, \quad K = \begin{bmatrix} 2 & 0 \\ 0 & 2 \end{bmatrix}, \quad
V = \begin{bmatrix} 2 \\ 4 \end{bmatrix} $$

Then $QK^T = [2,\;2]$, the softmax is $[0.5,\;0.5]$ and the output is $[3]$.
"""


def test_a_heading_and_fresh_qkv_start_another_example():
    exs = imported(TWO)
    assert len(exs) == 2
    first, second = exs
    assert first.inputs["Q"].rows == [["1", "0"], ["0", "1"]]
    assert ("scores", "1", ("1", "0")) in claims(first)
    assert second.inputs["Q"].rows == [["1", "1"]]
    assert second.inputs["K"].rows == [["2", "0"], ["0", "2"]]
    assert second.inputs["V"].rows == [["2"], ["4"]]  # a column: one value per key
    got = claims(second)
    assert ("scores", "1", ("2", "2")) in got
    assert ("weights", "1", ("0.5", "0.5")) in got


def test_without_a_heading_the_same_names_do_not_split():
    # Q printed again with other numbers but no heading between: a restatement the reader must look at,
    # not a new example
    page = TWO.replace("#### Example 2\n", "")
    assert len(imported(page)) == 1


def test_one_tokens_q_k_v_start_nothing():
    # per-token rows (embedding, q, k, v of one word) under a later heading restate rows, not a new example
    page = TWO + "\n#### One word\n\nq = [1, 1]   k = [2, 0]   v = [2]\n"
    assert len(imported(page)) == 2


# a block named like one step whose numbers are exactly another step's: the numbers decide
NAMED_WRONG = r"""
$$ Q = \begin{bmatrix} 1 & 1 & 1 & 1 \end{bmatrix}, \quad
K = \begin{bmatrix} 1 & 0 & 0 & 0 \\ 0 & 1 & 0 & 0 \\ 0 & 0 & 1 & 0 \\ 0 & 0 & 0 & 1 \end{bmatrix}, \quad
V = \begin{bmatrix} 2 \\ 4 \\ 6 \\ 8 \end{bmatrix} $$

Scaled by $\sqrt{d_k}$ with $d_k = 4$.

$$ \text{output} = [1, 1, 1, 1] $$
"""


def test_numbers_decide_over_a_contradicted_name():
    ex = imported(NAMED_WRONG)[0]
    assert ("scores", "1", ("1", "1", "1", "1")) in claims(ex)
    assert not any(c.step == "output" for c in ex.claims)


# study notes: entities escaped in Markdown math, weights named by the symbol after a word, W = I in
# words, Q named by the symbol the math opens with, a section on positional encodings elsewhere
NOTES = r"""
# https://www.example.org/watch?v=LECTURE\&index=2

## Positional encoding

$$PE_{(pos, 2i)} = \sin\left(\frac{pos}{10000^{2i/d}}\right)$$

## 1. A practice exercise

- $X = \begin{bmatrix} 1 &amp; 0.5 \\ 0.2 &amp; 2 \end{bmatrix}$ (2 tokens).
- Learnable weights: $W^Q = \begin{bmatrix} 1 &amp; 0 \\ 0 &amp; 1 \end{bmatrix}$, $W^K = W^V = I$.

1. Compute $Q = XW^Q = \begin{bmatrix} 1 &amp; 0.5 \\ 0.2 &amp; 2 \end{bmatrix}$.
2. Similarity scores without scaling: $QK^T = \begin{bmatrix} 1.25 &amp; 1.2 \\ 1.2 &amp; 4.04 \end{bmatrix}$.
"""


def test_study_notes_exercise():
    ex = imported(NOTES)[0]
    assert ex.inputs["X"].rows == [["1", "0.5"], ["0.2", "2"]]
    assert ex.inputs["Wq"].rows == [["1", "0"], ["0", "1"]]
    assert ex.inputs["Wk"].rows == ex.inputs["Wv"].rows == [["1", "0"], ["0", "1"]]  # "W^K = W^V = I"
    got = claims(ex)
    assert ("Q", "1", ("1", "0.5")) in got  # named by "$Q = XW^Q =", not an echo of X
    assert ("scores", "2", ("1.2", "4.04")) in got
    assert "positions" not in ex.convention  # the page explains sinusoids elsewhere; this example adds none
    assert ex.title == "Positional encoding"  # the link heading is no title


IDENTITY = [
    ("$W^K = W^V = I$", {"Wk", "Wv"}),
    (r"with W_q = I_3 and", {"Wq"}),
    (r"$W_{K} = \mathbf{I}$", {"Wk"}),
    ("$W^Q = I + 2$", set()),      # an expression, not the identity
    ("where W = I", set()),         # no kind named
    ("Wv = Input", set()),
]


@pytest.mark.parametrize("text,want", IDENTITY)
def test_identity_weights_in_words(text, want):
    from symattn.analyses.importer_conventions import identity_weights
    from symattn.read.pages.model import Line, Where
    assert set(identity_weights([Line(text, Where(1), "prose")])) == want


NAMES = [
    ("- Learnable weights: $W^Q", "Wq"),
    ("Learnable weights: W^V", "Wv"),
    ("attention weights: W", "weights"),
    ("attention weights: $A", "weights"),
]


@pytest.mark.parametrize("label,step", NAMES)
def test_a_symbol_after_the_word_weights_names_the_block(label, step):
    from symattn.analyses.importer_names import step_of_text
    assert step_of_text(label) == step


# a lab sheet's solution: \begin{equation}/\begin{align} displays (not $$), matrices in \left( … \right),
# an aligned chain 'Q &= X W_q = (X)(W_q) = (Q)' whose first factor is the only printing of X, and
# ordered-list markers ("1.") that are no numbers
LAB = r"""
The weight matrices are
\begin{equation}W_q = \left(\begin{matrix} 1 & 2 \\ 3 & 4 \end{matrix}\right), W_k = \left(\begin{matrix} 1 & 0 \\ 0 & 1 \end{matrix}\right), W_v = \left(\begin{matrix} 2 & 0 \\ 0 & 2 \end{matrix}\right) \end{equation}

1.
    \begin{align} Q &= X W_q = \left(\begin{matrix} 1 & 0 \\ 0 & 1 \end{matrix}\right)
    \left(\begin{matrix} 1 & 2 \\ 3 & 4 \end{matrix}\right)
    = \left(\begin{matrix} 1.0 & 2.0 \\ 3.0 & 4.0 \end{matrix}\right) \\
    V &= X W_v = \left(\begin{matrix} 1 & 0 \\ 0 & 1 \end{matrix}\right)
    \left(\begin{matrix} 2 & 0 \\ 0 & 2 \end{matrix}\right)
    = \left(\begin{matrix} 2.0 & 0.0 \\ 0.0 & 2.0 \end{matrix}\right) \end{align}

2.
    \begin{equation} A = \text{softmax}(QK^T) = \left(\begin{matrix} 0.269 & 0.731 \\ 0.269 & 0.731 \end{matrix}\right) \end{equation}
"""


def test_lab_sheet_solution():
    ex = imported(LAB)[0]
    assert ex.inputs["X"].rows == [["1", "0"], ["0", "1"]]
    assert ex.inputs["Wq"].rows == [["1", "2"], ["3", "4"]]
    assert ex.inputs["Wk"].rows == [["1", "0"], ["0", "1"]]
    assert ex.inputs["Wv"].rows == [["2", "0"], ["0", "2"]]
    got = claims(ex)
    assert ("Q", "1", ("1.0", "2.0")) in got and ("V", "2", ("0.0", "2.0")) in got
    # QKᵀ = Q (K = I): rows (1, 2) and (3, 4), softmax (0.269, 0.731) for both
    assert ("weights", "2", ("0.269", "0.731")) in got
    assert all(c.values != ["1."] and c.values != ["2."] for c in ex.claims)  # list markers are no claims


def test_math_environments_are_math():
    from symattn.read.pages import read_page
    page = read_page("text\n\\begin{align*} a &= 1 \\\\\n b &= 2 \\end{align*}\nmore text", "markdown")
    assert [ln.role for ln in page.lines] == ["prose", "math", "math", "prose"]


# a blog's table of roles (Query (Q) / Key (K) - token / Value (V) - token, one vector per row), then
# per-key lines "token: sum = score" and "token: weight" in any script
CAFE = """<h2>Vectors</h2>
<table>
<tr><th>Role</th><th>What</th><th>Vector</th></tr>
<tr><td>Query (Q)</td><td>next order</td><td>[0.5, 1]</td></tr>
<tr><td>Key (K) - 라떼</td><td>past order</td><td>[1, 0]</td></tr>
<tr><td>Key (K) - 녹차</td><td>past order</td><td>[0, 1]</td></tr>
<tr><td>Value (V) - 라떼</td><td>information</td><td>[2, 0]</td></tr>
<tr><td>Value (V) - 녹차</td><td>information</td><td>[0, 2]</td></tr>
</table>
<h2>Similarity</h2>
<p>The dot product of the Query with each Key:</p>
<ul>
<li>라떼: 0.5×1 + 1×0 = 0.5</li>
<li>녹차: 0.5×0 + 1×1 = 1</li>
</ul>
<h2>Softmax</h2>
<p>The weights are:</p>
<ul>
<li>라떼: 0.378</li>
<li>녹차: 0.622</li>
</ul>
"""


def test_role_table_and_keyed_lines():
    ex = imported(CAFE, "html")[0]
    assert ex.inputs["Q"].rows == [["0.5", "1"]]
    assert ex.inputs["K"].rows == [["1", "0"], ["0", "1"]]
    assert ex.inputs["V"].rows == [["2", "0"], ["0", "2"]]
    assert ex.key_tokens == ["라떼", "녹차"]
    got = claims(ex)
    # scores (0.5, 1), unscaled (the page does not scale); softmax: e^0.5/(e^0.5 + e^1) = 0.3775
    assert ("scores", "1", ("0.5", "1")) in got
    assert ("weights", "1", ("0.378", "0.622")) in got


ROLES = [
    ("Key (K) - latte", ("K", "latte")),
    ("Query (Q)", ("Q", None)),
    ("**Value** – tea", ("V", "tea")),
    ("Keys: the", ("K", "the")),
    ("Keyboard", None),
    ("Key (Q) - x", None),        # the letter contradicts the word
    ("Query vector", None),
]


@pytest.mark.parametrize("cell,want", ROLES)
def test_role_labels(cell, want):
    from symattn.analyses.importer_items import _role_label
    assert _role_label(cell) == want


# one notebook works the same Q, K, V with and without a causal mask, printing both side by side:
# two examples, each block in the one whose numbers it follows (a block both follow in both); the
# outputs of both printed in one table whose columns are numbered per matrix; row sums in German
def _masked_pair():
    from import_snippets import notebook
    return notebook(
        "# Causal masking",
        ("tokens = ['a', 'b']\nQ = np.array([[1.0, 0.0], [0.0, 1.0]])\nK = np.array([[1.0, 0.0], [0.0, 1.0]])\n"
         "V = np.array([[1.0, 2.0], [3.0, 4.0]])\nS = Q @ K.T\ncausal_mask = np.tri(2, 2, dtype=bool)", None),
        ("A_no_mask = softmax(S)\nA_causal = softmax(np.where(causal_mask, S, -1e9))\n"
         "print('Zeilensummen:', A_causal.sum(axis=1).round(3))\nprint('A_no_mask', A_no_mask.round(3))\n"
         "print('A_causal', A_causal.round(3))",
         "Zeilensummen: [1. 1.]\nA_no_mask [[0.731 0.269]\n [0.269 0.731]]\nA_causal [[1.    0.   ]\n [0.269 0.731]]\n"),
        ("pd.DataFrame(np.concatenate([A_no_mask @ V, A_causal @ V], axis=1), index=tokens,\n"
         "             columns=['plain_c1', 'plain_c2', 'causal_c1', 'causal_c2']).round(3)",
         "   plain_c1  plain_c2  causal_c1  causal_c2\na     1.538     2.538      1.000      2.000\n"
         "b     2.462     3.462      2.462      3.462\n"),
    )


def test_with_and_without_the_mask_are_two_examples():
    # softmax(1, 0) = (0.731, 0.269); causal row a = (1, 0); outputs 0.731·(1, 2) + 0.269·(3, 4) = (1.538, 2.538)
    exs = imported(_masked_pair(), "notebook")
    assert len(exs) == 2
    plain, masked = exs
    assert "mask" not in plain.convention and masked.convention["mask"].value == "causal"
    p, m = claims(plain), claims(masked)
    assert ("weights", "a", ("0.731", "0.269")) in p and ("weights", "a", ("1.", "0.")) in m
    assert ("output", "a", ("1.538", "2.538")) in p and ("output", "a", ("1.000", "2.000")) in m
    assert ("output", "b", ("2.462", "3.462")) in p and ("output", "b", ("2.462", "3.462")) in m  # both follow it
    assert not any(c[0] == "output" and c[2] == ("1.000", "2.000") for c in p)
    # "Zeilensummen" (row sums), 1 in both: kept in the example read first
    assert {(c.step, c.row, tuple(c.values)) for c in plain.claims if c.step == "weights_sum"} == {
        ("weights_sum", "a", ("1.",)), ("weights_sum", "b", ("1.",))}


COLUMN_GROUPS = [
    (["Q1", "Q2", "K1", "K2", "V1", "V2"], [("Q", 0, 2), ("K", 2, 4), ("V", 4, 6)]),
    (["ohne_c1", "ohne_c2", "causal_c1", "causal_c2"], [("ohne", 0, 2), ("causal", 2, 4)]),
    (["x_0", "x_1", "y_0", "y_1"], [("x", 0, 2), ("y", 2, 4)]),
    (["d1", "d2", "d3"], None),                 # one matrix's dimensions
    (["Q1", "Q2", "K1"], None),                 # runs of different widths
    (["Q1", "Q3", "K1", "K3"], None),           # not numbered in order
    (["the", "cat"], None),                     # tokens
]


@pytest.mark.parametrize("cols,want", COLUMN_GROUPS)
def test_column_groups(cols, want):
    from symattn.analyses.importer_items import _column_groups
    assert _column_groups(cols) == want


# the new readings stay linear on hostile lines (a hang guard, as test_import_read's: a quadratic or
# exponential match would take minutes on these)
HOSTILE = [
    "W_q = " * 20_000 + "x",                                  # a chain of names with no I at its end
    "| Key (K) - " + " " * 20_000 + "x |\n|---|\n| Query (Q) | [1, 2] |",
    "tok: " + "1 - " * 20_000 + "x",                          # a sum with no result
    "$$[" + "1,\\; " * 20_000 + "$$",                         # spaced entries never closed
    "\\begin{align}" + " &amp;" * 20_000,                      # an environment never closed, entities
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_lines_import_in_bounded_time(text):
    import time

    from symattn.errors import SymattnError
    t = time.perf_counter()
    try:
        imported(text)
    except SymattnError:
        pass
    assert time.perf_counter() - t < 20


# an output row written as one sum per coordinate: term i of coordinate j is p_i·v_ij (the weighted value
# of key i), placed for the query whose weighted values the terms are
SUMS = r"""
$$ Q = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}, \quad K = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix},
\quad V = \begin{bmatrix} 0 & 2 \\ 2 & 0 \end{bmatrix} $$

Without scaling, the weights of row 1 are [0.73, 0.27], so

$$ 0.73 \times [0,2] + 0.27 \times [2,0] = [0 + 0.54,\; 1.46 + 0] = [0.54,\; 1.46]. $$
"""


def test_componentwise_sums_are_weighted_values():
    # softmax(1, 0) = (0.731, 0.269): p1·v1 = (0, 1.462), p2·v2 = (0.538, 0)
    got = claims(imported(SUMS)[0])
    ex = imported(SUMS)[0]
    weighted = {(c.row, c.key, tuple(c.values)) for c in ex.claims if c.step == "weighted"}
    assert weighted == {("1", "1", ("0", "1.46")), ("1", "2", ("0.54", "0"))}
    assert ("output", "1", ("0.54", "1.46")) in got
