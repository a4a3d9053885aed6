"""What code that calls an attention function names its results: ``values, attention =
scaled_dot_product(q, k, v)`` makes ``values`` the attention output (the weighted values), whatever
the word "values" would name on its own; ``out = attention(q, k, v)`` likewise. Such functions return
the output first (and the weights after it, named by their own names).
"""

from __future__ import annotations

import re

__all__ = ["unpacked_output"]

#: a function named for attention: …attention, …attn, scaled_dot_product…, sdpa
_ATTN_FUNC = re.compile(r"(?:[A-Za-z_]\w*\.)*(\w*(?:attention|attn)|scaled_dot_product\w*|sdpa)", re.I)
_TARGETS = re.compile(r"\s*\(?\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*,?\s*\)?\s*=(?!=)\s*(.*?)\s*$")


def _arguments(text: str) -> int | None:
    """The number of top-level arguments of a call written whole on one line, or None."""
    m = _ATTN_FUNC.match(text)
    if not m or text[m.end():m.end() + 1] != "(":
        return None
    depth, count, k = 0, 1, m.end()
    for k in range(m.end(), len(text)):
        ch = text[k]
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0:
            break
        if ch == "," and depth == 1:
            count += 1
    if depth != 0 or text[k + 1:].strip():
        return None
    return count


def unpacked_output(code: list[str], name: str) -> bool:
    """Whether the last assignment of ``name`` in ``code`` (lines) makes it the first result of a
    call of an attention function with at least three arguments (queries, keys, values).

    >>> unpacked_output(["values, attention = scaled_dot_product(q, k, v)"], "values")
    True
    >>> unpacked_output(["values, attention = scaled_dot_product(q, k, v)"], "attention")
    False
    >>> unpacked_output(["out = F.scaled_dot_product_attention(q, k, v, attn_mask=m)"], "out")
    True
    >>> unpacked_output(["values = torch.randn(3, 2)"], "values"), unpacked_output(["w = attention_weights(q, k, v)"], "w")
    (False, False)
    >>> unpacked_output(["v, a = attention(q, k, v)", "v = torch.randn(3, 2)"], "v")  # assigned again since
    False
    """
    for line in reversed(code):
        t = re.sub(r"\s+#.*$", "", line)
        m = _TARGETS.fullmatch(t)
        if not m:
            continue
        targets = [x.strip() for x in m.group(1).split(",")]
        if name not in targets:
            continue
        n = _arguments(m.group(2))
        return targets.index(name) == 0 and n is not None and n >= 3
    return False
