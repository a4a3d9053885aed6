"""`symattn check`: a verdict for every printed number of a worked example."""

from __future__ import annotations

import argparse

from .args import DEFAULT_EXAMPLE
from .messages import terminal_text
from .output import write_output


def add_parser(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("check", help="check a worked example's printed numbers (its [claims])",
                       description="Check every printed number: a verdict for each, the first step that went "
                                   "wrong, whether later steps follow from the page's own numbers, and the "
                                   "convention the author used. Exit status 0: all right; 1: something wrong; "
                                   "2: bad input.")
    c.add_argument("file", nargs="?", default=DEFAULT_EXAMPLE,
                   help=f"example file (TOML) with [claims], a built-in example name (default: {DEFAULT_EXAMPLE}), "
                        "or a page (Markdown, HTML, LaTeX, .ipynb, text; - for stdin): imported, then checked")
    c.add_argument("--json", action="store_true", help="print JSON (same as --format json)")
    c.add_argument("--format", choices=("text", "markdown", "json"), default="text", help="output format")
    c.add_argument("--inputs-rounded", action="store_true",
                   help="the page printed its inputs rounded: judge claims against every input within its rounding")
    c.add_argument("--no-diagnosis", action="store_true", help="skip trying alternative conventions")
    c.add_argument("-o", "--output", help="write to this file (atomically) instead of stdout")
    c.add_argument("--page-format", choices=("markdown", "html", "latex", "notebook", "text"),
                   help="for a page: its format (default: from the file name, else from its text)")
    c.add_argument("--example", type=int, metavar="N", help="for a page with several worked examples: check the N-th")


def run(args: argparse.Namespace) -> int:
    from ..analyses.check import check
    from ..read.spec import load
    from ..views.report import markdown, text as text_view

    from .import_ import check_page, is_page

    if is_page(args.file):
        return check_page(args)
    spec = load(args.file)
    report = check(spec, inputs_rounded=True if args.inputs_rounded else None, diagnose=not args.no_diagnosis)
    fmt = "json" if args.json else args.format
    if fmt == "json":
        from ..views.data import dumps, to_data  # json: imported only when asked for

        text = dumps(to_data(report))
    elif fmt == "markdown":
        text = markdown(report)
    else:
        text = terminal_text(text_view(report))
    write_output(text, args.output)
    return 0 if report.all_right else 1
