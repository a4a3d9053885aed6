"""The draft example file that ``symattn import`` writes: TOML with ``[inputs]``, tokens,
``[convention]`` and every printed number under ``[claims]``, each as printed and with a
comment giving the page line (or notebook cell) it came from. The choices made where the
page is silent come first; what could not be placed is listed at the end.

>>> from symattn.analyses.importer import import_examples
>>> ex = import_examples('Q = [[1, 0]]\\nK = [[1, 0], [0, 1]]\\nV = [[1, 2], [3, 4]]\\nscores = [[1, 0]]',
...                      "markdown", "post.md")[0]
>>> print(draft(ex))  # doctest: +ELLIPSIS
# Imported by `symattn import` from post.md (markdown): worked example 1 of 1, lines 1–4.
...
[inputs]
Q = [
  [1, 0],  # line 1: Q
]
...
[claims.scores]
1 = [1, 0]  # line 4
...
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from ..analyses.importer import ClaimRow, ImportedExample, toml_value

__all__ = ["draft", "toml_string", "toml_key"]


def toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped.

    >>> toml_string('say "hi"\\\\n')
    '"say \\\\"hi\\\\"\\\\\\\\n"'
    """
    out = []
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def toml_key(text: str) -> str:
    """A bare key when TOML allows it, else a quoted one.

    >>> toml_key("love"), toml_key("<EOS>"), toml_key("the (2)")
    ('love', '"<EOS>"', '"the (2)"')
    """
    return text if re.fullmatch(r"[A-Za-z0-9_-]+", text) else toml_string(text)


def _comment(text: str) -> str:
    """Text for a comment: one line, control characters shown as escapes."""
    s = re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\x{ord(m.group(0)):02x}", text.replace("\n", " "))
    return s.strip()


def _value(v: Any) -> str:
    if isinstance(v, bool):  # pragma: no cover - never produced
        return "true" if v else "false"
    if isinstance(v, (int, Decimal)):
        return str(v)
    if isinstance(v, list):  # a list convention (window = [2, 0], with "inf" as a string)
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return toml_string(str(v))


def _row(values: list[str]) -> str:
    return "[" + ", ".join(_value(toml_value(v)) for v in values) + "]"


def _tokens(tokens: list[str]) -> str:
    return "[" + ", ".join(toml_string(t) for t in tokens) + "]"


def draft(ex: ImportedExample, name: str | None = None) -> str:
    """The draft example file for one imported worked example (TOML text)."""
    out: list[str] = []
    lines = f", lines {ex.first_line.replace('line ', '')}–{ex.last_line.replace('line ', '')}" \
        if ex.first_line and ex.first_line != ex.last_line and ex.first_line.startswith("line") else ""
    out.append(f"# Imported by `symattn import` from {_comment(ex.source)} ({ex.format}): worked example "
               f"{ex.index} of {ex.count}{lines}.")
    out.append("# Every number is as the page prints it; the comment after each row says where it is.")
    out.append(f"# Review it, then: symattn check {_comment(name or 'THIS_FILE.toml')}")
    assumed = ex.assumptions
    if assumed:
        out.append("#")
        out.append("# Assumed where the page is silent (check reports these first):")
        for n in assumed:
            out.append(f"#   - {_comment(str(n))}")
    out.append(f"title = {toml_string(ex.title)}")
    out.append(f"description = {toml_string(ex.data()['description'])}")
    if ex.tokens:
        out.append(f"tokens = {_tokens(ex.tokens)}")
    if ex.key_tokens:
        out.append(f"key_tokens = {_tokens(ex.key_tokens)}")
    if ex.inputs_rounded:
        out.append("inputs_rounded = true  # the page prints random inputs rounded")
    out.append("")
    out.append("[inputs]" if ex.inputs or not ex.claims else
               "# no [inputs]: the page prints none of the inputs that make its numbers")
    for k, g in ex.inputs.items():
        label = f": {_comment(g.label.strip())[:70]}" if g.label.strip() else ""
        out.append(f"{k} = [")
        for i, r in enumerate(g.rows):
            w = g.where[i] if i < len(g.where) else (g.where[-1] if g.where else "")
            out.append(f"  {_row(r)},  # {w}{label if i == 0 else ''}")
        out.append("]")
    out.append("")
    out.append("[convention]")
    for k, c in ex.convention.items():
        why = ("assumed: " if c.assumed else "") + c.reason
        where = f"{c.where}: " if c.where else ""
        out.append(f"{k} = {_value(c.value) if not isinstance(c.value, str) else toml_string(c.value)}"
                   f"  # {_comment(where + why)[:160]}")
    main = [c for c in ex.claims if c.group is None]
    groups: dict[str, list[ClaimRow]] = {}
    for c in ex.claims:
        if c.group is not None:
            groups.setdefault(c.group, []).append(c)
    if main or groups:
        out.append("")
        out.append("# Every number the page prints, by step (see `symattn check --help`).")
        out += _claim_tables(main, "claims")
    for where, rows in groups.items():
        out.append("")
        out.append("# printed again, differently:")
        out.append("[[claims.also]]")
        out.append(f"where = {toml_string(where)}")
        out += _claim_tables(rows, "claims.also")
    repeats = [n for n in ex.notes if n.kind in ("repeat", "echo")]
    if repeats:
        out.append("")
        out.append("# Printed again with the same numbers (not repeated above):")
        for n in repeats:
            out.append(f"#   {_comment(str(n))}")
    unplaced = ex.unplaced
    out.append("")
    if unplaced:
        out.append("# Not placed (found on the page, not in this draft):")
        for n in unplaced:
            out.append(f"#   {_comment(str(n))}")
    else:
        out.append("# Every number found on the page was placed.")
    return "\n".join(out) + "\n"


def _claim_tables(rows: list[ClaimRow], prefix: str) -> list[str]:
    out: list[str] = []
    order: list[tuple[str, str | None]] = []
    for c in rows:
        key = (c.step, c.row if c.step == "weighted" else None)
        if key not in order:
            order.append(key)
    for step, qrow in order:
        header = f"[{prefix}.{toml_key(step)}" + (f".{toml_key(qrow)}" if qrow is not None else "") + "]"
        out.append("")
        if step == "weighted" and qrow is not None:
            out.append(f"# p·v before the sum, for the query {_comment(qrow)}: one row per key")
        out.append(header)
        for c in rows:
            if c.step != step or (qrow is not None and c.row != qrow):
                continue
            name = c.key if step == "weighted" else c.row
            value = _value(toml_value(c.values[0])) if step.endswith("_sum") else _row(c.values)
            out.append(f"{toml_key(name or '')} = {value}  # {_comment(c.where)}")
    return out


def summary(ex: ImportedExample, fmt: str = "text") -> str:
    """What ``symattn check PAGE`` prints above the verdicts: where the example is, the
    choices made where the page is silent, and what could not be placed."""
    head = (f"Imported from {_comment(ex.source)} ({ex.format}): worked example {ex.index} of {ex.count}"
            + (f" ({ex.first_line} to {ex.last_line})" if ex.first_line else "")
            + f"; {ex.placed} printed numbers placed, {len(ex.unplaced)} "
            + ("block" if len(ex.unplaced) == 1 else "blocks") + " not placed")
    assumed = [_comment(str(n)) for n in ex.assumptions]
    stated = [_comment(str(n)) for n in ex.notes if n.kind == "stated"]
    unplaced = [_comment(str(n)) for n in ex.unplaced]
    if fmt == "markdown":
        out = [f"### Import: {_md(ex.title)}", "", _md(head) + "."]
        for title, items in (("Assumed where the page is silent", assumed), ("Stated by the page", stated),
                             ("Not placed", unplaced)):
            if items:
                out += ["", f"**{title}:**", ""] + [f"- {_md(x)}" for x in items]
        return "\n".join(out) + "\n\n"
    out = [head]
    for title, items in (("assumed where the page is silent", assumed), ("stated by the page", stated),
                         ("not placed", unplaced)):
        if items:
            out.append(f"  {title}:")
            out += [f"    - {x}" for x in items]
    return "\n".join(out) + "\n\n"


def _md(s: str) -> str:
    return s.replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")
