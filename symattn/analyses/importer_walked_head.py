"""A claims-only example drawn from blocks captioned as the first head of a multi-head model ('Raw Score
Matrix (Batch 0, Head 0):', then the scaled scores and weights of that walk): its steps are that head's
(``head1.scores``, ``head1.weights``), not the steps of a one-head example, when the page says it has
several heads. Heads numbered from 0 make 'Head 0' the first head; 'Head 1' is left as it is (the first
head on a page counting from 1, the second on one counting from 0: the caption alone does not say).

>>> first_head_caption("Raw Score Matrix (Batch 0, Head 0):"), first_head_caption("Head 1 weights")
(True, False)
>>> first_head_caption("heads: 0"), first_head_caption("Scaled Scores (head_0)")
(False, True)
"""

from __future__ import annotations

import re

from .importer_conventions import heads_evidence
from .importer_model import Choice, ClaimRow, ImportedExample, Note

_HEAD0_RE = re.compile(r"\bhead[\s_#-]*0\b", re.I)
_OTHER_HEAD_RE = re.compile(r"\bhead[\s_#-]*([1-9]\d?)\b", re.I)
_STEPS = ("scores", "scaled", "masked", "weights", "weights_sum", "output")


def first_head_caption(label: str | None) -> bool:
    """Whether a caption names head 0 (the first head of a page counting heads from 0)."""
    return bool(label and _HEAD0_RE.search(label))


def walked_first_head(imp, ex: ImportedExample) -> None:
    """Rename a claims-only example's claims to ``head1.<step>`` (see the module docstring) when the block
    of its first claim is captioned head 0, no block it draws from names another head, and the page says it
    has more than one head; else leave it as it is."""
    if ex.inputs or "heads" in ex.convention or not ex.claims or any(c.step not in _STEPS for c in ex.claims):
        return
    starts = {str(it.where[0]): it for it in imp.items if it.where}
    blocks = [starts[c.where] for c in ex.claims if c.where in starts]
    if not blocks or not first_head_caption(blocks[0].label) or any(
            _OTHER_HEAD_RE.search(it.label or "") for it in blocks):
        return
    ev = heads_evidence(imp.page.lines)
    if ev is None or int(ev.value) < 2:
        return
    ex.claims = [ClaimRow(f"head1.{c.step}", c.row, c.values, c.where, c.group, c.key) for c in ex.claims]
    ex.convention["heads"] = Choice(int(ev.value), f"the page says so: {ev.text!r}", where=ev.where)
    ex.notes.append(Note("assumed", f"the steps are captioned {blocks[0].label.strip()!r}: the first head's "
                                    "(heads counted from 0), drafted as head1's claims", blocks[0].at()))
