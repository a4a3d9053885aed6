"""Views of a check report: terminal text and Markdown (JSON: :mod:`symattn.views.data`)."""

from __future__ import annotations

from ..display import escape
from ..analyses.check import Claim, Report
from .conventions import summary
from .printers import render_phrase

__all__ = ["text", "markdown"]

MARK = {"correct": "✓", "consistent": "≈", "truncated": "✗", "wrong": "✗", "unchecked": "·", "undecided": "?",
        "undefined": "!"}


def _right(c: Claim) -> str:
    if c.verdict in ("correct", "unchecked"):
        return ""
    if not c.closed_form and c.exact and c.exact != c.decimal and len(c.exact) <= 24:  # closed forms: --json
        return f"{c.decimal} (= {c.exact})"
    return c.decimal


def _local(c: Claim) -> str:
    if c.local_verdict is None:
        return ""
    return f"{MARK.get(c.local_verdict, '?')} {c.local_value}" if c.local_verdict != "correct" else "✓"


def _follows(info: dict, cs: list[Claim]) -> str:
    """Whether a wrong step follows from the page's own earlier numbers, said exactly."""
    if not info["follows_from_printed"]:
        return "does not follow from the page's own numbers either"
    if any(c.local_verdict == "consistent" for c in cs):
        return "follows from the page's own numbers, within their printed rounding"
    return "follows from the page's own numbers"


def _groups(r: Report) -> list[tuple[str, list[Claim]]]:
    order: list[str] = [s["step"] for s in r.steps]
    for c in r.claims:
        if c.step not in order:
            order.append(c.step)
    return [(name, [c for c in r.claims if c.step == name]) for name in order]


def _header(r: Report) -> list[str]:
    s = r.summary()
    lines = [f"Check: {r.title}", f"  source: {r.source}"]
    if r.convention:
        lines.append("  conventions: " + " · ".join(render_phrase(i.short, "text")
                                                   for i in summary(None, r.convention)))
    if r.based_on:
        lines.append(f"  {escape(r.based_on)}")
    elif r.rounded:
        lines.append("  inputs rounded: each input is known only to ± half a unit of its last printed digit")
    parts = [f"{s['correct']} correct", f"{s['wrong']} wrong"]
    if s["truncated"]:
        parts.append(f"of which {s['truncated']} truncated")
    if s["consistent"]:
        parts.append(f"{s['consistent']} consistent with rounded inputs")
    if s["undecided"]:
        parts.append(f"{s['undecided']} undecided")
    lines.append(f"  {s['total']} printed numbers: " + ", ".join(parts)
                 + (f"; first wrong step: {s['first_wrong_step']}" if s["first_wrong_step"] else ""))
    return lines


def text(r: Report) -> str:
    """A table per step: ✓/✗ per number, the right value beside each wrong one, and the
    verdict from the page's own earlier numbers (local)."""
    lines = _header(r)
    step_info = {s["step"]: s for s in r.steps}
    for name, cs in _groups(r):
        info = step_info.get(name)
        lines.append("")
        head = f"── {name} "
        if info:
            head += f"── {info['correct']}/{info['claims']} correct"
            if info.get("first_wrong"):
                head += " · FIRST WRONG STEP"
            if info["wrong"]:
                head += " · " + _follows(info, cs)
        lines.append(head)
        rows = [("", "entry", "printed", "right value", "from the page's numbers", "")]
        for c in cs:
            where = escape(c.position + (f"  ({c.group})" if c.group else ""))
            note = c.note
            if c.verdict in ("wrong", "truncated") and c.error_ulps:
                note = (f"off by {c.error_ulps} in the last digit" + (f"; {note}" if note else ""))
            rows.append((MARK.get(c.verdict, "?"), where, c.claimed, _right(c), _local(c), note))
        widths = [max(len(r_[i]) for r_ in rows) for i in range(5)]
        for r_ in rows:
            cells = [r_[i].ljust(widths[i]) for i in range(5)]
            lines.append(("  " + "  ".join(cells) + ("  " + r_[5] if r_[5] else "")).rstrip())
    if r.checks:
        lines.append("")
        lines.append("── checks that need no inputs")
        for f in r.checks:
            lines.append(f"  ✗ {f['message']}")
    if r.conventions:
        lines.append("")
        lines.append("── conventions")
        for s in r.conventions:
            lines.append(f"  {s}")
    lines.append("")
    lines.append("✓ correct · ✗ wrong (the right value is beside it) · ≈ consistent: possible within the rounding "
                 "of the inputs (--inputs-rounded) or, in the last column, of the page's own earlier numbers, "
                 "from which that column recomputes the step · ? undecided within the precision limit (the note "
                 "gives the value's certified enclosure)")
    return "\n".join(lines) + "\n"


def _md(s: str) -> str:
    return s.replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")


def markdown(r: Report) -> str:
    """The report as Markdown, to paste into a review."""
    s = r.summary()
    out = [f"### Check: {_md(r.title)}", ""]
    if r.based_on:
        out += [f"*{_md(r.based_on)}*", ""]
    out.append(f"{s['total']} printed numbers: **{s['correct']} correct, {s['wrong']} wrong**"
               + (f", {s['undecided']} undecided" if s["undecided"] else "")
               + (f"; first wrong step: `{s['first_wrong_step']}`" if s["first_wrong_step"] else "") + ".")
    step_info = {s["step"]: s for s in r.steps}
    for name, cs in _groups(r):
        info = step_info.get(name)
        note = ""
        if info and info["wrong"]:
            note = (" (first wrong step; " if info.get("first_wrong") else " (") + _follows(info, cs) + ")"
        out += ["", f"#### `{name}`{note}", "", "| | entry | printed | right value | from the page's numbers |",
                "|---|---|---|---|---|"]
        for c in cs:
            where = c.position + (f" ({c.group})" if c.group else "")
            out.append(f"| {MARK.get(c.verdict, '?')} | {_md(where)} | {_md(c.claimed)} | {_md(_right(c))} | "
                       f"{_md(_local(c))} |")
    if r.checks:
        out += ["", "#### Checks that need no inputs", ""] + [f"- ✗ {_md(f['message'])}" for f in r.checks]
    if r.conventions:
        out += ["", "#### Conventions", ""] + [f"- {_md(x)}" for x in r.conventions]
    return "\n".join(out) + "\n"
