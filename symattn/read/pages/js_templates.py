"""What a program printed, kept in a JavaScript/TypeScript source file as a template string: a lesson or
documentation module (``export default {...}``) holds a listing under ``code:`` and what it printed under
``output:`` (or ``stdout:``), each a backquoted template string spanning lines. The lines of such an output
string are output, read as a printout is read (labels then numbers), not as code; the key and the quotes
are taken off their first and last lines. A template string under any other key (``code:``, ``html:``)
stays code.

>>> from .model import Line, Where
>>> ls = [Line(t, Where(n), "code") for n, t in enumerate(
...     ["  code: `print(w)`,", "  output: `weights:", " [[0.5 0.5]]`,", "  caption: 'x',"], 1)]
>>> [(x.role, x.text) for x in template_outputs(ls)]
[('code', '  code: `print(w)`,'), ('output', 'weights:'), ('output', ' [[0.5 0.5]]'), ('code', "  caption: 'x',")]
"""

from __future__ import annotations

import re

from .model import Line

#: the key of a printed-output template string and its opening backquote
_OUTPUT_KEY = re.compile(r"""^\s{0,40}(?:['"]?(?:output|stdout|printed)['"]?)\s{0,8}:\s{0,8}`""")
#: a backquote that closes the template (not escaped)
_CLOSE = re.compile(r"(?<!\\)`")

#: the longest output string read (lines): a longer one is left as code
MOST_LINES = 400


def template_outputs(lines: list[Line]) -> list[Line]:
    """``lines`` with each output template string's lines made output (in place; returned)."""
    k = 0
    while k < len(lines):
        m = _OUTPUT_KEY.match(lines[k].text) if lines[k].role == "code" else None
        if m is None:
            k += 1
            continue
        rest = lines[k].text[m.end():]
        end = None
        for j in range(k, min(len(lines), k + MOST_LINES)):
            text = rest if j == k else lines[j].text
            c = _CLOSE.search(text)
            if c is not None:
                end = (j, c.start())
                break
        if end is None or "${" in "".join(ln.text for ln in lines[k:end[0] + 1]):
            k += 1  # unclosed, or a template with substitutions: not a printout as printed
            continue
        j, cut = end
        for i in range(k, j + 1):
            text = rest if i == k else lines[i].text
            lines[i].text = text[:cut] if i == j else text
            lines[i].role = "output"
        k = j + 1
    return lines
