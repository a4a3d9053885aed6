"""Projection weights a page writes as a multiple of the identity, in words, math or code
(``W_Q = I``, ``W_K = W_V = 0.5\\,I``, ``Wk = 0.5 * np.eye(d)``, ``torch.eye(4)``): the draft
writes them out as matrices, each entry traced to the statement."""

from __future__ import annotations

import re

from ..read.pages.model import Line
from .importer_conventions import Evidence, snippet
from .importer_names import step_of_ident

_NUM = r"(?:\d+(?:\.\d*)?|\.\d+)(?:/\d+)?"
_W_NAME = r"W\s*(?:[_^]\s*\{?\s*(?:\\mathrm\{|\\text\{)?([QKVqkv])\}?\}?|([QKVqkv])\b)"
_I = r"(?:I|\\mathbf\{I\}|\\mathbb\{I\}|I_\{?\d+\}?|\\mathrm\{I\}|\\text\{I\})"
# math or prose: 'W_K = W_V = 0.5\,I', '$W^Q = 2 I$', 'W_k = W_v = 0.5·I' (a chain of names, atomic)
_MATH = re.compile(rf"((?>{_W_NAME}\s*=\s*){{1,6}})(?:({_NUM})\s*(?:\\[,;!]|\\cdot|\\times|[*·×]|\s)*\s*)?{_I}"
                   r"(?![A-Za-z0-9(\[{])(?!\s*[-+*/·×^_])")
# code: 'Wk = 0.5 * np.eye(d)', 'W_q = torch.eye(4)', 'Wv = np.identity(d) * 2'
_CODE = re.compile(rf"^\s*((?:self\.)?[A-Za-z_]\w*)\s*=\s*(?:({_NUM})\s*\*\s*)?(?:np|numpy|torch|jnp)\."
                   rf"(?:eye|identity)\(\s*([A-Za-z_]\w*|\d+)\s*(?:,\s*dtype\s*=\s*[\w.]+\s*)?\)"
                   rf"(?:\s*\*\s*({_NUM}))?\s*(?:#.*)?$")


def stated_identities(lines: list[Line], width: int) -> dict[str, Evidence]:
    """Wq, Wk, Wv -> the factor of the identity the page sets it to (``"1"``, ``"0.5"``) and the
    statement, for a ``width``-wide example (an ``eye(n)`` of another literal size is not it).

    >>> from symattn.read.pages.model import Line, Where
    >>> ev = stated_identities([Line("- $W_K = W_V = 0.5\\\\,I$", Where(3), "prose"),
    ...                         Line("Wq = np.eye(d)", Where(5), "code")], 4)
    >>> sorted((k, e.value) for k, e in ev.items())
    [('Wk', '0.5'), ('Wq', '1'), ('Wv', '0.5')]
    """
    out: dict[str, Evidence] = {}
    for ln in lines:
        if ln.role == "code":
            m = _CODE.match(ln.text)
            if m is None:
                continue
            st = step_of_ident(m.group(1).removeprefix("self."))
            if st not in ("Wq", "Wk", "Wv") or (m.group(3).isdigit() and int(m.group(3)) != width) or \
                    (m.group(2) and m.group(4)):
                continue
            out.setdefault(st, Evidence(m.group(2) or m.group(4) or "1", str(ln.where), snippet(ln.text, m)))
            continue
        for m in _MATH.finditer(ln.text):
            for q, k in re.findall(_W_NAME, m.group(1)):
                out.setdefault("W" + (q or k).lower(), Evidence(m.group(4) or "1", str(ln.where), snippet(ln.text, m)))
    return out


#: the identity written with its shape: 'I_{4 \times 2}', 'I_{4×2}', 'I_{4x2}' (rows × columns)
_SHAPED_I = re.compile(r"(?<![A-Za-z\\])I_\{?\s*(\d{1,3})\s*(?:\\times|×|x|\*)\s*(\d{1,3})\s*\}?")


def identity_columns(text: str, rows: int) -> int:
    """The number of columns of an identity a statement writes with its shape, ``W^V = I_{4 \\times 2}`` (the
    4×2 matrix with ones on its diagonal: the first two columns of the 4×4 identity), when its rows are
    ``rows``; else ``rows`` (a square identity).

    >>> identity_columns(r"W^V = I_{4 \\times 2}", 4), identity_columns("W_V = I_{4×2}", 3), identity_columns("W_V = I", 4)
    (2, 3, 4)
    """
    m = _SHAPED_I.search(text)
    if m is None or int(m.group(1)) != rows or not 1 <= int(m.group(2)) <= rows:
        return rows
    return int(m.group(2))
