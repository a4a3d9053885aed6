"""KV-cache decoding: token by token from a growing cache, each decoded row checked exactly
against the row of the causal full pass (:func:`symattn.pipeline.structure.full_pass_spec`).

>>> import symattn as sa
>>> dec = sa.decode(sa.load("kv_cache_decode"))
>>> dec.proved, [name for name, _ in dec.checks]
(True, ['a', 'b', 'c'])
>>> dec["t2.K"].exact   # the key cache after token b: the keys of a and b
Matrix([
[1, 1],
[0, 1]])
"""

from __future__ import annotations

import dataclasses


from ..errors import SymattnError
from ..exact import nodes as V
from ..exact.zero import is_zero
from ..limits import MAX_DECODE_KEYS, MAX_DECODE_TOKENS
from ..read.spec import Spec
from .forward import derive
from .steps import Derivation, Step
from .structure import full_pass_spec

__all__ = ["decode", "Decoding"]


class Decoding(Derivation):
    """A token-by-token decoding: for each new token its own steps (prefixed ``t3.``), the
    cache as it grows, and ``checks``: for each token, whether its decoded output equals the
    row of the causal full pass (exact, computed)."""

    def __init__(self, spec: Spec, steps: list[Step], default: list[str], echo: dict, full: Derivation,
                 checks: list[tuple[str, bool]]) -> None:
        super().__init__(spec, steps, default, None, echo)
        self.full = full
        self.checks = checks

    @property
    def title(self) -> str:
        return f"{self.spec.title}: decoding token by token from a KV cache"

    @property
    def proved(self) -> bool:
        """Every decoded row equals the full pass's row, exactly."""
        return all(ok for _, ok in self.checks)


def _sub_spec(full: Spec, t: int) -> Spec:
    """Decoding step t (0-based query row of the full pass): one query, keys 0 … t + off."""
    conv = full.convention
    off = full.n_keys - full.n_queries if conv.mask == "causal_bottom_right" else 0
    n = t + off + 1
    inputs = {"Q": [full.inputs["Q"][t]], "K": full.inputs["K"][:n], "V": full.inputs["V"][:n]}
    for k in ("Wo", "bo"):
        if k in full.inputs:
            inputs[k] = full.inputs[k]
    keys = full.key_labels()[:n]
    # one query against the keys so far: the causal mask keeps them all; a window still applies
    new_conv = dataclasses.replace(conv, mask="causal_bottom_right" if conv.window is not None else "none",
                                   query=None)
    return dataclasses.replace(full, inputs=inputs, convention=new_conv, tokens=[full.query_labels()[t]],
                               key_tokens=keys, n_queries=1, n_keys=n, raw={}, input_ulps={}, score_bias=None)


def decode(spec: Spec) -> Decoding:
    """Decode the example token by token from a growing KV cache.

    For each new token t: its query, the cache of keys and values of tokens 1 … t (the previous
    cache plus the new token's key and value), its scores, weights and output. Each decoded
    output is compared exactly with row t of the causal full pass (a computation that can fail;
    the result is in ``checks``).

    >>> import symattn as sa
    >>> dec = sa.decode(sa.load("kv_cache_decode"))
    >>> dec.proved, [name for name, _ in dec.checks]
    (True, ['a', 'b', 'c'])
    """
    full_spec = full_pass_spec(spec)
    if full_spec.n_queries > MAX_DECODE_TOKENS or full_spec.n_keys > MAX_DECODE_KEYS:
        raise SymattnError(f"{spec.source}: decoding is limited to {MAX_DECODE_TOKENS} new tokens and "
                           f"{MAX_DECODE_KEYS} keys in the cache (each decoded row is compared exactly); "
                           f"this example has {full_spec.n_queries} new tokens and {full_spec.n_keys} keys")
    full = derive(full_spec)
    out_full = full["output"].row_node
    steps: list[Step] = []
    default: list[str] = []
    checks: list[tuple[str, bool]] = []
    labels = full_spec.query_labels()
    for t in range(full_spec.n_queries):
        sub = _sub_spec(full_spec, t)
        d = derive(sub)
        prefix = f"t{t + 1}."
        for st in d.steps:
            if st.name in ("K", "V"):
                what = "key" if st.name == "K" else "value"
                st.title = f"{what} cache after token {labels[t]} ({sub.n_keys} token{'s' if sub.n_keys > 1 else ''})"
                keys = sub.key_labels()
                prev = f"the {what} cache of step {t}" if t else f"the given {what} cache"
                st.notes.append([prev + f" ({', '.join(keys[:-1])})"
                                 + f" with the new token {labels[t]}'s {what} appended as the last row"
                                 if len(keys) > 1 else f"the first token's {what}: the cache starts here"])
                if f"W{st.name.lower()}" in spec.inputs:
                    st.notes.append([f"the new row is x·W_{st.name.lower()} of token {labels[t]}'s input x, "
                                     "computed once, when the token arrives"])
            elif st.name == "Q":
                st.title = f"query of token {labels[t]}"
                if "Wq" in spec.inputs:
                    st.notes.append([f"x·W_q of token {labels[t]}'s input x"])
            st.name = prefix + st.name
            steps.append(st)
        default += [prefix + n for n in d.default_names]
        row = d["output"].row_node
        diff = row.exact() - V.rows(out_full, [t]).exact()
        ok = all(is_zero(x) for x in diff)
        checks.append((labels[t], ok))
        if not ok:  # pragma: no cover - a failure of the identity is a bug, reported, not hidden
            raise SymattnError(f"decoding token {labels[t]} does not reproduce row {t + 1} of the causal full pass")
    echo = full.convention
    echo = dict(echo)
    echo["decode"] = True
    return Decoding(full_spec, steps, default, echo, full, checks)
