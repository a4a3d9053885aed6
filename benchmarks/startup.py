"""Start-up benchmark: the wall time of whole ``symattn`` commands against importing SymPy.

In the same run, each command is started as a fresh process (best of 5, interleaved so
that a burst of load on a shared machine hits every command alike):

* baseline: ``python -c "import sympy"``;
* ``symattn derive i_love_statistics``;
* ``symattn check i_love_statistics``;
* ``symattn latex i_love_statistics``;
* ``python -c "import symattn"`` (the package root alone).

Each row prints its best time and its ratio to the baseline. symattn computes with SymPy,
so SymPy's import is the floor; the target (issue 10) is ``symattn check
i_love_statistics`` within 1.15x of it.

Run: ``python benchmarks/startup.py`` (``--runs N`` for another best-of; ``--importtime
COMMAND`` prints ``python -X importtime``'s 25 most expensive modules beyond SymPy's for
that command, e.g. ``--importtime check``).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

EXAMPLE = "i_love_statistics"
TARGET = 1.15


def symattn_command() -> list[str]:
    """The installed console script beside this interpreter, else ``python -m symattn``."""
    script = Path(sys.executable).with_name("symattn")
    if script.exists():
        return [sys.executable, str(script)]
    found = shutil.which("symattn")
    return [sys.executable, found] if found else [sys.executable, "-m", "symattn"]


def commands() -> dict[str, list[str]]:
    sa = symattn_command()
    return {
        'python -c "import sympy"': [sys.executable, "-c", "import sympy"],
        'python -c "import symattn"': [sys.executable, "-c", "import symattn"],
        f"symattn derive {EXAMPLE}": sa + ["derive", EXAMPLE],
        f"symattn check {EXAMPLE}": sa + ["check", EXAMPLE],
        f"symattn latex {EXAMPLE}": sa + ["latex", EXAMPLE],
    }


def run_once(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_env())
    elapsed = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 1):  # check exits 1 when the page has wrong numbers
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.decode(errors='replace')}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    # with PYTHONDONTWRITEBYTECODE set, a module changed since its .pyc was written is compiled from
    # source on every run (about 0.3 s for symattn's modules): the warm-up run writes the bytecode a
    # user's installation has
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def importtime(which: str, top: int = 25) -> str:
    """Modules a command imports beyond ``import sympy``, by cumulative import time."""
    def table(cmd: list[str]) -> dict[str, tuple[int, int]]:
        p = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, env=_env())
        rows = {}
        for line in p.stderr.splitlines():
            m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|\s*(\S+)", line)
            if m:
                rows[m.group(3)] = (int(m.group(1)), int(m.group(2)))
        return rows

    cmds = commands()
    base = table(cmds['python -c "import sympy"'])
    key = next((k for k in cmds if k.split()[1] == which or which in k), None)
    if key is None:
        raise SystemExit(f"--importtime: no command {which!r} (derive, check, latex, import)")
    rows = table(cmds[key])
    extra = {k: v for k, v in rows.items() if k not in base}
    lines = [f"{key}: {len(extra)} modules beyond SymPy's, {sum(v[0] for v in extra.values()) / 1000:.1f} ms "
             "of their own import time", f"{'cumulative ms':>14} {'self ms':>8}  module"]
    for name, (own, cum) in sorted(extra.items(), key=lambda kv: -kv[1][1])[:top]:
        lines.append(f"{cum / 1000:14.1f} {own / 1000:8.1f}  {name}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="best of this many runs (default 5)")
    ap.add_argument("--importtime", metavar="COMMAND", help="show what COMMAND imports beyond SymPy and exit")
    args = ap.parse_args()
    if args.importtime:
        print(importtime(args.importtime))
        return 0
    cmds = commands()
    for cmd in cmds.values():  # warm the file cache and the bytecode
        run_once(cmd)
    best = {k: float("inf") for k in cmds}
    best_cpu = {k: float("inf") for k in cmds}
    for _ in range(args.runs):
        for k, cmd in cmds.items():
            wall, cpu = run_once(cmd)
            best[k], best_cpu[k] = min(best[k], wall), min(best_cpu[k], cpu)
    base, base_cpu = best['python -c "import sympy"'], best_cpu['python -c "import sympy"']
    print(f"start-up, best of {args.runs} (seconds; ratio to importing SymPy in the same run; CPU = user + "
          "system time, steadier on a shared machine)\n")
    width = max(map(len, cmds))
    print(f"{'command':<{width}} {'wall':>7} {'ratio':>7} {'CPU':>7} {'ratio':>7}")
    print("-" * (width + 32))
    for k, t in best.items():
        print(f"{k:<{width}} {t:7.3f} {t / base:6.2f}x {best_cpu[k]:7.3f} {best_cpu[k] / base_cpu:6.2f}x")
    ratio = best[f"symattn check {EXAMPLE}"] / base
    print(f"\ntarget: symattn check {EXAMPLE} within {TARGET:.2f}x of importing SymPy "
          f"(here {ratio:.2f}x: {'met' if ratio <= TARGET else 'not met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
