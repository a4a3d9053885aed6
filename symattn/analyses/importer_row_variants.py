"""Variants of a worked example written row by row in titled blocks after it: a page that has worked Q, K
and V (causal, scaled) and then gives, in a fenced block of its own, the same numbers without the mask or
without the scale, one bullet a query row:

    ::: worked title="Unmasked: every row sees every key"
    - **Row 1.** Scores $(0.707, 0, 0.707)$, … Weights $(0.401, 0.198, 0.401)$. Output $… = (1.604, 1.599)$.
    - **Row 2.** …
    :::

Each such block is another example on the same inputs with the convention its title says (``unmasked`` or
"without the mask": no mask; ``causal``: the causal mask; "without the scale" or ``unscaled``: no scaling),
its claims read from the bullets: the first vector after "scores" (the raw scores when unscaled, else the
scaled ones; a shorter row, the visible part of a causal row, padded with ".."), the first after
"weights", and the last after "output" (the result after the last "=").

Only a block whose title changes the mask or the scale of the example before it (a block that repeats that
example's own convention is part of it), after that example's first line, with at least one bullet, each
row number a query of that example and each vector as wide as its step.

>>> variant_of("Unmasked: every row sees every key"), variant_of("Causal, without the scale")
({'mask': 'none'}, {'mask': 'causal', 'scale': 'none'})
>>> variant_of("A soft lookup with three keys")
{}
>>> row_vectors("Scores $(0, 1)$, exponentials $(1, 2.718)$. Weights $(0.269, 0.731, 0)$; output $(0.269, 1.462)$.")
{'scores': ['0', '1'], 'weights': ['0.269', '0.731', '0'], 'output': ['0.269', '1.462']}
"""

from __future__ import annotations

import copy
import re

from .importer_model import Choice, ClaimRow, ImportedExample, Note

__all__ = ["variant_of", "row_vectors", "row_variants"]

_OPEN = re.compile(r'^\s*:::\s*[\w-]{1,30}\s+title\s*=\s*"([^"\n]{1,160})"\s*$')
_CLOSE = re.compile(r"^\s*:::\s*$")
_ROW = re.compile(r"^\s*[-*+]\s+\*\*Row\s+(\d{1,2})\.?\*\*\.?\s*(.*)$", re.I)
_NUM = r"-?\d{1,9}(?:\.\d{1,12})?"
_VEC = re.compile(rf"\(\s*({_NUM}(?:\s*,\s*{_NUM}){{1,63}})\s*\)")
_WORD = re.compile(r"\b(scores?|weights?|outputs?|exponentials?|sum)\b", re.I)
_MAX_BLOCK = 80


def variant_of(title: str) -> dict[str, str]:
    """The convention keys a block's title sets: mask ('none', 'causal') and scale ('none')."""
    t = title.lower()
    out: dict[str, str] = {}
    if re.search(r"\bunmasked\b|without (?:the |a )?mask|\bno mask\b", t):
        out["mask"] = "none"
    elif re.search(r"\bcausal\b|\bmasked\b", t):
        out["mask"] = "causal"
    if re.search(r"without (?:the |a )?scal|\bunscaled\b|\bno scal", t):
        out["scale"] = "none"
    return out


def row_vectors(text: str) -> dict[str, list[str]]:
    """The scores, weights and output a row's bullet gives (see the module's docstring)."""
    words = [(m.start(), m.group(1).lower().rstrip("s")) for m in _WORD.finditer(text)]
    out: dict[str, list[str]] = {}
    for m in _VEC.finditer(text):
        before = [w for p, w in words if p < m.start()]
        if not before:
            continue
        w = {"score": "scores", "weight": "weights", "output": "output"}.get(before[-1])
        if w is None:
            continue
        vals = [x.strip() for x in m.group(1).split(",")]
        if w == "output" or w not in out:
            out[w] = vals
    return out


def _blocks(lines: list) -> list[tuple[int, str, dict[int, str]]]:
    out = []
    k = 0
    while k < len(lines):
        m = _OPEN.match(lines[k].text)
        if m is None:
            k += 1
            continue
        rows: dict[int, str] = {}
        cur = None
        j = k + 1
        while j < len(lines) and j - k <= _MAX_BLOCK and not _CLOSE.match(lines[j].text):
            r = _ROW.match(lines[j].text)
            if r:
                cur = int(r.group(1))
                rows[cur] = r.group(2)
            elif cur is not None and lines[j].text.startswith((" ", "\t")) and lines[j].text.strip():
                rows[cur] += " " + lines[j].text.strip()
            else:
                cur = None
            j += 1
        out.append((k, m.group(1), rows))
        k = j + 1
    return out


def _renumber(out: list[ImportedExample]) -> None:
    for n, e in enumerate(out, 1):
        e.index, e.count = n, len(out)
        e.title = re.sub(r" \(example \d+ of \d+\)$", "", e.title)
        if len(out) > 1:
            e.title = f"{e.title} (example {n} of {len(out)})"


def row_variants(out: list[ImportedExample], lines: list) -> list[ImportedExample]:
    """``out`` with an example added for each variant block (see the module's docstring)."""
    added: list[ImportedExample] = []
    for at, title, rows in _blocks(lines):
        wants = variant_of(title)
        if not wants or not rows:
            continue
        base = max((e for e in out if e.first_index < at and e.inputs), key=lambda e: e.first_index, default=None)
        if base is None:
            continue
        conv = {k: c.value for k, c in base.convention.items()}
        if all(conv.get(k, "none" if k == "mask" else None) == v for k, v in wants.items()):
            continue  # the example's own convention: its rows are part of it
        q = base.inputs.get("Q")
        v = base.inputs.get("V")
        if q is None or v is None:
            continue
        nq, nk, dv = len(q.rows), len(base.inputs["K"].rows) if "K" in base.inputs else 0, len(v.rows[0])
        scale = wants.get("scale", conv.get("scale"))
        claims: list[ClaimRow] = []
        ok = True
        for r, text in sorted(rows.items()):
            if not 1 <= r <= nq:
                ok = False
                break
            name = base.tokens[r - 1] if base.tokens else str(r)
            for step, vals in row_vectors(text).items():
                width = dv if step == "output" else nk
                if len(vals) > width or (step != "scores" and len(vals) != width):
                    ok = False
                    break
                if step == "scores":
                    step = "scores" if scale == "none" else "scaled"
                claims.append(ClaimRow(step, name, vals + [".."] * (width - len(vals)), f"line {at + 1}"))
            if not ok:
                break
        if not ok or not claims:
            continue
        ex = copy.deepcopy(base)
        for k, val in wants.items():
            ex.convention[k] = Choice(val, f"the block's title says so: {title!r}", where=f"line {at + 1}")
        ex.claims = claims
        ex.title = title
        ex.first_index = at
        ex.notes = [Note("info", f"the inputs of {base.title!r}, worked again as the titled block says "
                                 f"({title!r}), one bullet a row", f"line {at + 1}")]
        added.append(ex)
    if not added:
        return out
    out = sorted(out + added, key=lambda e: e.first_index)
    _renumber(out)
    return out
