"""``toolscore keygen``, ``--sign`` on eval and regrade, ``verify --key``, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import example_folder, read_json, write_json
from tests.toolscore_cli.test_regrade import run


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> Path:
    folder = example_folder(tmp_path)
    monkeypatch.chdir(folder)
    code, out, err = run(["keygen", "keys/signer"], capsys)
    assert code == 0, err
    assert out == ("private key: keys/signer (keep it secret; mode 0600)\n"
                   "public key: keys/signer.pub (give it to whoever verifies)\n")
    return folder


def test_eval_signs_and_verify_checks_the_signature(folder: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["eval", "gold.json", "trace.json", "--receipt", "run.receipt.json",
                        "--sign", "keys/signer"], capsys)
    assert code == 0, err
    assert (folder / "run.receipt.dsse.json").is_file()
    code, out, _ = run(["verify", "run.receipt.json", "--key", "keys/signer.pub"], capsys)
    assert code == 0, out
    assert out.splitlines() == [
        "run.receipt.json: ok (receipt and 2 input files match)",
        "run.receipt.json: signature: verified with keys/signer.pub (run.receipt.dsse.json)"]

    receipt = read_json(folder / "run.receipt.json")
    receipt["created_at"] = "2020-01-01T00:00:00Z"  # nothing derives it; the signature binds it
    from toolscore_core.receipts import seal

    write_json(folder / "run.receipt.json", seal(receipt), indent=2)
    code, out, _ = run(["verify", "run.receipt.json", "--key", "keys/signer.pub", "--json",
                        "-"], capsys)
    assert code == 1
    (entry,) = json.loads(out)["receipts"]
    assert entry["ok"] is True  # consistent, inputs match: only the signature tells
    assert entry["signature"][0].startswith(
        'signature: the signed receipt differs: created_at: receipt "2020-01-01T00:00:00Z"')


def test_regrade_signs_each_new_receipt(folder: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["eval", "gold.json", "trace.json", "--receipt", "run.receipt.json"],
                       capsys)
    assert code == 0, err
    code, _, err = run(["regrade", "run.receipt.json", "--gold", "contract.json",
                        "--receipt-dir", "v2", "--sign", "keys/signer"], capsys)
    assert code == 0, err
    code, out, _ = run(["verify", "v2/run.receipt.json", "--key", "keys/signer.pub"], capsys)
    assert code == 0, out
    assert "v2/run.receipt.json: signature: verified with keys/signer.pub" in out


@pytest.mark.parametrize(("args", "said"), [
    (["eval", "gold.json", "trace.json", "--sign", "keys/signer"],
     "error: --sign: --sign needs --receipt; add --receipt, or leave --sign out"),
    (["regrade", "trace.json", "--gold", "gold.json", "--sign", "keys/signer"],
     "error: --sign: --sign needs --receipt-dir; add --receipt-dir, or leave --sign out"),
    (["eval", "gold.json", "trace.json", "--receipt", "r.json", "--sign", "keys/signer.pub"],
     "error: keys/signer.pub: not an unencrypted PEM private key"),
    (["verify", "r.json", "--key", "keys/signer"], "error: keys/signer: not a PEM public key"),
    (["keygen", "keys/signer"], "error: keys/signer: a file is already there"),
])
def test_key_mistakes_are_one_line_before_any_work(folder: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   args: list[str], said: str) -> None:
    if args[0] == "verify":
        run(["eval", "gold.json", "trace.json", "--receipt", "r.json"], capsys)
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert err.startswith(said) and err.count("\n") == 1, err
    assert not Path("r.json").exists() or args[0] == "verify"
