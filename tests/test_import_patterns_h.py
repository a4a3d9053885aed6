"""Ways of writing numbers met on held-out batch h (tests/pages/heldout/h/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import pytest

from import_snippets import claims, imported
from symattn.analyses.importer_items import _shape_product, collect, dot_operand, indexed_row, softmax_argument
from symattn.read.pages import read_page


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
    # q, k and v of a word on one line; the dot products in LaTeX without the vectors; the divisions
    # without list markers; softmax of the scaled row and its result on one line (the argument restates them)
    ('Word vectors for the sentence "I like tea":\n\n'
     "- q1 = [1, 0, 0], k1 = [1, 1, 0], v1 = [0, 1, 1]\n- q2 = [0, 1, 0], k2 = [1, 1, 0], v2 = [1, 0, 1]\n"
     "- q3 = [0, 0, 1], k3 = [0, 1, 1], v3 = [1, 1, 0]\n\nScores for the first word:\n\n"
     "- $q_1 \\cdot k_1 = 1$\n- $q_1 \\cdot k_2 = 1$\n- $q_1 \\cdot k_3 = 0$\n\n"
     "We scale by the square root of d_k = 3:\n\n1 / 1.732 ≈ 0.577\n1 / 1.732 ≈ 0.577\n0 / 1.732 ≈ 0\n\n"
     "softmax([0.577, 0.577, 0]) = [0.39, 0.39, 0.22]\n",
     {"Q": [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]], "K": [["1", "1", "0"], ["1", "1", "0"], ["0", "1", "1"]],
      "V": [["0", "1", "1"], ["1", "0", "1"], ["1", "1", "0"]]},
     {("scores", "I", ("1", "1", "0")), ("scaled", "I", ("0.577", "0.577", "0")),
      ("weights", "I", ("0.39", "0.39", "0.22"))}),
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
    ("q0 = ", ("Q", 0, "q0")),  # the index as written: a page that counts from 0 makes it row 1
    ("w1 = ", None), ("q1 . k1 = ", None), ("the q1 vector = ", None),
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


# a product drawn as matrices side by side, one row of each per line (X x W = K; q1 x Kᵀ = scores):
# X = [[1, 0, 1], [0, 1, 1]], W = [[1, 0, 0], [0, 1, 0], [1, 0, 1]] give K = X·W = [[2, 0, 1], [1, 1, 1]]
# (Q = K, the same W); query 1's scores are [2, 0, 1]·[2, 0, 1] = 5 and [2, 0, 1]·[1, 1, 1] = 3
def inputs_code(make, x, w):
    """Code that gives X and one matrix for all three weights."""
    return f"```python\nx = {make}({x})\n" + "".join(f"w_{n} = {make}({w})\n" for n in ("key", "query", "value"))


SIDE_BY_SIDE = (inputs_code("np.array", "[[1, 0, 1], [0, 1, 1]]", "[[1, 0, 0], [0, 1, 0], [1, 0, 1]]")
                + "```\n\nThe keys:\n```\n"
                "            [1, 0, 0]\n"
                "[1, 0, 1]   [0, 1, 0]   [2, 0, 1]\n"
                "[0, 1, 1] x [1, 0, 1] = [1, 1, 1]\n```\n\n"
                "The scores of the first query:\n```\n"
                "            [2, 1]\n"
                "[2, 0, 1] x [0, 1] = [5, 3]\n"
                "            [1, 1]\n```\n")


def test_matrices_side_by_side_are_read_by_column():
    ex = imported(SIDE_BY_SIDE)[0]
    assert claims(ex) == {("K", "1", ("2", "0", "1")), ("K", "2", ("1", "1", "1")), ("scores", "1", ("5", "3"))}
    # the factors are the inputs printed again (X, W) or a restatement, never a row of their own
    assert any("restates input X" in str(n) for n in ex.notes)
    assert any("restates input Wk" in str(n) for n in ex.notes)


# (diagram lines, the shapes it is read as: the factors in page order, then the result; [] for no diagram):
# only lines of bare vectors and operators, with one '='
DIAGRAMS = [
    ("            [1, 0, 0]\n[1, 0, 1] x [0, 1, 0] = [1, 0, 1]\n            [0, 0, 1]\n", [(3, 3), (1, 3), (1, 3)]),
    # rows of two numbers, whose product line looks like shapes ([2, 1] x [1, 2]) but its result is no shape
    ("[1, 0]   [1, 2]   [1, 2]\n[1, 1] x [0, 1] = [1, 3]\n", [(2, 2), (2, 2), (2, 2)]),
    ("[1, 0]   [2, 1]   [2, 1]\n[1, 1] x [1, 2] = [5, 4]\n", [(2, 2), (2, 2), (2, 2)]),
    ("q = [1, 0, 1]   k = [0, 1, 0]\nq = [0, 1, 1]   k = [1, 1, 1]\n", []),  # names: per-token vectors
    ("[1, 0, 1]   [0, 1, 0]\n[0, 1, 1]   [1, 1, 1]\n", []),  # no product and no '='
    ("[1, 0, 1] x [0, 1, 0] = [0, 0, 0]\n", []),  # one line: the chain on one line, read as before
]


@pytest.mark.parametrize("text,shapes", DIAGRAMS)
def test_which_lines_are_a_diagram(text, shapes):
    items = collect(read_page(text, "text")).items
    operands = [it for it in items if "(matrices side by side)" in " ".join(it.notes)]
    results = [it for it in items if it.chain_of and all("side by side" in " ".join(o.notes) for o in it.chain_of)]
    assert [it.shape for it in operands + results] == shapes


# (line, shapes multiplied): a product of shapes is no numbers of the example
SHAPES = [("QK^T = [2, 2] @ [2, 2]", True), ("[3, 4] x [4, 3] = [3, 3]", True), ("[2, 1] x [1, 2] = [5, 4]", False),
          ("[1, 0] x [1, 2] = [1, 2]", False)]


@pytest.mark.parametrize("line,shape", SHAPES)
def test_a_product_of_shapes(line, shape):
    assert _shape_product(line) is shape


# weights printed in e-notation, then rounded by hand (0.7, 0.3) and used: the weighted values printed as a
# stack named weighted_values, one block per key ([key][query]); with X = W = I, softmax([1, 0]) = [0.7311, 0.2689]
# rounded to [0.7, 0.3]: key 1's block is 0.7·[1, 0] and 0.3·[1, 0] (queries 1 and 2), key 2's 0.3·[0, 1], 0.7·[0, 1]
ROUNDED = (inputs_code("torch.tensor", "[[1., 0.], [0., 1.]]", "[[1., 0.], [0., 1.]]")
           + "keys = x @ w_key\nquerys = x @ w_query\nvalues = x @ w_value\nattn_scores = querys @ keys.T\n"
           "attn_scores_softmax = softmax(attn_scores, dim=-1)\nprint(attn_scores_softmax)\n```\n\n"
           "```\ntensor([[7.3106e-01, 2.6894e-01],\n        [2.6894e-01, 7.3106e-01]])\n```\n\n"
           "Rounded by hand:\n\n```python\nattn_scores_softmax = torch.tensor([[0.7, 0.3], [0.3, 0.7]])\n```\n\n"
           "Each value times its weight:\n\n```\n1: 0.7 * [1, 0] = [0.7, 0.0]\n2: 0.3 * [0, 1] = [0.0, 0.3]\n```\n\n"
           "```python\nweighted_values = attn_scores_softmax.t().unsqueeze(-1) * values.unsqueeze(1)\n"
           "print(weighted_values)\n```\n\n"
           "```\ntensor([[[0.7000, 0.0000],\n         [0.3000, 0.0000]],\n\n"
           "        [[0.0000, 0.3000],\n         [0.0000, 0.7000]]])\n```\n")


def weighted(ex):
    return {(c.row, c.key, tuple(c.values)) for c in ex.claims if c.step == "weighted"}


def test_hand_rounded_weights_and_a_stack_of_weighted_values():
    ex = imported(ROUNDED)[0]
    assert ex.spec.convention.heads == 1  # a stack named weighted_values on a page that never says heads
    got = {(c.step, c.row, tuple(c.values), c.group is None) for c in ex.claims if c.step == "weights"}
    assert got == {("weights", "1", ("7.3106e-01", "2.6894e-01"), True), ("weights", "2", ("2.6894e-01", "7.3106e-01"), True),
                   ("weights", "1", ("0.7", "0.3"), False), ("weights", "2", ("0.3", "0.7"), False)}
    assert weighted(ex) == {("1", "1", ("0.7", "0.0")), ("1", "2", ("0.0", "0.3")),  # 0.7 * [1, 0], 0.3 * [0, 1]
                            ("1", "1", ("0.7000", "0.0000")), ("1", "2", ("0.0000", "0.3000")),
                            ("2", "1", ("0.3000", "0.0000")), ("2", "2", ("0.0000", "0.7000"))}


def test_a_stack_of_weighted_values_that_fits_neither_way_is_listed():
    bad = ROUNDED.replace("[[0.0000, 0.3000],\n         [0.0000, 0.7000]]", "[[0.5000, 0.5000],\n         [0.5000, 0.5000]]")
    ex = imported(bad)[0]
    assert not any(c.step == "weighted" and "0.5000" in c.values for c in ex.claims)
    assert any("match neither way round" in str(n) for n in ex.notes)


def test_a_stack_on_a_page_about_heads_is_still_heads():
    page = ROUNDED.replace("print(weighted_values)", "num_heads = 2\nprint(weighted_values)")
    assert imported(page)[0].spec.convention.heads == 2


# (label, values, row sums of the weights?): a vector called a sum is the weights' row sums only near 1
ROW_SUMS = [("All row sums", "[1.0000, 1.0000]", True), ("This sum", "[2.0, 7.0]", False)]


@pytest.mark.parametrize("label,values,is_sum", ROW_SUMS)
def test_a_sum_far_from_one_is_no_row_sum(label, values, is_sum):
    page = ROUNDED.split("Rounded by hand")[0] + f"{label}: {values}\n"
    ex = imported(page)[0]
    assert any(c.step == "weights_sum" for c in ex.claims) == is_sum


def test_a_page_that_counts_rows_from_zero():
    # the same rows and dot products written q0, q1, k0, k1: q0 is the first row, q0 · k1 the score (1, 2)
    page = (WORDS + DOTS).replace("Word 1", "Word 0").replace("Word 2", "Word 1")
    for a, b in (("1", "0"), ("2", "1")):
        for n in "qkv":
            page = page.replace(f"{n}{a} ", f"{n}{b} ")
    assert "q0 . k1" in page and "q2" not in page
    ex = imported(page)[0]
    assert {k: g.rows for k, g in ex.inputs.items()} == PAGES[0][1]
    assert claims(ex) == {("scores", "1", ("1", "0"))}


def test_a_stack_of_weighted_values_one_block_per_query():
    # the same numbers printed [query][key]: query 1's block is 0.7·[1, 0] (key 1), 0.3·[0, 1] (key 2)
    page = ROUNDED.replace("[[[0.7000, 0.0000],\n         [0.3000, 0.0000]],\n\n        [[0.0000, 0.3000],",
                           "[[[0.7000, 0.0000],\n         [0.0000, 0.3000]],\n\n        [[0.3000, 0.0000],")
    assert page != ROUNDED
    ex = imported(page)[0]
    assert {w for w in weighted(ex) if w[2][0].endswith("000")} == {
        ("1", "1", ("0.7000", "0.0000")), ("1", "2", ("0.0000", "0.3000")),
        ("2", "1", ("0.3000", "0.0000")), ("2", "2", ("0.0000", "0.7000"))}
    assert any("one block per query" in str(n) for n in ex.notes)


def test_a_row_whose_numbers_say_its_query_needs_no_assumption():
    # [0.707, 0] can only be query 1's scaled row ([1, 0]/√2; query 2's is [0, 0.707]): trying it against the
    # raw scores (where no row fits) must not leave "the page does not say which query's row this is"
    ex = imported(PAGES[0][0])[0]
    assert not [n for n in ex.notes if "which query" in str(n)]


# a sum of vectors written down a column: query 1's weighted values 0.7·[1, 0] and 0.3·[0, 1] (the weights
# rounded by hand, as used on the page) add up to its output [0.7, 0.3]
VSUM = "Adding them:\n\n```\n  [0.7, 0.0]\n+ [0.0, 0.3]\n------------\n= [0.7, 0.3]\n```\n"


def test_a_sum_of_vectors_down_a_column():
    ex = imported(ROUNDED.split("```python\nweighted_values")[0] + VSUM)[0]
    assert ("output", "1", ("0.7", "0.3")) in claims(ex)
    assert weighted(ex) >= {("1", "1", ("0.7", "0.0")), ("1", "2", ("0.0", "0.3"))}


# (sum written out, placed as an output?): terms that are no one query's weighted values are listed, not placed
VSUMS = [
    (VSUM, True),
    (VSUM.replace("+ [0.0, 0.3]", "+ [0.0, 0.9]").replace("= [0.7, 0.3]", "= [0.7, 0.9]"), False),
    (VSUM.replace("+ [0.0, 0.3]\n", ""), False),  # one term: no sum
]


@pytest.mark.parametrize("text,placed", VSUMS)
def test_which_column_sums_are_outputs(text, placed):
    ex = imported(ROUNDED.split("Each value times its weight")[0] + text)[0]
    got = {c.values[0] for c in ex.claims if c.step == "output"}
    assert ("0.7" in got) is placed
    if not placed and "0.9" in text:
        assert any("a sum of vectors written out" in str(n) for n in ex.notes)


# weights rounded by hand to [[0.5, 0.5], [0.5, 0.2]]: 0.5 for key 1 is the weight of both queries, so
# "1: 0.5 * [1, 0]" alone says no query; beside "2: 0.5 * [0, 1]" (only query 1 gives key 2 0.5) it is query 1's
HALVES = ROUNDED.split("Each value times its weight")[0].replace("[[0.7, 0.3], [0.3, 0.7]]", "[[0.5, 0.5], [0.5, 0.2]]")
PRODUCT_LINES = [
    ("```\n1: 0.5 * [1, 0] = [0.5, 0.0]\n2: 0.5 * [0, 1] = [0.0, 0.5]\n```\n",
     {("1", "1", ("0.5", "0.0")), ("1", "2", ("0.0", "0.5"))}),
    ("```\n1: 0.5 * [1, 0] = [0.5, 0.0]\n```\n", set()),
]


@pytest.mark.parametrize("text,want", PRODUCT_LINES)
def test_products_on_lines_side_by_side_share_their_query(text, want):
    assert weighted(imported(HALVES + text)[0]) == want


def section(word, q, k, v=None):
    return (f'**Word ("{word}"):**\n- Query: `{q}`\n- Key: `{k}`\n' + (f"- Value: `{v}`\n" if v else "") + "\n")


# (sections, the matrices read: {step: (rows, row labels)}); a word's vectors named Query/Key/Value, word by word
SECTIONS = [
    (section("a", "[1, 0]", "[1, 1]", "[0, 1]") + section("b", "[0, 1]", "[1, 0]", "[1, 1]"),
     {"Q": ([["1", "0"], ["0", "1"]], ["a", "b"]), "K": ([["1", "1"], ["1", "0"]], ["a", "b"]),
      "V": ([["0", "1"], ["1", "1"]], ["a", "b"])}),
    # the second section gives no value: the sections differ, nothing is joined
    (section("a", "[1, 0]", "[1, 1]", "[0, 1]") + section("b", "[0, 1]", "[1, 0]"), {}),
    # one section: one word's vectors, no matrix
    (section("a", "[1, 0]", "[1, 1]", "[0, 1]"), {}),
]


@pytest.mark.parametrize("text,want", SECTIONS)
def test_per_word_sections_give_the_rows(text, want):
    items = collect(read_page(text, "markdown")).items
    got = {it.step: (it.rows, it.row_labels) for it in items if it.kind == "matrix"}
    assert got == want


# (line, the score it gives: (query, key, value) or None)
DOT_LINES = [
    ("- `q1 . k2 = [1, 0, 0] . [1, 1, 0] = 1*1 + 0*1 + 0*0 = 1`", ("#1", "#2", "1")),
    ("q1.k3 = 0", ("#1", "#3", "0")),
    ("$q_2 \\cdot k_1 = 0.5$", ("#2", "#1", "0.5")),
    ("q1 · k2 / √3 = 0.577", None),  # divided: not the raw score
    ("w1 . k2 = 1", None),
]


@pytest.mark.parametrize("line,want", DOT_LINES)
def test_a_dot_product_of_named_rows_is_a_score(line, want):
    pairs = [(it.pair[0], it.pair[1], it.rows[0][0]) for it in collect(read_page(line + "\n", "markdown")).items
             if it.kind == "pair" and it.step == "scores"]
    assert pairs == ([want] if want else [])
