"""A tensor's shape written in a comment after the code that makes it: ``W_Q = torch.randn(d_model,
d_model) * 0.5  # [4, 4]``, ``x = torch.zeros(B, T, C)  # [2, 8, 16]``. The bracket holds sizes (whole
numbers from 1), one per argument of the constructor the line calls, not a vector of the example.

>>> def at(s):
...     return s.rindex("[")
>>> s = "W_Q = torch.randn(d_model, d_model) * 0.5  # [4, 4]"
>>> shape_comment(s, at(s), ["4", "4"])
True
>>> s = "x = torch.zeros(B, T, C)  # [2, 8, 16]"
>>> shape_comment(s, at(s), ["2", "8", "16"])
True
>>> s = "q = torch.tensor([3.0, 1.0])  # [3, 1]"
>>> shape_comment(s, at(s), ["3", "1"])  # a literal: the comment restates it
False
>>> s = "W = torch.randn(4, 4)  # [4, 4, 4]"
>>> shape_comment(s, at(s), ["4", "4", "4"])  # three sizes, two arguments
False
>>> s = "W = torch.randn(4, 4)  # [4, 4]"
>>> shape_comment(s, 4, ["4", "4"])  # a bracket before the comment is code
False
"""

from __future__ import annotations

import re

__all__ = ["shape_comment"]

#: constructors whose arguments are sizes
_MAKER_RE = re.compile(r"\b(?:randn|rand|randint|zeros|ones|empty|full|normal|uniform|Linear|Embedding|Parameter)"
                       r"\s*\(([^()#]{0,200})\)")


def shape_comment(line: str, at: int, entries: list[str]) -> bool:
    """Whether the bracket at offset ``at`` of a code line sits in the line's trailing '#' comment, holds
    whole sizes only, and the code before the comment calls a constructor with as many arguments."""
    if len(line) > 600 or not entries or len(entries) > 6 or not all(re.fullmatch(r"[1-9]\d{0,5}", e) for e in entries):
        return False
    hash_at = line.find("#")
    if hash_at < 0 or hash_at > at:
        return False
    code = line[:hash_at]
    for m in _MAKER_RE.finditer(code):
        args = [a for a in m.group(1).split(",") if a.strip() and "=" not in a]
        if len(args) == len(entries):
            return True
    return False
