"""`symattn softmax`: closed forms of softmax, each checked by SymPy."""

from __future__ import annotations

import argparse

from ..errors import SymattnError
from .output import write_output


def add_parser(sub: argparse._SubParsersAction) -> None:
    sm = sub.add_parser("softmax", help="softmax closed forms: softmax, log-sum-exp, Jacobian, sigmoid, limits",
                        description="Closed forms of softmax for a size n (1..8) or a symbolic n, each checked "
                                    "by SymPy.")
    sm.add_argument("n", nargs="?", default="3", help="a size from 1 to 8, or n for a symbolic size (default 3)")
    sm.add_argument("--latex", action="store_true", help="print a LaTeX document")
    sm.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    from ..analyses.softmax_forms import closed_forms
    from ..views.data import dumps, to_data
    from ..views.proof import forms_latex, forms_text

    n: int | str = args.n
    if n != "n":
        try:
            n = int(n)
        except ValueError:
            raise SymattnError(f"softmax: expected a size from 1 to 8 or n, got {args.n!r}") from None
        if not 1 <= n <= 8:
            raise SymattnError(f"softmax: the size must be from 1 to 8 (or n for a symbolic size), got {n}")
    facts = closed_forms(n)
    if args.json:
        text = dumps(to_data(facts))
    elif args.latex:
        text = forms_latex(facts, standalone=True)
    else:
        text = forms_text(facts)
    write_output(text, None)
    return 0 if all(f.checked for f in facts) else 1
