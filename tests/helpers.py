"""Shared test helpers: a folder holding the receipts example, and byte flipping."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "contracts"


def example_folder(tmp_path: Path) -> Path:
    """A copy of ``examples/contracts`` (trace, gold, contract) plus extra input files."""
    folder = tmp_path / "evidence"
    folder.mkdir()
    for name in ("trace.json", "gold.json", "contract.json"):
        shutil.copy(EXAMPLE / name, folder / name)
    (folder / "forbidden.json").write_text(
        json.dumps([{"tool": "delete_user", "reason": "never delete accounts"}]) + "\n")
    (folder / "honesty.json").write_text("{}\n")  # every key has a default
    (folder / "injected.json").write_text(json.dumps(
        {"kind": "toolscore.injected", "version": "1", "faults": [], "injections": []}) + "\n")
    return folder


def flip_byte(path: Path, index: int | None = None) -> None:
    """Flip the lowest bit of one byte (the middle one by default)."""
    data = bytearray(path.read_bytes())
    at = len(data) // 2 if index is None else index
    data[at] ^= 0x01
    path.write_bytes(bytes(data))


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
