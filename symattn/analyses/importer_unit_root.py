"""A worked example that states its √d_k is 1 (``\\sqrt{d_k} = \\sqrt{2} = 1``, ``√d_k = 1``): dividing by
one leaves the scores as they are, so its printed scores are unscaled (scale ``none``) whatever formula
with ``/√d_k`` it wrote before.

>>> from symattn.read.pages.model import Line, Where
>>> unit_root([Line(r"$$\\sqrt{d_k} = \\sqrt{2} = 1$$", Where(4))]).value
'none'
>>> unit_root([Line(r"$\\sqrt{d_k} = \\sqrt{4} = 2$", Where(4))]) is None
True
"""

from __future__ import annotations

import re

from ..read.pages.model import Line
from .importer_conventions import Evidence

#: the reason a convention carries when :func:`unit_root` gave it
UNIT_ROOT_WORDS = "divides by √d_k = 1"

#: √d_k (LaTeX or Unicode) stated equal to 1, through at most one step between (``= \sqrt{2} = 1``)
_UNIT_ROOT = re.compile(r"(?:\\sqrt\s*\{\s*d_?\{?k\}?\s*\}|\\sqrt\s*\(\s*d_?\{?k\}?\s*\)|√\s*\(?d_?k\)?)\s*"
                        r"=\s*(?:[^=$\n]{1,40}=\s*)?1(?:\.0*)?(?!\d|\.\d|,\d|\s*/|\s*\\(?:cdot|times)|\s*[·×*])", re.I)


def unit_root(lines: list[Line]) -> Evidence | None:
    """Scale ``none`` where the text (not the code) says √d_k = 1; else None."""
    for ln in lines:
        if ln.role == "code" or len(ln.text) > 2000:
            continue
        m = _UNIT_ROOT.search(ln.text)
        if m:
            return Evidence("none", str(ln.where), f"{m.group(0)} (the page {UNIT_ROOT_WORDS})")
    return None



def scaled_by_one(claims: list, conv: dict) -> list:
    """Claims placed as scaled scores where the page says √d_k = 1 (scale none by :func:`unit_root`) and
    prints no other scores: they are its scores (dividing by one changes nothing)."""
    sc = conv.get("scale")
    if sc is None or sc.value != "none" or UNIT_ROOT_WORDS not in sc.reason or \
            any(c.step == "scores" for c in claims):
        return claims
    for c in claims:
        if c.step == "scaled":
            c.step = "scores"
    return claims
