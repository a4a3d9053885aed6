"""What a notebook cell's code shows, read off the code: a ``print`` of an f-string, a tuple echoed last.

What a ``print`` of an f-string prints: ``print(f"attention weights: \\n{attn}")`` prints the value of
``attn`` after a caption, so the block of numbers it leaves in the output is ``attn``'s. Read only when the
f-string holds exactly one replacement field and that field is a plain name, attribute or index (an
expression such as ``{x.shape}`` or ``{a + b}`` names no step's value and gives no name).

>>> fstring_printed('f"Q: {Q}"')
'Q'
>>> fstring_printed("f'weights:\\\\n{attention_weights_2}'")
'attention_weights_2'
>>> fstring_printed('f"{a} and {b}"') is None
True
"""

from __future__ import annotations

import re

#: one f-string literal (single or double quoted, no triple quotes), its text captured
_FSTRING = re.compile(r"""^[rR]?[fF][rR]?(["'])((?:(?!\1)[^\\]|\\.){0,400})\1$""")
#: a replacement field's expression: a dotted name with optional [index] parts, then !r/!s and a format spec
_FIELD = re.compile(r"^\s*([A-Za-z_]\w{0,60}(?:\.[A-Za-z_]\w{0,60}|\[[\w\s:,-]{0,20}\]){0,4})\s*(?:![rsa])?"
                    r"(?::[^{}]{0,20})?$")
_NOT_VALUES = re.compile(r"\.(?:shape|size|dtype|device|ndim|numel|item)\b|\blen\b")


def fstring_printed(arg: str) -> str | None:
    """The name an f-string argument of ``print`` shows the value of, or None (not an f-string, no field,
    several fields, or a field that is an expression, a shape or a size)."""
    m = _FSTRING.match(arg.strip())
    if m is None:
        return None
    body = m.group(2).replace("{{", "").replace("}}", "")
    fields = re.findall(r"\{([^{}]{0,120})\}", body)
    if len(fields) != 1 or body.count("{") != 1:
        return None
    f = _FIELD.match(fields[0])
    if f is None or _NOT_VALUES.search(f.group(1)):
        return None
    return f.group(1)


_SHAPE_PART = re.compile(r"^[A-Za-z_]\w{0,60}(?:\.shape|\.size\(\s*\)|\.dtype)$|^len\([A-Za-z_]\w{0,60}\)$")


def tuple_with_shapes(last: str, count: int) -> list[str] | None:
    """The names a cell's last line shows, one per printed block, when it echoes a tuple of names mixed
    with their shapes (``context.shape, context``: the notebook shows ``(torch.Size([28]), tensor([…]))``, the
    shape no block of numbers): the names once the shapes are left out, if ``count`` blocks were printed
    (with "" for each shape where the shapes were read as blocks too).

    >>> tuple_with_shapes("ctx.shape, ctx", 1), tuple_with_shapes("(a.shape, a, b)", 2)
    (['ctx'], ['a', 'b'])
    >>> tuple_with_shapes("ctx.shape, ctx", 2)
    ['', 'ctx']
    >>> tuple_with_shapes("ctx.shape, ctx", 3), tuple_with_shapes("a + b, a", 1), tuple_with_shapes("a, b", 2)
    (None, None, None)
    """
    if len(last) > 400:
        return None
    m = re.fullmatch(r"\(?\s*([^()=]{1,300}?(?:\([^()]{0,60}\)[^()=]{0,100}?)*)\s*,?\s*\)?", last.strip())
    if not m:
        return None
    parts = [x.strip() for x in m.group(1).split(",") if x.strip()]
    shapes = [p for p in parts if _SHAPE_PART.match(p)]
    names = [p for p in parts if p not in shapes]
    if not shapes or not names or count not in (len(names), len(parts)) or \
            not all(re.fullmatch(r"[A-Za-z_]\w{0,60}", p) for p in names):
        return None
    return names if count == len(names) else ["" if p in shapes else p for p in parts]
