"""Ways of writing numbers met on held-out batch s (tests/pages/heldout/s/), as tables of (snippet, what it
must yield). Each expected value was read off the snippet by hand."""

import pytest

from import_snippets import imported, notebook

from symattn.analyses.importer_claims_only import draws_at_random, root_of_ratio

# a printed block of scaled scores that is the printed scores divided by √d (to the digits of both)
# says the scale and d_k; when several d fit, or the blocks are the same numbers, it says nothing
RATIO = [
    ([["-2.16", "6.76"], ["13.6", "0.35"]], [["-0.27", "0.845"], ["1.7", "0.044"]], 64),
    ([["-0.0126", "0.0213", "-0.0152"], ["0.0021", "-0.0134", "0.0119"]],
     [["-0.0045", "0.0075", "-0.0054"], ["0.0007", "-0.0047", "0.0042"]], 8),
    ([["2.0", "4.0", "6.0"]], [["1.0", "2.0", "3.0"]], 4),
    ([["2.", "4."]], [["1.", "2."]], None),  # 2 to 5 (and more) fit these digits
    ([["2.0", "4.0"]], [["2.0", "4.0"]], None),  # the same numbers: no scaling
    ([["2.0", "4.0"]], [["-1.0", "2.0"]], None),  # a sign changes: not a division
    ([["2.0", "0.0"]], [["1.0", "0.5"]], None),  # a zero score cannot become 0.5
    ([["2.0", "4.0"]], [["1.0", "2.0", "3.0"]], None),  # shapes differ
    ([["1.0", "-inf"], ["2.0", "4.0"]], [["0.5", "-inf"], ["1.0", "2.0"]], 4),
]


@pytest.mark.parametrize("scores,scaled,want", RATIO)
def test_scaled_block_divided_by_a_root(scores, scaled, want):
    assert root_of_ratio(scores, scaled) == want


RANDOM = [
    ("Q, K, V = (torch.randn(1, 5, 64) for _ in range(3))", True),
    ("W = np.random.normal(size=(4, 4))", True),
    ("return [random.gauss(0, scale) for _ in range(size)]", True),
    ("torch.manual_seed(0)", True),
    ("rng = np.random.default_rng(3)", True),
    ("model = AutoModel.from_pretrained('bert-base-uncased', output_attentions=True)", True),
    ("scores = torch.tensor([[1.0, 2.0], [2.0, 5.0]])", False),
    ("operand = brand(x)", False),
]


@pytest.mark.parametrize("line,want", RANDOM)
def test_code_that_draws_at_random(line, want):
    assert draws_at_random([line]) is want


# random Q, K, V in code; the scores, the scaled scores (÷ √4 = 2) and the weights printed, the weights one
# bracketed row a line under their caption: a file of claims only (the scores are no inputs), scale and d_k
# from the two printed blocks
RANDOM_NB = notebook(
    ("Q, K, V = (torch.randn(1, 3, 4) for _ in range(3))\nscores = Q @ K.transpose(-2, -1)\n"
     "print('Scores:')\nprint(scores[0].numpy().round(2))",
     "Scores:\n[[ 2.12 -1.04  0.5 ]\n [ 1.3   4.06 -2.22]\n [ 0.    1.18  3.  ]]\n"),
    ("scaled = scores / math.sqrt(4)\nprint('Scaled scores:')\nprint(scaled[0].numpy().round(2))",
     "Scaled scores:\n[[ 1.06  -0.52  0.25 ]\n [ 0.65  2.03  -1.11 ]\n [ 0.    0.59   1.5  ]]\n"),
    ("weights = scaled.softmax(-1)\nprint('Attention weights:')\nfor row in weights[0].tolist():\n"
     "    print(f'  [{row}]')",
     "Attention weights:\n  [0.63, 0.14, 0.23]\n  [0.18, 0.79, 0.04]\n  [0.14, 0.23, 0.63]\n"),
)

RANDOM_WANT = {
    ("scores", "1", ("2.12", "-1.04", "0.5")), ("scores", "3", ("0.", "1.18", "3.")),
    ("scaled", "2", ("0.65", "2.03", "-1.11")),
    ("weights", "1", ("0.63", "0.14", "0.23")), ("weights", "2", ("0.18", "0.79", "0.04")),
    ("weights", "3", ("0.14", "0.23", "0.63")),
}


def test_scores_printed_from_random_numbers_are_claims():
    (ex,) = imported(RANDOM_NB, "notebook")
    assert ex.inputs == {}
    assert "inputs" not in ex.data()
    got = {(c.step, c.row, tuple(c.values)) for c in ex.claims if c.group is None}
    assert RANDOM_WANT <= got
    assert {k: c.value for k, c in ex.convention.items()} == {"scale": "1/sqrt(d_k)", "d_k": 4}


def test_scores_written_in_code_stay_inputs():
    # the same printed numbers, the scores given as a literal: the page's inputs
    page = RANDOM_NB.replace("Q, K, V = (torch.randn(1, 3, 4) for _ in range(3))\\nscores = Q @ K.transpose(-2, -1)",
                             "scores = torch.tensor([[2.12, -1.04, 0.5], [1.3, 4.06, -2.22], [0.0, 1.18, 3.0]])")
    (ex,) = imported(page, "notebook")
    assert ex.inputs["scores"].rows[0] == ["2.12", "-1.04", "0.5"]


# a table printed one token a line under a caption ('Scaled Scores (scores / 1.4142)'): the caption names the
# first row, the word 'scores' in it names the rest weakly; one table. Rows of the output named by index
# ('output[0] = […]') are claims of a file with no inputs
TABLES_NB = notebook(
    ("random.seed(42)\nscores = matmul(Q, transpose(K))\nprint_table(scores)",
     "Attention Scores (Q @ K^T)\n\n            the        cat\n   the [   2.1200    -1.0400]\n"
     "   cat [   1.3000     4.0600]\n"),
    ("print_table(scaled)",
     "Scaled Scores (scores / 1.4142)\n\n            the        cat\n   the [   1.4991    -0.7354]\n"
     "   cat [   0.9192     2.8709]\n"),
    ("print_table(weights)",
     "Attention Weights\n\n            the        cat\n   the [   0.9038     0.0962]\n   cat [   0.1240     0.8760]\n"),
    ("for i, row in enumerate(out):\n    print(f'output[{i}] = {row}')",
     "output[0] = [ 0.5000,  0.2500,  1.0000]\noutput[1] = [ 0.1000, -0.2000,  0.3000]\n"),
)

TABLES_WANT = {
    ("scores", "the", ("2.1200", "-1.0400")), ("scores", "cat", ("1.3000", "4.0600")),
    ("scaled", "the", ("1.4991", "-0.7354")), ("scaled", "cat", ("0.9192", "2.8709")),
    ("weights", "the", ("0.9038", "0.0962")), ("weights", "cat", ("0.1240", "0.8760")),
    ("output", "the", ("0.5000", "0.2500", "1.0000")), ("output", "cat", ("0.1000", "-0.2000", "0.3000")),
}


def test_caption_tables_and_named_output_rows_without_inputs():
    (ex,) = imported(TABLES_NB, "notebook")
    assert ex.inputs == {}
    assert {(c.step, c.row, tuple(c.values)) for c in ex.claims if c.group is None} == TABLES_WANT
    assert not any("0.5000, 0.2500" in n.text for n in ex.unplaced)
    assert ex.convention["d_k"].value == 2


def test_output_rows_need_a_name():
    # the same rows with no name and no index: nothing says which query they are, so they stay listed
    page = TABLES_NB.replace("output[0] = [ 0.5000,  0.2500,  1.0000]\\noutput[1] = [ 0.1000, -0.2000,  0.3000]",
                             "[ 0.5000,  0.2500,  1.0000]\\n\\nthe end\\n\\n[ 0.1000, -0.2000,  0.3000]")
    (ex,) = imported(page, "notebook")
    assert not any(c.step == "output" for c in ex.claims)


# an index printed after a name ('(Q[1])', 'output[0] =') is no vector; a row of Q, K or V named by its index
# (on the line before, or before the row with a remark in parentheses) is that row of a file of claims only
NAMED_ROWS_NB = TABLES_NB.replace(
    "for i, row in enumerate(out):",
    "print(Q[1], K[0], V[0], V[1])").replace(
    "output[0] = [ 0.5000,  0.2500,  1.0000]\\noutput[1] = [ 0.1000, -0.2000,  0.3000]",
    "Query for 'cat' (Q[1]):\\n  [ 0.1000,  0.2000,  0.3000]\\n\\nKey for 'the' (K[0]):\\n  [-0.1000,  0.0500,  0.0000]"
    "\\n\\nV[0] (value for 'the'): [ 1.0000,  2.0000]\\nV[1] (value for 'cat'):   [ 3.0000,  4.0000]")

NAMED_ROWS_WANT = {
    ("Q", "cat", ("0.1000", "0.2000", "0.3000")), ("K", "the", ("-0.1000", "0.0500", "0.0000")),
    ("V", "the", ("1.0000", "2.0000")), ("V", "cat", ("3.0000", "4.0000")),
}


def test_rows_named_by_a_printed_index():
    (ex,) = imported(NAMED_ROWS_NB, "notebook")
    assert ex.inputs == {}
    got = {(c.step, c.row, tuple(c.values)) for c in ex.claims if c.group is None}
    assert NAMED_ROWS_WANT <= got
    assert not any(c.values in (["1"], ["0"]) for c in ex.claims)  # the indexes are no numbers of the example


INDEX_NOT_VECTOR = [
    ("Query for 'I' (Q[1]):", []),
    ("output[0] = [0.5, 0.25]", [["0.5", "0.25"]]),
    ("scores[1][0] = 0.0021", []),
    ("V[1] (value for 'I'): [0.5, 0.25]", [["0.5", "0.25"]]),
]


@pytest.mark.parametrize("text,want", INDEX_NOT_VECTOR)
def test_an_index_glued_to_a_name_is_no_vector(text, want):
    from symattn.read.pages import read_page
    from symattn.read.pages.scan import scan
    page = read_page(text + "\n", "text")
    got = [b.rows for b in scan(page.lines) if hasattr(b, "rows") and b.rows and isinstance(b.rows[0], list)
           and b.rows[0] and isinstance(b.rows[0][0], str)]
    assert [r for rows in got for r in rows] == want


# softmax illustrated in prose on made-up vectors ([0.1, 0.2, 0.3] → [0.30, 0.33, 0.37]) before a causal mask is
# introduced does not make the masked steps after it another example: the 3-wide weights fit no row of the
# printed 2×2 scores
MASK_AFTER_PROSE_NB = notebook(
    ("Q, K = torch.randn(2, 4), torch.randn(2, 4)\nscores = Q @ K.T\nprint(scores.numpy().round(2))",
     "[[ 2.12 -1.04]\n [ 1.3   4.06]]\n"),
    "Compare softmax of `[0.1, 0.2, 0.3]`: the first gives `[0.30, 0.33, 0.37]` (smooth).\n\n## Causal mask\n\n"
    "A causal mask sets future positions to -inf.",
    ("masked = scores.masked_fill(mask, float('-inf'))\nprint('Masked scores:')\nfor row in masked.tolist():\n"
     "    print(row)",
     "Masked scores:\n  [ 2.12,   -inf]\n  [ 1.30,   4.06]\n"),
)


def test_prose_softmax_illustration_does_not_split_the_example():
    exs = imported(MASK_AFTER_PROSE_NB, "notebook")
    assert len(exs) == 1
    got = {(c.step, c.row, tuple(c.values)) for c in exs[0].claims if c.group is None}
    assert ("masked", "1", ("2.12", "-inf")) in got and ("masked", "2", ("1.30", "4.06")) in got
    assert ("scores", "1", ("2.12", "-1.04")) in got


# a page that walks through head 0 and then prints every head's weights by number ('HEAD 0: …', 'HEAD 1: …'),
# with no per-head inputs: head 1's weights are an example of their own (claims only), never restatements of
# head 0's
HEADS_NB = notebook(
    ("random.seed(42)\nscores = matmul(Q, transpose(K))\nprint(f'HEAD {head}: Attention Scores')\nprint_table(scores)",
     "HEAD 0: Attention Scores\n\n            the        cat\n   the [   2.1200    -1.0400]\n"
     "   cat [   1.3000     4.0600]\n"),
    ("for h in range(2):\n    print(f'HEAD {h}: Attention Weights')\n    for row in weights[h]:\n        print(row)",
     "HEAD 0: Attention Weights\n  [0.9595, 0.0405]\n  [0.0545, 0.9455]\n\n"
     "HEAD 1: Attention Weights\n  [0.9500, 0.0500]\n  [0.0600, 0.9400]\n"),
)


def test_another_heads_weights_are_their_own_example():
    exs = imported(HEADS_NB, "notebook")
    assert len(exs) == 2
    first, second = exs
    assert ("weights", "the", ("0.9595", "0.0405")) in {(c.step, c.row, tuple(c.values)) for c in first.claims}
    assert not any("0.9500" in c.values for c in first.claims)
    assert {(c.step, c.row, tuple(c.values)) for c in second.claims} == {
        ("weights", "the", ("0.9500", "0.0500")), ("weights", "cat", ("0.0600", "0.9400"))}
    assert second.inputs == {}


def test_heads_numbered_once_are_one_example():
    # only head 0 printed: nothing set aside
    page = HEADS_NB.replace("\\n\\nHEAD 1: Attention Weights\\n  [0.9500, 0.0500]\\n  [0.0600, 0.9400]", "")
    assert len(imported(page, "notebook")) == 1


# the step-per-column table (keys down the side): one query's scores, scaled scores and weights, claims only
STEP_COLUMNS = """
Say we want the attention of "sat".

| Word  | Dot Product Score | After Scaling | Attention Weight |
| ----- | ----------------- | ------------- | ---------------- |
| "the" | 2.0               | 1.0           | 0.10             |
| "cat" | 4.0               | 2.0           | 0.30             |
| "sat" | 6.0               | 3.0           | 0.60             |
"""


def test_a_column_per_step_is_one_querys_steps():
    (ex,) = imported(STEP_COLUMNS)
    assert ex.inputs == {} and ex.key_tokens == ["the", "cat", "sat"]
    assert {(c.step, c.row, tuple(c.values)) for c in ex.claims} == {
        ("scores", "1", ("2.0", "4.0", "6.0")), ("scaled", "1", ("1.0", "2.0", "3.0")),
        ("weights", "1", ("0.10", "0.30", "0.60"))}
    assert {k: c.value for k, c in ex.convention.items()} == {"scale": "1/sqrt(d_k)", "d_k": 4}


def test_columns_not_all_steps_are_no_such_table():
    from symattn.errors import SymattnError
    page = STEP_COLUMNS.replace("After Scaling", "Position    ")  # a column no step names: not read as steps
    with pytest.raises(SymattnError):
        imported(page)


# check on a file of claims only: with its scale fixed it starts from the printed raw scores (so the scores are
# not judged against the scaled ones); V printed for some keys only is not used, and the output is not checked
def _check(data):
    from symattn.analyses.check import check
    from symattn.read.spec import from_dict
    return check(from_dict(data, "t.toml"))


def test_claims_only_with_fixed_scale_starts_from_the_scores():
    r = _check({"key_tokens": ["the", "cat", "sat"], "convention": {"scale": "1/sqrt(d_k)", "d_k": 4},
                "claims": {"scores": [["2.0", "4.0", "6.0"]], "scaled": [["1.0", "2.0", "3.0"]],
                           "weights": [["0.09", "0.24", "0.67"]]}})
    assert "printed scores" in r.based_on
    assert [c.verdict for c in r.claims if c.step == "scaled"] == ["correct"] * 3
    assert [c.verdict for c in r.claims if c.step == "weights"] == ["correct"] * 3  # softmax(1, 2, 3)


def test_claims_only_with_part_of_v():
    r = _check({"tokens": ["a", "b"], "convention": {"scale": "none"},
                "claims": {"scores": {"a": ["0.0", "0.0"], "b": ["1.0", "0.0"]},
                           "V": {"a": ["1.0", "2.0"]}, "weights": {"a": ["0.5", "0.5"], "b": ["0.73", "0.27"]},
                           "output": {"a": ["2.0", "3.0"]}}})
    assert "V is printed for 1 of the keys only" in r.based_on
    assert [c.verdict for c in r.claims if c.step == "weights"] == ["correct"] * 4
    assert not any(c.step in ("V", "output") for c in r.claims)


# one query's scores and weights written one entry a line by index from 0 (a made-up illustration beside a worked
# example): a claims-only example of that query's row
INDEXED = """
Position 3 processing:

2. Compute scores:
   score[3,0] = Q[3] · K[0]  →  0.52
   score[3,1] = Q[3] · K[1]  →  0.31
   score[3,2] = Q[3] · K[2]  →  0.89
   score[3,3] = Q[3] · K[3]  →  0.45

3. Scale by sqrt(d_k)

4. Softmax → weights that sum to 1:
   weight[3,0] = 0.21
   weight[3,1] = 0.15
   weight[3,2] = 0.42  ← Position 2 is most relevant!
   weight[3,3] = 0.22
"""

INDEXED_CASES = [
    (INDEXED, {("scores", "4", ("0.52", "0.31", "0.89", "0.45")), ("weights", "4", ("0.21", "0.15", "0.42", "0.22"))}),
    # a key left out: the block does not give its rows whole, and is not read
    (INDEXED.replace("   score[3,1] = Q[3] · K[1]  →  0.31\n", ""), set()),
    # two queries mixed: nothing
    (INDEXED.replace("weight[3,3]", "weight[2,3]"), set()),
]


@pytest.mark.parametrize("page,want", INDEXED_CASES)
def test_entries_written_by_index(page, want):
    page = "```\n" + page + "```\n\n" + TWO_BY_TWO
    exs = imported(page)
    got = {(c.step, c.row, tuple(c.values)) for e in exs[1:] for c in e.claims}
    assert got == want


TWO_BY_TWO = """
$$Q = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}, \\quad K = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix},
\\quad V = \\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}$$

The scores are $QK^T = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}$.
"""


# a row printed again only as far as it can see (full precision, the hidden keys left out) restates that row
def _prefix_nb(line):
    return notebook(
        ("random.seed(1)\nscores = matmul(Q, transpose(K))\nprint_table(scores)",
         "Attention Scores\n\n            the        cat        sat\n   the [   2.1200    -1.0400     0.5000]\n"
         "   cat [   1.3000     4.0600    -2.2200]\n   sat [   0.0000     1.1800     3.0000]\n"),
        ("print_table(masked)",
         "Masked Scores (future positions set to -inf)\n\n            the        cat        sat\n"
         "   the [   2.1200       -inf       -inf]\n   cat [   1.3000     4.0600       -inf]\n"
         "   sat [   0.0000     1.1800     3.0000]\n"),
        ("print(f'Masked scores: {masked[1][:2]}')", line + "\n"),
    )


PREFIXES = [
    ("Masked scores: [1.300012, 4.059987] (only positions 0,1 are visible)",
     {("masked", "cat", ("1.300012", "4.059987", ".."))}),
    ("Masked scores: [1.310012, 4.059987] (only positions 0,1 are visible)", set()),  # 1.31 is not 1.3000
    ("Masked scores: [0.000012, 1.180001] (two of three)", set()),  # row 'sat' hides nothing: no prefix
]


@pytest.mark.parametrize("line,want", PREFIXES)
def test_a_row_restated_as_far_as_it_sees(line, want):
    (ex,) = imported(_prefix_nb(line), "notebook")
    got = {(c.step, c.row, tuple(c.values)) for c in ex.claims if c.group is not None and ".." in c.values}
    assert got == want


# rows printed one a block under names with the query's index from 0, nothing else worked: 'Attentions for output  n'
# (attentions are the attention weights) over a NumPy list of 1×1 arrays, 'x_prime_n_calculated: [[…]]' where the
# prose calls x′ the outputs; then the same run in the column layout (weights keys × queries, each column summing
# to 1; outputs D × N): a second example read by columns
def _udl_like(prose="Self-attention takes $N$ inputs and produces $N$ outputs $\\mathbf{x}'_{n}$.", second=True):
    cells = [
        prose,
        ("np.random.seed(0)\nomega_q = np.random.normal(size=(2, 2))\nfor n in range(2):\n"
         "  print('Attentions for output ', n)\n  print(attention)\n"
         "print('x_prime_0_calculated:', x0.T)\nprint('x_prime_1_calculated:', x1.T)",
         "Attentions for output  0\n[array([[0.25]]), array([[0.75]])]\nAttentions for output  1\n"
         "[array([[1.5e-05]]), array([[0.999985]])]\n"
         "x_prime_0_calculated: [[ 0.5  -1.25  2.  ]]\nx_prime_1_calculated: [[ 1.   0.5  -3.  ]]\n"),
    ]
    if second:
        cells.append(("print(attention)\nprint(X_prime)",
                      "[[0.4 0.1]\n [0.6 0.9]]\n[[ 1.   2. ]\n [ 3.   4. ]\n [ 5.   6. ]]\n"))
    return notebook(*cells)


def test_rows_named_by_index_and_a_run_by_columns():
    first, second = imported(_udl_like(), "notebook")
    assert {(c.step, c.row, tuple(c.values)) for c in first.claims} == {
        ("weights", "1", ("0.25", "0.75")), ("weights", "2", ("1.5e-05", "0.999985")),
        ("output", "1", ("0.5", "-1.25", "2.")), ("output", "2", ("1.", "0.5", "-3."))}
    assert {(c.step, c.row, tuple(c.values)) for c in second.claims} == {
        ("weights", "1", ("0.4", "0.6")), ("weights", "2", ("0.1", "0.9")),
        ("output", "1", ("1.", "3.", "5.")), ("output", "2", ("2.", "4.", "6."))}
    assert first.inputs == {} and second.inputs == {}


def test_x_prime_is_the_output_only_where_the_prose_says_so():
    (ex,) = imported(_udl_like(prose="Self-attention takes $N$ inputs.", second=False), "notebook")
    assert {c.step for c in ex.claims} == {"weights"}
    assert any("0.5, -1.25" in n.text for n in ex.unplaced)


def test_rows_that_sum_to_one_are_not_a_run_by_columns():
    # the later 2×2 block's rows are distributions: not the weights printed keys × queries
    page = _udl_like().replace("[[0.4 0.1]\\n [0.6 0.9]]", "[[0.4 0.6]\\n [0.1 0.9]]")
    assert len(imported(page, "notebook")) == 1


@pytest.mark.parametrize("label,want", [
    ("Attentions for output  0", ("weights", 0)),
    ("Attention weights for query 2", ("weights", 2)),
    ("Scores for token 1:", ("scores", 1)),
    ("x_prime_1_true", ("output", 1)),
    ("y_prime_1_true", None),  # the prose calls x′ the outputs, not y′
    ("Colours for output 0", None),
    ("weights_3", ("weights", 3)),
])
def test_row_names_with_an_index(label, want):
    from symattn.analyses.importer_rows import _indexed_row_name
    assert _indexed_row_name(label, {"x"}) == want


def test_claims_only_one_query_of_the_sentence_without_v():
    # one query's scores among the sentence's tokens (tokens = the sentence, the row keyed by the query) and an
    # output with no V printed: checked from the scores as that query's, the output left unchecked
    r = _check({"tokens": ["a", "b", "c"], "convention": {"scale": "none", "query": "b"},
                "claims": {"scores": {"b": ["0.0", "0.0", "0.0"]}, "weights": {"b": ["0.333", "0.333", "0.333"]},
                           "output": {"b": ["1.0", "2.0"]}}})
    assert "the file prints no V, so the output is not checked" in r.based_on
    assert [c.verdict for c in r.claims if c.step == "weights"] == ["correct"] * 3


def test_scores_printed_by_code_from_unprinted_tensors_are_claims():
    # no random draw in sight: Q and K come from a notebook the page does not show; the printed scores are
    # still a result, not an input
    page = RANDOM_NB.replace("Q, K, V = (torch.randn(1, 3, 4) for _ in range(3))\\n", "Q, K, V = load_previous()\\n")
    assert "load_previous" in page and "randn" not in page
    (ex,) = imported(page, "notebook")
    assert ex.inputs == {}
    assert ("scores", "1", ("2.12", "-1.04", "0.5")) in {(c.step, c.row, tuple(c.values)) for c in ex.claims}


def test_rows_one_a_line_named_in_comments():
    # '[0.18, 0.79, 0.04]  # cat': each printed row's token in a comment after it names the rows (and the tokens)
    page = RANDOM_NB.replace("  [0.63, 0.14, 0.23]\\n  [0.18, 0.79, 0.04]\\n  [0.14, 0.23, 0.63]\\n",
                             "  [0.63, 0.14, 0.23]  # the\\n  [0.18, 0.79, 0.04]  # cat\\n  [0.14, 0.23, 0.63]  # sat\\n")
    assert "# cat" in page
    (ex,) = imported(page, "notebook")
    assert ex.tokens == ["the", "cat", "sat"]
    assert ("weights", "cat", ("0.18", "0.79", "0.04")) in {(c.step, c.row, tuple(c.values)) for c in ex.claims}
    # the same comments repeated (or missing on a row) name nothing
    same = page.replace("# cat", "# the")
    (ex,) = imported(same, "notebook")
    assert ex.tokens is None


# a random model's weights and output printed whole and named, nothing else: claims only, one row each
WEIGHTS_OUTPUT_NB = notebook(
    ("q, k, v = torch.randn(3, 2, 4)\nout, w = attention(q, k, v)\nprint('Attention weights:')\nprint(w)\n"
     "print('Output:')\nprint(out)",
     "Attention weights:\ntensor([[0.6000, 0.4000],\n        [0.3000, 0.7000]])\nOutput:\n"
     "tensor([[ 0.1000, -0.2000,  0.3000,  0.4000],\n        [ 0.5000,  0.6000, -0.7000,  0.8000]])\n"),
)


def test_named_steps_printed_whole_without_inputs():
    (ex,) = imported(WEIGHTS_OUTPUT_NB, "notebook")
    assert ex.inputs == {}
    assert {(c.step, c.row, tuple(c.values)) for c in ex.claims} == {
        ("weights", "1", ("0.6000", "0.4000")), ("weights", "2", ("0.3000", "0.7000")),
        ("output", "1", ("0.1000", "-0.2000", "0.3000", "0.4000")), ("output", "2", ("0.5000", "0.6000", "-0.7000", "0.8000"))}


def test_named_steps_that_disagree_in_rows_are_not_one_example():
    from symattn.errors import SymattnError
    page = WEIGHTS_OUTPUT_NB.replace(",\\n        [ 0.5000,  0.6000, -0.7000,  0.8000]", "")
    assert "0.5000" not in page
    with pytest.raises(SymattnError):
        imported(page, "notebook")
