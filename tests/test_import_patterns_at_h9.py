"""Ways of writing numbers met on held-out batch at (tests/pages/heldout/at/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

from fractions import Fraction

import pytest

from import_snippets import claims, imported

from symattn.analyses.importer_fit_scale import weights_fit_unscaled
from symattn.analyses.importer_identity import identity_columns
from symattn.analyses.importer_fresh_scores import qkv_given_afresh, scores_given_afresh
from symattn.analyses.importer_items import Item, softmax_argument
from symattn.analyses.importer_model import toml_value
from symattn.analyses.importer_one_query_dots import one_query_entries
from symattn.analyses.importer_row_words import row_named_before
from symattn.analyses.importer_token_entries import token_entries
from symattn.read.pages import read_page
from symattn.read.pages.hand_math import hand_math_line, hand_vectors
from symattn.read.pages.model import Line, Where
from symattn.read.pages.shape_comments import shape_comment

FENCE = "```"

# --- a tuple of numbers written for a vector, in hand-written math -------------------------------------------

TUPLES = [
    ("z = 0.5 × (2, 0, 1, 1) + 0.5 × (0, 1, 2, 1)", "z = 0.5 × [2, 0, 1, 1] + 0.5 × [0, 1, 2, 1]"),
    ("z = (1, 0, 0.5, 0.5) + (0, 0.5, 1, 0.5)", "z = [1, 0, 0.5, 0.5] + [0, 0.5, 1, 0.5]"),
    ("- k₁ = (3, -1), v₂ = (0.25, 4)", "- k_1 = [3, -1], v_2 = [0.25, 4]"),
    ("y ≈ (0.7, 0.3)", "y ≈ [0.7, 0.3]"),
    # near misses: left as written
    ("plt.figure(figsize=(8, 6))", None),  # a call's argument
    ("f(1, 2) = 3", None),  # a function's arguments, not after '=' or an operator
    ("shape = (2, 3)", None),  # a shape
    ("x_range = (0, 1)", None),  # an interval
    ("q = (1, a, 0)", None),  # not all numbers
    ("(1, 2)", None),  # nothing before it
]


@pytest.mark.parametrize("text,want", TUPLES)
def test_hand_vectors(text, want):
    assert hand_vectors(text) == (want if want is not None else text)


HAND_LINES = [
    ("α₁ = e¹ / (e¹ + e¹) = 0.5", True),
    ("S = | 0.5  0.3 |", True),
    ("z = (1, 2)", True),
    ("q · k₁ = (1×1) + (0×1) = 1", True),
    ("Gradient ≈ 0 (vanishing gradients!)", False),  # a sign of math, none of hand-worked vectors
    ("Q₂₁ = (0.5 × 0.1) + (0.6 × 0.0)", False),  # two indices: an entry worked in code, not a vector
    ("x = np.array([1, 2])", False),  # a program
    ("for i in range(3):", False),
]


@pytest.mark.parametrize("text,want", HAND_LINES)
def test_hand_math_line(text, want):
    assert hand_math_line(text) is want


def _roles(page: str) -> list[tuple[str, str]]:
    return [(ln.role, ln.text) for ln in read_page(page, "markdown").lines if ln.text.strip()]


def test_bare_fence_of_hand_math_is_text():
    page = f"Work:\n\n{FENCE}\nz = (1, 2) + (3, 4)\nz = (4, 6)\n{FENCE}\n"
    assert ("prose", "z = [1, 2] + [3, 4]") in _roles(page)
    assert ("prose", "z = [4, 6]") in _roles(page)


FENCES_LEFT = [
    f"{FENCE}python\nz = (1, 2)\n{FENCE}\n",  # a language named: code
    f"{FENCE}\nz = (1, 2)\nprint(z)\n{FENCE}\n",  # a program
    f"{FENCE}\nScores ≈ 0 when unscaled\n{FENCE}\n",  # text in a box, no vector worked
]


@pytest.mark.parametrize("page", FENCES_LEFT)
def test_other_fences_stay_code(page):
    assert all(role in ("code", "output") for role, _ in _roles(page))


def test_two_fences_in_a_row():
    """A fence naming a language right before a bare one: each is judged on its own."""
    page = f"{FENCE}python\nx = 1\n{FENCE}\n{FENCE}\nv = (2, 3)\n{FENCE}\n"
    assert ("code", "x = 1") in _roles(page)
    assert ("prose", "v = [2, 3]") in _roles(page)


# --- a matrix drawn with bars, masked entries written -∞ --------------------------------------------------

def test_bar_matrix_with_infinities():
    page = f"{FENCE}\nS' = | 0.3   -∞  |\n     | 0.1   0.7 |\n{FENCE}\n"
    blocks = [b for b in read_page(page, "markdown").blocks if getattr(b, "form", "") == "rows"]
    assert [b.rows for b in blocks] == [[["0.3", "-∞"], ["0.1", "0.7"]]]


def test_infinity_in_a_draft():
    assert (toml_value("-∞"), toml_value("−∞"), toml_value("∞"), toml_value("-0.5")) == \
        ("-inf", "-inf", "inf", toml_value("-0.5"))


# --- one query worked by hand: q · kⱼ and αⱼ with one index ----------------------------------------------

ENTRIES = [
    ("q · k_2 = (2×1) + (1×3) = 2 + 3 = 5", [("scores", 2, "5")]),
    ("q · k₃ = 0.25", [("scores", 3, "0.25")]),
    ("α₃ = e² / (e¹ + e² + e³) = 0.245", [("weights", 3, "0.245")]),
    ("so **α₁ = 0.2** and **α₂ = 0.8**", [("weights", 1, "0.2"), ("weights", 2, "0.8")]),
    # near misses
    ("q · k_2 / √2 = 3.54", []),  # scaled, not the raw score
    ("α₁₂ = 0.3", []),  # two indices: another reader's
    ("q_1 · k_2 = 4", []),  # an indexed query: another reader's
    ("α₁ = 0.5 × 4", []),  # the number is a factor
    ("a₁ = 0.5", []),  # not a weight's name
]


@pytest.mark.parametrize("text,want", ENTRIES)
def test_one_query_entries(text, want):
    assert one_query_entries(text) == want


def _frac(x):
    return Fraction(str(x))


def test_worked_query_in_bare_fences():
    """A query and two key/value pairs as tuples, worked by hand in bare fences (unscaled)."""
    page = "\n".join([
        "Given a query q = (1, 1, 0) and two key-value pairs (no scaling):",
        "- k₁ = (1, 0, 0), v₁ = (2, 4)",
        "- k₂ = (0, 1, 0), v₂ = (0, 2)",
        "",
        FENCE,
        "q · k₁ = (1×1) + (1×0) + (0×0) = 1",
        "q · k₂ = (1×0) + (1×1) + (0×0) = 1",
        FENCE,
        "",
        FENCE,
        "α₁ = e¹ / (e¹ + e¹) = 0.5",
        "α₂ = e¹ / (e¹ + e¹) = 0.5",
        FENCE,
        "",
        FENCE,
        "z = 0.5 × (2, 4) + 0.5 × (0, 2)",
        "z = (1, 2) + (0, 1)",
        "z = (1, 3)",
        FENCE,
    ])
    (ex,) = imported(page)
    spec = ex.spec
    assert [[_frac(x) for x in r] for r in spec.inputs["K"]] == [[1, 0, 0], [0, 1, 0]]
    assert [[_frac(x) for x in r] for r in spec.inputs["V"]] == [[2, 4], [0, 2]]
    placed = {(c.step, c.row, c.key, tuple(c.values)) for c in ex.claims if c.group is None}
    assert placed == {("scores", "1", None, ("1", "1")), ("weights", "1", None, ("0.5", "0.5")),
                      ("weighted", "1", "1", ("1", "2")), ("weighted", "1", "2", ("0", "1")),
                      ("output", "1", None, ("1", "3"))}
    assert claims(ex) >= {("output", "1", ("1", "3"))}


# --- scores given afresh under a heading, and weights that say they are unscaled --------------------------

def _item(step, rows, line, kind=None):
    return Item(rows=rows, where=[Where(line + 1)] * len(rows), line=line, end=line + len(rows) - 1,
                kind=kind or ("matrix" if len(rows) > 1 else "vector"), step=step, strength=3)


def test_scores_given_afresh():
    q, k = _item("Q", [["1", "0"]], 0), _item("K", [["1", "0"], ["0", "1"]], 1)
    lines = [Line("", Where(i + 1)) for i in range(8)]
    lines[5] = Line("Exercise 2", Where(6), "heading")
    s3 = _item("scores", [["1", "2", "3"]] * 3, 6)
    assert scores_given_afresh([q, k], 2, s3, lines)
    assert not scores_given_afresh([q, k], 2, _item("scores", [["1", "2"], ["3", "4"]], 6), lines)  # two keys
    assert not scores_given_afresh([q, k], 6, s3, lines)  # no heading between
    kt = _item("K", [["1", "0", "2"], ["0", "1", "2"]], 1)
    kt.transposed = True  # Kᵀ printed: three keys
    assert not scores_given_afresh([q, kt], 2, s3, lines)


def test_weights_fit_unscaled():
    scores = [["0.4", "0.1", "0.9"], ["1.0", "2.0", "0.5"]]
    w = _item("weights", [["0.27", "0.73", "0"]], 5)  # softmax(1.0, 2.0), the third key masked
    assert weights_fit_unscaled(scores, [w], 16) is w
    assert weights_fit_unscaled(scores, [w], None) is None
    scaled = _item("weights", [["0.44", "0.56", "0"]], 6)  # softmax((1.0, 2.0) / 4)
    assert weights_fit_unscaled(scores, [w, scaled], 16) is None  # the page shows scaled weights too
    wrong = _item("weights", [["0.5", "0.5", "0"]], 5)
    assert weights_fit_unscaled(scores, [wrong], 16) is None


# --- the row a line names in its own language before the vectors it works ---------------------------------

ROW_WORDS = [
    ("For row 2: softmax(", 2), ("Para la fila 3: softmax([0.1, 0.2]) ≈ ", 3), ("Pour la ligne 1 : ", 1),
    ("Na linha 4: ", 4), ("Für Zeile 2: ", 2), ("Per la riga 5: ", 5), ("行 2: $\\text{softmax}(", 2), ("第 3 行：", 3),
    ("행 1: ", 1),
    # near misses
    ("rows 1 and 2: ", None), ("row 1 and row 2: ", None), ("the 3 rows: ", None), ("fila 0: ", None),
    ("行列 1: ", None),  # 行列: a matrix, not a row
    ("Row 3 ", None),  # no colon: not a label of what follows
]


@pytest.mark.parametrize("before,row", ROW_WORDS)
def test_row_named_before(before, row):
    assert row_named_before(before) == row


def test_rows_named_in_spanish_place_wrong_weights_at_their_rows():
    """Weights printed per row after 'Para la fila i:' go to row i even where they do not follow from the
    scores (a page's slip), not to the first query."""
    page = "\n".join([
        "S = [[1, 0], [0, 1]]",
        "",
        "Para la fila 1: softmax([1, 0]) ≈ [0.73, 0.27]",
        "Para la fila 2: softmax([0, 1]) ≈ [0.4, 0.6]",
    ])
    (ex,) = imported(page)
    got = {(c.step, c.row, tuple(c.values)) for c in ex.claims}
    assert ("weights", "2", ("0.4", "0.6")) in got
    assert ("weights", "1", ("0.73", "0.27")) in got


# --- softmax written in LaTeX text: the bracket inside \\text{softmax}(…) is its argument, not weights ------------

SOFTMAX_LATEX = [
    (r"行 1: $\text{softmax}(", ")", True),
    (r"$\operatorname{softmax}(", ") = ", True),
    ("`softmax(", ")`", True),
    # near misses
    (r"$\text{softmax}(", r" \cdot V)", False),  # a product inside: no argument alone
    (r"$\text{softmax}([1, 0]) \approx ", "$", False),  # after the call: its result
]


@pytest.mark.parametrize("before,after,argument", SOFTMAX_LATEX)
def test_softmax_argument_in_latex_text(before, after, argument):
    assert softmax_argument(before, after) is argument


def test_rows_named_in_chinese_with_latex_softmax():
    """'行 i: $\\text{softmax}([…]) \\approx […]$' one line per query: the bracket inside softmax restates the
    scaled row, the one after ≈ is that row's weights, placed at row i even where it does not follow."""
    page = "\n".join([
        "$Q = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}$, $K = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}$, "
        "$V = \\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}$, no scaling",
        "",
        "行 1: $\\text{softmax}([1, 0]) \\approx [0.73, 0.27]$",
        "",
        "行 2: $\\text{softmax}([0, 1]) \\approx [0.4, 0.6]$",
    ])
    (ex,) = imported(page)
    got = {(c.step, c.row, tuple(c.values)) for c in ex.claims if c.group is None}
    assert ("weights", "1", ("0.73", "0.27")) in got
    assert ("weights", "2", ("0.4", "0.6")) in got
    assert not any(c.step == "weights" and tuple(c.values) in (("1", "0"), ("0", "1")) for c in ex.claims)


# --- an identity written with its shape: W^V = I_{4×2} -------------------------------------------------------

IDENTITY_SHAPES = [
    (r"W^V = I_{4 \times 2}", 4, 2), ("W_V = I_{3×2}", 3, 2), ("W_V = I_{3x1}", 3, 1),
    # near misses: square
    ("W_V = I", 4, 4), ("W_V = I_4", 4, 4),
    (r"W^V = I_{4 \times 2}", 3, 3),  # its rows are not the embeddings' width: not this example's
    (r"W^V = I_{2 \times 4}", 2, 2),  # wider than tall: not read
]


@pytest.mark.parametrize("text,rows,cols", IDENTITY_SHAPES)
def test_identity_columns(text, rows, cols):
    assert identity_columns(text, rows) == cols


def test_value_weights_as_a_rectangular_identity():
    page = "\n".join([
        r"$$X = \begin{bmatrix} 1 & 2 & 3 \\ 4 & 5 & 6 \end{bmatrix}$$",
        r"$$W^Q = \begin{bmatrix} 1 & 0 \\ 0 & 1 \\ 0 & 0 \end{bmatrix}, \quad "
        r"W^K = \begin{bmatrix} 1 & 0 \\ 0 & 1 \\ 0 & 0 \end{bmatrix}, \quad W^V = I_{3 \times 2}$$",
        r"$$V = X W^V = \begin{bmatrix} 1 & 2 \\ 4 & 5 \end{bmatrix}$$",
    ])
    (ex,) = imported(page)
    assert [[_frac(x) for x in r] for r in ex.spec.inputs["Wv"]] == [[1, 0], [0, 1], [0, 0]]
    assert {("V", "1", ("1", "2")), ("V", "2", ("4", "5"))} <= claims(ex)


# --- Q = K = V given under a new heading after an example worked from embeddings: a new example ---------------

def test_problem_after_a_worked_example_is_its_own():
    page = "\n".join([
        "## Example",
        r"$$X = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}, \quad W^Q = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}, "
        r"\quad W^K = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}, \quad W^V = \begin{bmatrix} 2 & 0 \\ 0 & 2 \end{bmatrix}$$",
        "No scaling.",
        r"$$QK^\top = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}$$",
        "",
        "## Problem 1",
        r"Given $Q = K = V = \begin{bmatrix} 2 & 0 \\ 0 & 2 \end{bmatrix}$, no scaling:",
        r"$$QK^\top = \begin{bmatrix} 4 & 0 \\ 0 & 4 \end{bmatrix}$$",
    ])
    exs = imported(page)
    assert len(exs) == 2
    second = exs[1]
    assert [[_frac(x) for x in r] for r in second.spec.inputs["Q"]] == [[2, 0], [0, 2]]
    assert ("scores", "1", ("4", "0")) in claims(second)


def test_qkv_given_afresh_needs_the_three_together():
    def item(step, line):
        return Item(rows=[["1", "0"], ["0", "1"]], where=[Where(line + 1)] * 2, line=line, end=line + 1,
                    kind="matrix", step=step, strength=3)
    x, w = item("X", 0), item("weights", 2)
    q, k, v = item("Q", 6), item("K", 6), item("V", 6)
    lines = [Line("", Where(i + 1)) for i in range(8)]
    lines[5] = Line("Problem 1", Where(6), "heading")
    assert qkv_given_afresh({"X": x}, [x, w], q, [x, w, q, k, v], lines)
    assert not qkv_given_afresh({}, [x, w], q, [x, w, q, k, v], lines)  # the example did not start from X
    assert not qkv_given_afresh({"X": x}, [x], q, [x, q, k, v], lines)  # nothing worked before
    k2 = item("K", 7)
    assert not qkv_given_afresh({"X": x}, [x, w], q, [x, w, q, k2, v], lines)  # not on one line: projections shown


# --- a shape in the comment after the code that makes a tensor ------------------------------------------------

SHAPE_COMMENTS = [
    ("W_Q = torch.randn(d_model, d_model) * 0.5  # [4, 4]", ["4", "4"], True),
    ("h = np.zeros(n)  # [8]", ["8"], True),
    ("q = torch.tensor([3.0, 1.0])  # [3, 1]", ["3", "1"], False),  # a literal's values restated
    ("W = torch.randn(4, 4)  # [0.5, 1]", ["0.5", "1"], False),  # not sizes
    ("W = torch.randn(4, 4)  # [4, 4, 4]", ["4", "4", "4"], False),  # not one size per argument
]


@pytest.mark.parametrize("line,entries,shape", SHAPE_COMMENTS)
def test_shape_comment(line, entries, shape):
    assert shape_comment(line, line.rindex("["), entries) is shape


def test_shape_comment_is_no_input():
    page = f"{FENCE}python\nW_Q = torch.randn(d_model, d_model) * 0.5  # [4, 4]\nQ = torch.tensor([1.0, 2.0])  # [1, 2]\n{FENCE}\n"
    rows = [b.rows for b in read_page(page, "markdown").blocks]
    assert [["4", "4"]] not in rows
    assert [["1.0", "2.0"]] in rows


# --- one query's entries named by the key's token ---------------------------------------------------------

TOKEN_ENTRIES = [
    ("* Score (cat): $(1 \\times 2) + (0 \\times 1) = 2$", [("scores", "cat", "2")]),
    ("- **Scaled Score (dog)**: $4 / 2 = 2.0$", [("scaled", "dog", "2.0")]),
    ("* Attention weight (sat): ≈ 0.42", [("weights", "sat", "0.42")]),
    (r"\text{Context} &= 0.7 \times V_{\text{cat}} + 0.3 \times V_{\text{dog}} \\",
     [("weights", "cat", "0.7"), ("weights", "dog", "0.3")]),
    ("out = 0.25 * V['a'] + 0.75 * V['b']", [("weights", "a", "0.25"), ("weights", "b", "0.75")]),
    # near misses
    ("* Score (cat): high", []),
    ("* Score: 10", []),  # no token
    ("* Score (cat): $2 \\times 5$", []),  # a product, no result after '='
    ("0.7 × V_cat", []),  # one term: not a weighted sum
    ("0.5 × V_cat + 0.5 × V_cat", []),  # the same key twice
    ("* Loss (cat): = 0.3", []),  # not a step of attention
]


@pytest.mark.parametrize("text,want", TOKEN_ENTRIES)
def test_token_entries(text, want):
    assert token_entries(text) == want


def test_lesson_walkthrough_by_token():
    """Q, K and V listed by token (and in code, keyed by token), then each step key by key, the weighted sum
    in an align environment."""
    page = "\n".join([
        "**Inputs:**",
        "* **Query (Q):** `[1, 0]`",
        "* **Keys:**",
        "  * **K_cat:** `[2, 0]`",
        "  * **K_dog:** `[0, 2]`",
        "* **Values:**",
        "  * **V_cat:** `[1, 1]`",
        "  * **V_dog:** `[3, 0]`",
        "",
        "```python",
        "Q = torch.tensor([1.0, 0.0])",
        "K = {'cat': torch.tensor([2.0, 0.0]), 'dog': torch.tensor([0.0, 2.0])}",
        "V = {'cat': torch.tensor([1.0, 1.0]), 'dog': torch.tensor([3.0, 0.0])}",
        "```",
        "",
        "No scaling here.",
        "",
        "* Score (cat): $(1 \\times 2) + (0 \\times 0) = 2$",
        "* Score (dog): $(1 \\times 0) + (0 \\times 2) = 0$",
        "",
        "$$",
        "\\begin{align}",
        "\\text{Context} &= 0.88 \\times V_{\\text{cat}} + 0.12 \\times V_{\\text{dog}} \\\\",
        "&= [0.88, 0.88] + [0.36, 0] \\\\",
        "&\\approx [1.24, 0.88]",
        "\\end{align}",
        "$$",
    ])
    (ex,) = imported(page)
    got = {(c.step, c.key, tuple(c.values)) for c in ex.claims if c.group is None}
    assert ("scores", None, ("2", "0")) in got
    assert ("weights", None, ("0.88", "0.12")) in got
    assert ("output", None, ("1.24", "0.88")) in got


# --- a product written with its name, its symbols, its factors side by side, then its result ---------------------

BMAT_I = r"\begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}"
BMAT_A = r"\begin{bmatrix} 0.67 & 0.33 \\ 0.33 & 0.67 \end{bmatrix}"
BMAT_V = r"\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}"
BMAT_R = r"\begin{bmatrix} 1.66 & 2.66 \\ 2.34 & 3.5 \end{bmatrix}"  # (3.34: the page slipped)


def test_named_product_with_factors_written_out():
    page = "\n".join([
        f"$$Q = K = {BMAT_I}, \\quad V = {BMAT_V}$$",
        "No scaling.",
        "Row-wise softmax (two decimals):",
        f"$$A = {BMAT_A}$$",
        "",
        f"$$\\text{{Output}} = A V = {BMAT_A} {BMAT_V} = {BMAT_R}$$",
    ])
    (ex,) = imported(page)
    got = {(c.step, c.row, tuple(c.values)) for c in ex.claims if c.group is None}
    assert ("output", "1", ("1.66", "2.66")) in got and ("output", "2", ("2.34", "3.5")) in got
    assert not any(c.step == "output" and tuple(c.values) == ("0.67", "0.33") for c in ex.claims)


FACTORED_NEAR_MISSES = [
    f"$$\\text{{Output}} = {BMAT_A} {BMAT_V}$$",  # no symbols, no result after '='
    f"$$\\text{{Output}} = A V = {BMAT_A} + {BMAT_V} = {BMAT_R}$$",  # a sum, not side by side
    f"$$M = f(A) = {BMAT_A} {BMAT_V} = {BMAT_R}$$",  # not a product of two symbols
]


@pytest.mark.parametrize("line", FACTORED_NEAR_MISSES)
def test_factored_near_misses(line):
    from symattn.analyses.importer_factored import FACTORED_NOTE
    from symattn.analyses.importer_items import collect
    items = collect(read_page(line, "markdown")).items
    assert not any(FACTORED_NOTE in it.notes for it in items)


FACTORED = [
    (f"$$\\text{{Output}} = A V = {BMAT_A} {BMAT_V} = {BMAT_R}$$", ("weights", "V", "output")),
    (f"$$Q = X W^Q = {BMAT_I} \\cdot {BMAT_V} = {BMAT_V}$$", ("X", "Wq", "Q")),
]


@pytest.mark.parametrize("line,steps", FACTORED)
def test_factored_product_items(line, steps):
    from symattn.analyses.importer_factored import FACTORED_NOTE
    from symattn.analyses.importer_items import collect
    a, b, r = [it for it in collect(read_page(line, "markdown")).items if it.kind == "matrix"]
    assert (a.step, b.step, r.step) == steps
    assert a.operand and b.operand and not r.operand
    assert FACTORED_NOTE in a.notes and FACTORED_NOTE in b.notes
