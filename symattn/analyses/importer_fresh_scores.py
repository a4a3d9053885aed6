"""A score matrix given outright under its own heading, after an example that started from Q, K and
V: a study guide's next exercise ("Given the score matrix S (4×4) …"), not a printed result of the
example before. It starts a new example when it has another number of columns than the example has
keys, so it cannot be their scores.

>>> from symattn.read.pages.model import Line, Where
>>> from symattn.analyses.importer_items import Item
>>> def item(step, rows, line):
...     return Item(rows=rows, where=[Where(line + 1)] * len(rows), line=line, end=line + len(rows) - 1,
...                 kind="matrix" if len(rows) > 1 else "vector", step=step, strength=3)
>>> q, k = item("Q", [["1", "0"]], 0), item("K", [["1", "0"], ["0", "1"]], 1)
>>> s = item("scores", [["1", "2", "3"], ["4", "5", "6"], ["7", "8", "9"]], 5)
>>> lines = [Line("", Where(i + 1)) for i in range(6)]
>>> lines[4] = Line("Exercise 3", Where(5), "heading")
>>> scores_given_afresh([q, k], 3, s, lines)
True
>>> scores_given_afresh([q, k], 3, item("scores", [["1", "2"], ["3", "4"]], 5), lines)  # two keys: theirs
False
>>> scores_given_afresh([q, k], 3, s, [Line("", Where(1))] * 6)  # no heading between
False
"""

from __future__ import annotations

from ..read.pages.model import Line
from .importer_items import Item

__all__ = ["scores_given_afresh"]


def scores_given_afresh(items: list[Item], last: int, it: Item, lines: list[Line]) -> bool:
    """Whether ``it`` (a matrix named the scores) starts a new example: the example so far (``items``) has
    a query and keys given, a heading stands between its last line and ``it``, and ``it`` has another
    number of columns than any keys printed before have keys (rows, or columns when printed transposed)."""
    if it.step != "scores" or it.kind != "matrix" or it.strength < 2:
        return False
    keys = {(c.shape[1] if c.transposed else c.shape[0]) for c in items if c.step == "K" and c.strength >= 2
            and c.kind in ("matrix", "vector")}
    if not keys or not any(c.step == "Q" and c.strength >= 2 for c in items):
        return False
    if not any(ln.role == "heading" and ln.text.strip() for ln in lines[max(0, last + 1):it.line]):
        return False
    return it.shape[1] not in keys
