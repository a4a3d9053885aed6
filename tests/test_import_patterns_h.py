"""Ways of writing numbers met on held-out batch h (tests/pages/heldout/h/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import pytest

import symattn as sa
from symattn.analyses.importer_items import collect, dot_operand, indexed_row, softmax_argument
from symattn.read.pages import read_page


def imported(page, fmt="markdown"):
    return sa.import_examples(page, format=fmt, source="snippet")


def claims(ex):
    return {(c.step, c.row, tuple(c.values)) for c in ex.claims if c.group is None}


def steps_of(page, fmt="markdown"):
    return [(it.step, it.rows) for it in collect(read_page(page, fmt)).items]


# per-word list items: q1, k1, v1 under "Word 1", q2, … under "Word 2" are the rows of Q, K and V;
# q1·k1 = 1 and q1·k2 = 0 written out are query 1's scores; 1/1.414 and 0/1.414 its scaled scores
# (÷√2, d_k = 2); softmax's argument restates them; 2.03/3.03 = 0.67 and 1/3.03 = 0.33 its weights
# (2.03 + 1 = 3.03, the softmax's sum)
WORDS = ("**Word 1:**\n- `q1 = [1, 0]`\n- `k1 = [1, 0]`\n- `v1 = [1, 2]`\n\n"
         "**Word 2:**\n- `q2 = [0, 1]`\n- `k2 = [0, 1]`\n- `v2 = [3, 4]`\n\n")
DOTS = ("## Step 1: Scores\n\n- `q1 . k1 = [1, 0] . [1, 0] = 1*1 + 0*0 = 1`\n"
        "- `q1 . k2 = [1, 0] . [0, 1] = 1*0 + 0*1 = 0`\n\n")
SCALE = "## Step 2: Scale\n\nEach score is divided by the square root of d_k = 2:\n\n- `1 / 1.414 = 0.707`\n- `0 / 1.414 = 0`\n\n"
SOFTMAX = "## Step 3: Softmax\n\n`softmax([0.707, 0])`\n\n- `2.03 / 3.03 = 0.67`\n- `1 / 3.03 = 0.33`\n"

# (page, inputs, claims (first printings))
PAGES = [
    (WORDS + DOTS + SCALE + SOFTMAX,
     {"Q": [["1", "0"], ["0", "1"]], "K": [["1", "0"], ["0", "1"]], "V": [["1", "2"], ["3", "4"]]},
     {("scores", "1", ("1", "0")), ("scaled", "1", ("0.707", "0")), ("weights", "1", ("0.67", "0.33"))}),
    # the words of the example quoted in prose name the rows
    ('On the sentence "a b":\n\n' + WORDS + DOTS,
     {"Q": [["1", "0"], ["0", "1"]], "K": [["1", "0"], ["0", "1"]], "V": [["1", "2"], ["3", "4"]]},
     {("scores", "a", ("1", "0"))}),
]


@pytest.mark.parametrize("page,want_inputs,want_claims", PAGES)
def test_page_snippets(page, want_inputs, want_claims):
    exs = imported(page)
    assert len(exs) == 1
    assert {k: g.rows for k, g in exs[0].inputs.items()} == want_inputs
    assert claims(exs[0]) == want_claims


# (text before a vector, (step, row, name) or None)
INDEXED = [
    ("- `q1 = ", ("Q", 1, "q1")), ("k_2 = ", ("K", 2, "k_2")), ("v3: ", ("V", 3, "v3")), ("x1 = ", ("X", 1, "x1")),
    ("query_2 = ", ("Q", 2, "query_2")),
    ("Q1 = ", None),  # a capital letter and an index names a head's matrix as often as a row
    ("w1 = ", None), ("q0 = ", None), ("q1 . k1 = ", None), ("the q1 vector = ", None),
]


@pytest.mark.parametrize("before,want", INDEXED)
def test_a_row_named_by_its_index(before, want):
    assert indexed_row(before) == want


# (before, after, is a factor of a dot product written out, is softmax's argument)
OPERANDS = [
    ("q1 . k1 = ", " . [1, 1, 0] = 1", True, False),
    ("q1 . k1 = [1, 0, 0] . ", " = 1*1 + 0*1 = 1", True, False),
    ("q · k = ", " · [1, 2]", True, False),
    ("q = ", "", False, False),
    ("`softmax(", ")`", False, True),
    ("softmax(", ", dim=-1)", False, False),  # softmax over a tensor: a call, not one row's argument
    ("softmax = ", "", False, False),
]


@pytest.mark.parametrize("before,after,dot,arg", OPERANDS)
def test_operands_are_not_results(before, after, dot, arg):
    assert (dot_operand(before, after), softmax_argument(before, after)) == (dot, arg)


# lines that divide by one divisor: a row of a step only when the divisor says which
DIVISIONS = [
    # √3 ≈ 1.732 under a heading about scaling: the scaled scores
    ("## Scale\n\n- `1 / 1.732 = 0.577`\n- `0 / 1.732 = 0`\n", [("scaled", [["0.577", "0"]])]),
    # numerators 1.78 + 1.78 + 1 = 4.56 add up to the divisor, under "Softmax": the weights
    ("## Softmax\n\n- `1.78 / 4.56 = 0.39`\n- `1.78 / 4.56 = 0.39`\n- `1 / 4.56 = 0.22`\n",
     [("weights", [["0.39", "0.39", "0.22"]])]),
    # a divisor that is no root and no sum: nothing
    ("## Averages\n\n- `6 / 2.5 = 2.4`\n- `4 / 2.5 = 1.6`\n", []),
    # √2 ≈ 1.414 but nothing about scaling nearby: nothing
    ("## Halves\n\n- `1 / 1.414 = 0.707`\n- `2 / 1.414 = 1.414`\n", []),
    # numerators that add up to the divisor, but the page speaks of no softmax or weights: nothing
    ("## Shares\n\n- `1 / 3 = 0.33`\n- `2 / 3 = 0.67`\n", []),
    # one line alone is no row
    ("## Scale\n\n- `1 / 1.732 = 0.577`\n", []),
]


@pytest.mark.parametrize("page,want", DIVISIONS)
def test_lines_that_divide_by_one_divisor(page, want):
    assert steps_of(page) == want


def test_softmax_argument_is_not_the_weights():
    # softmax([0.707, 0]) after the scaled scores: a restatement of them, never the weights
    ex = imported(WORDS + DOTS + SCALE + "## Step 3: Softmax\n\n`softmax([0.707, 0])`\n")[0]
    assert not any(c.step == "weights" for c in ex.claims)
    assert any("scaled" in str(n) and "again" in str(n) for n in ex.notes)
