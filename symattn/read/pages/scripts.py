"""The inline scripts of an HTML page, read as code: a page that computes its example in the browser keeps
its numbers in a ``<script>`` (JavaScript literals, a JSON island) and prints none of them as text. Read
only when the page's text gives no worked example (see ``read_page(..., scripts=True)``); scripts loaded
from elsewhere (``src=``), import maps, TeX scripts and templates are left out. Nothing is run.

>>> [ln.text for ln in script_lines('<p>x</p>\\n<script>\\nconst W = [[1, 0], [0, 1]];\\n</script>')]
['const W = [[1, 0], [0, 1]];']
"""

from __future__ import annotations

import re

from .model import Line, Where

#: an opening <script> tag and its attributes (bounded, case-insensitive); its body runs to the next "</script"
_OPEN_RE = re.compile(r"<script\b([^>]{0,400})>", re.I)
_SKIP_TYPES = re.compile(r"type\s*=\s*[\"']?(?:importmap|math/|text/(?:x-)?(?:template|tex|html)|"
                         r"text/x-mathjax|module-shim)", re.I)


def script_lines(text: str) -> list[Line]:
    """The lines of each inline script as code lines, numbered as on the page (blank lines dropped)."""
    out: list[Line] = []
    low = text.lower()
    pos = 0
    counted, line = 0, 1  # newlines counted up to ``counted``: each part of the text is counted once
    while True:  # one pass: each opener's body ends at the next closing tag (none: the scripts end)
        m = _OPEN_RE.search(text, pos)
        if m is None:
            break
        close = low.find("</script", m.end())
        if close < 0:
            break
        attrs, body = m.group(1), text[m.end():close]
        pos = close + 8
        if re.search(r"\bsrc\s*=", attrs, re.I) or _SKIP_TYPES.search(attrs) or not body.strip():
            continue
        line += text.count("\n", counted, m.end())
        counted = m.end()
        first = line
        for k, t in enumerate(body.split("\n")):
            if t.strip():
                out.append(Line(t.rstrip(), Where(first + k, None, False), "code"))
    return out


def with_scripts(lines: list[Line], scripts: list[Line]) -> list[Line]:
    """The page's lines with its script lines put in place by line number (a stable merge)."""
    out: list[Line] = []
    i = 0
    for ln in lines:
        while i < len(scripts) and scripts[i].where.line < ln.where.line:
            out.append(scripts[i])
            i += 1
        out.append(ln)
    return out + scripts[i:]
