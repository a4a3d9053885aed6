"""What code names a literal by how the code uses it, not by what the name usually means.

- **Embeddings named like a result** (``Z = torch.tensor([...])``, then ``V1 = Z @ W_V1``): a literal
  the code multiplies by the page's own projection weights (``W_Q1``, ``W_k``, …) is what those weights
  project, the embeddings X, whatever its name says elsewhere (Z is often an output). Only a literal
  written in code, whose name is no projection's result, and whose width is the weights' height
  (:func:`x_by_projection`).
- **A variable assigned again** (``scores = q @ k.T``, later ``scores = scores.masked_fill(mask == 0,
  float('-inf'))``, then ``print('scores', scores)``): what a print shows is the value of its latest
  assignment before it (:func:`latest_step`).

>>> from types import SimpleNamespace as L
>>> code = [L(role="code", text="s = q @ k.T"), L(role="code", text="print('s', s)"),
...         L(role="code", text="s = s.masked_fill(m == 0, float('-inf'))"), L(role="code", text="print('s', s)")]
>>> latest_step(code, "s", 1), latest_step(code, "s", 3)
(None, 'masked')
"""

from __future__ import annotations

import re

from .importer_model import Item

__all__ = ["x_by_projection", "latest_step"]

_IDENT = r"[A-Za-z_]\w{0,40}"
#: lines of code read at most (bounded work on a long script)
_MAX_LINES = 5000


def _code(lines: list) -> list[tuple[int, str]]:
    out = []
    for k, ln in enumerate(lines[:_MAX_LINES]):
        if ln.role == "code":
            t = ln.text if not ln.text.lstrip().startswith("#") else ""
            out.append((k, re.sub(r"\s+#.*$", "", t)[:400]))
    return out


def x_by_projection(items: list[Item], lines: list) -> None:
    """A literal in code that the code multiplies by a projection weight it writes (``Z @ W_V1``,
    ``np.matmul(Z, W_q)``, ``Z.dot(W_k)``) becomes the embeddings X (see the module docstring)."""
    weights: dict[str, tuple[int, int]] = {}
    for it in items:
        if it.role == "code" and it.step in ("Wq", "Wk", "Wv") and it.strength == 3 and it.kind == "matrix" \
                and re.fullmatch(_IDENT, it.label.strip()):
            weights[it.label.strip()] = it.shape
    if not weights:
        return
    code = _code(lines)
    ws = "|".join(sorted(map(re.escape, weights), key=len, reverse=True))
    for it in items:
        name = it.label.strip()
        if it.role != "code" or it.kind != "matrix" or it.step == "X" or name in weights \
                or not re.fullmatch(_IDENT, name) or it.aside or (it.strength >= 3 and it.step is not None) \
                or it.step not in (None, "output"):
            continue
        n = re.escape(name)
        used = re.compile(rf"(?<![\w.]){n}\s*@\s*({ws})\b|(?:matmul|dot|mm)\(\s*{n}\s*,\s*({ws})\b|"
                          rf"(?<![\w.]){n}\.(?:dot|matmul|mm)\(\s*({ws})\b")
        hit = next((m for k, t in code if k > it.line for m in [used.search(t)] if m), None)
        if hit is None:
            continue
        w = next(g for g in hit.groups() if g)
        if weights[w][0] != it.shape[1] or _other_operand(code, name, ws):
            continue
        it.step, it.strength = "X", 3
        it.notes.append(f"the code multiplies {name} by the projection weight {w}: the embeddings")


def _other_operand(code: list, name: str, ws: str) -> bool:
    """Whether the code multiplies another name than ``name`` by one of the projection weights (``K = other @
    W_k`` beside ``Q = data @ W_q``): the projections do not agree on one input, so ``name`` is not X."""
    other = re.compile(rf"(?<![\w.])({_IDENT})\s*@\s*(?:{ws})\b")
    return any(m.group(1) != name for _, t in code for m in other.finditer(t))


_MASKED_RHS = re.compile(rf"^\s*(?:({_IDENT})\.masked_fill_?\(|(?:torch|tf|np|numpy)\.(?:masked_fill|where)\(|"
                         rf"({_IDENT})\s*\+\s*(?:{_IDENT}_?)?mask\w*\b)")


def latest_step(lines: list, name: str, at: int) -> str | None:
    """The step a variable holds at line ``at`` by its latest assignment above it, when that assignment
    says so plainly: a ``masked_fill`` (or ``x + mask``) of it makes the masked scores. None when the
    latest assignment says nothing (the name, or other code, decides)."""
    if not re.fullmatch(_IDENT, name):
        return None
    assign = re.compile(rf"^\s*{re.escape(name)}\s*=(?!=)\s*(.+)$")
    rhs = None
    for k, t in _code(lines):
        if k >= at:
            break
        m = assign.match(t)
        if m:
            rhs = m.group(1)
    if rhs is None:
        return None
    return "masked" if _MASKED_RHS.match(rhs) else None


def fits_twice(pl, it: Item) -> bool:
    """Whether a printed block's numbers are, within rounding, those of two or more steps of a placer's
    example (a query that sees only itself under a causal mask: its output row is its value row), so that
    the placer leaves it undecided: the example still explains it (a twin worked without the mask must not
    claim it as its own)."""
    hits = 0
    for s in pl.steps:
        if s == "weighted":
            continue
        f = pl._fit(it, s)
        if f is not None and pl.match(s, f) >= 0.9:
            hits += 1
            if hits >= 2:
                return True
    return False


_PRINT_VAR = re.compile(rf"^\s*print\((?:.*,)?\s*({_IDENT})\s*\)\s*;?\s*$")


def printed_reassigned(items: list[Item], lines: list) -> None:
    """A printout of scores (in a comment under the print, or the program's output) whose print shows a
    variable assigned again just before it as a masked fill of itself (``scores = scores.masked_fill(…)``,
    ``print('scores', scores)``) is the masked scores: the later value wins for the lines after it."""
    for it in items:
        if it.step not in ("scores", "scaled") or it.strength >= 3 or it.role not in ("comment", "output") \
                or it.kind != "matrix":
            continue
        k = it.line - 1
        while k >= 0 and it.line - k <= 4 and (not lines[k].text.strip() or lines[k].role != "code"
                                                or lines[k].text.lstrip().startswith("#")):
            k -= 1
        if k < 0 or it.line - k > 4:
            continue
        m = _PRINT_VAR.match(re.sub(r"\s+#.*$", "", lines[k].text))
        if m and latest_step(lines, m.group(1), k) == "masked":
            it.step, it.strength = "masked", 3


_NAN = ("nan", "-nan", "+nan")


def nan_rows_elided(ex) -> None:
    """A row of weights or outputs printed as NaN for a query whose masked scores the same example prints
    as all -inf (a padding query masked whole: softmax of nothing): NaN is no number a reader can check, so
    the row's entries become ".." (not printed) rather than claims. Rows with some number stay as they are."""
    hidden = {(c.step.rsplit(".", 1)[0] if "." in c.step else "", c.row) for c in ex.claims
              if c.step.rsplit(".", 1)[-1] == "masked" and c.values
              and all(v.strip() in ("-inf", "-∞") for v in c.values)}
    if not hidden:
        return
    for c in ex.claims:
        head, _, step = c.step.rpartition(".")
        if step in ("weights", "output") and (head, c.row) in hidden and c.values \
                and all(v.strip().lower() in _NAN for v in c.values):
            c.values = [".."] * len(c.values)
