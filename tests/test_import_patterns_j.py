"""Ways of writing numbers met on held-out batch j (tests/pages/heldout/j/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import json

import pytest

import symattn as sa
from symattn.views.draft import draft


def imported(page, fmt="markdown"):
    return sa.import_examples(page, format=fmt, source="snippet")


def claims(ex):
    return {(c.step, c.row, tuple(c.values)) for c in ex.claims if c.group is None}


def notebook(*cells):
    """A notebook of (source, printed output or None) code cells and plain strings (Markdown cells)."""
    out = []
    for c in cells:
        if isinstance(c, str):
            out.append({"cell_type": "markdown", "metadata": {}, "source": c})
        else:
            src, printed = c
            outputs = [{"output_type": "stream", "name": "stdout", "text": printed}] if printed else []
            out.append({"cell_type": "code", "metadata": {}, "execution_count": None, "source": src,
                        "outputs": outputs})
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


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
    # two printings that differ beyond their rounding (0.2 and 0.5) are not one matrix printed twice
    ("Scaled scores:\n\n[[0.2, 0.8], [0.4, 0.8]]\n\nScaled scores again:\n\n[[0.5, 0.8], [0.4, 0.8]]\n", "markdown",
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
