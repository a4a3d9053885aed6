"""Where the command line's output goes: stdout, or a file written by :func:`symattn.files.write_file`
(the one writer: atomic for regular files, devices written directly, the user's umask, no temp file left),
and the PDF of a LaTeX document."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ..errors import OutputError
from ..files import shown as _shown, write_file

__all__ = ["write_output", "write_file", "write_bytes", "pdf"]


def write_output(text: str | bytes, path: str | None) -> None:
    """Write to stdout, or to ``path`` (see the module's rules); ``bytes`` (a picture) are written as they are."""
    if path is None or path == "-":
        if isinstance(text, bytes):
            sys.stdout.buffer.write(text)
        else:
            sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_file(path, text if isinstance(text, bytes) else text.encode("utf-8"))


def write_bytes(data: bytes, path: str) -> None:
    """Binary data (a picture, a reference file) to ``path``, by the same rules as text."""
    write_file(path, data)


def pdf(tex_path: str) -> int:
    """Compile with pdflatex in a temporary folder; the PDF lands next to the .tex file
    (written by :func:`write_file`, so atomically and never over a device)."""
    import shutil
    import subprocess

    exe = shutil.which("pdflatex")
    tex = Path(tex_path)
    if exe is None:
        sys.stderr.write(f"symattn: wrote {_shown(str(tex))}, but pdflatex is not installed, so there is no PDF "
                         "(install TeX Live, e.g. Debian's texlive-latex-base and texlive-latex-recommended)\n")
        return 1
    target = tex.with_suffix(".pdf")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copyfile(tex, Path(tmp) / "doc.tex")
            for _ in range(2):  # twice, for longtable widths
                run = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                                      "doc.tex"], cwd=tmp, capture_output=True, text=True, timeout=300)
                if run.returncode != 0:
                    log_path = Path(tmp) / "doc.log"
                    log = log_path.read_text(errors="replace") if log_path.exists() else ""
                    first = next((line for line in log.splitlines() if line.startswith("!")), "unknown error")
                    from .messages import escape

                    sys.stderr.write(f"symattn: pdflatex failed on {_shown(str(tex))}: {escape(first)}\n")
                    return 1
            data = (Path(tmp) / "doc.pdf").read_bytes()
    except subprocess.TimeoutExpired:
        raise OutputError(str(tex), f"{_shown(str(tex))}: pdflatex took more than 300 s") from None
    except OSError as e:
        raise OutputError(str(tex), f"{_shown(str(tex))}: cannot write: {e.strerror or e}") from None
    write_file(str(target), data)
    sys.stderr.write(f"symattn: wrote {_shown(str(tex))} and {_shown(str(target))}\n")
    return 0
