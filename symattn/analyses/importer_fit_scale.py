"""Scores given outright, and weights printed beside them that are the softmax of those scores as they
are: the example is unscaled, whatever a glossary or another part of the page says about dividing by
√d_k. A weights row printed with zeros (the masked keys of a causal example, ``[0.45, 0.55, 0, 0]``)
is the softmax of the other entries of its score row.

>>> from symattn.read.pages.model import Where
>>> from symattn.analyses.importer_items import Item
>>> w = Item(rows=[["0.45", "0.55", "0", "0"]], where=[Where(9)], line=8, end=8, kind="vector", step="weights", strength=2)
>>> scores = [["0.5", "0.3", "0.1", "0.1"], ["0.2", "0.4", "0.2", "0.2"]]
>>> weights_fit_unscaled(scores, [w], 64) is w
True
>>> weights_fit_unscaled(scores, [w], None) is None  # no d_k: one-decimal scores cannot tell
True
>>> even = Item(rows=[["0.5", "0.5", "0", "0"]], where=[Where(9)], line=8, end=8, kind="vector", step="weights", strength=2)
>>> weights_fit_unscaled([["0.3", "0.3", "0.1", "0.2"]], [even], 64) is None  # equal scores: any scale fits
True
"""

from __future__ import annotations

import math

from .importer_items import Item
from .importer_values import _softmax_of, _value

__all__ = ["weights_fit_unscaled"]

#: at most this many score rows and weight rows are compared (bounded work)
_MAX_ROWS = 64


def weights_fit_unscaled(scores: list[list[str]], items: list[Item], d_k: int | None) -> Item | None:
    """The first printed weights row (named so) that is the softmax of a printed score row as it is (its
    keys printed 0 left out); None when there is none, when no d_k is known, or when some printed weights
    are the softmax of a score row divided by √d_k."""
    rows = [[_value(x) for x in r] for r in scores[:_MAX_ROWS]]
    if not d_k or d_k < 2 or not rows or any(v is None for r in rows for v in r):
        return None
    c = math.sqrt(d_k)
    found: Item | None = None
    for it in items[:_MAX_ROWS * 4]:
        if it.step != "weights" or it.strength < 2:
            continue
        for wr in it.rows[:_MAX_ROWS]:
            w = [_value(x) for x in wr]
            if len(w) != len(rows[0]) or any(v is None for v in w):
                continue
            kept = [j for j, (v, _) in enumerate(w) if v != 0]  # type: ignore[misc]
            if len(kept) < 2:
                continue
            for r in rows:
                a = [r[j] if j in kept else (-math.inf, 0.0) for j in range(len(r))]
                if len({a[j][0] for j in kept}) < 2:  # type: ignore[index]
                    continue
                if _softmax_of([[(v / c, h / c) for v, h in a]], [w]):  # type: ignore[misc, list-item]
                    return None  # weights printed that the scaled scores give: the page scales (beside, say,
                    # an unscaled softmax shown to compare)
                if found is None and len(it.rows) == 1 and _softmax_of([a], [w]):  # type: ignore[list-item]
                    found = it
    return found
