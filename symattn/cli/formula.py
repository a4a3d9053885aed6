"""`symattn parse-formula`: recognise an attention formula written in LaTeX."""

from __future__ import annotations

import argparse

from ..errors import SymattnError
from .output import write_output


def add_parser(sub: argparse._SubParsersAction) -> None:
    pf = sub.add_parser("parse-formula", help="recognise an attention formula written in LaTeX",
                        description="Say whether a LaTeX formula is standard scaled dot-product attention, "
                                    "unscaled dot-product attention, or something else.")
    pf.add_argument("formula", help=r"the formula, e.g. '\text{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V'")
    pf.add_argument("--json", action="store_true", help='print {"kind", "scale", "expression", ...}')


def run(args: argparse.Namespace) -> int:
    from ..analyses.formula import parse_formula
    from ..errors import InputError
    from ..views.data import dumps, to_data
    from ..views.proof import formula_text

    try:
        f = parse_formula(args.formula)
    except InputError as e:
        raise SymattnError(f"formula: {e}") from None
    write_output(dumps(to_data(f)) if args.json else formula_text(f), None)
    return 0
