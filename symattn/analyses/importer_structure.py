"""What a page says about a sliding window: ``window_size=(L, R)`` (FlashAttention),
``sliding_window = W`` (Mistral, Hugging Face), or "a sliding window of W tokens" in words.

FlashAttention's ``(L, R)`` is ``window = [L, R]``; a window of W tokens in a causal model
(Mistral's ``sliding_window``) is the query and the W − 1 tokens before it: ``window = [W − 1, 0]``
with the causal mask. ``-1`` (FlashAttention) means no limit on that side.

>>> from symattn.read.pages.model import Line, Where
>>> window_evidence([Line("out = flash_attn_func(q, k, v, causal=True, window_size=(2, 0))", Where(4), "code")])
([2, 0], 'line 4', 'out = flash_attn_func(q, k, v, causal=True, window_size=(2, 0))', True)
>>> window_evidence([Line("Each token attends to a sliding window of 3 tokens.", Where(9))])[:2]
([2, 0], 'line 9')
"""

from __future__ import annotations

import re

from ..read.pages.model import Line
from .importer_conventions import snippet

__all__ = ["window_evidence"]

_PAIR = re.compile(r"window_size\s*=\s*[\(\[]\s*(-?\d+)\s*,\s*(-?\d+)\s*[\)\]]", re.I)
_TOKENS = re.compile(r"sliding[_\s-]*window(?:\s+(?:size|length|width))?\s*(?:=|:|of|is)?\s*(?:size\s+)?(\d+)"
                     r"(?:\s*(?:tokens|positions|words))?", re.I)


def window_evidence(lines: list[Line]) -> tuple[list, str, str, bool] | None:
    """(window, where, the words, whether the page itself gives both sides) or None."""
    for ln in lines:
        m = _PAIR.search(ln.text)
        if m:
            left, right = (int(g) for g in m.groups())
            side = ["inf" if x < 0 else x for x in (left, right)]
            return side, str(ln.where), snippet(ln.text, m), True
    for ln in lines:
        m = _TOKENS.search(ln.text)
        if m and int(m.group(1)) >= 1:
            return [int(m.group(1)) - 1, 0], str(ln.where), snippet(ln.text, m), False
    return None
