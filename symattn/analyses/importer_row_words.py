"""The row a line names before the vectors it works, in the words of the page's language: "For row 3:
softmax([…]) ≈ […]", "Para la fila 3: …" (Spanish), "Pour la ligne 3 : …" (French), "Na linha 3: …"
(Portuguese), "Für Zeile 3: …" (German), "Per la riga 3: …" (Italian), "行 3: …" and "第 3 行：" (Chinese),
"행 3: …" (Korean). The vectors on such a line are
that query's row, counted from 1 (a page counting from 0 says "row 0").

>>> row_named_before("Para la fila 3: softmax("), row_named_before("For row 2: softmax([0.2, 0.4]) ≈ ")
(3, 2)
>>> row_named_before("Pour la ligne 4 : "), row_named_before("Für Zeile 1:"), row_named_before("行 2: $\\text{softmax}(")
(4, 1, 2)
>>> row_named_before("第 3 行："), row_named_before("2行: "), row_named_before("行列 1: ")
(3, None, None)
>>> row_named_before("rows 1 and 2: "), row_named_before("row 1 and row 2: "), row_named_before("the 3 rows: ")
(None, None, None)
>>> row_named_before("Zeile 0:")  # counted from 0: not read here
"""

from __future__ import annotations

import re

__all__ = ["row_named_before"]

#: 'for the row', in the languages met, then the row's number and a colon
_ROW_RE = re.compile(r"(?:^|(?<=[\s*_(\-•]))(?:(?:for|para|pour|per|für|na|em|in)\s+)?(?:(?:the|la|a|le|die|der)\s+)?"
                     r"(?:row|fila|ligne|linha|zeile|riga|行|행)\s*#?\s*(\d{1,3})\s*[:：]|"
                     r"(?:^|(?<=[\s*_(\-•]))第\s*(\d{1,3})\s*行\s*[:：]", re.I)
_ROW_WORD_RE = re.compile(r"\b(?:rows?|filas?|lignes?|linhas?|zeilen?|righe|riga)\b|行|행", re.I)


def row_named_before(before: str) -> int | None:
    """The row (from 1) the text before a vector names with one row word and a colon, else None."""
    if len(before) > 400:
        return None
    found = [a or b for a, b in _ROW_RE.findall(before)]
    if len(found) != 1 or len(_ROW_WORD_RE.findall(before)) != 1 or int(found[0]) < 1:
        return None
    return int(found[0])
