"""More of what the importer recognises, met on held-out pages (tests/pages/heldout/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import pytest

from import_snippets import claims, imported
from symattn.errors import SymattnError


def inputs(ex):
    return {k: g.rows for k, g in ex.inputs.items()}


I2 = [["1", "0"], ["0", "1"]]

# (page, format, number of examples, inputs of the first, claims of the first (first printings))
PAGES = [
    # a table of per-word vectors under Q, K, V headers: Q, K, V given without weights (the embedding
    # column cannot be used); a query-by-key table under a heading that names the weights
    ("| Word | Embedding | Q | K | V |\n|---|---|---|---|---|\n| a | [1, 0] | [1, 0] | [1, 0] | [1, 0] |\n"
     "| b | [0, 1] | [0, 2] | [0, 1] | [0, 1] |\n\n## Attention weights\n\nRows are queries.\n\n"
     "| | a | b |\n|---|---|---|\n| a | 0.5 | 0.5 |\n| b | 0.2 | 0.8 |\n", "markdown", 1,
     {"Q": [["1", "0"], ["0", "2"]], "K": I2, "V": I2},
     {("weights", "a", ("0.5", "0.5")), ("weights", "b", ("0.2", "0.8"))}),
    # Q = K = [[…]] names two inputs; "→ Output ≈ [[…]]" is the output
    ("Example: Q = K = [[1,0],[0,1]] V = [[1,2],[3,4]] d_k = 2 → Output ≈ [[1.66, 2.66], [2.34, 3.34]]\n", "text", 1,
     {"Q": I2, "K": I2, "V": [["1", "2"], ["3", "4"]]},
     {("output", "1", ("1.66", "2.66")), ("output", "2", ("2.34", "3.34"))}),
    # attention(Q, K, V) with matrix arguments, and the expected result on the next line: one example
    ("```\nInput: attention([[1,0]],[[1,0],[0,1]],[[10,20],[30,40]])\nExpected: [[16.60882, 26.60882]]\n```\n",
     "markdown", 1, {"Q": [["1", "0"]], "K": I2, "V": [["10", "20"], ["30", "40"]]},
     {("output", "1", ("16.60882", "26.60882"))}),
    # shapes written as lists are not numbers of the example
    ("X = [[1.0, 2.0], [0.0, 1.0]]\nShape: [2, 2] = [seq_len, d_model]\nQ = X  [2, 2]\nK = X  [2, 2]\nV = X  [2, 2]\n"
     "QK^T = [2, 2] @ [2, 2]\n\nScores:\n[5.0, 2.0]\n[2.0, 1.0]\n",
     "text", 1, {"Q": [["1.0", "2.0"], ["0.0", "1.0"]], "K": [["1.0", "2.0"], ["0.0", "1.0"]],
                 "V": [["1.0", "2.0"], ["0.0", "1.0"]]},
     {("scores", "1", ("5.0", "2.0")), ("scores", "2", ("2.0", "1.0"))}),
    # a notebook exported to Markdown: results are indented blocks after the code that printed them
    ("```python\nQ = np.array([[1, 0]])\nK = np.array([[1, 0], [0, 1]])\nV = np.array([[1, 0], [0, 1]])\n```\n\n"
     "```python\nattention_weights_raw = Q @ K.T\nattention_weights_raw\n```\n\n\n\n\n    array([[1., 0.]])\n\n\n",
     "markdown", 1, {"Q": [["1", "0"]], "K": I2, "V": I2}, {("scores", "1", ("1.", "0."))}),
    # tf.expand_dims([…], 1) is a column; a query written inside the attention call
    ("```py\ntemp_k = tf.expand_dims([1., 2, 3], 1)\ntemp_v = tf.expand_dims([1., 2, 3], 1)\n"
     "print(scaled_dot_product_attention(tf.constant([[5.]]), temp_k, temp_v, None))\n"
     "# Output: [[2.9]], Attention: [[0.01 0.09 0.9 ]]\n```\n", "markdown", 1,
     {"Q": [["5."]], "K": [["1."], ["2"], ["3"]], "V": [["1."], ["2"], ["3"]]},
     {("output", "1", ("2.9",)), ("weights", "1", ("0.01", "0.09", "0.9"))}),
    # Q, K and V written in code that computes attention, nothing printed: the inputs alone
    ("```python\nquery = np.array([[1, 0, 1]])\nkey = np.array([[1, 0, 1], [0, 1, 0]])\n"
     "value = np.array([[10, 0], [0, 10]])\nweights = softmax(query @ key.T / np.sqrt(3))\n```\n", "markdown", 1,
     {"Q": [["1", "0", "1"]], "K": [["1", "0", "1"], ["0", "1", "0"]], "V": [["10", "0"], ["0", "10"]]}, set()),
    # "Result matrix:" under a step's heading is that step's result
    ("Step 1: Create Word Embeddings\ncat: [1, 2]\ndog: [0, 1]\n\nStep 3: Compute Q × K^T (dot products)\n"
     "Result matrix:\n[5, 2]\n[2, 1]\n", "text", 1,
     {"Q": [["1", "2"], ["0", "1"]], "K": [["1", "2"], ["0", "1"]], "V": [["1", "2"], ["0", "1"]]},
     {("scores", "cat", ("5", "2")), ("scores", "dog", ("2", "1"))}),
    # several heads given their own weights (W_Q1, W_Q2): joined column block by column block
    ("```python\nnum_heads = 2\nX = np.array([[1, 0], [0, 1]])\nW_Q1 = np.array([[1, 0], [0, 1]])\n"
     "W_K1 = np.array([[1, 0], [0, 1]])\nW_V1 = np.array([[1, 0], [0, 1]])\nW_Q2 = np.array([[0, 1], [1, 0]])\n"
     "W_K2 = np.array([[0, 1], [1, 0]])\nW_V2 = np.array([[0, 1], [1, 0]])\n```\n\nHead 1 weights:\n\n"
     "```\n[[0.6698 0.3302]\n [0.3302 0.6698]]\n```\n", "markdown", 1,
     {"X": I2, "Wq": [["1", "0", "0", "1"], ["0", "1", "1", "0"]], "Wk": [["1", "0", "0", "1"], ["0", "1", "1", "0"]],
      "Wv": [["1", "0", "0", "1"], ["0", "1", "1", "0"]]},
     {("head1.weights", "1", ("0.6698", "0.3302")), ("head1.weights", "2", ("0.3302", "0.6698"))}),
]


@pytest.mark.parametrize("page,fmt,n,want_inputs,want_claims", PAGES)
def test_page_snippets(page, fmt, n, want_inputs, want_claims):
    exs = imported(page, fmt)
    assert len(exs) == n
    assert inputs(exs[0]) == want_inputs
    assert claims(exs[0]) == want_claims


def test_several_heads_say_how_many():
    ex = imported(PAGES[-1][0])[0]
    assert ex.spec.convention.heads == 2


def test_a_gradient_is_listed_with_the_reason_and_the_loss():
    page = ("```python\nQ = torch.tensor([[1., 0.], [0., 1.]], requires_grad=True)\n"
            "K = torch.tensor([[1., 0.], [0., 1.]])\nV = torch.tensor([[1., 2.], [3., 4.]])\n"
            "out = torch.softmax(Q @ K.T, dim=-1) @ V\nout.sum().backward()\nprint(Q.grad)\n```\n\n"
            "```\ntensor([[-0.3932,  0.3932],\n        [ 0.3932, -0.3932]])\n```\n")
    ex = imported(page)[0]
    assert not ex.claims
    notes = [str(n) for n in ex.notes]
    assert any("a gradient (dQ)" in n and "--loss sum" in n and "listed here, not placed" in n for n in notes), notes


def test_code_that_only_makes_matrices_is_not_an_example():
    # no softmax, no scores: three matrices in code are not a worked example of attention
    with pytest.raises(SymattnError, match="no worked example"):
        imported("```python\nQ = np.array([[1, 0]])\nK = np.array([[1, 0]])\nV = np.array([[1, 0]])\n```\n")


def test_the_same_inputs_restated_in_code_do_not_make_a_second_example():
    page = ("Example: Q = K = [[1,0],[0,1]] V = [[1,2],[3,4]] → Output ≈ [[1.66, 2.66], [2.34, 3.34]]\n\n"
            "```\nInput: attention([[1,0],[0,1]],[[1,0],[0,1]],[[1,2],[3,4]])\n"
            "Expected: [[1.66082, 2.66082], [2.33918, 3.33918]]\n```\n")
    exs = imported(page)
    assert len(exs) == 1
    assert {(c.step, c.row, tuple(c.values)) for c in exs[0].claims if c.group is not None} == {
        ("output", "1", ("1.66082", "2.66082")), ("output", "2", ("2.33918", "3.33918"))}


def test_a_printed_stack_of_heads_is_placed_head_by_head():
    # head 2's Q2 = X·W_Q2 and K2 = X·W_K2 are the same swap matrix, so Q2·K2ᵀ = I as in head 1:
    # both heads' weights are softmax([1, 0]/√2) = [0.6698, 0.3302] (e^0.7071 / (e^0.7071 + 1))
    page = PAGES[-1][0].split("Head 1 weights")[0].replace("W_V2 = np.array([[0, 1], [1, 0]])\n",
                                                           "W_V2 = np.array([[0, 1], [1, 0]])\nprint(attn_weights)\n")
    page += ("```\ntensor([[[[0.6698, 0.3302],\n          [0.3302, 0.6698]],\n\n"
             "         [[0.6698, 0.3302],\n          [0.3302, 0.6698]]]])\n```\n")
    got = claims(imported(page)[0])
    assert got == {(f"head{h}.weights", r, v) for h in (1, 2)
                   for r, v in (("1", ("0.6698", "0.3302")), ("2", ("0.3302", "0.6698")))}


def test_keys_printed_transposed_and_one_row_worked_at_a_time():
    # Kᵀ = [[1, 3], [0, 2]] printed as the keys' transpose: K = [[1, 0], [3, 2]]; with Q = I the
    # scores QKᵀ are Kᵀ itself, row 2 = [0, 2]; softmax([0, 2]) = [1, e²]/(1 + e²) = [0.119, 0.881]
    page = ("```\nQ = [[1, 0],\n     [0, 1]]\n\nK^T = [[1, 3],\n       [0, 2]]\n\nV = [[1, 0],\n     [0, 1]]\n\n"
            "QK^T = [[1, 3],\n        [0, 2]]\n```\n\n"
            "**Step 3: Softmax**\n\n```\nRow 2: [0, 2]\nexp: [1.0, 7.389]\nsoftmax: [0.12, 0.88]\n```\n")
    ex = imported(page)[0]
    assert inputs(ex)["K"] == [["1", "0"], ["3", "2"]]
    got = claims(ex)
    # the "Row 2" line restates the scores, "exp" is no step, "softmax" is weights[2]
    assert ("weights", "2", ("0.12", "0.88")) in got
    assert ("scores", "2", ("0", "2")) in got
    assert not any(c.step == "weights" and c.row == "1" for c in ex.claims)
    assert any("7.389" in str(n) for n in ex.notes)  # the exponentials are listed, not placed
