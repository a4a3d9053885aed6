"""Inputs given afresh under a heading of their own, after an example was worked: a study guide's next
exercise. Two forms: Q, K and V given together on one line ("Given Q = K = V = […]") after an
example that started from embeddings and weights (see :func:`qkv_given_afresh`), and a score matrix
given outright after an example that started from Q, K and V ("Given the score matrix S (4×4) …"), not a printed result of the
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

__all__ = ["scores_given_afresh", "qkv_given_afresh"]


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


_WORKED = ("scores", "scaled", "masked", "weights", "output")


def qkv_given_afresh(inputs: dict, items: list[Item], it: Item, page_items: list[Item], lines: list[Line]) -> bool:
    """Whether ``it`` (Q, K or V named so, a matrix) starts a new example: the example so far started from
    embeddings (``inputs`` holds X), worked them (a score, weight or output printed), a heading stands
    after that work, and the line of ``it`` gives Q, K and V together (``Q = K = V = […]``), so they are
    given, not the example's projections printed again.

    >>> from symattn.read.pages.model import Where
    >>> def item(step, line, rows=(("1", "0"), ("0", "1"))):
    ...     return Item(rows=[list(r) for r in rows], where=[Where(line + 1)] * 2, line=line, end=line + 1,
    ...                 kind="matrix", step=step, strength=3)
    >>> x, w = item("X", 0), item("weights", 2)
    >>> q, k, v = item("Q", 6), item("K", 6), item("V", 6)
    >>> lines = [Line("", Where(i + 1)) for i in range(8)]
    >>> lines[5] = Line("Problem 1", Where(6), "heading")
    >>> qkv_given_afresh({"X": x}, [x, w], q, [x, w, q, k, v], lines)
    True
    >>> qkv_given_afresh({"X": x}, [x, w], q, [x, w, q, k], lines)  # V not given with them
    False
    >>> qkv_given_afresh({"X": x}, [x, w], q, [x, w, q, k, v], [Line("", Where(1))] * 8)  # no heading
    False
    """
    if it.step not in ("Q", "K", "V") or it.kind != "matrix" or it.strength < 3 or it.operand or "X" not in inputs:
        return False
    same = {c.step for c in page_items if c.line == it.line and c.kind == "matrix" and c.strength >= 3
            and not c.operand and c.shape == it.shape}
    if not {"Q", "K", "V"} <= same:
        return False
    worked = [c.end for c in items if c.step in _WORKED and c.strength >= 2 and c.line < it.line]
    if not worked:
        return False
    return any(ln.role == "heading" and ln.text.strip() for ln in lines[max(worked) + 1:it.line])
