"""Ways of writing numbers met on the older held-out pages still imperfect (session 9, "rest"), as tables
of (snippet, what it must yield). Each expected value was read off the snippet by hand."""

import pytest

from import_snippets import claims, imported, notebook

from symattn.analyses.importer_assigned_output import assigned_output
from symattn.analyses.importer import _without_pv_prefix
from symattn.analyses.importer_caption_phrase import caption_step
from symattn.analyses.importer_claims_scores import fits_softmax
from symattn.analyses.importer_clause_step import clause_named_vectors, clause_step
from symattn.analyses.importer_items import Item
from symattn.analyses.importer_defined_names import defined_name
from symattn.analyses.importer_exp_check import exp_check
from symattn.analyses.importer_layer_inputs import says_inputs
from symattn.analyses.importer_max_entry import max_line
from symattn.analyses.importer_named_row import cut_or_rounded
from symattn.analyses.importer_scalar_sums import scalar_sum_chain
from symattn.analyses.importer_symbol_heads import heading_symbol_step
from symattn.errors import SymattnError

# --- a heading that is one symbol names the table under it ------------------------------------------------------

HEADING_SYMBOLS = [
    ("X", "X"), ("Q", "Q"), ("K", "K"), ("V", "V"), ("W_Q", "Wq"), ("$W^V$", "Wv"),
    ("Output", None), ("Queries and keys", None), ("x", None), ("Q & A", None), ("Step 1", None),
]


@pytest.mark.parametrize("text,step", HEADING_SYMBOLS)
def test_heading_symbol_step(text, step):
    assert heading_symbol_step(text) == step


def _tables(q_rows, k_table=False):
    """A page of '### NAME' headings over Token | Dim tables: X, Q (and K), the scores, weights, output."""
    def table(cols, rows):
        head = "| Token | " + " | ".join(cols) + " |\n|---|" + "---|" * len(cols) + "\n"
        return head + "".join(f"| {i} | " + " | ".join(r) + " |\n" for i, r in enumerate(rows))
    dims, keys = ["Dim 1", "Dim 2"], ["0", "1"]
    page = "Attention is softmax(QK^T / sqrt(d_k)) V, with d_k = 2.\n\n"
    page += "### X\n\n" + table(dims, [["1", "0"], ["0", "1"]]) + "\n"
    page += "### Q\n\n" + table(dims, q_rows) + "\n"
    if k_table:
        page += "### K\n\n" + table(dims, [["1", "1"], ["0", "2"]]) + "\n"
    page += "### Q @ K^T\n\n" + table(keys, [["3", "1"], ["0", "2"]]) + "\n"
    page += "### Attention Weights\n\n" + table(keys, [["0.8044", "0.1956"], ["0.1956", "0.8044"]]) + "\n"
    page += "### Output\n\n" + table(dims, [["1.3911", "1.8044"], ["2.6089", "1.1956"]]) + "\n"
    return page


def test_printed_queries_without_keys_or_values_are_claims():
    # Q printed (not X), no K, no V: the draft starts from the printed scores, with no values; Q, the scores
    # and the output are claims, X no input (the values are not the embeddings)
    ex, = imported(_tables([["2", "1"], ["0", "3"]]))
    assert not ex.inputs
    got = claims(ex)
    assert {("Q", "#0", ("2", "1")), ("Q", "#1", ("0", "3"))} <= got
    assert {("scores", "#0", ("3", "1")), ("scores", "#1", ("0", "2"))} <= got
    assert {("weights", "#0", ("0.8044", "0.1956")), ("output", "#1", ("2.6089", "1.1956"))} <= got


def test_heading_x_names_the_embeddings_table():
    # '### X' is the embeddings' name, not a times sign: the table under it is X (here Q = X, so no Q apart)
    ex = imported(_tables([["1", "0"], ["0", "1"]]))[0]
    assert set(ex.inputs) == {"scores", "V"} and [[str(x) for x in r] for r in ex.inputs["V"].rows] == [["1", "0"], ["0", "1"]]
    assert not any(c.step == "Q" for c in ex.claims)


def test_printed_keys_are_not_read_so():
    # K printed as well: Q and K are given, not claims of a draft that starts from the scores
    exs = imported(_tables([["2", "1"], ["0", "3"]], k_table=True))
    assert not any(c.step == "Q" and c.values == ["2", "1"] for ex in exs for c in ex.claims)


# --- each head's projections of a given Q, K, V printed (Q_1 = Q·W^Q_1, …): joined, one block per head ----------

HEADS_PAGE = r"""## Two heads

$Q, K, V$ each have shape $(2,2)$, split into 2 heads of size 1.

Each head's projection matrices are $(2,1)$. The projections are:

$$
W^Q_1 = \begin{bmatrix} 1 \\ 1 \end{bmatrix}, \quad
W^K_1 = \begin{bmatrix} 1 \\ 0 \end{bmatrix}, \quad
W^V_1 = \begin{bmatrix} 1 \\ 0 \end{bmatrix},
$$

$$
W^Q_2 = \begin{bmatrix} 0 \\ 1 \end{bmatrix}, \quad
W^K_2 = \begin{bmatrix} 0 \\ 1 \end{bmatrix}, \quad
W^V_2 = \begin{bmatrix} 0 \\ 1 \end{bmatrix}.
$$

Each head takes its projections of these inputs:

$$
Q = \begin{bmatrix} 1 & 2 \\ 0 & 1 \end{bmatrix},\quad
K = \begin{bmatrix} 2 & 1 \\ 1 & 3 \end{bmatrix},\quad
V = \begin{bmatrix} 2 & 0 \\ 0 & 2 \end{bmatrix}.
$$

**Step 1: each head's projections**

$$
Q_1 = \begin{bmatrix} 3 \\ 1 \end{bmatrix}, \quad
K_1 = \begin{bmatrix} 2 \\ 1 \end{bmatrix}, \quad
V_1 = \begin{bmatrix} 2 \\ 0 \end{bmatrix}
$$

$$
Q_2 = \begin{bmatrix} 2 \\ 1 \end{bmatrix}, \quad
K_2 = \begin{bmatrix} 1 \\ 3 \end{bmatrix}, \quad
V_2 = \begin{bmatrix} 0 \\ 2 \end{bmatrix}
$$

**Step 2: head 1 scores** (d_k = 1)

$$
Q_1 K_1^T = \begin{bmatrix} 6 & 3 \\ 2 & 1 \end{bmatrix}
$$
"""


def test_head_projections_joined_into_inputs():
    ex, = imported(HEADS_PAGE)
    # Q·[W^Q_1 | W^Q_2] = [[1, 2], [0, 1]]·[[1, 0], [1, 1]] = [[3, 2], [1, 1]]: Q_1 = [3, 1]ᵀ, Q_2 = [2, 1]ᵀ
    assert {k: [[str(x) for x in r] for r in g.rows] for k, g in ex.inputs.items()} == {
        "Q": [["3", "2"], ["1", "1"]], "K": [["2", "1"], ["1", "3"]], "V": [["2", "0"], ["0", "2"]]}
    assert ex.convention["heads"].value == 2
    # head 1's scores Q_1·K_1ᵀ = [3, 1]ᵀ·[2, 1] = [[6, 3], [2, 1]]
    assert {("head1.scores", "1", ("6", "3")), ("head1.scores", "2", ("2", "1"))} <= claims(ex)


def test_head_projection_that_is_no_product_is_not_joined():
    # Q_1 printed as [3, 0]ᵀ, which is not Q·W^Q_1 = [3, 1]ᵀ: not taken for the projections (no example)
    page = HEADS_PAGE.replace(r"Q_1 = \begin{bmatrix} 3 \\ 1 \end{bmatrix}", r"Q_1 = \begin{bmatrix} 3 \\ 0 \end{bmatrix}")
    assert page != HEADS_PAGE
    with pytest.raises(SymattnError, match="projects its Q, K and V again"):
        imported(page)


# --- one query's output as a chain of scalar products (V one column wide) -----------------------------------

SCALAR_CHAIN = r"""
$$
Q = \begin{bmatrix} 1 & 1 \end{bmatrix}, \quad
K = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}, \quad
V = \begin{bmatrix} 2 \\ 6 \end{bmatrix}.
$$

The scores are $QK^T = [1, 1]$, so the weights are $[0.5, 0.5]$, and the output is

$$
[0.5, 0.5] \begin{bmatrix} 2 \\ 6 \end{bmatrix} = 0.5 \times 2 + 0.5 \times 6 = 1 + 3 = 4.
$$
"""


def test_scalar_product_chain_is_weighted_values_and_output():
    ex, = imported(SCALAR_CHAIN)
    got = {(c.step, c.row, c.key, tuple(c.values)) for c in ex.claims if c.group is None}
    assert ("output", "1", None, ("4",)) in got
    assert {("weighted", "1", "1", ("1",)), ("weighted", "1", "2", ("3",))} <= got


@pytest.mark.parametrize("text,want", [
    (r"= 0.5 \times 2 + 0.5 \times 6 = 1 + 3 = 4.", (["1", "3"], "4")),
    ("= 0.25 × 2 + 0.75 × 4 = 0.5 + 3 = 3.5", (["0.5", "3"], "3.5")),
    ("= 0.33 * 3 + 0.67 * 3 = 0.99 + 2.01 = 3", (["0.99", "2.01"], "3")),
    ("= 0.5 × 2 + 0.5 × 6 = 1 + 3 = 5", None),      # the sum is 4, not 5
    ("= 0.5 × 2 + 0.5 × 6 = 1 + 4 = 5", None),      # 0.5 × 6 is 3, not 4
    ("= 0.5 × 2 + 0.5 × 6 = 1 + 3 + 0 = 4", None),  # three terms for two products
    ("= 1 + 3 = 4", None),                           # no products: the terms say nothing of keys
])
def test_scalar_sum_chain(text, want):
    assert scalar_sum_chain(text) == want


# --- a name defined with the scale, then printed under that name: the scaled scores ----------------------------

@pytest.mark.parametrize("text,name", [
    ("scores = Q × Kᵀ / √d_k", "scores"),
    ("S = Q @ K.T / sqrt(d_k)", "S"),
    (r"scores = \frac{QK^T}{\sqrt{d_k}}", "scores"),
    ("scores = Q × Kᵀ", None),          # no scale
    ("weights = softmax(scores)", None),
])
def test_defined_name(text, name):
    assert defined_name(text) == name


def _defined_page(definition):
    return f"""Q and K come from weights drawn at random.

```
Q = [[1.0, 0.0],
     [0.0, 1.0]]

K = [[2.0, 0.0],
     [0.0, 2.0]]
```

The scores are:

```
{definition}
```

Example output:

```
scores =
[[1.41, 0.00],
 [0.00, 1.41]]
```

```
weights =
[[0.804, 0.196],
 [0.196, 0.804]]
```

```
output =
[[0.5, 0.1],
 [0.2, 0.3]]
```
"""


def test_scores_printed_under_the_name_defined_scaled():
    # 'scores = Q × Kᵀ / √d_k' then 'scores =' [[1.41, 0], [0, 1.41]] (= [[2, 0], [0, 2]] / √2): the scaled scores;
    # no V: a draft of claims only, Q and K among them
    ex, = imported(_defined_page("scores = Q × Kᵀ / √d_k"))
    assert not ex.inputs
    got = claims(ex)
    assert {("scaled", "1", ("1.41", "0.00")), ("scaled", "2", ("0.00", "1.41"))} <= got
    assert {("Q", "1", ("1.0", "0.0")), ("K", "2", ("0.0", "2.0"))} <= got
    assert not any(c.step == "scores" for c in ex.claims)


def test_scores_defined_without_scale_stay_raw():
    # 'scores = Q × Kᵀ' (no root): the printed scores are the raw scores (the draft starts from them)
    exs = imported(_defined_page("scores = Q × Kᵀ"))
    assert not any(c.step == "scaled" for ex in exs for c in ex.claims)
    assert any("scores" in ex.inputs or any(c.step == "scores" for c in ex.claims) for ex in exs)


# --- a batch of stacked q and k, then a stack of their products (no values): one claims-only example each -------

STACKED = """#[test]
fn test_scores() {
    let q = array![
        [[1.0, 2.0], [3.0, 4.0]],
        [[0.0, 1.0], [1.0, 0.0]]
    ];
    let k = array![
        [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
        [[2.0, 0.0], [0.0, 2.0], [1.0, 3.0]]
    ];
    let expected = array![
        [[EXPECTED1]],
        [[0.0, 2.0, 3.0], [2.0, 0.0, 1.0]]
    ];
    assert_eq!(scores(q, k), expected);
}
"""


def test_stacked_products_one_example_per_batch_entry():
    # entry 1: [1, 2]·[1, 0] = 1, [1, 2]·[0, 1] = 2, [1, 2]·[1, 1] = 3; [3, 4]· … = 3, 4, 7
    page = STACKED.replace("[[EXPECTED1]]", "[[1.0, 2.0, 3.0], [3.0, 4.0, 7.0]]")
    exs = imported(page, fmt="text")
    got = [claims(e) for e in exs if not e.inputs]
    assert len(got) == 2
    assert {("Q", "1", ("1.0", "2.0")), ("K", "3", ("1.0", "1.0")), ("scores", "2", ("3.0", "4.0", "7.0"))} <= got[0]
    assert {("Q", "2", ("1.0", "0.0")), ("K", "1", ("2.0", "0.0")), ("scores", "1", ("0.0", "2.0", "3.0"))} <= got[1]
    assert all(e.convention["scale"].value == "none" for e in exs if not e.inputs)


def test_stacked_non_products_are_not_read_so():
    # entry 1's 7.0 written 7.5: the stack is not q·kᵀ, so no batch entry is drafted
    page = STACKED.replace("[[EXPECTED1]]", "[[1.0, 2.0, 3.0], [3.0, 4.0, 7.5]]")
    try:
        exs = imported(page, fmt="text")
    except SymattnError:
        exs = []
    assert not any(c.step == "scores" and c.values == ["0.0", "2.0", "3.0"] for e in exs for c in e.claims)


# --- a later layer's inputs written token by token, as the embeddings were: a new example -----------------------

LAYERS = """# Two layers

Each word starts as an embedding:
- "cat" -> `[1, 0]`
- "sat" -> `[0, 1]`

Keys, queries and values are the embeddings themselves. No scaling.

- Score to "cat" = `[1, 0]` · `[1, 0]` = 1
- Score to "sat" = `[1, 0]` · `[0, 1]` = 0

### Layer 2

CAPTION
- "cat" -> `[2, 1]`
- "sat" -> `[1, 3]`

- Score to "cat" = `[2, 1]` · `[2, 1]` = 5
- Score to "sat" = `[2, 1]` · `[1, 3]` = 5
"""


def test_later_layer_inputs_start_a_new_example():
    exs = imported(LAYERS.replace("CAPTION", "Layer 2 takes the outputs of layer 1 as its inputs:"))
    assert len(exs) == 2
    second = exs[1]
    assert [[str(x) for x in r] for r in second.inputs["Q"].rows] == [["2", "1"], ["1", "3"]]
    # [2, 1]·[2, 1] = 5, [2, 1]·[1, 3] = 5: the query "cat"'s scores in the second example
    assert ("scores", "cat", ("5", "5")) in claims(second)


def test_later_outputs_not_called_inputs_stay_one_example():
    # "The outputs of layer 1:" says nothing of inputs: the block is not read as a new X
    exs = imported(LAYERS.replace("CAPTION", "The outputs of layer 1:"))
    assert len(exs) == 1


@pytest.mark.parametrize("text,said", [
    ("MHA2 takes the outputs of FFNN1 as its inputs:", True),
    ("- New vectors:", True),
    ("The inputs to the next layer are:", True),
    ("The outputs of the attention layer:", False),
    ("Inputs and outputs have the same shape.", False),
])
def test_says_inputs(text, said):
    assert says_inputs(text) is said


# --- a bare variable named like the weights, assigned as weights times V: the output ------------------------------

def _random_notebook(assign):
    return notebook(
        ("import numpy as np\nX = np.random.rand(2, 3)\nW_q = np.random.rand(3, 2)\nW_k = np.random.rand(3, 2)\n"
         "W_v = np.random.rand(3, 2)\nQ, K, V = X @ W_q, X @ W_k, X @ W_v", None),
        ("s = Q @ K.T\nattn_weights = softmax(s / K.shape[-1]**0.5)\n" + assign, None),
        ("attn", "array([[0.5, 0.25],\n       [0.75, 0.5]])"),
        ("attn_weights", "array([[0.4, 0.6],\n       [0.3, 0.7]])"),
    )


def test_bare_variable_assigned_weights_times_v_is_the_output():
    ex, = imported(_random_notebook("attn = attn_weights @ V"), fmt="notebook")
    got = claims(ex)
    assert {("output", "1", ("0.5", "0.25")), ("weights", "2", ("0.3", "0.7"))} <= got


def test_bare_variable_assigned_otherwise_keeps_its_name():
    # attn = softmax(s): the name says weights and so does the code; the 2-column printout is no output
    try:
        exs = imported(_random_notebook("attn = softmax(s)"), fmt="notebook")
    except SymattnError:
        exs = []
    assert not any(c.step == "output" for e in exs for c in e.claims)


@pytest.mark.parametrize("code,name,out", [
    (["attn = attn_weights @ V"], "attn", True),
    (["attn = np.matmul(p_attn, values)"], "attn", False),   # p_attn names no step
    (["attn = weights @ V", "attn = attn / 2"], "attn", False),  # the last assignment decides
])
def test_assigned_output(code, name, out):
    assert assigned_output(code, name) is out


# --- a random notebook's printed keys, a softmax tried on the unscaled scores, a rounded rerun ---------------------

def _scores_notebook(first_weights, rerun="tensor([[1.042, 1.103],\n        [1.045, 1.102]], grad_fn=<MmBackward0>)"):
    return notebook(
        ("import numpy as np\nX = np.random.rand(2, 3)\nW_q = np.random.rand(3, 2)\nW_k = np.random.rand(3, 2)\n"
         "W_v = np.random.rand(3, 2)\nqueries = X @ W_q\nkeys = X @ W_k\nvalues = X @ W_v", None),
        ("keys", "array([[0.5, 1.25],\n       [0.75, 0.5]])"),
        ("attn_scores = queries @ keys.T\nattn_scores", "array([[1.0, 0.5],\n       [0.2, 0.8]])"),
        ("softmax(attn_scores)", first_weights),
        ("attn_weights = softmax(attn_scores / keys.shape[-1]**0.5)\nattn_weights",
         "array([[0.5875, 0.4125],\n       [0.3955, 0.6045]])"),
        ("context_vec = attn_weights @ values\ncontext_vec", "array([[1.04199908, 1.1026673],\n       [1.04514966, 1.10237919]])"),
        ("import torch\nclass SA(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
         "        self.W_query = torch.nn.Parameter(torch.rand(3, 2))\nsa = SA()\nsa(torch.tensor(X))", rerun),
    )


def test_softmax_of_unscaled_scores_is_an_aside_and_keys_are_claims():
    # softmax([1.0, 0.5]) = [0.6225, 0.3775] (unscaled), softmax([1.0, 0.5] / √2) = [0.5875, 0.4125]: the draft
    # scales by 1/√2, so the second printing is the weights and the first an aside; keys printed whole: K
    ex, = imported(_scores_notebook("array([[0.6225, 0.3775],\n       [0.3543, 0.6457]])"), fmt="notebook")
    got = claims(ex)
    assert {("weights", "1", ("0.5875", "0.4125")), ("weights", "2", ("0.3955", "0.6045"))} <= got
    assert not any(c.values == ["0.6225", "0.3775"] for c in ex.claims)
    assert {("K", "1", ("0.5", "1.25")), ("K", "2", ("0.75", "0.5"))} <= got


def test_other_weights_printed_first_are_not_set_aside():
    # the first printing is not the softmax of the unscaled scores ([0.6225, 0.3775]): nothing is swapped
    ex, = imported(_scores_notebook("array([[0.55, 0.45],\n       [0.30, 0.70]])"), fmt="notebook")
    assert any(c.values == ["0.55", "0.45"] for c in ex.claims)


def test_rounded_rerun_restates_the_output():
    ex, = imported(_scores_notebook("array([[0.6225, 0.3775],\n       [0.3543, 0.6457]])"), fmt="notebook")
    again = [c for c in ex.claims if c.group is not None and c.step == "output"]
    assert [c.values for c in again] == [["1.042", "1.103"], ["1.045", "1.102"]]


def test_rerun_with_other_numbers_is_no_restatement():
    ex, = imported(_scores_notebook("array([[0.6225, 0.3775],\n       [0.3543, 0.6457]])",
                                    rerun="tensor([[1.142, 1.103],\n        [1.045, 1.102]], grad_fn=<MmBackward0>)"),
                   fmt="notebook")
    assert not any(c.group is not None and c.step == "output" for c in ex.claims)


@pytest.mark.parametrize("scores,weights,factor,fits", [
    ([["1", "0"]], [["0.731", "0.269"]], 1.0, True),
    ([["1", "0"]], [["0.670", "0.330"]], 2 ** -0.5, True),
    ([["1", "0"]], [["0.670", "0.330"]], 1.0, False),
    ([["1.0", "0.5"]], [["0.6225", "0.3775"]], 1.0, True),
])
def test_fits_softmax(scores, weights, factor, fits):
    assert fits_softmax(scores, weights, factor) is fits


# --- inputs given one at a time after an example: the parts between are no examples -------------------------------

SETUP = '''```python
import numpy as np
Q = np.array([[1, 0]])
K = np.array([[1, 0], [0, 1]])
V = np.array([[2], [4]])
weights = softmax(Q @ K.T)
print("weights:", weights)
```

```
weights: [[0.73105858 0.26894142]]
```

A second case:

```python
keys = np.array([[0, 1], [1, 1]])
values = np.array([[10, 0], [0, 10]])
query = np.array([1, 1])
weights = softmax(query @ keys.T)
print("weights:", weights)
```

```
weights: [0.26894142 0.73105858]
```
'''


def test_inputs_given_one_at_a_time_make_one_example():
    # keys, values, then query: no draft pairs the new keys with the old queries and values
    exs = imported(SETUP)
    assert all(ex.claims for ex in exs)
    last = exs[-1]
    assert [[str(x) for x in r] for r in last.inputs["K"].rows] == [["0", "1"], ["1", "1"]]
    # [1, 1]·[0, 1] = 1, [1, 1]·[1, 1] = 2: softmax([1, 2]) = [0.2689, 0.7311]
    assert any(c.step == "weights" and c.values == ["0.26894142", "0.73105858"] for c in last.claims)


# --- a vector inside a long sentence, named by the clause just before it -----------------------------------------

@pytest.mark.parametrize("before,step", [
    ("The code changed, and the numbers move. To match the code below, take the weights of the example to be `",
     "weights"),
    ("Earlier we printed the weights; the numbers were rounded, so the output is `", "output"),
    ("The output of the first layer is, as printed, `", None),
    ("Attention weights:", None),   # a label right before it: the usual rules read it
])
def test_clause_step(before, step):
    assert clause_step(before) == step


LONG = ("An earlier draft of the code computed the scores the other way round, and that choice can move the printed "
        "numbers. To stay in line with the code below, take the weights of the original example to be `")


@pytest.mark.parametrize("step,strength,before,want", [
    ("output", 1, LONG, "weights"),      # named 'output' by the lines above: the clause says weights
    (None, 0, LONG, "weights"),
    ("output", 2, LONG, "output"),       # a label of its own: kept
    ("output", 1, "The output:", "output"),  # short text: the usual rules
])
def test_vector_named_by_its_clause(step, strength, before, want):
    it = Item(rows=[["0.42", "0.42", "0.16"]], where=[None], line=3, end=3, kind="vector", step=step,
              strength=strength, role="prose", before=before)
    clause_named_vectors([it])
    assert it.step == want


# --- a printout captioned "Scaled scores =": the phrase names it, not its last word ------------------------------

def _captioned(caption):
    return notebook(
        ("import numpy as np, math\nX = np.array([[1, 0], [0, 1]])\nQ = X\nK = X\nV = X\nd_k = Q.shape[1]\n"
         "scores = Q @ K.T\nprint(\"Scores =\")\nprint(scores)", "Scores =\n[[1. 0.]\n [0. 1.]]\n"),
        (f"s2 = scores / math.sqrt(d_k)\nprint(\"{caption}\")\nprint(s2)", f"{caption}\n[[0.7071 0.    ]\n [0.     0.7071]]\n"),
    )


def test_caption_phrase_names_the_scaled_scores():
    ex, = imported(_captioned("Scaled scores ="), fmt="notebook")
    # [[1, 0], [0, 1]] / √2 = [[0.7071, 0], [0, 0.7071]]
    assert any(c.step == "scaled" and c.values == ["0.7071", "0."] and c.group is None for c in ex.claims)


@pytest.mark.parametrize("before,step", [
    ("Scaled scores = ", "scaled"), ("Masked scores =", "masked"), ("scaled attention scores:", "scaled"),
    ("scores = ", None), ("Raw scores = ", None), ("Scores after softmax =", None),
])
def test_caption_step(before, step):
    assert caption_step(before) == step


# --- 'Output = p₁*[v₁] + p₂*[v₂] = [t₁] + [t₂] = [o]': the terms after the weights times V's rows ----------------

PV_CHAIN = """Q = [[1, 0]], K = [[1, 0], [0, 1]], V = [[10, 0], [0, 20]]. No scaling.

Scores = [1, 0]. Softmax(1, 0) = [0.731, 0.269].

Output = 0.731*[10,0] + 0.269*[0,20] = [7.31, 0] + [0,5.38] = [7.31, 5.38].
"""


def test_output_chain_with_name_before_the_products():
    ex, = imported(PV_CHAIN, fmt="text")
    got = {(c.step, c.row, c.key, tuple(c.values)) for c in ex.claims if c.group is None}
    # key 1's term 0.731·[10, 0] = [7.31, 0], key 2's 0.269·[0, 20] = [0, 5.38]
    assert {("weighted", "1", "1", ("7.31", "0")), ("weighted", "1", "2", ("0", "5.38"))} <= got
    assert ("output", "1", None, ("7.31", "5.38")) in got


@pytest.mark.parametrize("text,kept", [
    ("Output = 0.7*[1,0] + 0.3*[0,2] = [0.7, 0] + [0, 0.6] = [0.7, 0.6]", 2),
    (r"Output row 1: $0.4 \cdot [1,2] + 0.6 \cdot [3,4] = [0.4, 0.8] + [1.8, 2.4] = [2.2, 3.2]$", 2),
    ("Output = [0.7, 0] + [0, 0.6] = [0.7, 0.6]", 0),          # no products before the terms
    ("A = B = 0.7*[1,0] + 0.3*[0,2] = [0.7, 0] + [0, 0.6]", 0),  # two names before it: not this form
])
def test_pv_prefix(text, kept):
    assert _without_pv_prefix(text)[1] == kept


# --- the largest entry of a step printed again on its own line --------------------------------------------------

def _max_notebook(line):
    return notebook(
        ("import torch\nQ = torch.tensor([[1.0, 0.0], [0.0, 2.0]])\nK = Q\nV = Q\nscores = Q @ K.T\n"
         "print('Raw scores:', scores)\nprint(" + repr(line) + ")",
         "Raw scores: tensor([[1.0000, 0.0000],\n        [0.0000, 4.0000]])\n" + line + "\n"),
    )


def test_max_entry_restates_its_cell():
    ex, = imported(_max_notebook("Unscaled max score: 4.000000000"), fmt="notebook")
    again = [c for c in ex.claims if c.group is not None]
    assert [(c.step, c.row, c.values) for c in again] == [("scores", "2", ["..", "4.000000000"])]


def test_max_that_fits_no_entry_is_not_placed():
    ex, = imported(_max_notebook("Unscaled max score: 3.5"), fmt="notebook")
    assert not any(c.group is not None for c in ex.claims)


@pytest.mark.parametrize("text,got", [
    ("Scaled max score: 0.6467906832695007", ("Scaled max score", "0.6467906832695007")),
    ("The Highest probablity: --->  0.896264053717683", ("The Highest probablity", "0.896264053717683")),
    ("max_len = 6", None), ("The maximum is 4", None),
])
def test_max_line(text, got):
    assert max_line(text) == got


# --- one row of the weights, named by its number, the only step printed: claims only -----------------------------

def _row_notebook(row, listed="0.2413, **0.6122**, 0.1464"):
    return notebook(
        ("import numpy as np\nX = np.random.rand(1, 3, 4)\nw_q = np.random.rand(4, 4)\nw_k = np.random.rand(4, 4)\n"
         "Q = X @ w_q\nK = X @ w_k\nscores = Q @ K.transpose(0, 2, 1) / np.sqrt(4)\nweights = softmax(scores)", None),
        ("print('Row 2 weights: --->', weights[0][1])\nprint('Highest weight: --->', weights[0][1].max())",
         f"Row 2 weights: ---> [{row}]\nHighest weight: --->  0.6122456789\n"),
        f"Row two of the weights, cut to four digits: [{listed}]",
    )


ROW = "0.24133456 0.61224568 0.14641976"  # sums to 1


def test_named_row_of_weights_alone():
    ex, = imported(_row_notebook(ROW), fmt="notebook")
    assert not ex.inputs
    main = {(c.row, tuple(c.values)) for c in ex.claims if c.group is None}
    assert ("2", ("0.24133456", "0.61224568", "0.14641976")) in main and ("1", ("..", "..", "..")) in main
    again = sorted(tuple(c.values) for c in ex.claims if c.group is not None)
    # 0.24133456 cut to 0.2413, 0.61224568 to 0.6122, 0.14641976 to 0.1464; the largest entry 0.6122456789
    assert again == [("..", "0.6122456789", ".."), ("0.2413", "0.6122", "0.1464")]


def test_named_row_other_list_restates_nothing():
    # 0.2412 is neither 0.24133456 cut nor rounded to four digits: the list is not read as the row again
    ex, = imported(_row_notebook(ROW, listed="0.2412, **0.6122**, 0.1464"), fmt="notebook")
    assert not any(c.values[0] == "0.2412" for c in ex.claims)


def test_named_row_that_is_no_distribution_is_not_read():
    try:
        exs = imported(_row_notebook("0.5 0.7 0.1"), fmt="notebook")
    except SymattnError:
        exs = []
    assert not any(c.values == ["0.5", "0.7", "0.1"] for e in exs for c in e.claims)


@pytest.mark.parametrize("short,full,ok", [
    ("0.0129", "0.0129619", True), ("0.013", "0.0129619", True), ("0.0128", "0.0129619", False),
    ("0.8962", "0.89626405", True), ("0.8963", "0.89626405", True), ("0.8961", "0.89626405", False),
])
def test_cut_or_rounded(short, full, ok):
    assert cut_or_rounded(short, full) is ok


# --- one weight checked by hand with exp calls, its value printed under it ----------------------------------------

EXP_CHECK = notebook(
    ("import torch\nscaled = torch.tensor([[0.5, float('-inf')], [1.0, 0.0]])\nprint('masked:', scaled)",
     "masked: tensor([[0.5000,   -inf],\n        [1.0000, 0.0000]])\n"),
    ("weights = torch.softmax(scaled, dim=-1)\nprint('weights:', weights)",
     "weights: tensor([[1.0000, 0.0000],\n        [0.7311, 0.2689]])\n"),
    ("np.exp(1.0000) / (np.exp(1.0000) + np.exp(0.0000))", "0.7310585786300049"),
)


def test_exp_check_restates_one_weight():
    # e / (e + 1) = 0.7310585786300049: row 2's weight for key 1
    exs = imported(EXP_CHECK, fmt="notebook")
    again = [(c.step, c.row, c.values) for e in exs for c in e.claims if c.group is not None and c.step == "weights"]
    assert ("weights", "2", ["0.7310585786300049", ".."]) in again


@pytest.mark.parametrize("text,got", [
    ("np.exp(2) / (np.exp(2) + np.exp(1))", ("2", ["2", "1"])),
    ("torch.exp(0.5) / (torch.exp(0.5) + torch.exp(0.1) + torch.exp(0.2))", ("0.5", ["0.5", "0.1", "0.2"])),
    ("np.exp(2) / (np.exp(2) * np.exp(1))", None),
    ("np.exp(x) / np.sum(np.exp(x))", None),
])
def test_exp_check(text, got):
    assert exp_check(text) == got


def test_exp_check_with_another_value_is_not_read():
    # e / (e + 1) is 0.7311, not 0.75: the printed number restates no weight
    page = EXP_CHECK.replace("0.7310585786300049", "0.75")
    exs = imported(page, fmt="notebook")
    assert not any(c.group is not None and c.step == "weights" and "0.75" in c.values for e in exs for c in e.claims)


def test_inputs_given_afresh_with_nothing_printed_stay_an_example():
    # a second part with all-new Q, K, V (none carried over, none given again later) is its own example, though it
    # prints nothing: it is no set-up step of another
    page = SETUP.split("A second case:")[0] + (
        "Another set, not worked:\n\n```python\nQ = np.array([[3, 1]])\nK = np.array([[1, 1], [2, 0]])\n"
        "V = np.array([[5], [6]])\nweights = softmax(Q @ K.T)\n```\n")
    exs = imported(page)
    assert any(e.inputs and [[str(x) for x in r] for r in e.inputs["Q"].rows] == [["3", "1"]] for e in exs)
