"""Layer 3, *pipeline*: attention as named steps (data only).

``steps`` (Step, Derivation), ``forward`` (Spec → the forward steps: Q, K, V, scores,
scaled, masked, weights, weighted, output), ``backward`` (the gradient steps), ``loss``
(the scalar losses), ``notation`` (the symbols of the formulas).
"""
