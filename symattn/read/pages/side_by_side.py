"""Matrices printed side by side in Python-list style, each over several lines:

    Wq = [[1, 0],    Wk = [[1, 1],
          [0, 1]]          [0, 1]]

are read as if printed one under another (each new line keeps the provenance of the line it
was cut from). The columns are where the names stand on the first line; a run is rewritten
only when every column it cuts is a balanced bracketed list of numbers that closes on the run.
"""

from __future__ import annotations

import re

from .model import Line

__all__ = ["unstack_side_by_side"]

_NAME_RE = re.compile(r"(?:^\s*|(?<=\s\s))([A-Za-z][\w^'{}]{0,20}\s*=\s*\[\[)")
_PIECE_RE = re.compile(r"[\d\s.,+\-eE\[\]]*")
_MAX_ROWS = 64


def _depth(text: str) -> int:
    return text.count("[") - text.count("]")


def _run(lines: list[Line], i: int) -> tuple[int, list[list[str]]] | None:
    """(end, the text of each column, line by line) for a side-by-side run starting at line i."""
    first = lines[i].text
    cols = [m.start(1) for m in _NAME_RE.finditer(first)]
    if len(cols) < 2 or first[:cols[0]].strip():
        return None
    bounds = list(zip(cols, cols[1:] + [None]))
    pieces = [[first[a:b]] for a, b in bounds]
    for p in pieces:
        body = p[0].split("=", 1)[1]
        if not _PIECE_RE.fullmatch(body) or _depth(body) < 0:
            return None
    depth = [_depth(p[0]) for p in pieces]
    if all(d == 0 for d in depth):
        return None
    j = i + 1
    while any(depth) and j < len(lines) and j - i <= _MAX_ROWS:
        ln = lines[j]
        if ln.role != lines[i].role or ln.where.cell != lines[i].where.cell or not ln.text.strip():
            return None
        for g, (a, b) in enumerate(bounds):
            cut = ln.text[a:b]
            if not _PIECE_RE.fullmatch(cut) or (depth[g] == 0 and cut.strip()):
                return None
            # a row cut short by a misaligned column shows as an unbalanced piece: refuse
            if cut.strip() and not re.fullmatch(r"\s*\[[^\[\]]*\]+\s*,?\s*", cut):
                return None
            pieces[g].append(cut)
            depth[g] -= cut.count("]") - cut.count("[")
            if depth[g] < 0:
                return None
        j += 1
    if any(depth):
        return None
    return j, pieces


def unstack_side_by_side(lines: list[Line]) -> list[Line]:
    """``lines`` with each run of side-by-side multi-line list matrices rewritten one matrix
    under another (see the module's doc)."""
    out: list[Line] = []
    i = 0
    while i < len(lines):
        found = _run(lines, i) if "[[" in lines[i].text else None
        if found is None:
            out.append(lines[i])
            i += 1
            continue
        j, pieces = found
        for p in pieces:
            for k, text in enumerate(p):
                if text.strip():
                    ln = lines[i + k]
                    out.append(Line(text.rstrip(), ln.where, ln.role))
        i = j
    return out
