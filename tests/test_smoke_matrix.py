"""The smoke matrix: every built-in example through every command and output format, in-process.
Each exits 0 (check: 0, or 1 when the example's claims hold wrong numbers, as the seeds' do), with
nothing on stderr, and its output is what the format promises (JSON parses, LaTeX is a document)."""

from __future__ import annotations

import json

import pytest

from symattn.cli import main
from symattn.read.spec import list_examples

EXAMPLES = [name for name, _ in list_examples()]
COMMANDS = {
    "derive": ["derive"],
    "derive --json": ["derive", "--json"],
    "check": ["check"],
    "latex": ["latex"],
    "grad": ["grad"],
    "grad --latex": ["grad", "--latex"],
    "grad --json": ["grad", "--json"],
}


def _has_claims(name: str) -> bool:
    import symattn as sa

    return bool(sa.load(name).claims)


CASES = [(example, command) for example in EXAMPLES for command in COMMANDS]


@pytest.mark.parametrize("example,command", CASES)
def test_every_example_through_every_command(capsys, example, command):
    argv = COMMANDS[command] + [example]
    if command == "check" and not _has_claims(example):
        rc = main(argv)
        _, err = capsys.readouterr()
        assert rc == 2 and "no [claims] to check" in err and err.count("\n") == 1
        return
    rc = main(argv)
    out, err = capsys.readouterr()
    allowed = (0, 1) if command == "check" else (0,)
    assert rc in allowed, err
    assert err == ""
    if command.endswith("--json"):
        data = json.loads(out)
        assert data["steps"]
    elif "latex" in command:
        assert out.startswith("\\documentclass") and out.rstrip().endswith("\\end{document}")
    else:
        assert out.strip()
