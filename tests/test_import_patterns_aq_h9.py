"""Ways of writing met on held-out batch aq (tests/pages/heldout/aq/), as small snippets written for
these tests. Each expected value was read off the snippet by hand."""

from types import SimpleNamespace as L

import pytest

import symattn as sa

from import_snippets import imported

from symattn.analyses.importer_code_names import fits_twice, latest_step
from symattn.read.pages.banners import banner_line
from symattn.read.pages.formats import looks_like_output

# --- a literal the code multiplies by its projection weights is the embeddings, whatever its name ------------

PAGE = """## Demo

```python
import numpy as np
{name} = np.array([[1.0, 0.0], [0.0, 2.0]])
W_q = np.array([[1.0, 0.0], [0.0, 1.0]])
W_k = np.array([[1.0, 0.0], [0.0, 1.0]])
W_v = np.array([[2.0, 0.0], [0.0, 1.0]])
{proj}
scores = Q @ K.T
print(scores)
```

```text
[[1. 0.]
 [0. 4.]]
```
"""


@pytest.mark.parametrize("proj", ["Q, K, V = Z @ W_q, Z @ W_k, Z @ W_v",
                                  "Q = np.matmul(Z, W_q)\nK = Z.dot(W_k)\nV = Z @ W_v"])
def test_literal_projected_is_x(proj):
    (ex,) = imported(PAGE.format(name="Z", proj=proj))
    assert ex.spec.inputs["X"] == [[1, 0], [0, 2]]
    assert ex.spec.inputs["Wv"] == [[2, 0], [0, 1]]
    # scores = (Z·W_q)(Z·W_k)ᵀ = Z Zᵀ = [[1, 0], [0, 4]], placed as printed
    assert ex.spec.claims["scores"] == {"1": ["1.", "0."], "2": ["0.", "4."]}


def test_literal_not_projected_stays_unread():
    # Z is never multiplied by a weight (Q, K, V come from another name): Z is no input
    page = PAGE.format(name="Z", proj="Q, K, V = E @ W_q, E @ W_k, E @ W_v")
    try:
        exs = imported(page)
    except Exception:
        exs = []
    assert all("X" not in ex.spec.inputs for ex in exs)


def test_literal_of_other_width_stays_unread():
    page = PAGE.format(name="Z", proj="Q, K, V = Z @ W_q, Z @ W_k, Z @ W_v").replace(
        "Z = np.array([[1.0, 0.0], [0.0, 2.0]])", "Z = np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 1.0]])")
    try:
        exs = imported(page)
    except Exception:
        exs = []
    assert all("X" not in ex.spec.inputs for ex in exs)


# --- a banner printed above the results keeps a block of printouts output --------------------------------------

BANNERS = [
    ("=== Causal Attention Check ===", True), ("----- Results -----", True), ("*** Step 2 ***", True),
    ("## Weights ##", True),
    ("=== x = 1 ===", False), ("== a ===", False), ("=====", False), ("x === y", False), ("=== [1, 2] ===", False),
]


@pytest.mark.parametrize("text,ok", BANNERS)
def test_banner_line(text, ok):
    assert banner_line(text) is ok


def test_banner_keeps_printout_output():
    block = ["=== Check ===", "", "A1 (Head 1 weights):", " tensor([[1.000, 0.000],", "         [0.500, 0.500]])"]
    assert looks_like_output(block)
    assert not looks_like_output(["=== Check ===", "A1 = torch.softmax(S, dim=-1)"])


# --- a variable assigned again: the print shows its latest value ----------------------------------------------

def _code(*texts):
    return [L(role="code", text=t) for t in texts]


def test_latest_assignment_masked():
    code = _code("s = q @ k.T", "print('s', s)", "s = s.masked_fill(m == 0, float('-inf'))", "print('s', s)",
                 "s = torch.softmax(s, dim=-1)", "print(s)")
    assert latest_step(code, "s", 1) is None  # only the product above: the name decides
    assert latest_step(code, "s", 3) == "masked"
    assert latest_step(code, "s", 5) is None  # the softmax came later: no longer the masked scores
    assert latest_step(_code("t = s + mask", "print(t)"), "t", 1) == "masked"
    assert latest_step(_code("t = s + masks_total", "print(t)"), "t", 1) == "masked"
    assert latest_step(_code("t = s + bias", "print(t)"), "t", 1) is None  # no mask named
    assert latest_step(_code("s == s.masked_fill(m, 0)", "print(s)"), "s", 1) is None  # a comparison


# --- a block two steps explain is the example's own, not its mask twin's -------------------------------------

def _placer(matches):
    return L(steps=list(matches) + ["weighted"], _fit=lambda it, s: [] if matches.get(s) is not None else None,
             match=lambda s, f: matches[s])


def test_fits_twice():
    assert fits_twice(_placer({"V": 1.0, "output": 1.0, "scores": 0.0}), None)
    assert not fits_twice(_placer({"V": 1.0, "output": 0.4}), None)
    assert not fits_twice(_placer({"V": 1.0}), None)


# --- a script whose printed results are `#` comments: the reassigned scores print masked ---------------------

SCRIPT = """import torch
q = k = v = torch.tensor([[1., 0.], [0., 2.]])
scores = q @ k.transpose(-2, -1)
print('scores', scores)
# tensor([[1., 0.],
#         [0., 4.]])
mask = torch.tensor([[True, False], [True, True]])
scores = scores.masked_fill(mask == 0, float('-inf'))
print('scores', scores)
# tensor([[1., -inf],
#         [0., 4.]])
"""


def test_reassigned_scores_print_masked():
    (ex,) = sa.import_examples(SCRIPT, source="snippet.py")
    assert ex.spec.claims["scores"] == {"1": ["1.", "0."], "2": ["0.", "4."]}
    assert ex.spec.claims["masked"] == {"1": ["1.", "-inf"], "2": ["0.", "4."]}


def test_scores_printed_before_reassignment_stay_scores():
    # the masked fill comes after the print: the printout is the plain scores, not masked
    script = SCRIPT.replace("scores = scores.masked_fill(mask == 0, float('-inf'))\nprint('scores', scores)",
                            "print('scores', scores)\nscores = scores.masked_fill(mask == 0, float('-inf'))")
    exs = sa.import_examples(script, source="snippet.py")
    assert all("masked" not in ex.spec.claims for ex in exs)


# --- NaN rows of a query masked whole are not printed numbers ----------------------------------------------

def _ex(rows):
    return L(claims=[L(step=s, row=r, values=list(v)) for s, r, v in rows])


def test_nan_rows_elided():
    from symattn.analyses.importer_code_names import nan_rows_elided
    ex = _ex([("masked", "c", ["-inf", "-inf"]), ("weights", "c", ["nan", "nan"]), ("output", "c", ["nan", "nan"]),
              ("head1.masked", "a", ["-inf", "-inf"]), ("head1.weights", "a", ["nan", "nan"]),
              ("weights", "a", ["nan", "nan"])])  # a's plain row is not masked whole: kept
    nan_rows_elided(ex)
    assert [c.values for c in ex.claims] == [["-inf", "-inf"], ["..", ".."], ["..", ".."], ["-inf", "-inf"],
                                             ["..", ".."], ["nan", "nan"]]
    mixed = _ex([("masked", "c", ["-inf", "-inf"]), ("weights", "c", ["nan", "0.5"])])
    nan_rows_elided(mixed)
    assert mixed.claims[1].values == ["nan", "0.5"]  # some number printed: left as it is


# --- an encoder's output named in short (Enc_output) is what the decoder attends to: keys and values ---------

ENC_NAMES = [("Enc_output", "KV"), ("enc_outputs", "KV"), ("Enc_output_2", "KV"),
             ("output", "output"), ("dec_output", None), ("enc", None)]


@pytest.mark.parametrize("name,step", ENC_NAMES)
def test_encoder_output_names(name, step):
    from symattn.analyses.importer_names import step_of_ident
    assert step_of_ident(name) == step


def test_encoder_output_assigned_again_is_keys_and_values():
    page = """# Toy

```
Enc_output = [[0.2, 0.4], [0.5, 0.7]]
```

Suppose the encoder gave these vectors:

```
Enc_output = [
  [1.0, 0.0],
  [0.0, 1.0]
]
```

- The query is [2.0, 0.0].

Softmax scores ≈ [0.88, 0.12]
"""
    (ex,) = imported(page)
    # the later Enc_output wins: K = V = [[1, 0], [0, 1]], the query [2, 0]
    assert ex.spec.inputs["K"] == [[1, 0], [0, 1]] and ex.spec.inputs["V"] == [[1, 0], [0, 1]]
    assert ex.spec.inputs["Q"] == [[2, 0]]


# --- a chain of equal vectors, one per line, each continuation starting with '=' ---------------------------

CHAIN = """# Toy

K = V = [[1.0, 0.0], [0.0, 1.0]], and the query is Q = [[2.0, 1.0]].

```
Scores = [2.0*1.0 + 1.0*0.0, 2.0*0.0 + 1.0*1.0]
       = [2.0 + 0.0, 0.0 + 1.0]
       = [2.0, 1.0]
```
"""


def test_equal_chain_result_is_named_by_its_head():
    from symattn.analyses.importer_equal_chain import split_equal_chains
    from symattn.analyses.importer_model import Item
    from symattn.read.pages.model import Line, Where
    lines = [Line(t, Where(k), "code") for k, t in enumerate(CHAIN.split("\n")[5:8])]
    it = Item(rows=[["2.0 + 0.0", "0.0 + 1.0"], ["2.0", "1.0"]], where=[Where(1), Where(2)], line=1, end=2,
              step="weights", strength=2)
    a, b = split_equal_chains([it], lines)
    assert (a.rows, a.operand, b.rows, b.step, b.line) == ([["2.0 + 0.0", "0.0 + 1.0"]], True, [["2.0", "1.0"]],
                                                           "scores", 2)


NOT_CHAINS = [
    # rows of a matrix, not a chain: the second line does not start with '='
    ["M = [[1.0, 2.0],", "     [3.0, 4.0]]"],
    # both rows plain numbers: a matrix written '= [..]' twice is left as it is
    ["Scores =", "  = [1.0, 2.0]", "  = [3.0, 4.0]"],
    # a head naming no step
    ["Foo = [1.0*1.0, 2.0]", "    = [1.0 + 0.0, 2.0 + 0.0]", "    = [1.0, 2.0]"],
]


@pytest.mark.parametrize("texts", NOT_CHAINS)
def test_not_an_equal_chain(texts):
    from symattn.analyses.importer_equal_chain import split_equal_chains
    from symattn.analyses.importer_model import Item
    from symattn.read.pages.model import Line, Where
    lines = [Line(t, Where(k), "code") for k, t in enumerate(texts)]
    first = len(texts) - 2
    rows = [["1.0", "2.0"], ["3.0", "4.0"]] if texts[0] != "Foo = [1.0*1.0, 2.0]" else \
        [["1.0 + 0.0", "2.0 + 0.0"], ["1.0", "2.0"]]
    it = Item(rows=rows, where=[Where(first), Where(first + 1)], line=first, end=first + 1)
    assert split_equal_chains([it], lines) == [it]


def test_output_chain_sums_are_weighted_terms():
    from symattn.analyses.importer_equal_chain import split_equal_chains
    from symattn.analyses.importer_model import Item
    from symattn.read.pages.model import Line, Where
    texts = ["Output = 0.5*[1.0,0.0] + 0.5*[0.0,1.0]", "       = [0.5 + 0.0, 0.0 + 0.5]", "       = [0.5, 0.5]"]
    lines = [Line(t, Where(k), "code") for k, t in enumerate(texts)]
    it = Item(rows=[["0.5 + 0.0", "0.0 + 0.5"], ["0.5", "0.5"]], where=[Where(1), Where(2)], line=1, end=2)
    a, b = split_equal_chains([it], lines)
    # key 1's term in each component, then key 2's: p_1·v_1 = [0.5, 0.0], p_2·v_2 = [0.0, 0.5]
    assert (a.kind, a.rows) == ("vsum", [["0.5", "0.0"], ["0.0", "0.5"]])
    assert (b.step, b.rows) == ("output", [["0.5", "0.5"]])
    # sums of unequal length: no term position is one key's, left as the chain's working
    it2 = Item(rows=[["0.5 + 0.0", "0.5"], ["0.5", "0.5"]], where=[Where(1), Where(2)], line=1, end=2)
    lines2 = [Line(t, Where(k), "code") for k, t in enumerate(
        ["Output = 0.5*[1.0,0.0] + 0.5*[0.0,1.0]", "       = [0.5 + 0.0, 0.5]", "       = [0.5, 0.5]"])]
    out = split_equal_chains([it2], lines2)
    assert out == [it2]  # the first row is not all sums: not read as a chain
