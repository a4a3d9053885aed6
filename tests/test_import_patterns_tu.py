"""Ways of writing numbers met on held-out batches t and u (tests/pages/heldout/t/, u/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand; the printed results
were computed with NumPy and rounded to the digits shown."""

import pytest

from import_snippets import claims, imported, notebook

from symattn.read.pages import read_page
from symattn.read.pages.formats import looks_like_output
from symattn.analyses.importer_names import step_of_text

# a fenced block of what a program printed: labels with an aside in parentheses, Julia's (and Rust
# ndarray's Julia-style) type header over a matrix; code stays code
OUTPUT_BLOCKS = [
    (["Attention weights (each row = how much each word attends to all words):", "Word 1: [0.3, 0.7]"], True),
    (["Output (context-aware representation):", "3×4 Matrix{Float64}:", " 0.5  0.6  0.533  0.267"], True),
    (["2-element Vector{Float64}:", " 0.25", " 0.75"], True),
    (["3×3 Adjoint{Float64, Matrix{Float64}}:", " 1.0  0.0  0.0"], True),
    (["weights (rounded):", "[0.2 0.8]"], True),
    (["def f(x):", "    return x"], False),
    (["match(x):", "[1, 2]"], False),  # no space before '(': a call, not an aside
    (["let w = softmax(x); // (rows)", "[0.2, 0.8]"], False),
    (["Matrix{Float64}(undef, 3, 4)"], False),
]


@pytest.mark.parametrize("texts,want", OUTPUT_BLOCKS)
def test_printed_output_blocks(texts, want):
    assert looks_like_output(texts) is want


# Rust with ndarray: `let x: Array2<f64> = array![[…], …];` with a token in a comment on each row; the
# printed weights one word a line ("Word 1: [..]", Rust's Vec debug format), the output as a Julia-style
# "3×2 Matrix{Float64}:" block. Q = K = V = x; weights = softmax(x·xᵀ/√2), output = weights·x:
# x = [[1, 0], [0, 1], [1, 1]] gives x·xᵀ/√2 = [[.707, 0, .707], [0, .707, .707], [.707, .707, 1.414]]
RUST = """## Self-attention in Rust

```rust
fn main() {
    let x: Array2<f64> = array![
        [1.0, 0.0],  // "red"
        [0.0, 1.0],  // "green"
        [1.0, 1.0],  // "blue"
    ];
    let scale = (x.ncols() as f64).sqrt();
    let weights = softmax_rows(&(x.dot(&x.t()) / scale));
    let out = weights.dot(&x);
    println!("Attention weights (one row per word):");
    println!("{:.4}", out);
}
```

Output:
```
Attention weights (one row per word):
Word 1: [0.401, 0.198, 0.401]
Word 2: [0.198, 0.401, 0.401]
Word 3: [0.248, 0.248, 0.503]

Output (context-aware representation):
3×2 Matrix{Float64}:
 0.802   0.599
 0.599   0.802
 0.752   0.752
```
"""


def test_rust_array_literal_word_rows_and_julia_matrix():
    (ex,) = imported(RUST)
    assert ex.inputs["Q"].rows == [["1.0", "0.0"], ["0.0", "1.0"], ["1.0", "1.0"]]
    assert ex.tokens == ["red", "green", "blue"]
    got = claims(ex)
    assert ("weights", "red", ("0.401", "0.198", "0.401")) in got
    assert ("weights", "green", ("0.198", "0.401", "0.401")) in got  # Word 2: the second row
    assert ("weights", "blue", ("0.248", "0.248", "0.503")) in got
    assert ("output", "blue", ("0.752", "0.752")) in got
    assert ("output", "red", ("0.802", "0.599")) in got


# an ASCII box table with its row labels left of the box and its column labels above the top rule (rules
# between the rows or not, an aside after a row): q1 … qn by k1 … km is a query-by-key table, of scores
# when its rows are no probabilities
BOX = """Scores of every query against every key:

```
              k1    k2    k3
        +-----+-----+-----+
   q1   | 2.0 | 1.0 | 0.0 |   <- q1 against each key
        +-----+-----+-----+
   q2   | 0.5 | 1.5 | 1.0 |
        +-----+-----+-----+
```
"""

BOX_PROBS = """```
             k1     k2
   q1   | 0.25 | 0.75 |
   q2   | 0.60 | 0.40 |
```
"""


def test_labelled_box_table_blocks():
    (t,) = [b for b in read_page(BOX, "markdown").blocks if hasattr(b, "header")]
    assert t.header == ["", "k1", "k2", "k3"]
    assert t.rows == [["q1", "2.0", "1.0", "0.0"], ["q2", "0.5", "1.5", "1.0"]]


BOX_NOT = [
    # a single row is no table; a label with no number cells; cells that are words
    "```\n   q1   | 2.0 | 1.0 |\n```\n",
    "```\n   a  | b | c |\n   d  | e | f |\n```\n",
]


@pytest.mark.parametrize("page", BOX_NOT)
def test_not_labelled_box_tables(page):
    assert not [b for b in read_page(page, "markdown").blocks if hasattr(b, "header")]


_Q1_WEIGHTS = "\nAttention weights of q1: [0.665, 0.245, 0.090]\n"  # softmax([2, 1, 0])
_RANDOM_CODE = "\n```python\nrng = np.random.default_rng(0)\nX = rng.normal(0, 1, (3, 4))\n```\n"


def test_labelled_box_table_is_the_scores():
    (ex,) = imported(BOX + _Q1_WEIGHTS)
    assert ex.inputs["scores"].rows == [["2.0", "1.0", "0.0"], ["0.5", "1.5", "1.0"]]
    assert ("weights", "q1", ("0.665", "0.245", "0.090")) in claims(ex)


def test_box_table_of_scores_on_a_page_that_draws_at_random_is_claims():
    # the page's code makes its inputs at random: the table is what its attention gave, not inputs
    (ex,) = imported(BOX + _Q1_WEIGHTS + _RANDOM_CODE)
    assert not ex.inputs
    assert ("scores", "q2", ("0.5", "1.5", "1.0")) in claims(ex)
    assert ("weights", "q1", ("0.665", "0.245", "0.090")) in claims(ex)


def test_labelled_box_table_of_probabilities_is_the_weights():
    page = "Q = [[1, 0], [0, 1]]\n\nK = [[1, 0], [0, 1]]\n\nV = [[1, 2], [3, 4]]\n\n" + BOX_PROBS
    (ex,) = imported(page)
    got = claims(ex)
    assert any(c[0] == "weights" and c[2] == ("0.25", "0.75") for c in got)
    assert any(c[0] == "weights" and c[2] == ("0.60", "0.40") for c in got)


# names of the steps in Chinese and Hindi
NAMES = [
    ("注意力权重：", "weights"),
    ("q1 的原始分数：", "scores"),
    ("缩放后的分数 = (Q @ K^T) / sqrt(dk)", "scaled"),
    ("权重矩阵 Wq", "Wq"),  # a weight matrix, not the attention weights
    # Hindi
    ("हर शब्द को 3-आयामी एम्बेडिंग दें:", "X"),
    ("ध्यान वजन निकालना:", "weights"),
    ("ध्यान स्कोर", "scores"),
    ("संदर्भ वेक्टर", "output"),
]


@pytest.mark.parametrize("label,want", NAMES)
def test_step_names_in_other_languages(label, want):
    assert step_of_text(label) == want



# embeddings as backticked vectors in list items, under a sentence that calls them embeddings; one query's
# context vector written in inline code as its per-coordinate sums of p_j·v_j ('`context vector=[a+b+c, …]=
# […]`'), the query never named where the import reads it. No scaling: x_sun·[x_moon, x_star, x_sun] = [1, 2, 2],
# softmax = [0.1554, 0.4223, 0.4223]; p·v: moon [0.1554, 0], star [0, 0.8446], sun [0.4223, 0.4223]; with 1/√2 the
# output would be [0.5989, 1.2033]
BACKTICKS = """Give every word a 2-dimensional embedding:

- **moon**: `[1, 0]`
- **star**: `[0, 2]`
- **sun**: `[1, 1]`

The weighted embeddings, summed:

`context vector=[0.1554+0+0.4223, 0+0.8446+0.4223]=[0.5777,1.2669]`
"""


def test_backticked_embeddings_and_a_context_vector_of_sums():
    (ex,) = imported(BACKTICKS)
    assert ex.inputs["Q"].rows == [["1", "0"], ["0", "2"], ["1", "1"]]
    assert ex.tokens == ["moon", "star", "sun"]
    # the one printed row picks the scale and its query by its numbers
    assert ex.data()["convention"]["scale"] == "none"
    assert ("output", "sun", ("0.5777", "1.2669")) in claims(ex)
    weighted = {(c.key, tuple(c.values)) for c in ex.claims if c.step == "weighted" and c.row == "sun"}
    assert weighted == {("moon", ("0.1554", "0")), ("star", ("0", "0.8446")), ("sun", ("0.4223", "0.4223"))}


# a program's console output (batch of one: 3-D NumPy arrays): Q and K shown only by their shapes, so the
# printed scores are claims; the softmax of the raw scores printed beside the scaled one (to show what the
# scaling changes) is an example of its own, scale none; the outputs are claims with no V; then other raw
# scores (a stability demo, ×1e11) worked again: a second example, its overflowed NaN block listed.
# Scores [[1, 2], [0, 4]], d_k = 4 (scaled = scores / 2); softmax(raw) = [[0.2689, 0.7311], [0.018, 0.982]],
# softmax(scaled) = [[0.3775, 0.6225], [0.1192, 0.8808]]; V = [[1, 0, 2], [0, 1, -1]] (never printed)
CONSOLE = """=== Test 1 ===
Q shape: (1, 2, 3), K shape: (1, 2, 3), V shape: (1, 2, 3)
Raw scores (Q K^T):
[[[1. 2.]
  [0. 4.]]]

Naive softmax over raw scores:
[[[0.2689 0.7311]
  [0.018  0.982 ]]]

Scaled scores (raw / sqrt(d_k)):
[[[0.5 1. ]
  [0.  2. ]]]

Stable softmax over scaled scores:
[[[0.3775 0.6225]
  [0.1192 0.8808]]]

Attention output vectors:
[[[ 0.3775  0.6225  0.1326]
  [ 0.1192  0.8808 -0.6424]]]

=== Large values ===
Raw large scores (Q K^T):
[[[ 1.e+11  2.e+11]
  [ 3.e+11 -1.e+11]]]

Manual unstable softmax on large scores:
[[[nan nan]
  [nan  0.]]]

Scaled + stable softmax weights on large scores:
[[[0. 1.]
  [1. 0.]]]

Attention output vectors for large inputs:
[[[ 0.  1. -1.]
  [ 1.  0.  2.]]]
"""


def _by_scale(examples):
    return {(e.data()["convention"]["scale"], e.claims[0].values[0]): e for e in examples}


def test_console_output_with_shapes_only_and_an_unscaled_softmax_beside():
    exs = imported(CONSOLE, "text")
    assert [e.inputs for e in exs] == [{}, {}, {}]  # Q, K, V only by their shapes: claims only
    scaled = next(e for e in exs if e.data()["convention"]["scale"] == "1/sqrt(d_k)" and
                  ("scores", "1", ("1.", "2.")) in claims(e))
    assert scaled.data()["convention"]["d_k"] == 4
    got = claims(scaled)
    assert ("weights", "1", ("0.3775", "0.6225")) in got and ("scaled", "2", ("0.", "2.")) in got
    assert ("output", "2", ("0.1192", "0.8808", "-0.6424")) in got
    assert not any(c[0] == "weights" and c[2] == ("0.2689", "0.7311") for c in got)
    plain = next(e for e in exs if e.data()["convention"]["scale"] == "none")
    assert ("weights", "2", ("0.018", "0.982")) in claims(plain) and ("scores", "2", ("0.", "4.")) in claims(plain)
    large = next(e for e in exs if ("scores", "1", ("1.e+11", "2.e+11")) in claims(e))
    assert ("weights", "2", ("1.", "0.")) in claims(large)
    assert ("output", "1", ("0.", "1.", "-1.")) in claims(large)
    assert not any("nan" in c[2] for c in claims(large))
    assert any("holds NaN" in n.text for n in large.notes)


def test_an_unscaled_softmax_the_page_does_not_call_raw_is_no_example_of_its_own():
    page = CONSOLE.replace("Naive softmax over raw scores:", "softmax(attn_scores):")
    assert all(e.data()["convention"].get("scale") != "none" for e in imported(page, "text"))


# a row of masked scores and its softmax written on one line in display math, after a worked example of
# other width: a one-query example of its own (the argument masked scores, the result weights, scale none).
# softmax([1, 2, -∞, 3]) = [0.0900, 0.2447, 0, 0.6652]
SOFTMAX_LINE = """## Example

Q = [[1, 0], [0, 1]]

K = [[1, 0], [0, 1]]

V = [[1, 2], [3, 4]]

Weights: [[0.6698, 0.3302], [0.3302, 0.6698]]

## Masking

$$
\\text{softmax}([1, 2, -\\infty, 3]) = [0.0900, 0.2447, 0.0, 0.6652]
$$
"""


def test_softmax_of_a_masked_row_on_one_line_is_an_example_of_its_own():
    exs = imported(SOFTMAX_LINE)
    assert len(exs) == 2
    line = exs[1]
    assert not line.inputs and line.data()["convention"]["scale"] == "none"
    assert claims(line) == {("masked", "1", ("1", "2", "-inf", "3")), ("weights", "1", ("0.0900", "0.2447", "0.0", "0.6652"))}


# a notebook on random projections that prints Q and each step whole (batch index [0] in the print calls,
# the output cell printing a shape and a sentence around the one matrix) and never K or V: claims only, Q
# and the output among them. Q = [[1, 0.5], [0, 2]], K = [[1, 1], [0, 1]] (never printed), d_k = 2,
# V = [[1, 2, 0], [0, 1, 1]] (never printed)
RANDOM_STEPS = notebook(
    ("W_q = nn.Linear(2, 2, bias=False)\nQ = W_q(x)\nprint(Q[0].detach().numpy())", "[[1.  0.5]\n [0.  2. ]]\n"),
    ("scores = Q @ K.transpose(-2, -1)\nprint('scores:')\nprint(scores[0].detach().numpy())",
     "scores:\n[[1.5 0.5]\n [2.  2. ]]\n"),
    ("attention_weights = F.softmax(scores / math.sqrt(2), dim=-1)\nprint(attention_weights[0].detach().numpy())",
     "[[0.67 0.33]\n [0.5  0.5 ]]\n"),
    ("output = attention_weights @ V\nprint(f'shape: {output.shape}')\nprint(output[0].detach().numpy())\n"
     "print(f'each row is a weighted sum of the values')",
     "shape: torch.Size([1, 2, 3])\n[[0.67 1.67 0.33]\n [0.5  1.5  0.5 ]]\neach row is a weighted sum of the values\n"),
)


def test_steps_printed_with_a_batch_index_and_q_as_claims():
    (ex,) = imported(RANDOM_STEPS, "notebook")
    assert not ex.inputs
    got = claims(ex)
    assert ("Q", "2", ("0.", "2.")) in got
    assert ("output", "1", ("0.67", "1.67", "0.33")) in got and ("output", "2", ("0.5", "1.5", "0.5")) in got
    assert ("weights", "2", ("0.5", "0.5")) in got and ("scores", "1", ("1.5", "0.5")) in got


# the sum of each row of the weights printed one line a row, by its ordinal ('Sum of first row: 1.0000')
ROW_SUM_LINES = notebook(
    ("Q = torch.tensor([[1.0, 0.0], [0.0, 1.0]])\nK = torch.tensor([[1.0, 0.0], [0.0, 1.0]])\n"
     "V = torch.tensor([[1.0, 2.0], [3.0, 4.0]])\nw = torch.softmax(Q @ K.T, dim=-1)\nprint(w)",
     "tensor([[0.7311, 0.2689],\n        [0.2689, 0.7311]])\n"),
    ("print(f'Sum of first row: {w[0].sum():.4f}')\nprint(f'Sum of second row: {w[1].sum():.4f}')",
     "Sum of first row: 1.0000\nSum of second row: 1.0000\n"),
)


def test_row_sums_printed_one_line_a_row():
    (ex,) = imported(ROW_SUM_LINES, "notebook")
    sums = {(c.row, tuple(c.values)) for c in ex.claims if c.step == "weights_sum"}
    assert sums == {("1", ("1.0000",)), ("2", ("1.0000",))}


# a page with no inputs printing the weights and the output whole, then the row sums of the weights under a
# Japanese label ('各行の合計' = the sum of each row)
NAMED_WITH_SUMS = notebook(
    ("x = torch.randn(1, 2, 4)\nattention_weights, output = model(x)\nprint('Attention weights:')\n"
     "print(attention_weights[0].detach().numpy())\nprint('各行の合計:')\n"
     "print(attention_weights[0].sum(dim=-1).detach().numpy())\nprint('Output:')\nprint(output[0].detach().numpy())",
     "Attention weights:\n[[0.25 0.75]\n [0.6  0.4 ]]\n各行の合計:\n[1. 1.]\nOutput:\n[[ 0.1 -0.2  0.3]\n [ 0.4  0.5 -0.6]]\n"),
)


def test_row_sums_of_named_steps_only():
    (ex,) = imported(NAMED_WITH_SUMS, "notebook")
    assert not ex.inputs
    sums = {(c.row, tuple(c.values)) for c in ex.claims if c.step == "weights_sum"}
    assert sums == {("1", ("1.",)), ("2", ("1.",))}
    assert ("output", "2", ("0.4", "0.5", "-0.6")) in claims(ex)


def test_softmax_of_a_row_on_one_line_alone_on_a_page():
    (ex,) = imported("Masking: softmax([1, 2, -inf, 3]) = [0.0900, 0.2447, 0.0, 0.6652]\n")
    assert claims(ex) == {("masked", "1", ("1", "2", "-inf", "3")), ("weights", "1", ("0.0900", "0.2447", "0.0", "0.6652"))}
    assert not ex.unplaced


# array literals of other languages in code: Q, K, V given (the weights printed below them are the softmax
# of Q·Kᵀ/√2 for Q = K = I: [[0.6698, 0.3302], [0.3302, 0.6698]])
_I2 = [["1", "0"], ["0", "1"]]
LITERALS = [
    ("julia", "Q = [1 0; 0 1]\nK = [1 0; 0 1]\nV = [1 2; 3 4]\n"),
    ("matlab", "Q = [1 0; 0 1];\nK = [1 0; 0 1];\nV = [1 2; 3 4];\n"),
    ("c", "double Q[2][2] = {{1, 0}, {0, 1}};\ndouble K[2][2] = {{1, 0}, {0, 1}};\n"
          "double V[2][2] = {\n    {1, 2},\n    {3, 4}\n};\n"),
    ("java", "double[][] Q = {{1, 0}, {0, 1}};\ndouble[][] K = new double[][]{{1, 0}, {0, 1}};\n"
             "double[][] V = {{1, 2}, {3, 4}};\n"),
    ("go", "Q := [][]float64{{1, 0}, {0, 1}}\nK := [][]float64{{1, 0}, {0, 1}}\nV := [][]float64{{1, 2}, {3, 4}}\n"),
    ("rust", "let q = vec![vec![1, 0], vec![0, 1]];\nlet k = vec![vec![1, 0], vec![0, 1]];\n"
             "let v = vec![vec![1, 2], vec![3, 4]];\n"),
    ("r", "Q <- matrix(c(1, 0, 0, 1), nrow = 2, byrow = TRUE)\nK <- matrix(c(1, 0, 0, 1), nrow = 2)\n"
          "V <- matrix(c(1, 3, 2, 4), nrow = 2)\n"),  # R fills by columns unless byrow
]


@pytest.mark.parametrize("lang,code", LITERALS, ids=[x[0] for x in LITERALS])
def test_array_literals_of_other_languages(lang, code):
    page = f"```{lang}\n{code}```\n\nAttention weights: [[0.6698, 0.3302], [0.3302, 0.6698]]\n"
    (ex,) = imported(page)
    assert ex.inputs["Q"].rows == _I2 and ex.inputs["K"].rows == _I2
    assert ex.inputs["V"].rows == [["1", "2"], ["3", "4"]]
    assert ("weights", "1", ("0.6698", "0.3302")) in claims(ex)


NOT_LITERALS = ["if (x) { return; }", "struct point p = { .x = 1 };", "for (i = 0; i < 3; i++) { a[i] = 0; }",
                "x = [a b; c d]", "m = {'a': 1, 'b': 2}"]


@pytest.mark.parametrize("code", NOT_LITERALS)
def test_code_that_is_no_array_literal_is_left_as_it_is(code):
    from symattn.read.pages.scan import foreign_literals
    assert foreign_literals(code) == code


BOX_UNICODE = """```
            k1     k2
        ┌──────┬──────┐
   q1   │ 0.25 │ 0.75 │
        ├──────┼──────┤
   q2   │ 0.60 │ 0.40 │
        └──────┴──────┘
```
"""


def test_labelled_box_table_drawn_with_box_characters():
    (t,) = [b for b in read_page(BOX_UNICODE, "markdown").blocks if hasattr(b, "header")]
    assert t.header == ["", "k1", "k2"] and t.rows == [["q1", "0.25", "0.75"], ["q2", "0.60", "0.40"]]


# R: matrices given with matrix(c(…), nrow = …) and the weights printed in R's matrix format (a header of
# column indices, one row a line under '[i,]'); softmax(Q·Kᵀ/√2) for Q = K = I
R_PAGE = """```r
Q <- matrix(c(1, 0, 0, 1), nrow = 2, byrow = TRUE)
K <- matrix(c(1, 0, 0, 1), nrow = 2)
V <- matrix(c(1, 3, 2, 4), nrow = 2)
weights <- softmax(Q %*% t(K) / sqrt(2))
print(weights)
```

```
          [,1]      [,2]
[1,] 0.6697615 0.3302385
[2,] 0.3302385 0.6697615
```
"""


def test_r_matrices_and_r_printout():
    (ex,) = imported(R_PAGE)
    assert ex.inputs["V"].rows == [["1", "2"], ["3", "4"]]
    assert claims(ex) == {("weights", "1", ("0.6697615", "0.3302385")), ("weights", "2", ("0.3302385", "0.6697615"))}


def test_r_printout_of_a_wide_matrix_continues_under_a_second_header():
    page = "```\n     [,1] [,2]\n[1,]  1.5  2.5\n[2,]  3.5  4.5\n     [,3]\n[1,]  5.5\n[2,]  6.5\n```\n"
    (b,) = [b for b in read_page(page, "markdown").blocks if hasattr(b, "rows")]
    assert b.rows == [["1.5", "2.5", "5.5"], ["3.5", "4.5", "6.5"]]
