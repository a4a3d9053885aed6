"""A page whose inputs are drawn at random and never printed, and whose only printed step is one row of the
weights, named by its row number::

    Row 1 weights: first token is 'The' : --->  [0.0129619  0.0088241  0.00291238 0.89626405 0.07590556 0.00313201]

A draft of claims only: that row of the weights (the other rows ".."), as many keys as the row is long
(self-attention: as many queries). Later printings of the same row, rounded or cut to fewer digits
(``[0.0129, 0.0088, …]``), are ``also`` printings of it; a line printing its largest entry again is read
by :mod:`.importer_max_entry`.

>>> cut_or_rounded("0.0129", "0.0129619"), cut_or_rounded("0.013", "0.0129619"), cut_or_rounded("0.0128", "0.0129619")
(True, True, False)
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from .importer_claims_only import is_distribution
from .importer_conventions import scale_evidence
from .importer_items import Item, _row_word
from .importer_max_entry import max_restatements
from .importer_model import Choice, ClaimRow, ImportedExample, Note, _numeric
from .importer_rows import _within_rounding


def cut_or_rounded(short: str, full: str) -> bool:
    """Whether ``short`` is ``full`` rounded, or cut (truncated), to its own digits."""
    if _within_rounding(short, full):
        return True
    try:
        s, f = Decimal(short.strip()), Decimal(full.strip())
    except InvalidOperation:
        return False
    exp = s.as_tuple().exponent
    if not isinstance(exp, int) or exp < -40 or exp > 0:
        return False
    return f.quantize(Decimal(1).scaleb(exp), rounding="ROUND_DOWN") == s


def _row_item(items: list[Item]) -> tuple[Item, int] | None:
    for it in items:
        if it.kind != "vector" or it.step != "weights" or it.strength < 2 or not _numeric(it.rows):
            continue
        i = _row_word(it.label)
        n = it.shape[1]
        if i is not None and 1 <= i <= n and n >= 2 and is_distribution(it.rows[0]):
            return it, i
    return None


def named_row_only(imp: Any) -> ImportedExample | None:
    """The claims-only draft of one named row of the weights (see the module), or None."""
    if any(it.kind == "matrix" and it.step in ("scores", "scaled", "weights", "output") and it.strength >= 2
           for it in imp.items):
        return None  # a page with whole steps printed: other readings take it
    got = _row_item(imp.items)
    if got is None:
        return None
    it, i = got
    n = it.shape[1]
    rows = [str(r + 1) for r in range(n)]
    main = list(it.rows[0])
    claims = [ClaimRow("weights", rows[r], main if r == i - 1 else [".."] * n, it.at()) for r in range(n)]
    for other in imp.items:
        row = [x.strip("*_ ") for x in other.rows[0]]  # '**0.8962**': an entry set in bold
        if other is it or other.kind != "vector" or other.step != "weights" or other.shape[1] != n \
                or not _numeric([row]) or other.line <= it.line:
            continue
        if all(cut_or_rounded(a, b) for a, b in zip(row, main)) and row != main:
            claims.append(ClaimRow("weights", rows[i - 1], row, other.at(), other.at()))
    lines = imp.page.lines
    conv: dict[str, Choice] = {}
    sc = scale_evidence(lines)
    if sc is not None:
        conv["scale"] = Choice(sc.value, f"the page says so: {sc.text!r}", where=sc.where)
    notes = [Note("assumed", f"the page prints one row of the weights (row {i}, named so) and none of the inputs "
                             "that make it: drafted as claims only, the other rows not printed", it.at())]
    ex = ImportedExample(title=imp.title(1, it.line), source=imp.page.source, format=imp.page.format, index=1,
                         count=1, tokens=None, key_tokens=None, inputs={}, convention=conv, claims=claims, notes=notes,
                         first_index=it.line, first_line=str(lines[it.line].where),
                         last_line=str(lines[min(it.end, len(lines) - 1)].where))
    max_restatements([ex], lines)
    return ex
