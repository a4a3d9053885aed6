"""JSON view: the steps as data with a stable key order, so outputs diff cleanly.

>>> import symattn as sa
>>> data = sa.to_json(sa.derive(sa.load("i_love_statistics")))
>>> [s["name"] for s in data["steps"]][:4]
['Q', 'K', 'V', 'scores']
>>> data["steps"][3]["exact"]
[['279/250', '633/500', '1339/1000']]
"""

from __future__ import annotations

import json
from typing import Sequence

from ..pipeline.steps import Derivation, Step
from .text import exact_cells, show_exact_by_default

__all__ = ["to_data", "dumps", "step_data"]


def step_data(step: Step, digits: int, exact: bool | None) -> dict:
    """One step as JSON-ready data."""
    want_exact = exact if exact is not None else show_exact_by_default(step)
    out: dict = {
        "name": step.name,
        "title": step.title,
        "formula": step.formula,
        "shape": list(step.shape),
        "rows": list(step.row_labels),
        "cols": list(step.col_labels),
    }
    if step.depth_labels is not None:
        out["depth"] = list(step.depth_labels)
    out["exact"] = exact_cells(step) if want_exact else None
    out["decimal"] = step.decimals(digits)
    return out


def to_data(d: Derivation, digits: int = 6, steps: Sequence[str] | None = None,
            exact: bool | None = None) -> dict:
    """The derivation as a dict: title, source, digits, convention, steps."""
    return {
        "title": d.title,
        "source": d.spec.source,
        "digits": digits,
        "convention": dict(d.convention),
        "steps": [step_data(s, digits, exact) for s in d.select(steps)],
    }


def dumps(data: dict) -> str:
    """JSON text, UTF-8, two-space indent, keys in the order written."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
