"""Convention-diagnosis alternatives for the structural variants (sliding windows, grouped-query
heads): the slips a page makes that another convention explains.

>>> from symattn.read.spec import load
>>> [label for label, _ in alternatives(load("sliding_window"))][:2]
['the window not applied', 'a window one wider on the left ([2, 0]: the size counts the keys before the query)']
"""

from __future__ import annotations

from ..read.spec import Spec

__all__ = ["alternatives"]


def _text(w: int | None) -> int | str:
    return "inf" if w is None else w


def alternatives(spec: Spec) -> list[tuple[str, dict]]:
    """(description, convention changes): the window left out or off by one on either side
    (``window = W`` meaning W keys including the query, or W keys before it), and for
    grouped-query attention one key/value head per query head."""
    conv = spec.convention
    out: list[tuple[str, dict]] = []
    if conv.window is not None:
        left, right = conv.window
        out.append(("the window not applied", {"window": ["inf", "inf"]}))
        if left is not None:
            out.append((f"a window one wider on the left ([{left + 1}, {_text(right)}]: the size counts the keys "
                        "before the query)", {"window": [left + 1, _text(right)]}))
            if left > 0:
                out.append((f"a window one narrower on the left ([{left - 1}, {_text(right)}]: the size counts "
                            "the query itself)", {"window": [left - 1, _text(right)]}))
        if right is not None and right > 0:
            out.append((f"a window one narrower on the right ([{_text(left)}, {right - 1}])",
                        {"window": [_text(left), right - 1]}))
    if conv.kv_heads is not None and conv.groups not in (1, conv.heads):
        other = "tile" if conv.kv_order == "interleave" else "interleave"
        how = "h mod G, as K.repeat(…) tiles them" if other == "tile" else "h // (H/G), as repeat_interleave"
        out.append((f"the key/value heads assigned the other way (query head h reads key/value head {how})",
                    {"kv_order": other}))
    return out
