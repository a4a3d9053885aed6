"""Ways of writing numbers met on held-out batch n (tests/pages/heldout/n/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import pytest

import symattn as sa
from symattn.analyses.importer_items import collect
from symattn.read.pages import read_page


def _rows(text: str, fmt: str = "markdown") -> list:
    return [it.rows for it in collect(read_page(text, fmt)).items]


# (snippet, the numbers read from it): two numbers after the word "range" are the ends of an
# interval, not a vector; "≈ [0.269, 0.731]" is a result and stays read
RANGES = [
    ("```\n64-dim dot product can be large: range [-64, 64]\n```\n", []),
    ("```\nScaled scores in reasonable range: ~ [-8, 8]\n```\n", []),
    ("Values in the range (0, 1) only.\n", []),
    ("Softmax(0,1) ≈ [0.269, 0.731].\n", [[["0.269", "0.731"]]]),
    ("The weights are [0.2, 0.8].\n", [[["0.2", "0.8"]]]),
    ("range [1, 2, 3] of three\n", [[["1", "2", "3"]]]),  # three numbers: not an interval's ends
]


@pytest.mark.parametrize("text,want", RANGES)
def test_range_ends_are_not_a_vector(text, want):
    assert _rows(text) == want


# (snippet, the matrix read): a row comment in C style, `// tok_idx=0`, after a row's comma
SLASH = [
    ("```\nembeddings = [\n    [0.4, 0.1, 0.8], // tok_idx=0\n    [0.5, 0.8, 0.6], // tok_idx=1\n"
     "    [0.0, 0.8, 0.5]\n]\n```\n", [["0.4", "0.1", "0.8"], ["0.5", "0.8", "0.6"], ["0.0", "0.8", "0.5"]]),
    ("```\nx = [[1, 2], // first\n     [3, 4]] // second\n```\n", [["1", "2"], ["3", "4"]]),
]


@pytest.mark.parametrize("text,want", SLASH)
def test_slash_comments_after_rows(text, want):
    assert _rows(text) == [want]



# (line, the query token it names, of tokens a b c): a 0-based index after "token at index" or
# "of tok_idx="; a bare assignment names nothing
QUERY_INDEX = [
    ("attending from the token at index 1 gives", "b"),
    ("we want the context vector of tok_idx=2", "c"),
    ("The attention weights of the token at index 0 come out as:", "a"),
    ("tok_idx = 1", None),
    ("the token at index 7", None),  # past the tokens
]


@pytest.mark.parametrize("text,want", QUERY_INDEX)
def test_query_by_index(text, want):
    from symattn.analyses.importer_conventions import query_evidence
    from symattn.read.pages.model import Line, Where
    got = query_evidence([Line(text, Where(1), "code")], ["a", "b", "c"])
    assert (got.value if got else None) == want


# a weighted average of word vectors with weights written outright in code, then Q, K and V given in
# code: two examples; the first's weights are not the second's, and the first holds no inputs (its
# word vectors are not Q = K = V: no query or key makes its weights), only its weights and output
OUTRIGHT = ("### Step 1: Input Sequence\n\nTake 3 words, each a 4-dimensional vector:\n\n```python\nsequence = torch.tensor([[0.1, 0.2, 0.3, 0.4],  # word 1: \"The\"\n"
            "                         [0.5, 0.6, 0.7, 0.8],  # word 2: \"cat\"\n"
            "                         [0.9, 1.0, 1.1, 1.2]]) # word 3: \"sat\"\n```\n\n"
            "```python\nattention_weights = torch.tensor([0.1, 0.3, 0.6])\n```\n\n"
            "```python\noutput = sum(w * row for w, row in zip(attention_weights, sequence))\nprint(output)\n"
            "# tensor([0.7000, 0.8000, 0.9000, 1.0000])\n```\n\n"
            "```python\nquery = torch.tensor([1.0, 0.0])\n```\n\n"
            "```python\nkeys = torch.tensor([[1.0, 0.0],\n                     [0.0, 1.0]])\n```\n\n"
            "```python\nvalues = torch.tensor([[10.0, 20.0],\n                       [30.0, 40.0]])\n```\n\n"
            "```python\nscores = keys @ query\nweights = F.softmax(scores, dim=0)\nprint(\"Weights:\", weights)\n"
            "# tensor([0.7311, 0.2689])\n```\n")


def test_weights_given_outright_are_not_the_next_examples():
    exs = sa.import_examples(OUTRIGHT, format="markdown", source="snippet")
    assert len(exs) == 2
    first, ex = exs
    # the weighted average: claims only, the weights it gives and the output it prints
    assert not first.spec.inputs
    assert {(c.step, c.row, tuple(c.values)) for c in first.claims} == {
        ("weights", "1", ("0.1", "0.3", "0.6")), ("output", "1", ("0.7000", "0.8000", "0.9000", "1.0000"))}
    assert [[str(x) for x in r] for r in ex.spec.inputs["Q"]] == [["1", "0"]]
    got = {(c.step, tuple(c.values)) for c in ex.claims}
    assert ("weights", ("0.7311", "0.2689")) in got
    assert not any("0.1" in c.values for c in ex.claims)
    assert any("weights the page writes outright" in n.text for n in first.notes + ex.notes)


# a page with Q and K but no V that prints its steps as tables, one labelled row a line, each under a
# caption naming the step: claims only, one example while the steps are new (a step seen again, or a
# table of another size, starts another); a table under no step word is listed, not placed
GRIDS = ("```python\nQ = torch.tensor([[1.0, 0.0], [0.0, 1.0]])\nK = torch.tensor([[1.0, 0.0], [1.0, 1.0]])\n```\n\n"
         "**Full scores matrix:**\n```\n       Key0  Key1\nQuery0 [1.0,  1.0]\nQuery1 [0.0,  1.0]\n```\n\n"
         "**After softmax:**\n```\nQuery0 [0.5, 0.5]\nQuery1 [0.269, 0.731]\n```\n\n"
         "**Example output:**\n```\nAttention Matrix:\nPos0 [[0.6, 0.4],\nPos1  [0.3, 0.7]]\n```\n\n"
         "For the sentence:\n```\n\"a\"   [[0.2, 0.9],\n\"b\"    [0.9, 0.4]]\n```\n")


def test_labelled_tables_without_inputs_are_claims():
    exs = sa.import_examples(GRIDS, format="markdown", source="snippet")
    got = [{(c.step, c.row, tuple(c.values)) for c in ex.claims} for ex in exs]
    assert got == [
        {("scores", "Query0", ("1.0", "1.0")), ("scores", "Query1", ("0.0", "1.0")),
         ("weights", "Query0", ("0.5", "0.5")), ("weights", "Query1", ("0.269", "0.731"))},
        {("weights", "Pos0", ("0.6", "0.4")), ("weights", "Pos1", ("0.3", "0.7"))},
    ]
    assert all(not ex.spec.inputs for ex in exs)
    assert any("0.2, 0.9" in n.text for ex in exs for n in ex.notes)  # no step named: listed


# (rows of a table under no step word, the step its numbers make it): rows that are distributions
# (entries in [0, 1], each summing to 1 to its rounding) are attention weights
SUMS = [
    ([["0.2", "0.3", "0.5"], ["0.4", "0.4", "0.2"], ["0.1", "0.6", "0.3"]], "weights"),
    ([["0.333", "0.333", "0.333"], ["0.5", "0.5", "0.0"], ["1", "0", "0"]], "weights"),
    ([["0.2", "0.9"], ["0.9", "0.4"]], None),  # rows sum to 1.1 and 1.3
    ([["1", "0"], ["0", "1"]], None),  # whole numbers: an identity, not printed weights
    ([["1.5", "-0.5"], ["0.5", "0.5"]], None),  # outside [0, 1]
]


@pytest.mark.parametrize("rows,want", SUMS)
def test_rows_that_sum_to_one(rows, want):
    from symattn.analyses.importer_rows import _rows_sum_to_one
    assert _rows_sum_to_one(rows) == want


# (lines after a worked example, the weights read as claims only): each token's weights one line a key
ATTENDS = [
    ('Position 0 ("The"):\n  Attends to "The": 0.3 (moderate)\n  Attends to "cat": 0.7 (high)\n  → a note\n\n'
     'Position 1 ("cat"):\n  Attends to "The": 0.4\n  Attends to "cat": 0.6\n',
     {("The", ("0.3", "0.7")), ("cat", ("0.4", "0.6"))}),
    ('"The":\n  attends to "The": 0.5\n  attends to "cat": 0.5\n"cat":\n  attends to "The": 0.1\n  attends to "cat": 0.9\n',
     {("The", ("0.5", "0.5")), ("cat", ("0.1", "0.9"))}),
    # rows that do not sum to 1, or keys that are not the queries: not read
    ('Position 0 ("The"):\n  Attends to "The": 0.3\n  Attends to "cat": 0.3\n'
     'Position 1 ("cat"):\n  Attends to "The": 0.4\n  Attends to "cat": 0.6\n', None),
    ('Position 0 ("The"):\n  Attends to "a": 0.3\n  Attends to "b": 0.7\n'
     'Position 1 ("cat"):\n  Attends to "a": 0.4\n  Attends to "b": 0.6\n', None),
]
QKV = ("```python\nQ = torch.tensor([[1.0, 0.0], [0.0, 1.0]])\nK = torch.tensor([[1.0, 0.0], [0.0, 1.0]])\n"
       "V = torch.tensor([[1.0, 2.0], [3.0, 4.0]])\nw = F.softmax(Q @ K.T / 2 ** 0.5, dim=-1)\nprint(w)\n"
       "# tensor([[0.6698, 0.3302], [0.3302, 0.6698]])\n```\n\n")


@pytest.mark.parametrize("text,want", ATTENDS)
def test_attends_to_lines(text, want):
    exs = sa.import_examples(QKV + "```python\n" + text + "```\n", format="markdown", source="snippet")
    extra = [ex for ex in exs if not ex.spec.inputs]
    if want is None:
        assert not extra
    else:
        (ex,) = extra
        assert {(c.row, tuple(c.values)) for c in ex.claims if c.step == "weights"} == want


# (code, the scale it shows): softmax of a method that returns the scores, with no scaling in the code
SOFTMAX_CALLS = [
    ("return torch.softmax(self.scores_for_token(embeddings, tok_idx), dim=0)", "none"),
    ("return torch.softmax(self.scores(embeddings), dim=-1)", "none"),
    ("s = self.scores(x) / math.sqrt(d_k)\nreturn torch.softmax(self.scores(x), dim=-1)", "1/sqrt(d_k)"),
    ("return torch.softmax(self.project(x), dim=-1)", None),
]


@pytest.mark.parametrize("code,want", SOFTMAX_CALLS)
def test_softmax_of_a_scores_method(code, want):
    from symattn.analyses.importer_conventions import scale_evidence
    from symattn.read.pages.model import Line, Where
    got = scale_evidence([Line(t, Where(k + 1), "code") for k, t in enumerate(code.split("\n"))])
    assert (got.value if got else None) == want
