"""Layer 2, *exact*: values and their certified decimals.

``nodes`` (the value graph: each matrix an exact SymPy form, a ball enclosure and an
exact-rational test), ``certify`` (ball arithmetic → digits that are proven), ``zero``
(exact zero and tie decisions).
"""
