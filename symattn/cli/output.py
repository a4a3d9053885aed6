"""Where the command line's output goes: stdout, or a file. This module is the one writer.

- A regular file (or a new one) is written atomically: a temp file in the same folder,
  then a rename over the target. The file gets the permissions a plain ``open()`` would
  give: those of the file it replaces, or 0666 less the user's umask for a new one.
- A target that exists and is not a regular file (a device such as ``/dev/null`` or
  ``/dev/full``, a FIFO, ``/dev/stdout``) is written to directly, never replaced.
- A symbolic link is followed: the file it points to is replaced, the link stays.
- The temp file is removed on any error and on SIGINT/SIGTERM (the command line turns
  SIGTERM into an exception while it writes).
- Every ``OSError`` becomes one line naming the path (exit status 2).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from pathlib import Path

from ..errors import OutputError

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


def _fail(path: str, e: OSError) -> OutputError:
    reason = e.strerror or str(e)
    if e.errno == errno.ENAMETOOLONG:
        reason = "the file name is too long"
    return OutputError(path, f"{_shown(path)}: cannot write: {reason}")


def _shown(path: str) -> str:
    from .messages import escape

    return escape(path if len(path) <= 200 else path[:197] + "...")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_file(path: str, data: bytes) -> None:
    """Write ``data`` to ``path``: atomically for a regular file, directly for anything else."""
    if "\x00" in path:
        raise OutputError(path, f"{_shown(path)}: cannot write: the path holds a NUL character")
    try:
        try:
            st = os.stat(path)  # follows links: what the path names
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise OutputError(path, f"{_shown(path)}: is a folder; give a file name, e.g. "
                               f"{_shown(path.rstrip('/') or '/')}/out.txt")
        if st is not None and not stat.S_ISREG(st.st_mode):
            with open(path, "wb") as f:  # a device, FIFO or socket: written to, never replaced
                f.write(data)
            return
        real = os.path.realpath(path)  # a link to a regular file: replace the file, keep the link
        folder = os.path.dirname(real) or "."
        if not os.path.isdir(folder):
            raise OutputError(path, f"{_shown(path)}: cannot write: the folder {_shown(os.path.dirname(path) or '.')} "
                               "does not exist")
        mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
        _atomic(real, folder, data, mode)
    except OSError as e:
        raise _fail(path, e) from None


def _atomic(real: str, folder: str, data: bytes, mode: int) -> None:
    name = os.path.basename(real)
    fd, tmp = tempfile.mkstemp(prefix=f".{name[:64]}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


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
        raise _fail(str(tex), e) from None
    write_file(str(target), data)
    sys.stderr.write(f"symattn: wrote {_shown(str(tex))} and {_shown(str(target))}\n")
    return 0
