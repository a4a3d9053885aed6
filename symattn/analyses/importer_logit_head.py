"""A matrix named like attention's output projection (``WO``, ``W_O``) that the page uses to turn the
context vector into logits over its vocabulary (``Logits = Context × WO``, ``logits = context @ W_o``):
a language model's head after attention, not the W^O that mixes the heads. Set aside (listed, never an
input), so the example is one head's attention without an output projection; so are the numbers worked
from those logits after that line (labelled as logits or probabilities, or under a heading naming them).

Only where a line of the page (code, math or prose) assigns a name spelled ``logit``/``logits`` (any case,
``logit(A)`` too) to a product with the matrix's own label in it; a W_O that only ever makes the output
(``out = concat @ W_O``) stays an input.

>>> from types import SimpleNamespace as L
>>> logits_of("WO", [L(text="**Logits = Context × WO (four tokens):**")])
'**Logits = Context × WO (four tokens):**'
>>> logits_of("WO", [L(text="output = concat × WO")]) is None
True
>>> logits_of("W_O", [L(text="logits = W_Ox")]) is None
True
"""

from __future__ import annotations

import re

from .importer_items import Item

__all__ = ["logits_of", "set_logit_head_aside"]


def logits_of(label: str, lines: list) -> str | None:
    """The line that makes logits with the matrix labelled ``label``, or None."""
    if not re.fullmatch(r"[A-Za-z_][\w^{}]{0,20}", label):
        return None
    rx = re.compile(rf"\blogits?\b[^=\n]{{0,40}}=\s*[^=\n]{{0,80}}(?<![\w\\]){re.escape(label)}(?![\w{{^])", re.I)
    for ln in lines:
        t = ln.text[:400]
        if rx.search(t):
            return t.strip()
    return None


_HEAD_WORDS = re.compile(r"logits?|probabilit|vocab", re.I)


def _heading_above(lines: list, k: int) -> str:
    for j in range(min(k, len(lines) - 1), -1, -1):
        if lines[j].role == "heading":
            return lines[j].text
    return ""


def set_logit_head_aside(items: list[Item], lines: list) -> None:
    """Set aside each W_O the page turns into logits (see the module's docstring), and what the page works
    from those logits after that line: numbers labelled as logits or probabilities, or under a heading
    that names them (their softmax is over the vocabulary, not over keys)."""
    for it in items:
        if it.step != "Wo" or it.aside:
            continue
        found = logits_of(it.label.strip(), lines)
        if found is None:
            continue
        it.step, it.strength = None, 0
        it.aside = f"it turns the context into logits ({found[:80]!r}): a language model's head, not attention's W^O"
        at = next((k for k, ln in enumerate(lines) if ln.text.strip() == found), None)
        if at is None:
            continue
        for c in items:
            if c.line <= at or c.aside or c.step in ("X", "Wq", "Wk", "Wv", "Q", "K", "V"):
                continue
            if _HEAD_WORDS.search(c.label or "") or _HEAD_WORDS.search(_heading_above(lines, c.line)):
                c.step, c.strength, c.token = None, 0, None
                c.aside = "worked from the logits over the vocabulary (a language model's head), not attention"
