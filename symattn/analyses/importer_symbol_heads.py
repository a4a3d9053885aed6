"""Blocks under a heading that is one symbol of attention: ``### X``, ``### Q``, ``## K^T``.

A heading made of a bare symbol names the block under it as a code variable does (``Q`` is the queries,
``X`` the embeddings), though as prose a lone letter says nothing (``X`` alone may be a times sign, ``Q``
a question). Only a heading line counts, and only a short identifier-like text with a known step.

>>> heading_symbol_step("Q")
'Q'
>>> heading_symbol_step("X")
'X'
>>> heading_symbol_step("Output") is None   # words are read by the prose rules, not here
True
>>> heading_symbol_step("Q and the keys") is None
True
"""

from __future__ import annotations

import re

from .importer_names import step_of_ident

#: a bare symbol: a letter or a short identifier, possibly with a subscript/superscript tag (W_Q, K^T)
_SYMBOL = re.compile(r"\$?\s*([A-Za-z](?:_?\{?[A-Za-z0-9]{1,3}\}?)?(?:\^\{?[A-Za-z]{1,3}\}?)?)\s*\$?")
#: the symbols read from a bare heading (an uppercase letter or a W with a tag, never a word)
_STEPS = ("X", "Q", "K", "V", "Wq", "Wk", "Wv", "Wo")


def heading_symbol_step(text: str) -> str | None:
    """The input step a heading made of one symbol names (``Q`` → Q, ``W_Q`` → Wq), else None."""
    t = text.strip()
    if len(t) > 12:
        return None
    m = _SYMBOL.fullmatch(t)
    if not m or not m.group(1)[0].isupper():
        return None
    step = step_of_ident(m.group(1))
    return step if step in _STEPS else None
