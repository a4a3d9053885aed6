"""Numbers printed as quoted strings: a row formatted for display before it is printed,
``print([f"{w:.3f}" for w in row])`` gives ``['0.266', '0.240', '0.248']``. Every entry of such a
row is a quoted decimal numeral with a decimal point (the mark of a formatted number); a list of
quoted words, or of quoted whole numbers (token ids, labels), stays words.

>>> unquoted_numbers([["'0.266'", "'0.240'"]])
[['0.266', '0.240']]
>>> unquoted_numbers([["'0.266'", "'cat'"]]) is None
True
>>> unquoted_numbers([["'1'", "'2'"]]) is None
True
"""

from __future__ import annotations

import re

#: one quoted decimal numeral with a decimal point ('-0.5', "1.250"), quotes matched
_QUOTED_DECIMAL = re.compile(r"""(['"])\s?([+-]?\d{1,30}\.\d{1,30})\s?\1""")


def unquoted_numbers(rows: list[list[str]]) -> list[list[str]] | None:
    """The rows with their quotes taken off, when every entry is a quoted decimal numeral; else None."""
    out: list[list[str]] = []
    for r in rows:
        row: list[str] = []
        for e in r:
            m = _QUOTED_DECIMAL.fullmatch(e)
            if m is None:
                return None
            row.append(m.group(2))
        out.append(row)
    return out if out and all(out) else None


#: a bracketed row alone on its line, and a line that says rows were left out
_ROW_LINE = re.compile(r"\s{0,40}\[[^\[\]]{1,2000}\]\s{0,40}")
_ELISION_LINE = re.compile(r"\s{0,40}(?:\.\.\.|…|⋮)\s{0,40}")


def rows_then_elision(lines: list, first: int, most: int = 64) -> bool:
    """Whether the bracketed rows printed one a line from line ``first`` on are followed by a line that
    only says rows were left out (``...``): a matrix printed row by row and cut short, so its rows, printed
    by separate prints, are still one matrix's. At most ``most`` lines are looked at."""
    k = first
    while k < len(lines) and k - first < most and _ROW_LINE.fullmatch(lines[k].text):
        k += 1
    return k > first and k < len(lines) and bool(_ELISION_LINE.fullmatch(lines[k].text))


_CLOSE_NEXT = re.compile(r"\s{0,200}\]")


def trailing_elision(tok: str, text: str, end: int) -> bool:
    """Whether ``tok``, read among a matrix's rows, is an elision mark (``...``, ``…``) right before the
    bracket that closes the matrix: its last rows left out, as a post cuts a printout short
    (``tensor([[1.2, -0.5],\\n [0.6, 1.3],\\n ...])``). An elision between rows is not this (the rows
    after it would be misnumbered)."""
    return tok in ("...", "…", "⋮") and _CLOSE_NEXT.match(text, end) is not None
