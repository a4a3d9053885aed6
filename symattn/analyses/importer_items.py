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

import bisect
import re
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from ..read.pages.formats import JULIA_HEADER_RE
from ..read.pages.latex_cells import is_number
from ..read.pages.model import Line, Numbers, Page, Table, Where, Words
from ..read.pages.scan import entry_kind
from ..read.pages.slice_links import drop_slice_link
from .importer_factors import FACTOR_NOTE, product_factor
from .importer_fused import fused_name
from .importer_glued import OUTPUT_RE, WINDOW, assignments, glued_name, printout_step
from .importer_params import parameter_copy
from .importer_row_words import row_named_before
from .importer_factored import factored_products
from .importer_token_entries import token_entry_items
from .importer_one_query_dots import one_query_items
from .importer_results import first_result, unpacked_output, unpacked_weights
from .importer_symbol_heads import heading_symbol_step
from .importer_printed import fstring_printed, tuple_with_shapes
from .importer_names import (INPUT_NAMES, clean_label, grad_of, is_transposed, names_qkv_together, product_step,
                             quoted, step_of_ident, step_of_text)

__all__ = ["Item", "Collected", "collect", "split_glued", "head_of", "expr_step", "symbol_definitions", "indexed_name",
           "OPTION_NOTE", "SUM_TERM_NOTE", "plain_names"]


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
    positions: list[int | str] | None = None  # numbers given by position in prose: key indices (-1: last) or tokens
    either: tuple[str, str] | None = None  # a number given for two tokens, query and key either way round
    keyed: bool = False  # a row keyed by token ({'the': 0.21, …}): col_labels say which key each number is
    dot: tuple[list[str], list[str]] | None = None  # [1, 0] · [0, 1] = 0: the two vectors of a dot product
    softmax_of: tuple[str, list[str]] | None = None  # e^{a} / (e^{a} + e^{b}) ≈ w: the numerator's exponent, all
    outer: int = 1  # a 4-D printout (batch, heads, rows, columns): how many batch items its stack holds

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


_SCALAR_TIMES_RE = re.compile(r"=\s*(?:\\frac\{(\d+)\}\{(\d+)\}|(\d+)\s*/\s*(\d+)|(\d+(?:\.\d+)?)|(½|¼|⅓))\s*"
                             r"(?:\\cdot|\\times|·|\*|×)\s*(?:\\text\{|\\left\s*[(\[]|\\begin\{[bp]?matrix\}|\()?\s*$")
#: '= \frac{1}{2} ' or '= \frac{1}{\sqrt{4}} ' right before a matrix (juxtaposed, no operator): 1/c times it
_RECIPROCAL_BEFORE = re.compile(r"=\s*\\[dt]?frac\s*\{\s*1\s*\}\s*\{\s*(?:\d+(?:\.\d+)?|\\sqrt\s*\{[^{}]{1,12}\})\s*\}\s*$")
_UNICODE_FRACTIONS = {"½": Fraction(1, 2), "¼": Fraction(1, 4), "⅓": Fraction(1, 3)}


def scalar_times(before: str, after: str, rows: list[list[str]]) -> tuple[list[list[str]], str] | None:
    """A matrix written as a number times it, ``W = \\frac{1}{2} \\cdot [[1, 0], [0, 1]]`` or ``W = 0.5 * [[…]]``:
    (its entries multiplied out, exactly, as integers or fractions; the factor as written), or None.
    Only right after '=' and with nothing added after it (a term of a sum is not the matrix)."""
    m = _SCALAR_TIMES_RE.search(before)
    if m is None or re.match(r"\s*\}?\s*[+\-]", after):
        return None
    if m.group(1):
        f, shown = Fraction(int(m.group(1)), int(m.group(2))), f"{m.group(1)}/{m.group(2)}"
    elif m.group(3):
        f, shown = Fraction(int(m.group(3)), int(m.group(4))), f"{m.group(3)}/{m.group(4)}"
    elif m.group(5):
        f, shown = Fraction(m.group(5)), m.group(5)
    else:
        f, shown = _UNICODE_FRACTIONS[m.group(6)], m.group(6)
    if f == 0:
        return None
    try:
        out = [[_fraction_text(Fraction(x.strip()) * f) for x in r] for r in rows]
    except (ValueError, ZeroDivisionError):
        return None
    return out, shown


def _fraction_text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


#: a line naming the sums of the rows: "row sums", "sum of each row", French "somme des lignes", Japanese
#: "各行の合計", Chinese "每行的和"
ROW_SUMS_RE = re.compile(r"\brows?[\s-]*sums?\b|\bsums?\s+(?:of|over|along|across)\s+(?:the\s+|each\s+|every\s+)?rows?\b|"
                         r"\bsommes?\s+(?:des|de\s+chaque|par|sur\s+les)\s+lignes?\b|"
                         r"各行の(?:合計|和)|行ごとの(?:合計|和)|每行的?(?:和|总和|之和)", re.I)
_SHAPE_HEADER = re.compile(r"([A-Za-z][\w ().,-]{0,80}?)\s+shape\s*[:=]\s*\(\s*\d+(?:\s*,\s*\d+)*\s*,?\s*\)")


def attention_call(expr: str) -> bool:
    """A call of a function named for attention (``DotProductAttention(q, k, v, mask)``,
    ``dot_product_self_attention(q, k, v)``) with at least three arguments: what it prints is the
    attention output.

    >>> attention_call("DotProductAttention(q_b, k_b, v_b, m)"), attention_call("attention_weights(q, k, v)")
    (True, False)
    """
    m = re.fullmatch(r"\s*(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)\(([^()]*)\)\s*", expr)
    return bool(m and re.search(r"attention$|attn$", m.group(1), re.I) and len(m.group(2).split(",")) >= 3)


def dot_phrase_step(name: str) -> tuple[str | None, str] | None:
    """The step a name written as a product in words is: ``query dot key`` the scores,
    ``masked query dot key`` the masked scores; ``query dot key dot value`` (no softmax between) is
    no step (None and why). None for a name of another kind.

    >>> dot_phrase_step("query dot key"), dot_phrase_step("masked query dot key")
    (('scores', ''), ('masked', ''))
    >>> dot_phrase_step("masked query dot key dot value")[0], dot_phrase_step("key dot value")[0], dot_phrase_step("query")
    (None, None, None)
    """
    m = re.fullmatch(r"(masked\s+|scaled\s+)?(\w+)\s+(?:dot|times|·)\s+(\w+)((?:\s+(?:dot|times|·)\s+\w+)*)", name.strip(), re.I)
    if not m:
        return None
    a, b = step_of_ident(m.group(2)), step_of_ident(m.group(3))
    if (a, b) != ("Q", "K"):
        return (None, "a product of the inputs that is no step of attention") if a in ("Q", "K", "V") else None
    if m.group(4).strip():
        return None, "the scores times the values with no softmax between: no step of attention"
    pre = (m.group(1) or "").strip().lower()
    return ("masked" if pre == "masked" else "scaled" if pre == "scaled" else "scores"), ""


_ASSIGN_RE = re.compile(r"(?:^|[\s;(,])((?:self\.)?[A-Za-z_][\w.]*(?:\^\{?\w+\}?|_\{\w+\})?(?:\s*\.T)?)\s*"
                        r"(?:\[[^\]]*\]\s*)?(?::\s*[\w\[\], .<>&:]+)?:?=\s*(?:(?:np|numpy|torch|jnp|tf)\.\w+\(\s*|"
                        r"(?:ndarray::)?(?:array|vec)!\s*|(?:ndarray::)?arr[123]\(\s*&?\s*)*$")  # Rust: array![…], arr2(&[…])
_SEP_CHARS = " \t:=→->–—(),;$"
#: one row of a batch of one taken by a slice: s![0, 2, ..] (Rust ndarray), [0, 2, :] or [0, 2, ...] (NumPy, PyTorch)
_ROW_SLICE_RE = re.compile(r"(?:\bs!\[\s*0\s*,\s*(\d{1,3})\s*,\s*\.\.\s*\]|\w\[\s*0\s*,\s*(\d{1,3})\s*,\s*(?::|\.\.\.)\s*\])")
#: a Rust binding of an array literal: 'pub const W_Q: [[f32; 4]; 4] = [', 'let mut a: Array3<f32> = array!['
_RUST_BINDING = re.compile(r"(?:^|[\s;{}])(?:pub(?:\([\w ]+\))?\s+)?(?:const|static|let(?:\s+mut)?)\s+([A-Za-z_]\w*)"
                           r"\s*(?::\s*[^=]{1,80})?=\s*&?\s*(?:(?:ndarray::)?(?:array|vec)!\s*|(?:ndarray::)?arr[123]\(\s*&?\s*)?$")
#: a call opened just before a literal, the literal its first argument (not an array or tensor constructor)
_CALL_ARGUMENT = re.compile(r"(?<![\w.!])(?!(?:array|tensor|vec|arr[123]|constant|matrix|Tensor|asarray|stack|diag)\b)"
                            r"[A-Za-z_]\w*\(\s*&?\s*$")
#: the text before a later term of a sum of scaled vectors: '… + \frac{e}{2e+1} \cdot ' (a coefficient, then × or ·)
_LATER_TERM = re.compile(r"=[^=]*\+[^=+]*(?:\\cdot|\\times|[×·*])\s*$")
#: a call of an attention function with one name as its first three arguments: f(a, a, a), f(&a, &a, &a), f(a.clone(), …)
_ARG = r"\s*&?\s*{}(?:\.(?:clone|copy|view|to_owned)\(\))?\s*"
_SELF_CALL_RE = re.compile(r"\b(\w*(?:attention|attn|scaled_dot\w*|dot_product\w*|sdpa)\w*)\s*\(\s*"
                           + _ARG.format(r"([A-Za-z_]\w*)") + "," + _ARG.format(r"\2") + ","
                           + _ARG.format(r"\2") + r"[,)]", re.I)


_FONT_RE = re.compile(r"\\(?:mathbf|boldsymbol|bm|mathrm|mathit|mathsf|textbf|textit)\s*\{([A-Za-z][\w^{}]{0,20}?)\}")


_ALIGN_RE = re.compile(r"\\begin\{(?:aligned|align\*?|split|gathered|gather\*?|eqnarray\*?|equation\*?)\}|"
                       r"\s*&\s*(?=[=≈:]|\\approx)|\\\\(?:\s*\[[^\]]{0,20}\])?")


def plain_names(tex: str) -> str:
    """TeX with its names as plain names: ``\\mathbf{Q}`` is Q, and the alignment of ``Q &= [..] \\\\
    K &= [..]`` (``\\begin{aligned}``, ``&``, row breaks) is dropped.

    >>> plain_names(r"\\begin{aligned} \\mathbf{Q} &= ")
    '  Q = '
    """
    return _ALIGN_RE.sub(" ", _FONT_RE.sub(r"\1", tex))


_ROLE_CELL = re.compile(r"\s*(?:the\s+)?(query|key|value)s?\s*(?:\(\s*([QKV])\s*\))?\s*(?:[-–—:/]\s*(.+?))?\s*", re.I)


def _column_groups(cols: list[str]) -> list[tuple[str, int, int]] | None:
    """Column headers that number the columns of matrices printed side by side: ``Q1 Q2 K1 K2`` →
    ``[("Q", 0, 2), ("K", 2, 4)]``; None unless there are two or more stems, each over a run of
    two or more columns numbered from 1 (or 0), all runs of one width.

    >>> _column_groups(["ohne_c1", "ohne_c2", "causal_c1", "causal_c2"])
    [('ohne', 0, 2), ('causal', 2, 4)]
    >>> _column_groups(["d1", "d2", "d3"]) is None
    True
    """
    parts = [re.fullmatch(r"\s*(.*?[A-Za-z])[_\s-]*(?:c|col|dim|d)?[_\s-]*(\d{1,2})\s*", c) for c in cols]
    if not cols or any(p is None for p in parts):
        return None
    out: list[tuple[str, int, int]] = []
    k = 0
    while k < len(parts):
        stem = parts[k].group(1)  # type: ignore[union-attr]
        e = k
        while e < len(parts) and parts[e].group(1) == stem:  # type: ignore[union-attr]
            e += 1
        nums = [int(p.group(2)) for p in parts[k:e]]  # type: ignore[union-attr]
        if nums != list(range(nums[0], nums[0] + len(nums))) or nums[0] not in (0, 1):
            return None
        out.append((stem, k, e))
        k = e
    if len(out) < 2 or len({b - a for _, a, b in out}) != 1 or out[0][2] - out[0][1] < 2 \
            or len({s for s, _, _ in out}) != len(out):
        return None
    return out


def _index_column(header: list[str] | None, first: list[str]) -> bool:
    """A first column under a header naming tokens, positions or decoding steps (``Token``, ``idx``, ``#``,
    ``pos``, ``step``) that holds their numbers 0, 1, 2, … (or 1, 2, 3, …) in order: labels, not data.

    >>> _index_column(["Token", "0", "1"], ["0", "1", "2"]), _index_column(["x", "y"], ["0", "1", "2"])
    (True, False)
    >>> _index_column(["step", "the", "cat"], ["1", "2", "3", "4"]), _index_column(["step", "a"], ["1", "3"])
    (True, False)
    """
    if not header or len(first) < 2 or not re.fullmatch(r"\s*(?:tokens?|tok|idx|index|#|i|pos(?:ition)?|row|"
                                                         r"query|q|word|step|t|time\s*step)(?:\s*(?:id|#|no\.?|index))?\s*",
                                                         header[0].replace("*", ""), re.I):
        return False
    if not all(re.fullmatch(r"\s*\d{1,4}\s*", c) for c in first):
        return False
    nums = [int(c) for c in first]
    return nums[0] in (0, 1) and nums == list(range(nums[0], nums[0] + len(nums)))


def _role_label(cell: str) -> tuple[str, str | None] | None:
    """A table row labelled by its role (and token): ``Key (K) - latte`` → ``("K", "latte")``,
    ``Query (Q)`` → ``("Q", None)``; None for anything else.

    >>> _role_label("Key (K) - latte"), _role_label("Query (Q)"), _role_label("Keyboard")
    (('K', 'latte'), ('Q', None), None)
    """
    m = _ROLE_CELL.fullmatch(cell.replace("**", ""))
    if m is None:
        return None
    step = m.group(1)[0].upper()
    if m.group(2) and m.group(2) != step:
        return None
    return step, (m.group(3).strip().strip("\"'“”") or None) if m.group(3) else None


#: a shape written between a name and its '=': ``X\ (shape=3\times 2) =``, ``Q (3×2) =``, ``K (2 x 3):``
_SHAPE_NOTE_RE = re.compile(r"\(\s*(?:shape\s*[=:]?\s*\d{1,4}\s*(?:\\times|×|x|\*|,)|\d{1,4}\s*(?:\\times|×|x))\s*"
                            r"\d{1,4}\s*\)(?=\s*(?:[=:≈]|\\approx))", re.I)


def drop_shape_note(before: str) -> str:
    r"""The text before a block without the shape a page writes between a name and its '=' (a product
    of two sizes, or ``shape=`` with any separator), and the spaces before it; a call's arguments stay.

    >>> drop_shape_note(r"X\ (shape=3\times 2)="), drop_shape_note("Q (3×2) = "), drop_shape_note("f(2, 3) = ")
    ('X=', 'Q = ', 'f(2, 3) = ')
    """
    if "(" not in before:
        return before
    for m in reversed(list(_SHAPE_NOTE_RE.finditer(before))):
        k = m.start()
        while k > 0:  # the spaces before it: ' ', '\ ', '\,', '\quad' (read backwards: linear in the text)
            if k >= 2 and before[k - 2] == "\\" and before[k - 1] in " ,;:!":
                k -= 2
            elif before[k - 1].isspace():
                k -= 1
            elif before.endswith("\\quad", 0, k) or before.endswith("\\qquad", 0, k):
                k -= 5 if before.endswith("\\quad", 0, k) else 6
            else:
                break
        before = before[:k] + before[m.end():]
    return before


def _label_before(before: str, role: str) -> tuple[str, str | None, bool]:
    """(label text, identifier, transposed) from the text before a block on its line."""
    b = drop_slice_link(drop_shape_note(plain_names(before)).rstrip()).rstrip()  # 'V = X W^V = X_{[:,:2]} ='
    # inline code that opens with the name it assigns ('embeddings: `x_1 = [1, 0]`'): the backtick is no part of it
    b = re.sub(r"`(?=[A-Za-z_][\w.^{}]*\s*[=:]\s*$)", " ", b)
    # LaTeX's sized delimiters around a matrix (\left( … \right)) are not part of any name
    b = re.sub(r"\\(?:left|right|[bB]igg?[lr]?)\s*(?:[()\[\].|]|\\[{}])", " ", b).rstrip()
    if not b:
        return "", None, False
    m = _RUST_BINDING.search(b)
    if m:  # 'pub const W_Q: [[f32; 4]; 4] = [', 'let a: Array3<f32> = array![': the name bound
        return m.group(1), m.group(1), False
    m = re.search(r"(?:^|[\s;(,])((?:self\.)?[A-Za-z_][\w.]*)\s*\[\s*(-?\d+)\s*(?:,\s*:\s*)?\]\s*(?:\([^()\[\]]*\)\s*)?[=:→]\s*$",
                  b)
    if m:  # weights[0] = [...], V[1] (value for 'I'): [...]: a row of a named matrix
        return f"{m.group(1)}[{m.group(2)}]", m.group(1), False
    if re.search(r"\\end\{", b):
        # 'W_q = \begin{bmatrix}…\end{bmatrix}, \; W_k =': what names this block follows the last matrix
        rest = re.split(r"\\end\{[A-Za-z*]+\}", b)[-1]
        rest = re.sub(r"\\(?:q?quad(?![A-Za-z])|[,;:! ])|~", " ", rest)  # W^Q = [..], \quad W^K = [..]
        m = re.search(r"(?:^|[\s,;$(])\\?((?:\\text\{)?[A-Za-z][\w{}^\\ ]*?)\}?\s*=\s*$", rest)
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
    m = _INDEXED_RE.search(tail or b)
    if m and indexed_name(m.group(1)):
        # 'key vectors K1 = [1, 0], K2 = [0, 1]': a row of K by its index, whatever words come before
        return m.group(1), m.group(1), False
    m = re.search(r"(?:^|[\s,;:→$])((?:[A-Za-z_][\w^{}]*\s*=\s*)*([A-Za-z_][\w^{}]*))\s*[=:≈]\s*$", tail)
    pre = tail[: m.start(1)].strip() if m else ""
    opens = bool(m) and _opens_math(tail[: m.start(1)])
    pre = re.sub(r"(?:\\q?quad(?![A-Za-z])|\\[,;: ]|~|\s)+$", "", pre)  # 'softmax(…)V, \quad Q ='
    pre = re.sub(r"(?:\\\[|\\\(|\$\$?)\s*$", "", pre).rstrip()  # '重み行列: \[ W^Q =': the display's opener
    if m and all(step_of_ident(n.strip()) for n in m.group(1).split("=")) and (
            not pre or pre[-1] in ":→,;" or opens or re.search(r"(?:^|\]\s*)(?:and|with|then|so|while|whereas)$", pre)):
        # 'q = [0.37, -1.25]  k = [0.04, -1.31]', 'Example: Q = K = [[…]]', '… → Output ≈ [[…]]':
        # the name just before this block names it (the first of a chain: shared_names adds the others)
        first = m.group(1).split("=")[0].strip()
        return m.group(1), first, is_transposed(first)
    if "[" in b or b.count("=") > 1:
        # words after the block before it name this one: '… are [0.73, 0.27] and the output is [7.31, 5.38]'
        own = re.split(r"[\])]", b)[-1].strip(_SEP_CHARS)
        if "[" in b and "=" not in own and 0 < len(own) <= 40 and step_of_text(own):
            return own, None, False
        lead = _operation_lead(b)
        if lead:  # 'Softmax: [exp(0.354)/(…), …] = ': the operation the line opens with names its result
            return lead, None, False
        clause = _next_clause_head(b)
        if clause:  # 'Q1 = x1 . W_Q = [1,0],  Q2 = x2 . W_Q = ': the clause after the last block names this one
            return clause, clause, is_transposed(clause)
        # a chain written on one line: 'Context Vector for "I" = [..] = ' → what precedes the first '='
        head = b.split("=")[0].strip(_SEP_CHARS)
        if head and "[" not in head and "\\end" not in head:
            m = re.fullmatch(r"\$?\\?([A-Za-z][\w^{}\\]*'*)\$?", head)  # (Q' = K' = …: a prime is part of the name)
            if m is None and "$" in head:  # '1. Compute $Q = XW^Q = …': the symbol the math opens with
                m = re.fullmatch(r"\\?([A-Za-z][\w^{}\\]*)", head.rsplit("$", 1)[-1].strip())
            return head, (m.group(1) if m else None), is_transposed(head)
        return "", None, False
    prod = _product_lhs(b) if role == "math" else None
    if prod:  # '\mathbf{Q} \mathbf{K}^T =', 'A \times V =': the product names the block, not its last factor
        return prod, None, False
    words = re.fullmatch(r"\s*[`*_]*\s*([A-Za-z][A-Za-z]*(?:[ -][A-Za-z]+){1,4})\s*[=:]\s*", b)
    if words and step_of_text(words.group(1)) and not step_of_ident(words.group(1).split()[-1]):
        # '`context vector=[…]', 'attention weights = [..]': a phrase before '=' names it, not its last word
        return words.group(1), None, False
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
            if name is None:  # '**Problem:** For $Q = [..]': the symbol that opens the inline math names it
                mm = re.search(r"\\?([A-Za-z][\w^{}]*'*)$", head)
                if mm and _opens_math(head[: mm.start()]):
                    return mm.group(1), mm.group(1), is_transposed(mm.group(1))
            return head, name, is_transposed(head)
        return "", None, False
    s = b.strip(" \t:=→->–—,;$`*")
    m = re.fullmatch(r"\$?\\?([A-Za-z][\w^{}\\.]*)(\[\s*-?\d+\s*\])?\$?", s)
    return s, (m.group(1) if m else None), is_transposed(s)


def _next_clause_head(before: str) -> str | None:
    """The name that opens the clause after the last block on a line of assignments, each a chain that ends in
    a block (``Q1 = x1 . W_Q = [1,0],  Q2 = x2 . W_Q = ``): the name this block is, not the line's first.

    >>> _next_clause_head("Q1 = x1 . W_Q = [1,0],  Q2 = x2 . W_Q = "), _next_clause_head("Out = [1, 0] + [0, 1] = ")
    ('Q2', None)
    """
    if "[" not in before:
        return None
    m = re.fullmatch(r".*\]\s*[,;]\s*([A-Za-z_][\w^{}]*)\s*=[^=\[\]()]*=\s*", before)
    return m.group(1) if m and (indexed_name(m.group(1)) or _ident_step(m.group(1))) else None


_LEAD_RE = re.compile(r"\s*(?:[-*•]\s*)?((?:the\s+)?(?:soft-?max|scal(?:ed|ing)(?:\s+scores?)?|(?:attention\s+)?output|"
                      r"context(?:\s+vector)?)(?:\s+(?:of|for)\s+[\w\"'“”‘’ ]{1,20})?)\s*:\s*(\[.*)$", re.I)


def _operation_lead(before: str) -> str:
    """The operation a line opens with, as its label, when the line writes it out on numbers and ends
    in '=' before the block: 'Softmax: [exp(0.354)/(exp(0.354)+exp(0.354)), …] = [0.5, 0.5]',
    'Scaling: [0.5/1.414, 0.5/1.414] ≈ [0.354, 0.354]'. Not when what it writes out multiplies a
    named matrix ('Output: [0.5, 0.5] × V = …'), nor when the line names something else after it.

    >>> _operation_lead("Softmax: [exp(0.354)/(exp(0.354)+exp(0.354)), exp(0.354)/(exp(0.354)+exp(0.354))] = ")
    'Softmax'
    >>> _operation_lead("Output: [0.5, 0.5] × V = "), _operation_lead("Softmax: [1, 2] = [0.27, 0.73], so y = ")
    ('', '')
    """
    m = _LEAD_RE.match(before)
    if not m or not re.search(r"[=≈]\s*$", before):
        return ""
    rest = m.group(2)
    if re.search(r"[×*@·]\s*\\?[A-Za-z](?!\w*\()|[A-Za-z]\w*\s*=", rest):
        return ""  # a product with a named matrix, or another name given on the line
    return m.group(1).strip()


def _opens_math(pre: str) -> bool:
    r"""Whether the text before a name ends by opening inline math (``… Suppose $``, ``Let \(``): the
    name is then the first thing the math writes, ``$W^{O} = [..]$`` defines it whatever prose
    comes before the math.

    >>> _opens_math("Suppose $"), _opens_math("input row $x_3 = (1,1)$. Suppose $"), _opens_math("so $a$ and ")
    (True, True, False)
    >>> _opens_math(r"Let \( "), _opens_math("$$")
    (True, False)
    """
    t = pre.rstrip()
    if re.search(r"\\\(\s*$", pre):
        return True
    return t.endswith("$") and not t.endswith("$$") and t.count("$") % 2 == 1


#: the note on weights the text says come from unscaled scores (a what-if beside an example that scales)
UNSCALED_NOTE = "the softmax of scores the page calls unscaled"
_UNSCALED_WORDS_RE = re.compile(r"\bunscaled\b|\bwithout\s+(?:the\s+)?scaling\b|\bno\s+scaling\b", re.I)
#: the note on a column of a table its header names (| Q | K | V |, no label column): one matrix
COLUMN_NOTE = "a column of a table of bracketed vectors, the matrix its header names"


def _product_lhs(before: str) -> str | None:
    r"""The left side of a display's only '=' when it is a product of two symbols that makes a step
    (``Q K^T =``, ``A_{\text{Row 3}} \times V =``), or any product written with an operator (its last factor is
    not what it names), as written; None otherwise.

    >>> _product_lhs(r"Q K^T = "), _product_lhs(r"$$ A \times V ="), _product_lhs("Q = "), _product_lhs("Q = X W_Q =")
    ('Q K^T', 'A \\times V', None, None)
    >>> _product_lhs(r"\text{Scores} \times V = "), _product_lhs(r"W_{\text{times}} = ")
    ('\\text{Scores} \\times V', None)
    """
    lhs = re.split(r"\$\$?|\\\[|\\\(", before)[-1].strip()
    if not lhs.endswith("=") or lhs.count("=") != 1:
        return None
    head = lhs[:-1].strip()
    if product_step(head) or re.search(r"\\times(?![A-Za-z])|\\cdot(?![A-Za-z])|[×·]", head):
        return head  # (a product whose step is not read names no factor of it: '\text{Scores} \times V =')
    return None


#: the note on a term of a sum written on one line (not placed on its own)
SUM_TERM_NOTE = "a term of a sum (or a number times a vector) written on one line, not a result"
#: the note on a quiz's answer option (not placed)
OPTION_NOTE = "a multiple-choice answer option, not a matrix of the example"
_INDEXED_RE = re.compile(r"(?:^|[\s,;:($])([A-Za-z]_?\{?\d{1,2}\}?)\s*[=:]\s*$")


def indexed_name(name: str) -> tuple[str, int] | None:
    """(step, 1-based row) for a vector named by a one-letter step and an index: ``K1``, ``v_2``,
    ``Q_{1}``, ``x3`` are rows of K, V, Q and X; None for anything else.

    >>> indexed_name("K1"), indexed_name("v_2"), indexed_name("Q_{1}"), indexed_name("W1"), indexed_name("K0")
    (('K', 1), ('V', 2), ('Q', 1), None, None)
    """
    m = re.fullmatch(r"([A-Za-z])_?\{?(\d{1,2})\}?", name.strip())
    if not m or int(m.group(2)) < 1:
        return None
    step = step_of_ident(m.group(1))
    return (step, int(m.group(2))) if step in ("X", "Q", "K", "V") else None


def _name_index(label: str) -> int | None:
    """A query index written in a name: attn_scores_2, context_vec_2, z^{(2)}, x^(2), ω_2."""
    m = re.search(r"(?:_|\^\{?\()(\d{1,3})\)?\}?\s*[:=]?\s*$", label.strip()) or \
        re.fullmatch(r"\s*[A-Za-z_]+?_?(\d{1,3})\s*", label)
    return int(m.group(1)) if m and int(m.group(1)) >= 1 else None


#: a row the page names equal to others ('A_{1,:} = A_{2,:} = [..]'): placed in each, no repeat of another
ROWS_NAMED_NOTE = "one of the rows a chain of row names sets equal to these numbers"


def rows_named(before: str) -> list[int]:
    r"""The rows a chain of row names before a block sets equal to it, counted from 1:
    ``$A_{1,:} = A_{2,:} = `` gives [1, 2]; one name gives its row; anything else none.

    >>> rows_named(r"- $A_{1,:} = A_{2,:} = "), rows_named(r"$A_{3,:} = "), rows_named(r"$A_{1,:} = B_{2,:} = ")
    ([1, 2], [3], [])
    """
    m = re.fullmatch(r"[\s*-]*\$?\s*((?:\\?([A-Za-z]\w*)_\{\s*\d{1,3}\s*,\s*:\s*\}\s*=\s*)+)", before)
    if not m:
        return []
    names = re.findall(r"\\?([A-Za-z]\w*)_\{\s*(\d{1,3})\s*,\s*:\s*\}", m.group(1))
    rows = [int(i) for _, i in names]
    if len({n for n, _ in names}) != 1 or len(set(rows)) != len(rows) or min(rows) < 1:
        return []
    return rows


def _row_word(label: str) -> int | None:
    r"""The query row a one-row block's label names with the word Row and its number, counted from 1:
    ``\text{Softmax}(\text{Row 3})``, ``A_{\text{Row 3}} \times V``; None otherwise (and for 'rows 1 to 3').

    >>> _row_word(r"\text{Softmax}(\text{Row 3})"), _row_word("row 2 of Q"), _row_word("rows 2"), _row_word("Row 0")
    (3, 2, None, None)
    """
    m = re.findall(r"\brow\s*#?\s*(\d{1,3})\b", label or "", re.I)
    return int(m[0]) if len(set(m)) == 1 and int(m[0]) >= 1 else None


_MEAN_NAME_RE = re.compile(r"\s*(?:the\s+)?(?:plain\s+|simple\s+|unweighted\s+|uniform\s+)?(?:average|mean|avg)"
                           r"(?:[_ ](?:vector|vec|embedding|pooling|pooled))?\s*[:=≈]?\s*", re.I)


def plain_mean(label: str | None) -> bool:
    """Whether a block's own name says it is a plain mean (``average = (h_1 + h_2) / 2 = [..]``, "Mean vector:"),
    the baseline a page sets beside attention's weighted mean, not a step of it.

    >>> plain_mean("average"), plain_mean("mean_vector"), plain_mean("Plain mean:"), plain_mean("weighted average")
    (True, True, True, False)
    >>> plain_mean("mean of the scores"), plain_mean(None)
    (False, False)
    """
    return bool(label) and _MEAN_NAME_RE.fullmatch(label) is not None


_PRE_BIAS_RE = re.compile(r"([QKV])_\{?\s*(?:raw|pre|nobias|no_bias|lin|linear)\s*\}?'?")


def pre_bias_product(ident: str | None) -> bool:
    """Whether a name marks Q, K or V as the raw product X·W, written apart from the projection's result
    because a bias is added next: ``Q_{raw}``, ``K_raw``, ``V_{pre}``.

    >>> pre_bias_product("Q_{raw}"), pre_bias_product("K_raw"), pre_bias_product("Q"), pre_bias_product("S_{raw}")
    (True, True, False, False)
    """
    return bool(ident) and _PRE_BIAS_RE.fullmatch(ident) is not None


def _ident_step(name: str | None) -> str | None:
    if not name:
        return None
    font = re.fullmatch(r"(?:mathbf|boldsymbol|bm|mathrm|mathit|mathcal)\{(\\?[A-Za-z][^{}]{0,20})\}(.{0,20})", name)
    if font:  # 'boldsymbol{\alpha}' (the label lost the font command's backslash): the symbol inside
        name = font.group(1) + font.group(2)
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


_HEAD_SYMBOL = re.compile(r"([QKV])_\{?([1-9])\}?")


def head_symbol(it: "Item") -> str | None:
    """The head step a matrix's label names by a digit under a capital Q, K or V: ``Q_1 = [..]``,
    ``K_{2} = [..]`` (a matrix, not one row: ``q_1`` is a query). Only a page with several heads
    reads it so; with one head the label names nothing.

    >>> head_symbol(Item([["1"], ["3"]], [], 0, 0, label="Q_1")), head_symbol(Item([["1"], ["3"]], [], 0, 0, label="V_{2}"))
    ('head1.Q', 'head2.V')
    >>> head_symbol(Item([["1", "3"]], [], 0, 0, kind="vector", label="Q_1")), head_symbol(Item([["1"]], [], 0, 0, label="q_1"))
    (None, None)
    """
    m = _HEAD_SYMBOL.fullmatch((it.label or "").strip(" =:$")) if it.kind == "matrix" and len(it.rows) > 1 else None
    return f"head{m.group(2)}.{m.group(1)}" if m else None


_TAIL_RE = re.compile(r"\.(?:round|numpy|detach|cpu|tolist|item|squeeze|float|double|clone|copy|data)\b(?:\([^()]*\))?$")
_FLIP_RE = re.compile(r"\.(?:T|t\(\)|transpose\(\s*(?:0\s*,\s*1|1\s*,\s*0|-1\s*,\s*-2|-2\s*,\s*-1)\s*\))$")


_ROUND_CALL_RE = re.compile(r"(?:(?:np|numpy|torch|jnp|tf\.math)\.)?(?:round|around|round_)\(\s*(.+?)\s*"
                            r"(?:,\s*(?:decimals\s*=\s*)?-?\d{1,2}\s*)?\)")


def _unrounded(expr: str) -> str:
    """The expression a rounding call prints: ``np.round(x, 2)``, ``np.around(x, decimals=3)``,
    ``torch.round(x, decimals=4)`` and ``round(x, 2)`` print x (rounded: its digits as printed).

    >>> _unrounded("np.round(attention_output, 1)"), _unrounded("torch.round(w, decimals=4)"), _unrounded("x")
    ('attention_output', 'w', 'x')
    """
    m = _ROUND_CALL_RE.fullmatch(expr)
    return m.group(1) if m and m.group(1).count("(") == m.group(1).count(")") else expr


_FOR_TUPLE_RE = re.compile(r"(\s*)for\s+([A-Za-z_]\w*)\s+in\s+[(\[]\s*([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)+)"
                           r"\s*,?\s*[)\]]\s*:\s*(.*)$")


def loop_printed(code: list[str]) -> list[str] | None:
    """What a cell prints when its only print is in a loop over a tuple of names (``for m in (q, k, v):
    print(np.round(m, 1))``): the print's expression for each name in turn, or None (no such loop,
    or a print outside it too).

    >>> loop_printed(["for m in (query_matrix, key_matrix):", "    print(np.round(m, 1))"])
    ['np.round(query_matrix, 1)', 'np.round(key_matrix, 1)']
    >>> loop_printed(["for m in [a, b]: print(m)"]), loop_printed(["print(x)", "for m in (a, b):", "    print(m)"])
    (['a', 'b'], None)
    """
    prints = [k for k, t in enumerate(code) if re.search(r"(?<![\w.])print\(", t)]
    if not prints:
        return None
    for k, t in enumerate(code):
        m = _FOR_TUPLE_RE.match(t)
        if m is None:
            continue
        indent, var, names = len(m.group(1)), m.group(2), [x.strip() for x in m.group(3).split(",")]
        body = [k] if m.group(4).strip() else []
        j = k + 1
        while not body and j < len(code) and (not code[j].strip() or len(code[j]) - len(code[j].lstrip()) > indent):
            if code[j].strip():
                body.append(j)
            j += 1
        while body and j < len(code) and (not code[j].strip() or len(code[j]) - len(code[j].lstrip()) > indent):
            body.append(j)
            j += 1
        inside = [p for p in prints if p in body]
        if len(inside) != 1 or len(prints) != 1:
            return None
        pm = re.search(r"(?<![\w.])print\((.*)\)\s*;?\s*$", code[inside[0]])
        if pm is None or not re.search(rf"(?<![\w.]){var}(?!\w)", pm.group(1)) or "=" in pm.group(1) \
                or re.search(r"[\"']", pm.group(1)):
            return None
        return [re.sub(rf"(?<![\w.]){var}(?!\w)", n, pm.group(1)) for n in names]
    return None


_SQRT_DIV_RE = re.compile(r"^(.+?)\s*/\s*\(?\s*(?:(?:np|numpy|math|torch|jnp)\.)?sqrt\s*\(\s*[\w.\[\]-]+\s*\)\s*\)?$")


def assigned_step(code: list[str], name: str) -> str | None:
    """The step a variable a cell prints holds by the cell's last assignment to it, when its name says
    nothing (``scaled_dot_product_attention = (query_matrix @ key_matrix.T) / np.sqrt(d_model)``): a
    product of the queries and the keys transposed is the scores, divided by a square root the scaled
    scores. Rounding it in place (``x = np.round(x, 1)``) keeps what it holds.

    >>> assigned_step(["s = (query_matrix @ key_matrix.T) / np.sqrt(d_model)", "s = np.round(s, 1)"], "s")
    'scaled'
    >>> assigned_step(["s = np.matmul(q, k.T)"], "s"), assigned_step(["s = a @ b.T / np.sqrt(2)"], "s")
    ('scores', None)
    """
    rhs = None
    for t in code:
        m = re.match(rf"\s*{re.escape(name)}\s*=(?!=)\s*(.+?)\s*;?\s*$", re.sub(r"\s+#.*$", "", t))
        if m and _unrounded(m.group(1)) != name:
            rhs = m.group(1)
    if rhs is None:
        return None
    div = _SQRT_DIV_RE.match(rhs)
    core = div.group(1) if div else rhs
    core = core.strip()
    if core.startswith("(") and core.endswith(")") and core[1:-1].count("(") == core[1:-1].count(")"):
        core = core[1:-1].strip()
    m = _QK_CODE_RE.fullmatch(core)
    if m is None:
        return None
    a, b = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    if step_of_ident(a.split(".")[-1]) == "Q" and step_of_ident(b.split(".")[-1]) == "K":
        return "scaled" if div else "scores"
    return None


_T = r"(?:\.T|\.t\(\)|\.transpose\(\s*-?[012]\s*,\s*-?[012]\s*\))"
#: q @ k.T, np.matmul(q, k.T), torch.matmul(q, k.transpose(-2, -1)), q.dot(k.T)
_QK_CODE_RE = re.compile(rf"(?:(?:np|numpy|torch|jnp)\.(?:matmul|dot)\(\s*([A-Za-z_]\w*)\s*,\s*([A-Za-z_]\w*){_T}\s*\))|"
                         rf"([A-Za-z_]\w*)\s*(?:@\s*|\.(?:dot|matmul)\(\s*)([A-Za-z_]\w*){_T}\s*\)?")


def expr_step(expr: str) -> tuple[str | None, bool, str | None]:
    """What a printed expression is: (step, printed transposed, layout its weights imply).

    >>> expr_step("selfAttention.W_q.weight.transpose(0, 1)"), expr_step("attn.W_k.weight")
    (('Wq', False, 'row'), ('Wk', False, 'torch'))
    >>> expr_step("selfAttention.W_v(encodings_matrix)"), expr_step("attn_weights.round(3)")
    (('V', False, None), ('weights', False, None))
    """
    e = _unrounded(expr.strip())
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


#: subscripts that name a part or a variant of a matrix, not a token (Q_{proj}, K_{head}, V_{new})
_NOT_TOKEN_SUBSCRIPTS = {"proj", "head", "heads", "new", "old", "rot", "scaled", "in", "out", "model", "all", "init",
                         "sum", "avg", "mean", "norm", "total", "cat", "concat", "final", "ij", "t", "pos",
                         "cache", "past", "prev", "emb", "pe", "hat", "bar", "tilde", "contextual"}


def _subscript_token(before: str) -> str | None:
    """The token a per-token vector names by a word subscript of Q, K, V or X on the left of '=':
    'Q_{quickly} = […]' → quickly, 'K_dog = […]' → dog. One letter or digits (K_1, Q_i) are indices,
    not tokens; a subscript naming a part of the matrix (Q_{proj}) is none."""
    m = re.fullmatch(r"\s*\$?\\?(?:mathbf\{)?([QKVXqkvE])\}?_(?:\{\s*(?:\\text\{)?([A-Za-z][A-Za-z'-]+)\}?\s*\}|"
                     r"([A-Za-z][A-Za-z'-]+))(?:\s*\^\s*\{?\s*(?:T|\\top)\s*\}?|ᵀ)?\s*=\s*", before)
    if m is None:
        return None
    tok = m.group(2) or m.group(3)
    return None if tok.lower() in _NOT_TOKEN_SUBSCRIPTS else tok


def _subscript_step(before: str) -> str | None:
    """The step of a vector written 'Q_{quickly} = […]': Q, K, V or X (the letter), where the subscript
    names a token (see _subscript_token)."""
    letter = before.strip().lstrip("$\\").removeprefix("mathbf{")[0]
    return {"q": "Q", "k": "K", "v": "V", "E": "X"}.get(letter, letter) if _subscript_token(before) else None


_QUOTED_CELL = re.compile(r"([\"'“‘«])([^\"'“”‘’«»]{1,40})([\"'”’»])")


def unquoted_labels(rows: list[list[str]]) -> list[list[str]]:
    """A table's first column of quoted words ('"the"', “cat”) read as the words: the tokens are
    what is inside the quotes (as in a label 'Embedding for "the"').

    >>> unquoted_labels([['"the"', '[0.2, 0.8]'], ["“cat”", '[0.9, 0.1]']])
    [['the', '[0.2, 0.8]'], ['cat', '[0.9, 0.1]']]
    >>> unquoted_labels([['"the"', '1'], ['cat', '2']])  # not every label quoted: as printed
    [['"the"', '1'], ['cat', '2']]
    """
    firsts = [r[0].strip() for r in rows if r and r[0].strip()]
    if not firsts or not all(_QUOTED_CELL.fullmatch(c) for c in firsts):
        return rows
    return [[_QUOTED_CELL.fullmatch(r[0].strip()).group(2)] + r[1:]  # type: ignore[union-attr]
            if r and r[0].strip() else r for r in rows]


_GRID_ROW = re.compile(r"\s*\S[^\[\]]{0,40}\[[^\[\]]*\].{0,120}")


def grid_title(texts: list[str], k: int, n: int) -> str:
    """The title of a grid whose rows are labelled vectors under a header of n keys, the title on the
    line above the header, when line ``k`` is one of its rows::

        Scores matrix (who attends to whom):
                      "the"  "cat"  "sat"
            "the"  [  0.74,  0.32,  0.44 ]   ← a note
            "cat"  [  0.18,  0.74,  0.58 ]

    "" when there is no such title.

    >>> grid_title(['Weights:', '      "a"   "b"', '  "a" [0.3, 0.7]', '  "b" [0.5, 0.5]'], 3, 2)
    'Weights:'
    >>> grid_title(['Weights:', '  "a" [0.3, 0.7]'], 1, 2)
    ''
    """
    j = k - 1
    while j >= 0 and k - j <= 64 and _GRID_ROW.fullmatch(texts[j]):
        j -= 1
    if j < 1:
        return ""
    head = texts[j].strip()
    keys = quoted(head) or head.split()
    if len(keys) != n or "[" in head or re.search(r"\d", head.replace("_", "")) and not quoted(head):
        return ""
    title = texts[j - 1].strip()
    return title if 0 < len(title) <= 100 and "[" not in title else ""


def continued_chain_head(texts: list[str], k: int, role: str, roles: list[str]) -> str:
    """The left side of a chain of equalities continued over the lines before line ``k`` (each
    opening with '='), when its first line says ``NAME = …``; "" otherwise.

    >>> continued_chain_head(['Output for "cat" = 0.24 × V_the + 0.41 × V_cat', '    = 0.24 × [0.5, 0.3] + …',
    ...                       '    = [0.48, 0.55]'], 2, "code", ["code"] * 3)
    'Output for "cat"'
    >>> continued_chain_head(['Some text.', '= [1, 2]'], 1, "prose", ["prose"] * 2)
    ''
    """
    j = k - 1
    while j >= 0 and k - j <= 6 and roles[j] == role and texts[j].lstrip().startswith(("=", "≈")):
        j -= 1
    if j < 0 or k - j > 6 or roles[j] != role or "=" not in texts[j] or texts[j].lstrip().startswith(("=", "≈")):
        return ""
    head = texts[j].split("=")[0].strip(" \t:*`$")
    return head if head and "[" not in head and len(head) <= 60 else ""


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
    if re.fullmatch(r"[^\W\d_][\w'-]*", note.strip()) and not note.strip().isascii():
        return note.strip()  # '% 어제', '# 単語': a comment that is one word in any script names the row's token
    m = re.match(r"([A-Za-z<>][\w<>'-]*)(\s*\d)?", note.strip())
    if m and not m.group(2) and m.group(1).lower() not in ("word", "token", "row", "query", "key", "value",
                                                            "weights", "shape", "input", "dim", "e.g"):
        return m.group(1)
    return None


_INDEXED_ROW_RE = re.compile(r"(?:[-*•+]\s+|[,;]\s*)?[`*_$]*\s*\\?(q|k|v|x|query|key|value)_?\{?(\d{1,3})\}?\s*[`*_$]*\s*[=:]\s*[`$]*\s*")
_INDEXED_STEP = {"q": "Q", "k": "K", "v": "V", "x": "X", "query": "Q", "key": "K", "value": "V"}


def indexed_row(before: str) -> tuple[str, int, str] | None:
    """(step, index as written, name) when the text before a vector names it as one row of Q, K, V
    or X by a lower-case letter and an index (``q1 = ``, ``- `k_2 = ``, ``value3:``); the index
    counts from 1 unless the page counts from 0 (see :func:`zero_based`).

    >>> indexed_row("- `q1 = "), indexed_row("k_{2} ="), indexed_row("Q1 = "), indexed_row("w1 = ")
    (('Q', 1, 'q1'), ('K', 2, 'k_{2}'), None, None)
    """
    m = _INDEXED_ROW_RE.fullmatch(before)
    if not m:
        return None
    name = re.sub(r"[`*_$=:\s]+$", "", re.sub(r"^(?:[-*•+]\s+|[,;]\s*)?[`*_$\s]*\\?", "", m.group(0)))
    return _INDEXED_STEP[m.group(1)], int(m.group(2)), name


_NAME_DOT = r"(?:\.|·|⋅|\\cdot|\*|@|×|\bdot\b)"  # between two names: q1.k2, q1 · k2
#: what follows a dot product's first number when the products' sum is written out before the result:
#: " + 0.64 = 2.4625" (the result: the number after the last '=')
_SUM_THEN_RESULT_RE = re.compile(r"(?:\s*[+-]\s*(?:\d++(?:\.\d*+)?|\.\d+)){1,64}\s*=\s*([+-]?(?:\d++(?:\.\d*+)?|\.\d+))(?![\d.]*\s*[/*·⋅\[+-])")
_DOT_OP = r"(?:(?<=\s)\.(?=\s)|·|⋅|\\cdot|\*|@|×|\bdot\b)"  # beside a vector, a '.' only between spaces
#: the note that marks the vectors of a dot product written out (``[1, 0, 0] . [1, 1, 0]``)
DOT_OPERAND = "an operand of a dot product written out on the page"
#: the products of a dot product written out term by term: '1x1 + 0x0', '0.5 * 0.2 + 1 * 0.3' (possessive and
#: atomic: a long line of digits that ends in no result fails in linear time)
_PNUM_ATOM = r"[+-]?+(?:\d++(?:\.\d*+)?|\.\d++)"
_PRODUCT_TERMS = (r"(?>" + _PNUM_ATOM + r"\s*+[xX×*·]\s*+" + _PNUM_ATOM +
                  r"(?:\s*+[+-]\s*+\(?" + _PNUM_ATOM + r"\)?\s*+[xX×*·]\s*+\(?" + _PNUM_ATOM + r"\)?){0,63}+)")


def dot_operand(before: str, after: str) -> bool:
    """Whether a vector is a factor of a dot product written out: another vector follows (or
    precedes) it across a product sign, ``[1, 0, 0] . [1, 1, 0] = 1``.

    >>> dot_operand("q1 . k1 = ", " . [1, 1, 0] = 1"), dot_operand("q1 . k1 = [1, 0, 0] . ", " = 1"), dot_operand("x = ", ".")
    (True, True, False)
    """
    return bool(re.match(r"\s*" + _DOT_OP + r"\s*\[", after) or re.search(r"\]\s*" + _DOT_OP + r"\s*$", before))


def dot_operand_name(before: str) -> tuple[str, int, str] | None:
    """(step, index as written, name) of a dot product's vector from the names written before it:
    ``q1 . k2 = `` names the first vector q1, ``q1 . k2 = [1, 0, 0] . `` the second k2.

    >>> dot_operand_name("`q1 . k2 = "), dot_operand_name("q1 . k2 = [1, 0, 0] . "), dot_operand_name("a . b = ")
    (('Q', 1, 'q1'), ('K', 2, 'k2'), None)
    """
    m = re.search(r"(?<![\w\\])(q|k|v|x)_?\{?(\d{1,3})\}?\s*" + _NAME_DOT + r"\s*(q|k|v|x)_?\{?(\d{1,3})\}?"
                  r"(?:\^\{?(?:T|\\top)\}?|ᵀ)?\s*=\s*(\[[^\[\]]*\]\s*" + _DOT_OP + r"\s*)?$", before)
    if not m:
        return None
    a, i = (m.group(3), m.group(4)) if m.group(5) else (m.group(1), m.group(2))
    return _INDEXED_STEP[a], int(i), f"{a}{i}"


def prose_sentence(text: str) -> list[str] | None:
    """The words of an example sentence quoted in prose: 'on the sentence "The cat sat"'.

    >>> prose_sentence('We follow one word, on the sentence "The cat sat".'), prose_sentence('a "quoted" word')
    (['The', 'cat', 'sat'], None)
    """
    m = re.search(r"\b(?:sentence|phrase|input\s+text|sequence)\s*:?\s*[\"“]([^\"”\n]{1,300})[\"”]", text, re.I)
    if not m:
        return None
    words = [w.strip(".,;:!?\"()") for w in m.group(1).split()]
    words = [w for w in words if w]
    return words if 1 < len(words) <= 64 else None


_NUM = r"[+-]?(?:\d++(?:\.\d*+)?|\.\d+)(?:[eE][+-]?\d+)?"
#: the note that marks a vector written as a number times a vector (``0.5 * [2, 8, 0] = [1.0, 4.0, 0.0]``)
SCALAR_PRODUCT = "a number times a vector, written out on the page"


#: a times sign between a number and a vector: '*', '×', '·', or a letter x between spaces ('0.6697 x [2,0]')
_TIMES_NUM = r"\s*(?:[*×·]|(?<=\s)[xX](?=\s))\s*"


def scalar_factor(before: str) -> bool:
    """Whether a vector is multiplied by a number written just before it: ``2: 0.5 * [``, ``0.25 x [``.

    >>> scalar_factor("2: 0.5 * "), scalar_factor("x * "), scalar_factor("[1, 2] * "), scalar_factor("= 0.25 x ")
    (True, False, False, True)
    >>> scalar_factor("0.25x ")
    False
    """
    return bool(re.search(r"(?<![\w.\]])" + _NUM + _TIMES_NUM + r"$", before))


def scalar_product(before: str, n: int) -> list[str] | None:
    """The products a vector is the result of, when the text before it is ``p * [v1, …, vn] =``:
    ``["p * v1", …]``.

    >>> scalar_product("2: 0.5 * [2, 8, 0] = ", 3), scalar_product("0.5 * [2, 8] = ", 3)
    (['0.5 * 2', '0.5 * 8', '0.5 * 0'], None)
    >>> scalar_product("Output = 0.5*[1,0] + 0.5*[0,1] = ", 2)
    """
    m = re.search(r"(?<![\w.\]])(" + _NUM + r")" + _TIMES_NUM + r"\[([^\[\]]*)\]\s*=\s*$", before)
    if not m or re.search(r"[+]\s*$", before[: m.start()]):
        return None  # '0.5*[1,0] + 0.5*[0,1] = [0.5,0.5]': the result of the sum, not of its last term
    vec = [x.strip() for x in m.group(2).split(",")]
    if len(vec) != n or not all(re.fullmatch(_NUM, x) for x in vec):
        return None
    return [f"{m.group(1)} * {x}" for x in vec]


#: a bullet or list marker before a label ("•\tRow 0: […]", "- softmax: […]")
_LIST_MARK = r"\s*(?:[-*•·+]\s*)?"
_ZERO_INDEX = re.compile(r"(?<![\w\\])(?:q|k|v|x|query|key|value)_?\{?0\}?(?!\w)\s*(?:=|:|\.|·|⋅|\*|@|×|\\cdot)"
                        r"|(?<!\w)(?:ROW|[Rr]ow)\s*#?\s*0\s*:")


def zero_based(lines: list[Line]) -> bool:
    """Whether a page counts its rows from 0 (``q0 = […]``, ``q0 · k1``): then q1 is the second row.

    >>> from symattn.read.pages.model import Line, Where
    >>> zero_based([Line("- `q0 = [1, 0]`", Where(1))]), zero_based([Line("- `q1 = [1, 0]`", Where(1))])
    (True, False)
    >>> zero_based([Line("• Row 0: [0.7, 2.1]", Where(1))]), zero_based([Line("Row 1: [0.7, 2.1]", Where(1))])
    (True, False)
    """
    return any(_ZERO_INDEX.search(ln.text) for ln in lines)


def softmax_result(before: str) -> bool:
    """Whether a vector is what softmax of a written-out row (or of the scores) gives:
    ``softmax([2, 4, 4]) = ``, ``softmax(scores) ≈ ``; not ``softmax(QKᵀ)·V = ``.

    >>> softmax_result("softmax([2, 4, 4]) = "), softmax_result("`softmax(scores) ≈ "), softmax_result("softmax(s) V = ")
    (True, True, False)
    """
    m = re.search(r"\bsoft-?max\s*\(\s*(\[[^\[\]]*\]|[A-Za-z_]\w*)\s*\)\s*(?:=|≈)\s*$", before, re.I)
    return bool(m and (m.group(1).startswith("[") or step_of_ident(m.group(1)) in ("scores", "scaled", "masked")))


def softmax_argument(before: str, after: str) -> bool:
    """Whether a list written in prose is the argument of softmax: ``softmax([0.577, 0.577, 0])``.

    >>> softmax_argument("`softmax(", ")`"), softmax_argument("softmax = ", "")
    (True, False)
    """
    return bool(re.search(r"\bsoft-?max\}?\s*\(\s*$", before, re.I) and re.match(r"\s*\)", after))  # (\text{softmax}(…))


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


_TRIPLE_AND = r"\s*(?:,\s*(?:and\s+)?|\s+and\s+)"
_TRIPLES = [(re.compile(rf"(?<![\w.])([A-Z][a-z]{{1,15}}){_TRIPLE_AND}K{_TRIPLE_AND}V(?![\w.])"), "Q"),
            (re.compile(rf"(?<![\w.])Q{_TRIPLE_AND}([A-Z][a-z]{{1,15}}){_TRIPLE_AND}V(?![\w.])"), "K"),
            (re.compile(rf"(?<![\w.])Q{_TRIPLE_AND}K{_TRIPLE_AND}([A-Z][a-z]{{1,15}})(?![\w.])"), "V")]


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
    >>> symbol_definitions([Line(r"### Scaling: $S=\\dfrac{S_{\\mathrm{raw}}}{\\sqrt{d_k}}$", Where(1), "heading")])
    {'S': 'scaled'}
    """
    out: dict[str, str] = {}
    for ln in lines:
        if ln.role == "heading":  # '### 1-3-3 Scaling: $S=\dfrac{S_{raw}}{\sqrt{d_k}}$': a heading's inline math
            texts = re.findall(r"\$([^$]{1,200})\$", ln.text)
        elif ln.role in ("math", "code"):
            texts = [ln.text]
        else:
            continue
        for m in (m for t in texts for m in _DEF_RE.finditer(t)):
            sym, rhs = m.group(1), m.group(2)
            step = _formula_step(rhs)
            if step is None:
                continue
            known = step_of_ident(sym)
            if known is None or known == step or (known in _FAMILY and step in _FAMILY):
                out.setdefault(sym, step)
    return out


_QK_RE = re.compile(r"Q\s*(\\cdot|·|@|\*)?\s*\{?K\}?\s*(\^\s*\{?\s*(T|\\top|\\intercal|⊤)|ᵀ|\.T)|QK\^")
_SCORES_SYMBOL = r"(?:\{\s*)?(?:S(?:_\{*\s*raw\s*\}*)?|QK\^\{?(?:T|\\top)\}?)(?:\s*\})?"


def _formula_step(rhs: str) -> str | None:
    """The step a formula computes: ``softmax(…)`` the weights (``softmax(…)V`` the output),
    ``QKᵀ/√d_k`` the scaled scores, ``QKᵀ`` the scores; ``S/√d_k`` and ``S/2`` (S the scores
    symbol divided by a root or a number) the scaled scores.

    >>> [_formula_step(t) for t in (r"\\frac{QK^\\top}{\\sqrt{d_k}}", r"\\frac{S}{2}", r"\\text{softmax}(S)V", r"Q K^T")]
    ['scaled', 'scaled', 'output', 'scores']
    >>> _formula_step(r"\\frac{\\mathbf{Q}\\mathbf{K}^\\top}{\\sqrt{2}}"), _formula_step(r"\\frac{Q_1K_1^T}{\\sqrt{2}}")
    ('scaled', 'scaled')
    >>> _formula_step(r"\\mathrm{Attention}(Q, K, V)"), _formula_step("attention weights")
    ('output', None)
    """
    r = re.sub(r"\\(?:mathbf|boldsymbol|bm|mathrm|mathit)\s*\{([A-Za-z])\}", r"\1", rhs)  # \mathbf{Q}\mathbf{K}: QK
    r = re.sub(r"(?<![A-Za-z])([QK])'*_\{?\w{1,3}\}?(?=\s*\\?[KT^{}]|\s*\^)", r"\1", r)  # Q_1K_1^T: one head's QKᵀ
    r = re.sub(r"\\(mathrm|text|operatorname|mathbf)\s*", "", r)
    if re.search(r"(?<![A-Za-z])(?:attention|attn)\s*\}?\s*(?:\\left)?\(\s*[^(),]+,[^(),]+,[^(),]+\)", r, re.I):
        return "output"  # Attention(Q, K, V)
    qk = _QK_RE.search(r)
    if re.search(r"soft-?max", r, re.I):
        return "output" if re.search(r"\)\s*(\\cdot|·|@|\*)?\s*V\b", r) else "weights"
    if qk and re.search(r"sqrt|√|\\sqrt|\*\*\s*-?0?\.5", r):
        return "scaled"
    if qk:
        return "scores"
    frac = re.fullmatch(r"\s*\\[dt]?frac\s*\{\s*" + _SCORES_SYMBOL + r"\s*\}\s*\{\s*(\\sqrt\s*\{[^{}]{1,20}\}|√\s*\w+|\d+(?:\.\d+)?)\s*\}\s*", r) \
        or re.fullmatch(r"\s*" + _SCORES_SYMBOL + r"\s*/\s*(\\sqrt\s*\{[^{}]{1,20}\}|√\s*\w+|\d+(?:\.\d+)?)\s*", r)
    return "scaled" if frac else None


def _last_clause(tex: str) -> str:
    """The text after the last separator outside brackets (``,``, ``;``, ``\\quad``, ``\\qquad``).

    >>> _last_clause(r"A = softmax(Q, K)V, \\quad Q = "), _last_clause(r"\\frac{S}{2} = ")
    (' Q = ', '\\\\frac{S}{2} = ')
    """
    depth = 0
    k = len(tex)
    while k > 0:
        k -= 1
        ch = tex[k]
        if ch in ")}]":
            depth += 1
        elif ch in "({[":
            depth -= 1
        elif depth <= 0 and (ch in ",;" or tex.startswith("\\quad", k) or tex.startswith("\\qquad", k)):
            return tex[k:].lstrip(",;").removeprefix("\\qquad").removeprefix("\\quad")
    return tex


def chain_step(before: str) -> str | None:
    """The step a display's ``=`` chain names when its left-hand side is an expression,
    not a name: ``\\tilde{S} = \\frac{S}{\\sqrt{d_k}} = \\frac{S}{2} =`` is the scaled scores,
    ``softmax(\\frac{Q K^T}{\\sqrt{4}}) =`` the weights. The last formula of the chain that
    computes a step names it; None when none does.

    >>> chain_step(r"\\tilde{S} = \\frac{S}{\\sqrt{d_k}} = \\frac{S}{2} = ")
    'scaled'
    >>> chain_step(r"The weights: $$\\text{softmax}\\left(\\frac{Q \\cdot K^T}{\\sqrt{4}}\\right) = ")
    'weights'
    >>> chain_step("Q = "), chain_step(r"S = QK^\\top = ")
    (None, 'scores')
    """
    b = before.rstrip()
    if not b.endswith(("=", "\\approx", "≈")) or len(b) > 400:
        return None
    b = re.split(r"\$\$?|\\\(|\\\[|\\end\{[A-Za-z*]+\}", b)[-1]  # the display's own text
    b = _last_clause(b)  # 'softmax(…)V, \quad Q =': only what follows the last separator names it
    parts = [x for x in re.split(r"=|\\approx|≈", b)[:-1] if x.strip()]
    for part in reversed(parts):
        step = _formula_step(part)
        if step:
            return step
    return None


_ROW_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8}


_ROW_SUM_LINE_RE = re.compile(r"\s*[-•*]?\s*(?:the\s+)?sum\s+(?:of|over)\s+(?:the\s+)?(?:(\d{1,3}(?:st|nd|rd|th)|first|second|"
                              r"third|fourth|fifth|sixth|seventh|eighth)\s+row|row\s+#?(\d{1,3}))"
                              r"(?:\s+of\s+(?:the\s+)?(?:attention\s+)?weights)?\s*[:=]\s*([+-]?(?:\d++(?:\.\d*+)?|\.\d+))\s*", re.I)


def row_sum_line(text: str) -> tuple[int, str] | None:
    """(1-based row, sum as printed) of a line that prints the sum of one row of the weights.

    >>> row_sum_line("Sum of first row: 1.0000"), row_sum_line("sum of row 3 = 1.0"), row_sum_line("Sum: 1")
    ((1, '1.0000'), (3, '1.0'), None)
    """
    m = _ROW_SUM_LINE_RE.fullmatch(text)
    if not m:
        return None
    n = (m.group(1) or "").lower()
    row = _ROW_ORDINALS.get(n) or int(re.sub(r"\D", "", n or m.group(2)))
    return (row, m.group(3)) if row >= 1 else None


def _row_of(before: str) -> tuple[str, int] | None:
    r"""(step, 1-based row) when the text just before a vector says which row of which matrix it
    is: 'row 2 of Q =', 'the 3rd row of K:', 'second row of \\(V\\) ='; None otherwise.

    >>> _row_of("Look at the Query of ring (row 2 of Q \\(="), _row_of("the second row of K: "), _row_of("row 2: ")
    (('Q', 2), ('K', 2), None)
    """
    m = re.search(r"\brow\s+(\d{1,3})\s+of\s+(?:the\s+)?(?:matrix\s+)?\$?(?:\\\()?\s*([A-Za-z][\w^{}\\]{0,20}?)\s*"
                  r"(?:\\\)|\$)?\s*(?:\\\(\s*)?[=:]?\s*$", before, re.I) or \
        re.search(r"\b(?:the\s+)?(\d{1,3}(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth)\s+row\s+of\s+"
                  r"(?:the\s+)?(?:matrix\s+)?\$?(?:\\\()?\s*([A-Za-z][\w^{}\\]{0,20}?)\s*(?:\\\)|\$)?\s*(?:\\\(\s*)?[=:]?\s*$",
                  before, re.I)
    if not m:
        return None
    n = m.group(1).lower()
    row = _ROW_ORDINALS.get(n) or int(re.sub(r"\D", "", n))
    step = step_of_ident(m.group(2))
    if row < 1 or step not in ("X", "Q", "K", "V", "scores", "scaled", "weights", "output"):
        return None
    return step, row


def _softmax_argument(before: str, after: str) -> bool:
    """Whether the text around a vector makes it what softmax is applied to (its scores), not
    its result: 'Put [1, 0] through softmax', 'feed [2, 1] into the softmax', 'softmax of [1, 0]'.

    >>> _softmax_argument("Step 2: Put ", " through softmax"), _softmax_argument("the softmax of ", "")
    (True, True)
    >>> _softmax_argument("Softmax(1,0) ≈ ", "."), _softmax_argument("softmax weights: ", "")
    (False, False)
    """
    return bool(re.match(r"\s*(?:through|into|to)\s+(?:the\s+|a\s+)?soft-?max\b", after, re.I)
                or re.search(r"\bsoft-?max\s+(?:of|applied\s+to|over)\s+(?:the\s+)?(?:scores?\s+)?$", before, re.I))


def _sum_term(before: str, after: str) -> bool:
    """Whether a vector written between ``before`` and ``after`` on its line is a term of a sum or
    a number times a vector (``0.731*[10,0] + …``, ``… + [0,5.38] =``), not a result.

    >>> _sum_term("Output = 0.731*", " + 0.269*[0,20]"), _sum_term("= [7.31, 0] + ", " = [7.31, 5.38]")
    (True, True)
    >>> _sum_term("Output = [7.31, 0] + [0,5.38] = ", "."), _sum_term("Q = ", ", K = [1, 0]")
    (False, False)
    """
    return bool(re.search(r"(?:\d\.?\s*(?:\\?[*×·]|\\cdot|\\times)|\+)\s*$", before) or re.match(r"\s*\+", after))


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
        self.base = 1 if zero_based(page.lines) else 0  # added to an index written in a name (q0 → row 1)
        self.percent_lines: set[int] = set()  # lines whose percentages were read as decimals

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
            if JULIA_HEADER_RE.fullmatch(t):  # '3×4 Matrix{Float64}:' under the label: the printout's type
                k -= 1
                continue
            if k in self.block_lines and not t.startswith(("#",)) and not re.fullmatch(r"\d{1,3}", t):
                if ln.role != "code":
                    break
            if t and (not re.fullmatch(r"[=×xX*·\-–—]+|\$\$|\\\[|\\\]|```\w*", t) or (
                    ln.role == "heading" and heading_symbol_step(t))):  # '### X': a symbol, not a times sign
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
        if texts and texts[0][1] >= 2 and ROW_SUMS_RE.search(texts[0][0]):
            return texts[0]  # "Sum of each row:" just above: the sums, though a heading names the weights
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

    def math_lhs(self, start: int) -> str:
        """The left side of the equation a display-math block ends: the text before the first '=' of
        the display's lines above it (a chain ``Name = … = [[…]] = [[…]]``), or ""."""
        top = ""
        k = start - 1
        while k >= 0 and start - k <= 20 and self.lines[k].role == "math" and self.lines[k].text.strip():
            if "=" in self.lines[k].text:
                top = self.lines[k].text
            k -= 1
        lhs = top.split("=")[0].strip()
        lhs = re.sub(r"\\(?:text|mathrm|textbf|mathbf|operatorname)\{([^{}]*)\}", r"\1", lhs).strip()
        return lhs if 0 < len(lhs) <= 60 and "[" not in lhs else ""

    def heading_text(self, start: int, text: str) -> bool:
        """Whether ``text`` is the nearest heading above line ``start`` (blank lines between)."""
        k = start - 1
        while k >= 0 and start - k <= 4 and not self.lines[k].text.strip():
            k -= 1
        return k >= 0 and self.lines[k].role == "heading" and self.lines[k].text.strip() == text.strip()

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
        heads = self._step_heading_lines()
        i = bisect.bisect_left(heads, start) - 1  # the last such line above start, each line read once a page
        return self.lines[heads[i]].text.strip() if i >= 0 and heads[i] >= stop else ""

    def _step_heading_lines(self) -> list[int]:
        """The lines (in page order) that :meth:`heading_above` takes as a heading naming a step."""
        if getattr(self, "_step_heads", None) is None or self._step_heads[0] is not self.lines:
            out = []
            for k, ln in enumerate(self.lines):
                t = ln.text.strip()
                if ln.role == "heading" or (ln.role == "prose" and len(t) <= 60 and (
                        re.match(r"(step\s*\d+|\d+(\.\d+)*[.)]?\s)", t, re.I) or len(t.split()) <= 3)):
                    if step_of_text(t):
                        out.append(k)
            self._step_heads = (self.lines, out)
        return self._step_heads[1]

    # -- blocks --
    def shape_header(self, b: Numbers) -> str:
        """The name a printout gives in a header ``NAME shape: (2, 3)`` on the line before it (blank
        lines between): ``display_tensor``-style helpers print the shape, then the values."""
        k = b.start - 1
        while k >= 0 and k >= b.start - 3 and not self.lines[k].text.strip():
            k -= 1
        if k < 0 or self.lines[k].where.cell != b.where[0].cell:
            return ""
        m = _SHAPE_HEADER.fullmatch(self.lines[k].text.strip())
        return m.group(1).strip() if m else ""

    def numbers(self, b: Numbers) -> None:
        label, ident, transposed = _label_before(b.before, b.role)
        if label.strip() in ("≈", "~") and b.depth == 1 and re.fullmatch(r"\s*[≈~]\s*", b.before):
            label = ""  # '≈ [4.2, 5.3]' under 'output = 0.51[…] + …': the chain's rounded end (see below)
        if not label and b.depth == 1 and re.fullmatch(r"\s*[=≈~]\s*", b.before):
            # 'Output for "cat" = 0.24 × V_the + …' / '= 0.24 × [0.5, 0.3] + …' / '= [0.48, 0.55]': a chain
            # continued on lines that open with '=' ends in what its first line's left side names
            label = continued_chain_head([ln.text for ln in self.lines], b.start, b.role,
                                         [ln.role for ln in self.lines])
        chained = label if label and not b.before.strip(" =") else ""
        header = self.shape_header(b) if not b.before.strip() else ""
        if header:
            label, ident = header, None
        if getattr(b, "batches", None):
            it = Item(rows=b.rows, where=b.where, line=b.start, end=b.end, role=b.role, form=b.form,
                      suffix=b.suffix, label=label)
            it.batches = len(b.batches)  # type: ignore[attr-defined]
            it.stack = [[list(r) for r in m] for m in b.batches]  # type: ignore[attr-defined]
            it.kind = "stack"
            it.outer = getattr(b, "outer", 1)  # a 4-D printout: its batch items, each a stack of heads
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
        brows = b.rows
        if "percent" in kinds:  # [73%, 27%]: each the decimal it is, with its digits
            brows = [[from_percent(x) or x for x in r] for r in b.rows]
            label = (label + " " if label else "") + "(printed as percentages: 73% is 0.73)"
            kinds = {entry_kind(x) for r in brows for x in r}
        times = scalar_times(b.before, b.after or "", brows) if b.depth == 2 and kinds == {"number"} else None
        if times is not None:  # W^O = ½ · [[1, 0, 1, 0], …]: the matrix is the product, entry by entry
            brows, factor = times
            label = (label + " " if label else "") + f"(the page writes {factor} times the matrix)"
        it = Item(rows=[list(r) for r in brows], where=list(b.where), line=b.start, end=b.end, role=b.role,
                  form=b.form, suffix=b.suffix, transposed=transposed, after=b.after, before=b.before)
        it.kind = "scalar" if b.depth == 0 or (b.form == "rows" and b.shape == (1, 1)) else \
            ("vector" if b.depth == 1 else "matrix")
        if "expr" in kinds:
            it.exprs = it.rows
            it.operand = True
        step = self.symbols.get(ident or "") or _ident_step(ident)
        product = b.role == "math" and bool(label) and ident is None and _product_lhs(b.before) is not None
        if not step and product:
            step = product_step(label)  # Q K^T = [[…]]: the scores; A \times V = […]: the output
        if not step and ident and it.kind == "vector" and indexed_name(ident):
            step = indexed_name(ident)[0]  # type: ignore[index]  # K1 = [1, 0]: a row of K (row_index below)
        strength = 3 if step else 0
        formula = chain_step(b.before) if b.form == "latex" else None
        if formula and (not step or "(" in (label or "") or _defined_as_computed(step, formula, ident, self.symbols)):
            # softmax(\frac{QK^T}{\sqrt{4}}) = [..], \mathrm{Attention}(Q, K, V) = [..]: the formula names it
            step, strength = formula, 3
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
        factor = product_factor(b.before, b.after or "") if it.kind == "matrix" and b.role != "code" and not glued \
            and not proj else None
        if factor:  # Q = [ … ] × [ … ]: the name is the product's; the matrices are its factors
            step, strength, label, ident = factor[1], 2 if factor[1] else 0, "", None
            it.operand = factor[1] is None
            it.notes.append(FACTOR_NOTE)

        dot = dot_phrase_step(header) if header and not step else None
        if dot is not None:  # query dot key shape: (2, 2)
            step, strength, aside = dot[0], 2 if dot[0] else 0, aside or dot[1]
        if not aside and plain_mean(label):
            aside = "a plain (unweighted) mean, set beside attention's weighted one: no step holds it"
            step, strength = None, 0
        if not step and not aside and pre_bias_product(ident):
            aside = "the product X·W before the bias is added (the page's own name for it): no step holds it"
        if step in ("bq", "bk", "bv") and len(brows) > 1 and all(r == brows[0] for r in brows) and not aside:
            aside = "the bias repeated on every row (broadcast): it restates the bias vector"
            step, strength = None, 0
        if not step and b.role == "math" and b.before.strip() in ("", "=") and not aside:
            lhs = self.math_lhs(b.start)
            st = (step_of_ident(lhs) or step_of_text(lhs)) if lhs else None
            if st:  # Final Output = Combined @ W^O = [[(a+b)/2 …]] = [[0.50 …]]: the equation's left side names it
                step, strength, label = st, 2, lhs
        if not step and label and not aside and not product:  # (a product's words name a factor, not it)
            step = step_of_text(label)
            strength = 2 if step else 0
        gridded = False
        if not step and it.kind == "vector" and not aside and b.end == b.start and label:
            title = grid_title([ln.text for ln in self.lines], b.start, len(b.rows[0]) if b.rows else 0)
            if title and step_of_text(title):  # a row of a titled grid of labelled vectors under its keys
                step, strength, gridded = step_of_text(title), 2, True
        if not step and re.fullmatch(r"(?:expected(?:\s+output)?|returns?|result|answer|output)\s*[:=≈→]*",
                                     b.before.strip(), re.I) and b.start > 0 and \
                re.search(r"\b(?:scaled_dot_product_|self_)?attention\w*\s*\(", self.lines[b.start - 1].text, re.I):
            step, strength, label = "output", 2, b.before.strip(" :=≈→")  # attention(…) on the line above, then its result
        if it.kind == "vector" and not glued and not proj and not aside and _subscript_token(b.before):
            # Q_{quickly} = [0.22, 0.64, 0.73]: the letter names the step, the word subscript the token
            step, strength, label = step or _subscript_step(b.before), 3, label or b.before.strip(" =$")
        it.label = label
        if it.kind == "vector" and label and not glued:
            tok = _subscript_token(b.before) or _token_of(label if "=" not in b.before else
                                                          _next_clause_head(b.before) or b.before.split("=")[0])
            if tok and (tok != ident or not step):
                it.token = tok
            if chained and it.token is None and it.label == chained:
                it.token = _token_of(chained)
            if gridded and it.token is None:
                it.token = _token_of(label)  # the row's label is its token; the grid's title its step
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
        # a label read off the very code that printed the block ('attention(q, k, v, mask=…)[0]' naming it
        # "scaled" scores) yields to what that code printed
        # a label read off the very code that printed the block ('attention(q, k, v, mask=…)[0]' naming it
        # "scaled" scores), or a context label from far above the code ("v : The values." in a docstring),
        # yields to what that code printed; a label printed with the block ("S = QK^T/sqrt(d_k) :") does not
        yields = False
        rounded: tuple[str, str] | None = None
        if step and strength <= 2 and b.role == "output" and label and label.strip(" :="):
            code = " ".join(self.code_before(b)[0])
            near = code + " ".join(ln.text for ln in self.lines[max(0, b.start - 2):b.end + 1])
            bare_code = re.sub(r"([\"']).*?\1", "", code)  # a caption the code prints is a label of its own
            yields = label.strip(" :=") in bare_code if strength == 2 else label.strip(" :=") not in near
        if (not step or yields) and b.role == "output" and not compare:
            # the variable the code printed names it better than the text printed beside it (or a label
            # found only in the context above the code, "v : The values." in a docstring)
            name = self.printed_name(b)
            found = False
            # np.round(out, 4): the rounding prints what it rounds (read after any caption printed with it)
            bare = re.sub(r"^(?:np|numpy|torch)\.round\(\s*([A-Za-z_]\w*)\s*(?:,[^()]*)?\)$", r"\1", name or "")
            if name:
                st, flipped, layout = expr_step(name)
                if st is None and len(b.rows) > 1 and re.search(r"\w\[\s*0\s*\]", name):
                    # print(output[0].detach().numpy()) under a matrix: the first (only) sample of a batch
                    st, flipped, layout = expr_step(re.sub(r"(\w)\[\s*0\s*\]", r"\1", name, count=1))
                if re.fullmatch(r"[A-Za-z_]\w*", bare) and unpacked_output(self.code_before(b)[0], bare):
                    st, flipped, layout = "output", False, None  # values, attention = scaled_dot_product(q, k, v)
                if st in (None, "scores", "scaled") and re.fullmatch(r"[A-Za-z_]\w*", _unrounded(name)):
                    # s = (q @ k.T) / np.sqrt(d): what the cell assigns says which scores (S names either)
                    told = assigned_step(self.code_before(b)[0], _unrounded(name))
                    if told:
                        st, flipped, layout = told, False, None
                if not st and (attention_call(name) or first_result(name)):
                    st, flipped, layout = "output", False, None  # DotProductAttention(q, k, v, mask)
                if not st and re.fullmatch(r"[A-Za-z_]\w*", bare) and unpacked_weights(self.code_before(b)[0], bare):
                    st, flipped, layout = "weights", False, None  # out, w = scaled_dot_product_attention(q, k, v)
                if st:
                    step, strength, it.label, found = st, 3, name, True
                    it.transposed = False if layout else (is_transposed(name) or flipped)
                    if layout:
                        it.layout = layout
                elif not it.label.strip() and fused_name(name):
                    it.label = name  # print(qkv): a fused product, split into Q, K and V later
            if not found:
                own = self.output_label(b)
                if own:
                    st = step_of_ident(own.strip(" :")) or step_of_text(own)
                    if st:
                        step, strength, it.label, found = st, 2, own, True
                        it.transposed = it.transposed or is_transposed(own)
            if not found and bare != name and expr_step(bare)[0]:
                rounded = (expr_step(bare)[0], name)
                if yields:  # over a label from far above; else the words just above it speak first
                    step, strength, it.label = rounded[0], 3, name
        it.aside = aside
        if not step and not compare and not aside and not product:
            ctx, s = self.context_label(b.start)
            if ctx:
                it.label = (label + " " if label else "") + ctx if not label else label
                st = step_of_ident(ctx.strip(" :")) or step_of_text(ctx[-160:])
                if st in ("Q", "K", "V") and names_qkv_together(ctx[-160:]):
                    st = None  # "Queries, keys and values for all words": which of them the numbers say
                if st:
                    step, strength = st, min(s, 2)
                    if not label:
                        it.label = ctx
                    if not transposed and is_transposed(ctx):
                        it.transposed = True
        if not step and rounded:
            step, strength, it.label = rounded[0], 3, rounded[1]
        if b.suffix:
            g = re.search(r"grad_fn=<(\w+?)Backward", b.suffix)
            if g and not step:
                step = {"Softmax": "weights", "Div": "scaled", "MaskedFill": "masked"}.get(g.group(1))
                strength = 1 if step else 0
        if not step:
            names = [ident, label] + ([self.printed_name(b)] if b.role == "output" else []) + [self.context_label(b.start)[0]]
            it.grad = next((g for g in (grad_of(n) for n in names if n) if g), None)
        rowlab = re.fullmatch(_LIST_MARK + r"(?:row|query|position|token|word)\s*#?\s*(\d{1,3})\s*[:=]?\s*", b.before, re.I)
        if rowlab and it.kind == "vector":
            # "Row 2: [0.0, 4.0, 2.0]" then "exp: […]" and "softmax: […]": the worked rows of one query
            self.last_row = (b.start, int(rowlab.group(1)) + self.base)
            it.label, label = b.before.strip(" :="), b.before.strip(" :=")
            if strength >= 2 and not step_of_text(label):
                strength = 1
        elif it.kind == "vector" and getattr(self, "last_row", None) and 0 < b.start - self.last_row[0] <= 3 \
                and re.fullmatch(_LIST_MARK + r"(?:exp|e\^?x|exponentials?|softmax|weights?|probabilities)\s*(?:[:=]|=>|→|->)?\s*",
                                 b.before, re.I):
            it.row_index = self.last_row[1]
            if re.match(r"\s*(?:exp|e\^?x|exponentials?)\b", b.before, re.I):
                step, strength = None, 0  # exp(·) of a row: no step of the derivation holds it
                it.notes.append("the exponentials of a row of scores: no step holds them")
        if compare and not step:
            step, strength = "X", 1  # the embedding the line compares with: an input printed again
        row_of = _row_of(b.before) if it.kind == "vector" else None
        if row_of:  # '(row 2 of Q = [0, 1, 1, 0])': that row of that matrix
            step, strength, it.row_index = row_of[0], 3, row_of[1]
            it.token = None
        if it.kind == "vector" and strength < 3 and _softmax_argument(b.before, b.after):
            step, strength = "scores", 2  # 'Put [1, 0] through softmax': what softmax is applied to
        if it.kind == "vector" and b.role != "code" and _sum_term(b.before, b.after):
            # 'Output = 0.731*[10,0] + 0.269*[0,20] = [7.31, 0] + [0,5.38] = [7.31, 5.38]': a term
            # (or a weight times a vector) is not what the line's name names; the last vector is
            step, strength, it.operand = None, 0, True
            it.notes.append(SUM_TERM_NOTE)
        if step in ("scores", "scaled", "masked", "weights") and re.search(r"Q\s*[·.*@×]?\s*K", label or ""):
            it.transposed = False  # QKᵀ names the scores; its ᵀ is K's
        indexed = indexed_row(re.split(r"[\])]", b.before)[-1]) if it.kind == "vector" else None
        if indexed:  # the row it is, counted from 1 (q0 is the first row on a page that counts from 0)
            indexed = (indexed[0], indexed[1] + self.base, indexed[2]) if indexed[1] + self.base >= 1 else None
        if indexed:  # "- `q1 = [1, 0, 0]`": the first row of Q, named by its index
            step, strength, it.token, it.label = indexed[0], 3, None, indexed[2]
            it.notes.append(f"{indexed[2]}: row {indexed[1]} of {indexed[0]}")
        if it.kind == "vector" and dot_operand(b.before, b.after):
            # "q1 . k1 = [1, 0, 0] . [1, 1, 0] = 1": the vectors of a dot product written out (its
            # result is the number at the end of the line), not a result themselves
            step, strength, it.token, it.operand = None, 0, None, True
            it.notes.append(DOT_OPERAND)
            named = dot_operand_name(b.before)
            named = (named[0], named[1] + self.base, named[2]) if named and named[1] + self.base >= 1 else None
            if named:  # q1 . k1 = [1, 0, 0] . [1, 1, 0]: the rows the expression names
                step, it.row_index, it.label = named[0], named[1], named[2]
        if it.kind == "vector" and scalar_factor(b.before):
            # "0.5 * [2, 8, 0] = [1.0, 4.0, 0.0]": the vector a weight multiplies (a value row)
            step, strength, it.token, it.operand = None, 0, None, True
            it.notes.append("a vector a number multiplies, written out on the page")
        scaled_row = scalar_product(b.before, len(b.rows[0]) if b.rows else 0) if it.kind == "vector" else None
        if scaled_row:
            # … its result: p times each entry of the vector before the '='
            step, strength, it.token, it.products = None, 0, None, [scaled_row]
            it.notes.append(SCALAR_PRODUCT)
        if it.kind == "vector" and softmax_result(b.before):
            # "softmax([0.577, 0.577, 0]) = [0.39, 0.39, 0.22]": what softmax of a row gives is a row of weights
            step, strength, it.token = "weights", 2, None
        if it.kind == "vector" and softmax_argument(b.before, b.after):
            # "softmax([0.577, 0.577, 0])": the list is softmax's argument (scores), not its result
            step, strength, it.token = None, 0, None
            it.notes.append("the argument of softmax(…), not its result")
        param = parameter_copy(b.before) if b.role == "code" and it.kind in ("matrix", "vector") else None
        if param and (it.kind == "vector") != param[0].startswith("b"):
            param = None  # a weight is a matrix, a bias a vector
        if param:  # W_Q.weight.copy_(torch.tensor([[…]])), Q_layers[1].weight.copy_(…): that module's weight
            step, strength, it.label = param[0], 3, param[2]
            if it.kind == "matrix":  # nn.Linear's (out, in); written as M.T, M itself multiplies X as written
                it.layout = "row" if re.match(r"\s*\)?\s*\.\s*(?:T\b|t\(\s*\))", b.after or "") else "torch"
        if step == "scaled" and times is None and b.depth == 2 and _RECIPROCAL_BEFORE.search(b.before):
            # 'Scaled = \frac{QK^T}{\sqrt{4}} = \frac{1}{2} [M]': the scaled scores are ½ times M; M itself is
            # the scores before scaling, as printed
            step = "scores"
            it.notes.append("the scaled scores written as 1/c times this matrix: the matrix is the scores")
        it.step, it.strength = step, strength
        it.head = head_of(it.label) or (head_of(ident) if ident else None) or self.heading_head(b.start)
        if param and param[1] is not None:
            it.head = param[1]
        if rowlab and it.kind == "vector":
            it.row_index = int(rowlab.group(1)) + self.base or None  # "Row 0:" on a page counting from 0
        elif indexed:
            it.row_index = indexed[1]
        elif it.row_index is None:
            it.row_index = _name_index(it.label) if it.kind in ("vector", "scalar") and not head_of(it.label) else None
        if it.row_index is None and len(it.rows) == 1 and it.kind != "stack":
            it.row_index = _row_word(it.label)  # Softmax(\text{Row 3}) = [[…]]: one row, the third query's
        if it.row_index is None and it.kind == "vector" and not self.base:
            it.row_index = row_named_before(b.before)  # 'Para la fila 3: softmax([…]) ≈ […]' (importer_row_words.py)
        sub = re.search(r"\[\s*(\d+)\s*\]\s*\)?\s*[:=→-]*\s*$", it.label or "")
        if sub and it.kind in ("vector", "scalar"):
            it.row_index = int(sub.group(1)) + 1  # code indexes from 0
        notes = [t for t in (_note_token(n) for n in b.row_notes)] if b.row_notes else []
        if it.kind == "matrix" and notes and all(notes) and len(set(notes)) == len(notes) == len(it.rows):
            it.row_labels = notes
        if it.kind == "vector" and it.step and it.strength <= 2 and (
                (_CALL_ARGUMENT.search(b.before) and re.match(r"\s*[,)]", b.after or ""))
                or (b.before.endswith('"') and (b.after or "").startswith('"'))):  # or a string: '"[1.23, 5.68]"'
            # 'let p = softmax(&[1.0, 2.0, 3.0]);', 'fmt_vec(&[1.0, 2.5], 1)': a literal passed to a function (a unit
            # test's input) is named by nothing but the words around it
            it.step, it.strength = None, 0
            it.notes.append("a literal passed to a function call: no step of the example names it")
        named_rows = rows_named(b.before) if it.kind == "vector" and len(it.rows) == 1 else []
        if named_rows:  # 'A_{1,:} = A_{2,:} = [0.16, 0.16, 0.67]': one printed row, the same in each row named
            it.row_index = named_rows[0]
            it.notes.append(ROWS_NAMED_NOTE)
            for r in named_rows[1:]:
                twin = Item(rows=[list(it.rows[0])], where=list(it.where), line=it.line, end=it.end, role=it.role,
                            form=it.form, kind=it.kind, label=it.label, step=it.step, strength=it.strength)
                twin.row_index = r
                twin.notes.append(ROWS_NAMED_NOTE)
                self.items.append(twin)
        if it.kind == "vector" and it.step and _LATER_TERM.search(b.before) and not re.match(r"\s*=", b.after or ""):
            # 'Output_1 = w_1 · [1, 2] + w_2 · [3, 4] + w_3 · [5, 6]': the last vector is a term c·v of the sum the
            # left side names, not its result
            it.step, it.strength, it.row_index = None, 0, None
            it.notes.append("a term c·v of a sum written out, not its result")
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
            return self._cells().get(cell, ([], []))  # (read, never changed, by the callers)
        first, j = self._output_run(b.start, b.end)
        k = first - 1
        # blank lines, fences and a word that announces the output ("Output", "Out[3]:") lie between
        while k >= 0 and k >= first - 6 and (not self.lines[k].text.strip() or (
                self.lines[k].role != "code" and re.fullmatch(r"(?:output|out(?:\s*\[\d*\])?|result|prints?)\s*:?",
                                                              self.lines[k].text.strip(" *_`"), re.I))):
            k -= 1
        code: list[str] = []
        while k >= 0 and self.lines[k].role == "code":
            code.insert(0, self.lines[k].text)
            k -= 1
        starts, outs_of = self._block_starts()
        if (first, j) not in outs_of:  # (one list per run of output lines, shared by the blocks in it)
            outs_of[first, j] = [x for x in self.page.blocks[bisect.bisect_left(starts, first):bisect.bisect_right(starts, j)]
                                 if isinstance(x, (Numbers, Words)) and x.end <= j]
        return code, outs_of[first, j]

    def _output_run(self, start: int, end: int) -> tuple[int, int]:
        """The first and last line of the run of output lines around lines ``start``–``end`` (those
        lines themselves when no output line is next to them), from one pass over the page's lines."""
        key = (id(self.lines), len(self.lines))
        cached = getattr(self, "_runs_cache", None)
        if cached is None or cached[0] != key:
            n = len(self.lines)
            up, down = list(range(n)), list(range(n))  # up[k]: first line of k's run; down[k]: its last
            for k in range(1, n):
                if self.lines[k - 1].role == "output":
                    up[k] = up[k - 1]
            for k in range(n - 2, -1, -1):
                if self.lines[k + 1].role == "output":
                    down[k] = down[k + 1]
            cached = self._runs_cache = (key, up, down)
        return cached[1][start], cached[2][end]

    def _block_starts(self) -> tuple[list[int], dict]:
        """The first line of each of the page's blocks, in their order (sorted, as the scan gives them),
        and the blocks of each run of output lines found so far."""
        key = (id(self.page.blocks), len(self.page.blocks))
        cached = getattr(self, "_starts_cache", None)
        if cached is None or cached[0] != key:
            cached = self._starts_cache = (key, [x.start for x in self.page.blocks], {})
        return cached[1], cached[2]

    def _cells(self) -> dict:
        """Each notebook cell's code lines and the blocks of its output, from one pass over the page
        (kept while the page's lines and blocks are the same lists)."""
        key = (id(self.lines), id(self.page.blocks), len(self.lines), len(self.page.blocks))
        cached = getattr(self, "_cells_cache", None)
        if cached is None or cached[0] != key:
            cells: dict = {}
            for ln in self.lines:
                if ln.where.cell is not None and not ln.where.output and ln.role == "code":
                    cells.setdefault(ln.where.cell, ([], []))[0].append(ln.text)
            for x in self.page.blocks:
                w = x.where[0] if isinstance(x, Numbers) else x.where if isinstance(x, Words) else None
                if w is not None and w.cell is not None and w.output:
                    cells.setdefault(w.cell, ([], []))[1].append(x)
            cached = self._cells_cache = (key, cells)
        return cached[1]

    def printed_name(self, b: Numbers) -> str | None:
        """For an output with no text of its own: the name (or expression) its code printed."""
        code, outs = self.code_before(b)
        if not code:
            return None
        names: list[str] = []
        fnames: list[str] = []  # the same, with one entry per print of an f-string (tried last)
        code = [re.sub(r"\s+#.*$", "", t) if not t.lstrip().startswith("#") else "" for t in code]
        looped = loop_printed(code)
        for t in code if looped is None else []:
            for m in re.finditer(r"print\((.*)\)\s*;?\s*$", t):
                args = m.group(1)
                parts = [p.strip() for p in re.split(r",(?![^(\[]*[)\]])", args)]
                nonstr = [p for p in parts if p and not re.match(r"^[fbr]?[\"']", p) and "=" not in p]
                if nonstr:
                    names.append(nonstr[-1])
                    fnames.append(nonstr[-1])
                elif any(re.match(r"^[rR]?[fF]", p) and "{" in p for p in parts):
                    # print(f"Q: {Q}") prints Q's value (one name kept in its place; "" for one not read)
                    fnames.append((fstring_printed(parts[0]) or "") if len(parts) == 1 else "")
        names += looped or []
        last = next((t.strip() for t in reversed(code) if t.strip() and not t.strip().startswith("#")), "")
        shown = tuple_shown(last, [x for x in outs if isinstance(x, Numbers)], b) if "," in last else None
        if shown:
            return shown
        nums = [x for x in outs if isinstance(x, Numbers)]
        shaped = tuple_with_shapes(last, len(nums)) if "," in last and b in nums else None
        if shaped:
            return shaped[nums.index(b)] or None  # ctx.shape, ctx: the value's block, not its shape's
        if re.fullmatch(r"[A-Za-z_][\w.]*(\.T)?|[A-Za-z_]\w*\[[^\]]*\]", last) or (
                re.fullmatch(r"[A-Za-z_][\w.]*(\([^()=]*\))?(\.\w+(\([^()=]*\))?)*", last)
                and not re.match(r"(print|display|plt\.|sns\.|ax\.|fig\.)", last)):
            names.append(last)
        elif first_result(last):
            names.append(last)  # attention(q, k, v, mask=np.array([[True, False]]))[0] echoed by a session
        # which printed block of this output is b? (a printed dictionary of vectors, '{0: array([…]), 1: …}',
        # is one printout however many blocks its line holds)
        outs = _one_per_printed_dict(outs, b, self.lines)
        idx = next((i for i, x in enumerate(outs) if x is b), None)
        if idx is None or not names:
            return None
        if len(outs) == len(names):
            return names[idx]
        if len(outs) == 1:
            return names[-1]
        if len(names) == 1 and len(b.rows) > 1 and [x for x in outs if len(getattr(x, "rows", ())) > 1] == [b]:
            return names[0]  # one variable printed, one matrix among scalars and shapes: that variable's
        if looped is None and fnames != names[:len(fnames)] and len(outs) == len(fnames) and fnames[idx] and (
                b.start == 0 or self.lines[b.start - 1].role != "output" or not self.lines[b.start - 1].text.strip()):
            # print(x); print(f"weights: {w}"): one block per print, in order (for a block printed with no
            # caption of its own)
            return fnames[idx]
        return None

    def table(self, t: Table) -> None:
        header = t.header
        rows = t.rows
        if not rows:
            return
        ctx, s = self.context_label(t.start)
        step = step_of_text(ctx[-160:]) if ctx else None
        if step is None and ctx and self.heading_text(t.start, ctx):
            step = heading_symbol_step(ctx)  # '### Q' over the table: the symbol names it
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        rows = unquoted_labels(rows)
        # drop empty trailing columns (counted first, then cut once: a row of thousands of empty cells is linear)
        keep = width
        while keep > 1 and all(r[keep - 1] == "" for r in rows) and (header is None or len(header) < keep or header[keep - 1] == ""):
            keep -= 1
        if keep < width:
            rows, width = [r[:keep] for r in rows], keep
        if header is not None:
            header = (header + [""] * width)[:width]
        pct = [[from_percent(c) for c in r] for r in rows]
        if any(p is not None for r in pct for p in r) and all(
                p is not None or entry_kind(c) == "other" or c == "" for r, pr in zip(rows, pct) for c, p in zip(r, pr)):
            # a table of percentages (weights as "73%"): each the decimal it is, with its digits
            rows = [[p if p is not None else c for c, p in zip(r, pr)] for r, pr in zip(rows, pct)]
            self.percent_lines.update(range(t.start, t.end + 1))
        sums: list[str] | None = None
        if header is not None and width >= 3 and _SUM_HEADER.fullmatch(header[-1].strip(" *`$_")) \
                and all(is_number(r[-1]) for r in rows):
            # a last column "Σ" / "sum" / "total": each row's sum, placed as a sum of that row (not a key)
            sums = [r[-1] for r in rows]
            rows = [r[:-1] for r in rows]
            header = header[:-1]
            width -= 1
        before = len(self.items)
        self._table(t, header, rows, width, ctx, step)
        if t.start in self.percent_lines:
            for it in self.items[before:]:
                it.label = (it.label + " " if it.label else "") + "(printed as percentages: 73% is 0.73)"
        if sums is not None:
            made = self.items[-1] if len(self.items) == before + 1 else None
            read = made is not None and made.shape[0] == len(rows) and not made.transposed
            for r, total in enumerate(sums):
                # the row as read (or its numbers): placed as a sum only where a printed row of weights has them
                body = made.rows[r] if made is not None and read else [c for c in rows[r] if is_number(c)] or ["?"]
                self.items.append(Item(rows=[list(body)], where=[t.where[r]], line=t.start, end=t.end,
                                       kind="sum", label=total, role=t.role))

    def _table(self, t: Table, header: list[str] | None, rows: list[list[str]], width: int, ctx: str,
               step: str | None) -> None:
        vec_re = re.compile(r"^\s*[\[(]\s*(-?[\d.]+(?:e-?\d+)?(?:\s*[,\s]\s*-?[\d.]+(?:e-?\d+)?)*)\s*[\])]\s*$")
        first_col = [r[0] for r in rows]
        label_col = all(entry_kind(c) == "other" and not vec_re.match(c) for c in first_col if c)
        numbered = not label_col and _index_column(header, first_col)
        if numbered:
            # | Token | 0 | 1 | … | over rows 0, 1, 2: the first column numbers the tokens, it is no data
            label_col = True
            first_col = [f"#{c.strip()}" for c in first_col]
            rows = [[f"#{r[0].strip()}"] + r[1:] for r in rows]
        vec_label_col = all(vec_re.match(c) for c in first_col if c) and any(first_col)
        vec_cols = [j for j in range(1, width) if all(vec_re.match(r[j]) for r in rows)]
        roles = [_role_label(c) for c in first_col]
        if label_col and len(vec_cols) == 1 and all(roles) and len({x[0] for x in roles}) >= 2:  # type: ignore[index]
            # Role | … | Vector with rows "Query (Q)", "Key (K) - latte", "Value (V) - latte": each role's rows
            # are one matrix, the words after the role its tokens
            j = vec_cols[0]
            k = 0
            while k < len(rows):
                step = roles[k][0]  # type: ignore[index]
                e = k
                while e < len(rows) and roles[e][0] == step:  # type: ignore[index]
                    e += 1
                vecs = [re.split(r"[,\s]+", vec_re.match(r[j]).group(1).strip()) for r in rows[k:e]]  # type: ignore[union-attr]
                if len({len(v) for v in vecs}) == 1:
                    toks = [roles[i][1] for i in range(k, e)]  # type: ignore[index]
                    self.items.append(Item(rows=vecs, where=list(t.where[k:e]), line=t.start, end=t.end, role=t.role,
                                           form="table", label=first_col[k], step=step, strength=2,
                                           row_labels=toks if all(toks) else None))  # type: ignore[arg-type]
                k = e
            return
        if not label_col and header and _step_columns(header, rows, vec_re):
            # | Key(K) | Value(V) | over cells [1, 0], [0, 1]: no label column, each column of bracketed
            # vectors one matrix its header names, a cell a row
            for j, name in enumerate(header):
                vecs = [re.split(r"[,\s]+", vec_re.match(r[j]).group(1).strip()) for r in rows]  # type: ignore[union-attr]
                self.items.append(Item(rows=vecs, where=list(t.where), line=t.start, end=t.end, role=t.role,
                                       form="table", label=name, step=_step_column(name), strength=2))
            return
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
                if header and _header_symbol(header[1]):  # Token | 埋め込み (X): the header's symbol over the context
                    it.step, it.strength, it.label = _header_symbol(header[1]), 2, header[1]
                self.items.append(it)
                return
        if self.named_vector_columns(t, header, rows, width, vec_re):
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
        groups = _column_groups(header[1:]) if header and label_col else None
        if groups and all(entry_kind(c) in ("number", "placeholder", "inf") for r in rows for c in r[1:]):
            # Q1 Q2 K1 K2 V1 V2, or ohne_c1 ohne_c2 causal_c1 causal_c2: matrices printed side by side in one
            # table, each named by its columns' common stem
            for name, a, b in groups:
                st = step_of_ident(name) or self.symbols.get(name) or step_of_text(name)
                self.items.append(Item(rows=[r[1 + a:1 + b] for r in rows], where=list(t.where), line=t.start,
                                       end=t.end, role=t.role, form="table", label=name, step=st,
                                       strength=2 if st else 0, row_labels=first_col))
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
                if label_col and cols and [c.strip() for c in cols] == [c.strip().lstrip("#") if numbered else c.strip()
                                                                       for c in first_col] \
                        and it.step in (None, "X", "Q", "K", "V"):
                    if numbered:
                        it.col_labels = list(first_col)  # the keys numbered as the queries are: #0, #1, …
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
                if label_col and cols and _query_key_labels(first_col, cols) and it.step in (None, "X", "Q", "K", "V"):
                    # q1 … qn down the side, k1 … km across: a query-by-key table, its rows the queries in order
                    it.step = _scores_or_weights(body)
                    it.strength, it.row_labels, it.col_labels = 1, None, None
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
                elif label_col and cols and len(cols) == 1 and not corner and it.step in ("scores", "weights") \
                        and len(first_col) >= 2 and entry_kind(cols[0]) == "other":
                    # '| | dog |' over '| le | 0.3 |': one query's row printed as a column, its keys down the side
                    it.transposed = True
                    it.row_labels, it.col_labels = list(cols), list(first_col)
                    it.rows = [[r[0] for r in it.rows]]
                    it.where = [it.where[0]]
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

    def named_vector_columns(self, t: Table, header: list[str] | None, rows: list[list[str]], width: int,
                             vec_re: re.Pattern) -> bool:
        """| Q | K | V | over rows of bracketed vectors, no label column: each column is the matrix its
        header names (``Decoder Query \\( Q \\)`` names Q), its rows the positions in order. Read only
        when every header names a different one of X, Q, K, V (an ``Input | Weight 1 | Weight 2``
        table of another layer is not); True when the table was read so."""
        if header is None or width < 2 or len(rows) < 1 or \
                not all(vec_re.match(r[j]) for r in rows for j in range(width)):
            return False
        names = [h.strip(" *`$") for h in header[:width]]
        steps = [step_of_ident(n) or self.symbols.get(n) or (step_of_text(n) if n else None) for n in names]
        if not all(st in ("X", "Q", "K", "V") for st in steps) or len(set(steps)) != width:
            return False
        made = []
        for j, (name, st) in enumerate(zip(names, steps)):
            vecs = [re.split(r"[,\s]+", vec_re.match(r[j]).group(1).strip()) for r in rows]  # type: ignore[union-attr]
            if len({len(v) for v in vecs}) != 1:
                return False
            made.append(Item(rows=vecs, where=list(t.where), line=t.start, end=t.end, role=t.role, form="table",
                             label=name, step=st, strength=2, notes=[COLUMN_NOTE]))
        self.items.extend(made)
        return True

    # -- a quiz's choices --
    def answer_options(self) -> None:
        """A quiz's choices, each a letter glued to a vector on a line of its own ('A[10, 0]',
        'B) [5, 10]', '(C) [7.31, 5.38]'), two or more in letter order: answer options, not
        matrices named A or B; they are listed with that reason."""
        opt_re = re.compile(r"(?:(?:[\w ]{0,40}\b(?:options?|choices?|answers?)\s*:\s*)?|(?:option|choice)\s+)"
                            r"\(?([A-Ha-h])(?:[).:]\s*|\s*(?=$))", re.I)
        next_re = re.compile(r"\s*[,;]?\s*(?:(?:option|choice)\s+)?\(?[A-Ha-h](?:[).:]\s*|\s*)\[", re.I)
        run: list[tuple[Item, int]] = []

        def close() -> None:
            if len(run) >= 2:
                for it, _ in run:
                    it.step, it.strength, it.token, it.row_index = None, 0, None, None
                    it.notes.insert(0, OPTION_NOTE)
            run.clear()

        for it in sorted(self.items, key=lambda x: x.line):
            own = it.before.rsplit("]", 1)[-1]  # 'A) [10, 0]  B) [5, 10]': after the choice before it
            m = opt_re.fullmatch(own.strip(" \t,;")) if it.kind == "vector" and it.line == it.end else None
            ok = m is not None and (not it.after.strip(" .,;") or next_re.match(it.after) is not None) \
                and it.role in ("prose", "comment", "output")
            letter = ord(m.group(1).upper()) - ord("A") if ok and m else -1
            if ok and run and letter == run[-1][1] + 1 and it.line <= run[-1][0].line + 2:
                run.append((it, letter))
                continue
            close()
            if ok and letter == 0:
                run.append((it, letter))
        close()

    # -- several names for one printing --
    def shared_names(self) -> None:
        """'W_Q1 = W_K1 = W_V1 = [[…]]': one printed matrix for several names. Each name after
        the first gets an item of its own with the same numbers."""
        # (Q' = K' = V' \approx [[…]]: primes mark the projected matrices, '≈' ends the chain as '=' does)
        chain_re = re.compile(r"((?:self\.)?[A-Za-z][\w^{}]*'*(?:\s*=\s*(?:self\.)?[A-Za-z][\w^{}]*'*)+)\s*(?:=|\\approx|≈)")
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
        ``q, k, v = x, x, x``, ``W_K = W_Q`` (one projection shared). Each target becomes an item with
        the source's numbers."""
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
                if step not in ("X", "Q", "K", "V", "KV", "Wq", "Wk", "Wv") or step == step_of_ident(source):
                    continue
                src = self.named_before(source, k)
                if src is None:
                    continue
                it = Item(rows=[list(r) for r in src.rows], where=[ln.where] * len(src.rows), line=k, end=k,
                          kind=src.kind, label=f"{target} = {source}", step=step, strength=3, role="code",
                          form="code", row_labels=src.row_labels, col_labels=src.col_labels)
                it.notes.append(f"{target} = {source}: the numbers of {source} ({src.at()})")
                self.items.append(it)

    def self_attention_calls(self) -> None:
        """``scaled_dot_product(a.clone(), a.clone(), a.clone(), false)``: a call of an attention
        function with one matrix as its queries, keys and values. The matrix assigned to that name
        before the call (``let a: Array3<f32> = array![…]``, ``a = np.array(…)``) is the embeddings X
        of a self-attention with no projections, whatever its name would say on its own."""
        for k, ln in enumerate(self.lines):
            m = _SELF_CALL_RE.search(ln.text)
            if not m:
                continue
            name = m.group(2)
            own = re.compile(rf"(?:let\s+(?:mut\s+)?)?{re.escape(name)}\s*(?::\s*[\w<>, \[\];]+)?")
            for it in self.items:
                if it.line < k and it.kind == "matrix" and own.fullmatch(it.label.strip()) and _numeric_rows(it.rows):
                    it.step, it.strength = "X", 3
                    it.notes.append(f"{name}: the queries, keys and values of {m.group(1)}(…) ({ln.where})")

    def sliced_rows(self) -> None:
        """``let result = res.slice(s![0, 0, ..])`` (``res[0, 2, :]``) then the vector it is compared
        with on the next line or the one after: that vector is the row the slice takes (the first
        query's, the third's) of the batch's one matrix. The slice's own indices are no numbers."""
        slicing = {k for k, ln in enumerate(self.lines) if _ROW_SLICE_RE.search(ln.text)}  # each line read once
        self.items = [it for it in self.items if not (
            it.line in slicing and len(it.rows) == 1 and len(it.rows[0]) <= 3
            and all(re.fullmatch(r"\d{1,3}|\.\.\.?|:", x.strip()) for x in it.rows[0]))]
        for it in self.items:
            if it.kind != "vector" or it.row_index is not None or len(it.rows) != 1:
                continue
            for k in range(it.line - 1, max(-1, it.line - 3), -1):
                m = _ROW_SLICE_RE.search(self.lines[k].text) if k in slicing else None
                if m:
                    it.row_index = int(m.group(1) or m.group(2)) + 1
                    it.notes.append(f"row {it.row_index}: compared with the row the slice on {self.lines[k].where} takes")
                    break

    def named_before(self, name: str, line: int) -> Item | None:
        """The last item before ``line`` that the page assigns to ``name``."""
        bare = name.replace("self.", "")
        for it in reversed([x for x in self.items if x.line < line]):
            if it.label.replace("self.", "").strip() == bare:
                return it
        return None

    # -- lines --
    def keyed_rows(self) -> None:
        """A row of numbers keyed by token: a printed dictionary ``{'the': 0.21, 'cat': 0.21}`` or a
        list of lines ``the: 0.21`` / ``cat: 0.21`` (two or more): an item whose column labels are the
        tokens (placed only where they are the example's keys)."""
        lines = self.lines
        k = 0
        while k < len(lines):
            ln = lines[k]
            t = ln.text.replace("−", "-")
            m = _DICT_RE.search(t) if k not in self.block_lines else None
            if m:
                entries = _DICT_ENTRY_RE.findall(m.group(1))
                toks = [e[1] for e in entries]
                if len(set(toks)) == len(toks) and not any(x.lower() in _NOT_TOKENS for x in toks):
                    self.keyed(k, k, toks, [e[2] for e in entries], t[:m.start()])
                k += 1
                continue
            run = []
            j = k
            while j < len(lines) and j not in self.block_lines and lines[j].role != "code":
                mm = _KV_LINE_RE.fullmatch(lines[j].text.replace("−", "-"))
                if not mm or mm.group(2).lower() in _NOT_TOKENS or step_of_ident(mm.group(2)):
                    break
                run.append(mm)
                j += 1
            toks = [mm.group(2) for mm in run]
            if len(run) >= 2 and len(set(toks)) == len(toks):
                self.keyed(k, j - 1, toks, [mm.group(3) for mm in run], "")
            k = max(j, k + 1)  # a run is read (or refused) once: linear in the page

    def keyed(self, first: int, last: int, toks: list[str], nums: list[str], before: str) -> None:
        label, ident, _ = _label_before(before, self.lines[first].role) if before.strip() else ("", None, False)
        step = _ident_step(ident) if ident else None
        strength = 3 if step else 0
        if not step and label:
            step = step_of_text(label)
            strength = 2 if step else 0
        if not step:
            ctx, s_ = self.context_label(first)
            st = (step_of_ident(ctx.strip(" :")) or step_of_text(ctx[-160:])) if ctx else None
            if ctx:
                label = label or ctx
            if st:
                step, strength = st, min(s_, 2)
        it = Item(rows=[nums], where=[self.lines[first].where], line=first, end=last, kind="vector", label=label,
                  step=step, strength=strength, col_labels=list(toks), role=self.lines[first].role)
        it.keyed = True
        tok = _token_of(label) if label else None
        if tok and tok not in toks or (tok and len(quoted(label)) == 1):
            it.token = tok
        self.items.append(it)
        self.block_lines.update(range(first, last + 1))

    def lines_items(self) -> None:
        pair_re = re.compile(r"^\s*[-•*]?\s*\$?([A-Za-z\\][\w\\{}^]*)\s*\(\s*([\"'“‘]?)([^,()\"'“”‘’→]{1,40}?)\2[”’]?\s*(?:,|→|->|\\to)\s*"
                             r"([\"'“‘]?)([^,()\"'“”‘’]{1,40})\4[”’]?\s*\)\$?\s*(?:=|≈|:)\s*"
                             r"([+-]?(?:\d++(?:\.\d*+)?|\.\d+)(?:[eE][+-]?\d+)?)\s*$")
        idx_re = re.compile(r"^\s*[-•*]?\s*\$?\\?(ω|omega|α|alpha|a|s|e)_\{?(?:(\d)(\d)|(\d+)\s*,\s*(\d+))\}?\$?"
                            r"\s*(?:=|≈|:)\s*\$?\s*([+-]?(?:\d++(?:\.\d*+)?|\.\d+)(?:[eE][+-]?\d+)?)\s*\$?\s*$")
        elem_re = re.compile(r"^\s*[-•*]?\s*([A-Za-z_]\w*)\[(\d{1,3})\]\s*\[(\d{1,3})\]\s*=\s*(?:.*=\s*)?"
                             r"([+-]?(?:\d++(?:\.\d*+)?|\.\d+)(?:[eE][+-]?\d+)?)\s*$")
        sum_re = re.compile(r"^\s*[-•*]?\s*((?:[+-]?(?:\d++(?:\.\d++)?|\.\d++)\s*\+\s*)+[+-]?(?:\d++(?:\.\d++)?|\.\d++))\s*(?:=|≈)\s*"
                            r"([+-]?(?:\d++(?:\.\d*+)?|\.\d+))\s*$")
        indexed: list[Item] = []  # entries written with their indices (α₁₂ = 0.24): 1-based unless a 0 is met
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
            found = indexed_values(t) if k not in self.block_lines and ln.role != "code" else []
            if found and not elem_re.match(t):
                for st, i, j, num in found:
                    it = Item(rows=[[num]], where=[ln.where], line=k, end=k, kind="pair", label=t.strip()[:100],
                              step=st, strength=2 if st else 0, pair=("#" + str(i), "#" + str(j)), role=ln.role)
                    indexed.append(it)
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
            if ln.role in ("prose", "comment") and k not in self.block_lines and _HINT_RE.search(t) \
                    and (_ORD_OR_QUOTE.search(t) or re.search(r"\d\s*(?:,|and)\s*\d", t)):
                for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z“\"'])", t):
                    for positions, nums, hint in positions_in(sentence):
                        it = Item(rows=[nums], where=[ln.where], line=k, end=k, kind="positions",
                                  label=sentence.strip()[:100], step=hint, strength=0, role=ln.role)
                        it.positions = positions
                        self.items.append(it)
                    for nums in rows_in(sentence):
                        q = quoted(sentence)
                        it = Item(rows=[nums], where=[ln.where], line=k, end=k, kind="vector",
                                  label=sentence.strip()[:100], step=None, strength=0, role=ln.role,
                                  token=q[0] if len(q) == 1 else None)
                        self.items.append(it)
                    self.pair_item(sentence, ln, k)
            elif ln.role == "output" and k not in self.block_lines and _HINT_RE.search(t) and _ORD_OR_QUOTE.search(t):
                self.pair_item(t, ln, k)  # a printed f-string line: "'fox' attends most strongly to 'The' (weight: 0.171)"
            row_sum = row_sum_line(t) if k not in self.block_lines and ln.role in ("output", "prose", "comment") else None
            if row_sum:  # 'Sum of first row: 1.0000': the sum of that row of the weights
                it = Item(rows=[[row_sum[1]]], where=[ln.where], line=k, end=k, kind="scalar", label=t.strip()[:100],
                          role=ln.role)
                it.row_index = row_sum[0]
                self.items.append(it)
                continue
            m = sum_re.match(t)
            if m and k not in self.block_lines:
                terms = [x.strip() for x in m.group(1).split("+")]
                it = Item(rows=[terms], where=[ln.where], line=k, end=k, kind="sum", label=m.group(2), role=ln.role)
                self.items.append(it)
        if any(p == "#0" for it in indexed for p in it.pair or ()):  # q0·k1, α_{01}: the page counts from 0
            for it in indexed:
                it.pair = tuple("#" + str(int(p[1:]) + 1) for p in it.pair or ())  # type: ignore[assignment]

    def pair_item(self, sentence: str, ln: Line, k: int) -> None:
        """One number a sentence (or a printed line) gives for two quoted tokens (:func:`pair_in`):
        an item placed where the values say which token is the query."""
        two = pair_in(sentence)
        if two:
            it = Item(rows=[[two[2]]], where=[ln.where], line=k, end=k, kind="positions",
                      label=sentence.strip()[:100], step=two[3], strength=0, role=ln.role)
            it.either = (two[0], two[1])
            self.items.append(it)

    def dot_lines(self) -> None:
        """``q1 . k2 = [1, 0, 0] . [1, 1, 0] = 1*1 + 0*1 + 0*0 = 1``: a dot product of an indexed
        query and key written out, its result the score of that query on that key. A line that
        divides or takes a root is left alone (its result is not the raw score)."""
        num = r"([+-]?(?:\d++(?:\.\d*+)?|\.\d+)(?:[eE][+-]?\d+)?)"
        rx = re.compile(r"(?:^|[\s`*:$(])\\?(?:q|query)_?\{?(\d{1,3})\}?\s*" + _NAME_DOT +
                        r"\s*\\?(?:k|key)_?\{?(\d{1,3})\}?(?:\^\{?(?:T|\\top)\}?|ᵀ)?\s*=(?:[^=]*=)*\s*" + num +
                        r"\s*[`$]*\s*\.?\s*$")
        for k, ln in enumerate(self.lines):
            if ln.role == "code":
                continue
            t = ln.text.replace("−", "-")
            m = rx.search(t)
            if not m or re.search(r"/|√|sqrt|\\frac|÷", t):
                continue
            i, j = int(m.group(1)) + self.base, int(m.group(2)) + self.base
            if i < 1 or j < 1 or any(o.kind == "pair" and o.line == k and o.pair == (f"#{i}", f"#{j}")
                                     for o in self.items):
                continue  # read already by the entries-with-indices reader (q1·k2 = … = 2)
            it = Item(rows=[[m.group(3)]], where=[ln.where], line=k, end=k, kind="pair", label=t.strip(),
                      step="scores", strength=2, pair=(f"#{i}", f"#{j}"), role=ln.role)
            it.notes.append(f"q{m.group(1)}·k{m.group(2)}: the score of query {i} on key {j}")
            self.items.append(it)

    def token_dot_chains(self) -> None:
        """``Q_{quickly} \\cdot K_{dog}`` (queries and keys named by a word subscript), then ``= (0.22)(0.54) + …``
        and ``= 0.1188 + … \\approx 0.889`` on the lines below, each a continuation starting with '=': the number
        the last continuation ends with is the score of that query (token) on that key. A chain that divides,
        takes a root or a softmax is left alone (its result is not the raw score)."""
        word = r"\{?\s*(?:\\text\{)?([A-Za-z][A-Za-z'-]+)\}?\s*\}?"
        start = re.compile(r"(?<![A-Za-z\\])[Qq]_" + word + r"\s*" + _NAME_DOT + r"\s*[Kk]_" + word +
                           r"(?:\^\{?(?:T|\\top)\}?|ᵀ)?\s*(.*)$")
        end = re.compile(r"(?:=|≈|\\approx)\s*([+-]?(?:\d++(?:\.\d*+)?|\.\d+))\s*[`$]*\s*\.?\s*$")
        lines = self.lines
        for k, ln in enumerate(lines):
            if ln.role == "code":
                continue
            m = start.search(ln.text)
            if not m or m.group(1).lower() in _NOT_TOKEN_SUBSCRIPTS or m.group(2).lower() in _NOT_TOKEN_SUBSCRIPTS:
                continue
            chain, last, j = [m.group(3)], k, k + 1
            while j < len(lines) and j <= k + 12:
                t = lines[j].text.strip().strip("$").strip()
                if t in ("", "\\[", "\\]", "$$"):
                    j += 1
                    continue
                if lines[j].role == "code" or not re.match(r"(?:=|≈|\\approx)", t):
                    break
                chain.append(t)
                last = j
                j += 1
            if len(chain) < 2 and "=" not in chain[0]:
                continue
            text = " ".join(chain)
            r = end.search(chain[-1])
            if r is None or re.search(r"/|√|sqrt|\\frac|÷|softmax|exp|e\^", text):
                continue
            it = Item(rows=[[r.group(1)]], where=[lines[last].where], line=last, end=last, kind="pair",
                      label=ln.text.strip()[:100], step="scores", strength=2, pair=(m.group(1), m.group(2)),
                      role=lines[last].role)
            it.notes.append(f"Q_{m.group(1)}·K_{m.group(2)} worked out: the score of {m.group(1)!r} on {m.group(2)!r}")
            self.items.append(it)

    def pair_dot_lines(self) -> None:
        """``Dot Product (sitting, The)=0.3×0.1+0.4×0.3+0.1×0.6=0.13``: a label naming the scores, a query and a
        key token in parentheses, a sum of products written out, then its result: the score of that query on
        that key. A line that divides or takes a root is left alone (its result is not the raw score)."""
        num = r"[+-]?(?:\d++(?:\.\d*+)?|\.\d+)"
        prod = num + r"\s*(?:×|\*|·|⋅|\\times|\\cdot)\s*" + num
        rx = re.compile(r"^\s*(?:[-*•+]\s+)?([^()=\d]{2,60}?)\s*\(\s*([A-Za-z][\w'-]*)\s*,\s*([A-Za-z][\w'-]*)\s*\)\s*"
                        r"[`$]*\s*=\s*(" + prod + r"(?:\s*\+\s*" + prod + r")+)\s*=\s*(" + num + r")\s*[`$]*\s*\.?\s*$")
        for k, ln in enumerate(self.lines):
            if ln.role == "code" or k in self.block_lines:
                continue
            t = ln.text.replace("−", "-")
            m = rx.match(t)
            if not m or re.search(r"/|√|sqrt|\\frac|÷", t) or step_of_text(m.group(1)) != "scores" \
                    or any(o.line == k for o in self.items):
                continue
            it = Item(rows=[[m.group(5)]], where=[ln.where], line=k, end=k, kind="pair", label=t.strip()[:100],
                      step="scores", strength=2, pair=(m.group(2), m.group(3)), role=ln.role)
            it.notes.append(f"{m.group(1).strip()} ({m.group(2)}, {m.group(3)}) written out: the score of "
                            f"{m.group(2)!r} on {m.group(3)!r}")
            self.items.append(it)

    def softmax_fractions(self) -> None:
        """``\\alpha_{dog} = \\frac{e^{0.889}}{e^{0.889} + e^{1.2}} \\approx 0.42``: a weight worked as a softmax
        written out, its exponents the scores of one query (the denominator: all its keys, in order; the
        numerator: the key it is the weight of)."""
        num = r"([+-]?(?:\d++(?:\.\d*+)?|\.\d+))"
        exp = r"e\^\{?\s*" + num + r"\s*\}?"
        bare = r"e\^\{?\s*[+-]?(?:\d++(?:\.\d*+)?|\.\d+)\s*\}?"
        rx = re.compile(r"\\frac\{\s*" + exp + r"\s*\}\{\s*(" + bare + r"(?:\s*\+\s*" + bare +
                        r")+)\s*\}\s*(?:=|≈|\\approx)\s*" + num + r"(?![\d.])")
        taken = {o.line for o in self.items}  # (items this reader adds are on the line it has just read)
        for k, ln in enumerate(self.lines):
            if ln.role == "code" or k in taken:
                continue
            t = ln.text.replace("−", "-")
            for m in rx.finditer(t):
                den = re.findall(exp, m.group(2))
                it = Item(rows=[[m.group(3)]], where=[ln.where], line=k, end=k, kind="scalar", label=t.strip()[:100],
                          step="weights", strength=2, role=ln.role)
                it.softmax_of = (m.group(1), den)
                it.notes.append("a weight worked as a softmax written out")
                self.items.append(it)

    def vector_dot_lines(self) -> None:
        """``[1, 0] · [0, 1] = 0`` with no names: a dot product of two vectors written out, several on a
        line ("[0, 1] · [1, 0] = 0, [0, 1] · [0, 1] = 1"). Which query and key it is, the placer finds
        from the vectors (the rows of Q and K they are); a line that divides or takes a root is left alone."""
        vec = r"\[([^\[\]]{1,200})\]"
        # (the products written out before the result: "[1,0] . [1,0] = 1x1 + 0x0 = 1")
        prods = r"(?:" + _PRODUCT_TERMS + r"\s*+=\s*+)?+"
        rx = re.compile(vec + r"\s*(?:·|⋅|\\cdot|(?<=\])\s+\.(?=\s+\[))\s*" + vec + r"\s*=\s*" + prods +
                        r"([+-]?+(?:\d++(?:\.\d*+)?|\.\d++))(?![\d.]*\s*[/*·⋅\[xX×])")
        paired = {o.line for o in self.items if o.kind == "pair"}  # (this reader adds pairs on the line it reads)
        for k, ln in enumerate(self.lines):
            if ln.role == "code" and not re.search(r"\]\s*(?:·|⋅|\s\.\s)\s*\[", ln.text):
                continue  # (in code only hand arithmetic: '[1,0] . [0,1] = 0' is no statement of any language)
            # (vectors in inline code: "`[1, 0]` · `[0, 1]` = 0")
            t = ln.text.replace("\\[", "[").replace("\\]", "]").replace("−", "-").replace("`", "")
            if re.search(r"/|√|sqrt|\\frac|÷", t) or k in paired:
                continue
            for m in rx.finditer(t):
                a = [x.strip() for x in m.group(1).split(",")]
                b = [x.strip() for x in m.group(2).split(",")]
                if len(a) != len(b) or not all(is_number(x) for x in a + b):
                    continue
                result = m.group(3)
                if re.match(r"\s*[+-]", t[m.end():]):
                    # the products' sum written before the result: "= 1.8225 + 0.64 = 2.4625"
                    tail = _SUM_THEN_RESULT_RE.match(t, m.end())
                    if tail is None:
                        continue
                    result = tail.group(1)
                it = Item(rows=[[result]], where=[ln.where], line=k, end=k, kind="scalar", label=t.strip()[:100],
                          step="scores", strength=2, role=ln.role, head=self.heading_head(k))
                it.dot = (a, b)
                it.notes.append("a dot product of two vectors written out")
                self.items.append(it)

    def division_runs(self) -> None:
        """Consecutive lines that each divide one number by the same divisor
        (``1 / 1.732 = 0.577`` under one another): the worked row of one query, its results
        in order. The divisor says which step: √n for a whole n (the scale √d_k, when the
        page speaks of scaling or a root nearby) gives the scaled scores; a divisor that the
        numerators add up to (the softmax's sum) gives the weights."""
        num = r"[+-]?(?:\d++(?:\.\d*+)?|\.\d+)"
        # possessive leading space (\s*+): a line of spaces is not split between it and the label
        # every way (that was quadratic in the line, minutes for a few thousand spaces)
        # (a label may be a name with indices before '=': 'alpha_1 = ', 'scaled_score(Q1,K1) = ')
        rx = re.compile(r"^\s*+(?:[-*•+]\s+|\d{1,2}[.)]\s+)?((?:[A-Za-z_][\w{}^]{0,30}(?:\([^()=\n]{0,24}\))?\s*=\s*)?"
                        r"[^\d=]{0,80}?)[`$]*+\s*+(" + num + r")\s*/\s*(" + num +
                        r")\s*(?:=|≈)\s*(" + num + r")\s*[`$]*\s*$")
        k = 0
        lines = self.lines
        while k < len(lines):
            # (a line of code never divides into a result: '1 / 1.414 ≈ 0.7071' in a plain block is hand arithmetic)
            m = rx.match(lines[k].text.replace("−", "-")) if k not in self.block_lines and "/" in lines[k].text and (
                lines[k].role != "code" or re.search(r"(?:=|≈)\s*[+-]?[\d.]+\s*$", lines[k].text.split("/", 1)[1])
                and re.search(r"≈|=[^=]*/[^=]*=", lines[k].text)) else None
            if not m:
                k += 1
                continue
            run = [(k, m)]
            j = k + 1
            while j < len(lines):
                if not lines[j].text.strip():
                    j += 1
                    continue
                mm = rx.match(lines[j].text.replace("−", "-")) if lines[j].role == lines[k].role else None
                if not mm or float(mm.group(3)) != float(m.group(3)):
                    break
                run.append((j, mm))
                j += 1
            k = run[-1][0] + 1
            if len(run) < 2:
                continue
            d = float(m.group(3))
            tops = [float(x.group(2)) for _, x in run]
            outs = [x.group(4) for _, x in run]
            near = " ".join(lines[i].text for i in range(max(0, run[0][0] - 4), run[0][0]))
            heading = self.heading_above(run[0][0], max(0, run[0][0] - 12))
            labels = " ".join(x.group(1) for _, x in run)
            step = None
            dec = len(m.group(3).split(".")[1]) if "." in m.group(3) else 0
            if d > 0 and abs(sum(tops) - d) <= max(0.5 * 10 ** -dec * len(tops), 1e-9) and \
                    re.search(r"soft-?max|weights?|probabilit|normali[sz]", labels + " " + near + " " + heading, re.I):
                step = "weights"
            elif d > 0 and round(d * d) >= 1 and abs(d - round(d * d) ** 0.5) <= 0.5 * 10 ** -dec + 1e-12 and \
                    re.search(r"scal|sqrt|√|square\s+root|d_?k", near + " " + heading, re.I):
                step = "scaled"
            if step is None:
                continue
            it = Item(rows=[outs], where=[lines[run[0][0]].where, lines[run[-1][0]].where], line=run[0][0],
                      end=run[-1][0], kind="vector", label=heading or labels.strip(), step=step, strength=2,
                      role=lines[k - 1].role, form="lines")
            it.notes.append(f"{len(run)} lines dividing by {m.group(3)}: one row of {step}")
            if step == "weights" and _UNSCALED_WORDS_RE.search(near + " " + labels):
                it.notes.append(UNSCALED_NOTE)  # 'Unscaled, softmax of (0,4,2) itself:' then its lines
            self.items.append(it)


_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "sixth": 5, "seventh": 6, "eighth": 7,
             "ninth": 8, "tenth": 9, "last": -1, "final": -1}
_ORD = r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|final|\d{1,2}(?:st|nd|rd|th))"
_AND = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)"
#: "the first and last (words)", "the second token": positions among the keys, with an optional noun that
#: says they are keys (not rows, steps or heads, whose ordinals name something else)
_ORD_LIST_RE = re.compile(rf"\b(?:the\s+)?({_ORD}(?:{_AND}(?:the\s+)?{_ORD})*)\b(?:\s+(?:two|three|four))?"
                          r"(?:\s+([a-z]+))?", re.I)
_KEY_NOUNS = re.compile(r"(?:words?|tokens?|keys?|positions?|annotations?|elements?|entries|entry|items?|ones?|"
                        r"inputs?|vectors?|columns?|values?|get|gets|got|receives?|received|has|have|had|is|are|was|"
                        r"were|scored?|takes?|obtains?|weights?|attention|with|at|of|in|to|probabilit(?:y|ies))\b", re.I)
_QUOTED_LIST_RE = re.compile(rf"([\"'“‘][^\"'“”‘’\s]{{1,30}}[\"'”’](?:{_AND}[\"'“‘][^\"'“”‘’\s]{{1,30}}[\"'”’])*)")
_PNUM = r"(?<![\w.^_/×*^-])[+-]?(?:\d+\.\d+|\.\d+|\d+)(?:\s?%)?(?![\w%×*/^]|\.\d)"
_NUM_LIST_RE = re.compile(rf"({_PNUM}(?:{_AND}{_PNUM})*)")
#: words that say which step a number in a sentence belongs to
_HINT_RE = re.compile(r"\b(softmax|weights?|weighted|probabilit(?:y|ies)|attention|attends?|attended|"
                      r"scores?|scored|dot\s+products?|logits?|similarit(?:y|ies))\b", re.I)


#: what a number written after it counts or labels (not a value of a step): "step 2", "√4", "d_k = 4"
_NOT_VALUE = re.compile(r"(?:\b(?:steps?|rows?|heads?|layers?|lines?|figures?|tables?|equations?|sections?|chapters?|"
                        r"dimensions?|dims?|positions?|tokens?|words?|query|queries|keys?|d_?k|d_?model|size|"
                        r"of\s+size|by|times|than)|[#√=×*/^])\s*$", re.I)


def _hint(word: str) -> str:
    return "scores" if re.match(r"scor|dot|logit|similar", word, re.I) else "weights"


def _adverb_ordinal(s: str, m: re.Match) -> bool:
    """Whether an ordinal says when, not which key: after a pronoun, with no noun and the clause ending
    (``need not add up to 1; softmax them first.``)."""
    return not m.group(2) and bool(re.search(r"\b(?:them|it|this|that|these|those)\s+$", s[:m.start(1)], re.I)) \
        and bool(re.match(r"\s*(?:[.;,:!?)]|$)", s[m.end(1):]))


def positions_in(sentence: str) -> list[tuple[list[int | str], list[str], str]]:
    """Numbers a sentence gives by position: (positions, numbers as printed, step hinted).
    A position is a 0-based key index (-1: the last) or a quoted token; only when the
    sentence has one list of positions and a list of numbers as long, with a word saying
    which step (weights: softmax, attention, weight, probability; scores: score, dot product).

    >>> positions_in("The first and last annotations scored 927 and 929; after softmax they get 0.119 and 0.880.")
    [([0, -1], ['927', '929'], 'scores'), ([0, -1], ['0.119', '0.880'], 'weights')]
    >>> positions_in("The model gives weights of 0.2, 0.3 and 0.5 to 'the', 'cat' and 'sat'.")
    [(['the', 'cat', 'sat'], ['0.2', '0.3', '0.5'], 'weights')]
    >>> positions_in("The first and second words get 73% and 27% of the attention.")
    [([0, 1], ['0.73', '0.27'], 'weights')]
    >>> positions_in("The first row gets 0.5 attention"), positions_in("the first 3 tokens get 0.5")
    ([], [])
    >>> positions_in("raw scores can be negative and need not add up to 1; softmax them first.")
    []
    """
    s = sentence.replace("−", "-")
    ords = [m for m in _ORD_LIST_RE.finditer(s)
            if not m.group(2) or _KEY_NOUNS.fullmatch(m.group(2))]
    ords = [m for m in ords if not re.match(r"\s+\d", s[m.end(1):])]  # "the first 3 tokens": a count
    ords = [m for m in ords if not _adverb_ordinal(s, m)]  # "softmax them first": when, not which key
    fraction = [m for m in ords if re.search(r"\b(?:one|two|three|a|an)\s+$", s[:m.start(1)], re.I)]
    ords = [m for m in ords if m not in fraction]  # "one third", "a fifth": a fraction, not a position
    quoted = list(_QUOTED_LIST_RE.finditer(s))
    if len(ords) + len(quoted) != 1 or len(_ORD_LIST_RE.findall(s)) > len(ords) + len(fraction):
        return []  # no positions, several lists of them, or an ordinal of something else (a row, a step)
    if ords:
        pos_m = ords[0]
        positions: list[int | str] = []
        for w in re.split(_AND + r"|\s+", pos_m.group(1)):
            w = w.strip().lower()
            if w in ("", "the", "and"):
                continue
            positions.append(_ORDINALS[w] if w in _ORDINALS else int(re.match(r"\d+", w).group(0)) - 1)  # type: ignore[union-attr]
        span = (pos_m.start(), pos_m.end(1))
    else:
        pos_m = quoted[0]
        positions = [w[1:-1] for w in re.findall(r"[\"'“‘][^\"'“”‘’\s]{1,30}[\"'”’]", pos_m.group(1))]
        span = (pos_m.start(), pos_m.end())
    out: list[tuple[list[int | str], list[str], str]] = []
    prev = 0
    lists = [m for m in _NUM_LIST_RE.finditer(s) if not (span[0] <= m.start() < span[1])
             and not re.search(_NOT_VALUE, s[:m.start()]) and not re.match(r"\s*[=×*/^]", s[m.end():])]
    for i, m in enumerate(lists):
        nums = [from_percent(x) or x for x in re.findall(_PNUM, m.group(1))]  # "73%" is 0.73
        nxt = lists[i + 1].start() if i + 1 < len(lists) else len(s)
        before = [h.group(1) for h in _HINT_RE.finditer(s, prev, m.start())]
        after = [h.group(1) for h in _HINT_RE.finditer(s, m.end(), nxt)]
        prev = m.end()
        if len(nums) != len(positions) or len(set(positions)) != len(positions):
            continue
        if quoted and not (0 <= m.start() - span[1] <= 40 or 0 <= span[0] - m.end() <= 40):
            continue  # a quoted word far from the numbers is not what they are given for
        hint = before[-1] if before else after[0] if after else None
        if hint is not None:
            out.append((list(positions), nums, _hint(hint)))
    return out


_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_VAL = (r"([+-]?(?:\d+\.\d+|\.\d+|\d+)(?:[eE][+-]?\d+)?)(?=\s*$|\s|[,;](?:\s|$)|\.(?:\s|$)|\$|\)|\\)"
        r"(?!\s*(?:[×*·/+^=]|\\times|\\cdot|-\s*\d))")
_IDX = r"(?:_\{?\s*(\d)(\d)\s*\}?|_\{?\s*(\d{1,2})\s*,\s*(\d{1,2})\s*\}?|_(\d{1,2}),(\d{1,2}))"
#: "α₁₂ = 0.24", "a_{1,2} = 0.24", "\alpha_{21} ≈ 0.1385", "w₂₁ = 0.254" (weights); "ω₂₁", "e_{12}", "s_12" (scores);
#: several on a line, each possibly after a formula ("α₁₂ = e^1/(e^1 + e^0) = 0.731")
#: a formula between the name and the number: digits, operators, e, exp, \\frac, \\sqrt (no other words)
_FORMULA = r"(?:(?:exp|sqrt|frac|cdot|times|left|right|[\\\d .+\-*/×·⋅^(){}\[\]√e]){1,120}?(?:=|≈)\s*)?"
_ELEM_RE = re.compile(r"(?<![\w\\])\\?(ω|omega|α|alpha|a|s|e|w)" + _IDX + r"\s*(?:=|≈)\s*" + _FORMULA + _VAL)
#: "q1·k2 = 1×0 + 0×1 = 0", "q_1 \cdot k_2 = 0", "q₂ · k₁ᵀ = 5" (scores); "q1·k2/√2 = 0.71" (scaled)
_DOT_RE = re.compile(r"(?<![\w\\])q_?\{?(\d{1,2})\}?\s*(?:·|⋅|•|∙|\\cdot|\*|@|\.)\s*k_?\{?(\d{1,2})\}?"
                     r"(?:\s*(?:\^\{?(?:T|\\top)\}?|ᵀ))?(\s*/\s*(?:√|\\sqrt)\s*\{?\s*\d+(?:\.\d+)?\s*\}?)?"
                     r"\s*(?:=|≈)\s*" + _FORMULA + _VAL)


def indexed_values(text: str) -> list[tuple[str | None, int, int, str]]:
    r"""Entries of a step written one by one with their query and key index, as (step, query
    index, key index, number as printed); the indices as written (the page's own base).

    >>> indexed_values("so α₁₂ = 0.269 and α₂₁ = e^0/(e^1 + e^0) = 0.2689.")
    [('weights', 1, 2, '0.269'), ('weights', 2, 1, '0.2689')]
    >>> indexed_values("$a_{1,2} = 0.24$"), indexed_values("q1·k2 = 1×0 + 0×1 = 0"), indexed_values("q_2 \\cdot k_1 / \\sqrt{2} = 0.71")
    ([(None, 1, 2, '0.24')], [('scores', 1, 2, '0')], [('scaled', 2, 1, '0.71')])
    >>> indexed_values("a_1 = 0.5, x_12 = 3, α₁₂ = 0.2 × 3"), indexed_values("α₁₂ = 0.2 and so α₂₁ = 0.3")
    ([], [('weights', 1, 2, '0.2'), ('weights', 2, 1, '0.3')])
    """
    t = re.sub(r"([₀-₉]+)(?:,([₀-₉]+))?", lambda m: "_{" + ",".join(g for g in m.groups() if g) + "}",
               text).translate(_SUBSCRIPTS).replace("−", "-")
    out = []
    for m in _ELEM_RE.finditer(t):
        g = [x for x in m.groups()[1:7] if x is not None]
        if m.group(1) == "e" and re.search(r"exp|e\^", m.group(0)[1:]):
            continue  # e_ij = exp(…): an exponential, not an energy
        # a Latin letter (a_{12}, s_12, e_12, w_21) names an entry of any matrix as often as a weight or a score:
        # no step, so that the numbers decide
        st = {"ω": "scores", "omega": "scores", "α": "weights", "alpha": "weights"}.get(m.group(1))
        out.append((st, int(g[0]), int(g[1]), m.group(8)))
    for m in _DOT_RE.finditer(t):
        out.append(("scaled" if m.group(3) else "scores", int(m.group(1)), int(m.group(2)), m.group(4)))
    return out


_KNUM = r"[+-]?(?:\d+\.\d+|\.\d+|\d+)(?:[eE][+-]?\d+)?"
_KTOK = r"(?:[^\W\d_]|[<>])[\w<>'’-]{0,30}"  # a word in any script ('the', '<eos>', 'latte', '라떼')
#: a dictionary printed by code: {'the': 0.2119, 'cat': 0.2119, 'sat': 0.5761} (np.float64(0.21) too)
_DICT_RE = re.compile(rf"\{{\s*((?:(['\"]){_KTOK}\2\s*:\s*(?:np\.float\d+\()?{_KNUM}\)?\s*,\s*)+"
                      rf"(['\"]){_KTOK}\3\s*:\s*(?:np\.float\d+\()?{_KNUM}\)?\s*,?)\s*\}}")
_DICT_ENTRY_RE = re.compile(rf"(['\"])({_KTOK})\1\s*:\s*(?:np\.float\d+\()?({_KNUM})")
#: one line of a per-token list: "- the: 0.21", "'cat' → 0.21", "sat = 0.58"
_KV_LINE_RE = re.compile(rf"\s*(?:[-•*]\s+)?([\"'“‘`]?)({_KTOK})[\"'”’`]?\s*(?::|=|→|->)\s*"
                         rf"(?:{_KNUM}(?:\s*[×*·+-]\s*{_KNUM})+\s*=\s*)?({_KNUM})\s*[,;]?\s*")
# (the number may follow the sum that makes it: 'latte: 0.6×1 + 0.4×0 = 0.6')
#: names in a "name: number" list that are settings, not tokens
_NOT_TOKENS = {"d", "dk", "d_k", "d_model", "dmodel", "n", "scale", "sum", "total", "max", "min", "mean", "seed",
               "temperature", "heads", "n_heads", "num_heads", "dim", "step", "shape", "size", "loss", "lr"}

_PERCENT_RE = re.compile(r"([+-]?(?:\d{1,3}(?:\.\d{1,20})?|\.\d{1,20}))\s?%")


def from_percent(text: str) -> str | None:
    """A percentage as the decimal it is, with the same digits: "73%" → "0.73", "26.9 %" → "0.269",
    "100%" → "1.00"; None for anything else.

    >>> from_percent("73%"), from_percent("26.9 %"), from_percent("100%"), from_percent("0.5%"), from_percent("73")
    ('0.73', '0.269', '1.00', '0.005', None)
    """
    m = _PERCENT_RE.fullmatch(text.strip())
    if not m:
        return None
    return format(Decimal(m.group(1)).scaleb(-2), "f")


_SUM_HEADER = re.compile(r"(?:Σ|∑|\\sum)(?:_?\{?j\}?)?|(?:row\s+)?sums?|totals?|sum\s+of\s+(?:the\s+)?(?:weights|row)", re.I)
_ORD_OR_QUOTE = re.compile(rf"\b{_ORD}\b|[\"'“‘]", re.I)
def rows_in(sentence: str) -> list[list[str]]:
    """Rows of numbers a sentence lists ("the attention weights for 'sat' are 0.21, 0.21 and 0.58",
    "Softmax output: 0.21, 0.21, 0.58"): each list of two or more numbers, in a sentence with a word
    that names a step (softmax, weights, attention, scores, …) and no positions (:func:`positions_in`).

    >>> rows_in("The attention weights for the first word are 0.42, 0.16 and 0.42."), rows_in("dims 2, 3 and 4")
    ([['0.42', '0.16', '0.42']], [])
    """
    s = sentence.replace("−", "-")
    if not _HINT_RE.search(s) or positions_in(sentence):
        return []
    out = []
    for m in _NUM_LIST_RE.finditer(s):
        nums = re.findall(_PNUM, m.group(1))
        if len(nums) >= 2 and not re.search(_NOT_VALUE, s[:m.start()]) and not re.match(r"\s*[=×*/^]", s[m.end():]):
            out.append([from_percent(x) or x for x in nums])
    return out


def tuple_shown(last: str, blocks: list, b: object) -> str | None:
    """The name of ``b`` when a cell ends with a tuple of names (``W_Q, W_K, W_V``: the notebook
    shows the tuple) and its output holds one printed block per name, in order.

    >>> tuple_shown("W_Q, W_K, W_V", ["a", "b", "c"], "b"), tuple_shown("(q, k)", ["a", "b"], "a")
    ('W_K', 'q')
    >>> tuple_shown("W_Q, W_K, W_V", ["a", "b"], "b"), tuple_shown("x = a, b", ["a", "b"], "a")
    (None, None)
    """
    m = re.fullmatch(r"\(?\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)\s*,?\s*\)?", last)
    if not m:
        return None
    names = [x.strip() for x in m.group(1).split(",")]
    idx = next((i for i, x in enumerate(blocks) if x is b), None)
    return names[idx] if idx is not None and len(blocks) == len(names) else None


def pair_in(sentence: str) -> tuple[str, str, str, str] | None:
    """A sentence that gives one entry for two quoted tokens: (first token, second token, the
    number as printed, step hinted); which is the query is left to the numbers.

    >>> pair_in("The attention weight of 'sat' on 'cat' is 0.21.")
    ('sat', 'cat', '0.21', 'weights')
    >>> pair_in("“cat” attends to “sat” with weight 0.42"), pair_in("“jumps” has a score of 0.27, the same as “fox”")
    (('cat', 'sat', '0.42', 'weights'), None)
    """
    s = sentence.replace("−", "-")
    lists = list(_QUOTED_LIST_RE.finditer(s))
    toks = [w[1:-1] for m in lists for w in re.findall(r"[\"'“‘][^\"'“”‘’\s]{1,30}[\"'”’]", m.group(1))]
    if len(lists) != 2 or len(toks) != 2 or _ORD_LIST_RE.search(s):
        return None
    spans = [(m.start(), m.end()) for m in lists]
    if not re.fullmatch(r"\s*(?:(?:attends?|attending|attention|pays?|gives?|puts?|places?)\s+(?:[a-z]+\s+){0,3})?"
                        r"(?:to|on|onto|towards?|for|and|with|over|→|->)\s*(?:the\s+)?(?:word|token|key)?\s*",
                        s[spans[0][1]:spans[1][0]], re.I):
        return None  # the two words are not a query and a key of one entry ("… the same as 'fox'")
    nums = [m for m in _NUM_LIST_RE.finditer(s) if not any(a <= m.start() < b for a, b in spans)
            and not re.search(_NOT_VALUE, s[:m.start()]) and not re.match(r"\s*[=×*/^]", s[m.end():])]
    if len(nums) != 1 or len(re.findall(_PNUM, nums[0].group(1))) != 1:
        return None
    hints = [h.group(1) for h in _HINT_RE.finditer(s)]
    if not hints or len({_hint(h) for h in hints}) != 1:
        return None
    num = re.findall(_PNUM, nums[0].group(1))[0]
    return toks[0], toks[1], from_percent(num) or num, _hint(hints[0])




def join_indexed_rows(items: list[Item]) -> list[Item]:
    """Rows named by their index (``q1 = […]``, ``q2 = […]``, … , interleaved with k1, v1, …) joined
    into the matrix they are rows of, when indices 1…n each come once, in order, with one width."""
    out: list[Item] = []
    open_: dict[str, list[Item]] = {}

    def close(step: str) -> None:
        grp = open_.pop(step, [])
        if len(grp) < 2:
            out.extend(grp)
            return
        m = Item(rows=[g.rows[0] for g in grp], where=[g.where[0] for g in grp], line=grp[0].line, end=grp[-1].end,
                 kind="matrix", label=step, step=step, strength=3, role=grp[0].role, form=grp[0].form)
        m.notes.append(", ".join(g.label for g in grp) + f": the rows of {step}")
        out.append(m)

    for it in items:
        ix = it.kind == "vector" and it.step in _INDEXED_STEP.values() and it.strength == 3 and it.row_index \
            and any(n.endswith(f": row {it.row_index} of {it.step}") for n in it.notes)
        if not ix:
            if _numeric_rows(it.rows) and not it.operand:
                for st in list(open_):
                    close(st)
            out.append(it)
            continue
        grp = open_.get(it.step, [])  # type: ignore[arg-type]
        if grp and (it.row_index != len(grp) + 1 or len(it.rows[0]) != len(grp[0].rows[0])):
            close(it.step)  # type: ignore[arg-type]
            grp = []
        if not grp and it.row_index != 1:
            out.append(it)
            continue
        open_[it.step] = grp + [it]  # type: ignore[index]
    for st in list(open_):
        close(st)
    out.sort(key=lambda it: (it.line, it.where[0].line))
    return out


_DIAGRAM_OPS = re.compile(r"(?:[x×*·@=+]|\\times|\\cdot)")


def join_side_by_side(items: list[Item], lines: list[Line]) -> list[Item]:
    """A product drawn as matrices side by side, one row of each per line, the rows of a taller
    factor running above and below the others::

                       [0, 0, 1]
        [1, 0, 1, 0]   [1, 1, 0]   [0, 1, 1]
        [0, 2, 0, 2] x [0, 1, 0] = [4, 4, 0]

    Lines that hold only bracketed vectors, spaces and operators are read by column: the
    vectors that start at one column are the rows of one matrix; those before the '=' are
    the factors (operands), the one after it the result, named as the vectors were."""
    by_line: dict[int, list[Item]] = {}
    for it in items:
        if it.kind == "vector" and it.form == "list" and it.line == it.end and _numeric_rows(it.rows):
            by_line.setdefault(it.line, []).append(it)

    def bare(k: int) -> bool:
        vs = by_line.get(k)
        if not vs:
            return False
        text = lines[k].text
        rest, pos = "", 0
        for v in sorted(vs, key=lambda v: len(v.before)):
            a, b = len(v.before), len(text) - len(v.after)
            if a < pos or b < a:
                return False
            rest += text[pos:a] + " "
            pos = b
        rest += text[pos:]
        return not _DIAGRAM_OPS.sub(" ", rest).strip(" \t`")

    drop: set[int] = set()
    new: list[Item] = []
    k = 0
    keys = sorted(by_line)
    while k < len(keys):
        run = [keys[k]]
        while k + 1 < len(keys) and keys[k + 1] == run[-1] + 1 and bare(keys[k + 1]) and bare(run[0]) and \
                lines[keys[k + 1]].where.cell == lines[run[0]].where.cell:
            k += 1
            run.append(keys[k])
        k += 1
        if len(run) < 2 or not all(bare(x) for x in run) or max(len(by_line[x]) for x in run) < 2:
            continue
        ops = " ".join(lines[x].text for x in run)
        eq = [lines[x].text.index("=") for x in run if "=" in lines[x].text]
        if len(eq) != 1 or not re.search(r"[x×*·@]|\\times|\\cdot", ops.replace("=", " ")):
            continue
        cols: dict[int, list[Item]] = {}
        for x in run:
            for v in by_line[x]:
                c = len(v.before)
                near = next((c0 for c0 in cols if abs(c0 - c) <= 1), c)
                cols.setdefault(near, []).append(v)
        order = sorted(cols)
        mats = [cols[c] for c in order]
        if len(mats) < 3 or any(len({len(v.rows[0]) for v in m}) != 1 for m in mats) or \
                any([v.line for v in m] != list(range(m[0].line, m[-1].line + 1)) for m in mats):
            continue
        after_eq = [i for i, c in enumerate(order) if c > eq[0]]
        if len(after_eq) != 1 or after_eq[0] != len(order) - 1:
            continue
        made: list[Item] = []
        for i, m in enumerate(mats):
            it = Item(rows=[v.rows[0] for v in m], where=[v.where[0] for v in m], line=m[0].line, end=m[-1].end,
                      kind="matrix" if len(m) > 1 else "vector", role=m[0].role, form="list")
            if i < len(mats) - 1:
                it.operand = True
                it.notes.append("an operand of a product written out on the page (matrices side by side)")
            else:
                best = max(m, key=lambda v: v.strength)
                it.step, it.strength, it.label = best.step, min(best.strength, 2), best.label
                it.chain_of = made[:]
            made.append(it)
        drop.update(id(v) for m in mats for v in m)
        new += made
    if not new:
        return items
    out = [it for it in items if id(it) not in drop] + new
    out.sort(key=lambda it: (it.line, it.where[0].line))
    return out


_ROW_ALONE_RE = re.compile(r"\s*\[[^\[\]]*\]\s*[,;]?\s*(?:(?:←|<-|#|//|--)\s*.*)?$")
_STACK_HEAD_RE = re.compile(r"\s*(?:\$?\\?([A-Za-z][\w^{}ᵀ⊤\\]*)\$?\s*)?[=≈:]\s*$")


def join_stacked_rows(items: list[Item], lines: list[Line]) -> list[Item]:
    """A matrix written as plain text one bracketed row a line, under the line that names it
    (``S =`` then ``[ 1  0 ]`` and ``[ 0  1 ]``; ``≈`` then the rounded rows): the rows, each alone on
    its line (a comment after it allowed: ``← token 1``), as wide as each other and on lines that
    follow one another, are one matrix. Its name is the symbol before the '=' (``Kᵀ =`` names K,
    transposed); under a bare ``=`` or ``≈`` it keeps what the first row was read as."""
    out: list[Item] = []
    i = 0

    def alone(it: Item) -> bool:
        return it.kind == "vector" and it.line == it.end and not it.operand and not it.products and \
            it.dot is None and not it.token and it.row_index is None and it.role in ("code", "prose", "output") and \
            all(entry_kind(x) == "number" for r in it.rows for x in r) and it.line < len(lines) and \
            _ROW_ALONE_RE.fullmatch(lines[it.line].text) is not None

    while i < len(items):
        it = items[i]
        head = _STACK_HEAD_RE.fullmatch(it.before) if alone(it) and "\n" not in it.before else None
        above = lines[it.line - 1].text if it.line > 0 else ""
        if head is None and alone(it) and not it.before.strip():
            head = _STACK_HEAD_RE.fullmatch(above)  # the name on the line above, not in the block's text
        run = [it]
        if head is not None:
            j = i + 1
            while j < len(items) and alone(items[j]) and items[j].line == run[-1].line + 1 and \
                    not items[j].before.strip() and items[j].shape[1] == it.shape[1] and items[j].role == it.role:
                run.append(items[j])
                j += 1
        if len(run) < 2:
            out.append(it)
            i += 1
            continue
        name = head.group(1) if head is not None else None
        st = (step_of_ident(name) if name else None) or (step_of_text(name) if name else None)
        m = Item(rows=[r.rows[0] for r in run], where=[r.where[0] for r in run], line=run[0].line, end=run[-1].end,
                 kind="matrix", label=name or it.label, step=st or it.step, strength=3 if st else it.strength,
                 role=it.role, form=it.form, before=it.before, after=run[-1].after)
        m.transposed = bool(name) and is_transposed(name)
        m.head = it.head
        m.notes.append(f"{len(run)} rows written one a line under {(name or it.label).strip()!r}: one matrix")
        out.append(m)
        i += len(run)
    return out


_DICT_HEAD_RE = re.compile(r"\s*((?:self\.)?[A-Za-z_]\w*)\s*(?::[^=]{1,60})?=\s*(?:dict\(\s*)?\{\s*(?:#.*)?$")
_DICT_ROW_RE = re.compile(r"\s*[\"']([^\"']{1,40})[\"']\s*:\s*(?:(?:np|numpy|torch|jnp)\.(?:array|tensor)\(\s*)?\[")


_STR_LIST_RE = re.compile(r"\[\s*((?:[\"'][^\"'\n]{1,40}[\"']\s*,\s*)+[\"'][^\"'\n]{1,40}[\"'])\s*,?\s*\]")


def _looked_up_out_of_order(keys: list[str], lines: list[Line]) -> bool:
    """Whether the code writes a list of the dictionary's keys in another order, or with a key twice
    (``doc_tokens = ["the", "cat", "sat", "on", "the", "mat"]``): the dictionary is then a vocabulary
    the sentence is looked up in, not the sentence's rows in order."""
    low = [k.lower() for k in keys]
    for ln in lines:
        if ln.role != "code":
            continue
        for m in _STR_LIST_RE.finditer(ln.text):
            words = [w.strip().strip("\"'").lower() for w in m.group(1).split(",")]
            if not all(w in low for w in words):
                continue
            at = [low.index(w) for w in words]
            if len(set(at)) != len(at) or at != sorted(at):
                return True
    return False


def _one_per_printed_dict(outs: list, b, lines: list[Line]) -> list:
    """The printed blocks of an output with the blocks of one printed dictionary line (``{'cat': array([…]),
    'sat': array([…])}``) counted once (``b`` kept where it is one of them)."""
    out: list = []
    for x in outs:
        prev = out[-1] if out else None
        if prev is not None and isinstance(x, Numbers) and isinstance(prev, Numbers) and x.start == prev.start \
                and x.start < len(lines) and lines[x.start].text.lstrip().startswith("{"):
            if x is b:
                out[-1] = x
            continue
        out.append(x)
    return out


def _displayed_dict(same: list[Item], lines: list[Line]) -> tuple[list[str], str, str] | None:
    """A notebook cell's displayed value that is a dictionary of vectors (``context`` as the cell's last line,
    its output ``{'cat': array([0.73, 0.27]), 'sat': array([…])}``): (keys, the name, its step), when it is the
    cell's last output line and the name names a step; None otherwise."""
    it = same[0]
    if len(same) < 2 or it.role != "output" or not it.where or it.where[0].cell is None or \
            not lines[it.line].text.lstrip().startswith("{"):
        return None
    cell = it.where[0].cell
    after = [ln for ln in lines[it.line + 1:] if ln.where.cell == cell and ln.text.strip()]
    code = [ln.text for ln in lines if ln.where.cell == cell and ln.role == "code" and ln.text.strip()]
    m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*", code[-1]) if code and not after else None
    st = (step_of_ident(m.group(1)) or step_of_text(m.group(1))) if m else None
    if m is None or st is None:
        return None
    fake = [Item(x.rows, x.where, x.line, x.end, x.kind, role="code", form=x.form) for x in same]
    keys = _one_line_keys(fake, [Line(m.group(1) + " = " + lines[it.line].text.strip(), it.where[0], "code")
                                 if k == it.line else ln for k, ln in enumerate(lines)])
    return (keys, m.group(1), st) if keys is not None else None


_DICT_LINE_RE = re.compile(r"\s*[A-Za-z_]\w*\s*=\s*\{")  # 'emb = {': a line that may hold a dictionary


def _one_line_keys(same: list[Item], lines: list[Line]) -> list[str] | None:
    """The keys of a dictionary of vectors written on one code line (``emb = {"the": [1, 0], "cat": [0, 1]}``),
    given the vectors read on that line: one key before each vector, in order, the vectors as wide as each
    other; None when the line is no such dictionary."""
    it = same[0]
    if len(same) < 2 or it.role != "code" or it.line >= len(lines) or any(
            x.kind != "vector" or x.line != x.end or x.operand or x.products or x.shape != it.shape or
            not _numeric_rows(x.rows) for x in same):
        return None
    text = lines[it.line].text
    if not _DICT_LINE_RE.match(text):
        return None
    keys = re.findall(r"[{,]\s*[\"']([^\"'\n]{1,40})[\"']\s*:\s*(?:(?:(?:np|numpy|torch|jnp)\.)?(?:array|tensor)\(\s*)?\[",
                      text)
    return keys if len(keys) == len(same) and len({k.lower() for k in keys}) == len(keys) and \
        not any(step_of_text(k) for k in keys) else None


def join_dict_rows(items: list[Item], lines: list[Line]) -> list[Item]:
    """A code dictionary from tokens to vectors, one entry a line (``vectors = {`` then
    ``"cat": np.array([1.0, 0.0]),``, ``"sat": [..],`` …): the entries, as wide as each other and on
    lines that follow one another (blank and comment lines between allowed), are the rows of one matrix
    whose rows are named by the keys, and whose name is the dictionary's. A mapping from words to
    vectors is a table of embeddings: a name that names no step (``vectors``, ``vecs``) makes it X."""
    out: list[Item] = []
    i = 0

    def entry(it: Item) -> bool:
        return it.kind == "vector" and it.role == "code" and it.line == it.end and bool(it.token) and \
            not it.operand and not it.products and it.row_index is None and it.line < len(lines) and \
            _DICT_ROW_RE.match(lines[it.line].text) is not None and _numeric_rows(it.rows)

    def head_of(it: Item) -> re.Match | None:
        k = it.line - 1
        while k >= 0 and k >= it.line - 3 and (not lines[k].text.strip() or lines[k].text.strip().startswith("#")):
            k -= 1
        return _DICT_HEAD_RE.fullmatch(lines[k].text) if k >= 0 and lines[k].role == "code" else None

    def between_ok(a: int, b: int) -> bool:
        return all(not lines[k].text.strip() or lines[k].text.strip().startswith("#") for k in range(a + 1, b))

    at_line: dict[int, list[int]] = {}  # each line's items (their indices, in order): found once, not per item
    for j, x in enumerate(items):
        at_line.setdefault(x.line, []).append(j)
    while i < len(items):
        it = items[i]
        on_line = at_line[it.line]
        text = lines[it.line].text if it.line < len(lines) else ""
        if (it.role == "code" and _DICT_LINE_RE.match(text)) or (it.role == "output" and text.lstrip().startswith("{")):
            same = [items[j] for j in on_line[bisect.bisect_left(on_line, i):]]
            keys = _one_line_keys(same, lines)
            shown = _displayed_dict(same, lines) if keys is None else None
        else:  # (no dictionary can start here: the line's items are not gathered, which was quadratic in them)
            same, keys, shown = [it], None, None
        if shown is not None:
            keys, name, st = shown
        if keys is not None and not _looked_up_out_of_order(keys, lines):
            # 'emb = {"the": [1, 0], "cat": [0, 1]}' on one line: one matrix, its rows named by the keys
            if shown is None:
                name = re.match(r"\s*([A-Za-z_]\w*)", lines[it.line].text).group(1)  # type: ignore[union-attr]
                st = step_of_ident(name) or step_of_text(name)
            m = Item(rows=[x.rows[0] for x in same], where=[x.where[0] for x in same], line=it.line, end=it.end,
                     kind="matrix", label=name, step=st or "X", strength=3 if st else 2, role=it.role, form=it.form,
                     before=it.before, after=same[-1].after)
            m.row_labels = keys
            m.notes.append(f"{len(same)} vectors in the dictionary {name!r}, one per token: one matrix, its rows "
                           "named by the keys")
            out.append(m)
            i += len(same)
            continue
        head = head_of(it) if entry(it) else None
        run = [it]
        if head is not None:
            j = i + 1
            while j < len(items) and entry(items[j]) and 0 < items[j].line - run[-1].line <= 3 and \
                    between_ok(run[-1].line, items[j].line) and items[j].shape[1] == it.shape[1]:
                run.append(items[j])
                j += 1
        toks = [r.token or "" for r in run]
        if len(run) < 2 or len({t.lower() for t in toks}) != len(toks) or _looked_up_out_of_order(toks, lines) \
                or any(step_of_text(t) for t in toks):  # {"query": [..], "key": [..]}: steps by name, no tokens
            out.append(it)
            i += 1
            continue
        name = head.group(1).removeprefix("self.")
        st = step_of_ident(name) or step_of_text(name)
        m = Item(rows=[r.rows[0] for r in run], where=[r.where[0] for r in run], line=run[0].line, end=run[-1].end,
                 kind="matrix", label=name, step=st or "X", strength=3 if st else 2, role=it.role, form=it.form,
                 before=head.group(0), after=run[-1].after)
        m.row_labels = toks
        m.notes.append(f"{len(run)} vectors in the dictionary {name!r}, one per token: one matrix, its rows named "
                       "by the keys")
        out.append(m)
        i += len(run)
    return out


_LOOKUP_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*(?:(?:np|numpy|torch|jnp)\.(?:stack|vstack|array|tensor)\(\s*)?"
                        r"\[\s*([A-Za-z_]\w*)\[\s*([A-Za-z_]\w*)\s*\]\s+for\s+([A-Za-z_]\w*)\s+in\s+([A-Za-z_]\w*)\s*\]")


def looked_up_rows(items: list[Item], lines: list[Line]) -> list[Item]:
    """A matrix the code makes by looking a list of tokens up in a dictionary of vectors written above
    (``K = np.stack([B[w] for w in doc_tokens], axis=0)`` with ``B = {"cat": np.array([..]), …}`` and
    ``doc_tokens = ["the", "cat", "sat"]``): one more item, its rows the dictionary's vectors in the list's
    order (a token twice gives its row twice), named as the code names it, each row traced to the entry.
    The dictionary's entries stay where they are."""
    vocab: dict[str, dict[str, Item]] = {}
    for it in items:
        if it.kind == "vector" and it.role == "code" and it.token and it.line < len(lines) and \
                _DICT_ROW_RE.match(lines[it.line].text):
            k = it.line - 1
            while k >= 0 and _DICT_ROW_RE.match(lines[k].text):
                k -= 1
            head = _DICT_HEAD_RE.fullmatch(lines[k].text) if k >= 0 else None
            if head is not None:
                vocab.setdefault(head.group(1), {}).setdefault(it.token, it)
    if not vocab:
        return items
    lists: dict[str, list[str]] = {}
    made: list[Item] = []
    for k, ln in enumerate(lines):
        if ln.role != "code":
            continue
        m = _STR_LIST_RE.search(ln.text)
        a = re.match(r"\s*([A-Za-z_]\w*)\s*=", ln.text)
        if m and a and ln.text[a.end():].strip().startswith("["):
            lists[a.group(1)] = [w.strip().strip("\"'") for w in m.group(1).split(",")]
            continue
        m = _LOOKUP_RE.match(ln.text)
        if m is None or m.group(3) != m.group(4) or m.group(2) not in vocab or m.group(5) not in lists:
            continue
        table, words = vocab[m.group(2)], lists[m.group(5)]
        st = step_of_ident(m.group(1))
        if st is None or any(w not in table for w in words) or len({len(r.rows[0]) for r in table.values()}) != 1:
            continue
        rows = [table[w] for w in words]
        it = Item(rows=[r.rows[0] for r in rows], where=[r.where[0] for r in rows], line=k, end=k, kind="matrix",
                  label=m.group(1), step=st, strength=3, role="code", form=rows[0].form)
        it.row_labels = list(words)
        it.notes.append(f"the rows of {m.group(2)!r} for {m.group(5)!r} ({', '.join(words)}), as the code looks "
                        "them up")
        made.append(it)
    return sorted(items + made, key=lambda it: (it.line, it.where[0].line)) if made else items


def join_word_sections(items: list[Item], lines: list[Line]) -> list[Item]:
    """Per-word sections that each give a word's vectors by name (``**Word 1 ("The"):**`` then
    ``Query: [1, 0, 0]``, ``Key: […]``, ``Value: […]``; the next word the same way): each name's
    vectors, section by section, are the rows of that matrix, and a word quoted (or numbered) above
    each section names its row. Only where every section names the same steps, each once."""
    out: list[Item] = []
    i = 0
    steps = ("X", "Q", "K", "V")
    while i < len(items):
        run: list[Item] = []
        j = i
        while j < len(items) and items[j].kind == "vector" and items[j].step in steps and items[j].strength >= 2 \
                and items[j].token is None and items[j].row_index is None and not items[j].operand and \
                (not run or items[j].line - run[-1].end <= 4):
            run.append(items[j])
            j += 1
        sections: list[list[Item]] = []
        for it in run:
            if not sections or it.step in [x.step for x in sections[-1]]:
                sections.append([])
            sections[-1].append(it)
        names = [[x.step for x in sec] for sec in sections]
        widths = [[len(x.rows[0]) for x in sec] for sec in sections]
        if len(sections) < 2 or any(n != names[0] for n in names) or any(w != widths[0] for w in widths):
            out.extend(items[i:j] if j > i else items[i:i + 1])
            i = max(j, i + 1)
            continue
        words = [_section_word(lines, sec[0].line, (sections[k - 1][-1].end if k else sec[0].line - 6))
                 for k, sec in enumerate(sections)]
        labels = words if all(words) and len(set(words)) == len(words) else None
        for n, step in enumerate(names[0]):
            rows = [sec[n] for sec in sections]
            m = Item(rows=[r.rows[0] for r in rows], where=[r.where[0] for r in rows], line=rows[0].line,
                     end=rows[-1].end, kind="matrix", label=rows[0].label, step=step, strength=rows[0].strength,
                     role=rows[0].role, form=rows[0].form, row_labels=list(labels) if labels else None)
            m.notes.append(f"{step}: one row per word's section ({len(sections)} sections)")
            out.append(m)
        i = j
    out.sort(key=lambda it: (it.line, it.where[0].line))
    return out


def _section_word(lines: list[Line], start: int, stop: int) -> str | None:
    """The word a section is about, from the line that opens it: ``**Word 2 ("cat"):**``, ``For "cat":``."""
    for k in range(start - 1, max(stop, -1), -1):
        t = lines[k].text.strip()
        if not t:
            continue
        q = quoted(t)
        if q and len(t) <= 80:
            return q[0]
        return None
    return None


#: the notes that mark a sum of vectors written down a column (``  [a]`` / ``+ [b]`` / ``-----`` / ``= [c]``)
VECTOR_SUM = "the result of a sum of vectors written out, one term per line"
SUM_TERM = "a term of a sum of vectors written out, one term per line"


def vector_sums(items: list[Item], lines: list[Line]) -> None:
    """A sum of vectors written down a column, each term alone on its line, the others after a '+',
    an optional rule of dashes, then '= [result]'::

          [0.0, 0.0, 0.0]
        + [1.0, 4.0, 0.0]
        -----------------
        = [1.0, 4.0, 0.0]

    The result and its terms are marked (their query is decided when the example is derived)."""
    by_line = {it.line: it for it in items if it.kind == "vector" and it.line == it.end and not it.after.strip(" `")}
    for r in list(by_line.values()):
        if r.before.strip(" `") != "=":
            continue
        k = r.line - 1
        while k >= 0 and re.fullmatch(r"\s*[-–—_=]{3,}\s*", lines[k].text):
            k -= 1
        terms: list[Item] = []
        while k >= 0 and k in by_line and by_line[k].before.strip(" `") in ("+", "") and \
                len(by_line[k].rows[0]) == len(r.rows[0]):
            terms.insert(0, by_line[k])
            if by_line[k].before.strip(" `") == "":
                break
            k -= 1
        if len(terms) < 2 or terms[0].before.strip(" `") != "" or any(t.before.strip(" `") != "+" for t in terms[1:]):
            continue
        r.step, r.strength, r.chain_of, r.operand = "output", 2, terms, False
        r.notes.append(VECTOR_SUM)
        for t in terms:
            t.step, t.strength, t.operand = "weighted", 2, True
            t.notes.append(SUM_TERM)


def _numeric_rows(rows: list[list[str]]) -> bool:
    return any(entry_kind(x) == "number" for r in rows for x in r)


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


_SHAPE_PAIR = re.compile(r"\[\s*(\d+)\s*,\s*(\d+)\s*\]\s*[@×x]\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]"
                         r"(?:\s*=\s*\[\s*(\d+)\s*,\s*(\d+)\s*\])?")


def _shape_product(text: str) -> bool:
    """Whether a line multiplies shapes: ``[3, 4] @ [4, 3]`` (the inner sizes agree), with no
    result or the result's shape ``= [3, 3]``; not rows of numbers drawn as a product
    (``[1, 0] x [1, 2] = [1, 2]``, ``[2, 1] x [1, 2] = [5, 4]``).

    >>> _shape_product("QK^T = [2, 2] @ [2, 2]"), _shape_product("[3, 4] x [4, 3] = [3, 3]"), _shape_product("[2, 1] x [1, 2] = [5, 4]")
    (True, True, False)
    """
    for m in _SHAPE_PAIR.finditer(text):
        a, b, c, d, r1, r2 = m.groups()
        if b == c and (r1 is None or (r1, r2) == (a, d)):
            return True
    return False


def is_shape(b: Numbers, lines: list) -> bool:
    """A tensor's shape written as a list ("Shape: [3, 4]", "Q = X  [3, 4]", "[3, 4] @ [4, 3]"),
    not numbers of the example. No size is 0: ``2-dim embeddings `x_1 = [1, 0]``` is a vector."""
    if b.depth != 1 or not 2 <= len(b.rows[0]) <= 4 or not all(re.fullmatch(r"[1-9]\d{0,4}", x) for x in b.rows[0]):
        return False
    before, after = b.before.rstrip(), b.after.lstrip()
    line = lines[b.start].text if b.start < len(lines) else ""
    prev = lines[b.start - 1].text if b.start > 0 else ""
    return bool(re.search(r"\b(shape|size|dims?|dimensions?)\b[^\[\]]*$", before, re.I)
                or re.search(r"[A-Za-z_]\w*\s{2,}$", b.before) or before.endswith(("@", "×"))
                or after.startswith(("@", "×")) or (re.fullmatch(r"\d*\s*=?", before.strip()) and _shape_product(prev))
                or _shape_product(line))


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
    c.keyed_rows()
    c.lines_items()
    c.answer_options()
    c.dot_lines()
    c.items += one_query_items(c.lines, c.items, Item)  # q · k₁ = … = 1, α₁ = … = 0.5 (importer_one_query_dots.py)
    c.items += token_entry_items(c.lines, Item)  # Score (animal): … = 10 (importer_token_entries.py)
    c.vector_dot_lines()
    c.token_dot_chains()
    c.pair_dot_lines()
    c.softmax_fractions()
    c.division_runs()
    c.shared_names()
    c.items.sort(key=lambda it: (it.line, it.where[0].line))
    factored_products(c.items)  # Output = A V = [A] [V] = [R] (importer_factored.py)
    c.items = join_indexed_rows(c.items)
    c.items = join_side_by_side(c.items, page.lines)
    c.items = join_stacked_rows(c.items, page.lines)
    c.items = join_dict_rows(c.items, page.lines)
    c.items = looked_up_rows(c.items, page.lines)
    c.items = join_word_sections(c.items, page.lines)
    vector_sums(c.items, page.lines)
    softmax_arrow_asides(c.items)
    c.aliases()
    c.glued_aliases()
    c.self_attention_calls()
    c.sliced_rows()
    # sentences assigned in code or printed: sentence = "The cat sat"
    for ln in page.lines:
        m = re.search(r"\b(sentence|text|sequence|input_text|words|tokens|phrase|sent)\s*=\s*[\"']([^\"']{1,300})[\"']",
                      ln.text)
        if m and ln.role == "code":
            words = [w.strip(".,;:!?\"()") for w in m.group(2).split()]
            words = [w for w in words if w]
            if 1 < len(words) <= 64:
                token_lists.append((words, ln.where, "sentence"))
        elif ln.role in ("prose", "heading"):
            words = prose_sentence(ln.text)
            if words:
                token_lists.append((words, ln.where, "sentence"))
    hidden: list[tuple[int, str, str]] = []
    # (also one draw a word: embeddings = [torch.rand(3) for w in words], torch.stack([torch.rand(3) for …]))
    made_re = re.compile(r"^\s*((?:self\.)?[A-Za-z_]\w*)\s*=\s*(?:(?:torch\.)?stack\(\s*)?\[?\s*"
                         r"(?:torch\.)?(?:nn\.)?(?:Parameter\(\s*)?"
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
        m = re.fullmatch(r"=\s*([+-]?(?:\d++(?:\.\d*+)?|\.\d+))", t)
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


_ARROW = r"(?:→|->|=>|⟶|⇒)"
_SOFTMAX_ARROW_AFTER = re.compile(r"\s*" + _ARROW + r"\s*soft-?max\s*" + _ARROW + r"\s*\[", re.I)


def softmax_arrow_asides(items: list[Item]) -> None:
    """``[100, 1, 1] → softmax → [0.99999, 0.00001, 0.00001]``: softmax shown on a literal row that no name
    ties to the example (an aside on why scores are scaled), both vectors set aside rather than placed as
    the example's scores and weights. A row named as the example's (strength 2 or more, or a token's) is
    left to the placer.

    >>> a = Item([["100", "1", "1"]], [], 3, 3, "vector", step="weights", strength=1, after=" → softmax → [1, 0, 0]")
    >>> b = Item([["1", "0", "0"]], [], 3, 3, "vector", step="weights", strength=2, before="[100, 1, 1] → softmax → ")
    >>> softmax_arrow_asides([a, b]); bool(a.aside), bool(b.aside)
    (True, True)
    """
    for left in items:
        if left.kind != "vector" or left.aside or left.strength >= 2 or left.token or \
                not _SOFTMAX_ARROW_AFTER.match(left.after):
            continue
        right = next((o for o in items if o is not left and o.line == left.end and o.kind == "vector"
                      and re.search(r"\]\s*" + _ARROW + r"\s*soft-?max\s*" + _ARROW + r"\s*$", o.before, re.I)
                      and not o.aside), None)
        if right is None:
            continue
        why = "softmax worked on a literal row no name ties to this example (an aside), not a step of it"
        left.aside = right.aside = why


def label_text(it: Item) -> str:
    return clean_label(it.label)


_QK_LABEL_RE = re.compile(r"([qk]|query|key)[_ ]?\{?(\d{1,3})\}?", re.I)


def _query_key_labels(rows: list[str], cols: list[str]) -> bool:
    """Whether a table's rows are labelled q1, q2, … and its columns k1, k2, … (each counted from
    the same start, in order): the labels of a query-by-key table, not tokens.

    >>> _query_key_labels(["q1", "q2"], ["k1", "k2", "k3"]), _query_key_labels(["Q_1", "Q_2"], ["K_1", "K_2"])
    (True, True)
    >>> _query_key_labels(["q1", "q3"], ["k1", "k2"]), _query_key_labels(["k1", "k2"], ["q1", "q2"])
    (False, False)
    """
    def run(labels: list[str], letter: str) -> bool:
        ms = [_QK_LABEL_RE.fullmatch(c.strip(" *`$")) for c in labels]
        if not labels or not all(m and m.group(1)[0].lower() == letter for m in ms):
            return False
        idx = [int(m.group(2)) for m in ms if m]
        return idx[0] in (0, 1) and idx == list(range(idx[0], idx[0] + len(idx)))
    return len(rows) >= 2 and run(rows, "q") and run(cols, "k")


def _scores_or_weights(body: list[list[str]]) -> str:
    """What a query-by-key table that no label names holds, by its numbers: rows of
    probabilities summing to 1 are weights, anything else scores."""
    try:
        vals = [[float(c) for c in r] for r in body]
    except ValueError:
        return "scores"
    ok = all(0 <= v <= 1 for r in vals for v in r) and all(abs(sum(r) - 1) <= 0.02 * len(r) for r in vals)
    return "weights" if ok else "scores"


def _header_symbol(cell: str) -> str | None:
    """The step a column header names by a symbol in parentheses after a word in any language:
    ``埋め込み (X)``, ``Embedding (X)`` → X (the word itself need not be known)."""
    m = re.fullmatch(r"[^()]{1,40}\(\s*([A-Za-z][\w^{}']{0,8})\s*\)\s*:?", cell.strip(" *`$"))
    return step_of_ident(m.group(1)) if m else None


def _step_column(name: str) -> str | None:
    """The step a table column's header names outright: a symbol ("K", "Q_i"), a name with its symbol
    in parentheses ("Query(Q)", "Value (V)") or a step's name ("Keys")."""
    t = name.strip(" *`$")
    sym = re.fullmatch(r"[^()]*\(\s*([A-Za-z][\w^{}]*)\s*\)", t)
    st = step_of_ident(sym.group(1)) if sym else None
    return st or step_of_ident(t) or step_of_text(t)


def _step_columns(header: list[str], rows: list[list[str]], vec_re: re.Pattern) -> bool:
    """Every column a header naming a step (X, Q, K or V) over cells that each hold one bracketed
    vector, the vectors of a column as long as each other."""
    if not rows or len(header) != len(rows[0]):
        return False
    for j, name in enumerate(header):
        if _step_column(name) not in ("X", "Q", "K", "V"):
            return False
        cells = [vec_re.match(r[j]) if j < len(r) else None for r in rows]
        if not all(cells) or len({len(re.split(r"[,\s]+", c.group(1).strip())) for c in cells if c}) != 1:
            return False
    return True


def _defined_as_computed(step: str, formula: str, ident: str | None, symbols: dict) -> bool:
    """``E = QK^T = [[…]]``: a one-letter name that would read as an input (E for embeddings) is
    defined by the display itself as a computed step; an input is never a product of the page's
    matrices, so the formula names the block. A name the page defined elsewhere keeps its meaning."""
    return bool(ident) and len(ident or "") == 1 and step in INPUT_NAMES and formula not in INPUT_NAMES \
        and ident not in symbols
