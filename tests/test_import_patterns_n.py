"""Ways of writing numbers met on held-out batch n (tests/pages/heldout/n/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import pytest

import symattn as sa
from symattn.analyses.importer_items import collect
from symattn.read.pages import read_page


def _rows(text: str, fmt: str = "markdown") -> list:
    return [it.rows for it in collect(read_page(text, fmt)).items]


# (snippet, the numbers read from it): two numbers after the word "range" are the ends of an
# interval, not a vector; "≈ [0.269, 0.731]" is a result and stays read
RANGES = [
    ("```\n64-dim dot product can be large: range [-64, 64]\n```\n", []),
    ("```\nScaled scores in reasonable range: ~ [-8, 8]\n```\n", []),
    ("Values in the range (0, 1) only.\n", []),
    ("Softmax(0,1) ≈ [0.269, 0.731].\n", [[["0.269", "0.731"]]]),
    ("The weights are [0.2, 0.8].\n", [[["0.2", "0.8"]]]),
    ("range [1, 2, 3] of three\n", [[["1", "2", "3"]]]),  # three numbers: not an interval's ends
]


@pytest.mark.parametrize("text,want", RANGES)
def test_range_ends_are_not_a_vector(text, want):
    assert _rows(text) == want


# (snippet, the matrix read): a row comment in C style, `// tok_idx=0`, after a row's comma
SLASH = [
    ("```\nembeddings = [\n    [0.4, 0.1, 0.8], // tok_idx=0\n    [0.5, 0.8, 0.6], // tok_idx=1\n"
     "    [0.0, 0.8, 0.5]\n]\n```\n", [["0.4", "0.1", "0.8"], ["0.5", "0.8", "0.6"], ["0.0", "0.8", "0.5"]]),
    ("```\nx = [[1, 2], // first\n     [3, 4]] // second\n```\n", [["1", "2"], ["3", "4"]]),
]


@pytest.mark.parametrize("text,want", SLASH)
def test_slash_comments_after_rows(text, want):
    assert _rows(text) == [want]



# (line, the query token it names, of tokens a b c): a 0-based index after "token at index" or
# "of tok_idx="; a bare assignment names nothing
QUERY_INDEX = [
    ("attending from the token at index 1 gives", "b"),
    ("we want the context vector of tok_idx=2", "c"),
    ("The attention weights of the token at index 0 come out as:", "a"),
    ("tok_idx = 1", None),
    ("the token at index 7", None),  # past the tokens
]


@pytest.mark.parametrize("text,want", QUERY_INDEX)
def test_query_by_index(text, want):
    from symattn.analyses.importer_conventions import query_evidence
    from symattn.read.pages.model import Line, Where
    got = query_evidence([Line(text, Where(1), "code")], ["a", "b", "c"])
    assert (got.value if got else None) == want
