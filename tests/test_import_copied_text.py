"""Ways of writing numbers met on held-out batches g and i (text copied from web pages and
flip-books), as tables of (snippet, what it must yield). Each expected value was read off the
snippet by hand."""

import pytest

import symattn as sa
from symattn.analyses.importer_items import formula_before


def imported(page, fmt="text"):
    return sa.import_examples(page, format=fmt, source="snippet")


def inputs(ex):
    return {k: g.rows for k, g in ex.inputs.items()}


def claims(ex, group=None):
    return {(c.step, c.row, tuple(c.values)) for c in ex.claims if c.group == group}


I2 = [["1", "0"], ["0", "1"]]
QKV = "Q = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]\n"

# (text before a block, the step its formula names)
BEFORE = [
    ("]]Explanation: 1. Compute scores: Q @ K.T / sqrt(2) = ", "scaled"),  # a label glued to the previous block
    ("Scores: Q @ K.T = ", None),  # a bare product: its label names it
    ("Scaled = QK^T / 2 = ", "scaled"),
    ("scaled = Q @ K.T / np.sqrt(2) = ", "scaled"),
    ("Compute scores = ", None),  # a label, not a formula
    ("x = y / sqrt(2) = ", None),  # no Q and K
    ("Q @ K.T / sqrt(2) is ", None),  # no '=' before the block
    ("Q K^T / √d_k = ", "scaled"),
    ("softmax(Q @ K.T / sqrt(2)) = ", None),  # the weights: not read from a formula here
    ("(Q @ K.T / sqrt(2)) @ V = ", None),  # the output, not the scaled scores
    ("Q @ K.T / sqrt(2) + M = ", None),  # masked: not read here
    ("S = (Q @ K.T) / np.sqrt(d_k) = ", "scaled"),
    ("Q @ K.T / d_k ** 0.5 = ", "scaled"),
    ("2 * Q @ K.T / sqrt(2) = ", None),
]


@pytest.mark.parametrize("before,step", BEFORE)
def test_formula_before_a_block(before, step):
    assert formula_before(before) == step


# (page, inputs, claims of the first printing)
PAGES = [
    # labels glued to the previous text on one line; the explanation's formula names the scaled scores
    # although its label says "scores"
    (QKV + "output = self_attention(Q, K, V)Output:\n[[1.66, 2.66], [2.34, 3.34]]Explanation: 1. Compute scores: "
     "Q @ K.T / sqrt(2) = [[0.707, 0], [0, 0.707]]\n2. Apply softmax row-wise: [[0.66, 0.34], [0.34, 0.66]]\n",
     {"Q": I2, "K": I2, "V": [["1", "2"], ["3", "4"]]},
     {("output", "1", ("1.66", "2.66")), ("output", "2", ("2.34", "3.34")), ("scaled", "1", ("0.707", "0")),
      ("scaled", "2", ("0", "0.707")), ("weights", "1", ("0.66", "0.34")), ("weights", "2", ("0.34", "0.66"))}),
    # the same with / np.sqrt(d_k) in the formula, under a label that names other things
    (QKV + "Raw attention scores, step 2: Q @ K.T / np.sqrt(d_k) = [[0.707, 0], [0, 0.707]]\n",
     {"Q": I2, "K": I2, "V": [["1", "2"], ["3", "4"]]},
     {("scaled", "1", ("0.707", "0")), ("scaled", "2", ("0", "0.707"))}),
]


@pytest.mark.parametrize("page,want_inputs,want_claims", PAGES)
def test_page_snippets(page, want_inputs, want_claims):
    exs = imported(page)
    assert len(exs) == 1
    assert inputs(exs[0]) == want_inputs
    assert claims(exs[0]) == want_claims


def test_one_word_lines_far_below_the_example_are_not_its_tokens():
    # a code editor's footer ("pass", "Python3") under starter code, long after the numbers
    page = QKV + "Weights: [[0.66, 0.34], [0.34, 0.66]]\n" + "Starter Code\nimport numpy as np\n" + "#\n" * 14 + \
        "pass\nPython3\n"
    ex = imported(page)[0]
    assert ex.spec.tokens != ["pass", "Python3"]
    assert claims(ex) == {("weights", "1", ("0.66", "0.34")), ("weights", "2", ("0.34", "0.66"))}


# ---------------------------------------------------------------------------------------
# ASCII matrices side by side, projections written per token, box-drawing tables

from symattn.analyses.importer_items import projection_names, projection_part, triple_names  # noqa: E402
from symattn.read.pages import read_page  # noqa: E402
from symattn.read.pages.model import Line, Numbers, Table, Where  # noqa: E402

# (text, [(text before the block, rows)] of the Numbers blocks found)
BARS = [
    # three matrices side by side, each named on its first row
    ("Wk = | 1 0 0 |   Wv = | 0 0 1 |\n     | 0 1 0 |        | 1 0 0 |\n",
     [("Wk = ", [["1", "0", "0"], ["0", "1", "0"]]), ("Wv = ", [["0", "0", "1"], ["1", "0", "0"]])]),
    # named on a middle row
    ("      | 0.5 1 |\nW_q = | 2 -3 |\n      | 4 5.5 |\n", [("W_q = ", [["0.5", "1"], ["2", "-3"], ["4", "5.5"]])]),
    # named by words on the line above, right over each matrix
    ("   Wq         Wk\n| 1 0 |    | 0 1 |\n| 0 1 |    | 1 0 |\n",
     [("Wq = ", [["1", "0"], ["0", "1"]]), ("Wk = ", [["0", "1"], ["1", "0"]])]),
    # bars not in the same columns: not one matrix
    ("W = | 1 0 |\n  | 0 1 |\n", []),
    # a single line of bars is not a matrix
    ("W = | 1 0 |   V = | 0 1 |\n", []),
    # a pipe table of numbers is not read as bars
    ("| 1 | 2 |\n| 3 | 4 |\n", []),
    # words inside the bars: not numbers
    ("| a b |\n| c d |\n", []),
    # tall brackets copied from rendered math
    ("      ⎡ 1 0 ⎤\nW_k = ⎢ 0 2 ⎥\n      ⎣ 3 0 ⎦\n", [("W_k = ", [["1", "0"], ["0", "2"], ["3", "0"]])]),
    ("⎛ 0.5 1 ⎞\n⎝ 2 0.25 ⎠\n", [("", [["0.5", "1"], ["2", "0.25"]])]),  # the opening bars line up
    ("⎛ 0.5 1 ⎞\n ⎝ 2 0.25 ⎠\n", []),  # they do not
]


@pytest.mark.parametrize("text,want", BARS)
def test_matrices_drawn_with_bars(text, want):
    got = [(b.before, b.rows) for b in read_page(text, "text").blocks if isinstance(b, Numbers)]
    assert got == want


# (box-drawing table, header, rows)
BOXES = [
    ("┌──────┬────────────┐\n│ Tok  │ Key        │\n├──────┼────────────┤\n│ a    │ [1, 2]     │\n"
     "│ b    │ [3, 4]     │\n└──────┴────────────┘\n", ["Tok", "Key"], [["a", "[1, 2]"], ["b", "[3, 4]"]]),
    ("╔═══╦═══╗\n║ x ║ y ║\n╠═══╬═══╣\n║ 1 ║ 2 ║\n╚═══╩═══╝\n", ["x", "y"], [["1", "2"]]),
    ("+-----+--------+\n| Tok | Key    |\n+=====+========+\n| a   | [1, 2] |\n+-----+--------+\n", ["Tok", "Key"],
     [["a", "[1, 2]"]]),
]


@pytest.mark.parametrize("text,header,rows", BOXES)
def test_box_drawing_tables(text, header, rows):
    tables = [b for b in read_page(text, "text").blocks if isinstance(b, Table)]
    assert [(t.header, t.rows) for t in tables] == [(header, rows)]


# (text before a vector on its line, (step, left-hand side) or None)
PROJECTIONS = [
    ('Key("The") = Wk × ', ("X", 'Key("The")')),
    ('Key("The") = Wk × [0.5, 0.3, 0.1, 0.9] = ', ("K", 'Key("The")')),
    ('Worth("cat") = Wv × [1.0, 0.1] = ', ("V", 'Worth("cat")')),  # the weight's letter names it
    ("q_1 = W_Q · [1, 0] = ", ("Q", "q_1")),
    (r"k = W^K \times ", ("X", "k")),
    ("y = W × [1, 2] = ", None),  # a weight that names no projection
    ("Q = X × ", None),
    ("Key = Wk × [1, 0] + [0, 1] = ", None),  # not a product of the weight and one vector
]


@pytest.mark.parametrize("before,want", PROJECTIONS)
def test_projection_written_per_token(before, want):
    assert projection_part(before) == want


# (definition lines, the names they define)
DEFINITIONS = [
    (["Question = Wq × embedding → what am I looking for?", "Worth = Wv × embedding"], {"Question": "Q", "Worth": "V"}),
    (["Okay = W_k · x"], {"Okay": "K"}),
    (["Scores = Wk × x"], {}),  # a name that names another step
    (["Foo = Wk × x", "Foo = Wv × x"], {}),  # defined twice differently
    (["Worth = Wv × 2"], {}),  # not a projection of the input
]


@pytest.mark.parametrize("texts,want", DEFINITIONS)
def test_names_defined_as_projections(texts, want):
    assert projection_names([Line(t, Where(k + 1)) for k, t in enumerate(texts)]) == want


# (lines, the names a Q, K, V triple gives)
TRIPLES = [
    (["Step 3 — Three Projections: Q, Okay, V"], {"Okay": "K"}),
    (["the Question, K and V matrices"], {"Question": "Q"}),
    (["Q, K, and Worth"], {"Worth": "V"}),
    (["Q, K, V"], {}),
    (["Q, Values, V"], {}),  # a word that names a step is never renamed
    (["Q, Okay, V", "Okay, K, V"], {}),  # used two ways
    (["We have Q, So, V and so on"], {"So": "K"}),  # the triple decides, whatever the word
    (["X.Q, Okay, V"], {}),  # an attribute, not the triple
]


@pytest.mark.parametrize("texts,want", TRIPLES)
def test_names_a_q_k_v_triple_gives(texts, want):
    assert triple_names([Line(t, Where(k + 1)) for k, t in enumerate(texts)]) == want


KV_PAGE = (
    "Key = Wk × embedding\nWorth = Wv × embedding\n\n"
    "Wk = | 1 0 0 |   Wv = | 0 0 1 |   Wq = | 0 1 0 |\n     | 0 1 0 |        | 1 0 0 |        | 0 0 1 |\n\n"
    'Key("a") = Wk × [0.1, 0.2, 0.3] = [0.1, 0.2]\nKey("b") = Wk × [0.4, 0.5, 0.6] = [0.4, 0.5]\n\n'
    'Worth("a") = Wv × [0.1, 0.2, 0.3] = [0.3, 0.1]\nWorth("b") = Wv × [0.4, 0.5, 0.6] = [0.6, 0.4]\n\n'
    "┌─────┬────────────┬────────────┐\n│ Tok │ Key        │ Worth      │\n├─────┼────────────┼────────────┤\n"
    '│ "a" │ [0.1, 0.2] │ [0.3, 0.1] │\n│ "b" │ [0.4, 0.5] │ [0.6, 0.4] │\n└─────┴────────────┴────────────┘\n')


def test_a_kv_cache_page_written_per_token_with_side_by_side_weights():
    ex = imported(KV_PAGE)[0]
    assert inputs(ex) == {"X": [["0.1", "0.2", "0.3"], ["0.4", "0.5", "0.6"]], "Wk": [["1", "0", "0"], ["0", "1", "0"]],
                          "Wv": [["0", "0", "1"], ["1", "0", "0"]], "Wq": [["0", "1", "0"], ["0", "0", "1"]]}
    assert ex.spec.tokens == ["a", "b"]
    assert claims(ex) == {("K", "a", ("0.1", "0.2")), ("K", "b", ("0.4", "0.5")), ("V", "a", ("0.3", "0.1")),
                          ("V", "b", ("0.6", "0.4"))}
    assert not ex.unplaced


def test_a_table_column_is_not_named_by_the_column_beside_it():
    # "Other" names no step and its numbers are no step's: listed as not placed, never placed as K
    page = KV_PAGE.replace("Worth      │", "Other      │").replace("[0.3, 0.1] │\n", "[0.9, 0.9] │\n").replace("[0.6, 0.4] │\n", "[0.8, 0.8] │\n")
    ex = imported(page)[0]
    assert all(c.step != "K" or c.values in (["0.1", "0.2"], ["0.4", "0.5"]) for c in ex.claims)
    assert any("0.9" in n.text for n in ex.unplaced)


# ---------------------------------------------------------------------------------------
# code glued to the text around it (a flip-book's text, line breaks lost)

from symattn.analyses.importer_glued import glued_name, printout_step  # noqa: E402

# (text before a block, the name the glued statement assigns)
GLUED_NAMES = [
    ("so we can draw them as arrows:q = ", "q"),
    ("torch.tensor([.55, .95]).view(1, 1, 2) # N, 1, Hk = ", "k"),  # "# N, 1, H" then "k = "
    ("# N, 1, H x N, H, L -> N, 1, Lprod = ", "prod"),
    ("the query = ", None),  # prose with spaces: no glued statement
    ("Example: Q = ", None),
    ("# N, 1, H = ", None),
]


@pytest.mark.parametrize("before,name", GLUED_NAMES)
def test_glued_statement_names(before, name):
    assert glued_name(before) == name


# (code before a glued "Output", what it prints: (step, name or expression, why not) or None)
PRINTOUTS = [
    ("prod = torch.bmm(q, k.permute(0, 2, 1))prodAttention | 718\nOutput", ("scores", "prod", "")),
    ("p = torch.bmm(q, k.transpose(1, 2))pOutputtensor([[1.0]])\nw = F.softmax(p, dim=-1)wOutput",
     ("weights", "w", "")),
    # a name assigned from softmax(…) holds the weights, whatever it is called
    ("prod = q @ k.T\nscores = F.softmax(prod, dim=-1)scoresOutput", ("weights", "scores", "")),
    ("w = F.softmax(q @ k.T, dim=-1)\ncontext = torch.bmm(w, v)contextOutput", None),  # w: a softmax of what?
    ("prod = q @ k.T\nw = F.softmax(prod, dim=-1)\ncontext = torch.bmm(w, v)contextOutput", ("output", "context", "")),
    ("scores = F.softmax(prod, dim=-1)scoresOutput", None),  # prod is not known
    ("x = torch.tensor([4.0, 1.0])(F.softmax(x, dim=-1),F.softmax(100*x, dim=-1))Output(",
     (None, "(F.softmax(x, dim=-1),F.softmax(100*x, dim=-1))", "a softmax of x, a tensor the page makes up beside the example")),
    ("scores = torch.tensor([[1.0, 2.0]])F.softmax(scores, dim=-1)Output", ("weights", "F.softmax(scores, dim=-1)", "")),
    ("s = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(2)\nsOutput", ("scaled", "s", "")),  # echoed on its own line
    ("s = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(2)s\nOutput", ("scaled", "s", "")),
    ("s = torch.bmm(q, k.transpose(1, 2)) / 8s\nOutput", None),  # '8s' is not an echo after ')'
    ("s = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(2) * 3s\nOutput", None),
    ("s = torch.bmm(q, k.transpose(1, 2)) + masks\nOutput", None),  # masked: not read here
    ("s = q @ k.T\nw = F.softmax(s / 2, dim=-1)wOutput", ("weights", "w", "")),  # a softmax of scaled scores
    ("print(x)Output", None),
    ("prod = q @ k.T\nprint(F.softmax(prod, dim=-1) @ v)Output", None),  # the output, not the softmax
    ("prod = q @ k.T\nF.softmax(prod, dim=-1)Output", ("weights", "F.softmax(prod, dim=-1)", "")),
    ("prod = q @ k.T\nprod", None),  # no Output
]


@pytest.mark.parametrize("code,want", PRINTOUTS)
def test_what_a_glued_printout_prints(code, want):
    assert printout_step(code) == want


FLIPBOOK = (
    "Make up a query and two keys:q = torch.tensor([1.0, 1.0]).view(1, 1, 2) # N, 1, Hk = torch.tensor([[1.0, 0.0],"
    "[0.0, 2.0]]).view(1, 2, 2) # N, L, HThe keys, transposed:prod = torch.bmm(q, k.permute(0, 2, 1))prodPage | 12\n"
    "\n"
    "Outputtensor([[[1.0000, 2.0000]]])The softmax gives the scores:scores = F.softmax(prod, dim=-1)scoresOutput"
    "tensor([[[0.2689, 0.7311]]])and the context vector:then the context vectorv = kcontext = torch.bmm(scores, v)"
    "contextOutputtensor([[[0.2689, 1.4621]]])\n"
    "An aside, without scaling:dummy = torch.tensor([2.0, 0.0])(F.softmax(dummy, dim=-1),F.softmax(10*dummy, dim=-1))"
    "Output(tensor([0.8808, 0.1192]), tensor([1., 0.]))\n")


def test_a_flip_book_page_with_its_code_glued_to_the_prose():
    ex = imported(FLIPBOOK)[0]
    k = [["1.0", "0.0"], ["0.0", "2.0"]]
    assert inputs(ex) == {"Q": [["1.0", "1.0"]], "K": k, "V": k}  # v = k
    # "scores" is the softmax's result: the weights; prod the raw scores; context the output
    assert claims(ex) == {("scores", "1", ("1.0000", "2.0000")), ("weights", "1", ("0.2689", "0.7311")),
                          ("output", "1", ("0.2689", "1.4621"))}
    assert not [c for c in ex.claims if c.group is not None]  # the aside's softmax is placed nowhere
    aside = [n for n in ex.unplaced if "makes up beside the example" in n.text]
    assert len(aside) == 2


def test_a_word_standing_for_k_in_the_triple_names_a_table_column():
    # the table restates the keys misprinted (no number right): "Okay" names the column only
    # because the page writes "Q, Okay, V"; unnamed, its numbers fit no step and it is listed
    table = ("┌─────┬────────────┐\n│ Tok │ Okay       │\n├─────┼────────────┤\n"
             '│ "a" │ [0.7, 0.9] │\n│ "b" │ [0.8, 0.7] │\n└─────┴────────────┘\n')
    page = KV_PAGE.split("┌")[0] + table
    named = imported("Three projections: Q, Okay, V\n" + page)[0]
    assert claims(named, "line 17–18") == {("K", "a", ("0.7", "0.9")), ("K", "b", ("0.8", "0.7"))}
    unnamed = imported(page)[0]
    assert not [c for c in unnamed.claims if c.group is not None]
    assert any("0.7" in n.text for n in unnamed.unplaced)


# (page, layout, K claims): square weights, so only the way the projection is written decides the layout
W2 = "Wq = | 1 0 |   Wk = | 0 1 |   Wv = | 1 1 |\n     | 0 1 |        | 2 0 |        | 0 1 |\n\n"
SQUARE = [
    # W × x: each token's row multiplied from the left, K = X·Wkᵀ: k_a = [0·1 + 1·0.5, 2·1 + 0·0.5]
    (W2 + 'Key("a") = Wk × [1.0, 0.5] = [0.5, 2.0]\nKey("b") = Wk × [0.0, 1.0] = [1.0, 0.0]\n', "torch",
     {("K", "a", ("0.5", "2.0")), ("K", "b", ("1.0", "0.0"))}),
    # x @ W: from the right, K = X·Wk: k_a = [1·0 + 0.5·2, 1·1 + 0.5·0]
    (W2 + 'Key("a") = [1.0, 0.5] @ Wk = [1.0, 1.0]\nKey("b") = [0.0, 1.0] @ Wk = [2.0, 0.0]\n', "row",
     {("K", "a", ("1.0", "1.0")), ("K", "b", ("2.0", "0.0"))}),
]


@pytest.mark.parametrize("page,layout,want", SQUARE)
def test_the_way_a_projection_is_written_per_token_gives_the_layout(page, layout, want):
    ex = imported(page)[0]
    assert ex.spec.convention.layout == layout
    assert inputs(ex)["X"] == [["1.0", "0.5"], ["0.0", "1.0"]]
    assert claims(ex) == want


# hostile text in these ways of writing: a clear answer (examples or SymattnError), never a crash
HOSTILE = [
    "| " + "1" * 5000 + " x\n| 1 2 |\n",
    "Wk = | 1 0 |   Wv = | 0 1\n     | 0 1 |        | 1 0 |\n",
    "┌" + " " * 20000 + "x\n│ a │ [1, 2] │\n",
    "│ a │ [1, 2\n├──┼\n│ b │ 3 │\n",
    "+--+\n| [1, 2] |\n+--+\n" * 50,
    'Key("a") = Wk × [0.1, 0.2] = \nKey("b") = Wk × = [0.1]\n',
    "x = f(x)xOutputtensor([[0.5, 0.5]])" * 200,
    "v = " * 3000 + "kOutputtensor([[0.5]])\n",
    "# N, 1, Hk = " * 500 + "torch.tensor([[1.0]])\n",
    "Q, Okay, V, Okay, K, V\n" * 100,
    "a:q = torch.tensor([1.0, 0.0])\n" + "v = q\n" * 2000,
]


@pytest.mark.parametrize("page", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_gets_a_clear_answer(page):
    from symattn.errors import SymattnError

    try:
        exs = imported(page)
    except SymattnError:
        return
    assert all(ex.spec is not None for ex in exs)
