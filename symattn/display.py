"""How data objects show themselves (``print``, Jupyter) without knowing the views.

Data classes of the lower layers (a Derivation, a Step, a check Report, a Proof, ...)
call :func:`render` from their ``__str__`` and ``_repr_*`` hooks. The package root
installs the renderer, which lives in :mod:`symattn.views`; so nothing below the views
imports a view, and every view stays a leaf.

>>> render(object(), "text") is None or isinstance(render(object(), "text"), str)
True
"""

from __future__ import annotations

import unicodedata
from typing import Callable

__all__ = ["install", "render", "escape"]

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


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape(text: str) -> str:
    """Text for a terminal: control, format (bidi overrides such as U+202E, zero-width) and
    line-separator characters written as visible escapes, everything printable kept. Used
    for every name a user wrote (tokens, keys, titles, paths) in text output and messages.

    >>> escape("love\\nhate"), escape("\\x1b[31mred"), escape("abc\\u202edef"), escape("σ·√2 ≈ 0.7")
    ('love\\\\nhate', '\\\\x1b[31mred', 'abc\\\\u202edef', 'σ·√2 ≈ 0.7')
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or unicodedata.category(ch) == "Zs" else _visible(ch) for ch in text)


def _visible(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
