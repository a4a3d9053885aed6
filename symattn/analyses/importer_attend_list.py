"""One query's attention weights written one line a key under a line naming the query:

    For word "cat":
    - Attend to "The": 0.15 (article)
    - Attend to "cat": 0.40 (itself)
    …

An illustrative row of weights with no inputs that make it: a claims-only example with the query as its
one token and the listed words, in order, as its keys. The rows must be numbers that can be a
distribution (each in [0, 1], summing to 1 to their printed digits). Several queries, each over the
same words as the queries, are read by the importer's ``attends_lists`` already; this reads the one
query over keys of its own.
"""

from __future__ import annotations

import re

from ..read.pages.model import Page
from .importer_claims_only import is_distribution
from .importer_model import ClaimRow, ImportedExample, Note

_HEAD = re.compile(r"\s*(?:for|from)\s+(?:the\s+)?(?:word|token|query)\s+[\"“'`]([^\"“”'`]{1,40})[\"”'`]\s*:\s*\Z", re.I)
_ROW = re.compile(r"\s*(?:[-*•]\s+)?(?:attends?|looks?|pays?\s+attention)\s+(?:to|at)\s+[\"“'`]([^\"“”'`]{1,40})[\"”'`]"
                  r"\s*[:=]\s*(\d*\.\d+|[01])(?![\d.])(?:\s*\([^()]{0,80}\))?\s*\Z", re.I)
#: at most this many keys under one query
_MAX_KEYS = 512


def attend_lists(page: Page, used: set[int]) -> list[ImportedExample]:
    """Each query's weights listed under its line (see the module's docstring) on lines no example uses."""
    lines = page.lines
    out: list[ImportedExample] = []
    for k, ln in enumerate(lines):
        h = _HEAD.match(ln.text)
        if not h:
            continue
        rows: list[tuple[str, str, int]] = []
        j = k + 1
        while j < len(lines) and len(rows) < _MAX_KEYS:
            m = _ROW.match(lines[j].text)
            if not m:
                break
            rows.append((m.group(1), m.group(2), j))
            j += 1
        if len(rows) < 2 or not is_distribution([w for _, w, _ in rows]) or \
                any(lines[n].where.line in used for n in range(k, j)):
            continue
        q = h.group(1)
        keys = [key for key, _, _ in rows]
        claims = [ClaimRow("weights", q, [w for _, w, _ in rows], str(lines[rows[0][2]].where))]
        out.append(ImportedExample(
            title=f"Weights of {q!r}", source=page.source, format=page.format, index=1, count=1, tokens=[q],
            key_tokens=keys, inputs={}, convention={}, claims=claims,
            notes=[Note("assumed", "the page writes one query's weights one line a key, with no inputs that make "
                                   "them: drafted as claims only", claims[0].where)],
            first_index=k, first_line=str(ln.where), last_line=str(lines[j - 1].where)))
    return out
