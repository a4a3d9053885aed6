"""Numbers written in LaTeX displays and in a quiz's prose, met on held-out pages
(tests/pages/heldout/g, i), as tables of (snippet, what it must yield). Each expected value was
read off the snippet by hand."""

import pytest

import symattn as sa
from symattn.analyses.importer_items import (OPTION_NOTE, SUM_TERM_NOTE, _row_of, _softmax_argument, chain_step,
                                             collect, indexed_name)
from symattn.read.pages import read_page
from symattn.read.pages.formats import html_lines, markdown_lines
from symattn.read.pages.latex_cells import split_body


def imported(page, fmt):
    return sa.import_examples(page, format=fmt, source="snippet")


def inputs(ex):
    return {k: g.rows for k, g in ex.inputs.items()}


def claims(ex, group=None):
    return {(c.step, c.row, tuple(c.values)) for c in ex.claims if c.group == group}


def every_claim(ex):
    return {(c.step, c.row, tuple(c.values)) for c in ex.claims}


def bm(*rows):
    return r"\begin{bmatrix} " + r" \\ ".join(" & ".join(r) for r in rows) + r" \end{bmatrix}"


def display(tex):
    return f'<p><span class="math display">\\[\n{tex}\n\\]</span></p>\n'


# (HTML line, role it gets, its text): a paragraph that is one \[ … \] display is math
DISPLAY_LINES = [
    ('<p><span class="math display">\\[\nX = 1\n\\]</span></p>', "math", "X = 1"),
    ("<p>$$ Q = K $$</p>", "math", "Q = K"),
    ("<p>So \\(x = 1\\) here.</p>", "prose", "So \\(x = 1\\) here."),
    ("<p>\\[ a \\] and \\[ b \\]</p>", "prose", "\\[ a \\] and \\[ b \\]"),  # two displays: left as text
    ("<p>Text \\[ a \\]</p>", "prose", "Text \\[ a \\]"),
]


# (Markdown text, its lines' (role, text)): a line that opens with "\[" and TeX is display math; an
# escaped bracket ("\[0.5, 0.5\]", "\[\[0, 1\], …") stays a bracket
MD_DISPLAYS = [
    (r"\[ Q = \begin{bmatrix} 1 \end{bmatrix} \]", [("math", r"Q = \begin{bmatrix} 1 \end{bmatrix}")]),
    (r"\[\begin{bmatrix} 1 \end{bmatrix}\]", [("math", r"\begin{bmatrix} 1 \end{bmatrix}")]),
    ("\\[ X =\n\\begin{bmatrix} 1 \\end{bmatrix}\n\\]", [("math", " X ="), ("math", r"\begin{bmatrix} 1 \end{bmatrix}"),
                                                           ("math", "")]),
    (r"\[0.5, 0.5\]", [("prose", "[0.5, 0.5]")]),
    (r"\[\[0, 1\], \[1, 0\]\]", [("prose", "[[0, 1], [1, 0]]")]),
    (r"\[citation needed\]", [("prose", "[citation needed]")]),
]


@pytest.mark.parametrize("text,want", MD_DISPLAYS)
def test_markdown_display_opened_by_a_backslash_bracket(text, want):
    assert [(x.role, x.text) for x in markdown_lines(text)] == want


@pytest.mark.parametrize("html,role,text", DISPLAY_LINES)
def test_a_paragraph_that_is_one_display_is_math(html, role, text):
    (line,) = html_lines(html)
    assert (line.role, line.text) == (role, text)


# (matrix body, rows): a body whose "\\\\" lost a backslash (Markdown) keeps its rows when that
# gives rows of one width; anything else is split as before
BODIES = [
    (r"0.324 & 0.467 & 0.209\ 0.305 & 0.515 & 0.180\ 0.346 & 0.432 & 0.222",
     [["0.324", "0.467", "0.209"], ["0.305", "0.515", "0.180"], ["0.346", "0.432", "0.222"]]),
    (r"\mathbf{1} & 2 \ \frac{1}{2} & -4", [[r"\mathbf{1}", "2"], [r"\frac{1}{2}", "-4"]]),
    (r"1 & 2 \\ 3 & 4", [["1", "2"], ["3", "4"]]),  # the usual separator
    (r"1 & 2\ 3 & 4 \\ 5 & 6", [["1", "2\\ 3", "4"], ["5", "6"]]),  # "\\" present: "\ " is no row break
    (r"1 & 2\ 3", [["1", "2\\ 3"]]),  # rows of different widths: not split
    (r"1 & \ \text{big} & 2", [["1", "\\ \\text{big}", "2"]]),  # a control space before a word
]


@pytest.mark.parametrize("body,rows", BODIES)
def test_rows_run_together_by_a_single_backslash(body, rows):
    assert split_body(body) == rows


# (text before a matrix in a display, the step its formula names)
CHAINS = [
    (r"\tilde{S} = \frac{S}{\sqrt{d_k}} = \frac{S}{2} = ", "scaled"),
    (r"S' = S/\sqrt{d_k} = ", "scaled"),
    (r"\text{softmax}\left(\frac{Q \cdot K^T}{\sqrt{4}}\right) = ", "weights"),
    (r"The weights come out as: $$\text{softmax}\left(\frac{Q K^T}{\sqrt{4}}\right) = ", "weights"),
    (r"\mathrm{softmax}(S) V = ", "output"),
    (r"\mathrm{Attention}(Q, K, V) = ", "output"),
    (r"\text{Attention}\left(Q, K, V\right) \approx ", "output"),
    (r"QK^\top = ", "scores"),
    (r"\frac{QK^T}{\sqrt{d_k}} \approx ", "scaled"),
    ("Q = ", None),  # a name, not a formula: the name decides
    (r"\frac{S}{d} = ", None),  # divided by a symbol that is not a root: unknown
    (r"\frac{x}{2} = ", None),  # x is no scores symbol
    (r"S = QK^\top", None),  # no '=' before the matrix
    (r"A = \text{softmax}(S) V, \quad Q = ", None),  # the formula names what is before the separator
    (r"Q = [..], \quad \frac{QK^T}{\sqrt{2}} = ", "scaled"),
]


@pytest.mark.parametrize("before,step", CHAINS)
def test_chain_step(before, step):
    assert chain_step(before) == step


W = [["1", "0"], ["0", "1"]]
W2 = [["2", "0"], ["0", "2"]]
W3 = [["0", "1"], ["1", "0"]]
X = [["1", "2"], ["3", "4"]]

# (page, format, inputs, claims of the first printing, claims restated (group "also" or others), or None)
PAGES = [
    # several named matrices in one display, separated by ", \quad": each its own matrix
    (display(f"X = {bm(*X)}") + display(f"W^Q = {bm(*W)}, \\quad W^K = {bm(*W2)}, \\quad W^V = {bm(*W3)}")
     + display(f"Q = {bm(*W)}, \\quad K = {bm(*W2)}, \\qquad V = {bm(*W3)}"), "html",
     {"X": X, "Wq": W, "Wk": W2, "Wv": W3},
     {("Q", "1", ("1", "0")), ("Q", "2", ("0", "1")), ("K", "1", ("2", "0")), ("K", "2", ("0", "2")),
      ("V", "1", ("0", "1")), ("V", "2", ("1", "0"))}),
    # one-line \[ … \] displays in Markdown
    (f"\\[ Q = {bm(*W)}, \\quad K = {bm(*W2)}, \\quad V = {bm(*X)} \\]\n\nText.\n\n"
     f"\\[ S = QK^T = {bm(['2', '0'], ['0', '2'])} \\]\n", "markdown", {"Q": W, "K": W2, "V": X},
     {("scores", "1", ("2", "0")), ("scores", "2", ("0", "2"))}),
    # the same in Markdown, names separated by "," and "\;"
    (f"$$X = {bm(*X)}$$\n\n$$W_q = {bm(*W)},\\; W_k = {bm(*W2)},\\; W_v = {bm(*W3)}$$\n", "markdown",
     {"X": X, "Wq": W, "Wk": W2, "Wv": W3}, set()),
    # names in a font (\mathbf{Q}) separated by \quad alone; \text{Scores} = QK^T = [..]
    (f"$$\\mathbf{{Q}} = {bm(*W)} \\quad \\mathbf{{K}} = {bm(*W2)} \\quad \\boldsymbol{{V}} = {bm(*X)}$$\n\n"
     f"$$\\text{{Scores}} = QK^T = {bm(['2', '0'], ['0', '2'])}$$\n", "markdown", {"Q": W, "K": W2, "V": X},
     {("scores", "1", ("2", "0")), ("scores", "2", ("0", "2"))}),
    # a formula first, then the inputs after "\quad": each matrix is named by what follows the last separator
    (f"$$\\text{{Attention}} = \\text{{softmax}}\\left(\\frac{{QK^T}}{{\\sqrt{{d}}}}\\right) V, \\quad Q = {bm(*W)}, "
     f"\\quad K = {bm(*W2)}, \\quad V = {bm(*X)}$$\n\nThe output is [[2, 3], [2, 3]].\n", "markdown",
     {"Q": W, "K": W2, "V": X}, {("output", "1", ("2", "3")), ("output", "2", ("2", "3"))}),
    # an aligned display, one name per row ("Q &= […] \\ K &= […]"), and a chain in one
    (f"$$\\begin{{aligned}} Q &= {bm(*W)} \\\\ K &= {bm(*W2)} \\\\ V &= {bm(*X)} \\end{{aligned}}$$\n\n"
     f"$$\n\\begin{{align*}}\nS &= QK^\\top = {bm(*W)} {bm(*W2)} = {bm(['2', '0'], ['0', '2'])}\n\\end{{align*}}\n$$\n",
     "markdown", {"Q": W, "K": W2, "V": X}, {("scores", "1", ("2", "0")), ("scores", "2", ("0", "2"))}),
    # S = QKᵀ = [Q][Kᵀ] = [S]: the factors restate the inputs, the last matrix is the scores;
    # \tilde{S} = S/√d_k = S/2 = [..] is the scaled scores
    (display(f"Q = {bm(*W)}, \\quad K = {bm(*W)}, \\quad V = {bm(*X)}")
     + display(f"S = QK^\\top = {bm(*W)} {bm(*W)} = {bm(['1', '0'], ['0', '1'])}")
     + display(f"\\tilde{{S}} = \\frac{{S}}{{\\sqrt{{d_k}}}} = \\frac{{S}}{{2}} = {bm(['0.5', '0'], ['0', '0.5'])}"),
     "html", {"Q": W, "K": W, "V": X},
     {("scores", "1", ("1", "0")), ("scores", "2", ("0", "1")), ("scaled", "1", ("0.5", "0")),
      ("scaled", "2", ("0", "0.5"))}),
    # Z = A·V on one display, "= [A][V] = [Z]" on the next: the last matrix is the output, the
    # factors restate the weights and V
    (display(f"Q = {bm(*W)}, \\quad K = {bm(*W)}, \\quad V = {bm(*X)}") + display(r"Z = A \cdot V")
     + display(f"= {bm(['0.5', '0.5'], ['0.5', '0.5'])} {bm(*X)} = {bm(['2', '3'], ['2', '3'])}")
     + "<p>Here the weights are all 0.5.</p>", "html", {"Q": W, "K": W, "V": X},
     {("weights", "1", ("0.5", "0.5")), ("weights", "2", ("0.5", "0.5")), ("output", "1", ("2", "3")),
      ("output", "2", ("2", "3"))}),
    # a weights matrix in $$ … $$ inside a paragraph, named by the formula on its left, its rows run
    # together by "\ " (Markdown ate one backslash of "\\")
    ("Q = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]\n\nWe get "
     "$$\\text{softmax}\\left(\\frac{Q \\cdot K^T}{\\sqrt{2}}\\right) = \\begin{bmatrix} 0.670 & 0.330\\ "
     "0.330 & 0.670 \\end{bmatrix}.$$ The first row favours the first key.\n", "markdown",
     {"Q": W, "K": W, "V": X},
     {("weights", "1", ("0.670", "0.330")), ("weights", "2", ("0.330", "0.670"))}),
]


@pytest.mark.parametrize("page,fmt,want_inputs,want_claims", PAGES)
def test_display_snippets(page, fmt, want_inputs, want_claims):
    (ex,) = imported(page, fmt)
    assert inputs(ex) == want_inputs
    assert claims(ex) == want_claims
    assert every_claim(ex) == want_claims  # no factor placed as a step of its own


# (name, (step, row)): a one-letter step and an index name a row of that matrix
INDEXED = [("K1", ("K", 1)), ("K_2", ("K", 2)), ("v_{3}", ("V", 3)), ("Q1", ("Q", 1)), ("x2", ("X", 2)),
           ("K0", None), ("W1", None), ("A1", None), ("K123", None), ("KK1", None)]


@pytest.mark.parametrize("name,want", INDEXED)
def test_indexed_name(name, want):
    assert indexed_name(name) == want


# (lines of a page, which vectors are answer options (their first numbers))
OPTIONS = [
    ("A[10, 0]\nB[5, 10]\nC[7.31, 5.38]\nD[0, 20]", ["10", "5", "7.31", "0"]),
    ("(A) [1, 2]\n(B) [3, 4]", ["1", "3"]),
    ("a) [1, 2]\nb) [3, 4]\nc) [5, 6]", ["1", "3", "5"]),
    ("A[1, 2]", []),  # one choice is no quiz
    ("B[1, 2]\nC[3, 4]", []),  # choices start at A
    ("A[1, 2]\nC[3, 4]", []),  # and go in letter order
    ("A = [1, 2]\nB = [3, 4]", []),  # named matrices, not choices
    ("A[1, 2] is the first\nB[3, 4]", []),  # text after it: not a choice on a line of its own
    ("Options: (A) [1, 2]  (B) [3, 4]  (C) [5, 6]", ["1", "3", "5"]),  # choices on one line
    ("Option A: [1, 2]\nOption B: [3, 4]", ["1", "3"]),
    ("A. [1, 2], B. [3, 4]", ["1", "3"]),
    ("Q = [1, 2], A = [3, 4]", []),
]


@pytest.mark.parametrize("text,firsts", OPTIONS)
def test_answer_options(text, firsts):
    items = collect(read_page(text, "text")).items
    assert [it.rows[0][0] for it in items if OPTION_NOTE in it.notes] == firsts


def test_a_quiz_with_named_vectors_choices_and_a_sum_on_one_line():
    page = ("Given query vector Q = [0, 1], key vectors K1 = [1, 0], K2 = [0, 1], and value vectors "
            "V1 = [2, 0], V2 = [0, 4], what is the output of softmax(Q·K^T) times the values?\n"
            "A[2, 0]\nB[1, 2]\nC[0.54, 2.92]\nD[0, 4]\n"
            "Solution:\nQ·K1 = 0; Q·K2 = 1.\nPut [0, 1] through softmax\n"
            "Softmax(0,1) = [e^0/(e^0+e^1), e^1/(e^0+e^1)] ≈ [0.269, 0.731].\n"
            "Output = 0.269*[2,0] + 0.731*[0,4] = [0.538, 0] + [0, 2.924] = [0.538, 2.924].\n")
    (ex,) = imported(page, "text")
    assert inputs(ex) == {"Q": [["0", "1"]], "K": [["1", "0"], ["0", "1"]], "V": [["2", "0"], ["0", "4"]]}
    # (the terms after 'Output = 0.269*[2,0] + 0.731*[0,4] =' are the weighted values p·v, key by key)
    assert every_claim(ex) == {("scores", "1", ("0", "1")), ("weights", "1", ("0.269", "0.731")),
                               ("weighted", "1", ("0.538", "0")), ("weighted", "1", ("0", "2.924")),
                               ("output", "1", ("0.538", "2.924"))}
    unplaced = [(n.where, n.text.split(": ")[-1]) for n in ex.unplaced]
    assert [w for w, t in unplaced if t == OPTION_NOTE] == ["line 2", "line 3", "line 4", "line 5"]
    assert SUM_TERM_NOTE not in [t for w, t in unplaced if w == "line 10"]


# (text before a vector, (step, row)): the text says which row of which matrix the vector is
ROWS_OF = [
    (r"Look at the Query of ring (row 2 of Q \(=", ("Q", 2)),
    ("and the Key of fell (row 3 of K = ", ("K", 3)),
    ("The second row of $V$: ", ("V", 2)),
    ("the 1st row of the matrix X is ", None),  # 'is': not written as the row's value
    ("the 1st row of the matrix X = ", ("X", 1)),
    ("row 2 of the weights: ", ("weights", 2)),
    ("row 0 of Q = ", None),  # rows are counted from 1 in prose
    ("row 2 of W_q = ", None),  # a row of a weight matrix is not placed this way
    ("row 2: ", None),
]


@pytest.mark.parametrize("before,want", ROWS_OF)
def test_row_of(before, want):
    assert _row_of(before) == want


# (text before, text after, whether the vector is what softmax is applied to)
SOFTMAX_ARGUMENTS = [
    ("2. Step 2: Put ", " through softmax", True),
    ("We feed ", " into the softmax.", True),
    ("the softmax of ", "", True),
    ("softmax applied to the scores ", "", True),
    ("Softmax(1,0) = [e^1/(e^1+e^0), e^0/(e^1+e^0)] ≈ ", ".", False),
    ("softmax weights: ", "", False),
    ("Output ", " through the network", False),
]


@pytest.mark.parametrize("before,after,want", SOFTMAX_ARGUMENTS)
def test_softmax_argument(before, after, want):
    assert _softmax_argument(before, after) is want


def test_a_row_named_in_prose_restates_that_row():
    page = ("<p>Q = [[1, 0], [0, 1]], K = [[1, 0], [1, 1]], V = [[1, 2], [3, 4]]</p>"
            "<p>Row 2 of Q \\(=[0, 1]\\) and the second row of K \\(=[1, 1]\\) are alike.</p>"
            "<p>Scores = [[1, 1], [0, 1]]</p>")
    (ex,) = imported(page, "html")
    assert every_claim(ex) == {("scores", "1", ("1", "1")), ("scores", "2", ("0", "1"))} and not ex.unplaced
    assert [n.text for n in ex.notes if n.kind == "echo"] == ["restates input Q[2]", "restates input K[2]"]


def test_the_factors_of_a_product_written_out_are_its_named_matrices_again():
    # S = QKᵀ = [Q] [Kᵀ] = [S] with Q, K of 2×3: the second factor is K printed transposed (3×2)
    q, k = [["1", "0", "1"], ["0", "1", "0"]], [["1", "0", "0"], ["0", "1", "1"]]
    kt = [list(c) for c in zip(*k)]
    page = (display(f"Q = {bm(*q)}, \\quad K = {bm(*k)}, \\quad V = {bm(*W)}")
            + display(f"S = QK^\\top = {bm(*q)} {bm(*kt)} = {bm(['1', '1'], ['0', '1'])}"))
    (ex,) = imported(page, "html")
    assert every_claim(ex) == {("scores", "1", ("1", "1")), ("scores", "2", ("0", "1"))}
    assert not ex.unplaced
    assert sorted(n.text for n in ex.notes if n.kind == "echo") == ["restates input K (printed transposed)",
                                                                             "restates input Q"]


QKV1 = {"Q": [["1", "0"]], "K": [["1", "0"], ["0", "1"]], "V": [["10", "0"], ["0", "20"]]}

# (text page, claims): named vectors in prose, as lists or tuples, several on a line
PROSE = [
    # the second vector on a line is named by the words just before it, not by the line's first name
    ("Query q = [1, 0]; keys k_1 = [1, 0], k_2 = [0, 1]; values v_1 = [10, 0], v_2 = [0, 20].\n"
     "The weights are [0.731, 0.269] and the output is [7.31, 5.38].\n",
     {("weights", "1", ("0.731", "0.269")), ("output", "1", ("7.31", "5.38"))}),
    # tuples assigned to indexed names in the middle of a line
    ("Query q = (1, 0). Keys k1 = (1, 0), k2 = (0, 1). Values v1 = (10, 0), v2 = (0, 20).\nOutput: (7.31, 5.38)\n",
     {("output", "1", ("7.31", "5.38"))}),
    # one per line
    ("Let Q = [1, 0].\nK1 = [1, 0]\nK2 = [0, 1]\nV1 = [10, 0]\nV2 = [0, 20]\nOutput: [7.31, 5.38]\n",
     {("output", "1", ("7.31", "5.38"))}),
]


@pytest.mark.parametrize("page,want", PROSE)
def test_named_vectors_in_prose(page, want):
    (ex,) = imported(page, "text")
    assert inputs(ex) == QKV1
    assert every_claim(ex) == want


@pytest.mark.parametrize("keys", ["K2 = [0, 1], K1 = [1, 0]", "K1 = [1, 0], K3 = [0, 1]"])
def test_indexed_rows_out_of_order_are_not_joined(keys):
    # K2 before K1, or K1 and K3 without K2: no K is assembled, so the page gives no keys
    page = f"Q = [1, 0], {keys}, V = [[10, 0], [0, 20]]\nOutput: [7.31, 5.38]\n"
    with pytest.raises(sa.SymattnError, match="no worked example"):
        imported(page, "text")
    ok = page.replace(keys, "K1 = [1, 0], K2 = [0, 1]")
    assert imported(ok, "text")[0].inputs["K"].rows == [["1", "0"], ["0", "1"]]


# (page, claims): two vectors on one line, each named by the words just before it
TWO_ON_A_LINE = [
    ("Q = [1, 0] and K = [[1, 0], [0, 1]], V = [[10, 0], [0, 20]]\nThe output is [7.31, 5.38].\n",
     {("output", "1", ("7.31", "5.38"))}),
    ("Q = [1, 0], K = [[1, 0], [0, 1]], V = [[10, 0], [0, 20]]\n"
     "Weights: [0.731, 0.269] so the output is [7.31, 5.38].\n",
     {("weights", "1", ("0.731", "0.269")), ("output", "1", ("7.31", "5.38"))}),
]


@pytest.mark.parametrize("page,want", TWO_ON_A_LINE)
def test_two_vectors_on_a_line_are_named_separately(page, want):
    (ex,) = imported(page, "text")
    assert inputs(ex) == QKV1
    assert every_claim(ex) == want


def test_attention_of_q_k_v_names_the_output():
    page = (f"$$Q = {bm(*W)}, \\quad K = {bm(*W2)}, \\quad V = {bm(*X)}$$\n\n"
            f"$$\\mathrm{{Attention}}(Q, K, V) = {bm(['2', '3'], ['2', '3'])}$$\n")
    (ex,) = imported(page, "markdown")
    assert every_claim(ex) == {("output", "1", ("2", "3")), ("output", "2", ("2", "3"))}
