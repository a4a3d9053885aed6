"""Ways of writing numbers met on held-out batch ag (tests/pages/heldout/ag/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import pytest

from import_snippets import claims, imported

import symattn as sa
from symattn.analyses.importer_items import Item, softmax_arrow_asides
from symattn.analyses.importer_names import step_of_text
from symattn.analyses.importer_placer import _unit_pattern
from symattn.analyses.importer import read_page
from symattn.read.pages.formats import _aside_label
from symattn.read.pages.model import Table

_QKV3 = """
```python
Q = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
K = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
V = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
scores = Q @ K.T
{aside}
```
"""

# --- softmax shown on a literal row, "[100, 1, 1] → softmax → [0.99999, …]": an aside, not the example's row ---

ASIDES = [
    "# Why scale: the softmax saturates, e.g.\n# [100, 1, 1] → softmax → [0.99999, 0.00001, 0.00001]",
    "# e.g. [10, 1, 1] -> softmax -> [0.99, 0.005, 0.005]",
    "# 예: [100, 1, 1] → softmax → [0.99999, 0.00001, 0.00001]",
]


@pytest.mark.parametrize("aside", ASIDES)
def test_softmax_of_a_literal_row_is_an_aside(aside):
    (ex,) = imported(_QKV3.format(aside=aside))
    assert claims(ex) == set()  # neither vector is placed as scores or weights
    assert not [c for c in ex.claims if c.group]


ARROW_ITEMS = [
    # (left's strength, left's token, right's text before it, both set aside)
    (1, None, "[100, 1, 1] → softmax → ", True),
    (0, None, "[100, 1, 1] -> softmax -> ", True),
    (2, None, "[100, 1, 1] → softmax → ", False),  # the left row is named as the example's: the placer decides
    (1, "cat", "[100, 1, 1] → softmax → ", False),  # a token's row
    (1, None, "[100, 1, 1] → scaled → ", False),  # not a softmax
]


@pytest.mark.parametrize("strength,token,before,aside", ARROW_ITEMS)
def test_softmax_arrow_items(strength, token, before, aside):
    a = Item([["100", "1", "1"]], [], 3, 3, "vector", step="weights", strength=strength, token=token,
             after=" " + before.split("]", 1)[1].strip() + " [1, 0, 0]")
    b = Item([["1", "0", "0"]], [], 3, 3, "vector", step="weights", strength=2, before=before)
    softmax_arrow_asides([a, b])
    assert (bool(a.aside), bool(b.aside)) == (aside, aside)


# --- a 0/±1 pattern ("Vector C = [0, 1]") overturns its name only when it is a step's values exactly ---------

UNIT = """
```python
X = [[0.2, 0.8, 0.3], [0.5, 0.4, 0.9], [0.1, 0.7, 0.6]]
W_Q = [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]]
W_K = [[0.7, 0.8], [0.9, 0.1], [0.2, 0.3]]
W_V = [[0.4, 0.5], [0.6, 0.7], [0.8, 0.9]]
```

Two vectors pointing the same way give a large dot product:
```
Vector A = [1, 0]
Vector C = [0, 1]
A · C = 0  (orthogonal, not similar)
```
"""


def test_unit_vector_is_not_a_rounded_row():
    # Q[Cat] = [0.41, 0.54] rounds to [0, 1], but [0, 1] here is a demo vector, not Q's first row
    (ex,) = imported(UNIT)
    assert claims(ex) == set()


UNIT_PATTERNS = [
    ([["0", "1"]], True),
    ([["-1", "0"]], True),
    ([["1", "0", "1"], ["0", "1", "0"]], True),
    ([["1.0", "0"]], False),  # a decimal point: printed digits, not a pattern
    ([["6", "2", "4"]], False),  # whole numbers past 1 carry information (a page's integer scores)
    ([["0", "2"]], False),
]


@pytest.mark.parametrize("rows,unit", UNIT_PATTERNS)
def test_unit_pattern(rows, unit):
    assert _unit_pattern(rows) is unit


# --- a DataFrame printed in a fenced block (```bash) whose row labels are words like `with`: output, not code ---

FRAME = """
```python
Q = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
K = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
V = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
weights = torch.softmax(Q @ K.T, dim=-1)
print(pd.DataFrame(weights.numpy(), index=words, columns=words))
```
```bash
          May      with       you
May  0.576117  0.211942  0.211942
with 0.211942  0.576117  0.211942
you  0.155362  0.155362  0.689276
```
"""


def test_dataframe_in_a_shell_fence_is_read():
    (ex,) = imported(FRAME)
    assert claims(ex) == {("weights", "May", ("0.576117", "0.211942", "0.211942")),
                          ("weights", "with", ("0.211942", "0.576117", "0.211942")),
                          ("weights", "you", ("0.155362", "0.155362", "0.689276"))}


# --- projection weights drawn in code, the output and each head's weights printed: claims only, a step a head ---

HEADS = """
```python
torch.manual_seed(0)
X = torch.tensor([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0]])
W_Q = torch.randn(2, 4, 2)
W_K = torch.randn(2, 4, 2)
W_V = torch.randn(2, 4, 2)
out, attn = multi_head_attention(X, W_Q, W_K, W_V, num_heads=2)
print("Context vectors:", out)
```

```bash
Context vectors: tensor([[ 0.1234, -0.5678,  0.9012,  0.3456],
        [ 0.2345, -0.6789,  0.0123,  0.4567],
        [ 0.3456, -0.7890,  0.1234,  0.5678]])
```
{heads}
"""

HEAD = """
#### Head {h}

```bash
        I      love      cats
I     {a}  0.250000  0.250000
love  0.100000  0.800000  0.100000
cats  0.333333  0.333333  0.333334
```
"""

ROWS2 = {("love", ("0.100000", "0.800000", "0.100000")), ("cats", ("0.333333", "0.333333", "0.333334"))}


def test_heads_weights_from_random_projections_are_claims_only():
    page = HEADS.format(heads=HEAD.format(h=1, a="0.500000") + HEAD.format(h=2, a="0.500001"))
    (ex,) = imported(page)
    assert ex.inputs == {}
    assert ex.spec.convention.heads == 2
    got = claims(ex)
    assert ("output", "I", ("0.1234", "-0.5678", "0.9012", "0.3456")) in got
    assert {(r, v) for s, r, v in got if s == "head1.weights"} == ROWS2 | {("I", ("0.500000", "0.250000", "0.250000"))}
    assert {(r, v) for s, r, v in got if s == "head2.weights"} == ROWS2 | {("I", ("0.500001", "0.250000", "0.250000"))}


def test_one_head_printed_from_random_projections_is_still_refused():
    with pytest.raises(sa.SymattnError, match="makes its weights in code"):
        imported(HEADS.format(heads=HEAD.format(h=1, a="0.500000")))


# --- labels -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,output", [
    ("Anzahl der Aufmerksamkeitsmatrizen (entspricht num_heads): 2", True),  # a label, an aside, its value
    ("Attention weights (each row = one query):", True),
    ("print(x): 2", False),
    ("def f(x): return 1", False),
])
def test_label_with_an_aside_then_its_value(text, output):
    assert _aside_label(text) is output


@pytest.mark.parametrize("label,step", [
    ("Ausgabe des Multi-Head Attention Layers (Kontextvektoren):", "output"),
    ("Kontextvektor für May:", "output"),
])
def test_german_context_vectors(label, step):
    assert step_of_text(label) == step


# --- pipe tables: '| - |' as the delimiter row; '| | dog |' over '| le | 0.3 |' with no delimiter row ----------

@pytest.mark.parametrize("table,header,rows", [
    ("| dog |\n| - |\n| -4.3 |\n| -1.2 |", ["dog"], [["-4.3"], ["-1.2"]]),
    ("| a | b |\n| - | - |\n| 1 | 2 |", ["a", "b"], [["1", "2"]]),
    ("| | dog |\n| le | 0.3 |\n| chien | -2.1 |", ["", "dog"], [["le", "0.3"], ["chien", "-2.1"]]),
    ("| a | b |\n| 1 | 2 |\n| 3 | 4 |", None, [["a", "b"], ["1", "2"], ["3", "4"]]),  # no corner: no header
])
def test_pipe_table_headers(table, header, rows):
    page = read_page("Some text.\n\n" + table + "\n", "markdown", "snippet")
    (t,) = [b for b in page.blocks if isinstance(b, Table)]
    assert (t.header, t.rows) == (header, rows)


# --- steps printed as tables with a column per key token, one query's scores and weights as '| | dog |' ----------

TOKEN_COLUMNS = """
The values might look like this:

| le | chien | a | un |
| - | - | - | - |
| 0.1 | 0.3 | -4.3 | 2.2 |
| -2.1 | -2.1 | -1.2 | 0.2 |

#### Score

The attention scores:

| | dog |
| le | 0.3 |
| chien | -2.1 |
| a | 5.5 |
| un | 3.2 |

#### Alignment

Softmax gives the attention weights:

| | dog |
| le | 0.2 |
| chien | 0.6 |
| a | 0.1 |
| un | 0.1 |

So each attention weight is applied to its value:

| le | chien | a | un |
| - | - | - | - |
| 0.02 | 0.18 | -0.43 | 0.22 |
| -0.42 | -1.26 | -0.12 | 0.02 |

Adding the columns up gives the final context vector:

| Context |
| - |
| 0.1 |
| -2.1 |
"""

QUERY_AND_INPUTS = """
The query, as a word embedding:

| dog |
| - |
| -4.3 |
| -1.2 |
| -3.2 |

The input features, word embeddings as well:

| le | chien | a | un |
| - | - | - | - |
| 0.1 | 0.3 | -4.3 | 2.2 |
| -2.1 | -2.1 | -1.2 | 0.2 |
| -0.3| -0.5 | -1.1 | 3.1 |
"""


KEYS = """
Each input feature is multiplied by the key matrix. Here it is 2x3, so the keys form a 2x4 matrix, something like:

| le | chien | a | un |
| - | - | - | - |
| 0.5 | 0.3 | -4.3 | 1.1 |
| -2.1 | -2.0 | -1.2 | 2.4 |
"""


def test_token_column_tables_are_read_by_column():
    # the query (3 numbers) cannot meet keys of 2: no inputs; each step read by its columns, the keys' table
    # named by the last sentence above it (its first sentence speaks of the input features)
    (ex,) = imported(QUERY_AND_INPUTS + KEYS + TOKEN_COLUMNS)
    assert ex.inputs == {}
    assert {c for c in claims(ex) if c[0] != "weighted"} == {("K", "le", ("0.5", "-2.1")), ("K", "chien", ("0.3", "-2.0")), ("K", "a", ("-4.3", "-1.2")),
                          ("K", "un", ("1.1", "2.4")), ("V", "le", ("0.1", "-2.1")), ("V", "chien", ("0.3", "-2.1")), ("V", "a", ("-4.3", "-1.2")),
                          ("V", "un", ("2.2", "0.2")), ("scores", "dog", ("0.3", "-2.1", "5.5", "3.2")),
                          ("weights", "dog", ("0.2", "0.6", "0.1", "0.1")), ("output", "dog", ("0.1", "-2.1"))}


def test_weighted_values_by_token_column():
    (ex,) = imported(QUERY_AND_INPUTS + TOKEN_COLUMNS)
    got = {(c.row, c.key, tuple(c.values)) for c in ex.claims if c.step == "weighted"}
    assert got == {("dog", "le", ("0.02", "-0.42")), ("dog", "chien", ("0.18", "-1.26")),
                   ("dog", "a", ("-0.43", "-0.12")), ("dog", "un", ("0.22", "0.02"))}


def test_token_column_tables_need_scores_and_weights():
    # the weights alone (no scores table): nothing tells the reading which query and keys; nothing is drafted
    page = QUERY_AND_INPUTS + TOKEN_COLUMNS.split("#### Score")[0] + "#### Alignment" + \
        TOKEN_COLUMNS.split("#### Alignment")[1]
    with pytest.raises(sa.SymattnError):
        imported(page)


def test_one_column_scores_table_is_one_query_row():
    # '| | dog |' over the keys: the scores of the query dog against le, chien, a, un (not four queries of one key)
    (ex,) = imported(TOKEN_COLUMNS)
    assert [g.rows for g in ex.inputs.values()] == [[["0.3", "-2.1", "5.5", "3.2"]]]
    assert claims(ex) == {("weights", "dog", ("0.2", "0.6", "0.1", "0.1"))}


def test_heads_reading_leaves_one_heads_output_listed():
    # the only output printed is head 1's ("Head 1 output:"), not the layer's: listed; the weights are still read
    page = HEADS.replace('print("Context vectors:", out)', 'print("Head 1 output:", out)').replace(
        "Context vectors: tensor", "Head 1 output: tensor").format(
        heads=HEAD.format(h=1, a="0.500000") + HEAD.format(h=2, a="0.500001"))
    (ex,) = imported(page)
    assert {s for s, _, _ in claims(ex)} == {"head1.weights", "head2.weights"}
