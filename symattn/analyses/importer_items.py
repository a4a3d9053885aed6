"""From a page's blocks to *items*: each printed matrix, vector or number with the name the
page gives it (recognised as a step), its token labels, whether it is written transposed,
and where it is. Also the page-wide facts the importer needs: token lists, and the lines
that say something about conventions.

>>> from symattn.read.pages import read_page
>>> page = read_page('Query Weight Matrix (Wq):\\n[0.1, 0.3]\\n[0.2, 0.4]\\n\\nWord Embedding for "I": [0.2, 0.5]', "text")
>>> [(i.step, i.rows, i.token) for i in collect(page).items]
[('Wq', [['0.1', '0.3'], ['0.2', '0.4']], None), ('X', [['0.2', '0.5']], 'I')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..read.pages.latex_cells import is_number
from ..read.pages.model import Line, Numbers, Page, Table, Where, Words
from ..read.pages.scan import entry_kind
from .importer_glued import OUTPUT_RE, WINDOW, assignments, glued_name, printout_step
from .importer_names import INPUT_NAMES, clean_label, grad_of, is_transposed, quoted, step_of_ident, step_of_text

__all__ = ["Item", "Collected", "collect", "split_glued", "head_of", "expr_step", "symbol_definitions"]


@dataclass
class Item:
    """A printed matrix, vector or number, and what the page says it is."""

    rows: list[list[str]]
    where: list[Where]
    line: int  # index of its first line in the page
    end: int  # index of its last line
    kind: str = "matrix"  # matrix, vector, scalar, pair, sum
    label: str = ""  # the text that names it
    step: str | None = None  # recognised name
    strength: int = 0  # 3: a code name or math symbol; 2: a label; 1: context; 0: none
    transposed: bool = False
    row_labels: list[str] | None = None
    col_labels: list[str] | None = None
    token: str | None = None  # a per-token vector: the token named in its label
    pair: tuple[str, str] | None = None  # Attention("love", "I") = …
    exprs: list[list[str]] | None = None  # entries written as products (p · v)
    operand: bool = False  # an operand of a product written on the page (not a result)
    chain: int | None = None  # the product it belongs to
    role: str = "prose"
    form: str = "list"
    suffix: str = ""
    notes: list[str] = field(default_factory=list)
    row_vectors: list[list[str]] | None = None  # table rows labelled by a printed vector
    batches: int = 1
    after: str = ""  # text after it on its last line
    aside: str = ""  # why it is no number of the example (a softmax of a made-up tensor printed beside it)
    before: str = ""  # text before it on its first line (or the line above, for a LaTeX matrix under "X =")
    products: list[list[str]] | None = None  # the products it is the result of ("0.3012 * 0.66")
    chain_of: list["Item"] | None = None  # the operands of the product it is the result of
    col_index: int | None = None  # a column printed alone: which column
    row_index: int | None = None  # a 1-based query index the name gives (attn_scores_2, z^{(2)})
    layout: str | None = None  # a printed weight's layout: "row" (W.weight.T, Q = X·M) or "torch" (W.weight)
    head: int | None = None  # the attention head it belongs to (1-based): "Head 2 output", W_Q1, a heading "Head 1"
    stack: list[list[list[str]]] | None = None  # a printed stack of matrices (one per head), each as printed
    grad: str | None = None  # a gradient: the backward step it is (symattn grad's name: dQ, dWq, …)

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), (len(self.rows[0]) if self.rows else 0)

    @property
    def numbers(self) -> int:
        return sum(1 for r in self.rows for x in r if entry_kind(x) in ("number", "inf"))

    def at(self) -> str:
        a, b = self.where[0], self.where[-1]
        if a == b or (a.cell == b.cell and a.output == b.output and a.line == b.line):
            return str(a)
        if a.cell == b.cell and a.output == b.output:
            return f"{a}–{b.line}"
        return f"{a} to {b}"


@dataclass
class Collected:
    """Items in page order, and page-wide facts."""

    page: Page
    items: list[Item]
    token_lists: list[tuple[list[str], Where, str]]  # (tokens, where, how found)
    vertical_lists: list[tuple[int, int, list[str]]]  # (first line, last line, words) of one-word lines
    horizontal_lists: list[tuple[int, list[str]]]  # (line, words) of a line of words
    operators: dict[int, str]  # line index -> "=" or "×" for lines that hold only an operator
    result_lines: dict[int, str]  # line index -> number for lines "= 1.0"
    hidden: list[tuple[int, str, str]] = field(default_factory=list)  # (line, step, code): weights made in code
    symbols: dict[str, str] = field(default_factory=dict)  # the page's own symbols: S = QKᵀ/√d_k → scaled


_ASSIGN_RE = re.compile(r"(?:^|[\s;(,])((?:self\.)?[A-Za-z_][\w.]*(?:\^\{?\w+\}?|_\{\w+\})?(?:\s*\.T)?)\s*"
                        r"(?:\[[^\]]*\]\s*)?(?::\s*[\w\[\], .]+)?=\s*(?:(?:np|numpy|torch|jnp|tf)\.\w+\(\s*)*$")
_SEP_CHARS = " \t:=→->–—(),;$"


def _label_before(before: str, role: str) -> tuple[str, str | None, bool]:
    """(label text, identifier, transposed) from the text before a block on its line."""
    b = before.rstrip()
    if not b:
        return "", None, False
    m = re.search(r"(?:^|[\s;(,])((?:self\.)?[A-Za-z_][\w.]*)\s*\[\s*(-?\d+)\s*\]\s*[=:→]\s*$", b)
    if m:  # weights[0] = [...]: a row of a named matrix
        return f"{m.group(1)}[{m.group(2)}]", m.group(1), False
    if re.search(r"\\end\{", b):
        # 'W_q = \begin{bmatrix}…\end{bmatrix}, \; W_k =': what names this block follows the last matrix
        rest = re.split(r"\\end\{[A-Za-z*]+\}", b)[-1]
        m = re.search(r"(?:^|[\s,;$(])\\?((?:\\text\{)?[A-Za-z][\w{}^\\ ]*?)\}?\s*=\s*$", rest.replace("\\;", " ").replace("\\,", " "))
        if m and "\\times" not in m.group(1) and "\\cdot" not in m.group(1):
            head = re.sub(r"\\text\{([^{}]*)", r"\1", m.group(1)).strip(" {}")
            mm = re.fullmatch(r"([A-Za-z][\w^{}\\]*)", head)
            return head, (mm.group(1) if mm else None), is_transposed(head)
        return "", None, False
    call = re.search(r"\b(?:scaled_dot_product_attention|self_attention|attention|attn)\s*\(((?:\s*\[[\d\s.,\[\]eE+-]*\]\s*,)*)"
                     r"\s*(?:(?:tf|np|numpy|torch|jnp)\.\w+\(\s*)?$", b, re.I)
    if call:  # attention([[…]], [[…]], [[…]]): the arguments are Q, K and V in that order
        depth = k = 0
        for ch in call.group(1) or "":
            depth += (ch == "[") - (ch == "]")
            k += ch == "," and depth == 0
        if k < 3:
            name = "QKV"[k]
            return name, name, False
    if "[" in b and re.search(r"\b(?:original|input|embedding)s?\b[^=:\[\]]*$", re.split(r"[\])]", b)[-1], re.I):
        # '… is close to original [0,2,0,2]': the vector the line compares with, not the line's result
        t = re.split(r"[\])]", b)[-1].strip()
        return t, None, False
    tail = re.split(r"[\])]", b)[-1] if "[" in b else b if b.count("=") > 1 else ""
    m = re.search(r"(?:^|[\s,;:→])((?:[A-Za-z_][\w^{}]*\s*=\s*)*([A-Za-z_][\w^{}]*))\s*[=:≈]\s*$", tail)
    pre = tail[: m.start(1)].strip() if m else ""
    if m and all(step_of_ident(n.strip()) for n in m.group(1).split("=")) and (not pre or pre[-1] in ":→,;"):
        # 'q = [0.37, -1.25]  k = [0.04, -1.31]', 'Example: Q = K = [[…]]', '… → Output ≈ [[…]]':
        # the name just before this block names it (the first of a chain: shared_names adds the others)
        first = m.group(1).split("=")[0].strip()
        return m.group(1), first, is_transposed(first)
    if "[" in b or b.count("=") > 1:
        # a chain written on one line: 'Context Vector for "I" = [..] = ' → what precedes the first '='
        head = b.split("=")[0].strip(_SEP_CHARS)
        if head and "[" not in head and "\\end" not in head:
            m = re.fullmatch(r"\$?\\?([A-Za-z][\w^{}\\]*)\$?", head)
            return head, (m.group(1) if m else None), is_transposed(head)
        return "", None, False
    if role in ("code", "math") or re.search(r"=\s*(?:(?:np|numpy|torch)\.\w+\()?\s*$", b):
        m = _ASSIGN_RE.search(b)
        if m:
            name = m.group(1)
            return name, name, is_transposed(name)
    # a chain on one line: 'Context Vector for "I" = [..] = ' → the text before the first '='
    if "=" in b:
        head = b.split("=")[0].strip()
        if head:
            m = re.fullmatch(r"\$?\\?([A-Za-z][\w^{}\\]*)\$?", head)
            name = m.group(1) if m else None
            return head, name, is_transposed(head)
        return "", None, False
    s = b.strip(" \t:=→->–—,;$`*")
    m = re.fullmatch(r"\$?\\?([A-Za-z][\w^{}\\.]*)(\[\s*-?\d+\s*\])?\$?", s)
    return s, (m.group(1) if m else None), is_transposed(s)


def _name_index(label: str) -> int | None:
    """A query index written in a name: attn_scores_2, context_vec_2, z^{(2)}, x^(2), ω_2."""
    m = re.search(r"(?:_|\^\{?\()(\d{1,3})\)?\}?\s*[:=]?\s*$", label.strip()) or \
        re.fullmatch(r"\s*[A-Za-z_]+?_?(\d{1,3})\s*", label)
    return int(m.group(1)) if m and int(m.group(1)) >= 1 else None


def _ident_step(name: str | None) -> str | None:
    if not name:
        return None
    if "(" in name or ".weight" in name:
        return expr_step(name)[0]
    return step_of_ident(name.split(".")[-1] if "." in name and not name.endswith(".T") else name)


_HEAD_RE = re.compile(r"\bhead\s*[_#-]?\s*\(?(\d{1,2})\b|\bhead_?(\d{1,2})\b|\(head\s*(\d{1,2})\)", re.I)
_W_HEAD_RE = re.compile(r"^(?:self\.)?[Ww]_?\{?([QKVqkv]|query|key|value)\}?_?\{?(\d{1,2})\}?$|"
                        r"^[Ww]_?\{?(\d{1,2})\}?\^\{?([QKVqkv])\}?$|^[Ww]\^\{?([QKVqkv])\}?_\{?\(?(\d{1,2})\)?\}?$")


def head_of(label: str | None) -> int | None:
    """The attention head a label names (1-based): "Head 2 output", "head_1", W_Q1, W_1^Q, W^Q_2.

    >>> head_of("Head1 Output"), head_of("W_Q2"), head_of("W^K_{1}"), head_of("attention weights"), head_of("W_q")
    (1, 2, 1, None, None)
    """
    if not label:
        return None
    m = _HEAD_RE.search(label)
    if m:
        h = int(next(g for g in m.groups() if g))
        return h if h >= 1 else None
    w = _W_HEAD_RE.match(label.strip(" :$"))
    if w:
        h = int(w.group(2) or w.group(3) or w.group(6))
        return h if h >= 1 else None
    return None


_TAIL_RE = re.compile(r"\.(?:round|numpy|detach|cpu|tolist|item|squeeze|float|double|clone|copy|data)\b(?:\([^()]*\))?$")
_FLIP_RE = re.compile(r"\.(?:T|t\(\)|transpose\(\s*(?:0\s*,\s*1|1\s*,\s*0|-1\s*,\s*-2|-2\s*,\s*-1)\s*\))$")


def expr_step(expr: str) -> tuple[str | None, bool, str | None]:
    """What a printed expression is: (step, printed transposed, layout its weights imply).

    >>> expr_step("selfAttention.W_q.weight.transpose(0, 1)"), expr_step("attn.W_k.weight")
    (('Wq', False, 'row'), ('Wk', False, 'torch'))
    >>> expr_step("selfAttention.W_v(encodings_matrix)"), expr_step("attn_weights.round(3)")
    (('V', False, None), ('weights', False, None))
    """
    e = expr.strip()
    while True:
        m = _TAIL_RE.search(e)
        if not m:
            break
        e = e[: m.start()]
    flipped = False
    m = _FLIP_RE.search(e)
    if m:
        e, flipped = e[: m.start()], True
    prod = re.fullmatch(r"(?:np|numpy|torch|jnp|tf)\.(?:matmul|dot|mm|bmm)\(\s*([A-Za-z_][\w.]*)\s*,\s*([A-Za-z_][\w.]*)"
                        r"(\.T|\.t\(\)|\.transpose\([^()]*\))?\s*\)|([A-Za-z_][\w.]*)\s*@\s*([A-Za-z_][\w.]*)"
                        r"(\.T|\.t\(\)|\.transpose\([^()]*\))?|([A-Za-z_][\w.]*)\.(?:dot|matmul|mm)\(\s*([A-Za-z_][\w.]*)"
                        r"(\.T|\.t\(\)|\.transpose\([^()]*\))?\s*\)", e)
    if prod:  # np.matmul(q, k.T), weights @ V, x.dot(W_q): what the product is
        g = prod.groups()
        a, b, tr = next((g[i], g[i + 1], g[i + 2]) for i in (0, 3, 6) if g[i])
        sa, sb = step_of_ident(a.split(".")[-1]), step_of_ident(b.split(".")[-1])
        if sa == "Q" and sb == "K" and tr:
            return "scores", False, None
        if sa == "weights" and sb in ("V", "X"):
            return "output", False, None
        if sa == "X" and sb in ("Wq", "Wk", "Wv"):
            return {"Wq": "Q", "Wk": "K", "Wv": "V"}[sb], False, None
        return None, False, None
    w = re.fullmatch(r"(.*?)\.weight(?:\.data)?", e)
    if w:  # nn.Linear stores (out, in): the printed matrix is W (torch layout) or its transpose (X·M)
        st = step_of_ident(w.group(1).split(".")[-1])
        if st in ("Wq", "Wk", "Wv", "Wo"):
            return st, False, "row" if flipped else "torch"
        return None, False, None
    call = re.fullmatch(r"([A-Za-z_][\w.]*)\(\s*[A-Za-z_][\w.]*\s*\)", e)
    if call:  # W_q(x): a projection applied to the inputs
        st = step_of_ident(call.group(1).split(".")[-1])
        if st in ("Wq", "Wk", "Wv"):
            return {"Wq": "Q", "Wk": "K", "Wv": "V"}[st], flipped, None
        return None, False, None
    if re.fullmatch(r"[A-Za-z_][\w.]*", e):
        name = e.split(".")[-1] if "." in e else e
        return step_of_ident(name), flipped, None
    return None, False, None


def _token_of(label: str) -> str | None:
    """The token a per-token label names: 'Embedding for "I"' → I; 'please →' → please."""
    q = quoted(label)
    if q:
        return q[-1]
    m = re.search(r"\b(?:for|of)\s+(?:the\s+)?(?:word|token)?\s*([A-Za-z<>][\w<>'-]*)\s*[:=]?\s*$", label)
    if m and m.group(1).lower() not in ("the", "each", "all", "word", "token", "it"):
        return m.group(1)
    s = label.strip(_SEP_CHARS + "`*\"'“”")
    if re.fullmatch(r"[A-Za-z<>][\w<>'-]{0,30}", s):
        return s
    return None


def _note_token(note: str) -> str | None:
    """A token from a code comment after a row: '# "The"', '# Your (x^1)', '← walk'."""
    if not note:
        return None
    q = quoted(note)
    if q:
        return q[0]
    m = re.match(r"([A-Za-z<>][\w<>'-]*)(\s*\d)?", note.strip())
    if m and not m.group(2) and m.group(1).lower() not in ("word", "token", "row", "query", "key", "value",
                                                            "weights", "shape", "input", "dim", "e.g"):
        return m.group(1)
    return None


_FAMILY = {"scores", "scaled", "masked"}
_DEF_RE = re.compile(r"(?<![\w\\])([A-Za-z](?:_\{?\w{1,8}\}?)?)\s*=\s*(?!=)([^=]{1,200}?)(?=$|\s=|,\s*\\q?quad|\\quad|\\qquad|;)")


def formula_before(before: str) -> str | None:
    """The step named by a formula written just before a block and its '=' (the text after the
    last label colon or closing bracket): "Compute scores: Q @ K.T / sqrt(2) = [[…]]" is the
    scaled scores whatever the label before the colon says. Only QKᵀ divided (by a root or a
    number) is read here; None otherwise.

    >>> formula_before("]]Explanation: 1. Compute scores: Q @ K.T / sqrt(2) = "), formula_before("scores = ")
    ('scaled', None)
    """
    m = re.search(r"([^:=\[\]\n]{1,160}?)\s*=\s*$", before)
    if not m or not re.search(r"\bQ\b|\bQK", m.group(1)):
        return None
    r = m.group(1)
    qk = re.search(r"Q\s*(\\cdot|·|@|\*)?\s*\{?K\}?\s*(\^\s*\{?\s*(T|\\top|⊤)|ᵀ|\.T)|QK\^", r)
    if not qk or re.search(r"soft-?max", r, re.I):
        return None
    # only QKᵀ divided, and nothing else, names the step here: a bare QKᵀ is left to the label
    # ("Scores = QKᵀ ="), and (QKᵀ/√d)·V is not the scaled scores
    return "scaled" if r[:qk.start()].strip() in ("", "(") and _DIVIDED_RE.fullmatch(r, qk.end()) else None


_DIVIDED_RE = re.compile(r"\s*(?:\{?\s*(?:T|\\top|⊤)\s*\}?)?\s*\)?\s*/\s*(?:\(?\s*(?:(?:np|math|torch)\.)?sqrt\s*\([^()]{1,40}\)\s*\)?"
                         r"|√\s*\(?[\w.{}]{1,20}\)?|\d+(?:\.\d+)?|\(?\s*[\w.]{1,20}\s*\*\*\s*0?\.5\s*\)?)\s*\)?\s*")


_W = r"(?:W_?\{?(?P<w>[qkvQKV])\}?|W\^\{?(?P<w2>[QKV])\}?)"
_TIMES = r"\s*(?:×|\*|·|@|\\times|\\cdot)\s*"
_PROJ_RE = re.compile(rf"^(?P<lab>[^=\[\]]*?)=\s*{_W}{_TIMES}(?P<x>\[[^\[\]]{{1,2000}}\]\s*=\s*)?$")
_PROJ_RIGHT_RE = re.compile(rf"^(?P<lab>[^=\[\]]*?)=\s*\[[^\[\]]{{1,2000}}\]{_TIMES}{_W}\s*=\s*$")
_TIMES_W_RE = re.compile(rf"{_TIMES}{_W}\s*=")


def projection_part(before: str, after: str = "") -> tuple[str, str] | None:
    """What a block is in a projection written out per token, ``Key("The") = Wk × [0.5, 0.3,
    0.1, 0.9] = [0.5, 0.3, 0.1]`` (or with the weight on the right, ``k_1 = [1, 0] @ W_k = […]``):
    the vector the weight multiplies is an input row (X), the result after the second '=' is the
    projection's output (Q, K or V by the weight's letter, whatever the left-hand side calls it).
    (step, the left-hand side), or None.

    >>> projection_part('Key("The") = Wk × '), projection_part('Worth("cat") = Wv × [1.0, 0.1] = ')
    (('X', 'Key("The")'), ('V', 'Worth("cat")'))
    >>> projection_part("k_1 = ", " @ W_k = [0.5, 0.1]"), projection_part("k_1 = [1.0, 0.5] @ W_k = ")
    (('X', 'k_1'), ('K', 'k_1'))
    >>> projection_part("Q = X × "), projection_part("y = W × [1, 2] = ")
    (None, None)
    """
    m = _PROJ_RE.search(before)
    if m:
        lab = m.group("lab").strip()
        return ("X" if m.group("x") is None else (m.group("w") or m.group("w2")).upper()), lab
    m = _PROJ_RIGHT_RE.search(before)
    if m:
        return (m.group("w") or m.group("w2")).upper(), m.group("lab").strip()
    m = re.fullmatch(r"(?P<lab>[^=\[\]]*?)=\s*", before)
    if m and m.group("lab").strip() and _TIMES_W_RE.match(after):
        return "X", m.group("lab").strip()
    return None


_NAMED_PROJ_RE = re.compile(r"^\s*[-•*]?\s*([A-Za-z][A-Za-z_]{0,20})\s*=\s*(?:W_?\{?([qkvQKV])\}?|W\^\{?([QKV])\}?)"
                            r"\s*(?:×|\*|·|@|\\times|\\cdot)\s*(?:x|X|h|H|e|E|embeddings?|inputs?|tokens?)\b")


def projection_names(lines: list[Line]) -> dict[str, str]:
    """Names a page gives to what its weights make, from its definitions ``Worth = Wv ×
    embedding``, ``Question = Wq × x``: each name is the projection its weight's letter says
    (Q, K or V). A name that already names another step, or is defined twice differently,
    is left out.

    >>> from symattn.read.pages.model import Line, Where
    >>> projection_names([Line("Question = Wq × embedding → what am I looking for?", Where(1)),
    ...                   Line("Worth = Wv × embedding", Where(2)), Line("Scores = Wk × x", Where(3))])
    {'Question': 'Q', 'Worth': 'V'}
    """
    out: dict[str, str] = {}
    bad: set[str] = set()
    for ln in lines:
        m = _NAMED_PROJ_RE.match(ln.text)
        if not m:
            continue
        name, step = m.group(1), (m.group(2) or m.group(3)).upper()
        known = step_of_ident(name) or step_of_text(name)
        if known not in (None, step) or out.get(name, step) != step:
            bad.add(name)
        out[name] = step
    return {k: v for k, v in out.items() if k not in bad}


_AND = r"\s*(?:,\s*(?:and\s+)?|\s+and\s+)"
_TRIPLES = [(re.compile(rf"(?<![\w.])([A-Z][a-z]{{1,15}}){_AND}K{_AND}V(?![\w.])"), "Q"),
            (re.compile(rf"(?<![\w.])Q{_AND}([A-Z][a-z]{{1,15}}){_AND}V(?![\w.])"), "K"),
            (re.compile(rf"(?<![\w.])Q{_AND}K{_AND}([A-Z][a-z]{{1,15}})(?![\w.])"), "V")]


def triple_names(lines: list[Line]) -> dict[str, str]:
    """A word standing in the Q, K, V triple for one of its letters ("Q, Okay, V" in a reworded
    repost): that step, when the word names no step itself and the page uses it one way only.

    >>> from symattn.read.pages.model import Line, Where
    >>> triple_names([Line("Step 3 — Three Projections: Q, Okay, V", Where(1))])
    {'Okay': 'K'}
    >>> triple_names([Line("Q, Values, V", Where(1))]), triple_names([Line("Q, K, V", Where(1))])
    ({}, {})
    """
    out: dict[str, str] = {}
    bad: set[str] = set()
    for ln in lines:
        for rx, step in _TRIPLES:
            for m in rx.finditer(ln.text):
                name = m.group(1)
                if step_of_ident(name) or step_of_text(name) or out.get(name, step) != step:
                    bad.add(name)
                out[name] = step
    return {k: v for k, v in out.items() if k not in bad}


def symbol_definitions(lines: list[Line]) -> dict[str, str]:
    """The steps a page defines its own symbols as, from its formulas: ``S = QK^T/√d_k``
    makes S the scaled scores, ``A = softmax(S)`` the weights, ``Z = AV`` the output.
    Only a symbol that names no step, or one of the scores family, is defined this way.

    >>> from symattn.read.pages.model import Line, Where
    >>> symbol_definitions([Line(r"S = \\frac{Q K^\\top}{\\sqrt{d_k}}, \\quad A = \\text{softmax}(S)", Where(1), "math")])
    {'S': 'scaled', 'A': 'weights'}
    """
    out: dict[str, str] = {}
    for ln in lines:
        if ln.role not in ("math", "code"):
            continue
        for m in _DEF_RE.finditer(ln.text):
            sym, rhs = m.group(1), m.group(2)
            r = re.sub(r"\\(mathrm|text|operatorname|mathbf)\s*", "", rhs)
            qk = re.search(r"Q\s*(\\cdot|·|@|\*)?\s*\{?K\}?\s*(\^\s*\{?\s*(T|\\top|⊤)|ᵀ|\.T)|QK\^", r)
            if re.search(r"soft-?max", r, re.I):
                step = "output" if re.search(r"\)\s*(\\cdot|·|@|\*)?\s*V\b", r) else "weights"
            elif qk and re.search(r"sqrt|√|\\sqrt|\*\*\s*-?0?\.5", r):
                step = "scaled"
            elif qk:
                step = "scores"
            else:
                continue
            known = step_of_ident(sym)
            if known is None or known == step or (known in _FAMILY and step in _FAMILY):
                out.setdefault(sym, step)
    return out


class _Collector:
    def __init__(self, page: Page) -> None:
        self.page = page
        self.lines = page.lines
        self.symbols = {**triple_names(page.lines), **projection_names(page.lines), **symbol_definitions(page.lines)}
        self.glued_names: set[str] = set()  # names assigned in code glued to prose
        self.block_lines: set[int] = set()
        for b in page.blocks:
            self.block_lines.update(range(b.start, b.end + 1))
        self.items: list[Item] = []

    # -- context --
    def context_label(self, start: int, stop_at: int = -1) -> tuple[str, int]:
        """The nearest text above line ``start`` naming what follows: (text, strength)."""
        k = start - 1
        seen = 0
        looked = 0
        cell = self.lines[start].where.cell if start < len(self.lines) else None
        texts = []
        while k > stop_at and k >= 0 and seen < 4 and looked < 12:
            looked += 1
            ln = self.lines[k]
            if ln.where.cell != cell and not (ln.where.cell is not None and cell is not None and
                                              ln.where.cell == cell - 1):
                break
            t = ln.text.strip()
            if k in self.block_lines and not t.startswith(("#",)) and not re.fullmatch(r"\d{1,3}", t):
                if ln.role != "code":
                    break
            if t and not re.fullmatch(r"[=×xX*·\-–—]+|\$\$|\\\[|\\\]|```\w*", t):
                if ln.role == "code":
                    # a print statement's text or variable, or an assignment
                    m = re.search(r"print\(\s*f?[\"']([^\"'{]*)", t)
                    pv = re.fullmatch(r"print\(\s*([A-Za-z_][\w.]*)\s*\)", t)
                    if m and m.group(1).strip():
                        texts.append((m.group(1), 2))
                    elif pv and step_of_ident(pv.group(1)):
                        texts.append((pv.group(1), 3))
                    elif t.startswith("#"):
                        texts.append((t.lstrip("# "), 1))
                    elif re.fullmatch(r"[A-Za-z_][\w^{}]*(?:\s*=\s*[A-Za-z_][\w^{}]*)*\s*=\s*(?:[A-Za-z][\w ]{0,40})?:?", t):
                        texts.append((t, 3))  # "W_Q1 = W_K1 = W_V1 = Identity matrix" above the numbers
                    seen += 1
                else:
                    texts.append((t, 2 if len(t) <= 100 else 1))
                    if len(t.split()) > 3 or step_of_text(t):
                        seen += 1
                    if t.endswith(":") and len(t) <= 100:
                        break  # the label of what follows: what is above it names other things
            k -= 1
        near = texts[:3]
        for t, s in near:  # a symbol (WQ, W_q, K^T) names it better than a sentence beside it
            if any(step_of_ident(w) in ("Wq", "Wk", "Wv", "Wo") for w in re.findall(r"[A-Za-z][\w^{}]*", t)):
                return t, s
        for t, s in texts:
            if re.fullmatch(r"(?:the\s+)?result(?:ing)?(?:\s+(?:matrix|vector|is))?\s*:?", t.strip(), re.I):
                # "Result matrix:" is the result of the step the heading above names
                head = self.heading_above(start, max(0, start - 40))
                if head:
                    return head, 1
            if step_of_ident(t.strip(" :")) or step_of_text(t[-160:]):
                return t, s
        head = self.heading_above(start, max(0, start - 40))
        if head:
            return head, 1
        return (texts[0] if texts else ("", 0))

    def heading_head(self, start: int) -> int | None:
        """The head a section is about: the nearest heading above names "Head 2"."""
        for k in range(start - 1, max(-1, start - 80), -1):
            ln = self.lines[k]
            if ln.role == "heading":
                return head_of(ln.text)
        return None

    def heading_above(self, start: int, stop: int = 0) -> str:
        """The nearest heading above that names a step: a heading, a numbered line ("Step 3:
        Softmax Function:") or a slide's short title ("Softmax")."""
        for k in range(start - 1, stop - 1, -1):
            ln = self.lines[k]
            t = ln.text.strip()
            if ln.role == "heading" or (ln.role == "prose" and len(t) <= 60 and (
                    re.match(r"(step\s*\d+|\d+(\.\d+)*[.)]?\s)", t, re.I) or len(t.split()) <= 3)):
                if step_of_text(t):
                    return t
        return ""

    # -- blocks --
    def numbers(self, b: Numbers) -> None:
        label, ident, transposed = _label_before(b.before, b.role)
        if getattr(b, "batches", None):
            it = Item(rows=b.rows, where=b.where, line=b.start, end=b.end, role=b.role, form=b.form,
                      suffix=b.suffix, label=label)
            it.batches = len(b.batches)  # type: ignore[attr-defined]
            it.stack = [[list(r) for r in m] for m in b.batches]  # type: ignore[attr-defined]
            it.kind = "stack"
            st = self.symbols.get(ident or "") or _ident_step(ident) or (step_of_text(label) if label else None)
            strength = 3 if ident and st else 2 if st else 0
            if not st and b.role == "output":
                name = self.printed_name(b)
                st = expr_step(name)[0] if name else None
                strength, it.label = (3, name or "") if st else (0, it.label)
                if not st:
                    own = self.output_label(b)
                    st = (step_of_ident(own.strip(" :")) or step_of_text(own)) if own else None
                    strength, it.label = (2, own) if st else (0, it.label)
            if not st:
                ctx, s_ = self.context_label(b.start)
                st = (step_of_ident(ctx.strip(" :")) or step_of_text(ctx[-160:])) if ctx else None
                strength = min(s_, 2) if st else 0
                it.label = it.label or ctx
            it.step, it.strength = st, strength
            it.notes.append(f"a stack of {it.batches} matrices (heads or a batch)")
            self.items.append(it)
            return
        compare = bool(re.search(r"\b(?:original|input|embedding)s?\s*$", label or "", re.I)) and "[" in b.before
        kinds = {entry_kind(x) for r in b.rows for x in r}
        it = Item(rows=[list(r) for r in b.rows], where=list(b.where), line=b.start, end=b.end, role=b.role,
                  form=b.form, suffix=b.suffix, transposed=transposed, after=b.after, before=b.before)
        it.kind = "scalar" if b.depth == 0 or (b.form == "rows" and b.shape == (1, 1)) else \
            ("vector" if b.depth == 1 else "matrix")
        if "expr" in kinds:
            it.exprs = it.rows
            it.operand = True
        step = self.symbols.get(ident or "") or _ident_step(ident)
        strength = 3 if step else 0
        if step and b.role == "code" and ident and len(ident) == 1 and step not in ("X", "Q", "K", "V"):
            strength = 1  # a, b, A, p in code are as often a demo of np.dot as attention weights
        if getattr(b, "flipped", False):
            it.transposed = True  # np.transpose([[…]]): the rows written are the variable's columns

        # how the line writes it decides over a name: a formula before '=', a projection per token, glued code
        if formula_before(b.before):  # Compute scores: Q @ K.T / sqrt(2) = [[…]]
            step, strength = formula_before(b.before), 3
        proj = projection_part(b.before, b.after) if b.depth == 1 else None
        if proj:  # Key("The") = Wk × [x] = [k]: x is an input row, k the projection's output
            step, strength, label, ident = proj[0], 3, proj[1], None
        glued, aside = self.glued_code(b)
        if glued:  # code glued to the text around it: the code says what the block is
            step, label, ident = glued
            strength = 3 if step else 0

        if not step and label and not aside:
            step = step_of_text(label)
            strength = 2 if step else 0
        if not step and re.fullmatch(r"(?:expected(?:\s+output)?|returns?|result|answer|output)\s*[:=≈→]*",
                                     b.before.strip(), re.I) and b.start > 0 and \
                re.search(r"\b(?:scaled_dot_product_|self_)?attention\w*\s*\(", self.lines[b.start - 1].text, re.I):
            step, strength, label = "output", 2, b.before.strip(" :=≈→")  # attention(…) on the line above, then its result
        it.label = label
        if it.kind == "vector" and label and not glued:
            tok = _token_of(label if "=" not in b.before else b.before.split("=")[0])
            if tok and (tok != ident or not step):
                it.token = tok
        if it.kind == "vector" and not label and not b.before.strip() and b.start > 0:
            # a web page's table flattened one cell per line: "apple" on one line, its vector on the next
            prev = self.lines[b.start - 1].text.strip()
            if re.fullmatch(r"[A-Za-z<>][\w<>'’-]{0,30}", prev) and not step_of_ident(prev) and not step_of_text(prev):
                it.token = prev
                if not step:
                    ctx, s_ = self.context_label(b.start - 1)
                    st = step_of_ident(ctx.strip(" :")) or step_of_text(ctx[-160:]) if ctx else None
                    if st:
                        step, strength, it.label = st, 1, ctx
        if b.role == "output":
            name = self.printed_name(b)
            if name and self.uninitialized(b, name):
                it.notes.insert(0, f"uninitialized memory: the page prints {name} right after torch.empty/np.empty")
        if not step and b.role == "output" and not compare:
            # the variable the code printed names it better than the text printed beside it
            name = self.printed_name(b)
            if name:
                st, flipped, layout = expr_step(name)
                if st:
                    step, strength, it.label = st, 3, name
                    it.transposed = False if layout else (is_transposed(name) or flipped)
                    if layout:
                        it.layout = layout
            if not step:
                own = self.output_label(b)
                if own:
                    st = step_of_ident(own.strip(" :")) or step_of_text(own)
                    if st:
                        step, strength, it.label = st, 2, own
                        it.transposed = it.transposed or is_transposed(own)
        it.aside = aside
        if not step and not compare and not aside:
            ctx, s = self.context_label(b.start)
            if ctx:
                it.label = (label + " " if label else "") + ctx if not label else label
                st = step_of_ident(ctx.strip(" :")) or step_of_text(ctx[-160:])
                if st:
                    step, strength = st, min(s, 2)
                    if not label:
                        it.label = ctx
                    if not transposed and is_transposed(ctx):
                        it.transposed = True
        if b.suffix:
            g = re.search(r"grad_fn=<(\w+?)Backward", b.suffix)
            if g and not step:
                step = {"Softmax": "weights", "Div": "scaled", "MaskedFill": "masked"}.get(g.group(1))
                strength = 1 if step else 0
        if not step:
            names = [ident, label] + ([self.printed_name(b)] if b.role == "output" else []) + [self.context_label(b.start)[0]]
            it.grad = next((g for g in (grad_of(n) for n in names if n) if g), None)
        rowlab = re.fullmatch(r"\s*(?:row|query|position|token)\s*#?\s*(\d{1,3})\s*[:=]?\s*", b.before, re.I)
        if rowlab and it.kind == "vector":
            # "Row 2: [0.0, 4.0, 2.0]" then "exp: […]" and "softmax: […]": the worked rows of one query
            self.last_row = (b.start, int(rowlab.group(1)))
            it.label, label = b.before.strip(" :="), b.before.strip(" :=")
            if strength >= 2 and not step_of_text(label):
                strength = 1
        elif it.kind == "vector" and getattr(self, "last_row", None) and 0 < b.start - self.last_row[0] <= 3 \
                and re.fullmatch(r"\s*(?:exp|e\^?x|exponentials?|softmax|weights?|probabilities)\s*[:=]?\s*", b.before, re.I):
            it.row_index = self.last_row[1]
            if re.match(r"\s*(?:exp|e\^?x|exponentials?)\b", b.before, re.I):
                step, strength = None, 0  # exp(·) of a row: no step of the derivation holds it
                it.notes.append("the exponentials of a row of scores: no step holds them")
        if compare and not step:
            step, strength = "X", 1  # the embedding the line compares with: an input printed again
        if step in ("scores", "scaled", "masked", "weights") and re.search(r"Q\s*[·.*@×]?\s*K", label or ""):
            it.transposed = False  # QKᵀ names the scores; its ᵀ is K's
        it.step, it.strength = step, strength
        it.head = head_of(it.label) or (head_of(ident) if ident else None) or self.heading_head(b.start)
        if rowlab and it.kind == "vector":
            it.row_index = int(rowlab.group(1))
        elif it.row_index is None:
            it.row_index = _name_index(it.label) if it.kind in ("vector", "scalar") and not head_of(it.label) else None
        sub = re.search(r"\[\s*(\d+)\s*\]\s*[:=→-]*\s*$", it.label or "")
        if sub and it.kind in ("vector", "scalar"):
            it.row_index = int(sub.group(1)) + 1  # code indexes from 0
        notes = [t for t in (_note_token(n) for n in b.row_notes)] if b.row_notes else []
        if it.kind == "matrix" and notes and all(notes) and len(set(notes)) == len(notes) == len(it.rows):
            it.row_labels = notes
        self.items.append(it)

    def glued_code(self, b: Numbers) -> tuple[tuple[str | None, str, str | None] | None, str]:
        """For a block in code glued to the text around it (a flip-book's text): ((step, label,
        identifier) or None, why it is no step of the example or ""). The name a glued
        statement assigns ("arrows:q = torch.tensor(…)"), or what the code before a glued
        "Output" printed."""
        if b.role not in ("prose", "heading", "table"):
            return None, ""
        g = glued_name(b.before[-200:])
        if g:
            self.glued_names.add(g)
            return (_ident_step(g), g, g), ""
        pre = re.sub(r"(?:(?:tensor|array)\(\s*\[[^()]*\]\s*\)\s*,\s*)+$", "", b.before[-WINDOW:])  # Output(tensor([…]), tensor(
        if not OUTPUT_RE.search(pre):
            return None, ""
        parts, k = [pre], b.start - 1  # the code before it: up to 10 lines, WINDOW characters
        while k >= max(0, b.start - 10) and sum(map(len, parts)) < WINDOW:
            parts.append(self.lines[k].text[-WINDOW:])
            k -= 1
        got = printout_step("\n".join(reversed(parts)))
        if got is None:
            return None, ""
        st, name, why = got
        return ((st, name, None), "") if st else ((None, name, None), why)

    def glued_aliases(self) -> None:
        """``v = k`` in code glued into prose ("…context vectorv = kcontext = torch.bmm(…)"):
        the target is given the numbers of a glued name printed before."""
        if not self.glued_names:
            return
        done: set[str] = set()  # one copy per name (the first): a name is given once
        for k, ln in enumerate(self.lines):
            if ln.role not in ("prose", "heading") or "=" not in ln.text:
                continue
            before = ("\n".join(x.text for x in self.lines[max(0, k - 10):k]) + "\n")[-WINDOW:]
            for target, off, rhs in assignments(before + ln.text[:WINDOW]):
                if off < len(before) or rhs not in self.glued_names or target in done:
                    continue
                step = step_of_ident(target)
                if step not in ("Q", "K", "V") or step == step_of_ident(rhs):
                    continue
                src = self.named_before(rhs, k + 1)
                if src is None:
                    continue
                done.add(target)
                it = Item(rows=[list(r) for r in src.rows], where=[ln.where] * len(src.rows), line=k, end=k,
                          kind=src.kind, label=f"{target} = {rhs}", step=step, strength=3, role=ln.role,
                          form="code", row_labels=src.row_labels, col_labels=src.col_labels)
                it.notes.append(f"{target} = {rhs}: the numbers of {rhs} ({src.at()})")
                self.items.append(it)

    def uninitialized(self, b: Numbers, name: str) -> bool:
        """Whether the cell makes ``name`` with torch.empty/np.empty and prints it before filling it."""
        cell = b.where[0].cell
        code = [ln.text for ln in self.lines if ln.where.cell == cell and not ln.where.output and ln.role == "code"]
        made = [t for t in code if re.match(rf"\s*{re.escape(name)}\s*=\s*(?:torch|np|numpy)\.empty(?:_like)?\(", t)]
        filled = [t for t in code if re.match(rf"\s*{re.escape(name)}\s*\[", t)]
        return bool(made) and not filled

    def output_label(self, b: Numbers) -> str:
        """Text printed just before a block in the same output ("Attention Weights:")."""
        w = b.where[0]
        k = b.start - 1
        while k >= 0:
            ln = self.lines[k]
            if ln.where.cell != w.cell or ln.where.output != w.output:
                return ""
            if k in self.block_lines:
                return ""
            t = ln.text.strip()
            if t:
                return t if len(t) <= 100 else ""
            k -= 1
        return ""

    def code_before(self, b: Numbers) -> tuple[list[str], list]:
        """The code that printed an output block, and the blocks of that output: a notebook
        cell's source, or the code block just above a printed block on a page (a notebook
        exported to Markdown, a post that pastes its output under the code)."""
        cell = b.where[0].cell
        if cell is not None:
            code = [ln.text for ln in self.lines if ln.where.cell == cell and not ln.where.output and ln.role == "code"]
            outs = [x for x in self.page.blocks if (isinstance(x, Numbers) and x.where[0].cell == cell and x.where[0].output)
                    or (isinstance(x, Words) and x.where.cell == cell and x.where.output)]
            return code, outs
        k = b.start
        while k > 0 and self.lines[k - 1].role == "output":
            k -= 1
        first = k
        j = b.end
        while j + 1 < len(self.lines) and self.lines[j + 1].role == "output":
            j += 1
        k -= 1
        # blank lines, fences and a word that announces the output ("Output", "Out[3]:") lie between
        while k >= 0 and k >= first - 6 and (not self.lines[k].text.strip() or (
                self.lines[k].role != "code" and re.fullmatch(r"(?:output|out(?:\s*\[\d*\])?|result|prints?)\s*:?",
                                                              self.lines[k].text.strip(" *_`"), re.I))):
            k -= 1
        code: list[str] = []
        while k >= 0 and self.lines[k].role == "code":
            code.insert(0, self.lines[k].text)
            k -= 1
        outs = [x for x in self.page.blocks if isinstance(x, (Numbers, Words)) and first <= x.start and x.end <= j]
        return code, outs

    def printed_name(self, b: Numbers) -> str | None:
        """For an output with no text of its own: the name (or expression) its code printed."""
        code, outs = self.code_before(b)
        if not code:
            return None
        names: list[str] = []
        code = [re.sub(r"\s+#.*$", "", t) if not t.lstrip().startswith("#") else "" for t in code]
        for t in code:
            for m in re.finditer(r"print\((.*)\)\s*;?\s*$", t):
                args = m.group(1)
                parts = [p.strip() for p in re.split(r",(?![^(\[]*[)\]])", args)]
                nonstr = [p for p in parts if p and not re.match(r"^[fbr]?[\"']", p) and "=" not in p]
                if nonstr:
                    names.append(nonstr[-1])
        last = next((t.strip() for t in reversed(code) if t.strip() and not t.strip().startswith("#")), "")
        if re.fullmatch(r"[A-Za-z_][\w.]*(\.T)?|[A-Za-z_]\w*\[[^\]]*\]", last) or (
                re.fullmatch(r"[A-Za-z_][\w.]*(\([^()=]*\))?(\.\w+(\([^()=]*\))?)*", last)
                and not re.match(r"(print|display|plt\.|sns\.|ax\.|fig\.)", last)):
            names.append(last)
        # which printed block of this output is b?
        idx = next((i for i, x in enumerate(outs) if x is b), None)
        if idx is None or not names:
            return None
        if len(outs) == len(names):
            return names[idx]
        if len(outs) == 1:
            return names[-1]
        return None

    def table(self, t: Table) -> None:
        header = t.header
        rows = t.rows
        if not rows:
            return
        ctx, s = self.context_label(t.start)
        step = step_of_text(ctx[-160:]) if ctx else None
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        # drop empty trailing columns
        while width > 1 and all(r[-1] == "" for r in rows) and (header is None or len(header) < width or header[width - 1] == ""):
            rows = [r[:-1] for r in rows]
            width -= 1
        if header is not None:
            header = (header + [""] * width)[:width]
        vec_re = re.compile(r"^\s*[\[(]\s*(-?[\d.]+(?:e-?\d+)?(?:\s*[,\s]\s*-?[\d.]+(?:e-?\d+)?)*)\s*[\])]\s*$")
        first_col = [r[0] for r in rows]
        label_col = all(entry_kind(c) == "other" and not vec_re.match(c) for c in first_col if c)
        vec_label_col = all(vec_re.match(c) for c in first_col if c) and any(first_col)
        # Word | Vector: one cell per row holding a bracketed vector
        if width == 2 and all(vec_re.match(r[1]) for r in rows) and label_col:
            vecs = [re.split(r"[,\s]+", vec_re.match(r[1]).group(1).strip()) for r in rows]  # type: ignore[union-attr]
            if len({len(v) for v in vecs}) == 1:
                it = Item(rows=vecs, where=list(t.where), line=t.start, end=t.end, role=t.role, form="table",
                          label=ctx, row_labels=[r[0] for r in rows])
                it.step = step_of_text(ctx[-160:]) if ctx else None
                it.strength = 1 if it.step else 0
                if header and not it.step:
                    it.step = self.symbols.get(header[1].strip(" *`$")) or step_of_text(" ".join(header))
                    it.strength = 1 if it.step else 0
                self.items.append(it)
                return
        vec_cols = [j for j in range(1, width) if all(vec_re.match(r[j]) for r in rows)]
        if width >= 3 and label_col and header and len(vec_cols) >= 2:
            # Word | Embedding | Q | K | V: each column of bracketed vectors is a matrix its header names
            for j in vec_cols:
                vecs = [re.split(r"[,\s]+", vec_re.match(r[j]).group(1).strip()) for r in rows]  # type: ignore[union-attr]
                if len({len(v) for v in vecs}) != 1:
                    continue
                name = header[j].strip(" *`$")
                st = step_of_ident(name) or self.symbols.get(name) or (step_of_text(name) if name else None)
                it = Item(rows=vecs, where=list(t.where), line=t.start, end=t.end, role=t.role, form="table",
                          label=name, row_labels=[r[0] for r in rows])
                it.step, it.strength = st, (2 if st else 0)
                self.items.append(it)
            return
        if label_col or vec_label_col:
            body = [r[1:] for r in rows]
            cols = header[1:] if header else None
            if all(entry_kind(c) in ("number", "placeholder", "inf", "expr") or c == "" for r in body for c in r) \
                    and any(is_number(c) for r in body for c in r):
                body = [[c if c != "" else ".." for c in r] for r in body]
                it = Item(rows=body, where=list(t.where), line=t.start, end=t.end, role=t.role, form="table",
                          label=ctx, col_labels=cols)
                if label_col:
                    it.row_labels = first_col
                else:
                    it.row_vectors = [re.split(r"[,\s]+", vec_re.match(c).group(1).strip())  # type: ignore[union-attr]
                                      for c in first_col]
                corner = header[0] if header else ""
                st = step_of_ident(corner) or (step_of_text(corner) if corner else None)
                it.step = step or st
                it.strength = 1 if it.step else 0
                if label_col and cols and [c.strip() for c in cols] == [c.strip() for c in first_col] \
                        and it.step in (None, "X", "Q", "K", "V"):
                    # tokens down the side and across: a query-by-key table (scores or weights), whatever
                    # the sentence above says about rows being queries; the heading names which
                    head = self.heading_above(t.start, max(0, t.start - 40))
                    hs = step_of_text(head) if head else None
                    it.step = hs if hs not in (None, "X", "Q", "K", "V") else None
                    if it.step is None:  # the numbers say which: rows of probabilities are weights
                        try:
                            vals = [[float(c) for c in r] for r in body]
                        except ValueError:
                            vals = None
                        it.step = "weights" if vals and all(0 <= v <= 1 for r in vals for v in r) and all(
                            abs(sum(r) - 1) <= 0.02 * len(r) for r in vals) else "scores"
                    it.strength = 1
                if it.step is None and label_col and cols and corner.lower() in ("word", "words", "token", "tokens", "") \
                        and all(_DIM_RE.fullmatch(c.strip().lower()) for c in cols):
                    it.step, it.strength = "X", 1  # words down the side, dimensions across: embeddings
                # a transposed table: tokens across, dimensions down ("dim 1", "x", "d1")
                if label_col and all(re.fullmatch(r"(dim(ension)?|d|x|feature|f|e)?\s*_?\d+|[xyzw]", c.strip().lower())
                                     for c in first_col if c):
                    it.transposed = True
                    it.row_labels, it.col_labels = it.col_labels, None
                    it.rows = [list(r) for r in zip(*it.rows)]
                    it.where = [it.where[0]] * len(it.rows)
                it.head = head_of(ctx) or self.heading_head(t.start)  # "Head 2 weights:", a heading "Head 2"
                self.items.append(it)
                return
        # all numbers: a matrix with a header of tokens
        if all(entry_kind(c) in ("number", "placeholder", "inf") or c == "" for r in rows for c in r):
            it = Item(rows=[[c or ".." for c in r] for r in rows], where=list(t.where), line=t.start, end=t.end,
                      role=t.role, form="table", label=ctx, col_labels=header)
            it.step = step
            it.strength = 1 if step else 0
            self.items.append(it)

    # -- several names for one printing --
    def shared_names(self) -> None:
        """'W_Q1 = W_K1 = W_V1 = [[…]]': one printed matrix for several names. Each name after
        the first gets an item of its own with the same numbers."""
        chain_re = re.compile(r"((?:self\.)?[A-Za-z][\w^{}]*(?:\s*=\s*(?:self\.)?[A-Za-z][\w^{}]*)+)\s*=")
        extra: list[Item] = []
        for it in self.items:
            named = INPUT_NAMES + ("Q", "K", "V")  # Q = K = [[…]]: one printing for two given inputs
            if it.kind not in ("matrix", "vector") or it.step not in named:
                continue
            src = it.before if "=" in it.before else it.label
            m = chain_re.search(re.split(r"[\])]", src)[-1])  # the names after the previous block
            if not m:
                continue
            names = [n.strip() for n in m.group(1).split("=")]
            steps = [step_of_ident(n) for n in names]
            if len(names) < 2 or not all(st in named for st in steps) or len(set(steps)) < 2:
                continue
            it.step, it.strength, it.label = steps[0], 3, names[0]
            it.head = head_of(names[0]) or it.head
            for name, st in zip(names[1:], steps[1:]):
                twin = Item(rows=[list(r) for r in it.rows], where=list(it.where), line=it.line, end=it.end,
                            kind=it.kind, label=name, step=st, strength=3, role=it.role, form=it.form,
                            head=head_of(name) or it.head, before=it.before)
                twin.notes.append(f"{m.group(1)}: one printing for {len(names)} names")
                extra.append(twin)
        self.items += extra

    # -- aliases --
    def aliases(self) -> None:
        """Names given to a matrix already printed: ``K = Q.copy()``, ``Q = K = V = X``,
        ``q, k, v = x, x, x``. Each target becomes an item with the source's numbers."""
        alias_re = re.compile(r"\s*((?:(?:self\.)?[A-Za-z_]\w*\s*=\s*)+)((?:self\.)?[A-Za-z_][\w.]*?)"
                              r"((?:\.(?:copy|clone|detach)\(\))*)\s*;?\s*(?:#.*)?$")
        tuple_re = re.compile(r"\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)\s*=\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)"
                              r"\s*(?:#.*)?$")
        for k, ln in enumerate(self.lines):
            if ln.role != "code":
                continue
            pairs: list[tuple[str, str]] = []
            m = alias_re.fullmatch(ln.text)
            if m:
                targets = [t.strip() for t in m.group(1).split("=") if t.strip()]
                pairs = [(t, m.group(2)) for t in targets]
            else:
                m = tuple_re.fullmatch(ln.text)
                if m:
                    lhs = [t.strip() for t in m.group(1).split(",")]
                    rhs = [t.strip() for t in m.group(2).split(",")]
                    if len(lhs) == len(rhs):
                        pairs = list(zip(lhs, rhs))
            for target, source in pairs:
                step = step_of_ident(target)
                if step not in ("X", "Q", "K", "V", "KV") or step == step_of_ident(source):
                    continue
                src = self.named_before(source, k)
                if src is None:
                    continue
                it = Item(rows=[list(r) for r in src.rows], where=[ln.where] * len(src.rows), line=k, end=k,
                          kind=src.kind, label=f"{target} = {source}", step=step, strength=3, role="code",
                          form="code", row_labels=src.row_labels, col_labels=src.col_labels)
                it.notes.append(f"{target} = {source}: the numbers of {source} ({src.at()})")
                self.items.append(it)

    def named_before(self, name: str, line: int) -> Item | None:
        """The last item before ``line`` that the page assigns to ``name``."""
        bare = name.replace("self.", "")
        for it in reversed([x for x in self.items if x.line < line]):
            if it.label.replace("self.", "").strip() == bare:
                return it
        return None

    # -- lines --
    def lines_items(self) -> None:
        pair_re = re.compile(r"^\s*[-•*]?\s*\$?([A-Za-z\\][\w\\{}^]*)\s*\(\s*([\"'“‘]?)([^,()\"'“”‘’]{1,40})\2[”’]?\s*,\s*"
                             r"([\"'“‘]?)([^,()\"'“”‘’]{1,40})\4[”’]?\s*\)\$?\s*(?:=|≈|:)\s*"
                             r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*$")
        idx_re = re.compile(r"^\s*[-•*]?\s*\$?\\?(ω|omega|α|alpha|a|s|e)_\{?(?:(\d)(\d)|(\d+)\s*,\s*(\d+))\}?\$?"
                            r"\s*(?:=|≈|:)\s*\$?\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*\$?\s*$")
        elem_re = re.compile(r"^\s*[-•*]?\s*([A-Za-z_]\w*)\[(\d{1,3})\]\s*\[(\d{1,3})\]\s*=\s*(?:.*=\s*)?"
                             r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*$")
        sum_re = re.compile(r"^\s*[-•*]?\s*((?:[+-]?\d*\.?\d+\s*\+\s*)+[+-]?\d*\.?\d+)\s*(?:=|≈)\s*"
                            r"([+-]?(?:\d+\.?\d*|\.\d+))\s*$")
        eye_re = re.compile(r"^\s*((?:self\.)?[A-Za-z_][\w.]*)\s*=\s*(?:np|numpy|torch|jnp)\.(?:eye|identity)\(\s*(\d{1,3})\s*\)")
        for k, ln in enumerate(self.lines):
            if ln.role == "code":
                m = elem_re.match(ln.text)
                if m and step_of_ident(m.group(1)) in ("scores", "scaled", "masked", "weights"):
                    it = Item(rows=[[m.group(4)]], where=[ln.where], line=k, end=k, kind="pair", label=m.group(1),
                              step=step_of_ident(m.group(1)), strength=3,
                              pair=("#" + str(int(m.group(2)) + 1), "#" + str(int(m.group(3)) + 1)), role=ln.role)
                    self.items.append(it)
                    continue
                m = eye_re.match(ln.text)
                if m and 1 <= int(m.group(2)) <= 64:
                    n = int(m.group(2))
                    step = _ident_step(m.group(1))
                    rows = [["1" if i == j else "0" for j in range(n)] for i in range(n)]
                    it = Item(rows=rows, where=[ln.where] * n, line=k, end=k, kind="matrix", label=m.group(1),
                              step=step, strength=3 if step else 0, role="code", form="code")
                    it.notes.append(f"{m.group(0).strip()}: the {n}×{n} identity")
                    self.items.append(it)
                continue
            t = ln.text.replace("−", "-")
            m = pair_re.match(t)
            if m:
                ctx, s = self.context_label(k)
                st = step_of_text(ctx[-160:]) if ctx else None
                fn = m.group(1)
                if step_of_ident(fn) in ("weights", "scores") and not st:
                    st = step_of_ident(fn)
                it = Item(rows=[[m.group(6)]], where=[ln.where], line=k, end=k, kind="pair", label=ctx,
                          step=st, strength=2 if st else 0, pair=(m.group(3).strip(), m.group(5).strip()),
                          role=ln.role)
                self.items.append(it)
                continue
            m = idx_re.match(t)
            if m and k not in self.block_lines:
                sym = m.group(1)
                st = {"ω": "scores", "omega": "scores", "α": "weights", "alpha": "weights", "a": "weights",
                      "s": "scores", "e": "scores"}.get(sym.lstrip("\\").lower())
                if st:
                    i, j = (m.group(2), m.group(3)) if m.group(2) else (m.group(4), m.group(5))
                    it = Item(rows=[[m.group(6)]], where=[ln.where], line=k, end=k, kind="pair", label=t.strip(),
                              step=st, strength=2, pair=("#" + i, "#" + j), role=ln.role)
                    self.items.append(it)
                    continue
            m = elem_re.match(t)
            if m:
                st = step_of_ident(m.group(1))
                if st in ("scores", "scaled", "masked", "weights"):
                    it = Item(rows=[[m.group(4)]], where=[ln.where], line=k, end=k, kind="pair", label=m.group(1),
                              step=st, strength=3, pair=("#" + str(int(m.group(2)) + 1), "#" + str(int(m.group(3)) + 1)),
                              role=ln.role)
                    self.items.append(it)
                    continue
            m = sum_re.match(t)
            if m and k not in self.block_lines:
                terms = [x.strip() for x in m.group(1).split("+")]
                it = Item(rows=[terms], where=[ln.where], line=k, end=k, kind="sum", label=m.group(2), role=ln.role)
                self.items.append(it)


_DIM_RE = re.compile(r"(dim(ension)?|d|x|e|feature|f|emb)?\s*_?\d+|[xyzw]|x_?\{?\d+\}?")


def split_glued(text: str, n: int) -> list[str] | None:
    """Numbers run together when a table is copied as plain text, split into ``n`` numbers
    with the same number of decimals (the way a column of a table is printed).

    >>> split_glued("0.20.80.41.0", 4)
    ['0.2', '0.8', '0.4', '1.0']
    >>> split_glued("0.060.210.10", 3)
    ['0.06', '0.21', '0.10']
    >>> split_glued("0.060.21", 3) is None
    True
    """
    s = text.strip()
    if not re.fullmatch(r"[\d.\-]+", s) or n < 1:
        return None
    for dec in range(1, 9):
        parts = re.findall(r"-?\d+\.\d{%d}" % dec, s)
        if "".join(parts) == s and len(parts) == n and all(re.fullmatch(r"-?(0|[1-9]\d{0,2})\.\d+", p) for p in parts):
            return parts
    return None


_SHAPE_PAIR = re.compile(r"\[\s*\d+\s*,\s*\d+\s*\]\s*[@×x]\s*\[\s*\d+\s*,\s*\d+\s*\]")


def is_shape(b: Numbers, lines: list) -> bool:
    """A tensor's shape written as a list ("Shape: [3, 4]", "Q = X  [3, 4]", "[3, 4] @ [4, 3]"),
    not numbers of the example."""
    if b.depth != 1 or not 2 <= len(b.rows[0]) <= 4 or not all(re.fullmatch(r"\d{1,5}", x) for x in b.rows[0]):
        return False
    before, after = b.before.rstrip(), b.after.lstrip()
    line = lines[b.start].text if b.start < len(lines) else ""
    prev = lines[b.start - 1].text if b.start > 0 else ""
    return bool(re.search(r"\b(shape|size|dims?|dimensions?)\b[^\[\]]*$", before, re.I)
                or re.search(r"[A-Za-z_]\w*\s{2,}$", b.before) or before.endswith(("@", "×"))
                or after.startswith(("@", "×")) or (re.fullmatch(r"\d*\s*=?", before.strip()) and _SHAPE_PAIR.search(prev))
                or (_SHAPE_PAIR.search(line) is not None))


def collect(page: Page) -> Collected:
    """The items of a page, in page order, and its token lists."""
    c = _Collector(page)
    token_lists: list[tuple[list[str], Where, str]] = []
    for b in page.blocks:
        if isinstance(b, Numbers):
            if is_shape(b, page.lines):
                continue
            c.numbers(b)
        elif isinstance(b, Table):
            c.table(b)
        elif isinstance(b, Words):
            token_lists.append((b.words, b.where, "list"))
    c.lines_items()
    c.shared_names()
    c.items.sort(key=lambda it: (it.line, it.where[0].line))
    c.aliases()
    c.glued_aliases()
    # sentences assigned in code or printed: sentence = "The cat sat"
    for ln in page.lines:
        m = re.search(r"\b(sentence|text|sequence|input_text|words|tokens|phrase|sent)\s*=\s*[\"']([^\"']{1,300})[\"']",
                      ln.text)
        if m and ln.role == "code":
            words = [w.strip(".,;:!?\"()") for w in m.group(2).split()]
            words = [w for w in words if w]
            if 1 < len(words) <= 64:
                token_lists.append((words, ln.where, "sentence"))
    hidden: list[tuple[int, str, str]] = []
    made_re = re.compile(r"^\s*((?:self\.)?[A-Za-z_]\w*)\s*=\s*(?:torch\.)?(?:nn\.)?(?:Parameter\(\s*)?"
                         r"(?:torch\.(?:rand|randn|randint|empty|normal)\b|np\.random\.|numpy\.random\.|"
                         r"(?:torch\.)?nn\.Linear\b|Linear\(|rng\.|random\.)")
    for k, ln in enumerate(page.lines):
        if ln.role == "code":
            m = made_re.match(ln.text)
            # a top-level assignment, or a module's attribute (self.W_query = nn.Linear(…)); not a
            # helper's local variable
            if m and (not ln.text[:1].isspace() or m.group(1).startswith("self.")):
                st = step_of_ident(m.group(1))
                if st in ("Wq", "Wk", "Wv", "X", "Q", "K", "V"):
                    hidden.append((k, st, ln.text.strip()[:100]))
    vertical: list[tuple[int, int, list[str]]] = []
    horizontal: list[tuple[int, list[str]]] = []
    operators: dict[int, str] = {}
    results: dict[int, str] = {}
    lines = page.lines
    k = 0
    while k < len(lines):
        t = lines[k].text.strip()
        if lines[k].role not in ("code",) and t in ("=", "X", "x", "×", "*", "·", "@", "\\times", "\\cdot"):
            operators[k] = "=" if t == "=" else "×"
        m = re.fullmatch(r"=\s*([+-]?(?:\d+\.?\d*|\.\d+))", t)
        if m and lines[k].role != "code":
            results[k] = m.group(1)
        if lines[k].role in ("prose", "heading") and re.fullmatch(r"[<\[]?[A-Za-z][\w'’-]{0,20}[>\]]?", t) \
                and k not in c.block_lines:
            j = k
            words = []
            while j < len(lines) and re.fullmatch(r"[<\[]?[A-Za-z][\w'’-]{0,20}[>\]]?", lines[j].text.strip()) \
                    and lines[j].role in ("prose", "heading"):
                words.append(lines[j].text.strip())
                j += 1
            if len(words) >= 2:
                vertical.append((k, j - 1, words))
                k = j
                continue
        if lines[k].role in ("prose", "heading") and k not in c.block_lines:
            ws = t.split()
            if 2 <= len(ws) <= 12 and all(re.fullmatch(r"[<\[]?[A-Za-z][\w'’-]{0,20}[>\]]?", w) for w in ws):
                horizontal.append((k, ws))
        k += 1
    c.items.sort(key=lambda it: (it.line, it.where[0].line))
    return Collected(page, c.items, token_lists, vertical, horizontal, operators, results, hidden, c.symbols)


def label_text(it: Item) -> str:
    return clean_label(it.label)
