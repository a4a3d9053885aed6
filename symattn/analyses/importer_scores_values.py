"""Values given after a worked example's scores: a page that starts from scores already scaled (and
masked), prints their softmax, then gives the values the weights average (``v0 = [1, 0]``, ``v1 = [0, 2]``,
``v2 = [2, 1]``, or ``V = [[…], …]``) and the output. The values are the example's V, beside its printed
scores, not the start of another example printed before any inputs.

Only when the part of the page so far holds printed scores (a vector or matrix, named by code, a symbol
or a label) and nothing named Q, K or V, and the values have one row per key of those scores.

>>> from symattn.analyses.importer_items import Item
>>> s = Item([["2.0", "1.0", "0.0"]], [], 1, 1, "vector", step="scores", strength=3)
>>> v = Item([["1", "0"], ["0", "2"], ["2", "1"]], [], 5, 7, "matrix", step="V", strength=3)
>>> values_after_scores([s], "V", v), values_after_scores([s], "V", Item(v.rows[:2], [], 5, 6, step="V"))
(True, False)
>>> values_after_scores([s], "X", v)
False
"""

from __future__ import annotations

from .importer_items import Item

__all__ = ["values_after_scores"]


def _numeric(rows: list[list[str]]) -> bool:
    try:
        [float(x) for r in rows for x in r]
    except ValueError:
        return False
    return bool(rows)


def values_after_scores(items: list[Item], name: str, it: Item) -> bool:
    """Whether ``it``, named as the values ``name``, are the values of the printed scores among ``items``
    (see the module's docstring)."""
    if name != "V" or it.kind != "matrix" or not _numeric(it.rows):
        return False
    s = next((c for c in items if c.step == "scores" and c.strength >= 2 and c.kind in ("vector", "matrix")
              and _numeric(c.rows)), None)
    return s is not None and len(s.rows[0]) == len(it.rows) and not any(
        c.step in ("Q", "K", "V") and c.strength >= 2 for c in items)
