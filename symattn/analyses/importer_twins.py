"""One run's results printed twice, each rounded to its own digits: a page that shows its demo's
weights as a table with two decimals ("these are the real numbers of the example below") and then
the demo's NumPy output with three. Read alone, each printing is an example of claims only; they are
one example, the finer printing its claims and the coarser one a restatement (``claims.also``).

Two claims-only examples are folded only when they name the same tokens, print the same steps and
rows with the same widths, and every number of one is the other's within the rounding of both
(0.03 and 0.028): a table of other numbers, or of other tokens, stays an example of its own.
"""

from __future__ import annotations

import re

from .importer_model import ImportedExample, Note, number_examples
from .importer_rows import _within_rounding

__all__ = ["fold_rounded_twins"]

_SUFFIX_RE = re.compile(r"\s*\(example \d+ of \d+\)$")


def _rows(ex: ImportedExample) -> dict[tuple[str, str, str | None], list[str]]:
    return {(c.step, c.row, c.key): c.values for c in ex.claims if c.group is None}


def _digits(ex: ImportedExample) -> int:
    """The decimals an example's numbers carry, trailing zeros aside (NumPy prints 1. for 1.000)."""
    return sum(len(v.split(".", 1)[1].rstrip("0")) if "." in v else 0 for vals in _rows(ex).values() for v in vals)


def twins(a: ImportedExample, b: ImportedExample) -> bool:
    """Whether two examples are claims only, of the same tokens, printing the same rows within rounding."""
    if a.inputs or b.inputs or not a.tokens or a.tokens != b.tokens or a.key_tokens != b.key_tokens:
        return False
    ra, rb = _rows(a), _rows(b)
    if not ra or ra.keys() != rb.keys():
        return False
    return all(len(ra[k]) == len(rb[k]) and all(x == ".." or y == ".." or _within_rounding(x, y)
                                                 for x, y in zip(ra[k], rb[k])) for k in ra)


def fold_rounded_twins(out: list[ImportedExample]) -> list[ImportedExample]:
    """``out`` with each claims-only example that another one prints again, rounded, folded into it
    (see the module); the examples are numbered again."""
    if len(out) < 2:
        return out
    gone: set[int] = set()
    for i, a in enumerate(out):
        for j in range(i + 1, len(out)):
            b = out[j]
            if i in gone or j in gone or not twins(a, b):
                continue
            keep, fold = (a, b) if _digits(a) >= _digits(b) else (b, a)
            where = next((c.where for c in fold.claims if c.group is None), fold.first_line) or fold.first_line
            for c in fold.claims:
                if c.group is None:
                    c.group = where
                keep.claims.append(c)
            keep.notes += [n for n in fold.notes if n.kind == "unplaced"]
            keep.notes.append(Note("repeat", f"prints the same steps again, each number rounded to its own digits: "
                                             f"read as a restatement of this example ({_SUFFIX_RE.sub('', fold.title)!r})", where))
            keep.first_index = min(keep.first_index, fold.first_index)
            gone.add(out.index(fold))
    if not gone:
        return out
    kept = [e for k, e in enumerate(out) if k not in gone]
    return number_examples(kept)
