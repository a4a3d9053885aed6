"""A printout captioned by a phrase and ``=`` (``print("Scaled scores =")`` then the matrix): the caption's
last word alone reads as a variable (``scores``), but the whole phrase names the step (the scaled scores,
the masked scores). Only a phrase of words before the ``=`` (not a code name), only when it names the
scaled or masked scores where the last word names the raw ones.

>>> caption_step("Scaled scores = "), caption_step("Masked scores ="), caption_step("scores = ")
('scaled', 'masked', None)
>>> caption_step("Raw scores = ") is None
True
"""

from __future__ import annotations

import re

from .importer_items import Item
from .importer_names import step_of_text


def caption_step(before: str) -> str | None:
    """The scaled or masked scores a captioned phrase ``Scaled scores =`` names, or None."""
    m = re.fullmatch(r"\s*([A-Za-z][A-Za-z-]{0,20}(?:\s+[A-Za-z][A-Za-z-]{0,20}){1,3})\s*[=:]\s*", before)
    if m is None:
        return None
    st = step_of_text(m.group(1))
    return st if st in ("scaled", "masked") else None


def captioned_phrases(items: list[Item]) -> None:
    """Scores printed under a caption phrase naming the scaled (or masked) scores: that step."""
    for it in items:
        if it.step == "scores" and it.strength == 3 and it.role == "output" and it.kind == "matrix":
            st = caption_step(it.before)
            if st is not None:
                it.step = st
                it.notes.append(f"the caption {it.before.strip()!r} names the {st} scores")
