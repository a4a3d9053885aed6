"""How data objects show themselves (``print``, Jupyter) without knowing the views.

Data classes of the lower layers (a Derivation, a Step, a check Report, a Proof, ...)
call :func:`render` from their ``__str__`` and ``_repr_*`` hooks. The package root
installs the renderer, which lives in :mod:`symattn.views`; so nothing below the views
imports a view, and every view stays a leaf.

>>> render(object(), "text") is None or isinstance(render(object(), "text"), str)
True
"""

from __future__ import annotations

from typing import Callable

__all__ = ["install", "render"]

_renderer: Callable[[object, str], str | None] | None = None


def install(renderer: Callable[[object, str], str | None]) -> None:
    """Set the function that renders an object in a format (``text``, ``markdown``, ``latex``, ``html``)."""
    global _renderer
    _renderer = renderer


def render(obj: object, fmt: str) -> str | None:
    """The object rendered in ``fmt``, or None when no renderer knows it."""
    if _renderer is None:
        return None
    return _renderer(obj, fmt)
