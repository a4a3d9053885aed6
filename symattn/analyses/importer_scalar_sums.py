"""One query's output written as a sum of scalar products when V is one column wide::

    = 0.25 \\times 2 + 0.25 \\times 4 + 0.25 \\times 6 + 0.25 \\times 8 = 0.5 + 1 + 1.5 + 2 = 5

The products p_j × v_j, then their values (one term per key: key j's weighted value α_ij·v_j, one number
wide), then the output. Read only when the chain is whole: as many terms as products, each term the
product before it to its printed digits, the result their sum to its printed digits. The terms become a
sum of one-number vectors (the placer decides whose query's weighted values they are from their values)
and the result that query's output.

>>> scalar_sum_chain(r"= 0.25 \\times 2 + 0.25 \\times 4 = 0.5 + 1 = 1.5.")
(['0.5', '1'], '1.5')
>>> scalar_sum_chain("= 0.25 × 2 + 0.25 × 4 = 0.5 + 1.5 = 2")   # 0.25 × 4 is not 1.5
>>> scalar_sum_chain("= 0.5 + 1 = 1.5")   # no products: nothing says what the terms are
"""

from __future__ import annotations

import re
from fractions import Fraction

from .importer_items import Item

__all__ = ["scalar_sum_chain", "scalar_sum_items"]

_NUM = r"[+-]?(?:\d{1,30}(?:\.\d{1,30})?|\.\d{1,30})"
_TIMES = r"(?:\\times|\\cdot|×|·|\*)"
_PROD = rf"({_NUM})\s*{_TIMES}\s*({_NUM})"
_CHAIN_RE = re.compile(rf"=\s*({_PROD}(?:\s*\+\s*{_PROD}){{1,63}})\s*=\s*({_NUM}(?:\s*\+\s*{_NUM}){{1,63}})"
                       rf"\s*=\s*({_NUM})\s*[.,;]?\s*$")


def _half_ulp(text: str) -> Fraction:
    t = text.lstrip("+-")
    places = len(t.split(".")[1]) if "." in t else 0
    return Fraction(1, 2 * 10 ** places)


def scalar_sum_chain(text: str) -> tuple[list[str], str] | None:
    """(the terms, the result) of a chain ``= a×b + c×d + … = t₁ + t₂ + … = r`` ending a line, checked as the
    module says; None when the line has none or a number does not follow."""
    t = re.sub(r"\\[ ,;:!]|~|\$|\\\\$", " ", text.replace("−", "-")).rstrip()
    if len(t) > 4000:
        return None
    m = _CHAIN_RE.search(t)
    if m is None:
        return None
    prods = [(Fraction(a), Fraction(b)) for a, b in re.findall(_PROD, m.group(1))]
    terms = [x.strip() for x in m.group(m.lastindex - 1).split("+")]  # type: ignore[operator]
    result = m.group(m.lastindex)  # type: ignore[arg-type]
    if len(terms) != len(prods):
        return None
    for (a, b), x in zip(prods, terms):
        if abs(a * b - Fraction(x)) > _half_ulp(x):
            return None
    slack = _half_ulp(result) + sum((_half_ulp(x) for x in terms if "." in x), Fraction(0))  # (whole terms: as written)
    if abs(sum((Fraction(x) for x in terms), Fraction(0)) - Fraction(result)) > slack:
        return None
    return terms, result


def scalar_sum_items(lines: list, taken: set[int]) -> list[Item]:
    """Each such chain on a line of prose or math (not code; not a line already read as a sum) as two items:
    the terms (kind ``vsum``, one row per key, one number wide) and the result (an output vector whose
    ``chain_of`` names the terms)."""
    out: list[Item] = []
    for k, ln in enumerate(lines):
        if ln.role == "code" or k in taken or "=" not in ln.text or "+" not in ln.text:
            continue
        got = scalar_sum_chain(ln.text)
        if got is None:
            continue
        terms, result = got
        vs = Item(rows=[[x] for x in terms], where=[ln.where] * len(terms), line=k, end=k, kind="vsum",
                  role=ln.role, form="list")
        vs.notes.append(f"a sum of {len(terms)} products p·v, one number each: the weighted values of one query, "
                        "key by key")
        res = Item(rows=[[result]], where=[ln.where], line=k, end=k, kind="vector", role=ln.role, form="list",
                   label="= (the sum of the products)")
        res.chain_of = [vs]
        out += [vs, res]
    return out
