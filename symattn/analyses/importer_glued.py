"""Code copied from a flip-book or a PDF viewer with its line breaks lost: statements, shape
comments, the variable a REPL echoes and the word "Output" all glued on one line of text::

    arrows:q = torch.tensor([.55, .95]).view(1, 1, 2) # N, 1, Hk = torch.tensor([[.65, .2], …])
    scores = F.softmax(prod, dim=-1)scoresOutputtensor([[[0.5557, 0.3508, 0.0935]]])
    v = kcontext = torch.bmm(scores, v)contextOutputtensor([[[ 0.5706, -0.0993]]])

What each printout is follows from the code, never from the words around it: the echoed name's
last assignment says which step it computes (a name assigned from ``softmax(…)`` holds the
weights whatever it is called). A softmax of a tensor the page makes up beside the example (a
literal whose name names no step) is not attention on the example.

>>> glued_name("so we can draw them as arrows:q = "), glued_name("# N, 1, Hk = "), glued_name("the query = ")
('q', 'k', None)
>>> text = "prod = torch.bmm(q, k.permute(0, 2, 1))prodAttention | 718\\nOutput"
>>> printout_step(text)
('scores', 'prod', '')
>>> printout_step("scores = F.softmax(prod, dim=-1)scoresOutput", {"prod": "scores"})
('weights', 'scores', '')
"""

from __future__ import annotations

import re

from .importer_names import step_of_ident

__all__ = ["glued_name", "printout_step", "assignments", "OUTPUT_RE", "WINDOW"]

#: a printout announced by the word Output glued to what precedes it ("…scoresOutputtensor(", "Output(")
OUTPUT_RE = re.compile(r"Output\s*:?\s*\(?\s*$")
_DIM_SEP = r"\s*(?:,|x|×|->|→)\s*"
_SHAPE_COMMENT = re.compile(rf"#\s*(?:[A-Z]|\d{{1,4}})(?:{_DIM_SEP}(?:[A-Z]|\d{{1,4}}))*{_DIM_SEP}[A-Z]([a-z_]\w{{0,30}})\s*=\s*$")
_AFTER_PUNCT = re.compile(r"[:;!?)\]](?P<n>[a-z_]\w{0,30})\s*=\s*$")
_ASSIGN = re.compile(r"(?<![\w.\[])([A-Za-z_]\w{0,40})\s*=(?!=)\s*")
_LITERAL = re.compile(r"(?:torch|np|numpy|tf|jnp)\.(?:tensor|array|Tensor|constant|asarray)\(\s*\[")
_SOFTMAX = re.compile(r"(?:(?:torch\.nn\.functional|nn\.functional|F|torch|tf\.nn|jax\.nn|scipy\.special)\.)?softmax\(\s*"
                      r"(?:\d+(?:\.\d+)?\s*\*\s*)?([A-Za-z_]\w*)")
_TRANSPOSED = r"(?:\.permute\(\s*0\s*,\s*2\s*,\s*1\s*\)|\.transpose\(\s*-?[12]\s*,\s*-?[12]\s*\)|\.mT\b|\.T\b)"
_PRODUCT = re.compile(r"(?:(?:torch|np|numpy)\.)?(?:bmm|matmul|mm|dot)\(\s*([A-Za-z_]\w*)\s*,\s*([A-Za-z_]\w*)"
                      rf"({_TRANSPOSED})?\s*\)|([A-Za-z_]\w*)\s*@\s*([A-Za-z_]\w*)({_TRANSPOSED})?")


def glued_name(before: str) -> str | None:
    """The variable a block is assigned to when the statement is glued to the text before it:
    after a sentence's colon ("arrows:q = "), or after a shape comment whose last dimension
    letter swallowed the next statement's name ("# N, 1, Hk = " is "# N, 1, H" then "k = ")."""
    m = _SHAPE_COMMENT.search(before)
    if m:
        return m.group(1)
    m = _AFTER_PUNCT.search(before)
    return m.group("n") if m else None


#: characters of code read before a printout (its statements are near it): bounds the work on long lines
WINDOW = 4000
_MAX_ASSIGNMENTS = 200


def assignments(text: str) -> list[tuple[str, int, str]]:
    """(name, offset, right-hand side up to the line's end) of each assignment in ``text``,
    in order (at most 200, each right-hand side read to 300 characters). A chain glued to a
    known name ("v = kcontext = …" after "k = …") is split: v = k, then context = …."""
    out: list[tuple[str, int, str]] = []
    for m in _ASSIGN.finditer(text):
        if len(out) >= _MAX_ASSIGNMENTS:
            break
        head = text[max(0, m.start() - 200):m.start()]
        if head.count("(") > head.count(")") and head.rstrip().endswith(("(", ",")):
            continue  # a keyword argument: softmax(x, dim=-1)
        name = glued_name(text[max(0, m.start() - 80):m.end()]) or m.group(1)
        name = name if m.group(1).endswith(name) else m.group(1)
        rhs = text[m.end(): m.end() + 300].split("\n", 1)[0]
        if name == m.group(1) and re.match(r"[A-Za-z_]\w*\s*=(?!=)", rhs):
            # a copy glued to the next statement ("vectorv = kcontext = …"): the name may be glued to prose too
            name = _unglued(name, text[max(0, m.start() - WINDOW):m.end() + WINDOW])
        if out and head.rstrip().endswith("=") and out[-1][2].startswith(m.group(1)):
            # the previous assignment's right-hand side is this name: a chain, or a name glued to the next
            known = [n for n, _, _ in out[:-1] if name.startswith(n) and len(n) < len(name)]
            if known:
                a = max(known, key=len)
                prev = out[-1]
                out[-1] = (prev[0], prev[1], a)
                name = name[len(a):]
        out.append((name, m.start(), rhs))
    return out


def _unglued(word: str, text: str) -> str:
    """A name run together with the prose word before it ("the context vectorv = k"): the
    longest proper suffix that the code passes as an argument, when the rest is a word of the
    prose around it and the whole word is used nowhere else; else the word itself."""
    if len(re.findall(rf"(?<![\w.]){re.escape(word)}(?!\w)", text)) > 1:
        return word
    for k in range(1, len(word)):
        head, tail = word[:k], word[k:]
        if not re.fullmatch(r"[a-z_]\w*", tail) or not re.fullmatch(r"[A-Za-z]{3,}", head):
            continue
        if re.search(rf"[(,]\s*{re.escape(tail)}\s*[,)]", text) and re.search(rf"(?<!\w){re.escape(head)}(?!\w)", text):
            return tail
    return word


def _rhs_step(rhs: str, known: dict[str, str]) -> str | None:
    """The step an assignment's right-hand side computes: 'weights', 'scores', 'output',
    'aside' (a softmax of a made-up tensor), 'literal', or None."""
    def of(name: str) -> str | None:
        st = known.get(name)
        return step_of_ident(name) if st in (None, "literal") else st

    if _LITERAL.match(rhs):
        return "literal"
    m = _SOFTMAX.match(rhs)
    if m:
        arg = m.group(1)
        st = of(arg)
        if st in ("scores", "scaled", "masked"):
            return "weights"
        # a tensor written out beside the example whose name names no scores: not attention on it
        return "aside" if known.get(arg) == "literal" else None
    m = _PRODUCT.match(rhs)
    if m:
        a, b, tr = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(4), m.group(5), m.group(6))
        sa, sb = of(a), of(b)
        rest = rhs[m.end():].lstrip()
        if rest[:1] and rest[0] in "+-*/@%" or rest.startswith(("."," ")):
            # divided by a root or a number, and nothing more (what is glued after it is not an operator)
            divided = re.match(r"/\s*(?:\(?\s*(?:(?:math|np|numpy|torch)\.)?sqrt\s*\([^()]{1,40}\)\s*\)?|"
                               r"\d+(?:\.\d+)?(?![\d.]))(?!\s*[-+*/@%])", rest)
            return "scaled" if divided and sa == "Q" and sb == "K" and tr else None
        if sa == "Q" and sb == "K" and tr:
            return "scores"
        if sa == "weights" and sb in ("V", "K") and not tr:
            return "output"
    return None


def steps_of(text: str, known: dict[str, str] | None = None) -> dict[str, str]:
    """The step each name holds after ``text`` runs (its last assignment), from ``known`` on."""
    known = dict(known or {})
    for name, _, rhs in assignments(text):
        st = _rhs_step(rhs, known)
        if st is not None:
            known[name] = st
        elif name in known:
            del known[name]
    return known


_FOOTER = re.compile(r"\s*(?:[A-Z][\w ]{0,40}\|\s*\d{1,4}|\d{1,4}\s*\|[^\n]{0,80})?\s*")  # "Attention | 718"


def _last_expression(code: str) -> str:
    """The parenthesised expression (with the call's name) that ``code`` ends with."""
    depth = 0
    for k in range(len(code) - 1, -1, -1):
        depth += (code[k] == ")") - (code[k] == "(")
        if depth == 0:
            j = k
            while j > 0 and (code[j - 1].isalnum() or code[j - 1] in "._"):
                j -= 1
            return code[j:]
    return code


def _top_level(expr: str) -> list[str]:
    """The comma-separated parts of ``expr`` at its top level, stripped."""
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(expr):
        depth += (ch in "([") - (ch in ")]")
        if ch == "," and depth == 0:
            parts.append(expr[start:k].strip())
            start = k + 1
    parts.append(expr[start:].strip())
    return [p for p in parts if p]


def printout_step(text: str, known: dict[str, str] | None = None) -> tuple[str | None, str, str] | None:
    """What a printout announced by a glued "Output" prints, from the code before it:
    (step or None, the name or expression printed, why it is no step of the example) or None
    when the code says nothing. ``text`` ends with "Output" (the printout follows)."""
    m = OUTPUT_RE.search(text[-WINDOW:])
    if not m:
        return None
    code = text[-WINDOW:][: m.start()].rstrip()
    known = steps_of(code, known)
    names = {n for n, _, _ in assignments(code)}
    # the REPL's echo: a name glued right after the statement that closes with ')', then at
    # most a page footer ("prod = torch.bmm(q, k.permute(0, 2, 1))prodAttention | 718")
    echoes = [e for e in re.finditer(r"\)\s*([A-Za-z_]\w*?)(?=[A-Z\d\s|]|$)", code) if e.group(1) in names]
    if echoes and _FOOTER.fullmatch(code, echoes[-1].end(1)):
        name = echoes[-1].group(1)
        st = known.get(name)
        if st in ("weights", "scores", "scaled", "output"):
            return st, name, ""
        return None
    if code.endswith(")"):  # an expression printed as it is: "(F.softmax(x, dim=-1), F.softmax(100*x, dim=-1))"
        expr = _last_expression(code)
        calls = _top_level(expr[1:-1] if expr.startswith("(") else expr)
        if not calls or not all(_SOFTMAX.match(c) and _last_expression(c) == c for c in calls):
            return None  # something else is printed (print(softmax(s) @ V)): the code does not say
        found = [_rhs_step(s.group(0), known) for s in _SOFTMAX.finditer(expr)]
        if found and all(st == "aside" for st in found):
            arg = _SOFTMAX.search(expr).group(1)  # type: ignore[union-attr]
            return None, expr, f"a softmax of {arg}, a tensor the page makes up beside the example"
        if found and all(st == "weights" for st in found) and len(found) == 1:
            return "weights", expr, ""
    return None
