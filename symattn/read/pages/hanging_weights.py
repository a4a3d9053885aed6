"""A lone matrix of attention written with its first row on the name's line and bare rows hanging below,
each row's bracket right under the first row's, with no comment on any line (a hand-calculation
worksheet's code block):

    WQ = [0.1, 0.0]
         [0.0, 0.1]

:mod:`hanging_rows` rewrites a lone matrix only when its rows are commented one by one; this says when
bare rows are the matrix's too: the name is one of attention's own symbols (``X``, ``Q``, ``K``, ``V``, a
weight ``W_Q``, ``Wk``, ``WO``), every hanging row opens in the column where the first row opens, and no
line carries a comment. Any other name (``M = [1, 0, 0]`` over ``[1, 1, 0]``), a row out of line or a
comment on some lines only leaves the lines as printed.

>>> from symattn.read.pages.model import Line, Where
>>> rows = [Line("WQ = [0.1, 0.0]", Where(1), "code"), Line("     [0.0, 0.1]", Where(2), "code")]
>>> bare_weights("WQ", rows)
True
>>> bare_weights("M", rows)
False
>>> bare_weights("WQ", [rows[0], Line("    [0.0, 0.1]", Where(2), "code")])
False
"""

from __future__ import annotations

import re

__all__ = ["bare_weights"]

_SYMBOL = re.compile(r"(?:[XQKV]|W_?[QKVOqkvo])")


def bare_weights(name: str, lines: list) -> bool:
    """Whether the lines (the name's line, then its hanging rows) are one matrix of attention written with
    bare rows aligned under its first (see the module's docstring)."""
    if not _SYMBOL.fullmatch(name) or len(lines) < 2:
        return False
    head = lines[0].text
    m = re.match(rf"\s*{re.escape(name)}\s*=\s*\[", head)
    if m is None:
        return False
    col = m.end() - 1
    for ln in lines[1:]:
        t = ln.text
        if len(t) - len(t.lstrip()) != col or "#" in t or "//" in t:
            return False
    return "#" not in head and "//" not in head
