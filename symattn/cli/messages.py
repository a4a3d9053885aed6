"""What the command line prints about names and errors: one line, control characters escaped.

A token name, a key or a path can hold a newline, an ANSI escape or a right-to-left
override (U+202E); printed raw they would forge lines or colours, or reverse the text on
the terminal. :func:`escape` writes each such character as a visible escape:

>>> escape("love\\nhate")
'love\\\\nhate'
>>> escape("\\x1b[31mred")
'\\\\x1b[31mred'
>>> escape("abc\\u202edef")
'abc\\\\u202edef'
>>> escape("σ·√2 ≈ 0.7")
'σ·√2 ≈ 0.7'
"""

from __future__ import annotations

import unicodedata

__all__ = ["escape", "one_line"]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escape(text: str) -> str:
    """``text`` with control, format (bidi overrides, zero-width) and separator characters
    written as escapes; everything printable is kept."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or (ch == " ") else
                   (ch if unicodedata.category(ch) == "Zs" else _visible(ch)) for ch in text)


def one_line(text: str) -> str:
    """An error message as one escaped line."""
    return escape(text.strip())
