"""A matrix named like attention's output projection (``WO``, ``W_O``) that the page uses to turn the
context vector into logits over its vocabulary (``Logits = Context × WO``, ``logits = context @ W_o``):
a language model's head after attention, not the W^O that mixes the heads. Set aside (listed, never an
input), so the example is one head's attention without an output projection.

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


def set_logit_head_aside(items: list[Item], lines: list) -> None:
    """Set aside each W_O the page turns into logits (see the module's docstring)."""
    for it in items:
        if it.step != "Wo" or it.aside:
            continue
        found = logits_of(it.label.strip(), lines)
        if found is None:
            continue
        it.step, it.strength = None, 0
        it.aside = f"it turns the context into logits ({found[:80]!r}): a language model's head, not attention's W^O"
