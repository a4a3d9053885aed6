"""`symattn plot`: a heatmap of the attention weights (or scores, masked scores, dP, dS) as PNG, SVG or PDF."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import SymattnError
from .args import DEFAULT_EXAMPLE, digits_arg as _digits
from .output import write_output

STEP_CHOICES = ("weights", "scores", "scaled", "masked", "dP", "dS", "dB", "dscores", "energies", "dE", "dA",
                "window", "pe", "embedded", "Q_rot", "K_rot", "alibi", "biased")  # variants (issue 13)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plot", help="a heatmap of the weights (or scores, masked scores, dP, dS) as PNG, SVG or PDF",
                       description="Draw a step as a heatmap: query tokens down, key tokens across, each cell its "
                                   "certified decimal, masked cells grey and hatched, a colour bar, the title and "
                                   "the conventions in a caption. A multi-head example gets a panel per head. "
                                   "Needs matplotlib (pip install 'symattn[plot]').")
    p.add_argument("file", nargs="?", default=DEFAULT_EXAMPLE,
                   help=f"example file (TOML) or built-in example name (default: {DEFAULT_EXAMPLE})")
    p.add_argument("-o", "--output", required=True,
                   help="the picture to write (atomically); its suffix picks the format: .png, .svg or .pdf")
    p.add_argument("--step", default="weights", choices=STEP_CHOICES, metavar="STEP",
                   help=f"what to draw: {', '.join(STEP_CHOICES)} (default weights); dP, dS, dB and dscores "
                        "come from the backward pass; energies (additive score), dE and dA (linear attention) for the "
                        "score variants; pe, embedded, Q_rot and K_rot are tokens × dimensions")
    p.add_argument("--head", type=_digits, help="one head of a multi-head example (1-based; default: every head)")
    p.add_argument("--query", help="one query row only: a token name or a 1-based index (default: every query)")
    p.add_argument("--digits", type=_digits, default=3,
                   help="significant digits printed in each cell, each certified (default 3, at most 8)")
    p.add_argument("--loss", choices=("sum", "mse", "upstream"),
                   help="for gradient steps: the loss (as in symattn grad; default sum)")
    p.add_argument("--target", help="for gradient steps with --loss mse: TOML file with the target T")
    p.add_argument("--upstream", help="for gradient steps: TOML file with the upstream gradient dO")


def run(args: argparse.Namespace) -> int:
    from ..pipeline.forward import derive
    from ..read.spec import load, load_matrix
    from ..views.heatmap import GRADIENT_STEPS
    from ..views.plot import FORMATS, figure_bytes, heatmap

    fmt = Path(args.output).suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise SymattnError(f"{args.output}: the picture's name must end in .png, .svg or .pdf")
    if not 1 <= args.digits <= 8:
        raise SymattnError(f"--digits: a heatmap cell shows 1 to 8 significant digits, got {args.digits}")
    if args.step not in GRADIENT_STEPS and (args.loss or args.target or args.upstream):
        raise SymattnError("--loss, --target and --upstream are for gradient steps (--step dP, dS, dB, dscores)")
    spec = load(args.file)
    if args.query is None:
        spec = spec.unfocused()
    d = derive(spec, query=args.query)
    if args.step in GRADIENT_STEPS:
        from ..pipeline.backward import grad

        if args.query is not None:
            raise SymattnError("--query: gradient heatmaps show every query (the backward pass needs them all)")
        loss = args.loss or ("upstream" if args.upstream else "mse" if args.target else "sum")
        target = load_matrix(args.target, "target") if args.target else None
        upstream = load_matrix(args.upstream, "upstream gradient") if args.upstream else None
        d = grad(d, loss=loss, target=target, upstream=upstream)
    write_output(figure_bytes(heatmap(d, args.step, head=args.head, digits=args.digits), fmt), args.output)
    return 0
