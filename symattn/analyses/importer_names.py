"""The names people give the matrices of a worked example, and what pages say about
conventions: recognising ``W_q``, ``W^Q``, ``w_query``, "Query Weight Matrix", queries,
"unnormalized attention scores", "softmax", "context vector", … as symattn's step names.

>>> step_of_ident("W^Q"), step_of_ident("w_query"), step_of_ident("attn_weights"), step_of_ident("K.T")
('Wq', 'Wq', 'weights', 'K')
>>> step_of_ident("attn_scores_softmax"), step_of_ident("scaled_scores_softmax"), step_of_ident("x_softmax")
('weights', 'weights', None)
>>> step_of_text("Unnormalized Attention Scores:"), step_of_text("Query Weight Matrix (Wq):")
('scores', 'Wq')
>>> step_of_text('Weighted Query for "love": (Embedding of "love" transposed) * Wq')
'Q'
>>> step_of_text("Now, we apply the softmax function to convert the unnormalized scores into probabilities:")
'weights'
"""

from __future__ import annotations

import functools
import re

__all__ = ["STEP_NAMES", "KEYS_AND_VALUES", "grad_of", "step_of_ident", "step_of_text", "normalise_ident", "is_transposed", "quoted",
           "product_factors",
           "INPUT_NAMES", "SCORE_INPUT_NAMES", "clean_label"]

#: symattn's names for what a page prints, in pipeline order
STEP_NAMES = ("X", "Wq", "Wk", "Wv", "Wo", "bq", "bk", "bv", "Q", "K", "V", "scores", "scaled", "masked",
              "weights", "weighted", "output")
#: not a step: a matrix that is both the keys and the values (a decoder attending to encoder states)
KEYS_AND_VALUES = "KV"
#: names that are inputs of an example that starts from X
INPUT_NAMES = ("X", "Wq", "Wk", "Wv", "Wo", "bq", "bk", "bv", "Wa", "Ua", "va")
#: the inputs of a score variant (Luong's general W_a; Bahdanau's W_a, U_a, v_a)
SCORE_INPUT_NAMES = ("Wa", "Ua", "va")

_IDENTS = {
    "X": ("x", "inputs", "input", "embeddings", "embedding", "emb", "embs", "e", "wordembeddings", "encodings",
          "encodingsmatrix", "encodingmatrix", "tokenencodings", "wordencodings", "inputencodings",
          "tokenembeddings", "inputembeddings", "inputmatrix", "inputvectors", "inputsequence", "wordvectors",
          "tokens_embeddings", "xembed", "inputemb", "embedded", "h", "hidden"),
    "Wq": ("wq", "wquery", "queryweights", "queryweight", "weightsquery", "weightquery", "wqs", "qweights",
           "qweight", "queryw", "wqmatrix", "queryproj", "qproj"),
    "Wk": ("wk", "wkey", "keyweights", "keyweight", "weightskey", "weightkey", "kweights", "kweight", "keyw",
           "keyproj", "kproj"),
    "Wv": ("wv", "wvalue", "valueweights", "valueweight", "weightsvalue", "weightvalue", "vweights", "vweight",
           "valuew", "valueproj", "vproj"),
    "Wo": ("wo", "woutput", "wout", "outputweights", "outproj", "oproj"),
    "Wa": ("wa", "wattn", "walign"), "Ua": ("ua", "uattn", "ualign"), "va": ("va", "vattn", "valign"),
    "bq": ("bq", "bquery"), "bk": ("bk", "bkey"), "bv": ("bv", "bvalue"),
    "Q": ("q", "queries", "query", "querys", "qmatrix", "querymatrix", "queryvectors", "queryvector", "qs",
          "dechiddenstate", "decoderhiddenstate", "decoderstate", "dechidden", "decoderhidden", "decstate"),
    "K": ("k", "keys", "key", "kmatrix", "keymatrix", "keyvectors", "keyvector", "ks"),
    "V": ("v", "values", "value", "vmatrix", "valuematrix", "valuevectors", "valuevector", "vs"),
    "KV": ("annotations", "enchiddenstates", "encoderhiddenstates", "encoderstates", "encoderoutputs",
           "encoutputs", "encoutput", "encoderoutput", "annotationsmatrix"),
    "scores": ("scores", "score", "attnscores", "attentionscores", "attentionscore", "rawscores", "qkt", "qk",
               "attentionweightsraw", "weightsraw", "attnscore", "attnlogit", "rawweights", "rawattention", "attnraw", "scoresraw", "sims",
               "attentionscoresraw",
               "dotproducts", "dotproduct", "logits", "omega", "similarity", "similarities", "s", "energies",
               "energy", "compat", "attnlogits", "qkscores", "unnormalized", "unnormalizedscores"),
    "scaled": ("scaledscores", "scaledscore", "scaled", "attnscoresscaled", "scaledattentionscores",
               "scaledattention", "scaledlogits", "scoresscaled", "scaleddotproduct", "scaledattnscores", "stilde"),
    "masked": ("masked", "maskedscores", "attnscoresmasked", "maskedattention", "maskedlogits",
               "scoresmasked", "maskedattnscores"),
    "weights": ("weights", "attnweights", "attentionweights", "attentionweight", "softmax", "probs",
                "probabilities", "alpha", "alphas", "a", "p", "attentionprobs", "attnprobs", "attention",
                "attentionmatrix", "attn", "weightsnorm", "normalized", "softmaxscores", "attnmatrix",
                "attentiondistribution", "normalizedscores", "attentionpercents", "attnpercents", "percents"),
    "output": ("output", "outputs", "out", "context", "contextvec", "contextvecs", "contextvector", "attentionvector",
               "attentioncontextvector", "attnvector",
               "contextvectors", "z", "attentionoutput", "attnoutput", "result", "y", "o", "contextualized",
               "attended", "selfattention", "selfattentionoutput", "attnout"),
    "weighted": ("weightedvalues", "weightedv", "weightedsum_terms"),
}
_IDENT_TO_STEP = {alias: step for step, aliases in _IDENTS.items() for alias in aliases}

# (pattern, step): matched on lower-cased label text; the leftmost match wins, then the longest
_PHRASES = [
    # "Attention Scores (after softmax)", "(depois do Softmax)": what softmax made of them, the weights
    (r"(attention\s+)?scores?\s*\(?\s*(after|post|depois\s+d[oa]|ap[óo]s|nach(\s+dem)?|apr[èe]s|despu[ée]s\s+del?)"
     r"\s+(the\s+|o\s+|a\s+|la\s+|le\s+)?(soft-?max|normali[sz]ation)", "weights"),
    (r"un-?normali[sz]ed\s+(attention\s+)?(scores?|weights?)", "scores"),
    (r"raw\s+(attention\s+)?scores?", "scores"),
    (r"scaled\s+(dot[- ]product\s+)?(attention\s+)?(scores?|logits|similarit\w*)", "scaled"),
    (r"scores?\s+(after|with)\s+scaling", "scaled"),
    (r"scaled\s+(by|with)\b", "scaled"),
    (r"(after|with)\s+scaling", "scaled"),
    (r"masked\s+(attention\s+)?(scores?|logits|similarit\w*)", "masked"),
    (r"(scores?|logits)\s+(after|with)\s+(the\s+)?(causal\s+)?mask(ing)?", "masked"),
    (r"normali[sz]ed\s+(attention\s+)?scores?", "weights"),
    (r"normali[sz]ed\s+probabilit\w*", "weights"),
    (r"attention\s+(weights?|probabilit\w*|distributions?|matrix)", "weights"),
    (r"self-?\s*attention\s+weights?", "weights"),
    (r"soft-?max", "weights"),
    (r"probabilit\w*", "weights"),
    (r"weighted\s+(query|queries)(\s+vectors?)?", "Q"),
    (r"weighted\s+keys?(\s+vectors?)?", "K"),
    (r"weighted\s+values?\s+vectors?", "V"),
    (r"weighted\s+values?(\s+matrix)?", "weighted"),
    (r"weighted\s+sum", "output"),
    (r"(query|queries)\s+weights?(\s+matri(x|ces))?", "Wq"),
    (r"keys?\s+weights?(\s+matri(x|ces))?", "Wk"),
    (r"values?\s+weights?(\s+matri(x|ces))?", "Wv"),
    (r"weights?\s+(for|of)\s+(the\s+)?(query|token|word|position)\s*(#?\d|[\"'“‘])", "weights"),  # one query's row
    (r"weights?\s+(matri(x|ces)\s+)?(for|of)\s+(the\s+)?(query|queries)", "Wq"),
    (r"weights?\s+(matri(x|ces)\s+)?(for|of)\s+(the\s+)?keys?", "Wk"),
    (r"weights?\s+(matri(x|ces)\s+)?(for|of)\s+(the\s+)?values?", "Wv"),
    (r"(query|key|value)\s+projection\s+(matrix|weights?)", "W?"),
    (r"(projection\s+|learn(ed|able)\s+)?weights?\s+matri(x|ces)", "W*"),
    (r"(?<![a-z])w[_^ ]?\{?(q|k|v|query|key|value)\}?(?![a-z])", "W?"),
    (r"output\s+projection", "Wo"),
    # "Encoder Output", "the encoder's hidden states": what a decoder attends to (its keys and values), not the output
    (r"encoder(?:'s)?\s+(?:hidden\s+)?(?:outputs?|states?)\b", KEYS_AND_VALUES),
    (r"context(ual)?\s+(vectors?|embeddings?|representations?|matrix)", "output"),
    (r"context[- ](aware|rich)\s+(vectors?|embeddings?|representations?)", "output"),  # new context-aware embedding
    (r"attention\s+outputs?", "output"),
    (r"self-?\s*attention\s+(scores?\s+)?outputs?", "output"),
    (r"final\s+(vectors?|representations?|outputs?|embeddings?)", "output"),
    (r"contextuali[sz]ed", "output"),
    (r"kontextvektor(?:en)?\b", "output"),  # German: the context vectors
    (r"outputs?\b", "output"),
    (r"(attention\s+)?scores?\b", "scores"),
    (r"weights?\b", "weights"),
    # French, Spanish, Portuguese, Italian: poids (d'attention), pesos (de atenção), pesi; sortie, saída, salida
    (r"(?:poids|pesos|pesi)\b", "weights"),
    (r"(?:sortie|sa[íi]da|salida)s?\b", "output"),
    (r"dot[- ]products?", "scores"),
    (r"(?<!scaled )qk\s*(?:\^\s*\{?\s*(?:t|\\top)\s*\}?|ᵀ)\s+matri(?:x|ces)", "scores"),  # "Final QK^T Matrix"
    (r"similarit(y|ies)(\s+scores?)?", "scores"),
    (r"logits?\b", "scores"),
    (r"compatibilit\w*", "scores"),
    # Chinese: 注意力权重 (attention weights), 缩放后的分数 (scaled scores), 原始分数 (raw scores)
    (r"注意力?(权重|權重)", "weights"),
    (r"(缩放|縮放)(后|後)的?(分数|分數|得分)", "scaled"),
    (r"(掩码|掩碼|遮罩|屏蔽)(后|後)的?(分数|分數|得分)", "masked"),  # 掩码后分数: the scores after the mask
    (r"(原始|注意力?)?(分数|分數|得分)", "scores"),
    # Hindi: ध्यान वजन (attention weights), ध्यान स्कोर (attention scores), संदर्भ वेक्टर (context vector),
    # एम्बेडिंग (embeddings)
    (r"ध्यान\s+(वजन|भार)", "weights"),
    (r"(ध्यान\s+)?स्कोर", "scores"),
    (r"संदर्भ\s+(वेक्टर|सदिश)", "output"),
    (r"एम्बेडिंग", "X"),
    (r"\bq\s+(vectors?|matrix)\b", "Q"),
    (r"\bk\s+(vectors?|matrix)\b", "K"),
    (r"\bv\s+(vectors?|matrix)\b", "V"),
    (r"(query|queries|querys)(\s+(vectors?|matrix))?\b", "Q"),
    (r"keys?(\s+(vectors?|matrix))?\b", "K"),
    (r"values?(\s+(vectors?|matrix))?\b", "V"),
    (r"(word\s+|token\s+|input\s+)?embeddings?", "X"),
    (r"inputs?(\s+(matrix|vectors?|sequence|tokens?))?\b", "X"),
    (r"word\s+vectors?", "X"),
    (r"encod(ing|ed)\b", "X"),
]
_PHRASE_RES = [(re.compile(r"(?<![a-z])" + p), s) for p, s in _PHRASES]
_IDENT_RE = re.compile(r"(?<![\w\\])((?:self\.)?[A-Za-z][A-Za-z0-9_]*(?:\^\{?[A-Za-z]+\}?|_\{[A-Za-z]+\})?)"
                       r"(\s*(?:\.T\b|\.t\(\)|\.transpose\([^)]*\)|\^\{?(?:T|\\top|\\intercal|⊤)\}?|ᵀ))?")


@functools.lru_cache(maxsize=16_384)  # (pure, and asked of the same labels many times a page)
def normalise_ident(name: str) -> str:
    """``W^{Q}`` → ``wq``; ``self.W_query`` → ``wquery``; ``\\mathbf{K}`` → ``k``."""
    s = re.sub(r"\\(mathbf|mathrm|text|boldsymbol|bm|mathit|operatorname)\s*", "", name)
    s = s.replace("self.", "")
    s = re.sub(r"\.T\b|\.t\(\)|\.transpose\([^)]*\)|\^\{?(T|\\top|\\intercal|⊤)\}?|ᵀ", "", s)
    return re.sub(r"[^a-z0-9]", "", s.lower())


def product_factors(formula: str) -> list[str] | None:
    r"""The symbols a product of two or three matrices is written with, in order, or None when
    the formula is not such a product.

    >>> product_factors(r"QK^\top"), product_factors(r" A \cdot V "), product_factors(r"X W^{Q}")
    (['Q', 'K^\\top'], ['A', 'V'], ['X', 'W^{Q}'])
    >>> product_factors("Q' K'^T")
    ["Q'", "K'^T"]
    >>> product_factors(r"\text{softmax}(S)"), product_factors("Q"), product_factors(r"\frac{S}{2}")
    (None, None, None)
    """
    s = re.sub(r"\\(?:mathbf|boldsymbol|bm|mathrm)\s*\{([A-Za-z])\}", r"\1", formula)
    s = re.sub(r"\\(?:cdot|times|,|;|!|quad)|[·×@*]", " ", s).strip()
    m = re.fullmatch(r"(?:\s*[A-Za-z]'*(?:_\{?\w{1,8}\}?|\^\{?(?:\\top|\\intercal|\w{1,8})\}?|ᵀ)*'*){2,3}\s*", s)
    if not m:
        return None  # (a prime marks a projected matrix: Q'K'^T is Q' times K' transposed)
    return re.findall(r"[A-Za-z]'*(?:_\{?\w{1,8}\}?|\^\{?(?:\\top|\\intercal|\w{1,8})\}?|ᵀ)*'*", s)


def product_step(formula: str) -> str | None:
    r"""The step a product of two symbols makes when it is written alone before '=' (the left side names
    the product, not its last factor): Q Kᵀ the scores, weights times V the output, X times a projection
    weight that projection; None for any other product or formula.

    >>> product_step(r"Q K^T"), product_step(r"A_{\text{Row 3}} \times V"), product_step(r"X W_Q")
    ('scores', 'output', 'Q')
    >>> product_step(r"\text{Attention Weights} \times V"), product_step(r"\text{Scores} \times V")
    ('output', None)
    >>> product_step(r"A B"), product_step(r"Q K"), product_step("Q")
    (None, None, None)
    """
    parts = re.split(r"\\times|\\cdot|[×·*@]", formula)
    if len(parts) == 2 and step_of_ident(parts[1].strip()) == "V" and step_of_text(parts[0]) == "weights":
        return "output"  # \text{Attention Weights} \times V: the weights, in words, times V
    s = re.sub(r"\\(?:text|mathrm|textrm)\s*\{([^{}]*)\}", lambda m: re.sub(r"\s+", "", m.group(1)), formula)
    factors = product_factors(s)
    if not factors or len(factors) != 2:
        return None
    a, b = (step_of_ident(f) or step_of_ident(re.sub(r"_\{?\w+\}?$", "", f)) for f in factors)
    if a == "Q" and b == "K" and is_transposed(factors[1]):
        return "scores"
    if a == "weights" and b == "V":
        return "output"
    if a == "X" and b in ("Wq", "Wk", "Wv"):
        return {"Wq": "Q", "Wk": "K", "Wv": "V"}[b]
    return None


def is_transposed(name: str) -> bool:
    """Whether a name is written transposed: ``K.T``, ``K^T``, ``K^\\top``, ``Kᵀ``."""
    return re.search(r"\.T\b|\.t\(\)|\.transpose\(|\^\{?(T|\\top|\\intercal|⊤)\}?(?![a-z])|ᵀ", name) is not None


#: a subscript that says a matrix of scores is scaled: ``QK^T_{\text{scaled}}``, ``S_{scaled}``
_SCALED_TAG_RE = re.compile(r"_\{?\s*(?:\\(?:text|mathrm|textrm|mathit)\s*\{)?\s*scaled\s*\}?\s*\}?\s*$", re.I)


def _bias_step(name: str) -> str | None | bool:
    """A name with a part ``bias`` (``query_bias``, ``bias_k``, ``W_v_bias``) names the bias added to a
    projection, never the projection's result: ``bq``/``bk``/``bv`` for the projection its other parts name,
    None for another bias (``attn_bias``: a mask); False when the name has no such part.

    >>> _bias_step("query_bias"), _bias_step("bias_k"), _bias_step("W_v_bias"), _bias_step("attn_bias")
    ('bq', 'bk', 'bv', None)
    >>> _bias_step("query_matrix"), _bias_step("biased_scores")
    (False, False)
    """
    last = name.split(".")[-1]
    parts = [p for p in re.split(r"_+|(?<=[a-z])(?=[A-Z])", last) if p]
    if not any(p.lower() in ("bias", "biases") for p in parts):
        return False
    rest = "_".join(p for p in parts if p.lower() not in ("bias", "biases"))
    st = step_of_ident(rest) if rest else None
    return {"Q": "bq", "Wq": "bq", "K": "bk", "Wk": "bk", "V": "bv", "Wv": "bv"}.get(st or "")


@functools.lru_cache(maxsize=16_384)  # (pure, and asked of the same labels many times a page)
def step_of_ident(name: str) -> str | None:
    """The step an identifier names (a code variable or a math symbol), or None.
    A short trailing part after an underscore is a variant's tag: ``weights_c``, ``out_2``."""
    ident = normalise_ident(name)
    if not ident or re.search(r"grad", ident) or re.match(r"d[A-Z]|d_[A-Za-z]", name.split(".")[-1]):
        return None  # dQ, dW_q, grads_auto[…]: gradients, not forward steps
    bias = _bias_step(name)
    if bias is not False:
        return bias
    tagged = _SCALED_TAG_RE.search(name)
    if tagged and tagged.start() > 0 and step_of_ident(name[:tagged.start()]) == "scores":
        return "scaled"  # QK^T_{\text{scaled}}, S_{scaled}: the scores with a subscript saying they are scaled
    parts = re.sub(r"\.T\b|\^.*$", "", name.split(".")[-1] if "." in name and not name.endswith(".T") else name)
    parts_l = [p for p in parts.split("_") if p]
    if len(parts_l) > 1 and parts_l[-1].lower() in ("softmax", "softmaxed", "softmaxes") and \
            step_of_ident("_".join(parts_l[:-1])) in ("scores", "scaled", "masked"):
        return "weights"  # attn_scores_softmax: the softmax of the scores
    while len(parts_l) > 1 and len(parts_l[-1]) <= 6 and not _IDENT_TO_STEP.get(re.sub(r"\d+$", "", parts_l[-1].lower())) \
            and re.sub(r"\d+$", "", parts_l[-1].lower()) not in ("score", "weight", "prob", "logit", "sim"):
        parts_l = parts_l[:-1]
        base = normalise_ident("_".join(parts_l))
        if base in _IDENT_TO_STEP and len(base) > 1:
            if base == "w":  # W_q, W_k: the tag is the point
                break
            full = _IDENT_TO_STEP.get(ident)
            return full or _IDENT_TO_STEP[base]
    step = _IDENT_TO_STEP.get(ident)
    if step:
        return step
    if ident.endswith("s") and _IDENT_TO_STEP.get(ident[:-1]) and len(ident) > 3:
        return _IDENT_TO_STEP[ident[:-1]]  # contexts, outputs, queries' plural forms
    # attn_scores_2, attn_weights_2, context_vec_2, W_query1, Q1: a name with an index
    base = re.sub(r"\d+$", "", ident)
    if base != ident and base in _IDENT_TO_STEP and len(base) > 1:
        return _IDENT_TO_STEP[base]
    for suffix in ("tmp", "naive", "manual", "numpy", "np", "torch", "hand", "mat", "matrix", "simple"):
        if ident.endswith(suffix) and ident[: -len(suffix)] in _IDENT_TO_STEP and len(ident) > len(suffix) + 1:
            return _IDENT_TO_STEP[ident[: -len(suffix)]]
    # temp_q, my_keys, sample_V, toy_inputs: a prefix that marks a toy example
    m = re.match(r"(?:temp|tmp|my|sample|example|ex|toy|dummy|test|demo|small|tiny)_+(\w+)$", name.split(".")[-1], re.I)
    if m:
        return step_of_ident(m.group(1))
    return None


def clean_label(text: str) -> str:
    """Label text without Markdown/LaTeX decoration, lower-cased."""
    s = re.sub(r"\\(text|mathrm|mathbf|operatorname|textbf|emph)\s*\{([^{}]*)\}", r"\2", text)
    s = re.sub(r"[*_`#>]+", " ", s)
    return re.sub(r"\s+", " ", s).strip().lower()


#: phrases too common in running text to name a matrix unless the label is short
_GENERIC = {r"outputs?\b", r"(query|queries|querys)(\s+(vectors?|matrix))?\b", r"keys?(\s+(vectors?|matrix))?\b",
            r"values?(\s+(vectors?|matrix))?\b", r"(word\s+|token\s+|input\s+)?embeddings?",
            r"inputs?(\s+(matrix|vectors?|sequence|tokens?))?\b", r"encod(ing|ed)\b", r"(attention\s+)?scores?\b",
            r"similarit(y|ies)(\s+scores?)?", r"probabilit\w*", r"weights?\b", r"(原始|注意力?)?(分数|分數|得分)",
            r"(ध्यान\s+)?स्कोर", r"एम्बेडिंग"}
_WEAK = {id(rx) for (p, _), (rx, _) in zip(_PHRASES, _PHRASE_RES) if p in _GENERIC}
SHORT_LABEL = 60


_QKV_TOGETHER = re.compile(r"\bquer(?:y|ies)\b.{0,40}?\bkeys?\b.{0,40}?\bvalues?\b", re.I)


def names_qkv_together(text: str) -> bool:
    """Whether a heading names the queries, keys and values together ("Queries, keys and values for
    all words"): it names no one matrix under it.

    >>> names_qkv_together("Queries, keys and values for all words"), names_qkv_together("The queries:")
    (True, False)
    """
    return bool(_QKV_TOGETHER.search(text))


@functools.lru_cache(maxsize=16_384)  # (pure, and asked of the same labels many times a page)
def step_of_text(text: str) -> str | None:
    """The step a label names (the leftmost recognised phrase, then the longest), or None.
    In a long sentence, generic words ("values", "output", "input") do not count.
    A ``W?`` result (a projection matrix of unknown kind) is resolved by its word."""
    s = clean_label(text)
    if re.search(r"\bgrad(ient)?s?\b|\bdl\s*/\s*d|∂\s*l|\bd\s*l\s*/", s):
        return None  # a gradient, not a forward step
    # a long sentence names what follows when it ends with a colon ("…, one token per column:")
    long = len(s) > SHORT_LABEL and not s.rstrip().endswith(":")
    best: tuple[int, int, str] | None = None
    for rx, step in _PHRASE_RES:
        if long and id(rx) in _WEAK:
            continue
        m = rx.search(s)
        if m:
            key = (m.start(), -(m.end() - m.start()), step)
            if best is None or key < best:
                best = key
    if best is None:
        return None
    step = best[2]
    if step == "weights" and best[0] < len(s) - 2:
        # "Learnable weights: $W^Q": the symbol written last, just before "=", names it
        tail = re.split(r"[:$]", s)[-1].strip()
        if tail and tail != s.strip() and len(tail) <= 12:
            named = step_of_text(tail)
            if named in ("Wq", "Wk", "Wv", "Wo"):
                return named
    if step == "W?":
        seg = re.sub(r"^w[_^ ]?\{?", "", s[best[0]:])
        step = "Wq" if seg.startswith("q") else "Wk" if seg.startswith("k") else "Wv"
    elif step == "W*":
        # "Weight matrix W_q", "weight matrices for the keys": the kind is named later in the label
        m = re.search(r"(?<![a-z])w[_^ ]?\{?(q|k|v)(?![a-z])|\b(quer|key|value)", s[best[0]:])
        if not m:
            return None
        ch = (m.group(1) or m.group(2))[0]
        step = {"q": "Wq", "k": "Wk", "v": "Wv"}[ch]
    return step


def quoted(text: str) -> list[str]:
    """Words in quotes: ``Embedding for "I"`` → ``['I']``."""
    return [next(g for g in m.groups() if g is not None)
            for m in re.finditer(r'"([^"\n]{1,40})"|“([^”\n]{1,40})”|‘([^’\n]{1,40})’|(?<![A-Za-z])\'([^\'\n]{1,40})\'', text)]


#: what ``symattn grad`` calls the gradient of each forward quantity
GRAD_NAMES = {"Q": "dQ", "K": "dK", "V": "dV", "X": "dX", "Wq": "dWq", "Wk": "dWk", "Wv": "dWv", "output": "dO",
              "weights": "dP", "scores": "dS", "scaled": "dS"}


def grad_of(text: str | None) -> str | None:
    """The backward step (``symattn grad``'s name) a gradient's name or label means, or None.

    >>> [grad_of(t) for t in ("dQ", "W_query.grad", "grad_K", "dL/dV", "∂L/∂W_k", "Gradient of the keys:", "Q")]
    ['dQ', 'dWq', 'dK', 'dV', 'dWk', 'dK', None]
    """
    if not text:
        return None
    t = text.strip().strip(":= ")
    m = re.fullmatch(r"(?:self\.)?([A-Za-z_][\w.]*?)\.grad(?:\.\w+\(\))?", t) or \
        re.fullmatch(r"(?:grad|grads|gradient)_?(?:of_)?([A-Za-z_]\w*)", t, re.I) or \
        re.fullmatch(r"(?:d|∂)\s*(?:L|loss)\s*/\s*(?:d|∂)\s*([A-Za-z_][\w^{}]*)", t) or \
        re.fullmatch(r"d_?([A-Za-z][A-Za-z_]*)", t)
    if m:
        base = m.group(1).split(".")[-1]
        if base.lower() in ("loss", "l", "x_dot", "k", "model", "v_k") and len(base) > 1 and t.startswith("d"):
            return None
        st = step_of_ident(base)
        if t.startswith("d") and not re.match(r"d[A-Z]|d_|dW|dw|dL|d\s", t):
            return None  # "dot", "data", "dim": a word, not a gradient
        return GRAD_NAMES.get(st or "")
    m = re.search(r"\bgradients?\s+(?:of|for|w\.?r\.?t\.?)\s+(?:the\s+)?(.+)$", t, re.I)
    if m:
        st = step_of_text(m.group(1))
        return GRAD_NAMES.get(st or "")
    return None
