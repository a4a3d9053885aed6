"""`symattn import`: a published worked example read from its page into draft example files.

Also the PAGE path of `symattn check`: import, say what was assumed, then check.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import LimitError, SymattnError
from ..limits import MAX_PAGE_BYTES
from .output import write_output

__all__ = ["add_parser", "run", "read_page_file", "is_page", "check_page", "PAGE_FORMATS"]

PAGE_FORMATS = ("markdown", "html", "latex", "notebook", "text")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="read a published worked example (Markdown, HTML, LaTeX, notebook, text) "
                                      "into a draft example file",
                       description="Read a page that works attention through with numbers (Markdown, HTML, "
                                   "LaTeX, a Jupyter notebook, or plain text copied from a web page) and write a "
                                   "draft example file: [inputs], tokens, [convention] and every printed number "
                                   "under [claims], each as printed and traced to its line (or notebook cell). "
                                   "Nothing on the page is executed or fetched. Exit status 0: drafted; 2: bad "
                                   "input or no worked example found.")
    p.add_argument("page", help="the page (a file), or - for standard input")
    p.add_argument("--format", choices=PAGE_FORMATS,
                   help="the page's format (default: from the file name, else from its text)")
    p.add_argument("-o", "--output", help="write the draft to this file (atomically) instead of stdout")
    p.add_argument("--out-dir", help="write one draft per worked example: DIR/<page>-1.toml, DIR/<page>-2.toml, …")
    p.add_argument("--example", type=int, metavar="N", help="only the N-th worked example on the page (1-based)")


def read_page_file(path: str) -> tuple[str, str]:
    """(text, name) of a page file, or of standard input for ``-``; bounded by the page-size limit."""
    if path == "-":
        data = sys.stdin.buffer.read(MAX_PAGE_BYTES + 1)
        name = "<stdin>"
    else:
        p = Path(path)
        if p.is_dir():
            raise SymattnError(f"{path}: is a folder, not a page")
        if not p.exists():
            raise SymattnError(f"{path}: no such file")
        try:
            with open(p, "rb") as f:
                data = f.read(MAX_PAGE_BYTES + 1)
        except OSError as e:
            raise SymattnError(f"{path}: cannot read: {e.strerror}") from None
        name = path
    if len(data) > MAX_PAGE_BYTES:
        raise LimitError(f"{name}: the page is larger than {MAX_PAGE_BYTES} bytes (see the README's limits)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise SymattnError(f"{name}: not UTF-8 text (byte {e.start})") from None
    return text, name


def is_page(path: str) -> bool:
    """Whether `symattn check` reads ``path`` as a page (anything but a TOML example file or a
    built-in example name)."""
    if path == "-":
        return True
    p = Path(path)
    if p.suffix.lower() == ".toml":
        return False
    return p.is_file()


def _pick(exs: list, example: int | None, name: str) -> list:
    if example is None:
        return exs
    if not 1 <= example <= len(exs):
        raise SymattnError(f"{name}: --example {example} is out of range: the page has {len(exs)} worked "
                           f"example{'s' if len(exs) != 1 else ''} (1..{len(exs)})")
    return [exs[example - 1]]


def run(args: argparse.Namespace) -> int:
    from ..analyses.importer import import_examples
    from ..views.draft import draft

    text, name = read_page_file(args.page)
    exs = import_examples(text, args.format, name)
    chosen = _pick(exs, args.example, name)
    stem = Path(name).stem if name != "<stdin>" else "page"
    if args.out_dir:
        if args.output:
            raise SymattnError("give either -o FILE or --out-dir DIR, not both")
        folder = Path(args.out_dir)
        if not folder.exists():
            if not folder.parent.is_dir():
                raise SymattnError(f"{args.out_dir}: the folder {folder.parent} does not exist")
            folder.mkdir()
        elif not folder.is_dir():
            raise SymattnError(f"{args.out_dir}: not a folder")
        lines = []
        for ex in chosen:
            target = folder / f"{stem}-{ex.index}.toml"
            write_output(draft(ex, str(target)), str(target))
            lines.append(f"{target}  (example {ex.index} of {ex.count}: {ex.placed} printed numbers placed, "
                         f"{len(ex.unplaced)} blocks not placed, {len(ex.assumptions)} assumptions)")
        sys.stdout.write("\n".join(lines) + "\n")
        return 0
    if args.output:
        if len(chosen) > 1:
            raise SymattnError(f"{name} has {len(chosen)} worked examples: pick one with --example N (1..{len(chosen)}), "
                               "or write one file each with --out-dir DIR")
        ex = chosen[0]
        write_output(draft(ex, args.output), args.output)
        sys.stderr.write(f"symattn: wrote {args.output} (example {ex.index} of {ex.count}: {ex.placed} printed "
                         f"numbers placed, {len(ex.unplaced)} blocks not placed, {len(ex.assumptions)} "
                         "assumptions; see its comments)\n")
        return 0
    parts = []
    for ex in chosen:
        if len(chosen) > 1:
            parts.append(f"# ===== worked example {ex.index} of {ex.count} "
                         f"(write each to its own file with --out-dir DIR) =====\n")
        parts.append(draft(ex))
    write_output("\n".join(parts), None)
    if len(chosen) > 1:
        sys.stderr.write(f"symattn: {len(chosen)} worked examples found; pick one with --example N, or write one "
                         "file each with --out-dir DIR\n")
    return 0


def check_page(args: argparse.Namespace) -> int:
    """`symattn check PAGE`: import the page, state what was assumed, check each example."""
    from ..analyses.check import check
    from ..analyses.importer import import_examples
    from ..views.data import dumps
    from ..views.draft import summary
    from ..views.report import markdown, text as text_view

    text, name = read_page_file(args.file)
    exs = _pick(import_examples(text, args.page_format, name), args.example, name)
    fmt = "json" if args.json else args.format
    status = 0
    outputs = []
    datas = []
    for ex in exs:
        spec = ex.spec
        if not spec.claims:
            note = f"{name}: worked example {ex.index} prints no intermediate numbers to check"
            if fmt == "json":
                datas.append({"import": ex.notes_data(), "report": None, "message": note})
            else:
                outputs.append(summary(ex, fmt) + note + "\n")
            continue
        report = check(spec, inputs_rounded=True if args.inputs_rounded else None, diagnose=not args.no_diagnosis)
        if not report.all_right:
            status = 1
        if fmt == "json":
            from ..views.data import to_data

            data = to_data(report)
            data["import"] = ex.notes_data()
            datas.append(data)
        elif fmt == "markdown":
            outputs.append(summary(ex, "markdown") + markdown(report))
        else:
            outputs.append(summary(ex) + text_view(report))
    if fmt == "json":
        out = dumps(datas[0] if len(datas) == 1 else {"source": name, "examples": datas})
    else:
        out = "\n".join(outputs)
    write_output(out, args.output)
    return status
