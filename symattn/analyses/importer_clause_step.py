"""A vector written inside a long sentence, named by the clause just before it::

    … That choice can move the printed numbers. To stay in line with the code below, take the weights of
    the original example to be `[0.4223 0.4223 0.1554]` with output `[48.887]`, …

The words right before the vector ("take the weights of the original example to be") name it, not a step
word met earlier in the sentence or in the sentences before ("the printed numbers", "output" of another
clause). Read only for a vector in prose whose name came from context (strength 1 or none) and only when
the last clause before it names a step; the clause is what follows the last sentence end, comma, colon or
semicolon before the vector.

>>> clause_step("That moves the output. To match the code below, take the weights of the example to be `")
'weights'
>>> clause_step("The output of the first layer is, as printed, `") is None   # 'as printed': no step in the clause
True
"""

from __future__ import annotations

import re

from .importer_items import Item
from .importer_names import step_of_text


def clause_step(before: str) -> str | None:
    """The step the last clause before a vector names (see the module), or None."""
    t = before[-400:].rstrip(" `$")
    if t.endswith(("=", ":")):
        return None  # 'X =' / 'weights:' right before it: a label, read by the usual rules
    clause = re.split(r"[.;:!?,]\s+|\*\*", t)[-1].strip()
    if not clause or len(clause) > 120:
        return None
    return step_of_text(clause)


def clause_named_vectors(items: list[Item]) -> None:
    """Prose vectors inside a long sentence named by the clause just before them (see the module)."""
    for it in items:
        if it.kind != "vector" or it.role != "prose" or it.strength > 1 or len(it.before) < 80:
            continue
        st = clause_step(it.before)
        if st is not None and st != it.step and st in ("scores", "scaled", "weights", "output"):
            it.step, it.strength = st, 1
            it.notes.append("named by the clause just before it in its sentence")
