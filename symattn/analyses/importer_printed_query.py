"""Pages that print the queries Q (under their name) beside the embeddings X and the scores, but no keys,
no values and no projection weights: Q is then X times a weight the page never prints, so X is no V
either, and the printed scores QKᵀ are a result of numbers the page does not give. Such a draft starts
from the printed scores as claims (check judges them from their printed digits), with Q a claim too.

>>> from symattn.analyses.importer_items import Item
>>> x = Item(rows=[["1", "0"], ["0", "1"]], where=[None, None], line=0, end=1, step="X")
>>> q = Item(rows=[["0.5", "2"], ["1", "3"]], where=[None, None], line=3, end=4, step="Q", strength=1)
>>> printed_query_apart(x, [q]) is q
True
>>> printed_query_apart(x, [Item(rows=[["1", "0"], ["0", "1"]], where=[None, None], line=3, end=4, step="Q", strength=1)])
"""

from __future__ import annotations

from .importer_items import Item
from .importer_model import ClaimRow, Note, _numeric, _same_values


def printed_query_apart(x: Item, claims_items: list[Item]) -> Item | None:
    """The queries printed whole under their name after the embeddings, as many rows as X, other numbers than
    X (so made by a projection), when the page prints no keys and no values: else None."""
    if any(c.step in ("K", "V") and c.kind == "matrix" for c in claims_items):
        return None
    qs = [c for c in claims_items if c.step == "Q" and c.kind == "matrix" and c.strength >= 1
          and c.shape[0] == x.shape[0] and c.line > x.line and _numeric(c.rows) and not c.operand]
    if len(qs) != 1 or _same_values(qs[0].rows, x.rows):
        return None
    return qs[0]


def printed_query_claims(printed: list[Item] | None, spec, notes: list[Note],
                         placer_notes: list[Note] | None = None) -> list[ClaimRow]:
    """The printed queries (and keys) as the first claims of a draft that starts from the printed scores (none
    without them); the notes that listed them as unplaced are dropped."""
    if not printed:
        return []
    if len(printed) == 1:
        notes.append(Note("assumed", "Q is printed but no K, no V and no projection weights: Q is made from the "
                                     "embeddings by weights the page never prints, so the embeddings are no values "
                                     "and Q is a claim", printed[0].at()))
    else:
        notes.append(Note("assumed", "Q and K are printed and no V: the printed scores are their product, a result, "
                                     "so Q, K and the scores are claims", printed[0].at()))
    out = []
    for it in printed:
        labels = spec.query_labels() if it.step == "Q" else spec.key_labels()
        out += [ClaimRow(it.step or "Q", labels[i] if i < len(labels) else str(i + 1), list(r),
                         str(it.where[i] if i < len(it.where) else it.where[0])) for i, r in enumerate(it.rows)]
        if placer_notes is not None:
            placer_notes[:] = [n for n in placer_notes if not (n.kind == "unplaced" and n.where == it.at())]
    return out


def headed_output(printed: list[Item] | None, queries: list[str], items: list[Item],
                  notes: list[Note]) -> list[ClaimRow]:
    """With the printed queries taken as a claim (see :func:`printed_query_claims`), the output printed whole
    under its name after them, one row per query, that the draft listed for want of V: its rows are claims."""
    if not printed:
        return []
    q = printed[0]
    for it in items:
        if it.step != "output" or it.kind != "matrix" or it.line < q.line or it.shape[0] != len(queries) \
                or it.operand or it.products or not _numeric(it.rows):
            continue
        note = next((n for n in notes if n.kind == "unplaced" and n.where == it.at() and "prints no V" in n.text), None)
        if note is None:
            continue
        notes.remove(note)
        return [ClaimRow("output", name, list(r), str(it.where[min(i, len(it.where) - 1)]))
                for i, (name, r) in enumerate(zip(queries, it.rows))]
    return []
