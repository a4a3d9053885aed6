"""What a page says about the attention variants: positions (sinusoidal encodings, RoPE in
its two styles, ALiBi), the score (Luong's general, Bahdanau's additive, linear attention)
and grouped-query attention, each as the ``[convention]`` key it sets.

One table of rules (:data:`RULES`): a pattern, the key and value it sets, and whether it is
*strong* (a formula, a table's generator or code: enough alone) or *weak* (a name such as
"RoPE" or "positional encoding": it counts only when a strong rule of the same family also
matches, so a page that mentions an encoding in passing sets nothing). The first rule that
matches decides each key; a number a rule captures (a base, a head count) is its value.

>>> from symattn.read.pages.model import Line, Where
>>> found = variant_evidence([Line("q, k = apply_rotary_pos_emb(q, k, cos, sin)", Where(7), "code")])
>>> [(e.key, e.value, e.where) for e in found]
[('positions', 'rope', 'line 7'), ('rope_style', 'half', 'line 7')]
>>> variant_evidence([Line("Each word gets a positional encoding.", Where(3))])
[]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..read.pages.model import Line
from .importer_conventions import snippet

__all__ = ["Rule", "RULES", "VariantEvidence", "variant_evidence", "VARIANT_KEYS"]


@dataclass(frozen=True)
class Rule:
    """``pattern`` on a line sets ``key`` to ``value`` (or to ``value(match)``)."""

    family: str
    key: str
    value: Any
    pattern: re.Pattern
    strong: bool = True
    code_only: bool = False


@dataclass
class VariantEvidence:
    """A variant the page states: the key, its value, the line and the words."""

    key: str
    value: Any
    where: str
    text: str
    family: str


def _int(m: re.Match) -> int:
    return int(next(g for g in m.groups() if g).replace("_", "").replace(",", ""))


_NUM_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "six": 6, "eight": 8}


def _count(m: re.Match) -> int:
    raw = next(g for g in m.groups() if g)
    return _NUM_WORDS[raw.lower()] if raw.lower() in _NUM_WORDS else int(raw)


def _r(p: str) -> re.Pattern:
    return re.compile(p, re.I)


_BASE_FORMULA = r"(\d{2,7})\s*(?:\^|\*\*)\s*[{(]?\s*-?\s*[{(]?\s*2\s*\*?\s*[ik]\b"  # 10000^{2i/d}, 10000 ** (2 * i / d)

#: (family, key, value, pattern, strong, code only): the first match of each key wins
RULES: tuple[Rule, ...] = (
    # RoPE: code and formulas first, then names
    Rule("rope", "positions", "rope", _r(r"apply_rotary_pos_emb|rotate_half|view_as_complex|freqs_cis|"
                                          r"precompute_freqs|rotary_emb\w*\s*\(|RotaryEmbedding|rope_theta"), code_only=True),
    Rule("rope", "positions", "rope", _r(r"R_\{?\s*\\?Theta|R_\{?[mn]\}?\s*(?:\\mathbf\{?|\()?\s*[qkx]|"
                                          r"(?:cos|sin)\s*\(?\s*m\s*\\?(?:theta|θ)|m\s*\\?(?:theta|θ)_?\{?i|"
                                          r"rotat\w*\s+(?:each|every|consecutive|adjacent)\s+pair")),
    Rule("rope", "positions", "rope", _r(r"\brotary\s+(?:position(?:al)?\s+)?(?:embedding|encoding)s?|\bRoPE\b"),
         strong=False),
    # the style: what the code calls first (Meta's LLaMA code multiplies complex pairs; Hugging Face's
    # LLaMA calls rotate_half), then what the words say
    Rule("rope", "rope_style", "half", _r(r"rotate_half|apply_rotary_pos_emb"), code_only=True),
    Rule("rope", "rope_style", "interleaved", _r(r"view_as_complex|torch\.polar|freqs_cis"), code_only=True),
    Rule("rope", "rope_style", "half", _r(r"rotate_half|GPT-?NeoX|Hugging\s*Face|\bLLaMA\b|"
                                           r"i\s*\+\s*d\s*/\s*2|(?:first|second)\s+half|half[- ]split|"
                                           r"non-?interleaved")),
    Rule("rope", "rope_style", "interleaved", _r(r"complex\s+(?:number|multiplication)|RoFormer|interleav|"
                                                  r"(?:consecutive|adjacent)\s+pairs|"
                                                  r"\(\s*x_?\{?1\}?\s*,\s*x_?\{?2\}?\s*\)")),
    Rule("rope", "rope_base", _int, _r(r"(?:rope_theta|rope_base|theta|base)\s*[=:]\s*(\d[\d_]*)(?:\.0)?\b|"
                                        r"\bbase\s+(?:of\s+)?(\d[\d,]*)\b|" + _BASE_FORMULA)),
    # sinusoidal encodings: a formula, a table's generator or code; "positional encoding" alone is a name
    Rule("sinusoidal", "positions", "sinusoidal",
         _r(r"PE\s*(?:_\{?|\()\s*\(?\s*(?:pos|p|k|t)\b\s*,\s*2\s*i|"
            r"\\?sin\s*\\?(?:left)?\s*\(\s*\\?(?:frac\s*\{\s*)?(?:pos|p|k|t)\w*\s*\}?\s*(?:/|\{)\s*\d{2,7}|"
            r"sin\s*\(\s*(?:pos|p|k|t)\w*\s*/\s*(?:\d{2,7}|n|denominator|div_term|base)|"
            r"getPositionEncoding|positional_encoding\s*\(|PositionalEncoding\s*\(|div_term")),
    Rule("sinusoidal", "positions", "sinusoidal", _r(r"\bsinusoidal\b|position(?:al)?\s+encoding|"
                                                     r"position(?:al)?\s+embedding"), strong=False),
    Rule("sinusoidal", "position_base", _int,
         _r(r"getPositionEncoding\([^)]*\bn\s*=\s*(\d+)|\bn\s*=\s*(\d{2,7})\b(?=[^\n]*(?:posit|encod|sin))|"
            r"\bbase\s*[=:]\s*(\d[\d_]*)\b|\bbase\s+(?:of\s+)?(\d[\d,]*)\b|" + _BASE_FORMULA)),
    # ALiBi
    Rule("alibi", "alibi", True, _r(r"get_slopes|alibi_slopes|build_alibi|"
                                    r"-\s*m\s*(?:\\cdot|·|\*)?\s*\|\s*i\s*-\s*j\s*\||"
                                    r"m\s*(?:\\cdot|·|\*)\s*\[\s*-\s*\(?\s*i|slopes?\s+(?:m\s*=|of\s+1\s*/\s*2|"
                                    r"2\s*\^)")),
    Rule("alibi", "alibi", True, _r(r"\bALiBi\b|attention\s+with\s+linear\s+biases|linear\s+biases"), strong=False),
    # scores: additive, general, linear
    Rule("additive", "score", "additive",
         _r(r"v_?\{?a\}?\s*(?:\^\s*\{?\s*(?:T|\\top|⊤)\s*\}?|ᵀ|\.T)?\s*(?:\\cdot|·|@|\*)?\s*\\?tanh|"
            r"tanh\s*\\?(?:left)?\s*\(\s*W_?\{?a\}?|tanh\s*\(\s*(?:self\.)?W_?a\b|"
            r"tanh\s*\(\s*(?:self\.)?(?:W|w)\w*\s*\(")),
    Rule("additive", "score", "additive", _r(r"\bBahdanau\b|additive\s+attention|additive\s+score"), strong=False),
    Rule("general", "score", "general",
         _r(r"(?:q|h_?t|s_?t|h)\s*_?\{?i?\}?\s*(?:\^\s*\{?\s*(?:T|\\top|⊤)\s*\}?|ᵀ)\s*(?:\\cdot|·)?\s*W_?\{?a\}?\s*"
            r"(?:\\cdot|·)?\s*(?:\\bar\s*\{?\s*h|\\overline\s*\{?\s*h|k|h_?s)|"
            r"q\s*@\s*(?:self\.)?W_?a\s*@\s*k|Luong(?:'s)?\s+(?:\"|“)?general")),
    Rule("general", "score", "general", _r(r"\bgeneral\s+(?:score|attention)|multiplicative\s+attention"),
         strong=False),
    Rule("linear", "score", "linear",
         _r(r"elu\s*\(\s*\w+\s*\)\s*\+\s*1|\\?(?:phi|φ)\s*\(\s*(?:Q|K|q_?i|k_?j)\s*\)|feature[_ ]map")),
    Rule("linear", "score", "linear", _r(r"\blinear\s+attention|\blinear\s+transformer"), strong=False),
    Rule("linear", "feature_map", "elu+1", _r(r"elu\s*\(\s*\w+\s*\)\s*\+\s*1|\belu\s*\+\s*1|elu\(x\)\+1")),
    Rule("linear", "feature_map", "identity", _r(r"identity\s+feature\s+map|(?:phi|φ)\s*\(\s*x\s*\)\s*=\s*x\b")),
    # grouped-query and multi-query attention
    Rule("gqa", "kv_heads", _int, _r(r"\b(?:num_key_value_heads|n_kv_heads|num_kv_heads|kv_heads|n_kv_head|"
                                     r"num_kv_groups|n_groups|num_groups)\s*[=:]\s*(\d{1,2})\b"), code_only=True),
    Rule("gqa", "kv_heads", _count, _r(r"\b(\d{1,2}|one|two|three|four|six|eight)\s+(?:shared\s+)?"
                                       r"(?:key[-/ ]value|kv|K/V)\s+heads\b|\b(\d{1,2}|two|four|eight)\s+"
                                       r"(?:key[-/ ]value\s+)?groups\b")),
    Rule("gqa", "kv_heads", 1, _r(r"\bmulti-?query\s+attention|\bMQA\b")),
)

#: the keys the rules set
VARIANT_KEYS = tuple(dict.fromkeys(r.key for r in RULES))
_ORDER = {k: n for n, k in enumerate(VARIANT_KEYS)}
#: the families each family excludes (one positions scheme, one score)
_RIVALS = {"rope": ("sinusoidal",), "sinusoidal": ("rope",), "additive": ("general", "linear"),
           "general": ("additive", "linear"), "linear": ("additive", "general")}


def _bare(ln: Line) -> Line:
    """A line without its trailing code comment (``# uses RoPE`` does not compute RoPE)."""
    if ln.role == "code":
        return Line(re.sub(r"(^|\s)#.*$", "", ln.text), ln.where, ln.role)
    return ln


def variant_evidence(lines: list[Line]) -> list[VariantEvidence]:
    """Every variant key the page's lines set, in key order.

    A family counts only when one of its strong rules matches; its other keys (a style, a base)
    are read only then. Of two rival families (RoPE and sinusoidal; two scores) the one whose
    strong evidence comes first wins.

    >>> from symattn.read.pages.model import Line, Where
    >>> lines = [Line("We use rotary embeddings (RoPE) with base 10000.", Where(2)),
    ...          Line("q_rot = torch.view_as_complex(q.reshape(-1, 2)) * freqs_cis", Where(5), "code")]
    >>> [(e.key, e.value) for e in variant_evidence(lines)]
    [('positions', 'rope'), ('rope_style', 'interleaved'), ('rope_base', 10000)]
    """
    bare = [_bare(ln) for ln in lines]
    first_strong: dict[str, int] = {}
    for k, ln in enumerate(bare):
        for rule in RULES:
            if rule.strong and rule.key in ("positions", "alibi", "score", "kv_heads") and rule.family not in first_strong \
                    and (ln.role == "code" or not rule.code_only) and rule.pattern.search(ln.text):
                first_strong[rule.family] = k
    families = {f for f in first_strong
                if not any(r in first_strong and first_strong[r] < first_strong[f] for r in _RIVALS.get(f, ()))}
    found: dict[str, VariantEvidence] = {}
    for rule in RULES:
        if rule.family not in families or rule.key in found:
            continue
        for ln in bare:
            if rule.code_only and ln.role != "code":
                continue
            m = rule.pattern.search(ln.text)
            if m is None:
                continue
            value = rule.value(m) if callable(rule.value) else rule.value
            found[rule.key] = VariantEvidence(rule.key, value, str(ln.where), snippet(ln.text, m), rule.family)
            break
    return sorted(found.values(), key=lambda e: _ORDER[e.key])
