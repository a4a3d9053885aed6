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

#: an opening <script> tag and its attributes, up to its closing tag (bounded, case-insensitive)
_SCRIPT_RE = re.compile(r"<script\b([^>]{0,400})>(.*?)</script\s*>", re.I | re.S)
_SKIP_TYPES = re.compile(r"type\s*=\s*[\"']?(?:importmap|math/|text/(?:x-)?(?:template|tex|html)|"
                         r"text/x-mathjax|module-shim)", re.I)


def script_lines(text: str) -> list[Line]:
    """The lines of each inline script as code lines, numbered as on the page (blank lines dropped)."""
    out: list[Line] = []
    for m in _SCRIPT_RE.finditer(text):
        attrs, body = m.group(1), m.group(2)
        if re.search(r"\bsrc\s*=", attrs, re.I) or _SKIP_TYPES.search(attrs) or not body.strip():
            continue
        first = text.count("\n", 0, m.start(2)) + 1
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
