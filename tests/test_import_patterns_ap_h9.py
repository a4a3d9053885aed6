"""Ways of writing numbers met on held-out batch ap (tests/pages/heldout/ap/), as small snippets written
here (not copied from the pages) with what they must yield. Each expected value was read off the snippet
by hand."""

import pytest

from import_snippets import claims, imported

from symattn.errors import SymattnError
from symattn.read.pages.hand_walk import dot_results, keyed_results, lone_vector, norm, output_result, vectors_in

# --- one query walked by hand: named vectors, named dot products, a step's row alone under its words -----------

LISTED = """## Walk

Query $\\mathbf{q} = [1, 2]$.

- $\\mathbf{k}_1 = [1, 0],\\ \\mathbf{v}_1 = [1, 0]$
- $\\mathbf{k}_2 = [0, 1],\\ \\mathbf{v}_2 = [0, 1]$
- $\\mathbf{k}_3 = [1, 1],\\ \\mathbf{v}_3 = [2, 2]$

**Step 1 — dot products**

- $\\mathbf{q}^\\top \\mathbf{k}_1 = 1(1) + 2(0) = 1$
- $\\mathbf{q}^\\top \\mathbf{k}_2 = 1(0) + 2(1) = 2$
- $\\mathbf{q}^\\top \\mathbf{k}_3 = 1(1) + 2(1) = 3$

**Step 2 — divide by $\\sqrt{2}$:**

$(0.71, 1.41, 2.12)$.

**Step 3 — softmax:**

$(0.16,\\; 0.33,\\; 0.51)$

**Step 4 — weighted sum of values:**

$\\approx [1.18,\\; 1.35]$.
"""


def test_listed_vectors_and_steps():
    ex, = imported(LISTED)
    assert {k: g.rows for k, g in ex.inputs.items()} == {
        "Q": [["1", "2"]], "K": [["1", "0"], ["0", "1"], ["1", "1"]], "V": [["1", "0"], ["0", "1"], ["2", "2"]]}
    assert claims(ex) == {("scores", "1", ("1", "2", "3")), ("scaled", "1", ("0.71", "1.41", "2.12")),
                          ("weights", "1", ("0.16", "0.33", "0.51")), ("output", "1", ("1.18", "1.35"))}
    assert ex.convention["scale"].value == "1/sqrt(d_k)"


TABLED = """## By hand

| Token | Query $\\mathbf{q}$ | Key $\\mathbf{k}$ | Value $\\mathbf{v}$ |
|---|---|---|---|
| x | — | $(2, 0)$ | $(1, 1)$ |
| y | $(1, 3)$ | $(0, 1)$ | $(3, 5)$ |

$$e_{y,x} = \\mathbf{q}_y^T \\mathbf{k}_x = (1)(2) + (3)(0) = 2$$
$$e_{y,y} = \\mathbf{q}_y^T \\mathbf{k}_y = (1)(0) + (3)(1) = 3$$

$$\\tilde{e}_{y,x} = 1.41, \\quad \\tilde{e}_{y,y} = 2.12$$

$$\\alpha_{y,x} = \\frac{e^{1.41}}{e^{1.41} + e^{2.12}} \\approx 0.33, \\quad \\alpha_{y,y} \\approx 0.67$$

$$\\text{out}_y = 0.33 \\cdot (1, 1) + 0.67 \\cdot (3, 5) = (2.34, 3.68)$$
"""


def test_table_columns_and_keyed_numbers():
    ex, = imported(TABLED)
    assert ex.tokens == ["y"] and ex.key_tokens == ["x", "y"]
    assert {k: g.rows for k, g in ex.inputs.items()} == {
        "Q": [["1", "3"]], "K": [["2", "0"], ["0", "1"]], "V": [["1", "1"], ["3", "5"]]}
    assert claims(ex) == {("scores", "y", ("2", "3")), ("scaled", "y", ("1.41", "2.12")),
                          ("weights", "y", ("0.33", "0.67")), ("output", "y", ("2.34", "3.68"))}


QK_ONLY = """## Recall

> A query $\\mathbf{q} = [2, 1]$ meets keys $\\mathbf{k}_1 = [1, 1]$ and $\\mathbf{k}_2 = [0, -1]$.
> $\\mathbf{q}^\\top \\mathbf{k}_1 = 3$, $\\mathbf{q}^\\top \\mathbf{k}_2 = -1$. The first key wins.
"""


def test_query_and_keys_without_values_are_claims():
    ex, = imported(QK_ONLY)
    assert ex.inputs == {}
    assert claims(ex) == {("Q", "1", ("2", "1")), ("K", "1", ("1", "1")), ("K", "2", ("0", "-1")),
                          ("scores", "1", ("3", "-1"))}
    assert ex.convention["scale"].value == "none"


def test_vectors_with_no_step_are_no_example():
    page = "## Setup\n\n$\\mathbf{q} = [1, 2]$, $\\mathbf{k}_1 = [1, 0]$, $\\mathbf{k}_2 = [0, 1]$.\n"
    with pytest.raises(SymattnError):
        imported(page)


def test_two_queries_are_not_one_walk():
    page = ("## Two\n\n$q_1 = [1, 2]$, $q_2 = [0, 1]$, $k_1 = [1, 0]$, $k_2 = [0, 1]$.\n\n"
            "$q_1^T k_1 = 1$, $q_1^T k_2 = 2$\n")
    with pytest.raises(SymattnError):
        imported(page)


@pytest.mark.parametrize("text,want", [
    (r"$\mathbf{k}_2 = [0.5, -1],\ \mathbf{v}_2 = [3, 4]$", [("k", "2", ["0.5", "-1"]), ("v", "2", ["3", "4"])]),
    (r"q_C^T k_A = (1)(1) + (1)(0) = 1", []),  # factors of a product: no definition
    (r"k_1 = [a, b]", []),  # not numbers
    (r"q = [7]", []),  # one number: no vector
    (r"x \cdot k_1 = [1, 2]", []),  # the right side of a product
])
def test_vector_definitions(text, want):
    assert vectors_in(norm(text)) == want


@pytest.mark.parametrize("text,want", [
    (r"$\mathbf{q}_i^\top \mathbf{k}_2 = 0.5(2) + 1(-1) = 0.00$", [("i", "2", "0.00")]),
    (r"q \cdot k_B = 4", [("", "B", "4")]),
    (r"$\mathbf{q}^\top \mathbf{k}_1 = 1(2) + 3(4)$", []),  # no result printed
    (r"$\mathbf{q}^\top \mathbf{k}_j$ is large", []),
])
def test_named_dot_products(text, want):
    assert dot_results(norm(text)) == want


@pytest.mark.parametrize("text,want", [
    (r"\tilde{e}_{a,b} = -0.5, \quad \tilde{e}_{a,c} = 2", [("scaled", "a", "b", "-0.5"), ("scaled", "a", "c", "2")]),
    (r"e_{2,1} = q_2^T k_1 = 7", [("scores", "2", "1", "7")]),
    (r"\alpha_{i,j} = \frac{\exp(e_{i,j})}{\sum_k \exp(e_{i,k})}", []),  # a formula, no number
    (r"\alpha_{i,j} \geq 0", []),
])
def test_keyed_numbers(text, want):
    assert keyed_results(norm(text)) == want


@pytest.mark.parametrize("text,want", [
    (r"\text{out}_C = 0.5 \cdot (1, 0) + 0.5 \cdot (0, 1) = (0.5, 0.5)", ("C", ["0.5", "0.5"])),
    (r"z \approx 0.5 \cdot [1, 0] + 0.5 \cdot [0, 1]", None),  # ends on a term of the sum
])
def test_output_lines(text, want):
    assert output_result(norm(text)) == want


@pytest.mark.parametrize("text,want", [
    (r"$(1.04, -0.73, 5.97)$.", ["1.04", "-0.73", "5.97"]),
    (r"$\approx [-2.16,\; 4.08]$.", ["-2.16", "4.08"]),
    (r"we get $(1, 2)$ here", None),
])
def test_lone_rows(text, want):
    assert lone_vector(norm(text)) == want


# --- a worked example stating √d_k = 1: its "scaled" scores are its scores (scale none) -------------------------

UNIT_ROOT = """## Scores

$$Q = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}, \\quad K = \\begin{bmatrix} 2 & 1 \\\\ 1 & 3 \\end{bmatrix}, \\quad
V = \\begin{bmatrix} 1 & 1 \\\\ 0 & 2 \\end{bmatrix}$$

$$S = \\frac{Q K^\\top}{\\sqrt{d_k}}$$

$$\\sqrt{d_k} = \\sqrt{2} = 1$$

$$S = \\begin{bmatrix} 2 & 1 \\\\ 1 & 3 \\end{bmatrix}$$
"""


def test_unit_root_places_scores_unscaled():
    ex, = imported(UNIT_ROOT)
    assert ex.convention["scale"].value == "none"
    assert ("scores", "1", ("2", "1")) in claims(ex) and not any(c.step == "scaled" for c in ex.claims)


@pytest.mark.parametrize("text,want", [
    (r"$$\sqrt{d_k} = \sqrt{2} = 1$$", "none"),
    (r"here √d_k = 1, so nothing changes", "none"),
    (r"$\sqrt{d_k} = \sqrt{4} = 2$", None),  # a real divisor
    (r"$\sqrt{d_k} = 1.41$", None),
    (r"$\sqrt{d_k} = 16$", None),  # 16, not 1 followed by more digits
])
def test_unit_root(text, want):
    from symattn.analyses.importer_unit_root import unit_root
    from symattn.read.pages.model import Line, Where
    ev = unit_root([Line(text, Where(1))])
    assert (ev.value if ev else None) == want


# --- one query's weights listed one line a key under 'For word "x":' --------------------------------------------

ATTEND = """Example:

```
For word "sun":
- Attend to "a": 0.10
- Attend to "hot": 0.30 (adjective)
- Attend to "sun": 0.60 (itself)
```
"""


def test_one_query_attend_list():
    ex, = imported(ATTEND)
    assert ex.tokens == ["sun"] and ex.key_tokens == ["a", "hot", "sun"] and ex.inputs == {}
    assert claims(ex) == {("weights", "sun", ("0.10", "0.30", "0.60"))}


@pytest.mark.parametrize("rows", [
    ['- Attend to "a": 0.10', '- Attend to "hot": 0.30'],  # sums to 0.40: no distribution
    ['- Attend to "a": 1.00'],  # one key only
    ['- Attend to "a": 0.50 and more words', '- Attend to "b": 0.50'],  # not a weight line
])
def test_attend_list_near_misses(rows):
    page = "```\nFor word \"sun\":\n" + "\n".join(rows) + "\n```\n"
    with pytest.raises(SymattnError):
        imported(page)
