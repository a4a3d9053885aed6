"""`symattn compare`: a kernel's outputs against a certified reference, entry by entry."""

from __future__ import annotations

import argparse

from .output import write_bytes, write_output


def add_parser(sub: argparse._SubParsersAction) -> None:
    g = sub.add_parser(
        "compare", help="a kernel's outputs against a certified reference: ULP errors, bias, conventions",
        description="Compare a kernel's O, LSE, dQ, dK, dV with a reference written by `symattn reference` (or a "
                    "fixture): per tensor, head and row the ULP distance to the correctly rounded value, a "
                    "condition-aware ULP, the signed mean error (bias), max abs/rel errors, NaN/inf patterns and the "
                    "worst entries; differences a convention explains are named as that convention. Exit status: "
                    "0 within the bounds, 1 outside, 2 bad input.")
    g.add_argument("kernel", nargs="+", metavar="KERNEL",
                   help="the kernel's outputs: a file holding O (out/o), LSE, dQ, dK, dV by name, or single-tensor "
                        "files named after their tensor (o.npy, lse.npy, ...; any other name is O)")
    g.add_argument("--reference", "-r", required=True, metavar="REF", help="the reference (.safetensors or .npz)")
    g.add_argument("--max-ulp", type=float, help="largest ULP distance allowed (every tensor)")
    g.add_argument("--max-cond-ulp", type=float, help="largest condition-aware ULP error allowed")
    g.add_argument("--inputs", nargs="+", metavar="FILE",
                   help="the inputs (one file with q, k, v or three files): also diagnose causal alignment, scale, "
                        "GQA mapping and windows (a fixture carries its inputs)")
    g.add_argument("--uint16", choices=("bfloat16", "float16"), default="bfloat16",
                   help="how to read raw 16-bit arrays (.npy uint16)")
    g.add_argument("--json", action="store_true", help="print the report as JSON (for CI)")
    g.add_argument("--no-rows", action="store_true", help="leave the per-row arrays out of the JSON")
    g.add_argument("--plot", metavar="PNG", help="write a ULP histogram picture (matplotlib)")
    g.add_argument("-o", "--output", help="write the report to this file instead of stdout")


def run(args: argparse.Namespace) -> int:
    from ..analyses.compare import compare
    from ..errors import SymattnError
    from ..views.compare import dumps, plot_png, text
    from ..read.tensors_results import read_kernel, read_reference

    ref, scales, meta, fixture_inputs = read_reference(args.reference)
    kernel = read_kernel(args.kernel, uint16=args.uint16)
    inputs = fixture_inputs
    if args.inputs:
        from ..read.tensors import read_inputs

        inputs = read_inputs(args.inputs, uint16=args.uint16)
    for bound, name in ((args.max_ulp, "--max-ulp"), (args.max_cond_ulp, "--max-cond-ulp")):
        if bound is not None and not bound >= 0:
            raise SymattnError(f"{name}: expected a number ≥ 0, got {bound}")
    c = compare(kernel, ref, scales=scales, meta=meta, max_ulp=args.max_ulp, max_cond_ulp=args.max_cond_ulp,
                inputs=inputs, reference_source=args.reference)
    if args.plot:
        if not args.plot.lower().endswith(".png"):
            raise SymattnError(f"{args.plot}: --plot writes a PNG picture (give a .png path)")
        write_bytes(plot_png(c), args.plot)
    write_output(dumps(c, rows=not args.no_rows) if args.json else text(c), args.output)
    return 0 if c.ok else 1
