"""A part of a page whose projection weights are drawn in code and never printed (``W_q = torch.randn(…)``,
a ``SelfAttention`` class run on fresh random embeddings), that prints the steps it computes, named
(``print("Attention Weights:", attention_weights)``): claims only, one example, each step's first printing
its claim (the same step printed again with other numbers is listed)."""

from __future__ import annotations

from typing import Any

from .importer_items import Item
from .importer_model import ClaimRow, ImportedExample, Note, _numeric, _Segment
from .importer_rows import _listed, _rows_sum_to_one
from .importer_row_sums import row_sums_of

__all__ = ["printed_steps_of_random_weights"]

#: the steps such a part prints, in the derivation's order (inputs and projections are drawn, not printed)
_STEPS = ("scores", "scaled", "masked", "weights", "output")


def _steps_printed(items: list[Item]) -> dict[str, Item] | None:
    """The first named printing of each step (square n×n scores and weights, n rows of output), or None
    when the printings do not make one example: no weights that are a distribution row by row, no other
    step printed beside them, or shapes that disagree.

    >>> from symattn.read.pages.model import Where
    >>> def m(step, rows):
    ...     return Item(rows=rows, where=[Where(1)] * len(rows), line=0, end=0, step=step, strength=3)
    >>> got = _steps_printed([m("output", [["1", "2"], ["3", "4"]]), m("weights", [["0.4", "0.6"], ["0.5", "0.5"]])])
    >>> sorted(got)
    ['output', 'weights']
    >>> _steps_printed([m("weights", [["0.4", "0.6"], ["0.5", "0.5"]])]) is None  # the weights alone
    True
    >>> _steps_printed([m("output", [["1", "2"]]), m("weights", [["0.4", "0.6"], ["0.5", "0.5"]])]) is None
    True
    """
    first: dict[str, Item] = {}
    for it in items:
        if it.step in _STEPS and it.strength >= 2 and it.kind == "matrix" and it.batches == 1 and it.head is None \
                and not it.aside and not it.operand and not it.products and _numeric(it.rows):
            first.setdefault(it.step, it)
    w = first.get("weights")
    if w is None or w.shape[0] != w.shape[1] or w.shape[0] < 2 or _rows_sum_to_one(w.rows) != "weights":
        return None
    if len(first) < 2:
        sums = row_sums_of(w, items)
        if sums is None:
            return None  # weights alone: nothing on the part for check to hold them against
        first["weights_sum"] = sums  # … or with their row sums printed beside them ('Row sums:' [1. 1. 1.])
    n = w.shape[0]
    if any(it.shape[0] != n or (s != "output" and it.shape[1] != n) for s, it in first.items() if s != "weights_sum"):
        return None
    return first


def printed_steps_of_random_weights(imp: Any, seg: _Segment, index: int, code: str,
                                    where: str) -> ImportedExample | None:
    """The claims-only example of a part whose weights are drawn in code (``code``, at ``where``) and never
    printed, when it prints its steps named (see :func:`_steps_printed`); None otherwise. ``imp`` is the
    page's importer (its page and title)."""
    first = _steps_printed(seg.items)
    if first is None:
        return None
    used = [first[s] for s in _STEPS if s in first]
    n = used[0].shape[0]
    labels = next((list(it.row_labels) for it in used if it.row_labels and len(it.row_labels) == n
                   and len(set(it.row_labels)) == n), None)
    tokens = imp.page_tokens()
    if labels is None and tokens and len(tokens) == n and len(set(tokens)) == n:
        labels = list(tokens)
    rows = labels or [str(i + 1) for i in range(n)]
    claims: list[ClaimRow] = []
    for s in _STEPS:
        if s in first:
            it = first[s]
            claims += [ClaimRow(s, rows[i], list(r), str(it.where[i] if i < len(it.where) else it.where[0]))
                       for i, r in enumerate(it.rows)]
    if "weights_sum" in first:
        used.append(first["weights_sum"])
        claims += [ClaimRow("weights_sum", r, [v], first["weights_sum"].at()) for r, v in zip(rows, first["weights_sum"].rows[0])]
    notes = [Note("assumed", f"the page draws its weights in code ({code!r}, {where}) and prints none of them: the "
                             f"{', '.join(s for s in (*_STEPS, 'weights_sum') if s in first)} it prints drafted as claims only",
                  used[0].at())]
    notes += _listed([it for it in seg.items if all(it is not u for u in used)],
                     "the page gives no inputs to place it with")
    lines = imp.page.lines
    lo, hi = min(it.line for it in used), max(it.end for it in used)
    return ImportedExample(title=imp.title(index, lo), source=imp.page.source, format=imp.page.format, index=index,
                           count=index, tokens=labels, key_tokens=None, inputs={}, convention={}, claims=claims,
                           notes=notes, first_index=lo, first_line=str(lines[lo].where),
                           last_line=str(lines[min(hi, len(lines) - 1)].where))
