"""Symbolic slices as links of an equality chain.

A page may write a projection through a slice of its input before the printed matrix:
``V = X W^V = X_{[:,:2]} = \\begin{bmatrix}…`` (the identity-like W^V keeps X's first two columns). The
slice link names no step of its own, nor does the product before it: the chain's head (here V) names
the block. This module cuts such a chain's text back to its head (``V = ``) so the block is read as V's.
"""

import re

# a name, then a slice (at least one ':' among digits, commas, spaces and signs) in brackets,
# subscripted (X_{[:,:2]}) or not (X[:, :2]), then the '=' before the block
_SLICE_LINK = re.compile(r"=\s*\\?[A-Za-z]\w{0,20}(?:_\{\s*\[[\d\s,:+-]{0,40}\]\s*\}|\[[\d\s,:+-]{0,40}\])\s*=\s*$")

# the chain's head name, then links with no comma, '$' or TeX command between it and the end
_HEAD = re.compile(r"(?<![\\\w^{}])([A-Za-z][\w^{}]{0,20})\s*=\s*(?:[^=,;$\\]{1,40}=\s*){0,4}$")


def drop_slice_link(text: str) -> str:
    """The text before a block without a final symbolic-slice link of its chain.

    >>> drop_slice_link(r" V = X W^V = X_{[:,:2]} = ")
    ' V = '
    >>> drop_slice_link(r" V = X[:, 1:3] = ")
    ' V = '
    >>> drop_slice_link(r" V = X_{[0,1]} = ")  # an index, not a slice: left as written
    ' V = X_{[0,1]} = '
    """
    m = _SLICE_LINK.search(text[-200:])
    if not m or ":" not in m.group(0):
        return text
    t = text[: len(text) - len(text[-200:]) + m.start()] + "= "
    head = _HEAD.search(t[-200:])
    return t[: len(t) - len(t[-200:]) + head.end(1)] + " = " if head else t
