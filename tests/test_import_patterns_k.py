"""Ways of writing numbers met on held-out batch k (tests/pages/heldout/k/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand
(softmax([1/√2, 0]) = [0.66976, 0.33024])."""

import pytest

import symattn as sa
from symattn.analyses.importer_conventions import keep_mask
from symattn.read.pages.model import Line, Where

T, F = True, False

# one example worked twice in a test file: without a mask, then with a 0/1 keep-mask passed to the
# same call (1 = attend): the masked call is a second example on the same inputs, the mask its
# convention (broadcast over the queries when printed once), never a step
UNMASKED = ("q = np.array([[1, 0], [0, 1]])\nk = np.array([[1, 0], [0, 1]])\nv = np.array([[1, 0], [0, 1]])\n"
            "attention, weights = scaled_attention(q, k, v, None)\n"
            "assert np.allclose(weights, [[0.66976155, 0.33023845], [0.33023845, 0.66976155]])\n")
MASKED = [
    ("mask = np.array([[1, 0]])\nattention, weights = scaled_attention(q, k, v, mask)\n"
     "assert np.allclose(weights, [[1.0, 0.0], [1.0, 0.0]])\n",
     [[T, F], [T, F]], ("1.0", "0.0")),
    ("padding_mask = np.array([[[1, 1], [0, 1]]])\nout, w = scaled_attention(q, k, v, padding_mask)\n"
     "assert np.allclose(w, [[0.66976155, 0.33023845], [0.0, 1.0]])\n",
     [[T, T], [F, T]], ("0.66976155", "0.33023845")),
]


@pytest.mark.parametrize("masked,mask,row1", MASKED)
def test_keep_mask_call_is_a_second_example(masked, mask, row1):
    exs = sa.import_examples(UNMASKED + "\n" + masked, format="text", source="snippet")
    assert len(exs) == 2
    first, second = exs
    assert "mask" not in first.convention
    assert second.convention["mask"].value == mask
    assert second.spec.inputs == first.spec.inputs
    got = {(c.step, c.row, tuple(c.values)) for c in second.claims if c.group is None}
    assert ("weights", "1", row1) in got
    assert not any(c.step != "weights" for c in second.claims)  # the mask is no step


# (label, rows, the line after, keep-mask or None)
KEEP = [
    ("mask", [["1", "0", "1"]], "f(q, k, v, mask)", [[T, F, T]]),
    ("attn_mask", [["1.", "1."], ["0.", "1."]], "out = layer(x, attn_mask=attn_mask)", [[T, T], [F, T]]),
    ("mask", [["1", "0", "1"]], "print(mask)", None),  # not passed to a call with other arguments
    ("mask", [["1", "1", "1"]], "f(q, k, v, mask)", None),  # all ones: no mask
    ("weights", [["1", "0", "1"]], "f(q, k, v, weights)", None),  # not named as a mask
    ("mask", [["0", "-1e9"]], "f(q, k, v, mask)", None),  # additive, not 0/1
]


@pytest.mark.parametrize("label,rows,after,want", KEEP)
def test_keep_mask(label, rows, after, want):
    lines = [Line(f"{label} = …", Where(1)), Line(after, Where(2))]
    assert keep_mask(rows, label, lines, 0) == want


# a notebook whose helper wraps the array constructor (create_tensor([[…]])) and whose printouts
# say "NAME shape: (2, 2)", a blank line, then the comma-less array; an additive mask m given in
# code (convention.bias); the output printed by DotProductAttention(…) as a JAX DeviceArray
def _nb(cells):
    import json
    out = []
    for src, text in cells:
        c = {"cell_type": "code", "source": src, "metadata": {}, "execution_count": 1, "outputs": []}
        if text:
            c["outputs"] = [{"output_type": "stream", "name": "stdout", "text": text}]
        out.append(c)
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


JAX = _nb([
    ("# attention = softmax(q k^T / sqrt(d_k) + m) v\nq = create_tensor([[1, 1], [1, 2]])\nk = create_tensor([[1, 0], [1, 1]])\n"
     "v = create_tensor([[1, 2], [3, 4]])\nm = create_tensor([[0, 0], [-1e9, 0]])\ndisplay_tensor(q, 'query')",
     "query shape: (2, 2)\n\n[[1 1]\n [1 2]]\n"),
    ("q_dot_k = q @ k.T / jnp.sqrt(2)\ndisplay_tensor(q_dot_k, 'query dot key')",
     "query dot key shape: (2, 2)\n\n[[0.70710677 1.4142135 ]\n [0.70710677 2.1213203 ]]\n"),
    ("masked = q_dot_k + m\ndisplay_tensor(masked, 'masked query dot key')",
     "masked query dot key shape: (2, 2)\n\n[[ 7.0710677e-01  1.4142135e+00]\n [-1.0000000e+09  2.1213203e+00]]\n"),
    ("display_tensor(masked @ v, 'masked query dot key dot value')",
     "masked query dot key dot value shape: (2, 2)\n\n[[ 4.9497476e+00  7.0710678e+00]\n"
     " [-1.0000000e+09 -2.0000000e+09]]\n"),
    ("DotProductAttention(q, k, v, m_bool)",
     "DeviceArray([[2.3395231, 3.3395231],\n             [3.       , 4.       ]], dtype=float32)\n"),
])


def test_jax_helper_notebook():
    (ex,) = sa.import_examples(JAX, format="notebook", source="snippet")
    assert [[str(x) for x in r] for r in ex.data()["inputs"]["Q"]] == [["1", "1"], ["1", "2"]]
    assert ex.convention["bias"].value[1][1] == 0 and float(ex.convention["bias"].value[1][0]) == -1e9
    got = {(c.step, c.row, tuple(c.values)) for c in ex.claims if c.group is None}
    assert ("scaled", "1", ("0.70710677", "1.4142135")) in got
    assert ("masked", "2", ("-1.0000000e+09", "2.1213203e+00")) in got
    assert ("output", "2", ("3.", "4.")) in got
    assert not any(c.step in ("scores", "weighted") for c in ex.claims)  # m and masked·v are no steps


# (name printed before a printout, step it names (None: a product that is no step))
DOT_PHRASES = [("query dot key", "scores"), ("masked query dot key", "masked"), ("scaled query dot key", "scaled"),
               ("masked query dot key dot value", None), ("key dot value", None)]


@pytest.mark.parametrize("name,step", DOT_PHRASES)
def test_dot_phrase(name, step):
    from symattn.analyses.importer_items import dot_phrase_step
    assert dot_phrase_step(name)[0] == step


@pytest.mark.parametrize("expr,want", [("DotProductAttention(q, k, v, m)", True),
                                       ("dot_product_self_attention(q_b, k_b, v_b)", True),
                                       ("attention_weights(q, k, v)", False), ("Attention(q)", False)])
def test_attention_call(expr, want):
    from symattn.analyses.importer_items import attention_call
    assert attention_call(expr) is want


# course macros a page never defines: matrix environments and \li( \ri)
MACROS = [
    (r"\bpmat 1 & 2\\ 3 & 4 \epmat", r"\begin{pmatrix} 1 & 2\\ 3 & 4 \end{pmatrix}"),
    (r"\bbmat 1 \ebmat", r"\begin{bmatrix} 1 \end{bmatrix}"),
    (r"\pmat{1 & 2}", r"\begin{pmatrix}1 & 2\end{pmatrix}"),
    (r"\li( x \ri)", r"\left( x \right)"),
    (r"\bpmat 1 \epmat \bpmat 2", r"\bpmat 1 \epmat \bpmat 2"),  # unbalanced: left alone
    (r"\def\bpmat{\left(\begin{matrix}} \bpmat 1 \epmat", r"\def\bpmat{\left(\begin{matrix}} \bpmat 1 \epmat"),
]


@pytest.mark.parametrize("text,want", MACROS)
def test_undefined_macros(text, want):
    from symattn.read.pages.macros import undefined_macros
    assert undefined_macros(text) == want


def test_macro_matrices_are_read():
    page = ("## Exercise\n\nLet $$Q = \\bpmat 1 & 2\\\\ 3 & 1 \\epmat,\\quad K = \\bpmat 2 & 1\\\\ 1 & 1 \\epmat,\\quad "
            "V = \\bpmat 1 & 0\\\\ 0 & 1 \\epmat$$\n")
    from symattn.analyses.importer_items import collect
    from symattn.read.pages import read_page
    got = [(it.step, it.rows) for it in collect(read_page(page, "markdown")).items]
    assert ("K", [["2", "1"], ["1", "1"]]) in got and ("V", [["1", "0"], ["0", "1"]]) in got


# one query scored against the rows of a matrix in code, then those rows summed weighted: the
# matrix holds the keys (= values), the vector the query; no division: not scaled
MATVEC = ("```python\nh = np.array([[1, 2, 3], [1, 2, 1], [0, 1, -1]])\ns = np.array([1, 2, 1])\n"
          "e = np.exp(np.matmul(h, s))\na = e / np.sum(e)\nc = a[0] * h[0] + a[1] * h[1] + a[2] * h[2]\n"
          "print(a)\n```\n\nThe weights: [0.8801, 0.1191, 0.0008]\n")


def test_matrix_vector_scores_give_keys_and_query():
    (ex,) = sa.import_examples(MATVEC, format="markdown", source="snippet")
    ins = {k: [[str(x) for x in r] for r in v] for k, v in ex.data()["inputs"].items()}
    rows = [["1", "2", "3"], ["1", "2", "1"], ["0", "1", "-1"]]
    assert ins == {"Q": [["1", "2", "1"]], "K": rows, "V": rows}
    assert ex.convention["scale"].value == "none"
    assert {(c.step, tuple(c.values)) for c in ex.claims} == {("weights", ("0.8801", "0.1191", "0.0008"))}


# (snippet, whether the nested list is read as an array)
CALLS = [("q = create_tensor([[1, 0], [0, 1]])\n", True), ("ax.plot([[1, 0], [0, 1]], color='r')\n", False),
         ("ax.set_xlim([0, 1])\n", False)]


@pytest.mark.parametrize("code,read", CALLS)
def test_only_argument_call(code, read):
    from symattn.analyses.importer_items import collect
    from symattn.read.pages import read_page
    items = collect(read_page("```python\n" + code + "```\n", "markdown")).items
    assert bool(items) is read


@pytest.mark.parametrize("rows,want", [([["0", "0"], ["-1e9", "0"]], True), ([["0", "-inf"], ["0", "0"]], False),
                                       ([["0", "-5"], ["-1e9", "0"]], False), ([["0", "0"], ["0", "0"]], False)])
def test_additive_mask(rows, want):
    from symattn.analyses.importer import Item, _additive_mask
    assert _additive_mask(Item(rows=rows, where=[], line=0, end=0)) is want


# the solution works the example in LaTeX before the code that gives the inputs: the keys as the
# columns of a matrix (\bpmat …\epmat^\top), the query as a column, then the weights and the context
# as columns; the code's h (keys = values) and s (query) make them one example
SOLUTION = ("## Solution\n\n$$a = \\text{Softmax}\\left( \\begin{pmatrix} 1 & 1 & 0\\\\ 2 & 2 & 1\\\\ 3 & 1 & -1 "
            "\\end{pmatrix}^\\top \\cdot \\begin{pmatrix} 1\\\\ 2\\\\ 1\\end{pmatrix} \\right) \\approx "
            "\\begin{pmatrix} 0.88\\\\ 0.12\\\\ 0.00\\end{pmatrix}$$\n\nThe context vector: "
            "$$c \\approx \\begin{pmatrix} 1.00\\\\ 2.00\\\\ 2.76\\end{pmatrix}$$\n\n"
            "```python\nh = torch.tensor([[1, 2, 3], [1, 2, 1], [0, 1, -1]])\ns = torch.tensor([1, 2, 1])\n"
            "e = torch.exp(torch.matmul(h, s).float())\na = e / torch.sum(e)\n"
            "c = a[0] * h[0] + a[1] * h[1] + a[2] * h[2]\n```\n")


def test_solution_before_code():
    (ex,) = sa.import_examples(SOLUTION, format="markdown", source="snippet")
    got = {(c.step, tuple(c.values)) for c in ex.claims}
    assert got == {("weights", ("0.88", "0.12", "0.00")), ("output", ("1.00", "2.00", "2.76"))}
    echoes = {n.text for n in ex.notes if n.kind == "echo"}
    assert "restates input Q (printed as a column)" in echoes  # (the matrix, named a here, is listed unplaced)
