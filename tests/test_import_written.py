"""Ways of writing numbers met on held-out batches g and i (text copied from web pages and
flip-books), as tables of (snippet, what it must yield). Each expected value was read off the
snippet by hand."""

import pytest

import symattn as sa
from symattn.analyses.importer_items import formula_before


def imported(page, fmt="text"):
    return sa.import_examples(page, format=fmt, source="snippet")


def inputs(ex):
    return {k: g.rows for k, g in ex.inputs.items()}


def claims(ex, group=None):
    return {(c.step, c.row, tuple(c.values)) for c in ex.claims if c.group == group}


I2 = [["1", "0"], ["0", "1"]]
QKV = "Q = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]\n"

# (text before a block, the step its formula names)
BEFORE = [
    ("]]Explanation: 1. Compute scores: Q @ K.T / sqrt(2) = ", "scaled"),  # a label glued to the previous block
    ("Scores: Q @ K.T = ", None),  # a bare product: its label names it
    ("Scaled = QK^T / 2 = ", "scaled"),
    ("scaled = Q @ K.T / np.sqrt(2) = ", "scaled"),
    ("Compute scores = ", None),  # a label, not a formula
    ("x = y / sqrt(2) = ", None),  # no Q and K
    ("Q @ K.T / sqrt(2) is ", None),  # no '=' before the block
    ("Q K^T / √d_k = ", "scaled"),
    ("softmax(Q @ K.T / sqrt(2)) = ", None),  # the weights: not read from a formula here
]


@pytest.mark.parametrize("before,step", BEFORE)
def test_formula_before_a_block(before, step):
    assert formula_before(before) == step


# (page, inputs, claims of the first printing)
PAGES = [
    # labels glued to the previous text on one line; the explanation's formula names the scaled scores
    # although its label says "scores"
    (QKV + "output = self_attention(Q, K, V)Output:\n[[1.66, 2.66], [2.34, 3.34]]Explanation: 1. Compute scores: "
     "Q @ K.T / sqrt(2) = [[0.707, 0], [0, 0.707]]\n2. Apply softmax row-wise: [[0.66, 0.34], [0.34, 0.66]]\n",
     {"Q": I2, "K": I2, "V": [["1", "2"], ["3", "4"]]},
     {("output", "1", ("1.66", "2.66")), ("output", "2", ("2.34", "3.34")), ("scaled", "1", ("0.707", "0")),
      ("scaled", "2", ("0", "0.707")), ("weights", "1", ("0.66", "0.34")), ("weights", "2", ("0.34", "0.66"))}),
    # the same with / np.sqrt(d_k) in the formula, under a label that names other things
    (QKV + "Raw attention scores, step 2: Q @ K.T / np.sqrt(d_k) = [[0.707, 0], [0, 0.707]]\n",
     {"Q": I2, "K": I2, "V": [["1", "2"], ["3", "4"]]},
     {("scaled", "1", ("0.707", "0")), ("scaled", "2", ("0", "0.707"))}),
]


@pytest.mark.parametrize("page,want_inputs,want_claims", PAGES)
def test_page_snippets(page, want_inputs, want_claims):
    exs = imported(page)
    assert len(exs) == 1
    assert inputs(exs[0]) == want_inputs
    assert claims(exs[0]) == want_claims


def test_one_word_lines_far_below_the_example_are_not_its_tokens():
    # a code editor's footer ("pass", "Python3") under starter code, long after the numbers
    page = QKV + "Weights: [[0.66, 0.34], [0.34, 0.66]]\n" + "Starter Code\nimport numpy as np\n" + "#\n" * 14 + \
        "pass\nPython3\n"
    ex = imported(page)[0]
    assert ex.spec.tokens != ["pass", "Python3"]
    assert claims(ex) == {("weights", "1", ("0.66", "0.34")), ("weights", "2", ("0.34", "0.66"))}
