"""A fuzz campaign against the command line: generated inputs, each run as a real subprocess.

    python fuzz/campaign.py                 # 5000 inputs, 2 at a time
    python fuzz/campaign.py --n 500 --show 5 --seed 7

Each input is a command line of ``derive``, ``check``, ``latex``, ``grad`` or ``parse-formula``
with its files in a fresh temporary folder: valid example files (random conventions), mutated
ones, adversarial values (towers, NaN, infinities, deep nesting, control characters, huge
exponents, LaTeX), claims, formulas, flags, and output paths inside that folder only. Each runs
in a forked child of a process that has imported symattn once (so the import is not paid 5000
times), with its own stdin/stdout/stderr, a wall-clock timeout and an address-space limit; its
peak memory comes from ``wait4``. Outcomes:

- ok: exit 0 or 1 (a check that found wrong numbers, a verification that failed);
- clean error: exit 2 and exactly one line on stderr, with no raw control characters;
- traceback: a Python traceback or an internal error (exit 70), or any other exit status;
- hang: no answer within --slow seconds (5 by default; killed at --timeout);
- memory: peak resident memory above --memory MiB (1024), or a MemoryError;
- not-one-line: exit 2 with more or less than one line on stderr.

The table is printed by command and outcome, with the load average, so timings can be judged.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

CLASSES = ["ok", "clean error", "traceback", "hang", "memory", "not-one-line"]
COMMANDS = ["derive", "check", "latex", "grad", "parse-formula"]


@dataclass
class Case:
    kind: str  # valid, mutated, adversarial, latex, formula, claims, flags, output
    argv: list[str]
    files: dict[str, str] = field(default_factory=dict)

    @property
    def command(self) -> str:
        return self.argv[0]


# ---------------------------------------------------------------------------------------------
# generators

HOSTILE_TEXT = [
    "((10^10000)^10000)^10000", "(10^10000)^10000", "(nan)", "nan", "NaN", "inf", "-inf", "+inf", "infinity",
    "1/0", "0^-1", "0/0", "log(0)", "log(-1)", "sqrt(-2)", "exp(1e7)", "exp(exp(exp(10)))", "exp(1000000)",
    "1e400", "1e-400", "1e300", "2^2^2^2^2^2", "10^10^10", "2^10000", "(1/3)^10000", "10^10000 * 10^10000",
    "(" * 41 + "1" + ")" * 41, "-" * 41 + "1", "-" * 991 + "1", "x" * 1001, "1" * 1001, "³", "٣", "1,5", "0x10",
    "1_000", "\u202e1", "\x1b[31m1", "1\n2", "", " ", "()", "(", "1 2", "q_11 ^ 10001", "pi^pi", "e", "sqrt(2)^10000",
    "exp(460518)^5", "2^(1/101)", "10^-10000", "undefined", "zoo", "oo - oo", "\x00", "1e999999999",
]
HOSTILE_LATEX = [
    r"\frac{1}{0}", r"\infty", r"-\infty", r"\pi^{\pi^{\pi^{\pi}}}", r"\, 10^{10^{10}}", r"2^{2^{2^{2^{2^{2}}}}}",
    r"\sqrt[101]{2}", r"\sqrt{-2}", r"\begin{bmatrix} 1 \end{bmatrix}", r"\frac{1}{" * 100 + "2" + "}" * 100,
    r"\frac{1}{" * 40 + "2" + "}" * 40, r"\input{/etc/passwd}", r"e^{10^{7}}", r"\exp(\exp(\exp(\exp(10))))",
    r"\ln(\ln(1))", r"1.5e-3 \cdot 2", r"q_{1} \cdot \infty", r"\left(" * 45 + "1" + r"\right)" * 45,
    r"\begin{vmatrix} 1 \end{vmatrix}", r"\frac12", r"2^10", r"\log 0", r"0,5", r"\sqrt" * 50 + " 2",
    "-" * 50 + r"\,1", r"\mathrm{e}^{1000001}", r"\begin{bmatrix} 1 & 2 \\ 3 \end{bmatrix}", r"{{{{{{{{{{1}}}}}}}}}}",
    r"\frac{\sqrt{2}}{2}", r"\dfrac{59}{100}", r"-1.5 \times 10^{-3}", r"\exp^{2}(x)", "\\\u202e", r"\begin{bmatrix}",
]
FORMULAS = [
    r"\text{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V", r"\operatorname{softmax}(QK^\top)V",
    r"\sum_i \frac{\exp(q\cdot k_i)}{\sum_j \exp(q\cdot k_j)} v_i",
    r"\text{softmax}(999999999999^{999999999999} QK^T)V", "^".join(["x"] * 502), "-" * 991 + "x",
    r"\exp^" * 331 + "x", r"\sqrt" * 331 + " x", r"\sqrt{" * 331 + "x" + "}" * 331, "x" * 4001,
    r"\text{softmax}(2^{2^{2^{2^{2}}}} QK^T)V", r"\frac{1}{0} QK^T", "(" * 61 + "x" + ")" * 61, "", "$$", "\x1b[2J",
]
FORMULA_TOKENS = [r"\text{softmax}", "(", ")", "{", "}", "Q", "K", "V", "^T", "^", "_", r"\frac", r"\sqrt", "d_k",
                  r"\sum", r"\exp", "-", "+", "x", "2", "999999999999", r"\cdot", "/", "i", "j", "k_i", "q", r"\left(",
                  r"\right)", "=", r"\tau", "0", "1.5"]
LATEX_TOKENS = [r"\frac", "{", "}", "1", "0.5", "^", "-", "+", r"\sqrt", "[", "]", "(", ")", r"\pi", r"\infty", "&",
                r"\\", "e", "x_{1}", r"\left(", r"\right)", r"\exp", r"\ln", r"\log", "10", "^{", r"\cdot", r"\times",
                ",", "2", "_", r"\,", "100000", "/", "d_k", " "]


def toml_str(s: str) -> str:
    return json.dumps(s)


def toml_lit(s: str) -> str:
    return "'" + s + "'" if "'" not in s and "\n" not in s else json.dumps(s)


def number(rng: random.Random) -> str:
    return rng.choice([str(rng.randint(-9, 9)), f"{rng.randint(-99, 99) / 10}", f'"{rng.randint(1, 9)}/{rng.randint(1, 9)}"',
                       f"{rng.randint(-999, 999) / 100}", '"sqrt(2)"', "'\\frac{1}{2}'", "0.5"])


def matrix(rng: random.Random, rows: int, cols: int) -> str:
    return "[" + ", ".join("[" + ", ".join(number(rng) for _ in range(cols)) + "]" for _ in range(rows)) + "]"


def valid_spec(rng: random.Random) -> tuple[str, int, int, int]:
    """A valid example file: (text, queries, keys, d_v); its claims, if any, are keyed by row number."""
    n, m = rng.randint(1, 4), rng.randint(1, 4)
    heads = rng.choice([1, 1, 1, 2])
    d = rng.choice([1, 2, 3]) * heads
    dv = rng.choice([1, 2]) * heads
    layout = rng.choice(["row", "row", "torch", "column"])
    lines = []
    cross = m != n
    if rng.random() < 0.5 and layout != "column":
        lines += ["[inputs]", f"Q = {matrix(rng, n, d)}", f"K = {matrix(rng, m, d)}", f"V = {matrix(rng, m, dv)}"]
    elif rng.random() < 0.5:
        dm = rng.randint(1, 3)
        if layout == "row":
            x, wq, wk, wv = (n, dm), (dm, d), (dm, d), (dm, dv)
            xkv = (m, dm)
        elif layout == "torch":
            x, wq, wk, wv = (n, dm), (d, dm), (d, dm), (dv, dm)
            xkv = (m, dm)
        else:
            x, wq, wk, wv = (dm, n), (d, dm), (d, dm), (dv, dm)
            xkv = (dm, m)
        lines += ["[inputs]", f"X = {matrix(rng, *x)}", f"Wq = {matrix(rng, *wq)}", f"Wk = {matrix(rng, *wk)}",
                  f"Wv = {matrix(rng, *wv)}"]
        if cross:
            lines.append(f"X_kv = {matrix(rng, *xkv)}")
    else:
        heads, layout, dv = 1, "row", dv // heads
        lines += ["[inputs]", f"scores = {matrix(rng, n, m)}", f"V = {matrix(rng, m, dv)}"]
    conv = [f'layout = "{layout}"', f"heads = {heads}"]
    if "scores" in lines[1]:
        conv.append(rng.choice(['scale = "none"', "d_k = 4", "scale = 0.5"]))
    elif rng.random() < 0.3:
        conv.append(f'scale = {rng.choice(["0.5", chr(34) + "none" + chr(34), chr(34) + "1/sqrt(d_k)" + chr(34), "1"])}')
    if rng.random() < 0.3:
        conv.append(f'temperature = {rng.choice(["2", "0.5", chr(34) + "3/2" + chr(34)])}')
    mask = rng.random()
    if mask < 0.2 and n == m:
        conv.append('mask = "causal"')
        if rng.random() < 0.5:
            conv.append(f"mask_value = {rng.choice(['-1e9', '-10000', '-1', chr(34) + '-inf' + chr(34)])}")
    elif mask < 0.3:
        conv.append("bias = " + "[" + ", ".join("[" + ", ".join(rng.choice(["0", "1", "-1", '"-inf"']) if j else "0"
                                                                  for j in range(m)) + "]" for _ in range(n)) + "]")
    if rng.random() < 0.15:
        conv.append('softmax_axis = "queries"')
        conv.append('masked_rows = "zero"')
    if rng.random() < 0.1:
        conv.append('normalization = "sum"')
    if rng.random() < 0.2:
        conv.append(f"query = {rng.randint(1, n)}")
    text = "\n".join(lines) + "\n[convention]\n" + "\n".join(conv) + "\n"
    return text, n, m, dv if heads == 1 else -1


def claims_for(rng: random.Random, n: int, m: int, hostile: bool = True) -> str:
    rows = []
    benign = ["0.5", "0.3333", '"1/3"', '"1e-5"', '".."', "1", "0", "0." + "3" * rng.randint(1, 400), "0.25"]
    for i in range(1, n + 1):
        vals = [rng.choice(benign + ([toml_str(rng.choice(HOSTILE_TEXT)), '"-inf"'] if hostile else []))
                for _ in range(m)]
        rows.append(f"{i} = [{', '.join(vals)}]")
    step = rng.choice(["weights", "scores", "scaled", "weights"])
    return f"[claims.{step}]\n" + "\n".join(rows) + "\n"


def mutate(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        i = rng.randrange(len(lines))
        if op < 0.2:
            del lines[i]
            if not lines:
                lines = [""]
        elif op < 0.35:
            lines.insert(i, lines[i])
        elif op < 0.55 and "=" in lines[i]:
            key = lines[i].split("=")[0]
            lines[i] = key + "= " + rng.choice(["{}", "[]", "[[]]", "true", "3", '"x"', "nan", "inf", "1e999999999",
                                               "0e999999999", "[[1, 2], [3]]", '"³"', toml_str(rng.choice(HOSTILE_TEXT)),
                                               toml_lit(rng.choice(HOSTILE_LATEX)), "[" * 50 + "]" * 50])
        elif op < 0.7:
            j = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:j] + rng.choice(list("[]{}=\"',\\\n#") + ["\x1b", "\u202e", "\x00"]) + lines[i][j:]
        elif op < 0.85:
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        else:
            lines.insert(i, rng.choice(['colour = 1', '[convention]', '[inputs]', '"a\\nb" = 1', 'title = "\\u001b[2J"',
                                        'inputs_rounded = true', 'tokens = ["a\\nb", "c\\u202ed"]']))
    return "\n".join(lines)


def adversarial(rng: random.Random) -> str:
    text, n, m, _ = valid_spec(rng)
    where = rng.choice(["entry", "entry", "latex-entry", "latex-matrix", "scale", "temperature", "mask_value", "bias",
                        "query", "layout", "tokens"])
    if where in ("entry", "latex-entry"):
        value = toml_str(rng.choice(HOSTILE_TEXT)) if where == "entry" else toml_lit(rng.choice(HOSTILE_LATEX))
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if line.startswith(("Q =", "K =", "V =", "X =", "scores =", "Wq =")) and rng.random() < 0.7:
                lines[i] = re.sub(r"\[\[[^,\]]*", lambda _: "[[" + value, line, count=1)
                break
        return "\n".join(lines)
    if where == "latex-matrix":
        entries = ["".join(rng.choice(LATEX_TOKENS) for _ in range(rng.randint(1, 12))) for _ in range(4)]
        mat = r"\begin{bmatrix} " + " & ".join(entries[:2]) + r" \\ " + " & ".join(entries[2:]) + r" \end{bmatrix}"
        return f"[inputs]\nQ = {toml_lit(mat)}\nK = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]\n"
    value = rng.choice([toml_str(rng.choice(HOSTILE_TEXT)), toml_lit(rng.choice(HOSTILE_LATEX)), "{}", "[]", "nan",
                        "1e999999999", '"³"'])
    if where == "bias":
        return text.replace("[convention]", f"[convention]\nbias = [[{value}]]")
    if where == "tokens":
        return f"tokens = [{value}]\n" + text
    return text.replace("[convention]", f"[convention]\n{where} = {value}")


def random_flags(rng: random.Random, command: str, n: int, valid: bool) -> list[str]:
    flags: list[str] = []
    if command in ("derive", "latex", "grad") and rng.random() < 0.3:
        flags += ["--digits", rng.choice(["1", "6", "30", "200", "5000"] + ([] if valid else ["0", "-1", "100001", "x", "²"]))]
    if command in ("derive", "latex") and rng.random() < 0.2:
        flags += ["--query", rng.choice(["1", str(n)] + ([] if valid else ["0", "99", "²", "a\nb", "love", "-1", "--1", ""]))]
    if command in ("derive", "latex") and rng.random() < 0.2:
        flags += ["--steps", rng.choice(["output", "weights"] + ([] if valid else ["nope", "", ",", "dQ,dS", "a\x1bb"]))]
    if command == "derive" and rng.random() < 0.3:
        flags.append(rng.choice(["--json", "--exact"]))
    if command == "check" and rng.random() < 0.3:
        flags.append(rng.choice(["--json", "--inputs-rounded", "--no-diagnosis"]))
    if command == "check" and rng.random() < 0.2:
        flags += ["--format", rng.choice(["markdown", "text", "json"])]
    if command == "check" and "--no-diagnosis" not in flags and rng.random() < 0.6:
        flags.append("--no-diagnosis")
    if command == "latex" and rng.random() < 0.3:
        flags.append(rng.choice(["--body-only", "--exact"]))
    if command == "latex" and rng.random() < 0.2:
        flags += ["--format", "markdown"]
    if command == "latex" and rng.random() < 0.1:
        flags += [rng.choice(["--max-rows", "--max-cols"]), rng.choice(["2", "3", "x", "100"])]
    if command == "grad" and rng.random() < 0.4:
        flags.append(rng.choice(["--json", "--latex", "--exact"]))
    if command == "grad" and rng.random() < 0.3:
        flags += ["--wrt", rng.choice(["tau", "V"] + ([] if valid else ["Q,K,V", "Wq", "nope", "X", "B"]))]
    if command == "grad" and rng.random() < 0.1:
        flags += ["--verify", "numeric"]
    return flags


def output_flag(rng: random.Random) -> list[str]:
    return ["-o", rng.choice(["out.txt", "sub/out.txt", ".", "a" * 250, "b" * 260, "out\nx.txt", "-", "dir/",
                              "link.txt", "/dev/null", "/dev/full", "missing/dir/out.txt"])]


def make_case(rng: random.Random) -> Case:
    kind = rng.choices(["valid", "mutated", "adversarial", "claims", "formula", "flags", "output"],
                       weights=[22, 22, 22, 12, 10, 6, 6])[0]
    if kind == "formula":
        if rng.random() < 0.3:
            f = rng.choice(FORMULAS)
        else:
            f = "".join(rng.choice(FORMULA_TOKENS) for _ in range(rng.randint(1, 80)))
        return Case(kind, ["parse-formula", f] + (["--json"] if rng.random() < 0.3 else []))
    command = rng.choice(["derive", "check", "latex", "grad"]) if kind != "claims" else "check"
    text, n, m, dv = valid_spec(rng)
    files: dict[str, str] = {}
    if kind == "mutated":
        text = mutate(rng, text + (claims_for(rng, n, m) if rng.random() < 0.4 else ""))
    elif kind == "adversarial":
        text = adversarial(rng)
    elif kind == "claims" or command == "check" or (command == "latex" and rng.random() < 0.5):
        text = text + claims_for(rng, n, m, hostile=kind != "valid") if dv != -1 or kind != "valid" else text
    if kind == "valid" and command == "check" and dv == -1:
        command = "derive"
    files["page.toml"] = text
    argv = [command, "page.toml"] + random_flags(rng, command, n, kind == "valid")
    if command == "grad" and rng.random() < 0.3:
        which = rng.choice(["--target", "--upstream"])
        good = f"T = {matrix(rng, n, dv)}" if dv > 0 else "T = [[1]]"
        files["given.toml"] = good if kind == "valid" else rng.choice(
            [good, "T = [[1]]", "\xff\xfeT = [[1]]", "a = 1\nb = 2", f"T = [[{toml_str(rng.choice(HOSTILE_TEXT))}]]", ""])
        argv += [which, "given.toml"]
    if kind in ("output", "flags") or rng.random() < 0.1:
        argv += output_flag(rng)
    return Case(kind, argv, files)


# ---------------------------------------------------------------------------------------------
# running


@dataclass
class Result:
    case: Case
    outcome: str
    rc: int | None
    wall: float
    rss_mib: float
    stderr: str


def _child(case: Case, folder: str, mem_limit: int) -> None:  # runs in the forked process
    try:
        os.chdir(folder)
        fd_in = os.open(os.devnull, os.O_RDONLY)
        fd_out = os.open("stdout.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        fd_err = os.open("stderr.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd_in, 0)
        os.dup2(fd_out, 1)
        os.dup2(fd_err, 2)
        # Python-level streams on the new descriptors (a parent such as pytest may have replaced them)
        sys.stdin = open(0, encoding="utf-8", closefd=False)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)
        resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        from symattn.cli import main

        rc = main(case.argv)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc if isinstance(rc, int) else 0)
    except SystemExit as e:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(e.code if isinstance(e.code, int) else 2)
    except BaseException:
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
        os._exit(99)


def _prepare(case: Case, root: str, index: int) -> str:
    folder = os.path.join(root, f"c{index}")
    os.makedirs(folder)
    for name, text in case.files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(text)
    os.makedirs(os.path.join(folder, "dir"))
    with open(os.path.join(folder, "real.txt"), "w") as f:
        f.write("x")
    os.symlink("real.txt", os.path.join(folder, "link.txt"))
    return folder


def classify(rc: int | None, wall: float, rss_mib: float, err: str, slow: float, memory: float) -> str:
    if rc is None or wall > slow:
        return "hang"
    if rss_mib > memory or "MemoryError" in err:
        return "memory"
    if "Traceback" in err or rc in (70, 99) or rc not in (0, 1, 2):
        return "traceback"
    if rc == 2:
        lines = err.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        raw = any(ch in err.rstrip("\n") for ch in "\x1b\u202e\r\x00") or "\n" in err.rstrip("\n")
        return "clean error" if len(lines) == 1 and not raw else "not-one-line"
    return "ok"


def generate(n: int = 5000, seed: int = 0, commands: list[str] | None = None) -> list[Case]:
    """The campaign's inputs: the same ``n`` for a seed, then (optionally) only those of some commands."""
    rng = random.Random(seed)
    cases = [make_case(rng) for _ in range(n)]
    return [c for c in cases if commands is None or c.command in commands]


def run_campaign(n: int = 5000, seed: int = 0, jobs: int = 2, timeout: float = 10.0, slow: float = 5.0,
                 memory: float = 1024.0, mem_limit_mib: int = 3072, progress: bool = False,
                 cases: list[Case] | None = None) -> list[Result]:
    if cases is None:
        cases = generate(n, seed)
    n = len(cases)
    import symattn.cli  # noqa: F401  (imported once, before forking)
    from symattn.pipeline import forward  # noqa: F401
    from symattn.analyses import check  # noqa: F401

    root = tempfile.mkdtemp(prefix="symattn-fuzz-")
    results: list[Result] = []
    running: dict[int, tuple[int, float, str]] = {}
    pending = list(enumerate(cases))
    pending.reverse()
    try:
        while pending or running:
            while pending and len(running) < jobs:
                i, case = pending.pop()
                folder = _prepare(case, root, i)
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    _child(case, folder, mem_limit_mib * 2**20)
                running[pid] = (i, time.perf_counter(), folder)
            pid, status, ru = os.wait4(-1, os.WNOHANG)
            if pid == 0:
                now = time.perf_counter()
                for p, (i, start, _) in list(running.items()):
                    if now - start > timeout:
                        os.kill(p, signal.SIGKILL)
                time.sleep(0.002)
                continue
            i, start, folder = running.pop(pid)
            wall = time.perf_counter() - start
            killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL and wall >= timeout
            rc = None if killed else (os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
            try:
                with open(os.path.join(folder, "stderr.txt"), encoding="utf-8", errors="replace") as f:
                    err = f.read()
            except OSError:
                err = ""
            rss = ru.ru_maxrss / 1024
            results.append(Result(cases[i], classify(rc, wall, rss, err, slow, memory), rc, wall, rss, err))
            shutil.rmtree(folder, ignore_errors=True)
            if progress and len(results) % 250 == 0:
                print(f"  {len(results)}/{n} …", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return results


def table(results: list[Result]) -> str:
    counts: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        counts[r.case.command][r.outcome] += 1
    width = 15
    lines = ["command".ljust(width) + "".join(c.rjust(14) for c in CLASSES) + "total".rjust(8)]
    total: Counter = Counter()
    for cmd in COMMANDS:
        c = counts.get(cmd, Counter())
        total.update(c)
        lines.append(cmd.ljust(width) + "".join(str(c[k]).rjust(14) for k in CLASSES) + str(sum(c.values())).rjust(8))
    lines.append("all".ljust(width) + "".join(str(total[k]).rjust(14) for k in CLASSES) + str(sum(total.values())).rjust(8))
    walls = sorted(r.wall for r in results)
    rss = max((r.rss_mib for r in results), default=0)
    kinds = Counter(r.case.kind for r in results)
    if walls:
        lines.append(f"wall time per run: median {walls[len(walls) // 2]:.2f} s, 99th percentile "
                     f"{walls[int(len(walls) * 0.99)]:.2f} s, max {walls[-1]:.2f} s; peak memory {rss:.0f} MiB")
    lines.append("inputs by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=5000, help="inputs to generate (default 5000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    p.add_argument("--timeout", type=float, default=10.0, help="kill a run after this many seconds (default 10)")
    p.add_argument("--slow", type=float, default=5.0, help="a run slower than this is a hang (default 5)")
    p.add_argument("--memory", type=float, default=1024.0, help="peak MiB above which a run is 'memory' (1024)")
    p.add_argument("--show", type=int, default=3, help="failing inputs to print per outcome (default 3)")
    p.add_argument("--commands", help="run only these commands' inputs of the campaign (comma-separated)")
    p.add_argument("--save", metavar="FILE", help="write the failing inputs to FILE (JSON) to --replay them")
    p.add_argument("--replay", metavar="FILE", help="run the inputs saved in FILE instead of generating")
    args = p.parse_args(argv)
    commands = args.commands.split(",") if args.commands else None
    if args.replay:
        with open(args.replay, encoding="utf-8") as f:
            cases = [Case(c["kind"], c["argv"], c["files"]) for c in json.load(f)]
        cases = [c for c in cases if commands is None or c.command in commands]
    else:
        cases = generate(args.n, args.seed, commands)
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    results = run_campaign(jobs=args.jobs, timeout=args.timeout, slow=args.slow, memory=args.memory, progress=True,
                           cases=cases)
    elapsed = time.perf_counter() - t0
    load1 = os.getloadavg()
    print(table(results))
    print(f"{len(results)} runs in {elapsed:.0f} s with {args.jobs} at a time on {os.cpu_count()} cores; "
          f"load average {load0[0]:.1f} before, {load1[0]:.1f} after (other work on the machine slows runs)")
    bad = [r for r in results if r.outcome not in ("ok", "clean error")]
    if args.save:
        with open(args.save, "w", encoding="utf-8") as f:
            json.dump([{"kind": r.case.kind, "argv": r.case.argv, "files": r.case.files, "outcome": r.outcome,
                        "wall": round(r.wall, 2), "stderr": r.stderr[-2000:]} for r in bad], f, indent=1)
    shown: Counter = Counter()
    for r in bad:
        if shown[r.outcome] < args.show:
            shown[r.outcome] += 1
            print(f"\n[{r.outcome}] {r.case.kind} rc={r.rc} {r.wall:.1f}s {r.rss_mib:.0f}MiB argv={r.case.argv!r}")
            for name, text in r.case.files.items():
                print(f"  {name}: {text[:400]!r}")
            print("  stderr: " + r.stderr.strip()[-600:].replace("\n", "\n          "))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
