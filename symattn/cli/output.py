"""Where the command line's output goes: stdout, or a file written atomically."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from ..errors import SymattnError

__all__ = ["write_output", "write_bytes", "pdf"]


def write_output(text: str | bytes, path: str | None) -> None:
    """Write to stdout, or to ``path`` atomically (a temp file renamed into place).
    ``bytes`` (a picture) are written as they are."""
    if path is None or path == "-":
        if isinstance(text, bytes):
            sys.stdout.buffer.write(text)
        else:
            sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise SymattnError(f"{path}: the folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with (os.fdopen(fd, "wb") if isinstance(text, bytes) else os.fdopen(fd, "w", encoding="utf-8")) as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def pdf(tex_path: str) -> int:
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


def write_bytes(data: bytes, path: str) -> None:
    """Write binary data to ``path`` atomically (a temp file in the same folder, then a rename),
    with the user's umask; refuses to replace anything that is not a regular file."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise SymattnError(f"{path}: the folder {folder} does not exist")
    if target.exists() and not target.is_file():
        raise SymattnError(f"{path}: exists and is not a regular file; not replacing it")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
