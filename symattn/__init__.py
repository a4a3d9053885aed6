"""symattn: attention, softmax(QKᵀ/√d_k)·V, worked in exact and symbolic arithmetic.

>>> import symattn as sa
>>> d = sa.derive(sa.load("i_love_statistics"))
>>> d["scores"].exact
Matrix([[279/250, 633/500, 1339/1000]])
>>> d["output"].decimals(20)
[['0.53847861028073644064', '0.81932177182100748911']]

The package is layered, read bottom-up: ``read`` (numbers, example files, conventions,
LaTeX input) → ``exact`` (value nodes, certified decimals) → ``pipeline`` (the forward
and backward steps) → ``analyses`` (check, verify, proofs, closed forms) → ``views``
(text, JSON, LaTeX, Markdown) → ``cli``. Names are imported on first use, so that
``import symattn`` (and the command line) costs little more than SymPy.
"""

from __future__ import annotations

import importlib
from typing import Any

from . import display as _display

from .version import __version__

#: public name -> the module that defines it
_EXPORTS = {
    "load": "symattn.read.spec", "loads": "symattn.read.spec", "from_dict": "symattn.read.spec",
    "list_examples": "symattn.read.spec", "Spec": "symattn.read.spec",
    "exact_number": "symattn.read.numbers", "parse_expression": "symattn.read.numbers",
    "derive": "symattn.pipeline.forward", "decode": "symattn.pipeline.decode", "Derivation": "symattn.pipeline.steps", "Step": "symattn.pipeline.steps",
    "grad": "symattn.pipeline.backward", "Gradient": "symattn.pipeline.backward",
    "check": "symattn.analyses.check", "Report": "symattn.analyses.check", "Claim": "symattn.analyses.check",
    "verify": "symattn.analyses.verify", "prove": "symattn.analyses.proofs",
    "parse_formula": "symattn.analyses.formula", "Formula": "symattn.analyses.formula",
    "import_page": "symattn.analyses.importer", "import_examples": "symattn.analyses.importer",
    "text": "symattn.views.render", "to_json": "symattn.views.render", "latex": "symattn.views.render",
    "markdown": "symattn.views.render",
    "heatmap": "symattn.views.heatmap", "Heatmap": "symattn.views.heatmap",
    "reference": "symattn.exact.reference", "Reference": "symattn.exact.reference",
    "KernelConventions": "symattn.read.tensors_conventions",
    "SymattnError": "symattn.errors", "SpecError": "symattn.errors", "LimitError": "symattn.errors",
    "CertificationError": "symattn.errors", "InputError": "symattn.errors", "OptionError": "symattn.errors",
    "UndefinedValueError": "symattn.errors",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'symattn' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


def _render(obj: object, fmt: str) -> str | None:
    from .views.render import render

    return render(obj, fmt)


_display.install(_render)
