"""The largest entry of a step printed again on its own line, often at full precision::

    Unscaled max score: 1.8294003009796143
    The Highest probablity: --->  0.896264053717683

The number restates the one entry of a printed step (scores, scaled scores, weights) that it rounds to,
when that entry is the largest of its row or of its whole matrix: an ``also`` printing of that entry
(the other entries ".."). Read only when exactly one entry of the example's steps fits; a line whose
words name a step (``Unscaled max score``: the scores) must name the step of that entry.

>>> max_line("Unscaled max score: 1.8294003009796143")
('Unscaled max score', '1.8294003009796143')
>>> max_line("The Highest probablity: --->  0.896264053717683")
('The Highest probablity', '0.896264053717683')
>>> max_line("Highest weight: 0.61"), max_line("max_len = 6") is None
(('Highest weight', '0.61'), True)
"""

from __future__ import annotations

import re

from .importer_model import ClaimRow, ImportedExample, _num
from .importer_names import step_of_text
from .importer_rows import _within_rounding

_MAX_RE = re.compile(r"\s*((?:[A-Za-z][\w ]{0,40}?)?\b(?:max(?:imum)?|highest|largest)\b[\w ]{0,30}?)\s*[:=]\s*"
                     r"(?:-{1,3}>\s*)?([+-]?\d{1,6}\.\d{1,20})\s*", re.I)
_STEPS = ("scores", "scaled", "weights")


def max_line(text: str) -> tuple[str, str] | None:
    """(the words, the number) of a line printing a largest entry (see the module), or None."""
    if len(text) > 200:
        return None
    m = _MAX_RE.fullmatch(text)
    return (m.group(1).strip(), m.group(2)) if m else None


def _fits(ex: ImportedExample, words: str, number: str) -> tuple[str, str, int, int] | None:
    named = step_of_text(words)
    if named == "scores" and re.search(r"\bscaled\b", words, re.I):
        named = "scaled"
    hits = []
    for step in _STEPS:
        if named is not None and named != step:
            continue
        rows = [c for c in ex.claims if c.step == step and c.group is None and c.key is None]
        vals = [[_num(x) for x in c.values] for c in rows]
        top = max((v for r in vals for v in r if v is not None), default=None)
        for i, (c, r) in enumerate(zip(rows, vals)):
            row_top = max((v for v in r if v is not None), default=None)
            for j, x in enumerate(c.values):
                if r[j] is not None and _within_rounding(x, number) and r[j] in (row_top, top):
                    hits.append((step, c.row, i, j))
    return hits[0] if len(hits) == 1 else None


def max_restatements(out: list[ImportedExample], lines: list) -> None:
    """Each line printing a largest entry, as an ``also`` printing of the one entry it restates."""
    for k, ln in enumerate(lines):
        if ln.role not in ("output", "prose"):
            continue
        got = max_line(ln.text)
        if got is None:
            continue
        words, number = got
        before = [e for e in out if e.first_index <= k]
        ex = before[-1] if before else None
        fit = _fits(ex, words, number) if ex is not None else None
        if ex is None or fit is None:
            continue
        step, row, _, j = fit
        width = len(next(c.values for c in ex.claims if c.step == step and c.row == row and c.group is None))
        ex.claims.append(ClaimRow(step, row, [number if m == j else ".." for m in range(width)], str(ln.where),
                                  str(ln.where)))
