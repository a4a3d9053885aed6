"""`symattn derive`: attention step by step for a worked example."""

from __future__ import annotations

import argparse

from .args import DEFAULT_EXAMPLE, digits_arg as _digits, steps_arg as _steps
from .messages import terminal_text
from .output import write_output


def add_parser(sub: argparse._SubParsersAction) -> None:
    d = sub.add_parser("derive", help="derive attention step by step for a worked example",
                       description="Derive attention step by step: formula, one entry written out, exact "
                                   "value, certified decimals.")
    d.add_argument("file", nargs="?", default=DEFAULT_EXAMPLE,
                   help=f"example file (TOML) or built-in example name (default: {DEFAULT_EXAMPLE})")
    d.add_argument("--digits", type=_digits, default=6, help="significant digits, each certified (default 6)")
    d.add_argument("--query", help="derive one query row only: a token name or a 1-based index")
    d.add_argument("--steps", type=_steps, help="comma-separated steps to show, e.g. output,weights")
    d.add_argument("--json", action="store_true", help="print JSON instead of text")
    d.add_argument("--exact", action="store_true", help="always include exact closed forms")
    d.add_argument("--expand", action="store_true",
                   help="symbolic examples: write entries fully expanded, not in terms of earlier steps' entries")
    d.add_argument("--decode", action="store_true",
                   help="decode token by token from a growing KV cache; each decoded row is proved equal "
                        "to the row of the causal full pass")
    d.add_argument("-o", "--output", help="write to this file (atomically) instead of stdout")


def run(args: argparse.Namespace) -> int:
    from ..exact.certify import check_digits
    from ..pipeline.forward import derive
    from ..read.spec import load
    from ..views.data import dumps, to_data
    from ..views.text import render

    check_digits(args.digits)
    spec = load(args.file)
    if args.decode:
        from ..pipeline.decode import decode

        if args.query is not None:
            from ..errors import SymattnError

            raise SymattnError("--decode derives every token in turn; leave out --query")
        d = decode(spec)
    else:
        d = derive(spec, query=args.query)
    exact = True if args.exact else None
    if args.json:
        data = to_data(d, digits=args.digits, steps=args.steps, exact=exact)
        if args.decode:
            data["decode_checks"] = [{"token": t, "equals_causal_full_pass_row": ok, "exact": True}
                                     for t, ok in d.checks]  # type: ignore[attr-defined]
        text = dumps(data)
    else:
        text = terminal_text(render(d, digits=args.digits, steps=args.steps, exact=exact, expand=args.expand))
        if args.decode:
            text = text.rstrip("\n") + "\n\n" + "\n".join(
                f"decoded token {t}: {'equals' if ok else 'DIFFERS FROM'} row {n + 1} of the causal full pass "
                "(exact comparison)" for n, (t, ok) in enumerate(d.checks)) + "\n"  # type: ignore[attr-defined]
    write_output(text, args.output)
    return 0
