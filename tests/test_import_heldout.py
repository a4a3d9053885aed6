"""Held-out pages (tests/pages/heldout/<batch>/): published worked examples written up after the
importer was built, each with where a careful reader puts every printed number, judged before the
importer was run on it. tests/pages/heldout/README.md records the placement measured on each batch
before it was used for tuning; here every page must now place all its numbers and nothing else."""

import importlib.util
from pathlib import Path

import pytest

HELDOUT = Path(__file__).resolve().parent / "pages" / "heldout"
_spec = importlib.util.spec_from_file_location("heldout_measure", HELDOUT / "measure.py")
measure = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(measure)  # type: ignore[union-attr]

PAGES = sorted(p for d in HELDOUT.iterdir() if d.is_dir() for p in d.iterdir()
               if p.suffix in measure.SUFFIXES and p.is_file())


#: numbers a page's import does not place, and why (each is listed in the draft's notes)
KNOWN_MISSES = {
    # four numbers below 1e-300 (5.7661442e-340 …) are past the documented decimal exponent
    # limit and listed as such
    "c/basics.md": 4,
    # the weighted values written in a chain on one line ("Output = 0.731*[10,0] + 0.269*[0,20] = [7.31, 0]
    # + [0,5.38] = [7.31, 5.38]"): the terms [7.31, 0] and [0, 5.38] are listed as terms of a sum, not placed
    "g/puzzle13.txt": 4,
    # a token's row times one head's weights written out as a list item ('"love" → [0, 1] @ [[0,1],[1,0]] = [1, 0]'
    # under "New Q2 = X @ W_Q2 →"): the product's result, head 2's query for "love", is listed, not placed
    "j/multihead.md": 2,
}


def test_there_are_held_out_pages():
    assert len(PAGES) >= 8


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_held_out_page_places_every_number(page):
    total, right, extra, missed = measure.measure(page)
    assert total > 0
    assert (right, extra) == (total - KNOWN_MISSES.get(f"{page.parent.name}/{page.name}", 0), 0), missed[:10]
