"""Ways of writing numbers met on held-out batch r (tests/pages/heldout/r/), as tables of (snippet,
what it must yield). Each expected value was read off the snippet by hand; the printed results in the
snippets were computed with NumPy (torch's X·Wᵀ) and rounded to the digits shown."""

import pytest

from import_snippets import claims, imported, notebook

from symattn.analyses.importer_params import parameter_copy

# a matrix written into a module's weight in PyTorch code: the module names the projection (nn.Linear
# stores (out, in)), an index on a list of modules names the head (from 0 in code)
PARAMETER_COPIES = [
    ("    W_Q.weight.copy_(torch.tensor(", ("Wq", None, "W_Q.weight")),
    ("W_k.weight.data = torch.tensor(", ("Wk", None, "W_k.weight")),
    ("self.value.weight = nn.Parameter(torch.tensor(", ("Wv", None, "self.value.weight")),
    ("q_proj.weight.data.copy_(", ("Wq", None, "q_proj.weight")),
    ("attn.k_proj.weight[:] = torch.tensor(", ("Wk", None, "attn.k_proj.weight")),
    ("layer.query.weight.data[:, :] = torch.tensor(", ("Wq", None, "layer.query.weight")),
    ("    Q_layers[1].weight.copy_(torch.tensor(", ("Wq", 2, "Q_layers[1].weight")),
    ("value_heads[0].weight.copy_(torch.tensor(", ("Wv", 1, "value_heads[0].weight")),
    ("self.heads[1].W_k.weight.copy_(torch.tensor(", ("Wk", 2, "self.heads[1].W_k.weight")),
    ("out_proj.weight.copy_(torch.tensor(", ("Wo", None, "out_proj.weight")),
    # not a projection's weight: embedding tables, norms, a layer index that is no head
    ("tok_emb.weight.copy_(torch.tensor(", None),
    ("ln1.weight.copy_(torch.tensor(", None),
    ("blocks[0].attn.q_proj.weight.copy_(torch.tensor(", None),
    ("W_Q.bias.copy_(torch.tensor(", ("bq", None, "W_Q.bias")),
    ("Q_layers[0].bias.copy_(torch.tensor(", None),  # one head's bias: not joined, not read
    ("out_proj.bias.copy_(torch.tensor(", None),
    ("print(W_Q.weight)", None),
]


@pytest.mark.parametrize("before,want", PARAMETER_COPIES)
def test_parameter_copy(before, want):
    assert parameter_copy(before) == want


_X = "x = torch.tensor([[1.0, 0.0, 1.0, 0.0], [0.0, 2.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0]])\n"
_ONE_HEAD = """W_Q = nn.Linear(4, 2, bias=False)
W_K = nn.Linear(4, 2, bias=False)
W_V = nn.Linear(4, 2, bias=False)
with torch.no_grad():
    W_Q.weight.copy_(torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]))
    W_K.weight.copy_(torch.tensor([[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]))
    W_V.weight.copy_(torch.tensor([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]))
Q, K, V = W_Q(x), W_K(x), W_V(x)
weights = torch.softmax(Q @ K.T / math.sqrt(2), dim=-1)
print("Attention weights:\\n", weights)
"""
_ONE_HEAD_OUT = """Attention weights:
 tensor([[0.5035, 0.2483, 0.2483],
        [0.1636, 0.6728, 0.1636],
        [0.4011, 0.4011, 0.1978]])
"""
_TWO_HEADS = """Q_layers = nn.ModuleList([nn.Linear(4, 2, bias=False) for _ in range(2)])
K_layers = nn.ModuleList([nn.Linear(4, 2, bias=False) for _ in range(2)])
V_layers = nn.ModuleList([nn.Linear(4, 2, bias=False) for _ in range(2)])
with torch.no_grad():
    Q_layers[0].weight.copy_(torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]))
    K_layers[0].weight.copy_(torch.tensor([[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]))
    V_layers[0].weight.copy_(torch.tensor([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]))
    Q_layers[1].weight.copy_(torch.tensor([[0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 1.0]]))
    K_layers[1].weight.copy_(torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0]]))
    V_layers[1].weight.copy_(torch.tensor([[0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0]]))
out_proj = nn.Linear(4, 4, bias=False)
with torch.no_grad():
    out_proj.weight.copy_(torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0],
                                        [0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 1.0]]))
print("Z (two heads, projected):\\n", Z)
"""
_TWO_HEADS_OUT = """Z (two heads, projected):
 tensor([[1.4965, 0.7517, 0.5035, 1.9930],
        [1.8364, 0.8364, 0.1978, 2.6386],
        [1.5989, 0.8022, 0.3333, 2.2656]])
"""


def test_per_head_weight_copies_after_one_head_start_a_two_head_example():
    page = notebook((_X, None), (_ONE_HEAD, _ONE_HEAD_OUT), "## Two heads", (_TWO_HEADS, _TWO_HEADS_OUT))
    one, two = imported(page, "notebook")
    assert one.inputs["Wq"].rows == [["1.0", "0.0", "0.0", "0.0"], ["0.0", "1.0", "0.0", "0.0"]]
    assert "Wo" not in one.inputs
    assert ("weights", "1", ("0.5035", "0.2483", "0.2483")) in claims(one)
    # head 0's rows, then head 1's (torch layout: one block of rows per head)
    assert two.inputs["Wq"].rows == [["1.0", "0.0", "0.0", "0.0"], ["0.0", "1.0", "0.0", "0.0"],
                                     ["0.0", "1.0", "0.0", "0.0"], ["1.0", "0.0", "0.0", "1.0"]]
    assert two.inputs["Wv"].rows[2:] == [["0.0", "0.0", "0.0", "1.0"], ["1.0", "0.0", "0.0", "0.0"]]
    assert two.inputs["Wo"].rows[3] == ["1.0", "0.0", "0.0", "1.0"]
    assert two.inputs["X"].rows == one.inputs["X"].rows
    d = two.data()
    assert d["convention"]["heads"] == 2 and d["convention"]["layout"] == "torch"
    said = " ".join(n.text for n in two.notes)
    assert "one block of rows per head" in said and "one block of columns per head" not in said
    assert ("output", "2", ("1.8364", "0.8364", "0.1978", "2.6386")) in claims(two)


def test_one_head_weight_copies_alone_are_one_example():
    page = notebook((_X, None), (_ONE_HEAD, _ONE_HEAD_OUT))
    (one,) = imported(page, "notebook")
    assert one.inputs["Wk"].rows == [["0.0", "0.0", "1.0", "0.0"], ["0.0", "0.0", "0.0", "1.0"]]
    assert one.data()["convention"]["layout"] == "torch"
    assert ("weights", "3", ("0.4011", "0.4011", "0.1978")) in claims(one)


# a worked example in plain code blocks: a pipe table with no outer pipes (Word | Query | Key | Value,
# a rule of dashes under the header, quoted words down the side), token-labelled score and weight grids,
# the output of one token as a chain continued on lines that open with '=', then a causal mask drawn one
# row a line; the prose says the example leaves out the √d_k division that the code shown first makes
WALK = """## Attention in code

```python
def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    return softmax(scores) @ V
```

### Worked example

```
Word | Query      | Key        | Value
-----|------------|------------|-----------
"a"  | [1, 0]     | [0, 1]     | [1, 2]
"b"  | [1, 1]     | [1, 0]     | [3, 5]
```

To keep the numbers simple we leave out the √d_k division here.

```
Scores:
        "a"   "b"
  "a" [ 0.0,  1.0 ]
  "b" [ 1.0,  1.0 ]
```

```
Attention weights:
        "a"    "b"
  "a" [ 0.27, 0.73 ]
  "b" [ 0.50, 0.50 ]
```

```
Output for "b" = 0.50 × V_a + 0.50 × V_b
               = 0.50 × [1, 2] + 0.50 × [3, 5]
               = [2.00, 3.50]
```

### Causal masking

```
Position 0 sees: [ 0, -∞ ]
Position 1 sees: [ 0,  0 ]
```
"""


def test_walkthrough_in_plain_code_blocks():
    (ex,) = imported(WALK)  # the mask drawn under its own heading is no second example
    assert ex.tokens == ["a", "b"]  # the words inside the quotes
    assert ex.inputs["Q"].rows == [["1", "0"], ["1", "1"]]
    assert ex.inputs["K"].rows == [["0", "1"], ["1", "0"]]
    assert ex.inputs["V"].rows == [["1", "2"], ["3", "5"]]
    assert ex.data()["convention"]["scale"] == "none"
    got = claims(ex)
    assert ("scores", "b", ("1.0", "1.0")) in got
    assert ("weights", "a", ("0.27", "0.73")) in got
    assert ("output", "b", ("2.00", "3.50")) in got  # the chain's left side names the row
    assert not any(step == "masked" for step, _, _ in got)
    unplaced = [n.text for n in ex.notes if n.kind == "unplaced"]
    assert sum("causal mask drawn one row a line" in t for t in unplaced) == 2


def test_without_the_sentence_the_code_decides_the_scale():
    page = WALK.replace("To keep the numbers simple we leave out the √d_k division here.\n", "")
    (ex,) = imported(page)
    assert ex.data()["convention"]["scale"] == "1/sqrt(d_k)"


# pipe tables GitHub draws: no outer pipes, or inside a plain code block, with the rule under the header
BARE_TABLES = [
    ("Word | Q\n-----|-------\nx | [1, 2]\ny | [3, 4]\n", ["Word", "Q"], [["x", "[1, 2]"], ["y", "[3, 4]"]]),
    ("```\nWord | Q\n:---|---:\nx | [1, 2]\n```\n", ["Word", "Q"], [["x", "[1, 2]"]]),
    ("```\n| Word | Q |\n|---|---|\n| x | [1, 2] |\n```\n", ["Word", "Q"], [["x", "[1, 2]"]]),
    # an empty corner over the labels
    ("```\n     | x | y\n-----|---|---\nq    | 1 | 2\n```\n", ["", "x", "y"], [["q", "1", "2"]]),
    # rows stop at the first line with another number of cells
    ("a | b\n--|--\n1 | 2\n3 | 4 | 5\n", ["a", "b"], [["1", "2"]]),
]


@pytest.mark.parametrize("text,header,rows", BARE_TABLES)
def test_bare_pipe_tables(text, header, rows):
    from symattn.read.pages import read_page
    from symattn.read.pages.model import Table
    tables = [b for b in read_page(text, "markdown").blocks if isinstance(b, Table)]
    assert [(t.header, t.rows) for t in tables] == [(header, rows)]


NOT_TABLES = [
    "```python\nflags = a | b\nmask = c | d\n```\n",  # '|' in code is an operator
    "a | b\n\n--|--\n1 | 2\n",  # no rule right under the header
    "a | b | c\n--|--\n1 | 2 | 3\n",  # a rule of another width
]


@pytest.mark.parametrize("text", NOT_TABLES)
def test_not_bare_pipe_tables(text):
    from symattn.read.pages import read_page
    from symattn.read.pages.model import Table
    assert not [b for b in read_page(text, "markdown").blocks if isinstance(b, Table)]


# the results of a call of an attention function unpacked into names: the first is the output (the
# weighted values), whatever its name says on its own ("values"); the second is named by its own name
UNPACKED = [
    (["values, attention = scaled_dot_product(q, k, v)"], "values", True),
    (["values, attention = scaled_dot_product(q, k, v)"], "attention", False),
    (["(out, w) = self_attention(q, k, v, mask=None)"], "out", True),
    (["out = F.scaled_dot_product_attention(q, k, v, attn_mask=m)"], "out", True),
    (["values = torch.randn(3, 2)"], "values", False),
    (["values, attention = scaled_dot_product(q, k)"], "values", False),  # two arguments: no q, k, v
    (["w = attention_weights(q, k, v)"], "w", False),
    (["values, a = attention(q, k, v)", "values = values * 2"], "values", False),  # assigned again since
]


@pytest.mark.parametrize("code,name,want", UNPACKED)
def test_unpacked_output(code, name, want):
    from symattn.analyses.importer_results import unpacked_output
    assert unpacked_output(code, name) is want


_SDP = """q = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
k = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
v = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
values, attention = scaled_dot_product(q, k, v)
print("Values\\n", values)
print("Attention\\n", attention)
"""
_SDP_OUT = """Values
 tensor([[1.6605, 2.6605],
        [2.3395, 3.3395]])
Attention
 tensor([[0.6698, 0.3302],
        [0.3302, 0.6698]])
"""


def test_values_unpacked_from_an_attention_call_are_the_output():
    code = ("def scaled_dot_product(q, k, v):\n    logits = q @ k.T / math.sqrt(q.size(-1))\n"
            "    attention = F.softmax(logits, dim=-1)\n    return attention @ v, attention\n")
    (ex,) = imported(notebook((code, None), (_SDP, _SDP_OUT)), "notebook")
    assert ex.inputs["V"].rows == [["1.0", "2.0"], ["3.0", "4.0"]]
    got = claims(ex)
    assert ("output", "1", ("1.6605", "2.6605")) in got
    assert ("weights", "2", ("0.3302", "0.6698")) in got


# a weight split into its heads' column blocks, after the whole was given, is the same example (heads
# of one matrix); a head's weights that are no block of it start a new one (test above)
SPLIT = """# Two heads

X = [[1, 0, 1, 0], [0, 1, 0, 1]]

W_Q = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]]
W_K = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]]
W_V = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]]

We split each into two heads of width 2:

W_Q1 = [[1, 0], [0, 1], [1, 1], [0, 0]]
W_Q2 = [[0, 1], [1, 0], [0, 0], [1, 1]]

Head 1 scores: [[4, 2], [2, 2]]
"""


def test_heads_split_off_a_whole_weight_stay_in_its_example():
    (ex,) = imported(SPLIT)
    assert ex.data()["convention"]["heads"] == 2
    assert ("head1.scores", "1", ("4", "2")) in claims(ex)


# rows of ones and zeros that a page names by token are embeddings, not a mask drawn row by row
ONE_HOT = """
Word Embedding for "I": [1, 0, 0]
Word Embedding for "love": [1, 1, 0]
Word Embedding for "cats": [1, 1, 1]
Query Weight Matrix (Wq): [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
Key Weight Matrix (Wk): [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
Value Weight Matrix (Wv): [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
Attention scores: [[1, 1, 1], [1, 2, 2], [1, 2, 3]]
"""


def test_named_one_hot_rows_are_no_mask():
    (ex,) = imported(ONE_HOT, "text")
    notes = " ".join(n.text for n in ex.notes)
    assert "causal mask drawn" not in notes
    assert ("scores", "cats", ("1", "2", "3")) in claims(ex)


# rows on consecutive lines that together draw a causal mask: (rows, step, token) -> set aside
MASK_ROWS = [
    ([["0", "-∞", "-∞"], ["0", "0", "-∞"], ["0", "0", "0"]], None, None, True),
    ([["0", "-inf"], ["0", "0"]], None, None, True),
    ([["1", "0"], ["1", "1"]], None, None, True),  # torch.tril drawn row by row, unnamed
    ([["1", "0", "0"], ["1", "1", "0"], ["1", "1", "1"]], "X", "I", False),  # a token's embedding, named
    ([["0", "-∞"], ["0", "0"], ["0", "0"]], None, None, False),  # three rows of two: no square mask
    ([["0.5", "-∞"], ["0", "0"]], None, None, False),  # a masked score: not the mask
]


@pytest.mark.parametrize("rows,step,token,aside", MASK_ROWS)
def test_mask_drawn_row_by_row(rows, step, token, aside):
    from symattn.analyses.importer import _mask_rows
    from symattn.analyses.importer_items import Item
    items = [Item(rows=[r], where=[], line=k, end=k, kind="vector", step=step, strength=2 if step else 0,
                  token=token) for k, r in enumerate(rows)]
    _mask_rows(items)
    assert [bool(it.aside) for it in items] == [aside] * len(rows) if aside else not any(it.aside for it in items)


# a weight written as M.T multiplies X as written (Q = X·M: layout row); a bias copied into the module is bq
_BIASED = """x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
W_Q = nn.Linear(2, 2)
W_K = nn.Linear(2, 2, bias=False)
W_V = nn.Linear(2, 2, bias=False)
with torch.no_grad():
    W_Q.weight.copy_(torch.tensor([[1.0, 0.0], [1.0, 1.0]]).T)
    W_Q.bias.copy_(torch.tensor([1.0, 0.0]))
    W_K.weight.copy_(torch.tensor([[0.0, 1.0], [1.0, 0.0]]).T)
    W_V.weight.copy_(torch.tensor([[2.0, 0.0], [0.0, 1.0]]).T)
print("Q:\\n", W_Q(x))
"""
_BIASED_OUT = """Q:
 tensor([[4., 2.],
        [8., 4.]], grad_fn=<AddmmBackward0>)
"""


def test_weight_written_transposed_and_a_bias():
    (ex,) = imported(notebook((_BIASED, _BIASED_OUT)), "notebook")
    assert ex.inputs["Wq"].rows == [["1.0", "0.0"], ["1.0", "1.0"]]
    assert ex.inputs["bq"].rows == [["1.0", "0.0"]]
    assert ex.data()["convention"]["layout"] == "row"
    assert ("Q", "2", ("8.", "4.")) in claims(ex)


# what the example's own text says it leaves out: (sentence, scale)
LEFT_OUT = [
    ("To keep the numbers simple we leave out the √d_k division here.", "none"),
    ("For simplicity we skip the scaling in this example.", "none"),
    ("We ignore the $\\sqrt{d_k}$ factor to keep the numbers small.", "none"),
    ("The √d_k division matters for large d_k.", "1/sqrt(d_k)"),  # no decision: the code decides
    ("If we ignored the scaling, the softmax would saturate.", "1/sqrt(d_k)"),  # a reason, not a choice
]


@pytest.mark.parametrize("sentence,scale", LEFT_OUT)
def test_left_out_scaling(sentence, scale):
    page = WALK.replace("To keep the numbers simple we leave out the √d_k division here.", sentence)
    (ex,) = imported(page)
    assert ex.data()["convention"]["scale"] == scale


def test_left_out_scaling_yields_to_printed_scaled_scores():
    # the example prints scores named as scaled: it does scale, whatever a sentence says it leaves out
    block = WALK[WALK.index("```\nScores:"):WALK.index("```\nAttention weights")]
    page = WALK.replace(block, "Scaled scores: [[0, 0.71], [0.71, 0.71]]\n\n")
    (ex,) = imported(page)
    assert ex.data()["convention"]["scale"] == "1/sqrt(d_k)"
    assert ("scaled", "b", ("0.71", "0.71")) in claims(ex)


def test_given_inputs_shaped_like_a_mask_are_no_mask():
    # Q = [[1, 0], [1, 1]] is ones on and below the diagonal, but it is the given Q: no causal mask
    (ex,) = imported(WALK)
    assert ex.data()["convention"].get("mask", "none") == "none"


# a grid of labelled rows under a header of keys, titled on the line above the header: the title names
# every row (the scaled scores here, which the values alone could not tell from the raw ones)
GRID = """
```
Word | Query  | Key    | Value
-----|--------|--------|-------
cat  | [1, 0] | [0, 1] | [1, 2]
dog  | [1, 1] | [1, 0] | [3, 5]
```

```
Scaled scores (QKᵀ/√2):
        cat    dog
  cat [ 0.00,  0.71 ]
  dog [ 0.71,  0.71 ]
```

```
Attention weights:
        cat    dog
  cat [ 0.33,  0.67 ]
  dog [ 0.50,  0.50 ]
```
"""


def test_a_grid_title_names_every_row():
    (ex,) = imported(GRID)
    got = claims(ex)
    assert ("scaled", "cat", ("0.00", "0.71")) in got
    assert ("scaled", "dog", ("0.71", "0.71")) in got
    assert ("weights", "cat", ("0.33", "0.67")) in got


def test_a_grid_title_names_wrong_rows_too():
    # slips in the page's scaled scores (0.10 for 0.00, 0.17 for 0.71): the numbers alone match no step,
    # the title places the rows, and check reports the slips
    (ex,) = imported(GRID.replace("[ 0.00,  0.71 ]", "[ 0.10,  0.71 ]").replace("dog [ 0.71,  0.71 ]\n```\n\n```\nAtt",
                                                                              "dog [ 0.71,  0.17 ]\n```\n\n```\nAtt"))
    got = claims(ex)
    assert ("scaled", "cat", ("0.10", "0.71")) in got
    assert ("scaled", "dog", ("0.71", "0.17")) in got


GRID_TITLES = [
    (['Weights:', '      "a"   "b"', '  "a" [0.3, 0.7]', '  "b" [0.5, 0.5]'], 3, 2, "Weights:"),
    (['Weights:', '      a   b', '  a [0.3, 0.7]', '  b [0.5, 0.5]'], 2, 2, "Weights:"),
    (['Weights:', '  "a" [0.3, 0.7]'], 1, 2, ""),  # no header of keys
    (['Weights:', '      "a"   "b"   "c"', '  "a" [0.3, 0.7]'], 2, 2, ""),  # three keys over rows of two
    (['Weights:', '      0   1', '  a [0.3, 0.7]'], 2, 2, ""),  # numbers over the rows: no keys
]


@pytest.mark.parametrize("texts,k,n,want", GRID_TITLES)
def test_grid_title(texts, k, n, want):
    from symattn.analyses.importer_items import grid_title
    assert grid_title(texts, k, n) == want


# a chain continued on lines that open with '=', in a code block or in prose: its result is the row its
# first line names
_CHAIN = 'Output for "b" = 0.50 × V_a + 0.50 × V_b\n     = 0.50 × [1, 2] + 0.50 × [3, 5]\n     = [2.00, 3.50]\n'
CHAINS = [("```\n" + _CHAIN + "```\n\n"), (_CHAIN.replace("     =", "=") + "\n")]


@pytest.mark.parametrize("chain", CHAINS)
def test_chain_continued_on_equals_lines(chain):
    old = WALK[WALK.index("```\nOutput for"):WALK.index("### Causal")]
    (ex,) = imported(WALK.replace(old, chain))
    assert ("output", "b", ("2.00", "3.50")) in claims(ex)
    assert not any(step == "output" and row == "a" for step, row, _ in claims(ex))
