"""Ways of writing numbers met on held-out batch j (tests/pages/heldout/j/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import json

import pytest

import symattn as sa


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
