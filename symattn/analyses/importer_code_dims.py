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
_SQRT = rf"(?:math\.|np\.|numpy\.|torch\.)?sqrt\(\s*(?:float\(\s*)?(?:self\.)?({_NAME})\s*\)?\s*\)"
_POW = rf"(?:float\(\s*)?(?:self\.)?({_NAME})\s*\)?\s*\*\*\s*"
_ROOT_RE = re.compile(rf"/\s*\(?\s*{_SQRT}|/\s*\(?\s*{_POW}\(?0?\.5\)?|\*\s*\(?\s*{_POW}\(?\s*-\s*0?\.5\)?|"
                      rf"\*\s*\(\s*1(?:\.0*)?\s*/\s*{_SQRT}\s*\)")
#: ``scale = head_dim ** -0.5``, ``scaling = 1 / math.sqrt(d_k)``: a name for 1/√n (multiplied by), or
#: ``norm = math.sqrt(d_k)`` (divided by)
_INV_ROOT_DEF = re.compile(rf"\s*(?:self\.)?({_NAME})\s*=\s*(?:{_POW}\(?\s*-\s*0?\.5\)?|1(?:\.0*)?\s*/\s*{_SQRT})\s*$")
_ROOT_DEF = re.compile(rf"\s*(?:self\.)?({_NAME})\s*=\s*(?:{_SQRT}|{_POW}\(?0?\.5\)?)\s*$")


def _code(lines: list[Line]):
    """(line, its code without a trailing comment) for each line of code."""
    for ln in lines:
        if ln.role == "code":
            yield ln, re.sub(r"\s#.*$", "", ln.text)


def code_ints(lines: list[Line]) -> dict[str, int]:
    """The whole numbers the code names, in order: ``n = 4`` and ``d = n // h``, ``d = n * 2``,
    ``d = n / h`` (when it divides) of names set before. A name set twice to different numbers, or
    to something else later, is dropped (it is not one number on the page)."""
    out: dict[str, int] = {}
    bad: set[str] = set()
    for _, t in _code(lines):
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
    ``/ d_k ** 0.5``, ``* d_k ** -0.5``, ``* (1.0 / math.sqrt(d_k))``, or by way of a name:
    ``scale = head_dim ** -0.5`` then ``* scale``), the same one wherever it does; else None."""
    ints = code_ints(lines)
    found: dict[str, str] = {}
    inv: dict[str, str] = {}  # scale = d ** -0.5: multiplying by scale divides by √d
    root: dict[str, str] = {}  # norm = math.sqrt(d): dividing by norm divides by √d
    for _, t in _code(lines):
        m = _INV_ROOT_DEF.fullmatch(t)
        if m:
            inv[m.group(1)] = next(g for g in m.groups()[1:] if g)
        m = _ROOT_DEF.fullmatch(t)
        if m:
            root[m.group(1)] = next(g for g in m.groups()[1:] if g)
    for ln, t in _code(lines if region is None else region):
        if ln.text.lstrip().startswith("#"):
            continue
        if _INV_ROOT_DEF.fullmatch(t) or _ROOT_DEF.fullmatch(t):
            continue  # the definition of a scale, not a division of the scores
        for m in _ROOT_RE.finditer(t):
            found.setdefault(next(g for g in m.groups() if g), str(ln.where))
        for name, of in inv.items():
            if re.search(rf"\*\s*(?:self\.)?{re.escape(name)}\b(?!\s*\()", t):
                found.setdefault(of, str(ln.where))
        for name, of in root.items():
            if re.search(rf"/\s*(?:self\.)?{re.escape(name)}\b(?!\s*\()", t):
                found.setdefault(of, str(ln.where))
    if len(found) != 1:
        return None
    name, where = next(iter(found.items()))
    if name not in ints or ints[name] < 1:
        return None
    return name, ints[name], where
