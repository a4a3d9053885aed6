"""A batch of queries and keys printed as stacks (a test's ``q = array![[[…], […]], [[…], […]]]``, one matrix
per batch entry), then a stack that is each entry's product q·kᵀ, with no values anywhere::

    let q = array![[[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [1.0, 0.0]]];
    let k = array![[[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 2.0]]];
    let expected = array![[[1.0, 2.0], [3.0, 4.0]], [[0.0, 2.0], [2.0, 0.0]]];

(A page that gives stacked values too, or says it has heads, is read otherwise.) Each batch entry is an
example of its own with no inputs a file can hold (it needs V): its Q, its K and
its raw scores are claims (scale none). Read only when every entry of the third stack is exactly the
product of the entries of the two before it (numbers as written), so a stack of anything else (another
function's result, scaled scores) is never taken for scores.
"""

from __future__ import annotations

from typing import Any

from .importer_head_projections import exact_product, exact_values
from .importer_conventions import heads_evidence
from .importer_items import Item
from .importer_model import Choice, ClaimRow, ImportedExample, Note, number_examples


def _stacked(it: Item) -> bool:
    return it.kind == "stack" and it.stack is not None and it.batches >= 2 and not it.aside


def _product_stack(q: Item, k: Item, s: Item) -> bool:
    assert q.stack is not None and k.stack is not None and s.stack is not None
    if not (len(q.stack) == len(k.stack) == len(s.stack)):
        return False
    for a, b, c in zip(q.stack, k.stack, s.stack):
        kt = [list(col) for col in zip(*b)] if b else []
        got = exact_product(a, kt)
        want = exact_values(c)
        if got is None or want is None or got != want:
            return False
    return True


def stacked_qk_products(imp: Any, out: list[ImportedExample]) -> list[ImportedExample]:
    """One claims-only example per batch entry of stacked q, k and their products (see the module)."""
    used = {str(g.where[0]) for e in out for g in e.inputs.values()} | {c.where for e in out for c in e.claims}
    stacks = [it for it in imp.items if _stacked(it) and str(it.where[0]) not in used]
    if any(it.step == "V" for it in stacks) or heads_evidence(imp.page.lines) is not None:
        return []  # values given (another reading's batch), or the stacks may be heads
    lines = imp.page.lines
    made: list[ImportedExample] = []
    for i, q in enumerate(stacks):
        if q.step != "Q":
            continue
        k = next((c for c in stacks[i + 1:] if c.step == "K" and c.batches == q.batches), None)
        s = next((c for c in stacks[i + 1:] if k is not None and c.line > k.line and c.step in (None, "scores")
                  and c.batches == q.batches), None)
        if k is None or s is None or not _product_stack(q, k, s):
            continue
        ats = {q.at(), k.at(), s.at()}
        for e in out:  # listed there as printed before that example's inputs: drafted here
            e.notes = [n for n in e.notes if not (n.kind == "unplaced" and n.where in ats)]
        why = f"every entry of {s.label.strip() or 'the stack'} ({s.at()}) is that entry's q·kᵀ exactly"
        for b, (qm, km, sm) in enumerate(zip(q.stack, k.stack, s.stack), 1):  # type: ignore[arg-type]
            claims = [ClaimRow("Q", str(r + 1), list(row), q.at()) for r, row in enumerate(qm)]
            claims += [ClaimRow("K", str(r + 1), list(row), k.at()) for r, row in enumerate(km)]
            claims += [ClaimRow("scores", str(r + 1), list(row), s.at()) for r, row in enumerate(sm)]
            notes = [Note("assumed", f"batch entry {b} of {q.batches} of stacked queries and keys with no values: "
                                     "its Q, K and raw scores are drafted as claims only", q.at())]
            made.append(ImportedExample(
                title=f"{imp.title(2, q.line)} (batch entry {b})", source=imp.page.source, format=imp.page.format,
                index=0, count=1, tokens=None, key_tokens=None, inputs={},
                convention={"scale": Choice("none", why, where=s.at())}, claims=claims, notes=notes,
                first_index=q.line, first_line=str(lines[q.line].where),
                last_line=str(lines[min(s.end, len(lines) - 1)].where)))
    return made


def numbered(exs: list[ImportedExample]) -> list[ImportedExample]:
    """The examples numbered among themselves (a page with these alone)."""
    return number_examples(exs)
