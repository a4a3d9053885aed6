"""A banner a program prints to title what follows: ``=== Causal Multi-Head Attention Verification ===``,
``----- Results -----``, ``*** Step 2 ***``. Read as text, it is no code (no assignment: the ``=`` run
stands alone on both sides of words) but a caption of the printout under it, so a fenced block whose
other lines are labels and printouts of numbers is still output.

>>> banner_line("=== Causal Multi-Head Attention Verification ==="), banner_line("----- Results -----")
(True, True)
>>> banner_line("x === y"), banner_line("=== x = 1 ==="), banner_line("====="), banner_line("== a ===")
(False, False, False, False)
"""

from __future__ import annotations

import re

__all__ = ["banner_line"]

#: the same run of 2 to 40 '=', '-', '*' or '#' on both sides of words (no '=' nor brackets inside)
_BANNER_RE = re.compile(r"\s*(={2,40}|-{2,40}|\*{2,40}|#{2,40})[ \t]*[A-Za-z][^=\[\](){}\n]{0,100}?[ \t]*\1\s*")


def banner_line(text: str) -> bool:
    """Whether a printed line is a banner: words between two equal runs of ``=``, ``-``, ``*`` or ``#``."""
    return len(text) <= 200 and _BANNER_RE.fullmatch(text) is not None
