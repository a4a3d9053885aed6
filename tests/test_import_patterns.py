"""What the importer recognises (issue 11, items 2–4), as tables of (snippet, what it must
yield): names, per-token labels, conventions, several examples, restatements, and what it
cannot place."""

import pytest

import symattn as sa
from symattn.analyses.importer_names import step_of_ident, step_of_text
from symattn.errors import SymattnError
from import_compare import claim_set

# -- names --

IDENTS = [
    ("X", "X"), ("inputs", "X"), ("embeddings", "X"), ("E", "X"), ("W_q", "Wq"), ("W^Q", "Wq"), ("W^{Q}", "Wq"),
    ("Wq", "Wq"), ("w_query", "Wq"), ("W_query", "Wq"), ("self.W_key", "Wk"), ("W_v", "Wv"), ("W_o", "Wo"),
    ("Q", "Q"), ("queries", "Q"), ("query_2", "Q"), ("K.T", "K"), ("keys", "K"), ("V", "V"), ("values", "V"),
    ("scores", "scores"), ("attn_scores", "scores"), ("attn_scores_2", "scores"), ("QK^T", "scores"),
    ("logits", "scores"), ("scaled_scores", "scaled"), ("masked_scores", "masked"), ("weights", "weights"),
    ("attn_weights", "weights"), ("attention_weights", "weights"), ("weights_c", "weights"), ("probs", "weights"),
    ("alpha", "weights"), ("output", "output"), ("out_c", "output"), ("context_vec_2", "output"),
    ("context_vecs", "output"), ("Z", "output"), ("sentence_int", None), ("d_k", None), ("np", None),
]


@pytest.mark.parametrize("name,step", IDENTS)
def test_identifiers(name, step):
    assert step_of_ident(name) == step


LABELS = [
    ("Query Weight Matrix (Wq):", "Wq"), ("Key Weights T", "Wk"), ("Value weights", "Wv"),
    ("Weight matrix W_q:", "Wq"), ("Weight Matrices (3x2):", None), ("$W^V$", "Wv"),
    ('Word Embedding for "I":', "X"), ("Our input matrix E (4 words × 2 dimensions):", "X"),
    ("Step 1: Encoding:", "X"), ('Weighted Query for "love": (Embedding of "love" transposed) * Wq', "Q"),
    ('Weighted Key Vector for "I":', "K"), ('Weighted Value Vector for "I":', "V"), ("Query", "Q"),
    ("Unnormalized Attention Scores:", "scores"), ("Raw scores (q · k):", "scores"), ("Dot product scores:", "scores"),
    ("Scaled by √2:", "scaled"), ("Scaled attention scores", "scaled"), ("Masked scores:", "masked"),
    ("Attention Weights (after softmax):", "weights"), ("Softmax:", "weights"), ("Step 3: Apply Softmax", "weights"),
    ("normalized attention scores", "weights"), ("causal weights:", "weights"),
    ("Now, we apply the softmax function to convert the unnormalized scores into probabilities:", "weights"),
    ("Context Vectors:", "output"), ("Final Output (weighted sum of V):", "output"),
    ("Self-attention output:", "output"), ("Step 4: Weighted Value Matrix:", "weighted"),
    ("Multiplying the original value vectors by the transposed attention score matrix, as we saw", None),
    ("So, the values in step 3 are normalized probabilities indicating how much attention each word deserves", "weights"),
]


@pytest.mark.parametrize("label,step", LABELS)
def test_labels(label, step):
    assert step_of_text(label) == step


# -- pages: (page, format) → claims as {(step, row, key, col, text)} --

BASE = (
    'Word Embedding for "a": [1, 0]\n'
    'Word Embedding for "b": [0, 1]\n'
    "Query Weight Matrix (Wq): [[1, 0], [0, 1]]\n"
    "Key Weight Matrix (Wk): [[1, 0], [0, 1]]\n"
    "Value Weight Matrix (Wv): [[1, 2], [3, 4]]\n"
)


def claims(page, fmt="text", example=None):
    spec, notes = sa.import_page(page, format=fmt, example=example)
    return claim_set(spec), notes, spec


PATTERNS = [
    # a pair written Attention("q", "k") = …, under a heading that names the step
    (BASE + 'Unnormalized Attention Scores:\nAttention("a", "b") = 0.0\n',
     {("scores", "a", None, 1, "0.0")}),
    # indexed weights α_{12}
    (BASE + "Attention weights:\n- $\\alpha_{12} = 0.3302$\n", {("weights", "a", None, 1, "0.3302")}),
    # a row sum written as an equation of printed weights
    (BASE + "Softmax: [0.6698, 0.3302]\n0.6698 + 0.3302 = 1\n",
     {("weights", "a", None, 0, "0.6698"), ("weights", "a", None, 1, "0.3302"), ("weights_sum", "a", None, 0, "1")}),
    # p·v written out as products: the weighted values
    (BASE + "Softmax: [0.6698, 0.3302]\n"
     'Value Vector for "b": [3, 4]\n'
     'Context Vector for "b" = [0.3302 * 3, 0.3302 * 4] = [0.9906, 1.3208]\n',
     {("weights", "a", None, 0, "0.6698"), ("weights", "a", None, 1, "0.3302"), ("V", "b", None, 0, "3"),
      ("V", "b", None, 1, "4"), ("weighted", "a", "b", 0, "0.9906"), ("weighted", "a", "b", 1, "1.3208")}),
    # K printed transposed (K.T) goes back to its rows
    (BASE + "K.T = [[1, 0], [0, 1]]\n", {("K", "a", None, 0, "1"), ("K", "a", None, 1, "0"), ("K", "b", None, 0, "0"),
                                         ("K", "b", None, 1, "1")}),
    # a query's row named by the variable's index (attn_scores_2 is the second token)
    (BASE + "attn_scores_2 = [0, 1]\n", {("scores", "b", None, 0, "0"), ("scores", "b", None, 1, "1")}),
    # a row of a named matrix indexed from 0 in code
    (BASE + "weights[1] = [0.3302, 0.6698]\n", {("weights", "b", None, 0, "0.3302"), ("weights", "b", None, 1, "0.6698")}),
]


@pytest.mark.parametrize("page,expected", PATTERNS)
def test_patterns(page, expected):
    got, _, _ = claims(page)
    assert got == expected


def test_a_restatement_at_another_precision_is_kept_not_merged():
    got, notes, spec = claims(BASE + "Attention weights: [[0.6698, 0.3302], [0.3302, 0.6698]]\n"
                                     "rounded for readability: weights = [[0.67, 0.33], [0.33, 0.67]]\n")
    assert ("weights", "a", None, 0, "0.6698") in got and ("weights", "a", None, 0, "0.67") in got
    assert spec.claims["also"][0]["where"] == "line 7"
    r = sa.check(spec)
    assert {c.group for c in r.claims} == {None, "line 7"}


def test_an_identical_repeat_is_noted_once():
    got, notes, spec = claims(BASE + "Attention weights: [[0.6698, 0.3302], [0.3302, 0.6698]]\n"
                                     "again: weights = [[0.6698, 0.3302], [0.3302, 0.6698]]\n")
    assert "also" not in spec.claims
    assert any(n.kind == "repeat" and n.where == "line 7" for n in notes.notes)


def test_what_cannot_be_placed_is_listed():
    got, notes, spec = claims(BASE + "Attention weights: [[0.6698, 0.3302], [0.3302, 0.6698]]\n"
                                     "A table of room numbers: [200, 201, 202]\n")
    assert [n.where for n in notes.unplaced] == ["line 7"]
    assert "200, 201, 202" in notes.unplaced[0].text


def test_layout_from_shapes_and_from_code():
    page = ("X = [[1, 0, 1], [0, 1, 0]]\nW_q = [[1, 0, 0], [0, 1, 0]]\nW_k = [[1, 0, 0], [0, 1, 0]]\n"
            "W_v = [[1, 0, 0], [0, 1, 0]]\nscores = [[2, 0], [0, 1]]\n")
    _, notes, spec = claims(page, "markdown")
    assert spec.convention.layout == "torch"  # W is 2×3 and X is 2×3: only X·Wᵀ fits
    page = ("```python\nX = np.array([[1, 0], [0, 1]])\nW_q = np.array([[1, 2], [3, 4]])\n"
            "W_k = np.array([[1, 0], [0, 1]])\nW_v = np.array([[1, 0], [0, 1]])\nQ = X @ W_q.T\n"
            "print(Q)\n```\n```\n[[1 3]\n [2 4]]\n```\n")
    _, notes, spec = claims(page, "markdown")
    assert spec.convention.layout == "torch" and any("W_q.T" in n.text for n in notes.notes if n.kind == "stated")


def test_scale_decided_by_the_numbers_when_the_page_is_silent():
    unscaled = BASE + "Attention weights: [[0.7311, 0.2689], [0.2689, 0.7311]]\n"
    _, notes, spec = claims(unscaled)
    assert spec.convention.scale_text == "none"
    assert "follow without scaling" in notes.assumptions[0].text
    scaled = BASE + "Attention weights: [[0.6698, 0.3302], [0.3302, 0.6698]]\n"
    _, notes, spec = claims(scaled)
    assert spec.convention.scale_text == "1/sqrt(d_k)" and "follow with 1/√d_k" in notes.assumptions[0].text


def test_duplicate_tokens_are_numbered():
    page = ("| word | x | y |\n|---|---|---|\n| the | 1 | 0 |\n| cat | 0 | 1 |\n| the | 1 | 1 |\n\n"
            "Scores:\n\n| | the | cat | the |\n|---|---|---|---|\n| the | 1 | 0 | 1 |\n| cat | 0 | 1 | 1 |\n"
            "| the | 1 | 1 | 2 |\n")
    _, notes, spec = claims(page, "markdown")
    assert spec.tokens == ["the", "cat", "the (2)"]
    assert any("numbered" in n.text for n in notes.notes)


def test_identity_weights_written_with_eye():
    page = ("```python\nX = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])\nWq = np.eye(2)\nWk = np.eye(2)\n"
            "Wv = np.eye(2)\nprint(Q @ K.T)\n```\n\nscores:\n[[1. 0. 1.]\n [0. 1. 1.]\n [1. 1. 2.]]\n")
    got, _, spec = claims(page, "markdown")
    assert spec.inputs["Wq"] == [[1, 0], [0, 1]]
    assert ("scores", "3", None, 2, "2.") in got


def test_weights_made_in_code_and_never_printed_are_not_a_worked_example():
    page = ("```python\nX = torch.tensor([[0.1, 0.2], [0.3, 0.4]])\nW_query = torch.nn.Parameter(torch.rand(2, 2))\n"
            "attn_weights = softmax(X @ W_query @ (X @ W_key).T)\nprint(attn_weights)\n```\n"
            "```\ntensor([[0.4, 0.6], [0.5, 0.5]])\n```\n")
    with pytest.raises(SymattnError, match=r"makes its weights in code \('W_query = torch.nn.Parameter"):
        sa.import_page(page, format="markdown")


def test_a_new_input_matrix_starts_a_new_example():
    page = BASE + "Attention weights: [[0.6698, 0.3302], [0.3302, 0.6698]]\n\n" + BASE.replace("[3, 4]", "[5, 6]") + \
        "Attention weights: [[0.6698, 0.3302], [0.3302, 0.6698]]\n"
    exs = sa.import_examples(page, "text")
    assert len(exs) == 2
    assert exs[1].spec.inputs["Wv"] == [[1, 2], [5, 6]]
    with pytest.raises(SymattnError, match="example 3 is out of range: the page has 2 worked examples"):
        sa.import_page(page, "text", example=3)


def test_page_without_numbers():
    with pytest.raises(SymattnError, match="no worked example of attention found; looked for inputs"):
        sa.import_page("Attention is softmax(QK^T/sqrt(d_k))V.", "markdown")
