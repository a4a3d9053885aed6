"""Ways of writing numbers that published attention tutorials use, each as a table of (snippet,
what it must yield): sums of weighted values on one line, weights restated in prose by position,
and more. Every expected value was read off the snippet by hand (the inputs are chosen so that
the attention numbers are easy to derive: Q = K = I, unscaled, gives softmax([1, 0]) =
[e, 1]/(e + 1) = [0.7311, 0.2689] per query)."""

import pytest

import symattn as sa

HEAD = ("```\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]\n```\n\nNo scaling.\n\n")
WEIGHTS = "Attention weights:\n[[0.73, 0.27],\n [0.27, 0.73]]\n\n"


def imported(page, fmt="markdown"):
    exs = sa.import_examples(page, format=fmt, source="snippet")
    assert len(exs) == 1
    return exs[0]


def claims(ex, step=None):
    return {(c.step, c.row, c.key, tuple(c.values), c.group is not None) for c in ex.claims
            if step is None or c.step == step}


def unplaced(ex):
    return [n.text for n in ex.notes if n.kind == "unplaced"]


def places_exactly(page, want):
    """The page's claims are ``want``, and nothing on it is left unplaced."""
    ex = imported(page)
    assert claims(ex) == want
    assert not unplaced(ex)


# ---------------------------------------------------------------------------------------
# weighted values of one query written as a sum on one line: term j is p_ij·v_j

VSUMS = [
    # the weights printed (rounded), each term their product with V's row: 0.27·[1, 2], 0.73·[3, 4]
    (HEAD + WEIGHTS + "Output for the second query:\n= [0.27, 0.54] + [2.19, 2.92] = [2.46, 3.46]\n",
     {("weighted", "2", "1", ("0.27", "0.54"), False), ("weighted", "2", "2", ("2.19", "2.92"), False)},
     {("output", "2", None, ("2.46", "3.46"), False)}),
    # no weights printed: the terms fit the derived weights of query 2 (0.2689·[1, 2], 0.7311·[3, 4])
    (HEAD + "Second output = [0.2689, 0.5379] + [2.1932, 2.9242]\n",
     {("weighted", "2", "1", ("0.2689", "0.5379"), False), ("weighted", "2", "2", ("2.1932", "2.9242"), False)},
     set()),
    # the result on the next line, the products on the line above (0.73·[1, 2] + 0.27·[3, 4])
    (HEAD + WEIGHTS + "Output 1:\n= 0.73×[1, 2] + 0.27×[3, 4]\n= [0.73, 1.46] + [0.81, 1.08]\n= [1.54, 2.54]\n",
     {("weighted", "1", "1", ("0.73", "1.46"), False), ("weighted", "1", "2", ("0.81", "1.08"), False)},
     {("output", "1", None, ("1.54", "2.54"), False)}),
]


@pytest.mark.parametrize("page,weighted,output", VSUMS)
def test_a_sum_of_weighted_values_on_one_line(page, weighted, output):
    ex = imported(page)
    assert claims(ex, "weighted") == weighted
    assert claims(ex, "output") == output
    assert not unplaced(ex)


NOT_VSUMS = [
    # an embedding plus its position: no query's weights times V give [1, 0] and [0.5, 0.5]
    HEAD + WEIGHTS + "## Positional encoding\n\nWith the position added: x + p = [1, 0] + [0.5, 0.5] = [1.5, 0.5]\n",
    # three terms, and there are two keys
    HEAD + WEIGHTS + "Output 1 = [0.73, 1.46] + [0.81, 1.08] + [0, 0]\n",
    # both queries' weights are [0.5, 0.5] (Q = 0): the terms fit either, so no query is chosen
    HEAD.replace("Q = [[1, 0], [0, 1]]", "Q = [[0, 0], [0, 0]]")
    + "Attention weights:\n[[0.5, 0.5],\n [0.5, 0.5]]\n\nOutput = [0.5, 1] + [1.5, 2]\n",
]


@pytest.mark.parametrize("page", NOT_VSUMS)
def test_a_sum_that_is_not_one_querys_weighted_values_is_listed_not_placed(page):
    ex = imported(page)
    assert not claims(ex, "weighted")
    assert any("a sum of" in n for n in unplaced(ex)), unplaced(ex)


# ---------------------------------------------------------------------------------------
# numbers restated in prose by position ("the first and last get 0.119 and 0.880") or by token

HEAD3 = ("```python\ntokens = ['the', 'cat', 'sat']\nQ = [[1, 0], [0, 1], [1, 1]]\nK = [[1, 0], [0, 1], [1, 1]]\n"
         "V = [[1, 0], [0, 1], [1, 1]]\n```\n\nNo scaling.\n\n")
# scores of 'sat' are [1, 1, 2]: weights [1, 1, e]/(2 + e) = [0.2119, 0.2119, 0.5761]

POSITIONS = [
    # both queries' weights rows are [0.7311, 0.2689] and [0.2689, 0.7311]: only query 2 has these
    (HEAD + "After softmax, the first and second words get 0.269 and 0.731.\n",
     {("weights", "2", None, ("0.269", "0.731"), False)}),
    # one number for one position: query 2's last weight
    (HEAD + "The last key receives 0.731 of the attention.\n", {("weights", "2", None, ("..", "0.731"), False)}),
    # restated at another precision after the weights were printed: kept as a restatement
    (HEAD + WEIGHTS + "The first and second words get 0.269 and 0.731 of the attention.\n",
     {("weights", "1", None, ("0.73", "0.27"), False), ("weights", "2", None, ("0.27", "0.73"), False),
      ("weights", "2", None, ("0.269", "0.731"), True)}),
    # by token, the numbers before the words
    (HEAD3 + "Its weights are 0.21, 0.21 and 0.58 for 'the', 'cat' and 'sat'.\n",
     {("weights", "sat", None, ("0.21", "0.21", "0.58"), False)}),
    # scores, named by the verb: query 1's scores are [1, 0]
    (HEAD + WEIGHTS + "The first and last keys score 1 and 0 for query 1.\n",
     {("weights", "1", None, ("0.73", "0.27"), False), ("weights", "2", None, ("0.27", "0.73"), False),
      ("scores", "1", None, ("1", "0"), False)}),
]


@pytest.mark.parametrize("page,want", POSITIONS)
def test_numbers_given_by_position_in_prose(page, want):
    places_exactly(page, want)


NOT_POSITIONS = [
    # ordinals of rows, steps and fractions are not positions among the keys: nothing read, nothing listed
    (HEAD + WEIGHTS + "The first row gets 0.73 and 0.27 of the attention.\n", 0),
    (HEAD + WEIGHTS + "In step 2 every attention weight is about one third, 0.33.\n", 0),
    (HEAD + WEIGHTS + "The first 2 tokens get 0.5 of the attention.\n", 0),
    # positions no query has these numbers at: listed
    (HEAD + WEIGHTS + "The first and second words get 0.5 and 0.5 of the attention.\n", 1),
    # both queries have them (Q = 0: every weight is 0.5): listed, no query chosen
    (HEAD.replace("Q = [[1, 0], [0, 1]]", "Q = [[0, 0], [0, 0]]")
     + "Attention weights:\n[[0.5, 0.5],\n [0.5, 0.5]]\n\nThe first word gets 0.50 of the attention.\n", 1),
]


@pytest.mark.parametrize("page,listed", NOT_POSITIONS)
def test_prose_that_gives_no_position_or_fits_no_query_places_nothing(page, listed):
    ex = imported(page)
    assert not any(c.group is not None or c.step == "scores" for c in ex.claims)
    assert len([n for n in unplaced(ex) if "by position" in n]) == listed, unplaced(ex)


# ---------------------------------------------------------------------------------------
# one query's row under a label that names the query, and rows the values decide

ROWS = [
    # "weights for query 1" is a row of the weights (not the query weight matrix Wq)
    (HEAD + "Weights for query 1: [0.73, 0.27]\nWeights for query 2: [0.27, 0.73]\n",
     {("weights", "1", None, ("0.73", "0.27"), False), ("weights", "2", None, ("0.27", "0.73"), False)}),
    (HEAD + "Attention weights for token 2: [0.27, 0.73]\n", {("weights", "2", None, ("0.27", "0.73"), False)}),
    # softmax of each row of scores, one line each
    (HEAD + "softmax([1, 0]) = [0.7311, 0.2689]\nsoftmax([0, 1]) = [0.2689, 0.7311]\n",
     {("weights", "1", None, ("0.7311", "0.2689"), False), ("weights", "2", None, ("0.2689", "0.7311"), False)}),
]


@pytest.mark.parametrize("page,want", ROWS)
def test_a_row_whose_query_the_values_decide_is_placed_without_an_assumption(page, want):
    ex = imported(page)
    assert claims(ex) == want
    # each row's values single out its query: nothing about the query is assumed
    assert not [n for n in ex.notes if n.kind == "assumed" and "query" in n.text]


# ---------------------------------------------------------------------------------------
# entries written one by one with their indices: α₁₂ = 0.27, a_{1,2}, q1·k2 = … = 0

SCALED_HEAD = HEAD.replace("No scaling.", "Scores are divided by √d_k = √2.")

INDEXED = [
    (HEAD + WEIGHTS + "α₁₂ = 0.269\n", {("weights", "1", None, ("..", "0.269"), True)}),
    # several on a line, one after a formula
    (HEAD + WEIGHTS + "so α₁₂ = 0.269 and α₂₁ = e^0/(e^1 + e^0) = 0.2689.\n",
     {("weights", "1", None, ("..", "0.269"), True), ("weights", "2", None, ("0.2689", ".."), True)}),
    (HEAD + WEIGHTS + "$a_{2,2} = 0.731$\n", {("weights", "2", None, ("..", "0.731"), True)}),
    # dot products of a query and a key are the raw scores
    (HEAD + WEIGHTS + "q1·k2 = 1×0 + 0×1 = 0\n\nq2·k2 = 0×0 + 1×1 = 1\n",
     {("scores", "1", None, ("..", "0"), False), ("scores", "2", None, ("..", "1"), False)}),
    # counted from 0 on this page (q0 is met): q1 is the second query
    (HEAD + WEIGHTS + "q0·k0 = 1\n\nq1·k0 = 0\n",
     {("scores", "1", None, ("1", ".."), False), ("scores", "2", None, ("0", ".."), False)}),
    # divided by √d_k: the scaled scores, 1/√2 = 0.7071
    (SCALED_HEAD + "q_1 \\cdot k_1 / \\sqrt{2} = 0.71\n", {("scaled", "1", None, ("0.71", ".."), False)}),
]


@pytest.mark.parametrize("page,want", INDEXED)
def test_entries_written_with_their_indices(page, want):
    ex = imported(page)
    got = {c for c in claims(ex) if c[4] or c[0] != "weights"} if WEIGHTS in page else claims(ex)
    assert got == want
    assert not unplaced(ex)


NOT_INDEXED = [
    HEAD + WEIGHTS + "e_{12} = e^{0.5} = 1.65\n",  # an exponential, not an energy
    HEAD + WEIGHTS + "a_1 = 0.5, x_12 = 3, α₁₂ = 0.2 × 3\n",  # one index, another symbol, a product
    # a Latin letter names an entry of any matrix (here of a product explained in general): numbers decide
    HEAD + WEIGHTS + "For C = AB, the entry $c_{12} = a_{11} b_{12} + a_{12} b_{22}$, e.g. so $a_{12} = 3$.\n",
]


@pytest.mark.parametrize("page", NOT_INDEXED)
def test_what_is_not_an_entry_with_indices_is_not_read_as_one(page):
    ex = imported(page)
    assert {c[0] for c in claims(ex)} == {"weights"} and not any(c.group for c in ex.claims)


# ---------------------------------------------------------------------------------------
# tables with a column of row sums; rows of numbers with commas and no brackets

SUM_TABLE = "Attention weights:\n\n| {corner} | k1 | k2 | {sum} |\n|---|---|---|---|\n| q1 | 0.73 | 0.27 | 1.00 |\n" \
            "| q2 | 0.27 | 0.73 | 1.00 |\n"


@pytest.mark.parametrize("corner,total", [("", "Σ"), ("query", "sum"), ("", "**Row sum**"), ("", "Total")])
def test_a_column_of_row_sums_is_read_as_sums_not_as_a_key(corner, total):
    ex = imported(HEAD + SUM_TABLE.format(corner=corner, sum=total))
    assert claims(ex) == {("weights", "q1", None, ("0.73", "0.27"), False),
                          ("weights", "q2", None, ("0.27", "0.73"), False),
                          ("weights_sum", "q1", None, ("1.00",), False), ("weights_sum", "q2", None, ("1.00",), False)}
    assert not unplaced(ex)


def test_a_sum_column_beside_scores_is_listed_not_placed():
    # scores Q·Kᵀ with Q = [[2, 0], [0, 1]], K = [[1, 1], [0, 1]]: [[2, 0], [1, 1]]; their sums are no weights'
    page = (HEAD.replace("Q = [[1, 0], [0, 1]]", "Q = [[2, 0], [0, 1]]").replace("K = [[1, 0], [0, 1]]",
                                                                                "K = [[1, 1], [0, 1]]")
            + "Attention scores:\n\n| | k1 | k2 | sum |\n|---|---|---|---|\n| q1 | 2 | 0 | 2 |\n| q2 | 1 | 1 | 2 |\n")
    ex = imported(page)
    assert claims(ex) == {("scores", "q1", None, ("2", "0"), False), ("scores", "q2", None, ("1", "1"), False)}
    assert len([n for n in unplaced(ex) if "a sum whose terms" in n]) == 2


@pytest.mark.parametrize("sep", [" ", ", ", "\t"])
def test_rows_of_numbers_without_brackets(sep):
    ex = imported(HEAD + f"Attention weights:\n0.73{sep}0.27\n0.27{sep}0.73\n")
    assert claims(ex) == {("weights", "1", None, ("0.73", "0.27"), False), ("weights", "2", None, ("0.27", "0.73"), False)}


def test_a_number_with_a_thousands_comma_is_not_split_into_a_row():
    from symattn.read.pages.scan import _split_row
    assert _split_row("1,234") == ["1,234"] and _split_row("0.5, 1e-3,") == ["0.5", "1e-3"]


# ---------------------------------------------------------------------------------------
# weights written as percentages: each the decimal it is, with the same digits

def test_a_table_of_percentages_is_read_as_the_decimals_it_holds():
    page = HEAD + "Attention weights:\n\n| | k1 | k2 |\n|---|---|---|\n| q1 | 73% | 27% |\n| q2 | 26.9 % | 73.1% |\n"
    ex = imported(page)
    assert claims(ex) == {("weights", "q1", None, ("0.73", "0.27"), False),
                          ("weights", "q2", None, ("0.269", "0.731"), False)}


@pytest.mark.parametrize("weights", ["[[73%, 27%], [26.9%, 73.1%]]", "\n73% 27%\n26.9% 73.1%\n",
                                     "\n[73%, 27%]\n[26.9%, 73.1%]\n"])
def test_percentages_in_brackets_and_rows_are_read_as_decimals(weights):
    ex = imported(HEAD + f"Attention weights: {weights}\n")
    assert claims(ex) == {("weights", "1", None, ("0.73", "0.27"), False),
                          ("weights", "2", None, ("0.269", "0.731"), False)}


def test_a_percentage_in_prose_by_position():
    ex = imported(HEAD + "After softmax the first and second words get 26.9% and 73.1% of the attention.\n")
    assert claims(ex) == {("weights", "2", None, ("0.269", "0.731"), False)}


def test_a_table_mixing_percentages_and_plain_numbers_is_not_converted():
    # 0.73 beside 27%: not one table of percentages; its percent cells are not numbers, so it is not read
    page = HEAD + WEIGHTS + "| | k1 | k2 |\n|---|---|---|\n| q1 | 0.73 | 27% |\n| q2 | 0.27 | 73% |\n"
    ex = imported(page)
    assert all(c.group is None for c in ex.claims)


# ---------------------------------------------------------------------------------------
# numbers keyed by token: printed dictionaries, "token: number" lines, pairs of tokens in prose

# scores of 'sat' are [1, 1, 2]: weights [1, 1, e]/(2 + e) = [0.2119, 0.2119, 0.5761]; of 'the' [1, 0, 1]:
# [e, 1, e]/(2e + 1) = [0.4223, 0.1554, 0.4223]
W3 = "Attention weights:\n[[0.42, 0.16, 0.42]]\n\n"  # the first query's row
KEYED = [
    (HEAD3 + "```\nprint(dict(zip(tokens, weights[2])))\n```\n```\n{'the': 0.2119, 'cat': 0.2119, 'sat': 0.5761}\n```\n",
     {("weights", "sat", None, ("0.2119", "0.2119", "0.5761"), False)}),
    # the dictionary in another order than the keys: each number goes to its own key
    (HEAD3 + "```\n{'sat': 0.4223, 'the': 0.4223, 'cat': 0.1554}\n```\n",
     {("weights", "the", None, ("0.4223", "0.1554", "0.4223"), False)}),
    (HEAD3 + "Attention weights for 'sat':\n\n- the: 0.21\n- cat: 0.21\n- sat: 0.58\n",
     {("weights", "sat", None, ("0.21", "0.21", "0.58"), False)}),
    # a subset of the keys, named by the label's query
    (HEAD3 + "Attention weights for 'the':\n\nthe: 0.42\ncat: 0.16\n",
     {("weights", "the", None, ("0.42", "0.16", ".."), False)}),
    # a row listed in a sentence: the query named, or the one whose row has the numbers
    (HEAD3 + "Softmax output for 'sat': 0.21, 0.21, 0.58\n", {("weights", "sat", None, ("0.21", "0.21", "0.58"), False)}),
    (HEAD3 + "The attention weights for the first word are 0.42, 0.16 and 0.42. The model has 2, 3 and 4 layers.\n",
     {("weights", "the", None, ("0.42", "0.16", "0.42"), False)}),
    # a pair written with an arrow, and one in a sentence (query and key decided by the numbers)
    (HEAD3 + "Attention(sat → cat) = 0.21\n", {("weights", "sat", None, ("..", "0.21", ".."), False)}),
    (HEAD3 + "The attention weight of 'sat' on 'cat' is 0.21.\n", {("weights", "sat", None, ("..", "0.21", ".."), False)}),
    # “cat” → “the” and “the” → “cat” are both 0.1554: only a pair the numbers single out is placed
    (HEAD3 + "Here “sat” attends to “the” with weight 0.212.\n", {("weights", "sat", None, ("0.212", "..", ".."), False)}),
]


@pytest.mark.parametrize("page,want", KEYED)
def test_numbers_keyed_by_token(page, want):
    places_exactly(page, want)


NOT_KEYED = [
    # settings, not tokens: nothing read
    (HEAD3 + W3 + "d_k: 2\nscale: 1\n", 0),
    # words that are not the example's keys: listed
    (HEAD3 + W3
     + "Attention weights:\n\n- dog: 0.5\n- fish: 0.5\n", 1),
    # both ways round fit (0.1554): listed, not placed
    (HEAD3 + W3
     + "Here “cat” attends to “the” with weight 0.155.\n", 1),
    # 0.5 is no weight of 'the' and 'sat' either way round: listed
    (HEAD3 + W3
     + "The attention weight of 'the' on 'sat' is 0.5.\n", 1),
    # a list in a sentence that names a step, whose numbers are no row of it: listed
    (HEAD3 + W3 + "The scores of the queries are 7, 8 and 9.\n", 1),
    # two words compared, not a query and a key
    (HEAD3 + W3
     + "“the” has a weight of 0.42, the same as “sat”.\n", 0),
]


@pytest.mark.parametrize("page,listed", NOT_KEYED)
def test_what_is_not_keyed_by_the_examples_tokens_is_not_placed(page, listed):
    exs = sa.import_examples(page, format="markdown", source="snippet")
    ex = exs[0]
    assert {(c.step, c.row) for c in ex.claims} <= {("weights", "the")}
    assert all(c.values == ["0.42", "0.16", "0.42"] for c in ex.claims)
    assert len(unplaced(ex)) == listed, unplaced(ex)


# ---------------------------------------------------------------------------------------
# Unicode minus in tables; numbers printed truncated ("0.7310…")

# V = [[1, −2], [3, 4]]: output rows 0.7311·[1, −2] + 0.2689·[3, 4] = [1.5378, −0.3866] and [2.4622, 2.3866]
MINUS_HEAD = HEAD.replace("V = [[1, 2], [3, 4]]", "V = [[1, −2], [3, 4]]")
OUTPUT_ROWS = {("output", "q1", None, ("1.54", "-0.39"), False), ("output", "q2", None, ("2.46", "2.39"), False)}


@pytest.mark.parametrize("page,fmt", [
    (MINUS_HEAD + "Output:\n\n| | d1 | d2 |\n|---|---|---|\n| q1 | 1.54 | −0.39 |\n| q2 | 2.46 | 2.39 |\n", "markdown"),
    ("<pre>Q = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\nV = [[1, -2], [3, 4]]</pre><p>No scaling.</p><p>Output:</p>"
     "<table><tr><th></th><th>d1</th><th>d2</th></tr><tr><td>q1</td><td>1.54</td><td>&minus;0.39</td></tr>"
     "<tr><td>q2</td><td>2.46</td><td>2.39</td></tr></table>", "html"),
])
def test_a_unicode_minus_in_a_table_is_a_minus(page, fmt):
    assert claims(imported(page, fmt)) == OUTPUT_ROWS


@pytest.mark.parametrize("weights", ["[[0.7310…, 0.2689…], [0.2689…, 0.7310…]]", "[[0.7310..., 0.2689...], [0.2689..., 0.7310...]]",
                                     "\n0.7310… 0.2689…\n0.2689… 0.7310…\n"])
def test_numbers_printed_truncated_are_listed_not_placed_nor_dropped(weights):
    # 0.7310… is 0.73105… cut off: as a rounded claim it would read as wrong (0.7311), so it is left out, and said
    page = MINUS_HEAD + f"Attention weights: {weights}\n\nOutput: [[1.54, −0.39], [2.46, 2.39]]\n"
    ex = imported(page)
    assert {c[0] for c in claims(ex)} == {"output"}
    assert any("printed truncated (0.7310…" in n or "printed truncated (0.7310..." in n for n in unplaced(ex)), unplaced(ex)
