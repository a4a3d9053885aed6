"""A name the page defines with the scale, then prints under that very name::

    scores = Q × Kᵀ / √d_k
    …
    scores =
    [[0.10, 0.04, 0.12], …]

The printed ``scores`` are what the page's definition of ``scores`` makes: the scaled scores, though
the word alone names the raw ones. Read only when the definition is the nearest formula above the
block (no other block between, within a few lines), its left side is the block's own name, and the
page prints no other block it calls scaled.

>>> defined_name(r"scores = Q × Kᵀ / √d_k")
'scores'
>>> defined_name(r"S = \\frac{QK^T}{\\sqrt{d_k}}")
'S'
>>> defined_name("scores = Q × Kᵀ") is None   # no scale: the raw scores
True
"""

from __future__ import annotations

import re

from .importer_items import Item

_DEF_RE = re.compile(r"\s*`?\$?\s*([A-Za-z][\w]{0,30})\s*=\s*(?:\\[dt]?frac\s*\{[^{}]{0,80}Q[^{}]{0,80}K[^{}]{0,80}\}"
                     r"\s*\{\s*(?:\\sqrt|√)|\(?[^=/()]{0,80}Q[^=/()]{0,80}K[^=/()]{0,80}\)?\s*/\s*(?:√|sqrt\b|\\sqrt))")


def defined_name(text: str) -> str | None:
    """The name a line defines as QKᵀ divided by a root (``scores = Q × Kᵀ / √d_k``), or None."""
    if len(text) > 400:
        return None
    m = _DEF_RE.match(text)
    return m.group(1) if m else None


def named_scaled_scores(items: list[Item], lines: list) -> None:
    """A block of the scores printed under the name a formula just above defines with the scale: scaled."""
    if any(it.step == "scaled" for it in items):
        return
    ends = sorted(it.end for it in items)
    for it in items:
        if it.step != "scores" or it.strength < 3 or it.kind != "matrix":
            continue
        name = it.label.strip(" =:`$")
        if not re.fullmatch(r"[A-Za-z]\w{0,30}", name):
            continue
        prev = max((e for e in ends if e < it.line), default=-1)
        for k in range(it.line - 1, max(prev, it.line - 12), -1):
            if defined_name(lines[k].text) == name:
                it.step = "scaled"
                it.notes.append(f"the page defines {name} with the scale (line {lines[k].where}): the scaled scores")
                break
