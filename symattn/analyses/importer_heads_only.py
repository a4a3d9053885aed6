"""A page with no inputs that prints the steps of several heads, each matrix under a caption that numbers
its head ('Head 1 注意力权重：' then a tensor, 'Head 2 attention weights:' then another, from a random model it
never prints): one claims-only example whose claims are the heads' steps (``head1.weights``,
``head2.weights``, …), each head's matrix in its own place, never one head's numbers as another's.

>>> from symattn.analyses.importer_heads_only import heads_in_order
>>> heads_in_order([(1, "weights"), (2, "weights")]), heads_in_order([(1, "weights"), (1, "weights")])
(True, False)
"""

from __future__ import annotations

import re

from .importer_claims_only import is_distribution
from .importer_items import Item
from .importer_model import CLAIM_ORDER, Choice, ClaimRow, ImportedExample, Note, _same_values
from .importer_rows import _listed, _numeric_or_inf

#: the steps a head's printed matrix may be (one row per query)
_HEAD_STEPS = ("scores", "scaled", "masked", "weights", "output")


def heads_in_order(found: list[tuple[int, str]]) -> bool:
    """Whether (head, step) pairs printed in page order number at least two heads, each step of a head
    printed once (a head's step printed twice would be another example, or a restatement to tell apart)."""
    return len({h for h, _ in found}) >= 2 and len(set(found)) == len(found)


def _distributions(it: Item) -> bool:
    """Whether every row can be a printed softmax: each a distribution to its digits, and not all
    integers (``attn_weights[0,0]`` and ``[0,1]`` read as the rows [0, 0], [0, 1] are indices)."""
    return all(is_distribution(list(r)) for r in it.rows) and any("." in x or "e" in x.lower()
                                                                   for r in it.rows for x in r)


_CAPTION_HEAD_RE = re.compile(r"\bhead[\s_#-]*(\d{1,2})\b", re.I)


def _heads_of(steps: list[Item]) -> list[int] | None:
    """Each block's head, from 1: captions numbering heads from 0 ('Head 0:', 'Head 1:') give 1, 2, …;
    else the head each block names; None where a block names no head.

    >>> from symattn.analyses.importer_items import Item
    >>> def block(label): return Item(rows=[["1"]], where=[], line=0, end=0, label=label)
    >>> _heads_of([block("Head 0 weights:"), block("Head 1 weights:")]), _heads_of([block("weights:")])
    ([1, 2], None)
    """
    nums = [_CAPTION_HEAD_RE.search(it.label or "") for it in steps]
    if all(nums) and 0 in [int(m.group(1)) for m in nums]:  # type: ignore[union-attr]
        return [int(m.group(1)) + 1 for m in nums]  # type: ignore[union-attr]
    if all(it.head is not None for it in steps):
        return [int(it.head) for it in steps]  # type: ignore[arg-type]
    return None


def per_head_steps(imp) -> ImportedExample | None:
    """The claims-only example of a page whose only step matrices are captioned by head number (see the
    module docstring), or None. Every block printed as a step must name its head; the blocks of one step
    share a shape, the score-like steps are square-compatible with the weights (as many rows), and every
    printed weights row is a probability distribution to its digits. Blocks in code (a literal, an index such
    as ``attn_weights[0,0]``), and blocks named weights under no head whose rows are not distributions (the
    index read as a tiny matrix on a page copied as text), are not printings of a step: listed with the page's
    other numbers."""
    steps = [it for it in imp.items if it.kind == "matrix" and it.strength >= 2 and it.step in _HEAD_STEPS
             and _numeric_or_inf(it.rows) and not it.operand and not it.products and it.role != "code"
             and not (it.head is None and it.step == "weights" and not _distributions(it))]
    hs = _heads_of(steps)
    if not steps or hs is None or any(it.batches != 1 for it in steps):
        return None
    head = {id(it): h for it, h in zip(steps, hs)}
    found = [(head[id(it)], it.step) for it in steps]
    if not heads_in_order(found):
        return None
    if len({it.shape[0] for it in steps}) != 1 or any(
            len({it.shape for it in steps if it.step == st}) != 1 for st in {it.step for it in steps}):
        return None
    if any(it.step == "weights" and not _distributions(it) for it in steps):
        return None
    labels = next((list(it.row_labels) for it in steps if it.row_labels and len(it.row_labels) == it.shape[0]
                   and len({x.lower() for x in it.row_labels}) == len(it.row_labels)), None)
    rows = labels or [str(i + 1) for i in range(steps[0].shape[0])]
    claims: list[ClaimRow] = []
    for it in steps:
        for i, r in enumerate(it.rows):
            claims.append(ClaimRow(f"head{head[id(it)]}.{it.step}", rows[i], list(r),
                                   str(it.where[i] if i < len(it.where) else it.where[0]), None))
    claims.sort(key=lambda c: (int(c.step.split(".")[0][4:]), CLAIM_ORDER.index(c.step.split(".", 1)[1])))
    heads = max(hs)
    first = steps[0]
    conv = {"heads": Choice(heads, f"the page numbers the heads it prints up to {heads}", where=first.at(),
                            assumed=True)}
    notes = [Note("assumed", "the page prints the steps of heads " + ", ".join(str(h) for h in
                                                                            sorted(set(hs)))
                  + " and none of the inputs that make them: drafted as claims only, each head's in its place",
                  first.at())]
    used = {id(it) for it in steps}
    notes += _listed([it for it in imp.items if id(it) not in used and not any(
        _same_values(it.rows, s.rows) for s in steps)], "the page gives no inputs to place it with")
    lines = imp.page.lines
    first_line = min(it.line for it in steps)
    last = max(it.end for it in steps)
    return ImportedExample(title=imp.title(1, first_line), source=imp.page.source, format=imp.page.format, index=1,
                           count=1, tokens=labels, key_tokens=None, inputs={}, convention=conv, claims=claims,
                           notes=notes, first_index=first_line, first_line=str(lines[first_line].where),
                           last_line=str(lines[min(last, len(lines) - 1)].where))
