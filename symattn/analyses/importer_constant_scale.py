"""A scale the code writes as a number: scores divided (or multiplied) by a constant, given outright or
through a name assigned a number (``const sharpFactor = 0.6; scores.map(x => x / sharpFactor)``): the
convention's scale is ``1/0.6`` (or ``0.5``), whatever the prose says about √d_k. A divisor that is a
square root, a name assigned anything but a plain number, or a line that names no scores is not read.

>>> from symattn.read.pages.model import Line, Where
>>> code = [Line("const sharp = 0.6;", Where(1), "code"), Line("s = scores.map(x => x / sharp);", Where(2), "code")]
>>> constant_scale(code)[0]
'1/0.6'
>>> constant_scale([Line("scores = q @ k.T / math.sqrt(d)", Where(1), "code")]) is None
True
"""

from __future__ import annotations

import re
from fractions import Fraction

from ..read.pages.model import Line

_NUM = r"\d{1,6}(?:\.\d{1,8})?"
_CONST = re.compile(rf"^\s*(?:(?:const|let|var|final|val)\s+)?([A-Za-z_]\w{{0,60}})\s*(?::\s*\w+\s*)?=\s*({_NUM})\s*;?\s*$")
_SCORES = re.compile(r"\b(?:scores?|logits|attn_scores|attention_scores|energ(?:y|ies))\b", re.I)
_OP = re.compile(rf"(?<![*/])\s([/*])\s*({_NUM}|[A-Za-z_]\w{{0,60}})\b(?!\s*[(\[.])")


def constant_scale(code: list[Line]) -> tuple[str, str, str] | None:
    """The scale of the first line that divides (or multiplies) scores by a constant: (the scale, where, the
    line's words), or None."""
    consts: dict[str, str] = {}
    for ln in code:
        t = re.sub(r"(?://|#).*$", "", ln.text)
        m = _CONST.match(t)
        if m is not None:
            consts[m.group(1)] = m.group(2)
            continue
        if not _SCORES.search(t) or re.search(r"sqrt|\*\*\s*0?\.5|\*\*\s*\(?\s*-?0?\.5", t):
            continue
        for op in _OP.finditer(t):
            num = op.group(2) if re.fullmatch(_NUM, op.group(2)) else consts.get(op.group(2))
            if num is None or Fraction(num) in (0, 1):
                continue
            value = f"1/{num}" if op.group(1) == "/" else num
            return value, str(ln.where), t.strip()[:120]
    return None
