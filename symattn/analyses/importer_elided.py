"""A printout cut short: a README's "Example Output" that prints the first rows of each step (the queries,
the attention weights, the output) and then ``...`` for the rest, from inputs made in a script it does
not show. Claims only: each named step's printed rows are its first rows (query 1, 2, …), the rows left
out are not claimed."""

from __future__ import annotations

import re
from typing import Any

from .importer_items import Item
from .importer_model import ClaimRow, ImportedExample, Note, _numeric
from .importer_rows import _listed

__all__ = ["elided_steps"]

#: the steps such a printout names, in the derivation's order
_STEPS = ("Q", "K", "V", "scores", "scaled", "weights", "output")
_ELISION = re.compile(r"\s{0,40}(?:\.\.\.|…|⋮)\s{0,40}")


def _elided(lines: list, it: Item) -> bool:
    """Whether the line right after ``it`` only says that rows were left out."""
    k = it.end + 1
    return k < len(lines) and bool(_ELISION.fullmatch(lines[k].text))


def elided_steps(imp: Any) -> ImportedExample | None:
    """The claims-only example of a page whose printed output names two or more steps, at least one of them
    cut short by an elision line, in shapes that fit one example (the weights' width is the number of keys,
    no step has more rows than that; Q and K as wide); None otherwise. ``imp`` is the page's importer."""
    lines = imp.page.lines
    first: dict[str, Item] = {}
    for it in imp.items:
        if it.step in _STEPS and it.strength >= 2 and it.role == "output" and it.batches == 1 and it.head is None \
                and not it.aside and not it.operand and not it.products and _numeric(it.rows):
            first.setdefault(it.step, it)
    if len(first) < 2 or not any(_elided(lines, it) for it in first.values()):
        return None
    w = first.get("weights") or first.get("scores") or first.get("scaled")
    if w is None:
        return None
    n = w.shape[1]
    if any(it.shape[0] > n for it in first.values()) or \
            any(first[s].shape[1] != n for s in ("scores", "scaled", "weights") if s in first):
        return None
    if "Q" in first and "K" in first and first["Q"].shape[1] != first["K"].shape[1]:
        return None
    used = [first[s] for s in _STEPS if s in first]
    claims = [ClaimRow(s, str(i + 1), list(r), str(first[s].where[i] if i < len(first[s].where) else first[s].where[0]))
              for s in _STEPS if s in first for i, r in enumerate(first[s].rows)]
    shown = ", ".join(s for s in _STEPS if s in first)
    notes = [Note("assumed", f"the page prints the first rows of the {shown} and leaves the rest out ('...'), "
                             "from inputs it does not print: drafted as claims of those rows only", used[0].at())]
    notes += _listed([it for it in imp.items if all(it is not u for u in used)],
                     "the page gives no inputs to place it with")
    lo, hi = min(it.line for it in used), max(it.end for it in used)
    return ImportedExample(title=imp.title(1, lo), source=imp.page.source, format=imp.page.format, index=1, count=1,
                           tokens=None, key_tokens=None, inputs={}, convention={}, claims=claims, notes=notes,
                           first_index=lo, first_line=str(lines[lo].where),
                           last_line=str(lines[min(hi, len(lines) - 1)].where))
