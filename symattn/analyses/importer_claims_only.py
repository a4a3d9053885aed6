"""Pages that print the steps of attention but none of its inputs (random Q, K, V or weights drawn in
code and never printed): what the printed numbers themselves say about the convention, and which
printed blocks are claims rather than inputs.

>>> from symattn.analyses.importer_claims_only import root_of_ratio
>>> root_of_ratio([["-2.16", "6.76"], ["13.6", "0.35"]], [["-0.27", "0.845"], ["1.7", "0.044"]])
64
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from ..limits import MAX_DIM

#: code that draws numbers at random or loads trained weights (the page's inputs are then numbers it never prints)
_RANDOM_CODE = re.compile(r"\b(?:randn|rand|randint|random_sample|normal|gauss|uniform)\s*\(|"
                          r"\brandom\.(?:seed|gauss|random|normal|uniform)\b|\bmanual_seed\s*\(|"
                          r"\bdefault_rng\s*\(|\bPRNGKey\s*\(|"
                          r"\bfrom_pretrained\s*\(|\btorch\.load\s*\(|\bload_state_dict\s*\(")


def draws_at_random(code_lines: list[str]) -> bool:
    """Whether the page's code draws numbers at random (``torch.randn``, ``np.random.normal``,
    ``random.gauss``, a seed set) or loads them (a pretrained model's weights): numbers it never prints.

    >>> draws_at_random(["Q, K, V = (torch.randn(1, 5, 64) for _ in range(3))"])
    True
    >>> draws_at_random(["scores = torch.tensor([[1.0, 2.0], [2.0, 5.0]])"])
    False
    """
    return any(_RANDOM_CODE.search(t) for t in code_lines)


def printed_interval(text: str) -> tuple[Fraction, Fraction] | None:
    """The values a printed number may stand for: ± half a unit in its last printed place."""
    t = text.strip().replace("−", "-")
    try:
        d = Decimal(t)
    except InvalidOperation:
        return None
    if not d.is_finite():
        return None
    exp = d.as_tuple().exponent
    if not isinstance(exp, int) or abs(exp) > 40:
        return None
    half = Fraction(1, 2) * Fraction(10) ** exp
    v = Fraction(d)
    return v - half, v + half


def root_of_ratio(scores: list[list[str]], scaled: list[list[str]]) -> int | None:
    """The whole number d when every printed scaled score is the printed score beside it divided by
    √d, to the printed digits of both (``-2.16`` and ``-0.27``: √64 = 8); None when no such d, or
    more than one, fits every entry, or when the two blocks are the same numbers (d = 1)."""
    if len(scores) != len(scaled) or any(len(a) != len(b) for a, b in zip(scores, scaled)):
        return None
    lo, hi = Fraction(0), None
    used = 0
    for ra, rb in zip(scores, scaled):
        for a, b in zip(ra, rb):
            ia, ib = printed_interval(a), printed_interval(b)
            if ia is None or ib is None:
                if a.strip().lstrip("-+").lower() in ("inf", "∞") and a.strip() == b.strip():
                    continue
                return None
            if ib[0] <= 0 <= ib[1] or ia[0] <= 0 <= ia[1]:
                if not (ia[0] <= 0 <= ia[1] and ib[0] <= 0 <= ib[1]):
                    return None  # one is zero to its digits, the other not
                continue
            if (ia[0] > 0) != (ib[0] > 0):
                return None
            qs = [x / y for x in ia for y in ib]
            lo = max(lo, min(qs))
            hi = min(hi, max(qs)) if hi is not None else max(qs)
            used += 1
            if lo > hi:
                return None
    if used < 2 or hi is None:
        return None
    first = max(1, math.ceil(lo * lo))
    last = math.floor(hi * hi)
    if last - first != 0 or first <= 1 or first > MAX_DIM:
        return None
    return first


def is_distribution(row: list[str]) -> bool:
    """Whether printed numbers, each to its own digits (e-notation included), can be a probability
    distribution: each in [0, 1] and their sum 1 within the sum of their half-units.

    >>> is_distribution(["3.38843552e-07", "9.60161968e-01", "3.98376935e-02"])
    True
    >>> is_distribution(["0.5", "0.7"])
    False
    """
    lo = hi = Fraction(0)
    for x in row:
        iv = printed_interval(x)
        if iv is None or iv[1] < 0 or iv[0] > 1:
            return False
        lo, hi = lo + iv[0], hi + iv[1]
    return lo <= 1 <= hi
