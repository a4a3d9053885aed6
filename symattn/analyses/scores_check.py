"""Convention diagnosis for the score variants (issue 13): the slips a page makes with
linear attention (the other feature map; the causal mask forgotten or added is covered by
the general alternatives), with the general score (scaling it by 1/√d_k, covered by the
general scale alternatives) and the additive score.

>>> from symattn.read.spec import load
>>> alternatives(load("linear_causal"))
[('the identity feature map instead of elu + 1', {'feature_map': 'identity'})]
"""

from __future__ import annotations

from ..read.spec import Spec

__all__ = ["alternatives"]


def alternatives(spec: Spec) -> list[tuple[str, dict]]:
    """(description, convention changes) for the score variants' usual slips."""
    conv = spec.convention
    out: list[tuple[str, dict]] = []
    if conv.score == "linear":
        if conv.feature_map == "elu+1":
            out.append(("the identity feature map instead of elu + 1", {"feature_map": "identity"}))
        else:
            out.append(("the feature map elu + 1 instead of the identity", {"feature_map": "elu+1"}))
    if conv.score == "additive" and conv.scale_text.replace(" ", "").lower() == "none":
        out.append(("the energies scaled by 1/√d_k (as in scaled dot-product attention)", {"scale": "1/sqrt(d_k)"}))
    return out
