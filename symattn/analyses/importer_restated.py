"""A later part of the page that reproduces an example's step with weights of its own it never prints (a
PyTorch class run after the NumPy one), printing it rounded to fewer digits: ``tensor([[1.0420, 1.1027],
…], grad_fn=<MmBackward0>)`` beside ``[[1.04199908, 1.1026673], …]``. Every entry is the example's to the
shorter printing's digits, so it restates that step: a group of the example's claims printed again
(``also``), not a number left unplaced.

>>> from symattn.analyses.importer_model import ClaimRow
>>> main = [ClaimRow("output", "1", ["1.04199908", "1.1026673"], "a"), ClaimRow("output", "2", ["1.0451", "1.1024"], "a")]
>>> rounded_step(main, [["1.0420", "1.1027"], ["1.0451", "1.1024"]])
'output'
>>> rounded_step(main, [["1.0420", "1.1037"], ["1.0451", "1.1024"]]) is None   # 1.1037 is no rounding of 1.1026673
True
"""

from __future__ import annotations

from .importer_items import Item
from .importer_model import ClaimRow, ImportedExample, Note, _numeric
from .importer_rows import _within_rounding


def rounded_step(claims: list[ClaimRow], rows: list[list[str]]) -> str | None:
    """The step whose main claims these rows restate, each entry to its own printed digits (not all the same
    texts: that is a plain repeat), when exactly one step does."""
    by_step: dict[str, list[list[str]]] = {}
    for c in claims:
        if c.group is None and c.key is None and not c.step.endswith("_sum"):
            by_step.setdefault(c.step, []).append(c.values)
    hits = [step for step, have in by_step.items()
            if len(have) == len(rows) >= 2 and all(len(a) == len(b) >= 2 for a, b in zip(have, rows))
            and all(_within_rounding(x, y) for a, b in zip(have, rows) for x, y in zip(a, b))
            and any(x.strip() != y.strip() for a, b in zip(have, rows) for x, y in zip(a, b))]
    return hits[0] if len(hits) == 1 else None


def restated_rounded(ex: ImportedExample, it: Item) -> bool:
    """Add ``it`` to ``ex`` as a rounded printing of one of its steps (see the module); whether it was."""
    if it.kind != "matrix" or not _numeric(it.rows):
        return False
    step = rounded_step(ex.claims, it.rows)
    if step is None:
        return False
    labels = [c.row for c in ex.claims if c.group is None and c.step == step]
    ex.claims += [ClaimRow(step, labels[i], list(r), str(it.where[min(i, len(it.where) - 1)]), it.at())
                  for i, r in enumerate(it.rows)]
    ex.notes.append(Note("repeat", f"prints {step} again, rounded (from code whose weights the page makes in code)",
                         it.at()))
    return True
