"""Layer 1, *read*: what users write, read exactly and validated.

``numbers`` (exact numbers and small expressions, never ``eval``), ``latex_numbers``
(numbers and matrices written in LaTeX), ``conventions`` (layouts, scale, masks, ...)
and ``spec`` (worked-example files → a validated :class:`~symattn.read.spec.Spec`).
"""
