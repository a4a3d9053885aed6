"""Ways of writing numbers met on held-out batches l and m (tests/pages/heldout/l, m/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import json

import pytest

import symattn as sa
from symattn.analyses.importer import _scalar_hits_named


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


# (hits of one number in the example's steps, its label, the hits kept): a label naming exactly one of the
# steps as a word picks it; naming none or both keeps every hit (the number stays unplaced)
SCALAR_NAMED = [
    ([("Q", 0, 0), ("K", 0, 0)], "first entry of Q by hand", [("Q", 0, 0)]),
    ([("Q", 0, 0), ("K", 0, 0)], "the first key entry, K[0][0]", [("K", 0, 0)]),
    ([("Q", 0, 0), ("K", 0, 0)], "Step 3: Define Weight Matrices W_q, W_k", [("Q", 0, 0), ("K", 0, 0)]),
    ([("Q", 0, 0), ("K", 0, 0)], "Q and K agree here", [("Q", 0, 0), ("K", 0, 0)]),
    ([("Q", 0, 0), ("Q", 1, 1)], "an entry of Q", [("Q", 0, 0), ("Q", 1, 1)]),
]


@pytest.mark.parametrize("hits,label,want", SCALAR_NAMED)
def test_a_single_number_in_several_steps_is_the_one_its_label_names(hits, label, want):
    assert sorted(_scalar_hits_named(hits, label)) == sorted(want)


# X = [[1, 2], [3, 4]], W_q = W_k = I, so Q = K = X; the number 1 printed under a comment naming Q is Q[0][0]
def test_a_number_printed_by_hand_under_a_comment_naming_q():
    page = notebook(
        ("import numpy as np\nX = np.array([[1.5, 2.0], [3.0, 4.0]])\nW_q = np.eye(2)\nW_k = np.eye(2)\n"
         "W_v = np.eye(2)\nQ = X @ W_q\nK = X @ W_k\nV = X @ W_v\nS = Q @ K.T\nprint(S)\n",
         "[[ 6.25 12.5 ]\n [12.5  25.  ]]\n"),
        ("# first entry of Q by hand\nprint(X[0] @ W_q[:, 0])\n", "1.5\n"),
    )
    ex = imported(page, "ipynb")[0]
    assert ("Q", "1", ("1.5", "..")) in claims(ex) or any(
        c.step == "Q" and c.values[0] == "1.5" for c in ex.claims), [(c.step, c.row, c.values) for c in ex.claims]
