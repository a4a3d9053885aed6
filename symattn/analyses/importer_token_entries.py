"""One query's entries written key by key, each named by the key's token, as a lesson lists them::

    * Score (animal): $(3 \\times 3) + (1 \\times 1) = 10$
    * Scaled Score (street): $7 / 1.41 \\approx 4.96$
    \\text{Context} &= 0.87 \\times V_{\\text{animal}} + 0.10 \\times V_{\\text{street}} + 0.03 \\times V_{\\text{because}}

A list line that names a step and a token in parentheses gives that step's entry of the one query on
that key: the number after the last '=' (or ≈) of the line (what comes before it is arithmetic). A
sum of numbers times the values of named tokens (``0.87 × V_animal + 0.10 × V_street``, two terms
or more) gives the query's weights on those keys: each factor is a weight.

>>> token_entries("* Score (animal): $(3 \\\\times 3) + (1 \\\\times 1) = 10$")
[('scores', 'animal', '10')]
>>> token_entries("- **Scaled Score (street)**: $7 / 1.41 \\\\approx 4.96$"), token_entries("* Weight (it): 0.25")
([('scaled', 'street', '4.96')], [('weights', 'it', '0.25')])
>>> token_entries(r"&= 0.87 \\times V_{\\text{animal}} + 0.10 \\times V_{\\text{street}} \\\\")
[('weights', 'animal', '0.87'), ('weights', 'street', '0.10')]
>>> token_entries("Output = 0.5 × V['cat'] + 0.5 × V['dog']")
[('weights', 'cat', '0.5'), ('weights', 'dog', '0.5')]
>>> token_entries("* Score (animal): high"), token_entries("* Score: 10"), token_entries("0.87 × V_animal")
([], [], [])
>>> token_entries("* Score (animal): $10 \\\\times 2$")  # a product, no result
[]
"""

from __future__ import annotations

import re
from typing import Any

from ..read.pages.model import Line

__all__ = ["token_entries", "token_entry_items"]

_NUM = r"[+-]?(?:\d{1,40}\.\d{1,40}|\.\d{1,40}|\d{1,40})"
_TOK = r"[^\W\d_][\w'’-]{0,30}"
_STEPS = {"score": "scores", "raw score": "scores", "dot product": "scores", "scaled score": "scaled",
          "weight": "weights", "attention weight": "weights", "softmax weight": "weights"}
_LINE_RE = re.compile(r"\s*[-*•+]\s+(?:\*\*|__)?\s*(raw score|scaled score|dot product|score|attention weight|"
                      r"softmax weight|weight)\s*\(\s*[\"'“‘`]?(" + _TOK + r")[\"'”’`]?\s*\)\s*(?:\*\*|__)?\s*:\s*"
                      r"(?:\*\*|__)?\s*(.{1,300})$", re.I)
#: the number a line ends with, after '=', '≈' or '\approx' (math dollars, bold and a period around it)
_RESULT_RE = re.compile(r"(?:^|=|≈|\\approx)\s*\$?\s*(?:\*\*)?\s*(" + _NUM + r")\s*(?:\*\*)?\s*\$?\s*\.?\s*$")
_TIMES = r"\s*(?:\\times|×|\*|·|\\cdot)\s*"
_VNAME = (r"V\s*(?:_\{?\s*(?:\\text\{|\\mathrm\{)?\s*(" + _TOK + r")\s*\}?\s*\}?|\[\s*[\"'“‘](" + _TOK + r")[\"'”’]\s*\])")
_TERM_RE = re.compile(r"(?<![\w.])(" + _NUM + r")" + _TIMES + _VNAME)
_SUM_OF_TERMS_RE = re.compile(r"(?<![\w.])" + _NUM + _TIMES + r"V(?![A-Za-z])[^=]{0,400}?\+\s*" + _NUM + _TIMES +
                              r"V(?![A-Za-z])")


def token_entries(text: str) -> list[tuple[str, str, str]]:
    """The (step, key token, number as printed) entries a line writes for the one query."""
    if len(text) > 1200:
        return []
    t = text.replace("−", "-")
    m = _LINE_RE.match(t)
    if m:
        rest = m.group(3)
        r = _RESULT_RE.search(rest)
        if r is None or (r.start(1) > 0 and not re.search(r"=|≈|\\approx", rest)):
            return []
        return [(_STEPS[m.group(1).lower()], m.group(2), r.group(1))]
    if not _SUM_OF_TERMS_RE.search(t):
        return []
    terms = [(g.group(1), g.group(2) or g.group(3)) for g in _TERM_RE.finditer(t)]
    if len(terms) < 2 or len({tok for _, tok in terms}) != len(terms):
        return []
    return [("weights", tok, num) for num, tok in terms]


def token_entry_items(lines: list[Line], make: type) -> list[Any]:
    """Items (``make`` is the importer's Item class) for the entries of :func:`token_entries` on lines
    outside code: each an entry of the one query (``#1``) on the key the token names."""
    out: list[Any] = []
    for k, ln in enumerate(lines):
        if ln.role in ("code", "output") or not re.search(r"[Ss]core|[Ww]eight|[Dd]ot product|V", ln.text):
            continue
        for step, tok, num in token_entries(ln.text):
            it = make(rows=[[num]], where=[ln.where], line=k, end=k, kind="pair", label=ln.text.strip()[:100],
                      step=step, strength=2, pair=("#1", tok), role=ln.role)
            it.notes.append(f"the one query's entry on the key {tok!r}")
            out.append(it)
    return out
