"""`symattn reference`: certified, correctly rounded O, LSE (and dQ, dK, dV) for float inputs."""

from __future__ import annotations

import argparse
import json
import sys
import time

from .output import write_bytes, write_output


def add_parser(sub: argparse._SubParsersAction) -> None:
    g = sub.add_parser(
        "reference", help="certified attention outputs of float tensors, correctly rounded (for kernel tests)",
        description="Compute attention on float inputs exactly and write O and LSE (and dQ, dK, dV for a given dO), "
                    "each entry rounded to nearest-even in the requested formats. Inputs: one file holding q, k, v "
                    "by name, or three files q k v (.npy, .npz, .safetensors, torch.save files read with "
                    "weights_only=True). Every convention is explicit and echoed.")
    g.add_argument("files", nargs="+", metavar="FILE", help="one file with q, k, v (and dO, bias, mask, alibi) by "
                                                              "name, or three files q k v")
    g.add_argument("-o", "--output", help="write the reference here: .safetensors or .npz (by the extension)")
    g.add_argument("--save-fixture", metavar="PATH",
                   help="write a golden fixture: the inputs as given, the reference and its conventions, in one "
                        ".safetensors or .npz file (symattn.testing.load_fixture reads it)")
    g.add_argument("--dtype", default=None,
                   help="output formats, comma-separated: float64, float32, bfloat16, float16 (default: the inputs' "
                        "format, plus float32 for 16-bit inputs)")
    g.add_argument("--layout", choices=("bhsd", "bshd"), default="bhsd",
                   help="bhsd: (batch, heads, seq, d) as PyTorch SDPA (default); bshd: (batch, seq, heads, d) as "
                        "FlashAttention. 3-D tensors drop the batch, 2-D are (seq, d)")
    g.add_argument("--scale", default="kernel",
                   help="'kernel': 1/sqrt(d) rounded to --scale-dtype, as a kernel receives it (default); 'exact': "
                        "the exact 1/sqrt(d); or a number, rounded to --scale-dtype")
    g.add_argument("--scale-dtype", choices=("float64", "float32", "bfloat16", "float16"), default=None,
                   help="the format a kernel receives the scale in (default float32; float64 for float64 inputs)")
    g.add_argument("--causal", choices=("none", "top-left", "bottom-right"), default="none",
                   help="top-left: key j ≤ i (SDPA is_causal, JAX); bottom-right: j ≤ i + s_k − s_q "
                        "(FlashAttention ≥ 2.1)")
    g.add_argument("--window", metavar="LEFT,RIGHT",
                   help="sliding window: keys with −LEFT ≤ j − (i + off) ≤ RIGHT; -1 = no limit; aligned as "
                        "--causal (bottom-right when there is no causal mask, as FlashAttention)")
    g.add_argument("--alibi", metavar="FILE|standard|S1,S2,...",
                   help="ALiBi slopes, one per head (or (batch, heads)): a file, a list, or 'standard' "
                        "(2^(−8h/H)); the bias is −slope·|i + off − j|")
    g.add_argument("--bias", metavar="FILE", help="an additive bias (…, s_q, s_k), −inf allowed")
    g.add_argument("--mask", metavar="FILE", help="a boolean mask (…, s_q, s_k), True = attend (as SDPA)")
    g.add_argument("--softcap", help="scores become c·tanh(s/c) (FlashAttention's softcap); exact ties are not "
                                     "decided through tanh")
    g.add_argument("--masked-rows", choices=("zero", "nan", "error"), default="zero",
                   help="a query row with every key masked: output 0 and LSE −inf (default, as FlashAttention and "
                        "SDPA), NaN, or an error")
    g.add_argument("--lse-base", choices=("e", "2"), default="e", help="LSE in base e (default) or 2 (FlashInfer)")
    g.add_argument("--no-lse", action="store_true", help="do not compute the LSE")
    g.add_argument("--grad", metavar="FILE", help="the upstream gradient dO: also write dQ, dK, dV")
    g.add_argument("--uint16", choices=("bfloat16", "float16"), default="bfloat16",
                   help="how to read raw 16-bit arrays (.npy uint16): bfloat16 (default) or float16 bit patterns")
    g.add_argument("--workers", type=int, default=None,
                   help="worker processes (default: all cores; 1 runs in this process)")
    g.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask cluster (e.g. tcp://10.0.0.5:8786)")
    g.add_argument("--no-fast-path", action="store_true",
                   help="decide every entry in ball arithmetic (slow; for checking the fast path)")
    g.add_argument("--json", action="store_true", help="print the summary as JSON")
    g.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from ..errors import SymattnError
    from ..exact.reference import compute, prepare
    from ..read.tensors import read_inputs
    from ..read.tensors_conventions import KernelConventions

    if not args.output and not args.save_fixture:
        raise SymattnError("nothing to write: give -o REF.safetensors (or .npz) and/or --save-fixture PATH")
    for path in (args.output, args.save_fixture):
        if path and not path.lower().endswith((".safetensors", ".npz")):
            raise SymattnError(f"{path}: a reference is written as .safetensors or .npz (chosen by the extension)")
    if args.workers is not None and args.workers < 1:
        raise SymattnError(f"--workers: expected a whole number ≥ 1, got {args.workers}")
    alibi_file = None
    alibi_values = None
    if args.alibi:
        if args.alibi == "standard" or "," in args.alibi or _is_number(args.alibi):
            alibi_values = args.alibi
        else:
            alibi_file = args.alibi
    t = read_inputs(args.files, grad=args.grad, bias=args.bias, mask=args.mask, alibi=alibi_file,
                    uint16=args.uint16)
    conv = KernelConventions(layout=args.layout, scale=args.scale, scale_dtype=args.scale_dtype, causal=args.causal,
                             window=args.window, masked_rows=args.masked_rows, lse_base=args.lse_base,
                             softcap=args.softcap)
    alibi = t.get("alibi")
    if alibi_values is not None:
        alibi = _alibi_slopes(alibi_values, t["q"], conv.layout)
    problem = prepare(t["q"], t["k"], t["v"], grad=t.get("dO"), bias=t.get("bias"), mask=t.get("mask"),
                      alibi=alibi, conventions=conv, dtype=args.dtype, lse=not args.no_lse,
                      fast=not args.no_fast_path, uint16=args.uint16)
    bar = _Progress(enabled=not args.quiet and sys.stderr.isatty())
    t0 = time.perf_counter()
    ref = compute(problem, workers=args.workers, scheduler=args.scheduler, progress=bar)
    ref.inputs = problem.inputs
    ref.seconds = time.perf_counter() - t0
    bar.done()
    if args.output:
        write_bytes(ref.to_bytes(args.output), args.output)
    if args.save_fixture:
        write_bytes(ref.to_bytes(args.save_fixture, fixture=True), args.save_fixture)
    written = [p for p in (args.output, args.save_fixture) if p]
    if args.json:
        data = ref.metadata()
        data["written"] = written
        data["seconds"] = round(ref.seconds, 3)
        write_output(json.dumps(data, indent=1, sort_keys=True) + "\n", None)
    else:
        text = ref.summary() + f"\nwrote {', '.join(written)} in {ref.seconds:.1f} s\n"
        write_output(text, None)
    return 0


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _alibi_slopes(text: str, q, layout: str):
    """ALiBi slopes from 'standard' (2^(−8h/H), the ALiBi paper's scheme) or a comma list, as float32."""
    import math

    import numpy as np

    from ..errors import SymattnError
    from ..read.tensors import FloatTensor

    shape = q.values.shape
    heads = 1 if len(shape) == 2 else (shape[0] if len(shape) == 3 and layout == "bhsd" else
                                       shape[1] if len(shape) == 3 else
                                       shape[1] if layout == "bhsd" else shape[2])
    if text == "standard":
        def pow2(n: int) -> list[float]:
            start = 2.0 ** (-8.0 / n)
            return [start ** (i + 1) for i in range(n)]
        if heads & (heads - 1) == 0:
            vals = pow2(heads)
        else:  # the paper's scheme for a head count that is not a power of two
            p = 2 ** math.floor(math.log2(heads))
            vals = pow2(p) + pow2(2 * p)[0::2][:heads - p]
    else:
        try:
            vals = [float(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise SymattnError(f"--alibi: expected 'standard', a file, or numbers separated by commas, got {text!r}") \
                from None
        if len(vals) != heads:
            raise SymattnError(f"--alibi: {len(vals)} slopes for {heads} heads")
    arr = np.asarray(vals, dtype=np.float32)
    return FloatTensor(arr.astype(np.float64), "float32", "--alibi " + text)


class _Progress:
    """A one-line progress bar on stderr, shown once a run has taken more than a second."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.start = time.perf_counter()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        if elapsed < 1.0 and done < total:
            return
        width = 30
        fill = int(width * done / max(total, 1))
        eta = elapsed / max(done, 1) * (total - done)
        sys.stderr.write(f"\rsymattn reference [{'#' * fill}{'.' * (width - fill)}] {done}/{total} blocks"
                         f"  {elapsed:.0f} s elapsed, about {eta:.0f} s left ")
        sys.stderr.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()
