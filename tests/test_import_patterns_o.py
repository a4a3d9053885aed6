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
