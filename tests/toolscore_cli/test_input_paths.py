"""Every input of every command as a device, a FIFO, a socket, a symlink loop or a path with
a NUL byte: one ``error:`` line and exit 2, under a time limit (a blocked read fails the
test rather than hanging it); a receipt's inputs outside its folder are named, not read."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import example_folder, read_json, write_json
from tests.toolscore_cli.test_regrade import run
from tests.toolscore_core.test_inputs import within_limit
from toolscore_core.receipts import seal

COMMANDS = {
    "eval trace": ["eval", "gold.json", "{bad}"],
    "eval gold": ["eval", "{bad}", "trace.json"],
    "eval --forbidden": ["eval", "gold.json", "trace.json", "--forbidden", "{bad}"],
    "eval --config": ["eval", "gold.json", "trace.json", "--config", "{bad}"],
    "eval --honesty-config": ["eval", "gold.json", "trace.json", "--honesty-config", "{bad}"],
    "eval --injected": ["eval", "gold.json", "trace.json", "--injected", "{bad}"],
    "eval --final-answer": ["eval", "gold.json", "trace.json", "--final-answer", "@{bad}"],
    "eval --judgments": ["eval", "gold.json", "trace.json", "--judge", "m", "--judgments",
                         "{bad}"],
    "verify": ["verify", "{bad}"],
    "regrade source": ["regrade", "{bad}", "--gold", "gold.json"],
    "regrade runs file": ["regrade", "{bad}.jsonl", "--gold", "gold.json"],
    "regrade --gold": ["regrade", "trace.json", "--gold", "{bad}"],
    "summary": ["summary", "{bad}"],
    "agent run --spec": ["agent", "run", "--spec", "{bad}", "--agent", "true", "-o", "r.jsonl"],
}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = example_folder(tmp_path)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("TOOLSCORE_JUDGE_API_KEY", "not-used: nothing is asked")
    os.mkfifo(folder / "pipe")
    os.mkfifo(folder / "pipe.jsonl")
    (folder / "loop").symlink_to(folder / "loop")
    (folder / "loop.jsonl").symlink_to(folder / "loop.jsonl")
    (folder / "zero.jsonl").symlink_to("/dev/zero")
    server = socket.socket(socket.AF_UNIX)
    server.bind("sock")
    yield folder
    server.close()


BAD = {"device": "/dev/zero", "fifo": "pipe", "socket": "sock", "loop": "loop",
       "nul": "a\x00b"}
SAID = {"device": "is a device", "fifo": "is a FIFO", "socket": "is a socket",
        "loop": "a loop of symbolic links", "nul": "holds a NUL byte"}


RUNS_FILE = {"device": "zero", "fifo": "pipe", "loop": "loop"}
"""For a ``.jsonl`` source (told apart by its name and first line): the name's stem."""


@pytest.mark.parametrize(("command", "kind"), [
    (command, kind) for command in sorted(COMMANDS) for kind in sorted(BAD)
    if command != "regrade runs file" or kind in RUNS_FILE])
def test_every_input_refuses_what_is_not_a_regular_file(
        folder: Path, capsys: pytest.CaptureFixture[str], command: str, kind: str) -> None:
    bad = RUNS_FILE[kind] if command == "regrade runs file" else BAD[kind]
    args = [a.replace("{bad}", bad) for a in COMMANDS[command]]
    code, out, err = within_limit(lambda: run(args, capsys))
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert SAID[kind] in lines[0] or (kind == "nul" and "\\x00" in lines[0]), lines[0]
    assert "Traceback" not in err


def _receipt_naming(folder: Path, capsys: pytest.CaptureFixture[str], trace: str) -> Path:
    code, _, err = run(["eval", "gold.json", "trace.json", "--receipt", "run.receipt.json"],
                       capsys)
    assert code == 0, err
    receipt = read_json(folder / "run.receipt.json")
    receipt["inputs"]["trace"].update(path=trace, size=1)
    write_json(folder / "run.receipt.json", seal(receipt))
    return folder / "run.receipt.json"


@pytest.mark.parametrize("trace", ["/dev/zero", "/dev/urandom", "/etc/passwd", "../../x"])
def test_a_receipt_naming_inputs_outside_its_folder_reads_none(
        folder: Path, capsys: pytest.CaptureFixture[str], trace: str) -> None:
    _receipt_naming(folder, capsys, trace)
    for args in (["verify", "run.receipt.json", "--recompute"],
                 ["regrade", "run.receipt.json"],
                 ["regrade", "run.receipt.json", "--no-verify"]):
        code, out, err = within_limit(lambda args=args: run(args, capsys))
        assert code == 1, (out, err)
        assert (f"run.receipt.json: input trace ({trace}): outside the receipt's folder, "
                "not read (--inputs-anywhere reads it") in out + err


@pytest.mark.parametrize(("trace", "said"), [("/dev/zero", "is a device"),
                                             ("pipe", "is a FIFO (named pipe)")])
def test_inputs_anywhere_still_reads_regular_files_only(
        folder: Path, capsys: pytest.CaptureFixture[str], trace: str, said: str) -> None:
    _receipt_naming(folder, capsys, trace)
    for args in (["verify", "run.receipt.json", "--inputs-anywhere", "--recompute"],
                 ["regrade", "run.receipt.json", "--inputs-anywhere", "--no-verify"]):
        code, out, err = within_limit(lambda args=args: run(args, capsys))
        assert code == 1, (out, err)
        assert f"run.receipt.json: input trace ({trace}): the input file {said}" in out + err


def test_a_receipt_from_elsewhere_verifies_with_inputs_anywhere(
        folder: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(["eval", "gold.json", "trace.json", "--receipt",
                        str(tmp_path / "elsewhere" / "run.receipt.json")], capsys)
    assert code == 0, err
    code, out, _ = run(["verify", str(tmp_path / "elsewhere" / "run.receipt.json")], capsys)
    assert code == 1 and "outside the receipt's folder" in out
    code, out, _ = run(["verify", str(tmp_path / "elsewhere" / "run.receipt.json"),
                        "--inputs-anywhere"], capsys)
    assert code == 0, out


@pytest.mark.parametrize(("trace", "flags", "said"), [
    ("loop", [], "input trace (loop): the input file path is a loop of symbolic links"),
    ("a\x00b", [], "input trace (a\\x00b): outside the receipt's folder, not read"),
    ("a\x00b", ["--inputs-anywhere"], "input trace (a\\x00b): the input file path holds a "
     "NUL byte"),
])
def test_a_receipt_naming_a_loop_or_a_nul_byte_is_one_line(
        folder: Path, capsys: pytest.CaptureFixture[str], trace: str, flags: list[str],
        said: str) -> None:
    _receipt_naming(folder, capsys, trace)
    code, out, err = within_limit(
        lambda: run(["verify", "run.receipt.json", "--recompute", *flags], capsys))
    assert code == 1 and "Traceback" not in out + err
    assert f"run.receipt.json: {said}" in out, out

