"""What the command line prints about names and errors: one line, control characters escaped.

A token name, a key or a path can hold a newline, an ANSI escape or a right-to-left
override (U+202E); printed raw they would forge lines or colours, or reverse the text on
the terminal. The one escaping function is :func:`symattn.display.escape`:

>>> one_line("page.toml: tokens[1]: bad name 'a\\nb'")
"page.toml: tokens[1]: bad name 'a\\\\nb'"
"""

from __future__ import annotations

from ..display import escape

__all__ = ["escape", "one_line", "terminal_text"]


def one_line(text: str) -> str:
    """An error message as one escaped line."""
    return escape(text.strip())


def terminal_text(text: str) -> str:
    """Text output with every line escaped (its line breaks kept).

    >>> terminal_text("a\\x1b[2J\\nb\\u202e")
    'a\\\\x1b[2J\\nb\\\\u202e'
    """
    if text.isprintable():
        return text
    return "\n".join(escape(line) for line in text.split("\n"))
