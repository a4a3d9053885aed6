"""Ways of writing numbers met on held-out batch ar (tests/pages/heldout/ar/), as small snippets written
for these tests (not copied from the pages), each with what it must yield. The expected values were read
off the snippets by hand (the printed results of the two-precision run were worked out from the unrounded
numbers the snippet's own run would hold, then cut to six decimals)."""

import pytest

from import_snippets import claims, imported, notebook

from symattn.analyses.importer_model import ClaimRow, Given
from symattn.analyses.importer_printed import fstring_printed, tuple_with_shapes
from symattn.analyses.importer_two_precisions import (code_row_index, coarser_than_results, print_precision_raised,
                                                      printed_decimals)

# --- print(f"caption: {name}") prints name's value ------------------------------------------------------------

FSTRINGS = [
    ('f"Q: {Q}"', "Q"),
    ("f'weights:\\n{attn_w}'", "attn_w"),
    ('f"out = {out!r}"', "out"),
    ('f"{x[0]}"', "x[0]"),
    ('f"score {s:.3f}"', "s"),
    # near misses: no field, several fields, a shape, an expression, not an f-string
    ('f"no field"', None),
    ('f"{a} and {b}"', None),
    ('f"shape {Q.shape}"', None),
    ('f"{a + b}"', None),
    ('"Q: {Q}"', None),
    ('f"{{Q}}"', None),
]


@pytest.mark.parametrize("arg,name", FSTRINGS)
def test_fstring_printed(arg, name):
    assert fstring_printed(arg) == name


# --- a cell ending in a tuple of a shape and a value: the shape prints no block ---------------------------------

TUPLES = [
    ("ctx.shape, ctx", 1, ["ctx"]),
    ("(out.shape, out, w)", 2, ["out", "w"]),
    ("len(xs), xs", 1, ["xs"]),
    ("ctx.shape, ctx", 2, ["", "ctx"]),  # the shape read as a block too: no name for it
    ("ctx.shape, ctx", 3, None),  # three blocks printed: the count does not fit
    ("a, b", 2, None),  # no shape: read elsewhere (tuple_shown)
    ("a.shape, a + b", 1, None),  # an expression is no name
]


@pytest.mark.parametrize("last,count,names", TUPLES)
def test_tuple_with_shapes(last, count, names):
    assert tuple_with_shapes(last, count) == names


# --- the embedding row a one-row query is taken from, by its code index ----------------------------------------

ROWS = [
    ("q_1", ["x_1 = emb[1]", "q_1 = W_q @ x_1"], 1),
    ("q", ["q = W_q.matmul(emb[3])"], 3),
    ("q", ["x = emb[0]", "q = W_q @ x"], 0),
    ("q", ["q = W_q @ (emb[1] + emb[2])"], None),  # two rows: no one row
    ("q", ["x = emb[0]", "k = W_k @ x"], None),  # q never assigned
    ("q", ["x = emb[i]", "q = W_q @ x"], None),  # an index the code computes
]


@pytest.mark.parametrize("name,code,index", ROWS)
def test_code_row_index(name, code, index):
    assert code_row_index(name, code) == index


def test_print_precision_raised():
    assert print_precision_raised(["torch.set_printoptions(precision=2)", "np.set_printoptions(precision=8)"]) == 8
    assert print_precision_raised(["np.set_printoptions(suppress=True)"]) is None
    assert print_precision_raised(["# precision = 9"]) is None


def test_coarser_than_results():
    ins = {"Q": Given([["1.0", "-0.5"]], ["l1"]), "K": Given([["0.3", "2.0"], ["1.1", "0.0"]], ["l2", "l3"])}
    fine = [ClaimRow("weights", "1", ["0.731059", "0.268941"], "l9")]
    rough = [ClaimRow("weights", "1", ["0.73", "0.27"], "l9")]
    assert printed_decimals([["1.0", "-0.25"]]) == 2
    assert coarser_than_results(ins, fine, 9)
    assert not coarser_than_results(ins, fine, None)  # no precision raised in the code
    assert not coarser_than_results(ins, fine, 3)  # raised too little
    assert not coarser_than_results(ins, rough, 9)  # the results are printed as coarse as the inputs


# --- a notebook printing its run at two precisions: Q, K, V are claims, the example has no inputs ---------------

def _two_precision_page(raise_precision=True):
    set_p = "torch.set_printoptions(precision=6)\n" if raise_precision else ""
    return notebook(
        ("words = 'a b c'.split()\nwords", "['a', 'b', 'c']"),
        ("torch.set_printoptions(precision=1)\nW_q = torch.rand(4, 4)\nW_k = torch.rand(4, 4)\n"
         "W_v = torch.rand(2, 4)", None),
        ("x_1 = emb[1]\nquery_1 = W_q @ x_1\nprint(query_1)", "tensor([1.0, 0.0, -1.0, 0.5])"),
        ("keys = (W_k @ emb.T).T\nvalues = (W_v @ emb.T).T\nprint(f'keys: {keys}')\nprint(f'values: {values}')",
         "keys: tensor([[1.0, -0.0, 0.1, 1.0],\n        [-0.5, 1.0, 0.5, 0.0],\n        [1.5, 0.5, -1.0, 0.5]])\n"
         "values: tensor([[0.2, 1.0],\n        [-1.0, 0.4],\n        [0.6, -0.3]])"),
        ("omega_1 = query_1 @ keys.T\nomega_1", "tensor([1.4, -1.0, 2.8])"),
        (f"scaled = omega_1 / 4 ** 0.5\nattn = F.softmax(scaled, dim=0)\n{set_p}print(scaled)\n"
         "print(f'weights: {attn}')",
         "tensor([0.698250, -0.491850, 1.394450])\nweights: tensor([0.302087, 0.091892, 0.606021])"),
        ("context_1 = attn @ values\ncontext_1.shape, context_1", "(torch.Size([2]), tensor([0.325795, 0.160695]))"),
    )


def test_two_precisions_are_claims():
    ex, = imported(_two_precision_page(), "notebook")
    assert ex.inputs == {}
    assert ex.tokens == ["a", "b", "c"]
    got = claims(ex)
    assert ("Q", "b", ("1.0", "0.0", "-1.0", "0.5")) in got  # the query of x_1 = emb[1]: the second word
    assert ("K", "c", ("1.5", "0.5", "-1.0", "0.5")) in got
    assert ("V", "a", ("0.2", "1.0")) in got
    assert ("scaled", "b", ("0.698250", "-0.491850", "1.394450")) in got  # print(scaled): not the caption below
    assert ("weights", "b", ("0.302087", "0.091892", "0.606021")) in got
    assert ("output", "b", ("0.325795", "0.160695")) in got  # context_1.shape, context_1


def test_one_precision_keeps_inputs():
    # near miss: the same page without the precision raised keeps Q, K and V as its (rounded) inputs
    ex, = imported(_two_precision_page(raise_precision=False), "notebook")
    assert set(ex.inputs) == {"Q", "K", "V"}
    assert not any(c.step in ("Q", "K", "V") for c in ex.claims)


# --- an HTML page that computes in its script: the inline script read as code --------------------------------------

def _script_page(script, extra=""):
    return ("<html><head><script src='https://cdn.example/lib.js'></script></head><body>\n"
            "<h1>Self-attention demo</h1>\n<p>Press the button to see the attention table.</p>\n"
            f"{extra}<table id='out'></table>\n<script type=\"module\">\n{script}\n</script>\n</body></html>")


_LOOKUP_JS = """const vocab = {
    "red":   [1.0, 0.0],   // colour
    "green": [0.0, 1.0],
    "tea":   [0.5, 0.5],
    "leaf":  [0.2, 0.8]
};
const sentences = {
    1: ["red", "tea"],
    2: ["green", "leaf", "tea"]
};
const WQ = [[1, 0], [0, 1]];
const WK = [[2, 0], [0, 1]];
const WV = [[1, 1], [0, 1]];
function run(id) {
    const X = sentences[id].map(w => vocab[w]);
    const Q = matMul(X, WQ), K = matMul(X, WK), V = matMul(X, WV);
    let scores = matMul(Q, transpose(K));
    const temp = 0.5;
    scores = scores.map(r => r.map(x => x / temp));
    show(softmax(scores));
}"""


def test_script_lookup_table_and_sentences():
    exs = imported(_script_page(_LOOKUP_JS), "html")
    assert [ex.tokens for ex in exs] == [["red", "tea"], ["green", "leaf", "tea"]]
    one, two = exs
    assert one.inputs["X"].rows == [["1.0", "0.0"], ["0.5", "0.5"]]
    assert two.inputs["X"].rows == [["0.0", "1.0"], ["0.2", "0.8"], ["0.5", "0.5"]]
    assert two.inputs["Wk"].rows == [["2", "0"], ["0", "1"]]
    assert one.spec.convention.scale_text == "1/0.5"  # x / temp, temp = 0.5


def test_script_without_sentences_is_one_table():
    # near miss: no word lists index the table: one example with every word of it
    js = _LOOKUP_JS.replace('    1: ["red", "tea"],\n    2: ["green", "leaf", "tea"]\n', "")
    ex, = imported(_script_page(js), "html")
    assert ex.tokens == ["red", "green", "tea", "leaf"]


def test_script_not_read_when_the_text_gives_the_example():
    # near miss: the page's own text gives X and the weights: its script (other numbers) is not read
    text = ("<p>X = [[1, 2], [3, 4]]</p>\n<p>W_Q = [[1, 0], [0, 1]]</p>\n<p>W_K = [[1, 0], [0, 1]]</p>\n"
            "<p>W_V = [[1, 0], [0, 1]]</p>\n<p>Scores = [[5, 11], [11, 25]]</p>\n")
    exs = imported(_script_page(_LOOKUP_JS, text), "html")
    assert [ex.inputs["X"].rows for ex in exs] == [[["1", "2"], ["3", "4"]]]


def test_script_src_and_importmap_are_not_code():
    from symattn.read.pages.scripts import script_lines
    page = ('<script src="a.js">var W = [[1, 2]];</script>\n<script type="importmap">{"imports": {"x": [1, 2]}}'
            '</script>\n<script>\nvar K = [[3, 4]];\n</script>')
    assert [(ln.text, ln.where.line) for ln in script_lines(page)] == [("var K = [[3, 4]];", 4)]


def test_script_refused_page_still_refused():
    import symattn as sa
    from symattn.errors import SymattnError
    with pytest.raises(SymattnError, match="no worked example"):
        sa.import_examples(_script_page("const colours = ['red', 'green'];\nconsole.log(colours);"), format="html",
                           source="snippet")


# --- a scale written as a number ----------------------------------------------------------------------------------

def _lines(*texts):
    from symattn.read.pages.model import Line, Where
    return [Line(t, Where(k + 1), "code") for k, t in enumerate(texts)]


CONSTANT_SCALES = [
    (("const sharp = 0.6;", "scores = scores.map(r => r.map(x => x / sharp));"), "1/0.6"),
    (("logits = q @ k.T / 8",), "1/8"),
    (("temperature = 2.5", "attn_scores = attn_scores / temperature"), "1/2.5"),
    (("scores = scores * 0.125",), "0.125"),
    # near misses: a square root, a name that is no plain number, no scores on the line, a division by 1
    (("scores = q @ k.T / math.sqrt(8)",), None),
    (("d = x.shape[-1]", "scores = q @ k.T / d"), None),
    (("mean = total / 4",), None),
    (("scores = scores / 1",), None),
]


@pytest.mark.parametrize("code,value", CONSTANT_SCALES)
def test_constant_scale(code, value):
    from symattn.analyses.importer_constant_scale import constant_scale
    got = constant_scale(_lines(*code))
    assert (got[0] if got is not None else None) == value


# --- a matrix whose rows hang below its first, indented (rows commented, or several matrices side by side) --------

_HANGING = """## Worked example

```
Q = [1, 0]    # "sun"
    [0, 2]    # "rain"

K = [1, 1]    # "sun"
    [0, 1]    # "rain"

V = [4, 2]    # "sun"
    [2, 6]    # "rain"
```

scores = [[1, 0], [2, 2]]
"""


def test_hanging_rows_with_comments():
    ex, = imported(_HANGING)
    assert ex.tokens == ["sun", "rain"]
    assert ex.inputs["Q"].rows == [["1", "0"], ["0", "2"]]
    assert ex.inputs["V"].rows == [["4", "2"], ["2", "6"]]
    assert ("scores", "rain", ("2", "2")) in claims(ex)  # [0, 2]·[1, 1] = 2 and [0, 2]·[0, 1] = 2


_SIDE = """## Exercise

```
Q = [1, 0], K = [2, 0], V = [1, 3]
    [0, 1]      [0, 2]      [5, 7]
```

scores = [[2, 0], [0, 2]]
"""


def test_hanging_rows_side_by_side():
    ex, = imported(_SIDE)
    assert ex.inputs["K"].rows == [["2", "0"], ["0", "2"]]
    assert ex.inputs["V"].rows == [["1", "3"], ["5", "7"]]
    assert ("scores", "2", ("0", "2")) in claims(ex)


def test_hanging_rows_near_misses():
    from symattn.read.pages.hanging_rows import join_hanging_rows
    from symattn.read.pages.model import Line, Where

    def rewrite(*texts):
        return [ln.text for ln in join_hanging_rows([Line(t, Where(k + 1), "code") for k, t in enumerate(texts)])]

    lone = ("M = [1, 0, 0]", "    [1, 1, 0]")  # a lone matrix with bare rows: left as printed
    assert rewrite(*lone) == list(lone)
    ragged = ("Q = [1, 0], K = [2, 0]", "    [0, 1]      [0, 2, 3]")  # a row of another width: left as printed
    assert rewrite(*ragged) == list(ragged)
    flush = ("Q = [1, 0]  # a", "[0, 1]  # b")  # not indented: no hanging row
    assert rewrite(*flush) == list(flush)
    assert rewrite("Q = [1, 0]  # a", "    [0, 1]  # b") == ["Q = [[1, 0],    # a", "     [0, 1]]    # b"]


# --- '≈ [...]' on the line under 'NAME = a·[…] + b·[…]': the chain's rounded end, named by its first line ---------

_APPROX = """## By hand

```
X = [[1, 0], [0, 1]]
```

scores = [[1, 0], [0, 1]]

weights = [[0.73, 0.27], [0.27, 0.73]]

```
output = 0.73[1,0] + 0.27[0,1]
       ≈ [0.73, 0.27]
```
"""


def test_approx_chain_end():
    ex, = imported(_APPROX)
    assert ("output", "1", ("0.73", "0.27")) in claims(ex)


def test_approx_without_chain_head_is_not_named():
    # near miss: '≈ [...]' under a line that names nothing ('Some text.') is no output
    from symattn.analyses.importer_items import continued_chain_head
    assert continued_chain_head(["Some text.", "≈ [1, 2]"], 1, "prose", ["prose"] * 2) == ""
    assert continued_chain_head(["out = 0.5[1, 2] + 0.5[3, 4]", "    ≈ [2, 3]"], 1, "code", ["code"] * 2) == "out"


def test_script_scan_is_bounded():
    # hostile input: many openers with no closing tag, and many small scripts: one pass each
    from symattn.read.pages.scripts import script_lines
    assert script_lines("<script>" * 50000) == []
    got = script_lines("<script>var a = [1];</script>\n" * 20000)
    assert len(got) == 20000 and got[-1].where.line == 20000
