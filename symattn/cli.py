"""The ``symattn`` command.

Exit status: 0 success; 2 bad input (one line on stderr naming the file, the
field and the problem; no traceback). ``symattn check`` exits 1 when a printed
number is wrong.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import NoReturn, Sequence

from . import __version__
from .errors import SymattnError

DEFAULT_EXAMPLE = "i_love_statistics"


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit status 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(2)


def write_output(text: str, path: str | None) -> None:
    """Write to stdout, or to ``path`` atomically (a temp file renamed into place)."""
    if path is None or path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise SymattnError(f"{path}: the folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _digits(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of digits, got {text!r}") from None
    return n


def _steps(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="symattn", description="Attention, softmax(QKᵀ/√d_k)·V, worked in exact arithmetic.")
    p.add_argument("--version", action="version", version=f"symattn {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

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
    d.add_argument("-o", "--output", help="write to this file (atomically) instead of stdout")

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
    lt.add_argument("--exact", action="store_true", help="always include exact closed forms")
    lt.add_argument("--max-rows", type=_digits, default=8, help="rows shown before eliding (default 8)")
    lt.add_argument("--max-cols", type=_digits, default=8, help="columns shown before eliding (default 8)")

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
    g.add_argument("--verify", nargs="?", const="auto", choices=("auto", "exact", "numeric"),
                   help="check the closed forms: exact (SymPy differentiation, small sizes), numeric (central "
                        "differences at high precision), or auto (both where possible)")
    g.add_argument("-o", "--output", help="write to this file (atomically) instead of stdout")

    sm = sub.add_parser("softmax", help="softmax closed forms: softmax, log-sum-exp, Jacobian, sigmoid, limits",
                        description="Closed forms of softmax for a size n (1..8) or a symbolic n, each checked "
                                    "by SymPy.")
    sm.add_argument("n", nargs="?", default="3", help="a size from 1 to 8, or n for a symbolic size (default 3)")
    sm.add_argument("--latex", action="store_true", help="print LaTeX")
    sm.add_argument("--json", action="store_true", help="print JSON")

    pr = sub.add_parser("prove", help="prove an identity of attention (symattn prove --list)",
                        description="Print a proof (argument and SymPy checks) of an identity.")
    pr.add_argument("name", nargs="?", help="the identity, e.g. online-softmax")
    pr.add_argument("--list", action="store_true", help="list the identities")
    pr.add_argument("--latex", action="store_true", help="print LaTeX")
    pr.add_argument("--json", action="store_true", help="print JSON")

    pf = sub.add_parser("parse-formula", help="recognise an attention formula written in LaTeX",
                        description="Say whether a LaTeX formula is standard scaled dot-product attention, "
                                    "unscaled dot-product attention, or something else.")
    pf.add_argument("formula", help=r"the formula, e.g. '\text{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V'")
    pf.add_argument("--json", action="store_true", help='print {"kind", "scale", "expression", ...}')

    e = sub.add_parser("examples", help="list the built-in examples")
    e.add_argument("--json", action="store_true", help="print JSON")
    return p


def _cmd_derive(args: argparse.Namespace) -> int:
    from .certify import check_digits
    from .derive import derive
    from .spec import load
    from .views.data import dumps

    check_digits(args.digits)
    spec = load(args.file)
    d = derive(spec, query=args.query)
    exact = True if args.exact else None
    if args.json:
        text = dumps(d.to_json(digits=args.digits, steps=args.steps, exact=exact))
    else:
        text = d.text(digits=args.digits, steps=args.steps, exact=exact)
    write_output(text, args.output)
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from .check import check
    from .spec import load
    from .views.data import dumps

    spec = load(args.file)
    report = check(spec, inputs_rounded=True if args.inputs_rounded else None, diagnose=not args.no_diagnosis)
    fmt = "json" if args.json else args.format
    if fmt == "json":
        text = dumps(report.to_data())
    elif fmt == "markdown":
        text = report.markdown()
    else:
        text = report.text()
    write_output(text, args.output)
    return 0 if report.all_right else 1


def _cmd_latex(args: argparse.Namespace) -> int:
    from .certify import check_digits
    from .derive import derive
    from .latex.document import Style, body, document, markdown
    from .spec import load

    check_digits(args.digits)
    if args.max_rows < 3 or args.max_cols < 3:
        raise SymattnError("--max-rows and --max-cols must be at least 3")
    if args.pdf and (not args.output or args.format != "latex" or args.body_only):
        raise SymattnError("--pdf needs -o FILE.tex and a whole LaTeX document (not --body-only or markdown)")
    d = derive(load(args.file), query=args.query)
    style = Style(digits=args.digits, max_rows=args.max_rows, max_cols=args.max_cols,
                  exact=True if args.exact else None)
    if args.format == "markdown":
        text = markdown(d, style, args.steps)
    elif args.body_only:
        text = body(d, style, args.steps)
    else:
        text = document(d, style, args.steps)
    write_output(text, args.output)
    if args.pdf:
        return _pdf(args.output)
    return 0


def _pdf(tex_path: str) -> int:
    """Compile with pdflatex in a temporary folder; the PDF lands next to the .tex file."""
    import shutil
    import subprocess

    exe = shutil.which("pdflatex")
    tex = Path(tex_path)
    if exe is None:
        sys.stderr.write(f"symattn: wrote {tex}, but pdflatex is not installed, so there is no PDF "
                         "(install TeX Live, e.g. Debian's texlive-latex-base and texlive-latex-recommended)\n")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(tex, Path(tmp) / "doc.tex")
        for _ in range(2):  # twice, for longtable widths
            run = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "doc.tex"],
                                 cwd=tmp, capture_output=True, text=True, timeout=300)
            if run.returncode != 0:
                log = (Path(tmp) / "doc.log").read_text(errors="replace") if (Path(tmp) / "doc.log").exists() else ""
                first = next((line for line in log.splitlines() if line.startswith("!")), "unknown error")
                sys.stderr.write(f"symattn: pdflatex failed on {tex}: {first}\n")
                return 1
        target = tex.with_suffix(".pdf")
        partial = target.with_name(f".{target.name}.tmp")
        shutil.copy(Path(tmp) / "doc.pdf", partial)
        os.replace(partial, target)
    sys.stderr.write(f"symattn: wrote {tex} and {target}\n")
    return 0


def _matrix_file(path: str, what: str) -> object:
    """The one matrix in a small TOML file (``dO = [[...]]``), as written."""
    import tomllib
    from decimal import Decimal

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise SymattnError(f"{path}: cannot read: {e.strerror}") from None
    try:
        data = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as e:
        raise SymattnError(f"{path}: not valid TOML: {e}") from None
    if len(data) != 1:
        raise SymattnError(f"{path}: expected one key holding the {what} matrix, e.g. dO = [[1, 0], [0, 1]]")
    return next(iter(data.values()))


def _cmd_grad(args: argparse.Namespace) -> int:
    from .certify import check_digits
    from .derive import derive
    from .grad import grad
    from .spec import load
    from .verify import verify
    from .views.data import dumps

    check_digits(args.digits)
    loss = args.loss or ("upstream" if args.upstream else "mse" if args.target else "sum")
    target = _matrix_file(args.target, "target") if args.target else None
    upstream = _matrix_file(args.upstream, "upstream gradient") if args.upstream else None
    g = grad(derive(load(args.file)), loss=loss, target=target, upstream=upstream, wrt=args.wrt)
    checks = verify(g, wrt=[w for w in (args.wrt or []) if w in ("Q", "K", "V", "X", "X_kv", "Wq", "Wk", "Wv",
                                                                   "Wo", "bq", "bk", "bv", "bo", "scores")] or None,
                    method=args.verify) if args.verify else []
    exact = True if args.exact else None
    if args.latex:
        from .latex.document import Style, document

        text = document(g, Style(digits=args.digits, exact=exact), args.steps)
    elif args.json:
        data = g.to_json(digits=args.digits, steps=args.steps, exact=exact)
        if args.verify:
            data["verification"] = [c.to_data() for c in checks]
        text = dumps(data)
    if not args.latex and not args.json:
        text = g.text(digits=args.digits, steps=args.steps, exact=exact)
        if args.verify:
            text += "\n── verification\n" + "\n".join(
                f"  {'✓' if c.ok else '✗'} d{c.wrt} ({c.step}), {c.method}, {c.entries} entries: {c.detail}"
                for c in checks) + "\n"
    write_output(text, args.output)
    return 0 if all(c.ok for c in checks) else 1


def _cmd_softmax(args: argparse.Namespace) -> int:
    from .softmax import closed_forms
    from .views.data import dumps

    n: int | str = args.n
    if n != "n":
        try:
            n = int(n)
        except ValueError:
            raise SymattnError(f"softmax: expected a size from 1 to 8 or n, got {args.n!r}") from None
        if not 1 <= n <= 8:
            raise SymattnError(f"softmax: the size must be from 1 to 8 (or n for a symbolic size), got {n}")
    facts = closed_forms(n)
    if args.json:
        text = dumps({"n": str(n), "facts": [f.to_data() for f in facts]})
    elif args.latex:
        from .latex.printer import escape_text

        text = "\n".join(f"\\paragraph{{{escape_text(f.title)}.}} \\[ {f.latex} \\] "
                         f"{escape_text('Checked: ' + f.how + ('.' if f.checked else ' (FAILED).'))}\n"
                         for f in facts)
    else:
        text = f"softmax closed forms, n = {n}\n" + "".join(
            f"\n── {f.title}\n  {f.text}\n  {'✓' if f.checked else '✗'} {f.how}\n" for f in facts)
    write_output(text, None)
    return 0 if all(f.checked for f in facts) else 1


def _cmd_prove(args: argparse.Namespace) -> int:
    from .proofs import IDENTITIES, prove
    from .views.data import dumps

    if args.list or not args.name:
        write_output("identities (symattn prove NAME):\n" + "".join(f"  {n}\n" for n in IDENTITIES), None)
        return 0 if args.list else 2
    p = prove(args.name)
    text = dumps(p.to_data()) if args.json else (p.latex() if args.latex else p.text())
    write_output(text, None)
    return 0 if p.holds else 1


def _cmd_parse_formula(args: argparse.Namespace) -> int:
    from .latex.parser import parse_formula
    from .numbers import InputError
    from .views.data import dumps

    try:
        f = parse_formula(args.formula)
    except InputError as e:
        raise SymattnError(f"formula: {e}") from None
    write_output(dumps(f.to_data()) if args.json else f.text(), None)
    return 0


def _cmd_examples(args: argparse.Namespace) -> int:
    from .spec import EXAMPLES_DIR, list_examples
    from .views.data import dumps

    items = list_examples()
    if args.json:
        write_output(dumps({"examples": [{"name": n, "title": t, "path": str(EXAMPLES_DIR / f"{n}.toml")}
                                         for n, t in items]}), None)
    else:
        width = max(len(n) for n, _ in items)
        lines = [f"{n.ljust(width)}  {t}" for n, t in items]
        lines.append("")
        lines.append(f"run one with: symattn derive NAME   (files in {EXAMPLES_DIR})")
        write_output("\n".join(lines) + "\n", None)
    return 0


COMMANDS = {"derive": _cmd_derive, "check": _cmd_check, "latex": _cmd_latex, "grad": _cmd_grad,
            "softmax": _cmd_softmax, "prove": _cmd_prove, "parse-formula": _cmd_parse_formula,
            "examples": _cmd_examples}


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
        except (AttributeError, ValueError):  # pragma: no cover - unusual streams
            pass
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return COMMANDS[args.command](args)
    except SymattnError as e:
        sys.stderr.write(f"symattn: {e}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("symattn: interrupted\n")
        return 130
    except BrokenPipeError:  # pragma: no cover - e.g. `symattn derive | head`
        return 0


def entry() -> None:  # console script
    raise SystemExit(main())


if __name__ == "__main__":  # pragma: no cover
    entry()
