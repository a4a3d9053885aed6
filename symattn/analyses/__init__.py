"""Layer 4, *analyses*: what is computed about a derivation.

``check`` (printed numbers → verdicts), ``verify`` (gradients against differentiation),
``proofs`` (identities), ``softmax_forms`` (closed forms), ``formula`` (recognising a
formula written in LaTeX).
"""
