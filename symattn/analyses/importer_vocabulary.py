"""A vocabulary's embeddings listed one token a line before the example, then the sequence's matrix X
picking rows of it:

    - A = [1, 0]
    - B = [0, 1]
    - C = [1, 1]
    - D = [0, 0]
    ...
    X = [[1, 0],    # Token A
         [0, 1]]    # Token B

The listed vectors are the embedding table of every token the model knows, not the example's inputs (C
and D are not in the sequence); the matrix named X is. Each listed vector is set aside (listed, never an
input or a step), and X's rows take the names of the listed vectors they equal.

Only where at least three vectors of one width stand one a line, each as ``NAME = [..]`` (a bullet may
open the line), all of different values and names; a matrix named X by code or a math symbol follows,
as wide, with fewer rows, and each of its rows equals exactly one listed vector (no two rows the same
token). A list that X does not pick from, or an X with a row of its own, leaves both as they were.

>>> _entry_name("- A = [1, 0]"), _entry_name("* **cat**: [0.5, 1]"), _entry_name("score = 3 + [1, 0]")
('A', 'cat', None)
"""

from __future__ import annotations

import re
from fractions import Fraction

from .importer_items import Item

__all__ = ["vocabulary_rows"]

_ENTRY = re.compile(r"^\s*(?:[-*+]\s+)?[`*]{0,2}([A-Za-z][\w']{0,19})[`*]{0,2}\s*[=:]\s*[`*]{0,2}\s*\[[^\[\]]{0,400}\]"
                    r"[`*]{0,2}\s*[.,;]?\s*$")
_MAX_RUN = 256


def _entry_name(text: str) -> str | None:
    m = _ENTRY.match(text)
    return m.group(1) if m else None


def _vals(row: list[str]) -> tuple | None:
    try:
        return tuple(Fraction(x) for x in row)
    except (ValueError, ZeroDivisionError):
        return None


def _runs(items: list[Item], lines: list) -> list[list[tuple[Item, str]]]:
    out: list[list[tuple[Item, str]]] = []
    cur: list[tuple[Item, str]] = []
    for it in items:
        name = _entry_name(lines[it.line].text) if it.kind == "vector" and it.line == it.end \
            and 0 <= it.line < len(lines) else None
        ok = name is not None and len(it.rows) == 1 and _vals(it.rows[0]) is not None
        if ok and cur and it.line == cur[-1][0].line + 1 and len(it.rows[0]) == len(cur[-1][0].rows[0]) \
                and len(cur) < _MAX_RUN:
            cur.append((it, name))  # type: ignore[arg-type]
            continue
        if len(cur) >= 3:
            out.append(cur)
        cur = [(it, name)] if ok else []  # type: ignore[list-item]
    if len(cur) >= 3:
        out.append(cur)
    return out


def vocabulary_rows(items: list[Item], lines: list) -> None:
    """Set a listed vocabulary aside and name X's rows by it (see the module's docstring)."""
    for run in _runs(items, lines):
        names = [n for _, n in run]
        vecs = [_vals(it.rows[0]) for it, _ in run]
        if len(set(names)) != len(names) or len(set(vecs)) != len(vecs):
            continue
        last = run[-1][0].end
        x = next((it for it in items if it.line > last and it.step == "X" and it.strength >= 3
                  and it.kind == "matrix"), None)
        if x is None or len(x.rows) >= len(run) or any(len(r) != len(vecs[0]) for r in x.rows):
            continue
        picked = []
        for r in x.rows:
            v = _vals(r)
            if v is None or v not in vecs:
                break
            picked.append(names[vecs.index(v)])
        if len(picked) != len(x.rows) or len(set(picked)) != len(picked):
            continue
        for it, n in run:
            it.step, it.strength, it.token = None, 0, None
            it.aside = f"the embedding of {n} in the vocabulary listed before the example: X ({x.at()}) picks its rows"
        if x.row_labels is None:
            x.row_labels = picked
