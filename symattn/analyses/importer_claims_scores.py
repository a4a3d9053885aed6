"""Drafts of claims only that start from printed scores (the inputs drawn at random and never printed): two
more readings of what the page prints beside them.

* The keys printed whole under their name (``keys`` echoed in a notebook, one row per key): claims of K, as
  the queries and the output printed whole are (no step of the draft needs them, none contradicts them).
* Two printings of the weights, one the softmax of the printed scores unscaled (a softmax tried out on the
  raw scores), the other the softmax of the scores the way the draft's convention scales them: the second is
  the example's weights, the first an aside (listed, not placed).

>>> fits_softmax([["1", "0"]], [["0.731", "0.269"]], 1.0), fits_softmax([["1", "0"]], [["0.670", "0.330"]], 1.0)
(True, False)
>>> fits_softmax([["1", "0"]], [["0.670", "0.330"]], 2 ** -0.5)
True
"""

from __future__ import annotations

import math

from .importer_items import Item
from .importer_model import ClaimRow, Note, _num, _numeric, _ulp


def fits_softmax(scores: list[list[str]], weights: list[list[str]], factor: float) -> bool:
    """Whether each printed weights row is softmax(factor · that scores row) to its printed digits."""
    if len(scores) != len(weights) or not scores:
        return False
    for s, w in zip(scores, weights):
        xs = [_num(x) for x in s]
        ps = [_num(x) for x in w]
        if len(xs) != len(ps) or any(x is None or math.isinf(x) for x in xs) or any(p is None for p in ps):
            return False
        top = max(factor * x for x in xs)  # type: ignore[operator]
        es = [math.exp(factor * x - top) for x in xs]  # type: ignore[operator]
        tot = sum(es)
        # the scores are rounded too (whole numbers are taken as exact): a softmax moves less than they do
        slack = 0.25 * abs(factor) * max((_ulp(x) for x in s if "." in x), default=0.0)  # |dp| <= dx / 2
        if any(abs(e / tot - p) > _ulp(t) * 0.51 + slack + 1e-12 for e, p, t in zip(es, ps, w)):  # type: ignore[operator]
            return False
    return True


def key_claims(keys: list[str], items: list[Item], notes: list[Note], ordered: list[ClaimRow]) -> list[ClaimRow]:
    """K printed whole under its name, one row per key, that the draft listed for want of a step: claims."""
    if any(c.step == "K" for c in ordered):
        return ordered
    for it in items:
        if it.step != "K" or it.strength < 2 or it.kind != "matrix" or it.shape[0] != len(keys) or it.operand \
                or it.products or it.batches > 1 or not _numeric(it.rows) or it.shape[1] < 2:
            continue
        note = next((n for n in notes if n.kind == "unplaced" and n.where == it.at()
                     and n.text.endswith("no step of this example has its shape")), None)
        if note is None:
            continue
        notes.remove(note)
        rows = [ClaimRow("K", k, list(r), str(it.where[min(i, len(it.where) - 1)])) for i, (k, r) in
                enumerate(zip(keys, it.rows))]
        main = [c for c in ordered if c.group is None]
        return main + rows + [c for c in ordered if c.group is not None]
    return ordered


def unscaled_weights_aside(ordered: list[ClaimRow], factor: float | None, notes: list[Note]) -> list[ClaimRow]:
    """The weights printed first as the softmax of the unscaled scores and again as the softmax of the scores
    scaled by ``factor`` (the draft's scale): the scaled printing becomes the claim, the other is listed."""
    if factor is None or abs(factor - 1) < 1e-12:
        return ordered
    scores = [c.values for c in ordered if c.step == "scores" and c.group is None]
    main = [c for c in ordered if c.step == "weights" and c.group is None]
    if not scores or len(main) != len(scores):
        return ordered
    if not fits_softmax(scores, [c.values for c in main], 1.0) or fits_softmax(scores, [c.values for c in main], factor):
        return ordered
    groups = list(dict.fromkeys(c.group for c in ordered if c.step == "weights" and c.group is not None))
    for g in groups:
        rows = [c for c in ordered if c.step == "weights" and c.group == g]
        if len(rows) == len(main) and [c.row for c in rows] == [c.row for c in main] and \
                fits_softmax(scores, [c.values for c in rows], factor):
            notes.append(Note("unplaced", "the softmax of the unscaled scores, printed beside the example's "
                                          "weights (the softmax of the scaled scores, printed after it): an aside",
                              main[0].where))
            promoted = [ClaimRow(c.step, c.row, c.values, c.where, None, c.key) for c in rows]
            rest = [c for c in ordered if c not in main and c not in rows]
            first = [c for c in rest if c.group is None]
            return first + promoted + [c for c in rest if c.group is not None]
    return ordered


def scale_factor(conv: dict) -> float | None:
    """The factor the draft's convention multiplies the scores by before the softmax (1/√d_k with d_k known,
    1 for none), or None when it is not known as a number."""
    sc, dk = conv.get("scale"), conv.get("d_k")
    if sc is None or sc.value == "none":
        return 1.0
    if sc.value == "1/sqrt(d_k)" and dk is not None and isinstance(dk.value, int) and dk.value > 0:
        return dk.value ** -0.5
    return None
