"""Ways of writing numbers met on held-out batch o (tests/pages/heldout/o/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import pytest

import symattn as sa
from symattn.read.pages import read_page

# weight matrices printed side by side in Python-list style, each over several lines: read as if
# printed one under another; anything that does not cut into balanced lists of numbers is left alone
SIDE = [
    ("Wq = [[1, 0],    Wk = [[1, 1],    Wv = [[1, 0],\n"
     "      [0, 1]]          [0, 1]]          [0, 1]]\n",
     [("Wq", [["1", "0"], ["0", "1"]]), ("Wk", [["1", "1"], ["0", "1"]]), ("Wv", [["1", "0"], ["0", "1"]])]),
    ("A = [[1.5, -2],   B = [[3, 4, 5],\n"
     "     [0, 7],            [6, 7, 8]]\n"
     "     [2, 2]]\n",
     [("A", [["1.5", "-2"], ["0", "7"], ["2", "2"]]), ("B", [["3", "4", "5"], ["6", "7", "8"]])]),
]


@pytest.mark.parametrize("text,want", SIDE)
def test_side_by_side_list_matrices(text, want):
    page = read_page("```\n" + text + "```\n", "markdown")
    got = [(b.before.strip().rstrip("=").strip(), b.rows) for b in page.blocks if getattr(b, "rows", None)]
    for name, rows in want:
        assert any(n.endswith(name) and r == rows for n, r in got), (name, got)


NOT_SIDE = [
    "Wq = [[1, 0],    x = 3 and more words\n      [0, 1]]\n",        # prose beside: not a second matrix
    "Wq = [[1, 0],    Wk = [[1, 1],\n      [0, 1]]    \n",          # the second never closes
]


@pytest.mark.parametrize("text", NOT_SIDE)
def test_side_by_side_left_alone(text):
    from symattn.read.pages.side_by_side import unstack_side_by_side
    from symattn.read.pages.formats import markdown_lines
    lines = markdown_lines("```\n" + text + "```\n")
    assert [x.text for x in unstack_side_by_side(lines)] == [x.text for x in lines]


def test_side_by_side_keeps_provenance():
    text = "Wq = [[1, 0],    Wk = [[1, 1],\n      [0, 1]]          [0, 1]]\n"
    page = read_page(text, "text")
    assert [str(x.where) for x in page.lines] == ["line 1", "line 2", "line 1", "line 2", "line 3"]


# MathJax inline math around a table cell: \([1, 0]\) is the row [1, 0], 埋め込み (\( X \)) names X
# by its symbol in parentheses (the word before it need not be known, in any language), over the
# page's title or a heading that happens to mention dot products
TABLE_X = ("<h1>Scaled Dot-Product Attention</h1>\n<table><tr><th>token</th><th>埋め込み (\\( X \\))</th></tr>\n"
           "<tr><td>a</td><td>\\([1, 0, 1]\\)</td></tr>\n<tr><td>b</td><td>\\([0, 1, 1]\\)</td></tr>\n"
           "<tr><td>c</td><td>\\([1, 1, 0]\\)</td></tr></table>\n")
CELLS = [
    ("| a | \\([1, 0]\\) |", ["a", "[1, 0]"]),
    ("| クエリ (\\( Q \\)) | \\( [0.5, -1] \\) |", ["クエリ (Q)", "[0.5, -1]"]),
    ("| a | \\(\\frac{1}{2}\\) |", ["a", "\\frac{1}{2}"]),
    ("| a | [1, 0] |", ["a", "[1, 0]"]),
]


@pytest.mark.parametrize("line,cells", CELLS)
def test_inline_math_cells(line, cells):
    from symattn.read.pages.scan import _pipe_cells
    assert _pipe_cells(line) == cells


def test_table_header_symbol_names_the_column():
    from symattn.analyses.importer_items import collect
    page = read_page(TABLE_X, "html")
    items = [it for it in collect(page).items if it.rows == [["1", "0", "1"], ["0", "1", "1"], ["1", "1", "0"]]]
    assert items and items[0].step == "X"


HEADER_SYMBOLS = [("埋め込み (X)", "X"), ("Embedding (x)", "X"), ("クエリ (Q)", "Q"), ("Embedding", None),
                  ("(X)", None), ("score (s) for a (b)", None)]


@pytest.mark.parametrize("cell,step", HEADER_SYMBOLS)
def test_header_symbol(cell, step):
    from symattn.analyses.importer_items import _header_symbol
    assert _header_symbol(cell) == step


# a one-letter name that reads as an input (E for embeddings) defined in the display as a product
# of the page's matrices is that product: E = QK^T = [[…]] is the scores; E = [[…]] stays X
CHAIN = [
    ("$$\nE = QK^T = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}\n$$\n", "scores"),
    ("$$\nE = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}\n$$\n", "X"),
]


@pytest.mark.parametrize("text,step", CHAIN)
def test_defined_as_computed(text, step):
    from symattn.analyses.importer_items import collect
    page = read_page(text, "markdown")
    assert [it.step for it in collect(page).items] == [step]


# a display opened after the words that introduce it names its first matrix by the name
# inside: '重み行列: \[ W^Q = \begin{bmatrix}…' is W^Q (the opener is no bracket of the text)
LABELS = [
    ("重み行列: \\[ W^Q = ", "W^Q"),
    ("Weights: $$ W_q = ", "W_q"),
    ("Weights: \\( W_k = ", "W_k"),
]


@pytest.mark.parametrize("before,ident", LABELS)
def test_label_after_display_opener(before, ident):
    from symattn.analyses.importer_items import _label_before
    assert _label_before(before, "math")[1] == ident


# a table of per-token Q, K and V (one bracketed vector per cell) beside the page's weights:
# each column is a printed step, not an operand of a product of the next
QKV_TABLE = (
    "$$\nW^Q = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix},\\quad W^K = \\begin{bmatrix} 0 & 1 \\\\ 1 & 0 \\end{bmatrix},"
    "\\quad W^V = \\begin{bmatrix} 1 & 1 \\\\ 0 & 1 \\end{bmatrix}\n$$\n\n"
    "| token | embedding (X) |\n|---|---|\n| a | [1, 0] |\n| b | [0, 2] |\n\n$$\nQ = XW^Q\n$$\n\n"
    "| token | Q | K | V |\n|---|---|---|---|\n| a | [1, 0] | [0, 1] | [1, 1] |\n| b | [0, 2] | [2, 0] | [0, 2] |\n"
)


def test_qkv_table_columns_are_claims():
    (ex,) = sa.import_examples(QKV_TABLE, format="markdown", source="snippet")
    assert set(ex.spec.inputs) == {"X", "Wq", "Wk", "Wv"}
    got = {(c.step, c.row, tuple(c.values)) for c in ex.claims if c.group is None}
    assert ("Q", "b", ("0", "2")) in got and ("K", "a", ("0", "1")) in got and ("V", "a", ("1", "1")) in got
