"""Hostile pages (issue 11, item 7): whatever the text, reading and importing it either
succeeds or raises a SymattnError, in bounded time; drafts of what it imports load back.
Derandomized and bounded."""

import json

from hypothesis import HealthCheck, given, settings, strategies as st

import symattn as sa
from symattn.errors import SymattnError
from symattn.read.pages import read_page

PIECES = st.sampled_from([
    "[", "]", "[[", "]]", ",", " ", "\n", "\t", "0.5", "-1", "1e-3", "1.", "..", "-inf", "nan", "|", "---", "#",
    "Q =", "K =", "V =", "X =", "W_q =", "scores:", "weights", "softmax", "tensor(", "array(", ")", "(", "grad_fn=<",
    "\\begin{bmatrix}", "\\end{bmatrix}", "&", "\\\\", "\\frac{1}{3}", "$$", "```", "<pre>", "</pre>", "<table>",
    "<tr><td>", "</td></tr>", "love", "\"I\"", "=", "×", "*", "Attention(\"a\", \"b\") = 0.2", "α_{12} = 0.3",
    "0.2 + 0.8 = 1", "Parameter containing:", "np.eye(2)", "causal", "√d_k", "\x00", "\u2212", "é",
    "W^K = W^V = I", "\\begin{align}", "\\end{align}", "&amp;", "1. ", "\\;", "\\left(", "\\right)",
    "| Key (K) - a | [1, 0] |", "Q1 Q2 K1 K2", "latte: 0.6×1 + 0.4×0 = 0.6", "Zeilensummen:",
])
PAGE = st.lists(PIECES, max_size=80).map("".join)
FORMAT = st.sampled_from(["markdown", "html", "latex", "text", None])

SETTINGS = settings(max_examples=300, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(PAGE, FORMAT)
def test_any_page_reads_or_says_why(text, fmt):
    try:
        read_page(text, fmt)
    except SymattnError:
        pass


@SETTINGS
@given(PAGE, FORMAT)
def test_any_page_imports_or_says_why(text, fmt):
    from symattn.views.draft import draft

    try:
        exs = sa.import_examples(text, fmt)
    except SymattnError:
        return
    for ex in exs:
        spec = sa.loads(draft(ex, "x.toml"))
        assert spec.inputs.keys() == ex.spec.inputs.keys()


@settings(max_examples=100, derandomize=True, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
                    max_leaves=30))
def test_any_json_as_a_notebook(value):
    try:
        sa.import_examples(json.dumps(value), "notebook")
    except SymattnError:
        pass


@settings(max_examples=60, derandomize=True, deadline=None)
@given(st.lists(st.lists(st.decimals(min_value=-100, max_value=100, places=3, allow_nan=False), min_size=2,
                         max_size=4), min_size=2, max_size=4).filter(lambda m: len({len(r) for r in m}) == 1))
def test_a_printed_matrix_comes_back_exactly_as_printed(m):
    """Any matrix printed as a code literal is read with every entry's text unchanged."""
    rows = [[str(x) for x in r] for r in m]
    page = "Q = " + json.dumps(rows).replace('"', "") + "\n"
    blocks = read_page(page, "text").blocks
    assert blocks[0].rows == rows
