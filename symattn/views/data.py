"""JSON view: every object as data with a stable key order, so outputs diff cleanly.
The data classes carry no ``to_data``; this module dispatches by type.

>>> import symattn as sa
>>> data = to_data(sa.derive(sa.load("i_love_statistics")))
>>> [s["name"] for s in data["steps"]][:4]
['Q', 'K', 'V', 'scores']
>>> data["steps"][3]["exact"]
[['279/250', '633/500', '1339/1000']]
>>> to_data(sa.prove("rows-sum-to-one"))["holds"]
True
"""

from __future__ import annotations

import dataclasses
import json
from functools import singledispatch
from typing import Any, Sequence

import sympy

from ..analyses.check import Claim, Report
from ..analyses.formula import Formula
from ..analyses.proofs import Proof
from ..analyses.softmax_forms import ClosedForms, Fact
from ..analyses.verify import Verification
from ..pipeline.steps import Derivation, Step
from .entries import exact_form, show_exact
from .printers import latex, render_phrase, text

__all__ = ["to_data", "dumps", "step_data", "exact_strings"]


def exact_strings(step: Step) -> list:
    """Exact values as strings SymPy reads back (a rational value as that rational),
    nested like the step (2-D or 3-D)."""
    node = step.node

    def cell(*idx: int) -> str:
        q = exact_form(node, idx) if not node.symbolic else None
        return str(q) if q is not None and (q.is_Rational or q.is_infinite) else str(node.entry(*idx))

    if len(step.shape) == 2:
        return [[cell(i, j) for j in range(step.shape[1])] for i in range(step.shape[0])]
    a, b, c = step.shape
    return [[[str(node.entry(i, j, l)) for l in range(c)] for j in range(b)] for i in range(a)]


def step_data(step: Step, digits: int, exact: bool | None) -> dict:
    """One step as JSON-ready data."""
    out: dict = {
        "name": step.name,
        "title": step.title,
        "formula": latex(step.formula),
        "shape": list(step.shape),
        "rows": list(step.row_labels),
        "cols": list(step.col_labels),
    }
    if step.depth_labels is not None:
        out["depth"] = list(step.depth_labels)
    out["exact"] = exact_strings(step) if show_exact(step, exact) else None
    out["decimal"] = step.decimals(digits)
    return out


@singledispatch
def to_data(obj: Any, **options: Any) -> Any:
    """JSON-ready data of a derivation (``digits``, ``steps``, ``exact``), a check report, a
    claim, a proof, softmax closed forms, a fact, a formula or a verification."""
    if isinstance(obj, list) and all(isinstance(v, Verification) for v in obj):
        return [to_data(v) for v in obj]
    if type(obj).__name__ == "Comparison" and type(obj).__module__ == "symattn.analyses.compare":
        return obj.to_data()  # a kernel comparison (not imported here: it needs NumPy)
    raise TypeError(f"no JSON view of {type(obj).__name__}")


@to_data.register
def _(d: Derivation, digits: int = 6, steps: Sequence[str] | None = None, exact: bool | None = None,
      **_: Any) -> dict:
    return {
        "title": d.title,
        "source": d.spec.source,
        "digits": digits,
        "convention": dict(d.convention),
        "steps": [step_data(s, digits, exact) for s in d.select(steps)],
    }


@to_data.register
def _(c: Claim, **_: Any) -> dict:
    return {"step": c.step, "row": c.row, "col": c.col, "index": list(c.index), "claimed": c.claimed,
            "exact": c.exact, "value": c.decimal, "verdict": c.verdict, "tie": c.tie,
            "local_verdict": c.local_verdict, "local_value": c.local_value, "error_ulps": c.error_ulps,
            "group": c.group, "field": c.field, "enclosure": c.enclosure}


@to_data.register
def _(r: Report, **_: Any) -> dict:
    return {"title": r.title, "source": r.source, "convention": dict(r.convention), "inputs_rounded": r.rounded,
            "claims": [to_data(c) for c in r.claims], "steps": r.steps, "checks": r.checks,
            "diagnosis": r.diagnosis, "summary": r.summary(), "based_on": r.based_on or None}


@to_data.register
def _(p: Proof, **_: Any) -> dict:
    return {"name": p.name, "title": p.title, "statement": render_phrase(p.statement, "latex-math"),
            "holds": p.holds,
            "argument": [{"latex": render_phrase(line, "latex-math"), "why": render_phrase(why, "text")}
                         for line, why in p.argument],
            "checks": [{"check": w, "holds": ok} for w, ok in p.checks]}


@to_data.register
def _(f: Fact, **_: Any) -> dict:
    return {"name": f.name, "title": f.title, "latex": render_phrase(f.statement, "latex-math"),
            "text": render_phrase(f.statement, "text"), "checked": f.checked, "how": f.how}


@to_data.register
def _(forms: ClosedForms, **_: Any) -> dict:
    return {"n": str(forms.n), "facts": [to_data(f) for f in forms]}


@to_data.register
def _(f: Formula, **_: Any) -> dict:
    return {"kind": f.kind, "scale": f.scale, "expression": f.expression, "form": f.form, "reason": f.reason}


@to_data.register
def _(v: Verification, **_: Any) -> dict:
    return dataclasses.asdict(v)


@to_data.register
def _(e: sympy.Basic, **_: Any) -> dict:
    return {"latex": latex(e), "text": text(e), "sympy": str(e)}


def dumps(data: Any) -> str:
    """JSON text, UTF-8, two-space indent, keys in the order written."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
