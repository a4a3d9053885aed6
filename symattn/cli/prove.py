"""`symattn prove`: identities of attention with their proofs."""

from __future__ import annotations

import argparse

from .output import write_output


def add_parser(sub: argparse._SubParsersAction) -> None:
    pr = sub.add_parser("prove", help="prove an identity of attention (symattn prove --list)",
                        description="Print a proof (argument and SymPy checks) of an identity.")
    pr.add_argument("name", nargs="?", help="the identity, e.g. online-softmax")
    pr.add_argument("--list", action="store_true", help="list the identities")
    pr.add_argument("--latex", action="store_true", help="print a LaTeX document")
    pr.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    from ..analyses.proofs import IDENTITIES, prove
    from ..views.data import dumps, to_data
    from ..views.proof import latex, text

    if args.list or not args.name:
        write_output("identities (symattn prove NAME):\n" + "".join(f"  {n}\n" for n in IDENTITIES), None)
        return 0 if args.list else 2
    p = prove(args.name)
    text = dumps(to_data(p)) if args.json else (latex(p, standalone=True) if args.latex else text(p))
    write_output(text, None)
    return 0 if p.holds else 1
