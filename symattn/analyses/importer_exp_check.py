"""One weight checked by hand in code, its printed value under it::

    np.exp(0.5596) / (np.exp(0.5596) + np.exp(0.0404))
    0.6269606805367254

The numerator's exponent and the denominator's are one row of the scores the example prints (its
entries that are not masked, in order), so the printed number is that row's weight for the numerator's
key: an ``also`` printing of that one weight. Read only when exactly one printed row of the scores
(raw, scaled or masked) has those entries, and the number is their softmax to its printed digits.

>>> exp_check("np.exp(0.5596) / (np.exp(0.5596) + np.exp(0.0404))")
('0.5596', ['0.5596', '0.0404'])
>>> exp_check("math.exp(1) / (math.exp(1) + math.exp(2) + math.exp(0))")
('1', ['1', '2', '0'])
>>> exp_check("np.exp(1) / np.exp(2)") is None
True
"""

from __future__ import annotations

import math
import re

from .importer_model import ClaimRow, ImportedExample, _num, _ulp

_EXP = r"(?:np|numpy|math|torch)\.exp\(\s*([+-]?\d{1,6}(?:\.\d{1,20})?)\s*\)"
_CHECK_RE = re.compile(rf"\s*{_EXP}\s*/\s*\(\s*({_EXP}(?:\s*\+\s*{_EXP}){{1,31}})\s*\)\s*(?:#.*)?")
_NUM_RE = re.compile(r"\s*([+-]?\d{1,6}\.\d{1,20})\s*")


def exp_check(text: str) -> tuple[str, list[str]] | None:
    """(the numerator's exponent, the denominator's exponents) of a softmax written with exp calls."""
    if len(text) > 2000:
        return None
    m = _CHECK_RE.fullmatch(text)
    if m is None:
        return None
    return m.group(1), re.findall(_EXP, m.group(2))


def exp_checks(out: list[ImportedExample], lines: list) -> None:
    """Each hand check of one weight (see the module) as an ``also`` printing of that weight."""
    for k in range(len(lines) - 1):
        if lines[k].role != "code":
            continue
        got = exp_check(lines[k].text)
        nxt = _NUM_RE.fullmatch(lines[k + 1].text) if lines[k + 1].role == "output" else None
        if got is None or nxt is None:
            continue
        top, terms = got
        value = nxt.group(1)
        xs = [_num(t) for t in terms]
        tx = _num(top)
        if tx is None or any(x is None for x in xs) or top not in terms:
            continue
        w = math.exp(tx) / sum(math.exp(x) for x in xs)  # type: ignore[arg-type]
        if abs(w - float(value)) > _ulp(value) * 0.51 + 1e-12:
            continue
        hits = []
        for ex in out:
            for c in ex.claims:
                if c.step in ("scores", "scaled", "masked") and c.group is None and c.key is None:
                    kept = [(j, v) for j, v in enumerate(c.values) if v.strip() not in ("-inf", "..", "−inf")]
                    if [v.strip() for _, v in kept] == terms:
                        hits.append((ex, c.row, kept[terms.index(top)][0], len(c.values)))
        if len(hits) != 1:
            continue
        ex, row, j, n = hits[0]
        at = str(lines[k + 1].where)
        ex.notes = [note for note in ex.notes if not (note.kind == "unplaced" and note.where == at)]
        ex.claims.append(ClaimRow("weights", row, [value if m == j else ".." for m in range(n)], str(lines[k + 1].where),
                                  str(lines[k].where)))
