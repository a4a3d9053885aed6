"""A script that works its inputs with one head, then splits the same Q, K and V into heads and works them
again (``Q_multi = split_heads(Q, 2)``, then the scores, the softmax and the output once more): two worked
examples on the same inputs, the second with that many heads. When the page prints no result (a script saved
without its output) both are examples of inputs only; the second is the first with ``heads`` set.

Only where the page gives one example, with no claims and no heads of its own, made from X and the three
weights or from Q, K and V; its code calls a function whose name says it splits heads (``split_heads``,
``split_into_heads``, ``to_heads``) on Q, K or V (or their lower-case names) with a whole number of heads,
at least 2, that divides the width of Q; and a softmax is written both before that call and after it.

>>> split_count(["w = F.softmax(s, dim=-1)", "Qm = split_heads(Q, 2)", "p = F.softmax(t, dim=-1)"])
(2, 'Qm = split_heads(Q, 2)')
>>> split_count(["Qm = split_heads(Q, 2)", "p = F.softmax(t, dim=-1)"]) is None      # no one-head run before
True
>>> split_count(["w = softmax(s)", "Xm = split_heads(tokens, 2)", "softmax(t)"]) is None  # not Q, K or V
True
"""

from __future__ import annotations

import copy
import re

from .importer_model import Choice, ImportedExample, Note

__all__ = ["split_count", "heads_rerun"]

_SPLIT = re.compile(r"\b(?:split_(?:into_)?heads?|to_heads|reshape_heads|split_attention_heads)\s*\(\s*"
                    r"(?:self\.)?([QKVqkv])\s*,\s*(?:num_heads\s*=\s*|n_heads\s*=\s*)?(\d{1,2})\s*\)")


def split_count(code: list[str]) -> tuple[int, str] | None:
    """(the number of heads, the line) of the first head split of Q, K or V with a softmax written before and
    after it, or None."""
    for k, t in enumerate(code):
        m = _SPLIT.search(t)
        if m is None:
            continue
        h = int(m.group(2))
        before = any("softmax" in c.lower() for c in code[:k])
        after = any("softmax" in c.lower() for c in code[k + 1:])
        if h >= 2 and before and after:
            return h, t.strip()
        return None
    return None


def heads_rerun(out: list[ImportedExample], lines: list) -> list[ImportedExample]:
    """``out`` with the many-head rerun of its one example added (see the module's docstring)."""
    if len(out) != 1:
        return out
    ex = out[0]
    if ex.claims or ("heads" in ex.convention and ex.convention["heads"].value != 1):
        return out
    names = set(ex.inputs)
    if not ({"X", "Wq", "Wk", "Wv"} <= names or {"Q", "K", "V"} <= names):
        return out
    found = split_count([ln.text.split("#")[0] for ln in lines if ln.role == "code"])
    if found is None:
        return out
    h, text = found
    q = ex.inputs.get("Wq") or ex.inputs.get("Q")
    width = len(q.rows[0]) if q is not None and q.rows else 0
    if width < h or width % h:
        return out
    two = copy.deepcopy(ex)
    two.convention["heads"] = Choice(h, f"the code splits Q, K and V into {h} heads and works them again: {text!r}")
    two.notes.append(Note("info", f"the same inputs worked again with {h} heads ({text!r})"))
    for n, e in enumerate((ex, two), 1):
        e.index, e.count = n, 2
        e.title = f"{e.title} (example {n} of 2)"
    return [ex, two]
