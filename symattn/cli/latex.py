"""`symattn latex`: the derivation as a LaTeX document, a fragment, or Markdown."""

from __future__ import annotations

import argparse

from ..errors import SymattnError
from .args import DEFAULT_EXAMPLE, digits_arg as _digits, steps_arg as _steps
from .output import pdf as _pdf, write_output


def add_parser(sub: argparse._SubParsersAction) -> None:
    lt = sub.add_parser("latex", help="the derivation as a LaTeX document, a fragment, or Markdown",
                        description="Write the derivation as LaTeX (a standalone document, or --body-only for a "
                                    "fragment to \\input) or Markdown with $$ blocks. --pdf also runs pdflatex.")
    lt.add_argument("file", nargs="?", default=DEFAULT_EXAMPLE,
                    help=f"example file (TOML) or built-in example name (default: {DEFAULT_EXAMPLE})")
    lt.add_argument("-o", "--output", help="write to this file (atomically) instead of stdout")
    lt.add_argument("--body-only", action="store_true", help="a fragment to \\input, without preamble")
    lt.add_argument("--format", choices=("latex", "markdown"), default="latex", help="output format")
    lt.add_argument("--pdf", action="store_true", help="also compile the document with pdflatex (needs -o)")
    lt.add_argument("--digits", type=_digits, default=6, help="significant digits, each certified (default 6)")
    lt.add_argument("--query", help="one query row only: a token name or a 1-based index")
    lt.add_argument("--steps", type=_steps, help="comma-separated steps to include")
    lt.add_argument("--decode", action="store_true",
                    help="the token-by-token decoding from a growing KV cache (as derive --decode)")
    lt.add_argument("--exact", action="store_true", help="always include exact closed forms")
    lt.add_argument("--expand", action="store_true",
                    help="symbolic examples: write entries fully expanded, not in terms of earlier steps' entries")
    lt.add_argument("--max-rows", type=_digits, default=8, help="rows shown before eliding (default 8)")
    lt.add_argument("--max-cols", type=_digits, default=8, help="columns shown before eliding (default 8)")
    lt.add_argument("--heatmap", nargs="?", const="weights",
                    choices=("weights", "scores", "scaled", "masked", "energies"),
                    metavar="STEP", help="add a heatmap drawn in TikZ (of the weights, or scores, scaled, masked, "
                                         "energies): "
                                         "every query, or the --query row; --body-only needs tikz in your preamble")


def run(args: argparse.Namespace) -> int:
    from ..exact.certify import check_digits
    from ..analyses.check import check
    from ..pipeline.forward import derive
    from ..views.latex import Style, body, document, markdown
    from ..read.spec import load

    check_digits(args.digits)
    if args.max_rows < 3 or args.max_cols < 3:
        raise SymattnError("--max-rows and --max-cols must be at least 3")
    if args.pdf and (not args.output or args.format != "latex" or args.body_only):
        raise SymattnError("--pdf needs -o FILE.tex and a whole LaTeX document (not --body-only or markdown)")
    if args.heatmap and args.format != "latex":
        raise SymattnError("--heatmap is drawn in TikZ, so it needs LaTeX output (not --format markdown)")
    spec = load(args.file)
    if args.decode and (args.query is not None or args.heatmap):
        raise SymattnError("--decode derives every token in turn; leave out --query and --heatmap")
    if args.decode:
        from ..pipeline.decode import decode

        d = decode(spec)
    else:
        d = derive(spec, query=args.query)
    picture = None
    if args.heatmap:
        from ..views.heatmap import heatmap
        from ..views.heatmap_tex import section

        whole = d if args.query is not None or spec.convention.query is None else derive(spec.unfocused())
        picture = section(heatmap(whole, args.heatmap))
    report = check(spec, diagnose=False) if spec.claims and not args.decode else None  # the claims table (no diagnosis in it)
    style = Style(digits=args.digits, max_rows=args.max_rows, max_cols=args.max_cols,
                  exact=True if args.exact else None, expand=args.expand)
    if args.format == "markdown":
        text = markdown(d, style, args.steps)
    elif args.body_only:
        text = body(d, style, args.steps, report) + (picture or "")
    else:
        text = document(d, style, args.steps, report, heatmap=picture)
    write_output(text, args.output)
    if args.pdf:
        return _pdf(args.output)
    return 0
