"""Hostile input for the page forms the importer learned in h9 (scripts, JS templates, hand-math fences,
bar matrices, quoted lists, elisions, hanging rows, named dots, keyed numbers, banners, prints): the
importer answers with a result or a one-line SymattnError, never a traceback, on bounded pages."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from symattn.analyses.importer import import_examples
from symattn.errors import SymattnError

PIECES = [
    "<script>var x = 1;</script>", "<script>", "output: `[0.1, 0.2]`", "output: `", "```", "```\n",
    "q = (1, 0, 1)", "k_1 = (0, 1, ", "| 1 0 |", "| 0 1", "['0.1', '0.2']", "['0.1', ", "...", "⋮",
    "    [0.1, 0.2]", "    0.3 0.4]", "q_1^T k_1 = 0.5", "q_i^T k_2 =", "e_{C,A} = 1", "e_{C,", "=== x ===",
    "print(f\"{x}\")", "np.set_printoptions(precision=3)", "x = [1, 0]", "x = [0, 1]", "softmax", "Q", "K", "V",
    "[[", "]]", "((", "))", "\\begin{bmatrix}", "\\end{bmatrix}", "&", "\\\\", "\n", "\n\n", " ", "=", "_", "^", "`",
]


def _answer(text: str, fmt: str) -> None:
    try:
        import_examples(text, format=fmt, source="h9")
    except SymattnError as e:
        assert str(e).strip()  # an answer with a message, never a traceback


@settings(derandomize=True, max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60), st.sampled_from(["markdown", "html"]))
def test_random_mixes_of_new_forms_answer(pieces: list[str], fmt: str) -> None:
    _answer("".join(pieces), fmt)


def test_one_huge_tuple_in_a_fence_answers() -> None:
    _answer("```\nq = (" + "1, " * 5_000 + "1)\n```\n", "markdown")


def test_many_script_tags_answer() -> None:
    _answer("<script>var x=1;</script>" * 2_000, "html")


def test_unclosed_backtick_template_answers() -> None:
    _answer("output: `" * 2_000, "markdown")


def test_reassigned_thousands_of_times_answers() -> None:
    _answer("Q and K:\n" + "x = [1, 0]\n" * 3_000, "markdown")


def test_many_unplaced_vectors_after_a_worked_example_still_import() -> None:
    """A worked example followed by 1 500 stray vectors (each listed as not placed): the vectors are looked
    up by where they are in one pass (this was one scan of the page per note: quadratic)."""
    from pathlib import Path
    page = (Path(__file__).resolve().parent / "pages" / "journey.md").read_text(encoding="utf-8")
    plain = import_examples(page, format="markdown", source="h9")
    padded = import_examples(page + "    [0.1, 0.2]\n" * 1_500, format="markdown", source="h9")
    assert len(padded) >= len(plain) >= 1
