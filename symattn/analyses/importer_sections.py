"""What a page's sections say about the numbers in them, read after every block is named:
a section on the rest of a transformer block (the feed-forward layer, the loss) holds no
numbers of the attention, and a score the page defines with its scale is the scaled score.

>>> from symattn.read.pages.model import Line, Where
>>> lines = [Line("Step 6: Feedforward Layer (FFN)", Where(1), "heading"), Line("W_1 = [[0.1, 0.2]]", Where(2), "math")]
>>> outside_attention(lines, 1)
'Step 6: Feedforward Layer (FFN)'
>>> outside_attention([Line("Step 3: Scaled attention", Where(1), "heading")], 1)
''
>>> nested = [Line("Feed-Forward Network 1", Where(1), "heading", 4), Line("Transformation of Attention Outputs", Where(2),
...           "heading", 5), Line("[2.25, 0.75]", Where(3))]
>>> outside_attention(nested, 2)
'Feed-Forward Network 1'
"""

from __future__ import annotations

import re

from ..read.pages.model import Line
from .importer_items import Item

__all__ = ["outside_attention", "drop_outside_attention", "scores_defined_scaled", "exercise_lines", "drop_exercises", "drop_later_layers"]

#: a heading about a part of a transformer block that is not attention: the feed-forward
#: network (FFN, MLP), the residual connection and layer normalisation (Add & Norm), the loss,
#: the backward pass
_OTHER_PART_RE = re.compile(
    r"\b(?:feed[- ]?forward|FFN|FFNN|MLP|position[- ]?wise\s+(?:feed|dense)|loss(?!\s+of\b)(?:\s+(?:computation|function))?|"
    r"cross[- ]entropy|back[- ]?propagation|backprop|backward\s+pass|weight\s+updates?|gradient\s+descent|"
    r"add\s*(?:&|&amp;|and)\s*(?:layer\s*)?norm\w*|layer\s*norm\w*|residual(?:\s+connections?)?)\b", re.I)
#: names that stay attention's in any section: a symbol for Q, K, V or a projection weight
_ALWAYS_ATTENTION = ("Q", "K", "V", "Wq", "Wk", "Wv", "Wo")
_HOW_FAR = 120  # lines a heading reaches down


def outside_attention(lines: list[Line], line: int) -> str:
    """The heading of the section a line is in when that section is about a part of a transformer
    block other than attention (its nearest heading names the feed-forward layer, the loss or the
    backward pass, and not attention), else ""."""
    level = 0
    for k in range(min(line, len(lines)) - 1, max(-1, line - _HOW_FAR), -1):
        ln = lines[k]
        if ln.role == "heading":
            t = ln.text.strip()
            if level and not 0 < ln.level < level:
                continue  # a sibling or a deeper heading of an earlier section
            attention = re.search(r"attention|soft-?max|scores?\b", t, re.I)
            if _OTHER_PART_RE.search(t) and not attention:
                return t
            if not ln.level or (level and attention):
                return ""
            # a subsection ("Transformation of Attention Outputs" under "Feed-Forward Network 1") is in the
            # part its enclosing heading names, up to an enclosing heading on attention
            level = ln.level
    return ""


def drop_outside_attention(items: list[Item], lines: list[Line]) -> None:
    """A matrix printed in a section on the feed-forward layer (``W_1``, the hidden ``H``, ``z``)
    or on the loss is no step of the attention, whatever a heading further up, a letter that
    reads as an input (H for hidden states) or its values (labels that sum to 1) would make it: it
    is listed, not placed. Only a
    symbol that names Q, K, V or a projection weight outright keeps its step there."""
    for it in items:
        if it.step in _ALWAYS_ATTENTION and it.strength >= 3:
            continue
        head = outside_attention(lines, it.line)
        if head:
            it.step, it.strength = None, 0
            it.aside = it.aside or f"in a section on another part of the block ({head[:60]!r}): not attention"


#: ``Score_{ij} = \frac{Q_i \cdot K_j^T}{\sqrt{3}}``: the page's "score" defined with its scale
_SCORE_DEF_RE = re.compile(
    r"(?:\\(?:text|mathrm|operatorname)\s*\{\s*)?(?:scores?|attention\s+scores?)\s*\}?\s*(?:_\s*\{?\s*\w+\s*\}?)?\s*="
    r"\s*(?:\\[dt]?frac\s*\{[^{}]*Q[^{}]*K[^{}]*\}\s*\{\s*(?:\\sqrt|√)|"
    r"\(?[^=/()]*Q[^=/()]*K[^=/()]*\)?\s*/\s*(?:√|sqrt\b))", re.I)


def scores_defined_scaled(items: list[Item], lines: list[Line]) -> None:
    r"""A score matrix a heading or caption names, printed right under a formula that defines the
    page's score with its scale (``Score_{ij} = \frac{Q_i K_j^T}{\sqrt{3}}``, ``Score_ij = Q_i·K_j / √3``)
    and with no other block
    between them, is the scaled scores, whatever the caption adds ("raw"), when the page prints no
    other block it calls scaled. A symbol written beside the matrix decides over this."""
    if any(it.step == "scaled" for it in items):
        return
    ends = sorted(it.end for it in items)
    for it in items:
        if it.step != "scores" or it.strength >= 3 or it.kind != "matrix":
            continue
        prev = max((e for e in ends if e < it.line), default=-1)
        for k in range(it.line - 1, max(prev, it.line - 15), -1):
            ln = lines[k]
            if ln.role in ("math", "prose", "code") and _SCORE_DEF_RE.search(ln.text):
                it.step = "scaled"
                it.notes.append(f"the page defines its score with the scale (line {ln.where}): the scaled scores")
                break


#: a fenced div (Pandoc, Quarto, MyST) that opens an exercise: ``::: exercise name``, ``::: {.exercise}``,
#: ``:::{exercise}``, ``::: problem``, ``::: quiz``; a bare ``:::`` closes the innermost div
_DIV_OPEN_RE = re.compile(r"\s*(:{3,})\s*\{?\s*\.?([A-Za-z][\w-]*)")
_DIV_CLOSE_RE = re.compile(r"\s*:{3,}\s*$")
_EXERCISE_RE = re.compile(r"exercises?|problems?|questions?|quiz|practice|challenge|homework|try-?it|your-?turn", re.I)


def exercise_lines(lines: list[Line]) -> dict[int, str]:
    """The lines inside an exercise's fenced div (``::: exercise …`` down to its closing ``:::``, the
    answer and solution divs nested in it included), each with the div's opening line: a what-if
    the page asks about beside its worked example, whose numbers (a changed value row, the softmax
    of the unscaled scores) are not the example's.

    >>> from symattn.read.pages.model import Where
    >>> text = ["::: card", "S = [1, 2]", ":::", "::: exercise what-if", "::: answer", "0.867", ":::", ":::", "O"]
    >>> sorted(exercise_lines([Line(t, Where(k + 1)) for k, t in enumerate(text)]))
    [3, 4, 5, 6, 7]
    """
    out: dict[int, str] = {}
    stack: list[bool] = []
    opener = ""
    for k, ln in enumerate(lines):
        t = ln.text
        if ln.role != "code" and _DIV_CLOSE_RE.fullmatch(t):
            if stack:
                inside = any(stack)
                stack.pop()
                if inside:
                    out[k] = opener
            continue
        m = _DIV_OPEN_RE.match(t) if ln.role != "code" else None
        if m:
            ex = _EXERCISE_RE.fullmatch(m.group(2)) is not None
            if ex and not any(stack):
                opener = t.strip()
            stack.append(ex)
        if any(stack):
            out[k] = opener
    return out


def drop_exercises(items: list[Item], inside: dict[int, str]) -> None:
    """Every block printed inside an exercise's fenced div (see :func:`exercise_lines`) is listed with
    that reason, not placed."""
    for it in items:
        if it.line in inside:
            it.step, it.strength = None, 0
            it.aside = it.aside or f"in an exercise ({inside[it.line][:60]!r}): a what-if beside the worked " \
                                   "example, not its numbers"


#: a heading that numbers a layer of the model: "Layer 2 Processing", "### Layer 1"
_LAYER_RE = re.compile(r"\blayer\s+(\d{1,2})\b", re.I)
_INPUT_STEPS = ("X", "Wq", "Wk", "Wv", "Q", "K", "V")


def drop_later_layers(items: list[Item], lines: list[Line]) -> None:
    """A page that works attention through two layers ("### Layer 1 Processing", "### Layer 2 Processing")
    and names no input in the later layer's section (its queries come from the layer before, printed as
    'New vectors' or 'K2, Q2, V2 for …'): the later layer's numbers are listed with that reason, not placed
    as restatements of the first layer's steps. Only Markdown headings with levels are read (a section
    ends at the next heading of the same or a higher level); a layer heading on the feed-forward part
    ("FFN Layer 2") is not a layer of attention."""
    at: list[tuple[int, str] | None] = []
    cur: tuple[int, str, int] | None = None
    for ln in lines:
        if ln.role == "heading" and ln.level:
            t = ln.text.strip()
            m = _LAYER_RE.search(t)
            if m and not _OTHER_PART_RE.search(t) and (cur is None or ln.level <= cur[2]):
                cur = (int(m.group(1)), t, ln.level)
            elif cur is not None and ln.level <= cur[2]:
                cur = None
        at.append((cur[0], cur[1]) if cur is not None else None)
    placed = [(at[it.line], it) for it in items if 0 <= it.line < len(at)]
    first = next((lay for lay, _ in placed if lay is not None), None)
    if first is None:
        return
    later = [(lay, it) for lay, it in placed if lay is not None and lay[0] != first[0]]
    if not later or any(it.step in _INPUT_STEPS and it.strength >= 2 for _, it in later):
        return
    for lay, it in later:
        it.step, it.strength = None, 0
        it.aside = it.aside or (f"under {lay[1][:40]!r}, after the example was worked under {first[1][:40]!r}: "
                                "the next layer's attention, whose inputs the page does not name")
