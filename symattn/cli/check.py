"""`symattn check`: a verdict for every printed number of a worked example."""

from __future__ import annotations

import argparse

from .args import DEFAULT_EXAMPLE
from .output import write_output


def add_parser(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("check", help="check a worked example's printed numbers (its [claims])",
                       description="Check every printed number: a verdict for each, the first step that went "
                                   "wrong, whether later steps follow from the page's own numbers, and the "
                                   "convention the author used. Exit status 0: all right; 1: something wrong; "
                                   "2: bad input.")
    c.add_argument("file", nargs="?", default=DEFAULT_EXAMPLE,
                   help=f"example file (TOML) with [claims], or a built-in example name (default: {DEFAULT_EXAMPLE})")
    c.add_argument("--json", action="store_true", help="print JSON (same as --format json)")
    c.add_argument("--format", choices=("text", "markdown", "json"), default="text", help="output format")
    c.add_argument("--inputs-rounded", action="store_true",
                   help="the page printed its inputs rounded: judge claims against every input within its rounding")
    c.add_argument("--no-diagnosis", action="store_true", help="skip trying alternative conventions")
    c.add_argument("-o", "--output", help="write to this file (atomically) instead of stdout")


def run(args: argparse.Namespace) -> int:
    from ..analyses.check import check
    from ..read.spec import load
    from ..views.data import dumps, to_data
    from ..views.report import markdown, text as text_view

    spec = load(args.file)
    report = check(spec, inputs_rounded=True if args.inputs_rounded else None, diagnose=not args.no_diagnosis)
    fmt = "json" if args.json else args.format
    if fmt == "json":
        text = dumps(to_data(report))
    elif fmt == "markdown":
        text = markdown(report)
    else:
        text = text_view(report)
    write_output(text, args.output)
    return 0 if report.all_right else 1
