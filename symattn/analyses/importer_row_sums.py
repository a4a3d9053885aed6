"""The row sums of printed attention weights, printed beside them as a check ('Row sums:' then
``tensor([1.0000, 1.0000, 1.0000])``, '每行的和（应该都是1.0）:'): one sum a query row, each near 1. They
are claims of the weights' rows (``weights_sum``), made by the same code as the weights."""

from __future__ import annotations

from .importer_items import ROW_SUMS_RE, Item
from .importer_model import _num

__all__ = ["row_sums_of"]


def row_sums_of(w: Item, items: list[Item]) -> Item | None:
    """The vector printed after the weights ``w`` (the first such after them) that says it is their row
    sums (its label or the line above it) and holds one number near 1 for each row of ``w``; else None.

    >>> from symattn.read.pages.model import Where
    >>> w = Item(rows=[["0.4", "0.6"], ["0.5", "0.5"]], where=[Where(1), Where(2)], line=0, end=1, step="weights")
    >>> s = Item(rows=[["1.0", "1.0"]], where=[Where(4)], line=3, end=3, kind="vector", label="Row sums:")
    >>> row_sums_of(w, [w, s]) is s
    True
    >>> t = Item(rows=[["1.0", "1.0"]], where=[Where(4)], line=3, end=3, kind="vector", label="Output:")
    >>> row_sums_of(w, [w, t]) is None
    True
    """
    n = w.shape[0]
    for it in items:
        if it.line <= w.end or it.kind != "vector" or it.shape[1] != n:
            continue
        if not ROW_SUMS_RE.search(it.label or ""):
            continue
        vals = [_num(v) for v in it.rows[0]]
        if all(v is not None and abs(v - 1) <= 0.01 for v in vals):
            return it
        return None
    return None
