"""Ways of writing numbers met on held-out batch ab (tests/pages/heldout/ab/), as tables of (snippet, what it
must yield). Each expected value was read off the snippet by hand."""

import pytest

from import_snippets import claims, imported

from symattn.analyses.importer_names import product_step, step_of_ident

# a product of two symbols written alone before '=' names the product, not its last factor
PRODUCTS = [
    (r"\mathbf{Q} \mathbf{K}^T", "scores"),
    (r"QK^\top", "scores"),
    (r"\mathbf{A}_{\text{Row 3}} \times \mathbf{V}", "output"),
    (r"A \cdot V", "output"),
    (r"X W_Q", "Q"),
    (r"X W^V", "V"),
    (r"Q K", None),  # K not transposed: no step
    (r"A B", None),
    (r"W_Q X", None),  # the torch order is not read here
    (r"\text{softmax}(S)", None),
]


@pytest.mark.parametrize("formula,want", PRODUCTS)
def test_the_step_a_written_product_makes(formula, want):
    assert product_step(formula) == want


# a subscript saying 'scaled' on a scores name names the scaled scores
SCALED_TAGS = [
    (r"QK^T_{\text{scaled}}", "scaled"),
    (r"S_{scaled}", "scaled"),
    (r"scores_scaled", "scaled"),
    (r"QK^T", "scores"),
    (r"K_{scaled}", None),  # a key matrix is not a score
    (r"X_{\mathrm{scaled}}", None),
]


@pytest.mark.parametrize("name,want", SCALED_TAGS)
def test_a_scaled_subscript(name, want):
    assert step_of_ident(name) == want


# Q, K, V given; QKᵀ written first as its two factors with no result (Q's numbers, 2×2 like the scores: a
# factor must not be taken for the scores), then with its result; the scaled scores under QK^T_scaled; the
# softmax of "Row 2" and A_Row2 × V: the second query's weights and output (not the first's, not V's)
PAGE = r"""
$$
\mathbf{Q} = \begin{bmatrix} 1 & 0 \\ 1 & 1 \end{bmatrix}, \quad
\mathbf{K} = \begin{bmatrix} 2 & 0 \\ 0 & 2 \end{bmatrix}, \quad
\mathbf{V} = \begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}
$$

$$
\mathbf{Q} \mathbf{K}^T =
\begin{bmatrix}
1 & 0 \\
1 & 1
\end{bmatrix}
\begin{bmatrix}
2 & 0 \\
0 & 2
\end{bmatrix}
$$

$$
\mathbf{Q} \mathbf{K}^T =
\begin{bmatrix}
2 & 0 \\
2 & 2
\end{bmatrix}
$$

Divided by $\sqrt{d_k} = \sqrt{2}$:

$$
\mathbf{QK^T}_{\text{scaled}} =
\begin{bmatrix}
1.414 & 0 \\
1.414 & 1.414
\end{bmatrix}
$$

$$
\text{Softmax}(\text{Row 2}) = \begin{bmatrix}
0.5 & 0.5
\end{bmatrix}
$$

$$
\mathbf{A}_{\text{Row 2}} \times \mathbf{V} =
[2, 3]
$$
"""


def test_products_factors_and_rows_named_in_displays():
    (ex,) = imported(PAGE)
    assert ex.inputs["Q"].rows == [["1", "0"], ["1", "1"]]
    got = claims(ex)
    assert ("scores", "1", ("2", "0")) in got and ("scores", "2", ("2", "2")) in got
    assert ("scaled", "1", ("1.414", "0")) in got and ("scaled", "2", ("1.414", "1.414")) in got
    assert ("weights", "2", ("0.5", "0.5")) in got
    assert ("output", "2", ("2", "3")) in got
    everything = {(c.step, c.row, tuple(c.values)) for c in ex.claims}
    assert not any(s in ("scores", "scaled") and v == ("1", "0") for s, _, v in everything)  # the factor Q
    assert not any(s in ("weights", "V") and r == "1" and v in (("0.5", "0.5"), ("2", "3")) for s, r, v in everything)
