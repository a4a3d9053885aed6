"""`symattn grad`: the backward pass, derived step by step (and verified)."""

from __future__ import annotations

import argparse

from .args import DEFAULT_EXAMPLE, digits_arg as _digits, steps_arg as _steps
from .messages import terminal_text
from .output import write_output


def add_parser(sub: argparse._SubParsersAction) -> None:
    g = sub.add_parser("grad", help="the backward pass, derived step by step (and verified)",
                       description="Derive dO, dV, dP, D, dS, dQ, dK, dτ, and the gradients of the projections and "
                                   "inputs, for a scalar loss. --verify checks the closed forms against SymPy "
                                   "differentiation (small sizes) and central differences.")
    g.add_argument("file", nargs="?", default=DEFAULT_EXAMPLE,
                   help=f"example file (TOML) or built-in example name (default: {DEFAULT_EXAMPLE})")
    g.add_argument("--loss", choices=("sum", "mse", "upstream"), help="sum of outputs (default), ½‖O − T‖² "
                   "with --target, or a given upstream gradient with --upstream")
    g.add_argument("--target", help="TOML file with the target matrix T (one key, e.g. T = [[...]])")
    g.add_argument("--upstream", help="TOML file with the upstream gradient dO (one key, e.g. dO = [[...]])")
    g.add_argument("--wrt", type=_steps, help="gradients to show, e.g. Q,K,V,Wq (default: all)")
    g.add_argument("--digits", type=_digits, default=6, help="significant digits, each certified (default 6)")
    g.add_argument("--steps", type=_steps, help="comma-separated steps to show, e.g. dS,dQ")
    g.add_argument("--json", action="store_true", help="print JSON (the same shape as derive --json)")
    g.add_argument("--latex", action="store_true", help="print a standalone LaTeX document of the gradient steps")
    g.add_argument("--exact", action="store_true", help="always include exact closed forms")
    g.add_argument("--expand", action="store_true",
                   help="symbolic examples: write entries fully expanded, not in terms of earlier steps' entries")
    g.add_argument("--all-rows", action="store_true",
                   help="the loss of every output row, even when the example has a focus query")
    g.add_argument("--verify", nargs="?", const="auto", choices=("auto", "exact", "numeric"),
                   help="check the closed forms: exact (SymPy differentiation, small sizes), numeric (central "
                        "differences at high precision), or auto (both where possible)")
    g.add_argument("-o", "--output", help="write to this file (atomically) instead of stdout")


def run(args: argparse.Namespace) -> int:
    from ..exact.certify import check_digits
    from ..pipeline.forward import derive
    from ..pipeline.backward import grad
    from ..read.spec import load, load_matrix
    from ..analyses.verify import verify
    from ..views.data import dumps, to_data
    from ..views.proof import verification_text
    from ..views.text import render

    check_digits(args.digits)
    loss = args.loss or ("upstream" if args.upstream else "mse" if args.target else "sum")
    target = load_matrix(args.target, "target") if args.target else None
    upstream = load_matrix(args.upstream, "upstream gradient") if args.upstream else None
    spec = load(args.file)
    g = grad(derive(spec.unfocused() if args.all_rows else spec), loss=loss, target=target, upstream=upstream,
             wrt=args.wrt)
    checks = verify(g, wrt=[w for w in (args.wrt or []) if w in ("Q", "K", "V", "X", "X_kv", "Wq", "Wk", "Wv",
                                                                   "Wo", "bq", "bk", "bv", "bo", "scores")] or None,
                    method=args.verify) if args.verify else []
    exact = True if args.exact else None
    if args.latex:
        from ..views.latex import Style, document

        text = document(g, Style(digits=args.digits, exact=exact, expand=args.expand), args.steps)
    elif args.json:
        data = to_data(g, digits=args.digits, steps=args.steps, exact=exact)
        if args.verify:
            data["verification"] = to_data(checks)
        text = dumps(data)
    if not args.latex and not args.json:
        text = terminal_text(render(g, digits=args.digits, steps=args.steps, exact=exact, expand=args.expand))
        if args.verify:
            text += "\n" + verification_text(checks)
    write_output(text, args.output)
    return 0 if all(c.ok for c in checks) else 1
