"""Page formats → lines with provenance and role: Markdown, HTML, LaTeX, Jupyter
notebooks and plain text copied from a web page.

HTML is parsed with the standard library's :mod:`html.parser`, never rendered, and
nothing it links to is fetched. A notebook is read as JSON text: its code cells are text
and are never run; what they printed (the outputs stored in the file) is read as output.

>>> [(l.role, l.text) for l in markdown_lines("# Step 1\\n```python\\nX = [[1, 2]]\\n```\\nText")]
[('heading', 'Step 1'), ('code', ''), ('code', 'X = [[1, 2]]'), ('code', ''), ('prose', 'Text')]
>>> [(l.role, l.text) for l in html_lines("<h2>Q</h2><pre>Q = [[1, 2]]</pre><pre>[[1 2]\\n [3 4]]</pre>")]
[('heading', 'Q'), ('code', 'Q = [[1, 2]]'), ('output', '[[1 2]'), ('output', ' [3 4]]')]
>>> detect_format("post.md", ""), detect_format(None, '{"cells": []}'), detect_format(None, "<p>hi</p>")
('markdown', 'notebook', 'html')
"""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import PurePath

from ...errors import LimitError, SymattnError
from ...limits import MAX_BLANK_RUN, MAX_PAGE_BYTES, MAX_PAGE_TEXT
from .decimal_commas import read_decimal_commas
from .macros import undefined_macros
from .hanging_rows import join_hanging_rows
from .scripts import script_lines, with_scripts
from .model import Line, Page, Where
from .js_templates import template_outputs
from .infnames import named_infinities
from .hand_math import hand_math_fences
from .banners import banner_line
from .mermaid import MERMAID_FENCE_RE, mermaid_texts
from .scan import scan
from .side_by_side import unstack_side_by_side

__all__ = ["FORMATS", "read_page", "detect_format", "markdown_lines", "html_lines", "latex_lines",
           "notebook_lines", "text_lines"]

#: format name -> what it reads
FORMATS = {
    "markdown": "Markdown: pipe tables, fenced code blocks, $$ … $$ and inline math",
    "html": "HTML: tables, <pre>, text, MathJax/KaTeX sources (parsed, never rendered or fetched)",
    "latex": "LaTeX: bmatrix, pmatrix, matrix, array, tabular, \\frac, text",
    "notebook": "Jupyter .ipynb: markdown cells, code cells as text, and the printed outputs",
    "text": "plain text as copied from a web page: flattened tables, tab-separated rows",
}
_SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".mdown": "markdown", ".html": "html", ".htm": "html",
             ".xhtml": "html", ".tex": "latex", ".latex": "latex", ".ipynb": "notebook", ".txt": "text",
             ".text": "text"}
#: program source files: read as a Markdown page that is one code block (comments, docstrings and the outputs
#: pasted into them are found as in any code block), never as prose whose '#' comments would be headings
SOURCE_SUFFIXES = (".py", ".pyi", ".rs", ".jl", ".r", ".js", ".mjs", ".jsx", ".ts", ".tsx", ".go", ".java", ".c",
                   ".h", ".cc", ".cpp", ".hpp", ".cs", ".swift", ".kt", ".scala", ".lua", ".rb")
_ALIASES = {"md": "markdown", "htm": "html", "tex": "latex", "ipynb": "notebook", "jupyter": "notebook",
            "txt": "text", "plain": "text"}


def _clean(text: str) -> str:
    """Control characters (other than tab and newline) become spaces."""
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", " ", text.replace("\r\n", "\n").replace("\r", "\n"))


def detect_format(name: str | None, text: str) -> str:
    """The format of a page from its file name, else from its first characters."""
    if name:
        fmt = _SUFFIXES.get(PurePath(name).suffix.lower())
        if fmt:
            return fmt
    head = text[:20000]
    s = head.lstrip()
    if s.startswith("{") and re.search(r'"(cells|worksheets|nbformat)"\s*:', head):
        return "notebook"
    if re.search(r"<(!doctype html|html|body|table|p|div|pre|h[1-6]|article)\b", head, re.I):
        return "html"
    if re.search(r"\\documentclass|\\begin\{document\}|\\section\*?\{", head):
        return "latex"
    if re.search(r"^(#{1,6} |```|~~~|\s*\|.*\|\s*$)", head, re.M) or "$$" in head:
        return "markdown"
    return "text"


def normalise_format(fmt: str) -> str:
    f = fmt.strip().lower()
    f = _ALIASES.get(f, f)
    if f not in FORMATS:
        from ..numbers import did_you_mean

        raise SymattnError(f"unknown page format {fmt!r}{did_you_mean(f, list(FORMATS))}; "
                           f"expected one of {', '.join(FORMATS)}")
    return f


# ---------------------------------------------------------------------------------------
# Markdown


_KEYWORD_RE = re.compile(r"\s*(import|from|def|class|return|for|while|if|elif|else|with|try|except|finally|print|"
                         r"assert|lambda|yield|raise|pass|break|continue|global|async|await|del|@)\b")
_PRINTOUT_RE = re.compile(r"\s*(?:[\[\]()\d+\-.]|tensor\(|array\(|Array\(|tf\.Tensor|<tf\.Tensor|Parameter containing|"
                          r"torch\.Size|TensorShape|shape=|dtype=|grad_fn=|\.\.\.|…)")
_LABEL_RE = re.compile(r"\s*[A-Za-z\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af][^=(){}\[\];#]{0,80}?"  # (a CJK label too)
                       r"(?::\s*(?:[\[(\d+\-.]|tensor\(|array\(|tf\.Tensor|torch\.Size\().*|:?\s*)$")


def looks_like_output(texts: list[str]) -> bool:
    """Whether the lines of a code block are what a program printed (labels and printouts of
    numbers) rather than code: no assignment, call statement or keyword, and some digit.

    >>> looks_like_output(["Attention weights:", "[[0.576 0.106]", " [0.106 0.576]]"])
    True
    >>> looks_like_output(["W = np.array([[1, 2]])", "print(W)"])
    False
    """
    seen = False
    for t in texts:
        if not t.strip():
            continue
        if _KEYWORD_RE.match(t) or re.match(r"\s*[A-Za-z_][\w.]*(\[[^\]]*\])?\s*(,\s*[A-Za-z_]\w*\s*)*[+\-*/@]?=(?!=)", t):
            return False
        if not (_PRINTOUT_RE.match(t) or _LABEL_RE.fullmatch(t) or JULIA_HEADER_RE.fullmatch(t)
                or _aside_label(t) or banner_line(t)):
            return False
        seen = seen or bool(re.search(r"\d", t))
    return seen


#: Julia's (and Rust ndarray's Julia-style) printout header: '3×4 Matrix{Float64}:', '2-element Vector{Int64}:'
JULIA_HEADER_RE = re.compile(r"\s*(?:\d+(?:\s*[×x]\s*\d+)+|\d+-element)\s+(?:[\w.]+\.)?"
                            r"(?:Matrix|Vector|Array|Adjoint|Transpose|SubArray|[A-Z]\w*Array)"
                            r"(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\})?(?:\([^()]*\))?\s*:?\s*")


def _aside_label(text: str) -> bool:
    """A label whose words hold an aside in parentheses, ending with a colon: 'Attention weights
    (each row = how much each word attends to all words):' (no code keeps a colon there)."""
    t = text.strip()
    if ":" not in t or "(" not in t:  # 'Count of matrices (= num_heads): 2' too: the value printed after the colon
        return False
    bare = t
    for _ in range(3):
        bare = re.sub(r"\s+\([^()]{1,120}\)", "", bare)
    return "(" not in bare and ")" not in bare and _LABEL_RE.fullmatch(bare) is not None


_FRAME_WORD_RE = re.compile(r"[^\d\s=(){}\[\];#,:+\-.][^\s=(){}\[\];#,:]{0,40}")
_FRAME_NUM_RE = re.compile(r"[+-]?(?:\d++(?:\.\d*+)?|\.\d+)(?:[eE][+-]?\d+)?")


def frame_printout(texts: list[str]) -> bool:
    """Whether the lines are a printed table with a header of column labels and one labelled row of
    numbers a line, as pandas prints a DataFrame (its labels may be words that are also keywords of code,
    ``with``, ``for``).

    >>> frame_printout(["        May       the", "May   0.068118  0.181340", "with  0.018118  0.147041"])
    True
    >>> frame_printout(["x = 1", "with open(f) as g:"]), frame_printout(["May the", "May 0.1 0.2 0.3"])
    (False, False)
    """
    rows = [t.split() for t in texts if t.strip()]
    if len(rows) < 2 or len(rows[0]) < 2 or not all(_FRAME_WORD_RE.fullmatch(w) for w in rows[0]):
        return False
    return all(len(r) == len(rows[0]) + 1 and _FRAME_WORD_RE.fullmatch(r[0]) and
               all(_FRAME_NUM_RE.fullmatch(c) for c in r[1:]) for r in rows[1:])


def _outputs_of_fences(out: list[Line], fences: list[tuple[int, int]]) -> None:
    """A fenced block that holds what a program printed (a notebook exported to Markdown, a
    post that pastes its output, a DataFrame) is output, not code."""
    for a, b in fences:
        body = out[a + 1:b]
        if body and (looks_like_output([x.text for x in body]) or frame_printout([x.text for x in body])):
            for x in body:
                x.role = "output"


#: services that render the LaTeX in their URL as an image: a README's equations are often such images
_LATEX_IMAGE_RE = re.compile(
    r"https?://(?:latex\.codecogs\.com/(?:[a-z]+(?:\.latex|\.image|\.download)?|eq(?:n|uation)?editor/[a-z.]+)\?"
    r"|chart\.googleapis\.com/chart\?(?:[^\s\"')]*?&)?cht=tx&(?:[^\s\"')]*?&)?chl="
    r"|render\.githubusercontent\.com/render/math\?(?:[^\s\"')]*?&)?math="
    r"|i\.upmath\.me/(?:svg|png)/|latex\.vimsky\.com/test\.image\.latex\.php\?fmt=\w+&val=)"
    r"(?P<tex>[^\s\"')]+)")
_MD_IMAGE_RE = re.compile(r"!\[(?P<alt>[^\]\n]{0,200})\]\(\s*<?(?P<url>[^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def latex_of_image(url: str) -> str | None:
    """The LaTeX an equation image's URL carries (codecogs, Google charts, GitHub's math
    renderer, upmath), decoded, without the renderer's options; None for other images.

    >>> print(latex_of_image("https://latex.codecogs.com/svg.latex?%5Cbg_white%20X%20%3D%20%5Cbegin%7Bbmatrix%7D%201%20%5Cend%7Bbmatrix%7D"))
    X = \\begin{bmatrix} 1 \\end{bmatrix}
    """
    from urllib.parse import unquote, unquote_plus

    m = _LATEX_IMAGE_RE.match(url)
    if not m:
        return None
    raw = m.group("tex").split("&")[0] if "chart.googleapis" in url else m.group("tex")
    tex = unquote_plus(raw) if "chart.googleapis" in url else unquote(raw)
    tex = re.sub(r"^(?:\s*\\(?:bg_\w+|bg\{\w+\}|dpi\{\d+\}|inline|large|Large|LARGE|huge|small|fn_\w+|"
                 r"color\{\w+\}|pagecolor\{\w+\})\s*)+", "", tex)
    return tex.strip()


def _equation_images(raw: str) -> tuple[str, list[str]]:
    """A line without its equation images, and the LaTeX (with the image's alt text) of each."""
    found: list[str] = []

    def take(m: re.Match) -> str:
        tex = latex_of_image(m.group("url"))
        if tex is None:
            return m.group(0)
        alt = m.group("alt").strip()
        found.append(tex if not alt or re.search(r"\\text\{|=", tex.split("\\begin")[0]) else f"\\text{{{alt}}}: {tex}")
        return " "
    out = _MD_IMAGE_RE.sub(take, raw)
    out = re.sub(r"<img\b[^>]*?\bsrc\s*=\s*[\"']([^\"']+)[\"'][^>]*>",
                 lambda m: (found.append(t) or " ") if (t := latex_of_image(m.group(1))) is not None else m.group(0),
                 out)
    return out, found


_FENCE_RE = re.compile(r"(```+|~~~+)")
_MATH_ENV_RE = re.compile(r"\\begin\{(equation\*?|align\*?|aligned|gather\*?|multline\*?|eqnarray\*?|displaymath)\}")
#: a matrix environment opening a Markdown line with no $ around it (a page whose math delimiters were lost in
#: conversion): MathJax-less, but the page still writes display math, as its '\\times' and '\\approx' lines between show
_BARE_MATRIX_RE = re.compile(r"\\begin\{([bpvBV]?matrix\*?|array)\}")
#: a line holding only an operator between two such matrices
_BARE_OPERATOR_RE = re.compile(r"\\(?:times|cdot|approx)|[=×·≈]")
_ENTITY_RE = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,30}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});")


#: a raw HTML <pre> (or <pre><code>) tag opening a Markdown line, or its closing tag ending one
_PRE_TAG_RE = re.compile(r"^\s*<pre(?:\s[^<>]*)?>(?:<code(?:\s[^<>]*)?>)?|(?:</code>)?</pre>\s*$")


#: a blockquote's markers at the start of a Markdown line ('> ', '>> ', '> > ')
_QUOTE_RE = re.compile(r"^ {0,3}>(?:[ \t]?>)*[ \t]?")


def markdown_lines(text: str, cell: int | None = None, output: bool = False, first_line: int = 1) -> list[Line]:
    out: list[Line] = []
    fence = mermaid = ""
    fence_at = 0
    fences: list[tuple[int, int]] = []
    math = False
    math_env = ""
    fence_quoted = False
    for n, raw in enumerate(text.split("\n"), first_line):
        where = Where(n, cell, output)
        quote = _QUOTE_RE.match(raw) if not fence or fence_quoted else None
        if quote:  # a blockquote ('> ```', '>    X = [1  0]'): its markers are no text (a box's fences are fences)
            raw = " " * quote.end() + raw[quote.end():]
        s = raw.strip()
        if fence and mermaid:  # a diagram: the text of its boxes, read as prose (see mermaid.py)
            if s.startswith(fence) and not s[len(fence):].strip():
                fence = mermaid = ""
            out += [Line(t, where, "prose") for t in mermaid_texts(raw)] or [Line("", where, "prose")]
            continue
        if fence:
            if s.startswith(fence):
                fence = ""
                fences.append((fence_at, len(out)))
                out.append(Line("", where, "code"))
            else:
                out.append(Line(raw, where, "code"))
            continue
        if "&" in raw and _ENTITY_RE.search(raw):
            raw = html.unescape(raw)  # Markdown renders entities outside code: $1 &amp; 0$ is $1 & 0$
            s = raw.strip()
        if ("<pre" in s or "pre>" in s) and _PRE_TAG_RE.search(raw):
            # a raw HTML <pre> block in Markdown: its tags are no text of the lines they open or close
            # ('<pre>Q = np.array([[1, 0]])' names Q)
            raw = _PRE_TAG_RE.sub("", raw)
            s = raw.strip()
        if math and _FENCE_RE.match(s):
            math = False  # a code fence is never inside display math: the '$$' that seemed to open it did not
        if math:
            if s.endswith("$$") or s.endswith("\\]"):
                math = False
                out.append(Line(raw.replace("$$", "").replace("\\]", ""), where, "math"))
            else:
                out.append(Line(raw, where, "math"))
            continue
        env = _MATH_ENV_RE.match(s) or (None if math_env else _BARE_MATRIX_RE.match(s))
        if env:  # \begin{equation} … \end{equation} (align, gather, …): display math, as MathJax reads it
            if f"\\end{{{env.group(1)}}}" not in s[env.end():]:
                math_env = env.group(1)
            out.append(Line(raw, where, "math"))
            continue
        if _BARE_OPERATOR_RE.fullmatch(s) and _after_bare_matrix(out):
            out.append(Line(raw, where, "math"))  # '\\times' alone between two bare matrices
            continue
        if math_env:
            if f"\\end{{{math_env}}}" in s:
                math_env = ""
            out.append(Line(raw, where, "math"))
            continue
        m = re.match(r"^(```+|~~~+)", s)
        if m and MERMAID_FENCE_RE.match(s):
            fence, mermaid = m.group(1), "mermaid"
            out.append(Line("", where, "prose"))
            continue
        if m:
            fence = m.group(1)
            fence_quoted = bool(quote)
            fence_at = len(out)
            out.append(Line("", where, "code"))
            continue
        if s.startswith("$$") and not (len(s) > 2 and s.endswith("$$")):
            math = True
            out.append(Line(raw.replace("$$", ""), where, "math"))
            continue
        if s == "\\[":
            math = True
            out.append(Line("", where, "math"))
            continue
        if re.match(r"\\\[\s*(?:[A-Za-z{]|\\(?![\[\]])|$)", s) and re.search(r"[\\=^_]|^\\\[$", s[2:].replace("\\]", "")):
            # '\[ Q = \begin{bmatrix} … \]' on one line, or opening a display that goes on (not an escaped
            # bracket: '\[0.5, 0.5\]', '\[\[0, 1\], …')
            if s.endswith("\\]") and "\\]" not in s[2:-2]:
                out.append(Line(s[2:-2].strip(), where, "math"))
            else:
                math = True
                out.append(Line(s[2:], where, "math"))
            continue
        if s.startswith("$$") and s.endswith("$$") and len(s) > 4:
            out.append(Line(s[2:-2], where, "math"))
            continue
        if s.endswith("$$") and s.count("$$") % 2 == 1 and len(s) > 2:
            # 'the dot product is scaled by $$' then the formula and '$$' on lines of their own: the
            # display opens at the end of the sentence
            math = True
            out.append(Line(raw[: raw.rindex("$$")], where, "prose"))
            continue
        h = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", s)
        if h:
            out.append(Line(h.group(2), where, "heading", len(h.group(1))))
            continue
        li = re.match(r"^(\s*)(\d{1,3}[.)])(?=\s|$)", raw)
        if li:  # an ordered list's marker ("2. Compute …") is no number of the page
            raw = li.group(1) + " " * len(li.group(2)) + raw[li.end():]
        if "\\" in raw and "$" not in raw:
            raw = re.sub(r"\\([\[\]_*`#|()<>~])", r"\1", raw)  # Markdown escapes: \[\[0, 1], \[1, 0]] is [[0, 1], [1, 0]]
        if "://" in raw:
            raw, images = _equation_images(raw)
            if images:
                if raw.strip():
                    out.append(Line(raw, where, "prose"))
                out += [Line(tex, where, "math") for tex in images]
                continue
        out.append(Line(raw, where, "prose"))
    _outputs_of_fences(out, fences)
    _indented_outputs(out)
    return out


def _after_bare_matrix(out: list[Line]) -> bool:
    """Whether the last non-blank line is display math ending a matrix environment (``\\end{bmatrix}``)."""
    prev = next((x for x in reversed(out) if x.text.strip()), None)
    return prev is not None and prev.role == "math" and bool(re.search(r"\\end\{[bpvBV]?matrix\*?\}\W*$", prev.text))


def _indented_outputs(out: list[Line]) -> None:
    """An indented block after a blank line (how nbconvert writes a cell's printed result in
    Markdown: "    array([ 927.,  397.])") that holds a printout is output."""
    k = 0
    while k < len(out):
        if out[k].role == "prose" and re.match(r"(?: {4}|\t)\S", out[k].text) and (k == 0 or not out[k - 1].text.strip()):
            j = k
            while j < len(out) and out[j].role == "prose" and (re.match(r"(?: {4}|\t)", out[j].text) or (
                    not out[j].text.strip() and j + 1 < len(out) and re.match(r"(?: {4}|\t)\S", out[j + 1].text))):
                j += 1
            if looks_like_output([x.text.strip() for x in out[k:j]]):
                for x in out[k:j]:
                    x.role = "output"
            k = max(j, k + 1)
        else:
            k += 1


# ---------------------------------------------------------------------------------------
# HTML

_BLOCK = {"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table", "section",
          "article", "header", "footer", "blockquote", "pre", "hr", "dt", "dd", "dl", "figure", "figcaption",
          "main", "nav", "aside", "details", "summary", "tbody", "thead", "caption", "title", "center"}
_SKIP = {"script", "style", "noscript", "svg", "template", "iframe", "object", "canvas", "select", "textarea",
         "button", "mjx-container", "head"}
_VOID = {"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "track", "wbr",
         "param"}
_SKIP_CLASSES = ("katex-html", "MathJax_Preview", "MathJax_Display", "MathJax", "MJX_Assistive_MathML",
                 "mjx-chtml", "MJXc-display")


class _HTMLReader(HTMLParser):
    def __init__(self, cell: int | None, output: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.cell, self.output = cell, output
        self.lines: list[Line] = []
        self.buf: list[str] = []
        self.buf_text = False  # whether the buffer holds more than blanks (a flag: not joined at each piece)
        self.buf_line = 1
        self.role_stack: list[str] = []
        self.skip: list[str] = []  # tags whose content is skipped, innermost last
        self.pre = 0
        self.heading = 0
        self.math = ""  # collecting TeX from a math script or annotation
        self.math_buf: list[str] = []
        self.math_line = 1
        self.tables: list[list] = []  # each: [rows, row_lines, current row, current cell or None, header flags]
        self.stack_out: list[bool] = []  # for each open element: whether it set "output"
        self.out_depth = 0
        self.in_math = 0

    # -- helpers --
    def where(self, line: int) -> Where:
        return Where(line, self.cell, self.output or self.out_depth > 0)

    def role(self) -> str:
        if self.heading:
            return "heading"
        return "prose"

    def flush(self) -> None:
        text = re.sub(r"[ \t\n]+", " ", "".join(self.buf)).strip()
        if text:
            self.lines.append(Line(text, self.where(self.buf_line), self.role()))
        self.buf, self.buf_text = [], False

    def add_text(self, data: str) -> None:
        if not self.buf_text:
            self.buf_line = self.getpos()[0]
        self.buf.append(data)
        self.buf_text = self.buf_text or bool(data.strip())

    # -- parser callbacks --
    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = {k: (v or "") for k, v in attrs}
        cls = a.get("class", "")
        if self.skip:
            if tag not in _VOID:
                self.skip.append(tag)
            return
        if tag == "script":
            if a.get("type", "").startswith("math/tex"):
                self.flush_cell_or_line()
                self.math = "script"
                self.math_buf = []
                self.math_line = self.getpos()[0]
                return
            self.skip.append(tag)
            return
        if tag == "annotation" and "tex" in a.get("encoding", "").lower():
            self.math = "annotation"
            self.math_buf = []
            self.math_line = self.getpos()[0]
            return
        if tag == "math":
            self.in_math += 1
            return
        if tag in _SKIP or a.get("aria-hidden") == "true" or any(c in cls.split() for c in _SKIP_CLASSES):
            if tag not in _VOID:
                self.skip.append(tag)
            return
        if tag not in _VOID:
            is_out = "output" in cls.lower() and "input" not in cls.lower()
            self.stack_out.append(is_out)
            if is_out:
                self.out_depth += 1
        if self.tables and tag in ("td", "th"):
            t = self.tables[-1]
            t[3] = []
            t[4].append(tag == "th")
            return
        if self.tables and tag == "tr":
            t = self.tables[-1]
            self.close_row(t)
            t[2] = []
            t[1].append(self.getpos()[0])
            t[4] = []
            return
        if tag == "table":
            self.flush()
            self.tables.append([[], [], None, None, [], []])  # rows, lines, row, cell, th flags, header flags
            return
        if tag in _BLOCK:
            self.flush_cell_or_line()
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6", "title"):
            self.heading += 1
        if tag == "pre":
            self.pre += 1
            self.buf, self.buf_text = [], False
            self.buf_line = self.getpos()[0]

    def handle_endtag(self, tag: str) -> None:
        if self.skip:
            if self.skip[-1] == tag:
                self.skip.pop()
            elif tag in self.skip:
                while self.skip and self.skip.pop() != tag:
                    pass
            return
        if self.math and tag in ("script", "annotation"):
            tex = "".join(self.math_buf).strip()
            if tex:
                for k, part in enumerate(tex.split("\n")):
                    self.lines.append(Line(part, self.where(self.math_line + k), "math"))
            self.math = ""
            return
        if tag == "math":
            self.in_math = max(0, self.in_math - 1)
            return
        if tag not in _VOID and self.stack_out:
            if self.stack_out.pop():
                self.out_depth = max(0, self.out_depth - 1)
        if self.tables and tag in ("td", "th"):
            t = self.tables[-1]
            if t[3] is not None:
                if t[2] is None:
                    t[2] = []
                    t[1].append(self.getpos()[0])
                t[2].append(re.sub(r"\s+", " ", "".join(t[3])).strip())
                t[3] = None
            return
        if self.tables and tag == "tr":
            self.close_row(self.tables[-1])
            return
        if tag == "table" and self.tables:
            self.emit_table(self.tables.pop())
            return
        if tag == "pre" and self.pre:
            self.pre -= 1
            text = "".join(self.buf)
            self.buf, self.buf_text = [], False
            if text.startswith("\n"):
                text = text[1:]
                self.buf_line += 1
            role = "output" if (self.output or self.out_depth or looks_like_output(text.split("\n"))) else "code"
            for k, part in enumerate(text.split("\n")):
                self.lines.append(Line(part, self.where(self.buf_line + k), role))
            return
        if tag in _BLOCK:
            self.flush_cell_or_line()
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6", "title") and self.heading:
            self.flush()
            self.heading -= 1

    def handle_data(self, data: str) -> None:
        if self.math:
            self.math_buf.append(data)
            return
        if self.skip or self.in_math:
            return
        if self.tables and self.tables[-1][3] is not None:
            self.tables[-1][3].append(data)
            return
        if self.pre:
            self.buf.append(data)
            return
        self.add_text(data)

    # -- tables --
    def close_row(self, t: list) -> None:
        if t[2] is not None:
            t[0].append(t[2])
            t[5].append(bool(t[4]) and all(t[4]))
            t[2] = None

    def emit_table(self, t: list) -> None:
        self.close_row(t)
        rows, lines, header_flags = t[0], t[1], t[5]
        for k, r in enumerate(rows):
            cells = [c.replace("|", "\\|") for c in r]
            line = lines[k] if k < len(lines) else (lines[-1] if lines else self.getpos()[0])
            self.lines.append(Line("| " + " | ".join(cells) + " |", self.where(line), "table"))
            if k == 0 and header_flags and header_flags[0]:
                self.lines.append(Line("|" + "---|" * len(cells), self.where(line), "table"))

    def flush_cell_or_line(self) -> None:
        if self.tables and self.tables[-1][3] is not None:
            self.tables[-1][3].append(" ")
            return
        if not self.pre:
            self.flush()

    def close(self) -> None:
        super().close()
        while self.tables:
            self.emit_table(self.tables.pop())
        self.flush()


_HTML_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.S)


def without_comments(text: str) -> str:
    """HTML ``text`` with its comments removed (an unclosed one runs to the end, as in a browser), each
    kept as the line breaks it held so that line numbers stay those of the page. Done before the
    parser sees the text: Python's HTMLParser takes time quadratic in a run of unclosed ``<!--``.

    >>> without_comments("a<!-- x\\n y -->b<!-- c")
    'a\\nb'
    """
    return _HTML_COMMENT_RE.sub(lambda m: "\n" * m.group().count("\n"), text)


def html_lines(text: str, cell: int | None = None, output: bool = False) -> list[Line]:
    r = _HTMLReader(cell, output)
    r.feed(without_comments(text))
    r.close()
    # inline TeX in the text (\( … \), $ … $) stays in the prose lines; a line that is one display
    # (Pandoc's and Quarto's <span class="math display">\[ … \]</span>, a paragraph of $$ … $$) is math
    return [_display_math(x) for x in r.lines]


_DISPLAY_RE = re.compile(r"\\\[(.*)\\\]|\$\$(.*)\$\$", re.S)


def _display_math(line: Line) -> Line:
    """A prose line that is one display of TeX as a math line without its delimiters.

    >>> _display_math(Line(r"\\[ X = \\begin{bmatrix} 1 \\end{bmatrix} \\]", Where(3))).role
    'math'
    >>> _display_math(Line(r"\\[ x \\] and \\[ y \\]", Where(3))).role
    'prose'
    """
    m = _DISPLAY_RE.fullmatch(line.text.strip()) if line.role == "prose" else None
    if m is None:
        return line
    inner = m.group(1) if m.group(1) is not None else m.group(2)
    if re.search(r"\\\]|\\\[|\$\$", inner):
        return line  # two displays on one line, or text between them
    return Line(inner.strip(), line.where, "math")


# ---------------------------------------------------------------------------------------
# LaTeX

_MATH_ENVS = ("equation", "equation*", "align", "align*", "gather", "gather*", "displaymath", "eqnarray",
              "eqnarray*", "multline", "multline*", "math")
_CODE_ENVS = ("verbatim", "lstlisting", "minted", "Verbatim", "alltt")


def latex_lines(text: str) -> list[Line]:
    out: list[Line] = []
    env = ""
    role_env = ""
    display = False
    for n, raw in enumerate(text.split("\n"), 1):
        where = Where(n)
        if role_env == "code":
            if re.search(r"\\end\{(" + "|".join(re.escape(e) for e in _CODE_ENVS) + r")\}", raw):
                role_env = ""
                out.append(Line("", where, "code"))
            else:
                out.append(Line(raw, where, "code"))
            continue
        line = re.sub(r"(?<!\\)%.*$", "", raw)
        s = line.strip()
        m = re.search(r"\\begin\{(" + "|".join(re.escape(e) for e in _CODE_ENVS) + r")\}", s)
        if m:
            role_env = "code"
            out.append(Line("", where, "code"))
            continue
        b = re.search(r"\\begin\{([A-Za-z*]+)\}", s)
        if b and b.group(1) in _MATH_ENVS:
            env = b.group(1)
        opened_display = False
        if s.startswith("\\[") or (s.startswith("$$") and s.count("$$") == 1):
            display = True
            opened_display = True
        role = "math" if (env or display) else "prose"
        h = re.match(r"\\(?:sub)*(?:section|chapter|paragraph|title)\*?\{(.*)\}", s)
        if h and not env and not display:
            out.append(Line(h.group(1), where, "heading"))
        else:
            out.append(Line(line, where, role))
        if env and re.search(r"\\end\{" + re.escape(env) + r"\}", s):
            env = ""
        if display and (s.endswith("\\]") or (s.endswith("$$") and (not opened_display or s.count("$$") == 2))):
            if not (opened_display and s in ("\\[", "$$")):
                display = False
    return out


# ---------------------------------------------------------------------------------------
# notebooks


def _source(x: object) -> str:
    if isinstance(x, list):
        return "".join(str(p) for p in x)
    return x if isinstance(x, str) else ""


def notebook_lines(text: str) -> list[Line]:
    try:
        nb = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise SymattnError(f"not a Jupyter notebook: the JSON does not parse ({str(e).splitlines()[0][:120]})") from None
    if not isinstance(nb, dict):
        raise SymattnError("not a Jupyter notebook: expected a JSON object with \"cells\"")
    cells = nb.get("cells")
    if cells is None and isinstance(nb.get("worksheets"), list) and nb["worksheets"]:
        cells = nb["worksheets"][0].get("cells") if isinstance(nb["worksheets"][0], dict) else None
    if not isinstance(cells, list):
        raise SymattnError("not a Jupyter notebook: no \"cells\" list (nbformat 4 is read)")
    out: list[Line] = []
    for k, c in enumerate(cells, 1):
        if not isinstance(c, dict):
            continue
        kind = c.get("cell_type")
        src = _source(c.get("source", c.get("input", "")))
        if kind == "markdown":
            out += markdown_lines(_clean(src), cell=k)
        elif kind == "code":
            for n, part in enumerate(_clean(src).split("\n"), 1):
                out.append(Line(part, Where(n, k), "code"))
            out += _outputs(c.get("outputs"), k)
        elif kind in ("raw", "heading"):
            for n, part in enumerate(_clean(src).split("\n"), 1):
                out.append(Line(part, Where(n, k), "heading" if kind == "heading" else "prose"))
    return out


def _outputs(outputs: object, k: int) -> list[Line]:
    out: list[Line] = []
    if not isinstance(outputs, list):
        return out
    line = 1
    for o in outputs:
        if not isinstance(o, dict):
            continue
        typ = o.get("output_type")
        text = ""
        fmt = "text"
        if typ == "stream" or (typ is None and "text" in o):
            text = _source(o.get("text"))
        elif typ in ("execute_result", "display_data", "pyout"):
            data = o.get("data", o)
            if not isinstance(data, dict):
                continue
            if "text/plain" in data:
                text = _source(data["text/plain"])
            elif "text" in data:
                text = _source(data["text"])
            elif "text/markdown" in data:
                text, fmt = _source(data["text/markdown"]), "markdown"
            elif "text/latex" in data:
                text, fmt = _source(data["text/latex"]), "latex"
            elif "text/html" in data:
                text, fmt = _source(data["text/html"]), "html"
        else:
            continue  # errors: a traceback is not a result
        text = _clean(text)
        if not text:
            continue
        if fmt == "html":
            got = html_lines(text, cell=k, output=True)
            for x in got:
                x.where = Where(line + x.where.line - 1, k, True)
                if x.role == "code":
                    x.role = "output"
        elif fmt == "markdown":
            got = markdown_lines(text, cell=k, output=True, first_line=line)
        elif fmt == "latex":
            got = [Line(x.text, Where(line + x.where.line - 1, k, True), x.role) for x in latex_lines(text)]
        else:
            got = [Line(part, Where(line + n, k, True), "output") for n, part in enumerate(text.split("\n"))]
        if got and got[-1].text == "" and text.endswith("\n"):
            got.pop()
        out += got
        line += len(text.split("\n")) - (1 if text.endswith("\n") else 0)
    return out


def text_lines(text: str) -> list[Line]:
    """Plain text; a code listing copied with its line numbers ("1X = [[…", "2     […") loses
    them (a run of at least three lines numbered 1, 2, 3, …)."""
    parts = text.split("\n")
    out = [Line(part, Where(n), "prose") for n, part in enumerate(parts, 1)]
    k = 0
    while k < len(parts):
        if re.match(r"1(?!\d)", parts[k]):
            j = k
            while j < len(parts) and re.match(rf"{j - k + 1}(?!\d)", parts[j]):
                j += 1
            glued = all(re.match(rf"{m - k + 1}(?:[^\d\s]|\s\s)", parts[m]) for m in range(k, j))
            # (a column of bare numbers, 1.0 then 2, 3, 4, is numbers one a line, not a numbered listing)
            bare = all(re.fullmatch(r"\d+(?:\.\d*)?\s*", parts[m]) for m in range(k, j))
            if (j - k >= 3 or (j - k == 2 and glued)) and not bare:
                for m in range(k, j):
                    out[m].text = parts[m][len(str(m - k + 1)):]
                    out[m].role = "code"
                k = j
                continue
        k += 1
    return out


# ---------------------------------------------------------------------------------------


_LONG_BLANKS = re.compile(r"[^\S\n]{%d,}" % (MAX_BLANK_RUN + 1))


def cut_blank_runs(text: str) -> str:
    """``text`` with each run of more than :data:`~symattn.limits.MAX_BLANK_RUN` blanks (spaces,
    tabs, no-break and ideographic spaces) cut to its first ``MAX_BLANK_RUN``: no page's layout needs
    more, and the line readers' patterns would take time quadratic in a longer run.

    >>> cut_blank_runs("a" + " " * 1000 + "b") == "a" + " " * MAX_BLANK_RUN + "b"
    True
    >>> cut_blank_runs("0.5   0.25")
    '0.5   0.25'
    """
    return _LONG_BLANKS.sub(lambda m: m.group()[:MAX_BLANK_RUN], text)


_PROMPT_RE = re.compile(r"(\s*)(?:>>>|\.\.\.)(?: |$)")


def doctest_lines(lines: list[Line]) -> None:
    """A Python session written out (a docstring's examples, a REPL pasted into a post): each
    ``>>> `` line (and its ``... `` continuations) is code without its prompt, and the lines under
    it up to a blank line or the next prompt are what it printed (output), as ``doctest`` reads them.

    >>> ls = [Line(t, Where(n)) for n, t in enumerate([">>> np.round(w, 4)", "array([[0.67, 0.33]])", "", "So:"], 1)]
    >>> doctest_lines(ls)
    >>> [(x.role, x.text) for x in ls]
    [('code', 'np.round(w, 4)'), ('output', 'array([[0.67, 0.33]])'), ('prose', ''), ('prose', 'So:')]
    """
    state = ""  # "prompt" after a >>> line, "output" under it
    for ln in lines:
        if ln.role not in ("prose", "code", "heading", "output"):
            state = ""
            continue
        m = _PROMPT_RE.match(ln.text)
        if m and (ln.text.lstrip().startswith(">>>") or state == "prompt"):
            ln.text, ln.role, state = m.group(1) + ln.text[m.end():], "code", "prompt"
        elif state and ln.text.strip():
            ln.role, state = "output", "output"
        else:
            state = ""


def read_page(text: str, format: str | None = None, source: str = "<page>", scripts: bool = False) -> Page:
    """Read a page's text into a :class:`~symattn.read.pages.model.Page` (lines and blocks).

    ``format`` is one of :data:`FORMATS` (or None: from the suffix of ``source``, else from the
    text). The page is bounded by
    :data:`symattn.limits.MAX_PAGE_BYTES`; nothing in it is executed or fetched.

    >>> p = read_page("| Word | I | love |\\n|---|---|---|\\n| love | 0.3 | 0.7 |", "markdown")
    >>> p.blocks[0].header, p.blocks[0].rows
    (['Word', 'I', 'love'], [['love', '0.3', '0.7']])
    """
    if len(text) > MAX_PAGE_BYTES:
        raise LimitError(f"{source}: the page has {len(text)} characters, past the limit of {MAX_PAGE_BYTES} "
                         "(see the README's limits)")
    fmt = normalise_format(format) if format else detect_format(source if source not in ("<page>", "-") else None, text)
    body = None
    if fmt == "notebook":
        lines = notebook_lines(text)
    elif not format and PurePath(source).suffix.lower() in SOURCE_SUFFIXES:
        fmt = "markdown"
        fence = "`" * max(3, max((len(m) for m in re.findall(r"`{3,}", text)), default=0) + 1)
        lines = markdown_lines(f"{fence}\n{undefined_macros(_clean(text))}\n{fence}", first_line=0)[1:-1]
        lines = template_outputs(lines) if PurePath(source).suffix.lower() in (".js", ".mjs", ".jsx", ".ts", ".tsx") else lines
    else:
        body = undefined_macros(_clean(text))
        lines = {"markdown": markdown_lines, "html": html_lines, "latex": latex_lines,
                 "text": text_lines}[fmt](body)
        if scripts and fmt == "html":  # a page that gives nothing in its text: its inline scripts as code
            lines = with_scripts(lines, script_lines(without_comments(body)))
    total = sum(len(x.text) + 1 for x in lines)
    if total > MAX_PAGE_TEXT:
        raise LimitError(f"{source}: the page holds {total} characters of text, past the limit of {MAX_PAGE_TEXT} "
                         "(see the README's limits)")
    for ln in lines:
        ln.text = cut_blank_runs(ln.text)
    if fmt != "notebook":
        doctest_lines(lines)
    lines = read_decimal_commas(named_infinities(lines))
    if fmt == "markdown" and body is not None:
        lines = hand_math_fences(lines, body)  # bare fences of hand-written math: text (hand_math.py)
    lines = unstack_side_by_side(join_hanging_rows(lines))
    page = Page(fmt, lines, source=source)
    page.blocks = scan(lines)
    return page
