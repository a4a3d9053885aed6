"""Ways of writing numbers met on held-out batch ac (tests/pages/heldout/ac/), as tables of (snippet, what it
must yield). Each expected value was read off the snippet by hand."""

import pytest

from types import SimpleNamespace

from import_snippets import claims, imported

from symattn.analyses.importer import _other_block
from symattn.analyses.importer_items import _RECIPROCAL_BEFORE, _ident_step, _label_before, _opens_math
from symattn.analyses.importer_names import product_factors
from symattn.analyses.importer_placer import _sliced_input
from symattn.analyses.importer_tuples import componentwise_terms

# the text before a name ends by opening inline math: the name is the first thing the math writes
OPENS = [
    ("Suppose $", True),
    ("input row $x_3 = (1,1,0,0)$. Suppose $", True),  # the earlier span is closed: this one opens
    (r"Let \( ", True),
    ("so $a$ and ", False),  # the span before is closed and none opens
    ("$$", False),  # a display's opener is read elsewhere
    ("Suppose ", False),
]


@pytest.mark.parametrize("pre,want", OPENS)
def test_text_that_opens_inline_math(pre, want):
    assert _opens_math(pre) is want


# the name a block's line gives it: the symbol that opens the inline math just before '=', whatever
# prose and earlier math come before (not the first '=' of the line)
LABELS = [
    (r"**Given:** token 3 of N2, input row $\mathbf{x}_3 = (1,1,0,0)$. Suppose $\mathbf{W}^{O} = ", "W^{O}"),
    (r"so $a = 1$ and then $W_O = ", "W_O"),
    (r"Let \( W_Q = ", "W_Q"),
]


@pytest.mark.parametrize("before,ident", LABELS)
def test_name_opening_inline_math(before, ident):
    assert _label_before(before, "prose")[1] == ident


# a symbol in a font command whose backslash the label lost names what the symbol names
IDENTS = [
    (r"boldsymbol{\alpha}", "weights"),
    (r"bm{\alpha}", "weights"),
    ("mathbf{Q}^T", "Q"),
    ("mathbf{W}^{Q}", "Wq"),
    ("mathbf{u}", None),
]


@pytest.mark.parametrize("ident,step", IDENTS)
def test_symbol_in_a_font_command(ident, step):
    assert _ident_step(ident) == step


_QKV = (r"$$\mathbf{Q} = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}, \quad "
        r"\mathbf{K} = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}, \quad "
        r"\mathbf{V} = \begin{bmatrix} 2 & 0 \\ 0 & 2 \end{bmatrix}$$")
_ALPHA = r"$$\boldsymbol{\alpha} = \begin{bmatrix} 0.731059 & 0.268941 \\ 0.268941 & 0.731059 \end{bmatrix}$$"
_OUT = r"$$\text{Attention}(\mathbf{Q},\mathbf{K},\mathbf{V}) = \begin{bmatrix} 1.462117 & 0.537883 \\ 0.537883 & 1.462117 \end{bmatrix}$$"

# α in bold under a sentence about scaled scores is the weights (the symbol over the sentence); a W^O
# given under a later heading than the example's output ("Suppose W^O = …" in an Add & Norm section) is
# no input of the example: it is listed with that reason
PAGE = "\n\n".join([
    "## Example", _QKV,
    "Row 2's scaled scores are not equal, so the softmax is not uniform:", _ALPHA, _OUT,
    "## The next sub-layer",
    r"**Given:** token 1's input row $\mathbf{x}_1 = (1, 0)$. Suppose $\mathbf{W}^{O} = "
    r"\begin{bmatrix}1&0&0&1\\0&1&1&0\end{bmatrix}$ takes it back to $d_{\text{model}} = 4$.",
])


def test_bold_alpha_and_a_later_sections_output_projection():
    (ex,) = imported(PAGE)
    assert sorted(ex.inputs) == ["K", "Q", "V"]
    assert claims(ex) == {
        ("weights", "1", ("0.731059", "0.268941")), ("weights", "2", ("0.268941", "0.731059")),
        ("output", "1", ("1.462117", "0.537883")), ("output", "2", ("0.537883", "1.462117")),
    }
    (late,) = [n for n in ex.notes if n.kind == "unplaced"]
    assert "W^O given after this example's output" in late.text and late.where == "line 13"


# | Q | K | V | over rows of bracketed vectors, no label column: each column the matrix its header names, rows
# by position; the matrices worked below are then this example's inputs. A table whose headers do not each
# name a different one of X, Q, K, V (an FFN's Input | Weight 1 | Weight 2) is not read so.
QKV_TABLE = """## Step by step

| Q           | K           | V           |
|-------------|-------------|-------------|
| [1.0, 0.0]  | [1.0, 0.0]  | [2.0, 0.0]  |
| [0.0, 1.0]  | [0.0, 1.0]  | [0.0, 2.0]  |

**Dot-product of \\( Q \\) and \\( K^T \\)**:

\\[
QK^T = \\begin{bmatrix} 1.0 & 0.0 \\\\ 0.0 & 1.0 \\end{bmatrix}
\\]
"""

HEADERS = [
    (("Q", "K", "V"), {"Q": [["1.0", "0.0"], ["0.0", "1.0"]], "K": [["1.0", "0.0"], ["0.0", "1.0"]],
                       "V": [["2.0", "0.0"], ["0.0", "2.0"]]}),
    ((r"Decoder Query \( Q \)", r"Encoder Key \( K \)", r"Encoder Value \( V \)"),
     {"Q": [["1.0", "0.0"], ["0.0", "1.0"]], "K": [["1.0", "0.0"], ["0.0", "1.0"]], "V": [["2.0", "0.0"], ["0.0", "2.0"]]}),
]


@pytest.mark.parametrize("names,want", HEADERS)
def test_table_of_vector_columns_named_by_headers(names, want):
    page = QKV_TABLE.replace("| Q           | K           | V           |", "| " + " | ".join(names) + " |")
    (ex,) = imported(page)
    assert {k: [list(r) for r in g.rows] for k, g in ex.inputs.items()} == want
    assert claims(ex) == {("scores", "1", ("1.0", "0.0")), ("scores", "2", ("0.0", "1.0"))}


def test_table_of_vector_columns_not_all_attention_names():
    page = QKV_TABLE.replace("| Q           | K           | V           |", "| Input | Weight 1 | Weight 2 |")
    items = [it for it in collect_items(page) if it.form == "table"]
    assert not any(it.step in ("Q", "K", "V") for it in items)


def collect_items(page):
    from symattn.analyses.importer_items import collect
    from symattn.read.pages import read_page
    return collect(read_page(page, "markdown", "snippet")).items


# a chain with no name on its left, '\frac{QK^T}{\sqrt{2}} = \frac{1}{\sqrt{2}} \times [S] = [R]': the formula
# before the chain's '=' names its result (the scaled scores), [S] is an operand (the scores again)
CHAIN = (r"QK^T = \begin{bmatrix} 0.28 & 0.22 \\ 0.54 & 0.42 \end{bmatrix}" "\n\n"
         r"\frac{QK^T}{\sqrt{2}} = \frac{1}{\sqrt{2}} \times \begin{bmatrix} 0.28 & 0.22 \\ 0.54 & 0.42 \end{bmatrix}"
         r" = \begin{bmatrix} 0.198 & 0.156 \\ 0.382 & 0.297 \end{bmatrix}")


def test_chain_named_by_the_formula_before_it():
    page = QKV_TABLE.split("**Dot")[0].replace("[1.0, 0.0]  | [1.0, 0.0]  | [2.0, 0.0]",
                                                 "[0.1, 0.4]  | [0.2, 0.5]  | [1.2, 0.9]").replace(
        "[0.0, 1.0]  | [0.0, 1.0]  | [0.0, 2.0]", "[0.3, 0.7]  | [0.6, 0.3]  | [0.8, 1.1]") + \
        "\n\\[\n" + CHAIN.replace("\n\n", "\n\\]\n\n\\[\n") + "\n\\]\n"
    (ex,) = imported(page)
    got = claims(ex)
    assert ("scaled", "1", ("0.198", "0.156")) in got and ("scaled", "2", ("0.382", "0.297")) in got
    assert ("scores", "1", ("0.28", "0.22")) in got


# an embedding table whose rows end in '...' (512 columns, the first few printed) is no input: the Q, K, V
# given after it are the example's inputs, the table is listed with that reason
ELIDED = """| Token | Embedding (512 dimensions) |
|-------|----------------------------|
| "I"   | [0.21, -0.34, 0.56, ...]   |
| "love" | [-0.12, 0.41, -0.73, ...] |

""" + QKV_TABLE


def test_embeddings_with_elided_columns_are_no_input():
    (ex,) = imported(ELIDED)
    assert sorted(ex.inputs) == ["K", "Q", "V"]
    assert any("'…'" in n.text and n.kind == "unplaced" for n in ex.notes)


# a page of study notes: one example from a Q | K | V table; then a causal section under its own heading that
# gives its own Q and W_Q = W_K = W_V (the inputs of the example before are not carried into it), "supposes"
# Q' = K' = V' ≈ [M] (one printing for three names: primes mark the projections), writes Q'K'^T as the product
# of two matrices with no result (operands: Q' again and K' transposed), the scaled scores as ½ [S] (S is the
# scores as printed) and the masked scores and weights; then a feed-forward and an Add & Norm section whose
# numbers are listed (another part of the model), not read as steps or inputs
NOTES = r"""#### a. Scaled Dot-Product Attention

| Q           | K           | V           |
|-------------|-------------|-------------|
| [1.0, 0.0]  | [1.0, 0.0]  | [2.0, 0.0]  |
| [0.0, 1.0]  | [0.0, 1.0]  | [0.0, 2.0]  |

\[
QK^T = \begin{bmatrix} 1.0 & 0.0 \\ 0.0 & 1.0 \end{bmatrix}
\]

\[
\text{Attention}(Q, K, V) = \begin{bmatrix} 1.34 & 0.66 \\ 0.66 & 1.34 \end{bmatrix}
\]

#### d. Masked Attention (Causal)

- **Decoder Queries \( Q \)**:
\[
Q = \begin{bmatrix} 0.5 & 0.1 & 0.2 \\ 0.4 & 0.3 & 0.7 \end{bmatrix}
\]

- \( W_Q = W_K = W_V = \begin{bmatrix} 0.1 & 0.3 & 0.5 \\ 0.2 & 0.4 & 0.6 \end{bmatrix} \)

Suppose this gives:
\[
Q' = K' = V' \approx \begin{bmatrix} 0.43 & 0.41 \\ 0.73 & 0.85 \end{bmatrix}
\]

**Compute the dot-product of \( Q' \) and \( K'^T \)**:
\[
Q' K'^T = \begin{bmatrix} 0.43 & 0.41 \\ 0.73 & 0.85 \end{bmatrix} \times \begin{bmatrix} 0.43 & 0.73 \\ 0.41 & 0.85 \end{bmatrix}
\]

**Scale by \( \sqrt{d_k} \)** (where \( d_k = 4 \)):
\[
\text{Scaled Scores} = \frac{Q' K'^T}{\sqrt{4}} = \frac{1}{2} \begin{bmatrix} 0.9 & 0.4 \\ 0.8 & 0.7 \end{bmatrix}
\]

**Create the Causal Mask**:
\[
\text{Causal Mask} = \begin{bmatrix} 0 & -\infty \\ 0 & 0 \end{bmatrix}
\]

\[
\text{Masked Scores} = \begin{bmatrix} 0.45 & -\infty \\ 0.4 & 0.35 \end{bmatrix}
\]

\[
\text{Attention Weights} \approx \begin{bmatrix} 1 & 0 \\ 0.51 & 0.49 \end{bmatrix}
\]

### 5. FeedForward Block

\[
\text{Output}_1 = \text{Input} \times W_1 = \begin{bmatrix} 0.5 & -0.3 \\ -0.2 & 0.8 \end{bmatrix} \times \begin{bmatrix} 0.5 & 0.2 \\ 0.4 & -0.1 \end{bmatrix} = \begin{bmatrix} 0.13 & 0.13 \\ 0.22 & -0.12 \end{bmatrix}
\]

### 6. Add & Norm

- Input to sub-layer: \( x = \begin{bmatrix} 2 \\ 4 \end{bmatrix} \)
"""


def test_study_notes_with_a_causal_section_and_other_blocks():
    plain, causal = imported(NOTES)
    q = [["1.0", "0.0"], ["0.0", "1.0"]]
    assert {k: [list(r) for r in g.rows] for k, g in plain.inputs.items()} == {"Q": q, "K": q, "V": [["2.0", "0.0"], ["0.0", "2.0"]]}
    p = [["0.43", "0.41"], ["0.73", "0.85"]]
    assert {k: [list(r) for r in g.rows] for k, g in causal.inputs.items()} == {"Q": p, "K": p, "V": p}
    assert causal.spec.convention.mask == "causal"
    assert claims(causal) == {
        ("scores", "1", ("0.9", "0.4")), ("scores", "2", ("0.8", "0.7")),
        ("masked", "1", ("0.45", "-inf")), ("masked", "2", ("0.4", "0.35")),
        ("weights", "1", ("1", "0")), ("weights", "2", ("0.51", "0.49")),
    }
    other = [n for n in causal.notes if n.kind == "unplaced" and "another part of the model" in n.text]
    assert sorted(n.where for n in other) == ["line 56", "line 56", "line 56", "line 61"]


# what names a block, as tables: a prime is part of a name; a product's factors keep their primes
PRIMES = [("Q' = K' = V' \\approx ", "Q'"), ("Q' = K' = ", "Q'")]


@pytest.mark.parametrize("before,ident", PRIMES)
def test_primed_names(before, ident):
    assert _label_before(before, "math")[1] == ident


FACTORS = [("Q' K'^T", ["Q'", "K'^T"]), ("QK^T", ["Q", "K^T"]), ("Q'", None)]


@pytest.mark.parametrize("formula,want", FACTORS)
def test_primed_factors(formula, want):
    assert product_factors(formula) == want


# 1/c juxtaposed before a matrix ('= \frac{1}{2} ', '= \frac{1}{\sqrt{4}} '): the matrix is what is scaled
RECIPROCAL = [
    (r"\text{Scaled Scores} = \frac{Q' K'^T}{\sqrt{4}} = \frac{1}{2} ", True),
    (r"S' = \frac{1}{\sqrt{4}} ", True),
    (r"= \frac{1}{\sqrt{2}} \times ", False),  # an operator: the product is worked out after it
    (r"= \frac{3}{2} ", False),
]


@pytest.mark.parametrize("before,want", RECIPROCAL)
def test_reciprocal_before_a_matrix(before, want):
    assert bool(_RECIPROCAL_BEFORE.search(before)) is want


# headings under which a page works another part of the model than attention
BLOCKS = [
    ("5. **FeedForward Block**", True), ("6. **Add & Layer Normalization (Residual Network)**", True),
    ("Step 6: Feedforward Layer (FFN)", True), ("📉 Step 7: Loss Computation", True),
    ("**3. Position Encodings (Sinusoidal)**", False),  # X with positions added is often the example's input
    ("a. **Scaled Dot-Product Attention**", False), ("Attention and the FFN", False),
    ("Step 3: softmax over the scores", False), ("d. **Masked Multi-Head Attention (Causal)**", False),
]


@pytest.mark.parametrize("heading,other", BLOCKS)
def test_heading_of_another_block(heading, other):
    lines = [SimpleNamespace(role="heading", text=heading), SimpleNamespace(role="prose", text="[1, 2]")]
    assert (_other_block(lines, 1) == heading) is other


# a head's columns of an input given outright are no printed step (an unnamed block is not placed there)
SLICED = [("head2.K", {"Q", "K", "V"}, True), ("head1.Q", {"X", "Wq"}, False), ("K", {"K"}, False),
          ("head1.scores", {"Q", "K", "V"}, False)]


@pytest.mark.parametrize("step,inputs,want", SLICED)
def test_head_slice_of_an_input(step, inputs, want):
    assert _sliced_input(step, inputs) is want


# 'Final Output = Concat × W_O = [A] × [B] = [R]': W_O is a factor of the product, not the name of R; and a product
# written out under the words "Input times W_1" is no input
PROJECTED = QKV_TABLE + r"""
\[
\text{Final Output} = \text{Concatenated Output} \times W_O = \begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix} \times \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix} = \begin{bmatrix} 1.5 & 2.5 \\ 3.5 & 4.5 \end{bmatrix}
\]

Input times \( W_1 \):

\[
\text{Output}_1 = \begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix} \times \begin{bmatrix} 0 & 1 \\ 1 & 0 \end{bmatrix} = \begin{bmatrix} 2.5 & 1.5 \\ 4.5 & 3.5 \end{bmatrix}
\]
"""


def test_product_results_are_not_named_by_a_factor():
    (ex,) = imported(PROJECTED)
    assert sorted(ex.inputs) == ["K", "Q", "V"]
    assert not any(v in ("1.5", "2.5") for c in ex.claims if c.step != "output" for v in c.values)


# one query's output written as its weights times V's rows, then the terms, then the sum, all on one line: the
# terms are the weighted values p_ij·v_j (the rows of V before them are V again)
PV_SUM = r"""**Problem:** For $Q = \begin{bmatrix}1 & 0\\0 & 1\end{bmatrix}$, $K = \begin{bmatrix}1 & 1\\0 & 1\\1 & 0\end{bmatrix}$, $V = \begin{bmatrix}1 & 2\\3 & 4\\5 & 6\end{bmatrix}$, compute $\operatorname{Attention}(Q, K, V)$ with $d_k = 2$.

$$\frac{QK^T}{\sqrt{2}} = \begin{bmatrix}0.707 & 0 & 0.707\\0.707 & 0.707 & 0\end{bmatrix}$$

Row 1: Weights $= [0.401, \; 0.198, \; 0.401]$

Row 2: Weights $= [0.401, \; 0.401, \; 0.198]$

Output row 1: $0.401 \cdot [1,2] + 0.198 \cdot [3,4] + 0.401 \cdot [5,6] = [0.401, 0.802] + [0.594, 0.792] + [2.005, 2.406] = [3.000, 4.000]$
"""


def test_weights_times_rows_of_v_then_the_terms():
    (ex,) = imported(PV_SUM)
    got = {(c.row, c.key, tuple(c.values)) for c in ex.claims if c.step == "weighted"}
    assert got == {("1", "1", ("0.401", "0.802")), ("1", "2", ("0.594", "0.792")), ("1", "3", ("2.005", "2.406"))}


# weights worked one line each under "Unscaled, softmax of (0, 4, 2) itself" beside an example that scales (its
# code divides by √2): a what-if, listed; the same lines on a page that does not scale are its weights
UNSCALED = r"""$$\mathbf{Q} = \begin{bmatrix} 2 & 0 \\ 0 & 2 \end{bmatrix}, \quad \mathbf{K} = \begin{bmatrix} 0 & 2 \\ 2 & 0 \end{bmatrix}, \quad \mathbf{V} = \begin{bmatrix} 2 & 1 \\ 0 & 2 \end{bmatrix}$$

SCALE

$$\text{Attention}(\mathbf{Q},\mathbf{K},\mathbf{V}) = \begin{bmatrix} 1.6 & 1.2 \\ 0.4 & 1.8 \end{bmatrix}$$

2. **Unscaled**, softmax of $(0,4)$ itself: $e^0=1$, $e^4=54.598150$; sum $=55.598150$.
   - $1/55.598150 = 0.017986$
   - $54.598150/55.598150 = 0.982014$
"""


@pytest.mark.parametrize("scale,placed", [("```python\nalpha = softmax(Q @ K.T / np.sqrt(2))\n```", False),
                                          ("Nothing is scaled on this page: the scores go into softmax as they are.", True)])
def test_softmax_of_unscaled_scores_beside_a_scaled_example(scale, placed):
    (ex,) = imported(UNSCALED.replace("SCALE", scale))
    rows = [c for c in ex.claims if c.step == "weights" and "0.017986" in c.values]
    assert bool(rows) is placed
    if not placed:
        assert any("calls unscaled" in n.text for n in ex.notes if n.kind == "unplaced")


# one query's output written component by component as sums in parentheses: the j-th terms of the components are
# key j's weighted value (the page's α_1j·v_j), placed as that query's weighted values
COMPONENTWISE = r"""$$\mathbf{Q} = \begin{bmatrix} 2 & 0 \\ 0 & 2 \end{bmatrix}, \qquad \mathbf{K} = \begin{bmatrix} 0 & 2 \\ 2 & 0 \end{bmatrix}, \qquad \mathbf{V} = \begin{bmatrix} 2 & 1 \\ 0 & 2 \end{bmatrix}$$

No scaling here: the weights are the softmax of the raw scores.

$$\boldsymbol{\alpha} = \begin{bmatrix} 0.017986 & 0.982014 \\ 0.982014 & 0.017986 \end{bmatrix}$$

   - $\mathbf{c}_1 = 0.017986(2,1) + 0.982014(0,2)$
     $= (0.035972+0,\ \ 0.017986+1.964028) = (0.035972,\ 1.982014)$
"""

TUPLES = [
    (r"$= (0.090776+0+0.186694,\ \ 0.045388+1.535836+0.186694) = (0.277470,\ 1.767918)$",
     [["0.090776", "0.045388"], ["0", "1.535836"], ["0.186694", "0.186694"]]),
    ("= (1+2, 3+4)", [["1", "3"], ["2", "4"]]),
    ("= (1+2, 3+4+5)", None),  # sums of different lengths: no term is one key's
    ("(0.2+0.3, 0.1+0.4)", None),  # not after '='
    ("= (1, 2)", None),  # no sums
]


@pytest.mark.parametrize("text,want", TUPLES)
def test_tuple_of_sums(text, want):
    assert componentwise_terms(text) == want


def test_output_written_component_by_component():
    (ex,) = imported(COMPONENTWISE)
    got = {(c.row, c.key, tuple(c.values)) for c in ex.claims if c.step == "weighted"}
    assert got == {("1", "1", ("0.035972", "0.017986")), ("1", "2", ("0", "1.964028"))}


# one head worked from projections the page prints: Q_1 = Q × W_Q^T = [Q] × [M] = [Q_1] (and K_1, V_1 likewise, named
# by their weight factor); the example starts from Q_1, K_1, V_1 (one head), the scores, scaled scores (the formula
# \frac{Q_1K_1^T}{\sqrt{2}} names them), weights and output are its claims; another head's output ("Say the two heads
# came out as") and an output after W^O are listed, not placed
HEAD1 = r"""Setup: two heads.

| Decoder Query \( Q \)  | Encoder Key \( K \)     | Encoder Value \( V \)    |
|------------------------|-------------------------|--------------------------|
| [1.0, 0.0, 1.0]        | [1.0, 0.0, 0.0]         | [1.0, 2.0, 0.0]          |
| [0.0, 1.0, 0.0]        | [0.0, 1.0, 1.0]         | [0.0, 1.0, 3.0]          |

- \( W_Q = \begin{bmatrix} 1 & 0 & 0 \\ 0 & 1 & 0 \end{bmatrix} \)
- \( W_K = \begin{bmatrix} 1 & 0 & 0 \\ 0 & 1 & 0 \end{bmatrix} \)
- \( W_V = \begin{bmatrix} 1 & 0 & 0 \\ 0 & 1 & 0 \end{bmatrix} \)

For \( Q_1 \) (the query of head 1):
\[
Q_1 = Q \times W_Q^T = \begin{bmatrix} 1.0 & 0.0 & 1.0 \\ 0.0 & 1.0 & 0.0 \end{bmatrix} \times \begin{bmatrix} 1 & 0 \\ 0 & 1 \\ 0 & 0 \end{bmatrix} = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}
\]

\[
K_1 = K \times W_K^T = \begin{bmatrix} 1.0 & 0.0 & 0.0 \\ 0.0 & 1.0 & 1.0 \end{bmatrix} \times \begin{bmatrix} 1 & 0 \\ 0 & 1 \\ 0 & 0 \end{bmatrix} = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}
\]

\[
V_1 = V \times W_V^T = \begin{bmatrix} 1.0 & 2.0 & 0.0 \\ 0.0 & 1.0 & 3.0 \end{bmatrix} \times \begin{bmatrix} 1 & 0 \\ 0 & 1 \\ 0 & 0 \end{bmatrix} = \begin{bmatrix} 1 & 2 \\ 0 & 1 \end{bmatrix}
\]

1. Dot products of \( Q_1 \) with \( K_1^T \):
\[
Q_1K_1^T = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix} \times \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix} = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}
\]

2. Scale by \( \sqrt{d_k} \):
\[
\frac{Q_1K_1^T}{\sqrt{2}} = \frac{1}{1.414} \times \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix} = \begin{bmatrix} 0.707 & 0 \\ 0 & 0.707 \end{bmatrix}
\]

3. Softmax gives the attention weights:
\[
\text{softmax} = \begin{bmatrix} 0.670 & 0.330 \\ 0.330 & 0.670 \end{bmatrix}
\]

4. Times \( V_1 \) gives the head's output:
\[
\text{Attention Output} = \begin{bmatrix} 0.670 & 0.330 \\ 0.330 & 0.670 \end{bmatrix} \times \begin{bmatrix} 1 & 2 \\ 0 & 1 \end{bmatrix} = \begin{bmatrix} 0.670 & 1.670 \\ 0.330 & 1.330 \end{bmatrix}
\]

Say the two heads came out as:

- Head 1 Output: \( \begin{bmatrix} 0.670 & 1.670 \\ 0.330 & 1.330 \end{bmatrix} \)
- Head 2 Output: \( \begin{bmatrix} 0.5 & 1.5 \\ 0.4 & 1.2 \end{bmatrix} \)

Let \( W_O = \begin{bmatrix} 1 & 0 \\ 0 & 1 \\ 1 & 0 \\ 0 & 1 \end{bmatrix} \).

\[
\text{Final Output} = \begin{bmatrix} 1.170 & 3.170 \\ 0.730 & 2.530 \end{bmatrix}
\]
"""


def test_one_head_worked_from_the_projections_it_prints():
    (ex,) = imported(HEAD1)
    assert {k: [list(r) for r in g.rows] for k, g in ex.inputs.items()} == {
        "Q": [["1", "0"], ["0", "1"]], "K": [["1", "0"], ["0", "1"]], "V": [["1", "2"], ["0", "1"]]}
    assert ex.spec.convention.heads == 1
    got = claims(ex)
    assert {("scores", "1", ("1", "0")), ("scaled", "1", ("0.707", "0")), ("weights", "1", ("0.670", "0.330")),
            ("output", "1", ("0.670", "1.670")), ("output", "2", ("0.330", "1.330"))} <= got
    values = {v for c in ex.claims for v in c.values}
    assert not values & {"0.5", "1.5", "1.170", "3.170"}  # head 2's output, the output after W^O
    listed = " ".join(n.text for n in ex.notes if n.kind == "unplaced")
    assert "head 2's numbers" in listed and "an output after W^O" in listed
