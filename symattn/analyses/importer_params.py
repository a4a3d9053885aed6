"""Parameters a page sets in PyTorch code: ``W_Q.weight.copy_(torch.tensor([[…]]))``, ``W_Q.bias.copy_(…)``,
``self.query.weight.data = torch.tensor(…)``, ``Q_layers[1].weight.copy_(…)``. The module whose
weight is written names the projection (a query, key, value or output projection), and an index
on a list of such modules (``Q_layers[1]``, ``heads[1].W_q``) names the head, counted from 0 in
code. nn.Linear stores its weight as (out, in): the matrix written is W in the torch layout.
"""

from __future__ import annotations

import re

from .importer_names import step_of_ident

__all__ = ["parameter_copy"]

_PART = r"[A-Za-z_]\w*(?:\s*\[\s*\d{1,2}\s*\])?"
#: MODULE.weight.copy_(torch.tensor(   MODULE.weight.data = torch.tensor(   MODULE.weight = nn.Parameter(torch.tensor(
_COPY = re.compile(
    rf"(?:^|[\s;:(])((?:self\s*\.\s*)?{_PART}(?:\s*\.\s*{_PART})*)\s*\.\s*(weight|bias)(?:\s*\.\s*data)?(?:\s*\[\s*:\s*(?:,\s*:\s*)?\])?\s*"
    r"(?:\.\s*copy_\s*\(|=\s*(?:(?:torch\.)?nn\.Parameter\s*\(|torch\.nn\.parameter\.Parameter\s*\()?)\s*"
    r"(?:(?:torch\.)?(?:tensor|Tensor|as_tensor|FloatTensor|DoubleTensor)\s*\(\s*|np\.array\s*\(\s*)?$")
#: the words a list of per-head projection modules adds to the projection's name (Q_layers, query_heads)
_LIST_WORDS = r"layers?|linears?|lins?|projs?|projections?|heads?|fcs?|list|modules?|nets?"
#: a module holding heads, whose index is the head (heads[1].W_q, attention_heads[0].query)
_HEADS_PART = re.compile(r"(?:attn_|attention_)?heads?", re.I)
_PROJ = {"Q": "Wq", "K": "Wk", "V": "Wv", "Wq": "Wq", "Wk": "Wk", "Wv": "Wv", "Wo": "Wo"}


def _projection(name: str) -> str | None:
    """The weight step a module's name gives: a query/key/value module (query, W_q, q_proj,
    Q_layers) is that projection's weight; an output projection (out_proj, W_o) is Wo."""
    for cand in (name, re.sub(rf"_?(?:{_LIST_WORDS})$", "", name, flags=re.I),
                 re.sub(r"^(?:linear|lin|proj|fc)_?", "", name, flags=re.I)):
        if cand:
            st = _PROJ.get(step_of_ident(cand) or "")
            if st:
                return st
    return None


def parameter_copy(before: str) -> tuple[str, int | None, str] | None:
    """(step, head or None, label) for a matrix written into a module's weight in PyTorch code,
    from the text before it on its line; None for anything else.

    >>> parameter_copy("    W_Q.weight.copy_(torch.tensor(")
    ('Wq', None, 'W_Q.weight')
    >>> parameter_copy("    Q_layers[1].weight.copy_(torch.tensor(")
    ('Wq', 2, 'Q_layers[1].weight')
    >>> parameter_copy("self.heads[0].value.weight.data = torch.tensor(")
    ('Wv', 1, 'self.heads[0].value.weight')
    >>> parameter_copy("out_proj.weight.copy_(torch.tensor("), parameter_copy("tok_emb.weight.copy_(torch.tensor(")
    (('Wo', None, 'out_proj.weight'), None)
    >>> parameter_copy("blocks[0].attn.q_proj.weight.copy_(") is None  # an index that is not a head's
    True
    >>> parameter_copy("W_K.bias.copy_(torch.tensor(")
    ('bk', None, 'W_K.bias')
    """
    m = _COPY.search(before)
    if not m:
        return None
    path = re.sub(r"\s+", "", m.group(1))
    parts = path.split(".")
    if parts[0] == "self":
        parts = parts[1:]
    if not parts:
        return None
    last = re.match(r"([A-Za-z_]\w*)(?:\[(\d+)\])?$", parts[-1])
    if not last:
        return None
    step = _projection(last.group(1))
    if step is None:
        return None
    bias = m.group(2) == "bias"
    if bias:  # a projection's bias: bq, bk, bv (one head's bias is not joined: not read)
        step = {"Wq": "bq", "Wk": "bk", "Wv": "bv"}.get(step)
        if step is None or "[" in path:
            return None
    head = None
    for k, p in enumerate(parts):
        idx = re.match(r"([A-Za-z_]\w*)\[(\d+)\]$", p)
        if not idx:
            continue
        if head is not None:
            return None  # two indices (a layer and a head): which is the head is not said
        if k == len(parts) - 1 or _HEADS_PART.fullmatch(idx.group(1)):
            head = int(idx.group(2)) + 1
        else:
            return None
    return step, head, path + (".bias" if bias else ".weight")
