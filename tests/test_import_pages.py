"""Pages written for the tests in each format and style met on published pages, each with
the example file(s) it must import to beside it (tests/pages/NAME.ext → NAME.toml, or
NAME-1.toml, NAME-2.toml, … for a page with several worked examples). The numbers are
published ones; the prose and code are ours."""

from pathlib import Path

import pytest

import symattn as sa
from import_compare import same_example

PAGES = Path(__file__).resolve().parent / "pages"
SUFFIXES = {".md", ".html", ".tex", ".ipynb", ".txt"}


def fixtures():
    out = []
    for p in sorted(PAGES.iterdir()):
        if p.suffix in SUFFIXES and p.is_file():
            expected = sorted(PAGES.glob(f"{p.stem}-[0-9]*.toml")) or [PAGES / f"{p.stem}.toml"]
            out.append(pytest.param(p, expected, id=p.name))
    return out


@pytest.mark.parametrize("page,expected", fixtures())
def test_page_imports_to_its_expected_files(page, expected):
    exs = sa.import_examples(page.read_text(encoding="utf-8"), source=page.name)
    assert len(exs) == len(expected), [e.title for e in exs]
    for ex, want in zip(exs, expected):
        same_example(ex.spec, sa.load(want))


@pytest.mark.parametrize("page,expected", fixtures())
def test_every_draft_loads_and_round_trips(page, expected):
    from symattn.views.draft import draft

    for ex in sa.import_examples(page.read_text(encoding="utf-8"), source=page.name):
        text = draft(ex, "x.toml")
        loaded = sa.loads(text, "x.toml")
        same_example(loaded, ex.spec)
        assert loaded.inputs_rounded == ex.spec.inputs_rounded
