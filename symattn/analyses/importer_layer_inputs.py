"""A second layer's inputs written token by token, as the first layer's embeddings were::

    Say every word starts as a 2-dimensional embedding:
    - "Jane" -> [1, 0]   - "visits" -> [0, 1]   - "Paris" -> [1, 1]
    …
    MHA2 takes the outputs of FFNN1 as its inputs:
    - New vectors:  - "Jane" -> [1.35, 0.8]   - "visits" -> [0.1, 0.9]   - "Paris" -> [1.2, 1.2]

The later block names the same tokens, in the same order, as wide as the embeddings, and the sentence just
above it calls them inputs: they are the embeddings of a new example (the next layer's), not an output of
the first (which the words "outputs of FFNN1" alone would make them).

>>> says_inputs("MHA2 takes the outputs of FFNN1 as its inputs:")
True
>>> says_inputs("The outputs of the attention layer:")
False
"""

from __future__ import annotations

import re

from .importer_items import Item

_INPUTS_RE = re.compile(r"\b(?:as\s+(?:its|their|the)\s+inputs?|new\s+(?:input\s+)?(?:vectors|embeddings)|"
                        r"inputs?\s+(?:to|of|for)\s+(?:the\s+)?(?:next|second|layer\s*2))\b", re.I)


def says_inputs(text: str) -> bool:
    """Whether a line calls what follows the inputs (of a next layer)."""
    return bool(_INPUTS_RE.search(text[:400]))


def layer_inputs(items: list[Item], lines: list) -> None:
    """Token-labelled blocks that are a later layer's embeddings (see the module): step X."""
    first = next((it for it in items if it.step == "X" and it.kind == "matrix" and it.row_labels), None)
    if first is None or first.row_labels is None:
        return
    toks = [t.lower() for t in first.row_labels]
    for it in items:
        if it is first or it.line <= first.end or it.kind != "matrix" or not it.row_labels or it.strength > 2 \
                or it.step == "X" or [t.lower() for t in it.row_labels] != toks or it.shape[1] != first.shape[1]:
            continue
        above = [lines[k].text for k in range(max(0, it.line - 3), it.line)]
        if any(says_inputs(t) for t in above):
            it.step, it.strength = "X", 2
            it.notes.append("a later layer's inputs, token by token as the embeddings were: a new example's X")
