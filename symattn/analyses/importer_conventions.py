"""What a page says about its conventions: whether the scores are scaled by √d_k, a causal
mask, the layout of the projections (X·W or X·Wᵀ), and which token is the focus query.
Each finding keeps the line that says it, so a draft can cite it.

>>> from symattn.read.pages.model import Line, Where
>>> lines = [Line(r"\\[ \\text{softmax}\\left(\\frac{QK^T}{\\sqrt{d_k}}\\right) V \\]", Where(17), "math"),
...          Line('The word "love" is the query.', Where(52))]
>>> scale_evidence(lines).value, scale_evidence(lines).where
('1/sqrt(d_k)', 'line 17')
>>> query_evidence(lines, ["I", "love", "statistics"]).value
'love'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..read.pages.model import Line
from .importer_constant_scale import constant_scale

__all__ = ["Evidence", "scale_evidence", "mask_evidence", "mask_lines", "layout_evidence", "per_token_layout",
           "query_evidence", "snippet",
           "heads_evidence", "multihead_layer", "keep_mask", "inline_keep_mask", "identity_weights", "left_out_scaling"]


def snippet(text: str, m: re.Match | None = None, width: int = 100) -> str:
    """The words around a match (or the start of the text), at most ``width`` characters."""
    t = re.sub(r"\s+", " ", text).strip()
    if m is None or len(t) <= width:
        return t[:width]
    s = re.sub(r"\s+", " ", text[: m.start()]).lstrip()
    start = max(0, len(s) - width // 3)
    out = t[start:start + width]
    return ("…" if start else "") + out + ("…" if start + width < len(t) else "")


@dataclass
class Evidence:
    """A convention the page states: its value, the line that says it, and the words."""

    value: str
    where: str
    text: str


_UNSCALED = re.compile(r"without\s+(any\s+)?scal|no\s+scaling|unscaled|not\s+scaled|skip(ping)?\s+(the\s+)?scal|"
                       r"omit(ting)?\s+(the\s+)?scal|we\s+do\s+not\s+scale|don'?t\s+scale", re.I)
_SCALED = re.compile(r"\\sqrt\s*\{\s*d_?\{?[kK]\}?\s*\}|√\s*\(?\s*d_?[kK]|sqrt\(\s*(self\.)?d_?k|"
                     r"(np|math|torch)\.sqrt\(|\*\*\s*-?0\.5|\\sqrt\s*\{\s*\d+\s*\}|√\s*\d|"
                     r"\bscal(e|ed|ing)\s+(each\s+|the\s+)?(dot[- ]product\s+|attention\s+|raw\s+)?"
                     r"(scores?\s+|similarit\w*\s+|logits\s+)?by\s+(?=[^.;]{0,30}(√|sqrt|square\s+root|\\sqrt|d_?k|"
                     r"dimension|\d))|divid(e|ed|ing)\s+(each\s+|the\s+|them\s+)?"
                     r"(scores?\s+)?by\s+(the\s+)?(square\s+root|√|sqrt|\\sqrt)|scaled_dot_product_attention|"
                     r"\bscaled\s+(dot[- ]product|attention\s+scores|scores)", re.I)
_DMODEL = re.compile(r"sqrt\(\s*d_?model|\\sqrt\s*\{\s*d_?\{?model|√\s*d_?model", re.I)


def _joined(lines: list[Line]) -> list[Line]:
    """Each line read together with the next one (sentences wrap across lines)."""
    out = []
    for k, ln in enumerate(lines):
        text = ln.text
        if text.strip() and k + 1 < len(lines) and ln.role == lines[k + 1].role and ln.role in ("prose", "heading"):
            text = text + " " + lines[k + 1].text
        out.append(Line(text, ln.where, ln.role))
    return out


def _first(lines: list[Line], rx: re.Pattern, joined: bool = True) -> tuple[Line, re.Match] | None:
    """The first line that matches (read with the next line when ``joined``)."""
    for ln in (_joined(lines) if joined else lines):
        m = rx.search(ln.text)
        if m:
            return ln, m
    return None


_SCALE_CODE = re.compile(r"/\s*\(?\s*(?:np|math|torch)\.sqrt\(|/\s*\(?\s*[\w.\[\]-]+\s*\*\*\s*0?\.5|"
                         r"\*\s*\(?\s*[\w.\[\]-]+\s*\*\*\s*-0?\.5|\*\s*scale\b|/\s*scale\b|"
                         r"scale\s*=\s*1(?:\.0)?\s*/\s*(?:np\.|math\.|torch\.)?sqrt|scaled_dot_product_attention")


_SOFTMAX_OF_SCORES = re.compile(r"(?:softmax\w*|exp)\(\s*(?:attn_|attention_)?(?:scores?|logits|omega)\w*\s*[,)]")


# softmax of a method that returns the scores: "torch.softmax(self.scores_for_token(embeddings, i), dim=0)"
_SOFTMAX_OF_SCORES_CALL = re.compile(r"softmax\w*\(\s*self\.(?:attn_|attention_)?(?:scores?|logits)\w*\([^()]*\)\s*[,)]")


_ROOT_NAME = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*(?:(?:np|math|torch)\.sqrt\((?![^)]*(?:var|eps))|[\w.\[\]-]+\s*\*\*\s*0?\.5\s*(?:#.*)?$)")


def _divided_by_root_name(code: list[Line]) -> tuple[Line, re.Match] | None:
    """A division by a name the code set to a square root (``sqrt_d = np.sqrt(d)``, then
    ``score = dot / sqrt_d``): the line that divides, and the match."""
    names = {m.group(1) for ln in code if (m := _ROOT_NAME.match(ln.text))}
    if not names:
        return None
    div = re.compile(r"/\s*\(?\s*(?:" + "|".join(map(re.escape, sorted(names))) + r")\b(?!\s*[(\[.])")
    # (only a division of scores: 'x_hat = (x - mean) / std' of a layer norm is no scaling)
    return _first([ln for ln in code if _SCORE_WORDS.search(ln.text)], div, joined=False)


_SCORE_WORDS = re.compile(r"score|logit|\bdot\b|dot\(|@|matmul|\batt|\bsim|qk|q_?k", re.I)


def scale_evidence(lines: list[Line]) -> Evidence | None:
    """``1/sqrt(d_k)`` or ``none`` when the page says so, else None. What its code computes
    counts first (``/ np.sqrt(d_k)``, ``d_k**0.5``), then what its text says, then comments."""
    code = [ln for ln in lines if ln.role == "code" and not ln.text.lstrip().startswith("#")]
    bare = [Line(re.sub(r"\s#.*$", "", ln.text), ln.where, ln.role) for ln in code]
    hit = _first(bare, _SCALE_CODE, joined=False) or _divided_by_root_name(bare)
    if hit:
        return Evidence("1/sqrt(d_k)", str(hit[0].where), snippet(hit[0].text, hit[1]))
    fixed = constant_scale(bare)  # scores / sharpFactor with sharpFactor = 0.6: the scale 1/0.6
    if fixed is not None:
        return Evidence(*fixed)
    raw = _first(bare, _SOFTMAX_OF_SCORES, joined=False) or _first(bare, _SOFTMAX_OF_SCORES_CALL, joined=False)
    if raw:  # softmax(scores) and no scaling anywhere in the code
        return Evidence("none", str(raw[0].where), snippet(raw[0].text, raw[1]))
    text = [ln for ln in lines if ln.role != "code"]
    found = _scale_statement(text)
    if found is not None:
        return found
    comments = [Line(ln.text.lstrip().lstrip("#"), ln.where, "prose") for ln in lines
                if ln.role == "code" and ln.text.lstrip().startswith("#")]
    return _scale_statement(comments)


_LEFT_OUT = re.compile(r"\b(?:leave|leaves|leaving|left|leav\w*)\s+out\s+(?:the\s+)?\$?\s*(?P<a>(?:√\s*\(?\s*d_?\{?[kK]\}?\)?|"
                       r"\\sqrt\s*\{\s*d_?\{?[kK]\}?\s*\}|1\s*/\s*√\s*d_?[kK])\s*\$?\s*(?:division|scaling|factor)?|scaling|"
                       r"scale\s+factor|division\s+by\s+(?:√|\\sqrt|the\s+square\s+root))|"
                       r"\b(?:skip|skips|skipping|skipped|omit|omits|omitting|omitted|drop|drops|dropping|dropped|"
                       r"ignore|ignores|ignoring|ignored)\s+(?:the\s+)?\$?\s*(?P<b>(?:√\s*\(?\s*d_?\{?[kK]\}?\)?|"
                       r"\\sqrt\s*\{\s*d_?\{?[kK]\}?\s*\})\s*\$?\s*(?:division|scaling|factor)?|scaling|division\s+by)", re.I)


def left_out_scaling(lines: list[Line]) -> Evidence | None:
    """The worked example's own words that it leaves the 1/√d_k scaling out ("To keep the numbers simple
    we leave out the √d_k division here", "we skip the scaling"), in its text (not its code): scale none,
    whatever code shown before it computes.

    >>> from symattn.read.pages.model import Where
    >>> left_out_scaling([Line("here we leave out the √d_k division; it only rescales", Where(3))]).value
    'none'
    >>> left_out_scaling([Line("scores = Q K^T / √d_k", Where(3))]) is None
    True
    >>> left_out_scaling([Line("If we ignored the scaling, the softmax would saturate.", Where(3))]) is None
    True
    """
    for ln in _joined([ln for ln in lines if ln.role != "code"]):
        for m in _LEFT_OUT.finditer(ln.text):
            a = max(ln.text.rfind(". ", 0, m.start()), ln.text.rfind("; ", 0, m.start())) + 1
            b = min(x for x in (ln.text.find(". ", m.end()), ln.text.find("; ", m.end()), len(ln.text)) if x >= 0)
            if re.search(r"\b(?:if|would|could|should|otherwise|unless)\b", ln.text[a:b], re.I):
                continue  # "if we ignored the scaling, the softmax would saturate": a reason, not a choice
            return Evidence("none", str(ln.where), snippet(ln.text, m))
    return None


_PROBLEM = re.compile(r"\b(?:if|would|could|otherwise|unless|why|bad(?:ly)?|poorly|problems?|saturat\w*|vanish\w*|"
                      r"explod\w*|unstable|instabilit\w*|too\s+(?:large|big|sharp|peaked))\b", re.I)


def _unscaled_as_a_problem(text: str) -> bool:
    """Whether every sentence that says 'unscaled' (or 'without scaling') gives it as a problem, a reason
    to scale ("With a large d the unscaled dot products work badly"), not as what the page does.

    >>> _unscaled_as_a_problem("With a large d the unscaled dot products work badly. The paper blames it.")
    True
    >>> _unscaled_as_a_problem("Without scaling, softmax would saturate.")
    True
    >>> _unscaled_as_a_problem("We use the unscaled dot products here.")
    False
    """
    said = [m for m in _UNSCALED.finditer(text)]
    if not said:
        return False
    for m in said:
        a = max(text.rfind(". ", 0, m.start()), text.rfind("; ", 0, m.start())) + 1
        ends = [x for x in (text.find(". ", m.end()), text.find("; ", m.end())) if x >= 0]
        if not _PROBLEM.search(text[a:min(ends) if ends else len(text)]):
            return False
    return True


def _scale_statement(lines: list[Line]) -> Evidence | None:
    joined = _joined(lines)
    # "the unscaled dot product, then scale each similarity by √2": a line that says both is scaling
    un = _first([ln for ln in joined if not _SCALED.search(ln.text) and not _unscaled_as_a_problem(ln.text)],
                _UNSCALED, joined=False)
    if un:
        return Evidence("none", str(un[0].where), snippet(un[0].text, un[1]))
    dm = _first(lines, _DMODEL)
    sc = _first(lines, _SCALED)
    if dm and (not sc or dm[0] is sc[0]):
        return Evidence("1/sqrt(d_model)", str(dm[0].where), snippet(dm[0].text, dm[1]))
    if sc:
        return Evidence("1/sqrt(d_k)", str(sc[0].where), snippet(sc[0].text, sc[1]))
    return None


_CAUSAL = re.compile(r"\bcausal\b|masked_fill|\btril\b|\btriu\b|look-?ahead\s+mask|future\s+(tokens|positions)|"
                     r"autoregressive\s+mask|decoder\s+mask|is_causal\s*=\s*True|"
                     # the future positions in French, Spanish, Portuguese, Italian, German ('les positions à venir')
                     r"\b(?:positions?|posici[oó]n(?:es)?|posi[cç](?:ão|ões)|posizion[ei]|tokens?|mots|caract[eè]res)\s+"
                     r"(?:à\s+venir|futur[aeos]{0,2}|seguintes)\b|\bkausale?n?\b|zukünftige[n]?\s+(?:Tokens|Positionen)",
                     re.I)


_W_NAME = r"W\s*(?:[_^]\s*\{?\s*(?:\\mathrm\{|\\text\{)?([QKVqkv])\}?\}?|([QKVqkv])\b)"
# (atomic: a chain of names 'W_q = W_q = …' is matched one way, in time linear in its length)
_IDENTITY = re.compile(rf"((?>{_W_NAME}\s*=\s*){{1,6}})(?:I|\\mathbf\{{I\}}|\\mathbb\{{I\}}|I_\{{?\d+\}}?|"
                       rf"\\mathrm\{{I\}}|\\text\{{I\}})(?![A-Za-z0-9(\[{{])(?!\s*[-+*/·×^_])")


def identity_weights(lines: list[Line]) -> dict[str, Evidence]:
    """Projection weights the page sets to the identity in words or symbols (``W^K = W^V = I``):
    name (Wq, Wk, Wv) -> the statement.

    >>> from symattn.analyses.importer_conventions import identity_weights
    >>> from symattn.read.pages.model import Line, Where
    >>> sorted(identity_weights([Line("weights $W^Q$ given, $W^K = W^V = I$.", Where(3), "prose")]))
    ['Wk', 'Wv']
    """
    out: dict[str, Evidence] = {}
    for ln in lines:
        for m in _IDENTITY.finditer(ln.text):
            for q, k in re.findall(_W_NAME, m.group(1)):
                name = "W" + (q or k).lower()
                out.setdefault(name, Evidence("identity", str(ln.where), snippet(ln.text, m)))
    return out


def mask_lines(lines: list[Line]) -> list[int]:
    """Indices of the lines that introduce a causal mask."""
    return [k for k, ln in enumerate(lines) if _CAUSAL.search(ln.text)]


def mask_evidence(lines: list[Line]) -> Evidence | None:
    hit = _first(lines, _CAUSAL)
    return Evidence("causal", str(hit[0].where), snippet(hit[0].text, hit[1])) if hit else None


_TORCH = re.compile(r"@\s*(self\.)?W_?\w*\.T\b|\bW_?\w*\.T\s*\)|nn\.Linear|F\.linear|\.weight\.T|"
                    r"(matmul|dot|mm)\(\s*\w+\s*,\s*W_?\w*\.T\)", re.I)
_COLUMN = re.compile(r"(W_?\w*|W\^\{?\w+\}?)\s*(@|\\cdot|·|\*)?\s*(x|X)(_\w+)?\.T\b|W_?[qkv]\s*@\s*x\b", re.I)


_PROJ = re.compile(r"(?:^|[\s$;,(])(?:self\.)?(?:Q|K|V|q|k|v|quer\w*|key\w*|value\w*)\s*=\s*(?P<rhs>[^=#\n]*)")
_ROW_RHS = re.compile(r"^\s*(?:x\w*|X\w*|inputs?\w*|emb\w*|E|h|H)\s*(?:@|\\cdot|·|\*)?\s*(?:self\.)?"
                      r"(?:W|w)(?:_?\w*|\^\{?\w+\}?)\s*$|^\s*(?:np\.)?(?:dot|matmul)\(\s*(?:x|X|inputs?)\w*\s*,\s*"
                      r"(?:self\.)?W_?\w*\s*\)")
_TORCH_RHS = re.compile(r"(?:W|w)_?\w*\.(?:T\b|t\(\)|transpose)|(?:self\.)?W_?\w*\(\s*(?:x|X|inputs?)\w*\s*\)|"
                        r"F\.linear\(")
_COLUMN_RHS = re.compile(r"^\s*(?:self\.)?(?:W|w)_?\w*\s*(?:@|\\cdot|·)\s*(?:x|X|inputs?)\w*(?:\.T)?\s*$")


def layout_evidence(lines: list[Line]) -> Evidence | None:
    """``row`` (Q = X·W), ``torch`` (X·Wᵀ, nn.Linear) or ``column`` (W·x) from the lines that
    compute the projections (not, say, a gradient's formula that transposes W)."""
    for ln in lines:
        if ln.role not in ("code", "math"):
            continue
        text = re.sub(r"\s#.*$", "", ln.text)
        for m in _PROJ.finditer(text):
            rhs = m.group("rhs").split(",")[0] if ln.role == "math" else m.group("rhs")
            rhs = rhs.replace("{", "").replace("}", "")
            if _TORCH_RHS.search(rhs):
                return Evidence("torch", str(ln.where), snippet(text, m))
            if _COLUMN_RHS.search(rhs):
                return Evidence("column", str(ln.where), snippet(text, m))
            if _ROW_RHS.search(rhs):
                return Evidence("row", str(ln.where), snippet(text, m))
    bare = [Line(re.sub(r"(^|\s)#.*$", "", ln.text), ln.where, ln.role) for ln in lines if ln.role == "code"]
    hit = _first(bare, re.compile(r"nn\.Linear\(|F\.linear\("), joined=False)
    if hit:
        return Evidence("torch", str(hit[0].where), snippet(hit[0].text, hit[1]))
    return None


_W_TIMES_VEC = re.compile(r"=\s*(?:W_?\{?[qkvQKV]\}?|W\^\{?[QKV]\}?)\s*(?:×|·|@|\*|\\times|\\cdot)\s*\[[^\[\]]{1,2000}\]\s*=")
_VEC_TIMES_W = re.compile(r"=\s*\[[^\[\]]{1,2000}\]\s*(?:×|·|@|\*|\\times|\\cdot)\s*(?:W_?\{?[qkvQKV]\}?|W\^\{?[QKV]\}?)\s*=")


def per_token_layout(lines: list[Line]) -> Evidence | None:
    """The layout a projection written out per token says: ``Key("The") = Wk × [x] = [k]``
    multiplies each token's row by W from the left (W·x, so Q = X·Wᵀ: ``torch``);
    ``k_1 = [x] @ W_k = [k]`` from the right (``row``)."""
    for ln in lines:
        for rx, value in ((_W_TIMES_VEC, "torch"), (_VEC_TIMES_W, "row")):
            m = rx.search(ln.text)
            if m:
                return Evidence(value, str(ln.where), snippet(ln.text, m))
    return None


_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "sixth": 5, "seventh": 6, "eighth": 7,
             "ninth": 8, "last": -1}


# the query named by its 0-based index, in prose or a docstring: "attending from the token at index 1",
# "the context vector of tok_idx=1"
_INDEX_QUERY = re.compile(r"\b(?:token|word)\s+at\s+index\s+(\d{1,3})\b|"
                          r"\b(?:of|for|from)\s+(?:the\s+)?(?:tok|token|word|query)_?(?:idx|index)\s*=\s*(\d{1,3})\b",
                          re.I)


# a query taken from a dictionary of embeddings by its token, perhaps projected on the way
_KEYED_QUERY = re.compile(r"^\s*(?:query|q|x_q|q_vec)\w*\s*=\s*(?:[A-Za-z_][\w.]*\s*@\s*)?[A-Za-z_]\w*"
                          r"\[\s*[\"']([^\"'\]]{1,40})[\"']\s*\](?:\s*@\s*[A-Za-z_][\w.]*)?\s*(?:#.*)?$")


def query_evidence(lines: list[Line], tokens: list[str] | None) -> Evidence | None:
    """The focus query token a page names ("Focusing on "jumps"", "the word "love" is the query",
    ``query = inputs[1]``)."""
    if not tokens:
        return None
    lower = {t.lower(): t for t in tokens}
    q = r"[\"“‘'`]?([\w<>]+)[\"”’'`]?"
    pats = [
        re.compile(r"focus(?:ing|ed|es)?\s+on\s+(?:the\s+)?(?:word\s+|token\s+)?" + q, re.I),
        re.compile(r"(?:word|token)\s+" + q + r"\s+(?:is|as)\s+(?:the|our)\s+query", re.I),
        re.compile(r"[\"“‘']([\w<>]+)[\"”’']\s+(?:is|as)\s+(?:the|our)\s+query", re.I),
        re.compile(r"query\s+(?:word|token)\s+(?:is\s+)?" + q, re.I),
        re.compile(r"(?:use|take|consider|choose)\s+" + q + r"\s+as\s+(?:the|our)\s+query", re.I),
        re.compile(r"(?:we\s+)?(?:follow|track|trace)\s+(?:how\s+)?(?:the\s+)?(?:word|token)\s+" + q, re.I),
    ]
    ints: dict[str, int] = {}
    for ln in lines:
        m = _INDEX_QUERY.search(ln.text)
        if m:
            i = int(m.group(1) or m.group(2))
            if i < len(tokens):
                return Evidence(tokens[i], str(ln.where), snippet(ln.text, m))
        if ln.role == "code":
            a = re.match(r"\s*([A-Za-z_]\w*)\s*=\s*(-?\d+)\s*(?:#.*)?$", ln.text)
            if a:
                ints[a.group(1)] = int(a.group(2))
            m = _KEYED_QUERY.search(ln.text)
            if m and m.group(1).lower() in lower:
                # q = vectors["jumped"], q_von = Wq @ X["von"]: the query's row looked up by its token
                return Evidence(lower[m.group(1).lower()], str(ln.where), snippet(ln.text, m))
            m = re.search(r"\b(?:query|q|x_q|q_vec)\w*\s*=\s*(?:inputs?|x|X|embeddings|emb|E|embedded\w*)\[\s*(-?\d+|[A-Za-z_]\w*)"
                          r"\s*(?:,\s*:\s*)?\]", ln.text)
            if m:
                ref = m.group(1)
                i = int(ref) if re.fullmatch(r"-?\d+", ref) else ints.get(ref)
                if i is not None and -len(tokens) <= i < len(tokens):
                    return Evidence(tokens[i], str(ln.where), snippet(ln.text, m))
            continue
        for p in pats:
            m = p.search(ln.text)
            if m and m.group(1).lower() in lower:
                return Evidence(lower[m.group(1).lower()], str(ln.where), snippet(ln.text, m))
        m = re.search(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|last)\s+(?:input\s+)?"
                      r"(?:token|word|input)\b[^.]{0,40}\bas\s+(?:the\s+|a\s+)?query", ln.text, re.I)
        if m:
            i = _ORDINALS[m.group(1).lower()]
            if -len(tokens) <= i < len(tokens):
                return Evidence(tokens[i], str(ln.where), snippet(ln.text, m))
    return None


_WORDS = {"two": 2, "three": 3, "four": 4, "six": 6, "eight": 8, "twelve": 12, "sixteen": 16}
_HEADS_CODE = re.compile(r"\b(?:num_heads|n_heads|nheads|n_head|num_head|number_of_heads|heads)\s*[:=]\s*(\d{1,2})\b")
_HEADS_TEXT = re.compile(r"\b(\d{1,2}|two|three|four|six|eight|twelve|sixteen)\s+(?:attention\s+)?heads\b|"
                         r"\bheads?\s*\(?\s*h\s*\)?\s*[:=]\s*(\d{1,2})\b|\bh\s*=\s*(\d{1,2})\s*(?:heads?\b|$|[,;.)])",
                         re.I)


def heads_evidence(lines: list[Line]) -> Evidence | None:
    """The number of attention heads a page uses (``num_heads=2``, "2 attention heads",
    ``h = 2``), from its code first, then its text.

    >>> from symattn.read.pages.model import Line, Where
    >>> heads_evidence([Line("* **2 attention heads**", Where(3))]).value
    '2'
    """
    code = [Line(re.sub(r"(^|\s)#.*$", "", ln.text), ln.where, ln.role) for ln in lines if ln.role == "code"]
    for group, rx in ((code, _HEADS_CODE), ([ln for ln in lines if ln.role != "code"], _HEADS_TEXT)):
        for ln in group:
            m = rx.search(ln.text)
            if m:
                raw = next(g for g in m.groups() if g)
                h = int(raw) if raw.isdigit() else _WORDS[raw.lower()]
                if h >= 1:
                    return Evidence(str(h), str(ln.where), snippet(ln.text, m))
    return _heads_by_name(code)


_MH_LAYER = re.compile(r"\bMulti[_]?[Hh]ead(?:ed)?Attention\s*\(")


def multihead_layer(lines: list[Line], first: int = 0) -> Evidence | None:
    """The heads of a multi-head layer the code builds (``nn.MultiheadAttention(embed_dim=4, num_heads=2)``,
    ``num_heads=H`` with ``H`` bound earlier): the layer's output is the heads' concatenation (through W_O),
    whatever its printouts show of single heads; None when the code builds none (from line ``first`` on) or its
    heads are not given.

    >>> from symattn.read.pages.model import Line, Where
    >>> multihead_layer([Line("m = nn.MultiheadAttention(4, num_heads=2)", Where(1), "code")]).value
    '2'
    >>> multihead_layer([Line("m = Attention(4, num_heads=2)", Where(1), "code")]) is None
    True
    """
    code = [ln for ln in lines if ln.role == "code"]
    if not any(_MH_LAYER.search(ln.text) for ln in lines[first:] if ln.role == "code"):
        return None
    ev = heads_evidence(code)
    return ev if ev is not None and int(ev.value) > 1 else None


_HEADS_NAME = re.compile(r"\b(?:num_heads|n_heads|nheads|n_head|num_head|number_of_heads)\s*=\s*([A-Za-z_]\w*)\s*[,)]")


def _heads_by_name(code: list[Line]) -> Evidence | None:
    """``num_heads=H`` with ``H`` bound to a number earlier in the code (``H = 2``, ``B, S, N, H = 2, 6, 4, 2``).

    >>> from symattn.read.pages.model import Line, Where
    >>> ls = [Line("B, S, N, H = 2, 6, 4, 3", Where(1)), Line("m = MHA(embed_dim=N, num_heads=H)", Where(2))]
    >>> _heads_by_name(ls).value, _heads_by_name(ls[1:]) is None
    ('3', True)
    """
    for k, ln in enumerate(code):
        m = _HEADS_NAME.search(ln.text)
        if not m:
            continue
        name = m.group(1)
        for prev in reversed(code[:k]):
            a = re.match(r"\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=\s*(\d{1,2}(?:\s*,\s*\d{1,6})*)\s*(?:#.*)?$",
                         prev.text)
            if not a:
                continue
            names = [x.strip() for x in a.group(1).split(",")]
            vals = [x.strip() for x in a.group(2).split(",")]
            if name in names and len(names) == len(vals) and 1 <= int(vals[names.index(name)]) <= 64:
                return Evidence(vals[names.index(name)], str(ln.where), snippet(ln.text, m))
        return None
    return None


_MASK_NAME = re.compile(r"^\s*(?:self\.)?((?:[A-Za-z_]\w*)?mask)\s*$", re.I)
_ONE = {"1", "1.", "1.0", "true", "True"}
_ZERO = {"0", "0.", "0.0", "false", "False"}


#: a call of an attention function given a literal keep-mask by keyword: 'attention(q, k, v, mask=np.array([[True, False]]))'
_INLINE_MASK = re.compile(r"(?:\w*(?:attention|attn)|scaled_dot_product\w*|sdpa)\s*\((?=[^()]*,)[^#]*?(?<![\w.])mask\s*=\s*"
                          r"(?:(?:np|numpy|jnp|torch|tf)\.(?:array|asarray|tensor|constant)\(\s*)?"
                          r"(\[[\[\]\s,]*(?:(?:True|False|1|0)\.?[\[\]\s,]*)+\])", re.I)


def inline_keep_mask(text: str) -> list[list[str]] | None:
    """The rows of a keep-mask written whole as the ``mask=`` argument of an attention call on a line
    of code (True or 1 = attend, as :func:`keep_mask` reads a named one), or None; not all ones or all
    zeros, every row as long.

    >>> inline_keep_mask("scaled_dot_product_attention(q, k, v, mask=np.array([[True, False]]))[0]")
    [['True', 'False']]
    >>> inline_keep_mask("attention(q, k, v, mask=[[1, 0], [1, 1]])"), inline_keep_mask("f(q, k, v, mask=[[1, 0]])")
    ([['1', '0'], ['1', '1']], None)
    >>> inline_keep_mask("attention(q, k, v, mask=causal_mask(3))"), inline_keep_mask("attention(q, k, v, mask=[[1, 1]])")
    (None, None)
    """
    m = _INLINE_MASK.search(text)
    if not m:
        return None
    lit = m.group(1)
    rows = [re.findall(r"True|False|1|0", r, re.I) for r in re.findall(r"\[([^\[\]]*)\]", lit)]
    rows = [r for r in rows if r]
    if not rows or len({len(r) for r in rows}) != 1:
        return None
    cells = [x for r in rows for x in r]
    if all(x in _ONE for x in cells) or all(x in _ZERO for x in cells):
        return None
    return rows


def keep_mask(rows: list[list[str]], label: str, lines: list[Line], end: int) -> list[list[bool]] | None:
    """A 0/1 array bound to a name ending in ``mask`` and passed, within the next lines, to a call
    with other arguments (``attention(q, k, v, mask)``): the keep-mask of that call (1 = attend),
    as booleans; None for anything else (all ones or all zeros is no mask).

    >>> from symattn.read.pages.model import Line, Where
    >>> ls = [Line("mask = np.array([[1, 1, 0, 1]])", Where(1)), Line("out, w = f(q, k, v, mask)", Where(2))]
    >>> keep_mask([["1", "1", "0", "1"]], "mask", ls, 0)
    [[True, True, False, True]]
    >>> keep_mask([["1", "1", "0", "1"]], "masked", ls, 0) is None, keep_mask([["1", "1"]], "mask", ls, 0) is None
    (True, True)
    """
    m = _MASK_NAME.match(label)
    cells = [x.strip() for r in rows for x in r]
    if not m or not cells or any(x not in _ONE and x not in _ZERO for x in cells):
        return None
    if all(x in _ONE for x in cells) or all(x in _ZERO for x in cells):
        return None
    call = re.compile(rf"\w\s*\((?=[^()]*,)(?=[^()]*\b{re.escape(m.group(1))}\b)[^()]*\)")
    if not any(call.search(ln.text) for ln in lines[end + 1: end + 6]):
        return None
    return [[x.strip() in _ONE for x in r] for r in rows]
