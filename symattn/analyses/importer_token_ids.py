"""Token IDs printed where a page explains its tensors (``input_ids`` can be written as ``[[101, 52, 87,
19], …]``): integers that index a vocabulary, not the embeddings, though the label speaks of tokens. Set
aside (listed, never the example's X).

Only a matrix or vector the importer took for X by its label (not by a code name or a symbol X), every
entry a whole number, whose label names the IDs (``input_ids``, ``token_ids``, "token IDs", "input IDs").

>>> names_ids("设一次处理两条消息，`input_ids` 可以写成"), names_ids("the token IDs are"), names_ids("token embeddings")
(True, True, False)
"""

from __future__ import annotations

import re

from .importer_items import Item

__all__ = ["names_ids", "set_token_ids_aside"]

_IDS = re.compile(r"(?<![A-Za-z])(?:input|token)[_ ]?ids?(?![A-Za-z])", re.I)


def names_ids(label: str) -> bool:
    """Whether the label names token IDs."""
    return bool(_IDS.search(label[:300]))


def set_token_ids_aside(items: list[Item]) -> None:
    """Set aside the token IDs taken for X (see the module's docstring)."""
    for it in items:
        if it.step != "X" or it.strength >= 3 or it.aside or not names_ids(it.label or ""):
            continue
        if not all(re.fullmatch(r"\d{1,12}", x.strip()) for r in it.rows for x in r):
            continue
        it.step, it.strength = None, 0
        it.aside = "token IDs (whole numbers that index the vocabulary), not the embeddings"
