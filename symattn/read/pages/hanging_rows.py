"""A matrix written with its first row on the name's line and its other rows hanging below it, indented,
each a bracketed row of its own (a comment may name each row's token):

    Q = [1, 0, 1, 0]    # "cat"
        [0, 1, 0, 1]    # "sat"

or several such matrices side by side, their first rows on one line and the rest in columns below:

    Q = [1, 1], K = [1, 0], V = [2, 3]
        [0, 1]      [0, 1]      [4, 5]

are rewritten in the nested-list form (``Q = [[1, 0, 1, 0],`` / ``[0, 1, 0, 1]]``; side by side as
:mod:`side_by_side` reads them), each new line keeping the provenance of the line it replaces. A run is
rewritten only when every hanging line holds one row per matrix, each as wide as that matrix's first row,
and a lone matrix only when each of its lines carries a comment (the rows annotated one by one): a lone
``Mask = [1, 0, 0]`` over bare rows ``[1, 1, 0]`` is left as the rows it prints (read as before).
"""

from __future__ import annotations

import re
from dataclasses import replace

from .hanging_weights import bare_weights
from .model import Line

__all__ = ["join_hanging_rows"]

_ROW = r"\[\s*-?\d[\d.eE+\-]{0,30}(?:\s*,\s*-?\d[\d.eE+\-]{0,30}){0,63}\s*\]"
_SEG_RE = re.compile(rf"([A-Za-z][\w^']{{0,20}})\s*=\s*({_ROW})")
_HEAD_RE = re.compile(rf"^\s*(?:[A-Za-z][\w^']{{0,20}}\s*=\s*{_ROW}\s*,?\s*){{1,8}}(?P<c>(?:#|//|←)[^\n]{{0,300}})?$")
_HANG_RE = re.compile(rf"^\s+(?:{_ROW}\s*,?\s*){{1,8}}(?P<c>(?:#|//|←)[^\n]{{0,300}})?$")
_MAX_ROWS = 64


def _width(row: str) -> int:
    return len(row.strip("[] ").split(","))


def _inner(row: str) -> str:
    return ", ".join(x.strip() for x in row.strip()[1:-1].split(","))


def join_hanging_rows(lines: list[Line]) -> list[Line]:
    """The page's lines with each run of hanging rows rewritten (see the module's docstring)."""
    out: list[Line] = []
    i = 0
    while i < len(lines):
        got = _run(lines, i)
        if got is None:
            out.append(lines[i])
            i += 1
            continue
        end, texts = got
        out += [replace(lines[i + k], text=t) for k, t in enumerate(texts)]
        i = end
    return out


def _run(lines: list[Line], i: int) -> tuple[int, list[str]] | None:
    head = lines[i]
    m = _HEAD_RE.match(head.text)
    if m is None:
        return None
    body = head.text[:m.start("c")] if m.group("c") else head.text
    segs = [(s.group(1), s.group(2)) for s in _SEG_RE.finditer(body)]
    rows: list[list[str]] = [[r] for _, r in segs]
    comments = [m.group("c") or ""]
    j = i + 1
    while j < len(lines) and j - i <= _MAX_ROWS:
        ln = lines[j]
        h = _HANG_RE.match(ln.text) if ln.role == head.role and ln.where.cell == head.where.cell else None
        if h is None:
            break
        part = ln.text[:h.start("c")] if h.group("c") else ln.text
        found = re.findall(_ROW, part)
        if len(found) != len(segs) or any(_width(r) != _width(rows[g][0]) for g, r in enumerate(found)):
            break
        for g, r in enumerate(found):
            rows[g].append(r)
        comments.append(h.group("c") or "")
        j += 1
    n = j - i
    if n < 2 or (len(segs) > 1 and any(comments)) or \
            (len(segs) == 1 and not all(comments) and not bare_weights(segs[0][0], lines[i:j])):
        return None
    indent = head.text[:len(head.text) - len(head.text.lstrip())]
    pieces: list[list[str]] = []  # per matrix, its text on each line
    for (name, _), rs in zip(segs, rows):
        pad = " " * (len(name) + 4)
        pieces.append([(f"{name} = [[" if k == 0 else pad + "[") + _inner(r) + ("]]" if k == n - 1 else "],")
                       for k, r in enumerate(rs)])
    widths = [max(len(p) for p in col) + 4 for col in pieces]
    texts = []
    for k in range(n):
        t = indent + "".join(col[k].ljust(w) for col, w in zip(pieces, widths)).rstrip()
        c = "# " + comments[k][1:].strip() if comments[k].startswith("←") else comments[k]  # '← Token A': a comment
        texts.append(t + ("    " + c if c else ""))
    return j, texts
