"""A printed variable whose name suggests the weights (``attn``) but whose last assignment in the code is
the weights times the values (``attn = attn_weights @ V``): it holds the output.

>>> assigned_output(["attn_weights = softmax(s)", "attn = attn_weights @ V"], "attn")
True
>>> assigned_output(["attn = np.matmul(weights, v)"], "attn"), assigned_output(["attn = torch.bmm(attn_weights, value)"], "attn")
(True, True)
>>> assigned_output(["attn = softmax(scores)"], "attn"), assigned_output(["attn = attn_weights @ K"], "attn")
(False, False)
"""

from __future__ import annotations

import re

from .importer_names import step_of_ident

_PRODUCT_RE = re.compile(r"(?:(?:np|numpy|torch|jnp)\.(?:matmul|dot|bmm)\(\s*([A-Za-z_][\w.]*)\s*,\s*([A-Za-z_][\w.]*)\s*\))|"
                         r"([A-Za-z_][\w.]*)\s*(?:@\s*|\.(?:dot|matmul)\(\s*)([A-Za-z_][\w.]*)\s*\)?")


def assigned_output(code: list[str], name: str) -> bool:
    """Whether the cell's last assignment to ``name`` is the weights times the values."""
    rhs = None
    for t in code:
        m = re.match(rf"\s*{re.escape(name)}\s*=(?!=)\s*(.{{1,200}}?)\s*;?\s*$", re.sub(r"\s+#.*$", "", t))
        if m:
            rhs = m.group(1)
    if rhs is None:
        return False
    m = _PRODUCT_RE.fullmatch(rhs.strip())
    if m is None:
        return False
    a, b = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    return step_of_ident(a.split(".")[-1]) == "weights" and step_of_ident(b.split(".")[-1]) == "V"


def relabel_assigned_outputs(items: list, lines: list) -> None:
    """Printouts named by a bare variable read as the weights (``attn``) that the code before them assigns as
    the weights times the values: the output."""
    for it in items:
        name = (it.label or "").strip()
        if it.step != "weights" or it.role != "output" or it.strength < 3 or not re.fullmatch(r"[A-Za-z_]\w{0,40}", name):
            continue
        code = [ln.text for ln in lines[:it.line] if ln.role == "code"]
        if assigned_output(code, name):
            it.step = "output"
            it.notes.append(f"{name} = the weights times V in the code before it: the output")
