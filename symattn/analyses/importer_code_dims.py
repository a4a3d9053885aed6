"""Whole numbers a page's code sets (``C = 4``, ``n_heads = 2``, ``head_dim = C // n_heads``) and
the one its code divides the scores by the square root of (``/ math.sqrt(head_dim)``).

>>> from symattn.read.pages.model import Line, Where
>>> code = ["C = 4", "n_heads = 2", "head_dim = C // n_heads  # 2", "att = q @ k.T / math.sqrt(head_dim)"]
>>> lines = [Line(t, Where(k + 1), "code") for k, t in enumerate(code)]
>>> code_ints(lines)
{'C': 4, 'n_heads': 2, 'head_dim': 2}
>>> root_divisor(lines)
('head_dim', 2, 'line 4')
"""

from __future__ import annotations

import re

from ..read.pages.model import Line

__all__ = ["code_ints", "root_divisor"]

_NAME = r"[A-Za-z_]\w*"
_INT_RE = re.compile(rf"\s*(?:self\.)?({_NAME})\s*=\s*(\d{{1,6}})\s*$")
_OP_RE = re.compile(rf"\s*(?:self\.)?({_NAME})\s*=\s*(?:self\.)?({_NAME}|\d{{1,6}})\s*(//|\*|/)\s*(?:self\.)?({_NAME}|\d{{1,6}})\s*$")
_ROOT_RE = re.compile(rf"/\s*\(?\s*(?:math\.|np\.|numpy\.|torch\.)?sqrt\(\s*(?:self\.)?({_NAME})\s*\)|"
                      rf"/\s*\(?\s*(?:self\.)?({_NAME})\s*\*\*\s*0?\.5|\*\s*(?:self\.)?({_NAME})\s*\*\*\s*-\s*0?\.5")


def code_ints(lines: list[Line]) -> dict[str, int]:
    """The whole numbers the code names, in order: ``n = 4`` and ``d = n // h``, ``d = n * 2``,
    ``d = n / h`` (when it divides) of names set before. A name set twice to different numbers, or
    to something else later, is dropped (it is not one number on the page)."""
    out: dict[str, int] = {}
    bad: set[str] = set()
    for ln in lines:
        if ln.role != "code":
            continue
        t = re.sub(r"\s#.*$", "", ln.text)
        m = _INT_RE.fullmatch(t)
        if m:
            name, val = m.group(1), int(m.group(2))
        else:
            m = _OP_RE.fullmatch(t)
            if not m:
                a = re.match(rf"\s*(?:self\.)?({_NAME})\s*=(?!=)", t)
                if a and a.group(1) in out:
                    bad.add(a.group(1))  # set again to something else
                continue
            x, op, y = m.group(2), m.group(3), m.group(4)
            xv = int(x) if x.isdigit() else out.get(x)
            yv = int(y) if y.isdigit() else out.get(y)
            if xv is None or yv is None or (op != "*" and (yv == 0 or (op == "/" and xv % yv))):
                continue
            name, val = m.group(1), xv * yv if op == "*" else xv // yv
        if name in out and out[name] != val:
            bad.add(name)
        out[name] = val
    return {k: v for k, v in out.items() if k not in bad}


def root_divisor(lines: list[Line], region: list[Line] | None = None) -> tuple[str, int, str] | None:
    """(name, value, where) when the code in ``region`` (default: all the lines) divides by the square
    root of one name whose whole number the code in ``lines`` sets (``/ math.sqrt(head_dim)``,
    ``/ d_k ** 0.5``, ``* d_k ** -0.5``), the same one wherever it does; else None."""
    ints = code_ints(lines)
    found: dict[str, str] = {}
    for ln in lines if region is None else region:
        if ln.role != "code" or ln.text.lstrip().startswith("#"):
            continue
        for m in _ROOT_RE.finditer(re.sub(r"\s#.*$", "", ln.text)):
            name = m.group(1) or m.group(2) or m.group(3)
            found.setdefault(name, str(ln.where))
    if len(found) != 1:
        return None
    name, where = next(iter(found.items()))
    if name not in ints or ints[name] < 1:
        return None
    return name, ints[name], where
