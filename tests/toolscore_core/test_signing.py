"""Signed receipts: DSSE over an in-toto Statement v1, Ed25519; every changed byte fails and
says where."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import example_folder, flip_byte, read_json, write_json
from toolscore_core.errors import InputError
from toolscore_core.evaluation import evaluate_files
from toolscore_core.receipts import seal, write_evaluation_receipt
from toolscore_core.signing import (
    PAYLOAD_TYPE,
    PREDICATE_TYPE,
    check_signature,
    envelope_path,
    generate_key_pair,
    load_public_key,
    pae,
    sign_receipt,
)
from toolscore_core.verify import verify_receipt


def test_pae_is_the_dsse_test_vector() -> None:
    """The example of DSSE's protocol.md, byte for byte."""
    assert pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world")


@pytest.fixture
def signed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Any]:
    """A receipt of the example, signed; (receipt path, envelope path, public key)."""
    folder = example_folder(tmp_path)
    monkeypatch.chdir(folder)
    private, public = generate_key_pair(tmp_path / "keys" / "signer")
    evaluation = evaluate_files("gold.json", "trace.json", forbidden_path="forbidden.json")
    receipt = write_evaluation_receipt("run.receipt.json", evaluation, gold="gold.json",
                                       trace="trace.json", forbidden="forbidden.json")
    envelope = sign_receipt(receipt, private, "run.receipt.json")
    return Path("run.receipt.json"), envelope, load_public_key(public)


def _problems(receipt: Path, key: Any) -> tuple[str, ...]:
    return check_signature(read_json(receipt), receipt, key).problems


def test_keygen_writes_a_private_key_only_its_owner_reads(tmp_path: Path) -> None:
    private, public = generate_key_pair(tmp_path / "signer")
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert public.name == "signer.pub"
    assert private.read_text().startswith("-----BEGIN PRIVATE KEY-----")
    assert public.read_text().startswith("-----BEGIN PUBLIC KEY-----")
    with pytest.raises(InputError, match="a file is already there"):
        generate_key_pair(tmp_path / "signer")


def test_the_envelope_holds_an_in_toto_statement_of_the_receipt(
        signed: tuple[Path, Path, Any]) -> None:
    receipt_path, envelope, key = signed
    assert envelope.name == "run.receipt.dsse.json"
    data = read_json(envelope)
    assert data["payloadType"] == PAYLOAD_TYPE
    statement = json.loads(base64.b64decode(data["payload"]))
    receipt = read_json(receipt_path)
    assert statement == {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": name, "digest": {"sha256": receipt["inputs"][role]["sha256"]}}
                    for role, name in (("gold", "gold.json"), ("trace", "trace.json"),
                                       ("forbidden", "forbidden.json"))],
        "predicateType": PREDICATE_TYPE, "predicate": receipt}
    key.verify(base64.b64decode(data["signatures"][0]["sig"]),
               pae(PAYLOAD_TYPE, base64.b64decode(data["payload"])))
    assert _problems(receipt_path, key) == ()


def test_another_key_does_not_verify(signed: tuple[Path, Path, Any]) -> None:
    receipt_path, _, _ = signed
    other = Ed25519PrivateKey.generate().public_key()
    assert _problems(receipt_path, other) == (
        "signature: run.receipt.dsse.json: no signature verifies with this key over its "
        "payload (the envelope was changed, or signed with another key)",)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_changed_byte_of_the_envelope_fails(signed: tuple[Path, Path, Any],
                                                data: st.DataObject) -> None:
    receipt_path, envelope, key = signed
    original = envelope.read_bytes()
    at = data.draw(st.integers(0, len(original) - 1), label="byte")
    new = data.draw(st.integers(0, 255).filter(lambda b: b != original[at]), label="value")
    try:
        envelope.write_bytes(original[:at] + bytes([new]) + original[at + 1:])
        problems = _problems(receipt_path, key)
    finally:
        envelope.write_bytes(original)
    # a byte JSON does not read (whitespace between tokens) changes nothing signed, nor
    # does one that only drops the unsigned key-id hint (DSSE leaves it unauthenticated)
    if problems == ():
        before, after = json.loads(original), json.loads(
            original[:at] + bytes([new]) + original[at + 1:])
        assert _signed(before) == _signed(after)
    else:
        assert all(p.startswith("signature: ") for p in problems)



def _signed(envelope: Any) -> tuple[Any, Any, list[Any]]:
    """What a DSSE signature covers or carries: the payload, its type and each signature."""
    return (envelope["payload"], envelope["payloadType"],
            [entry.get("sig") for entry in envelope["signatures"]])


def test_a_statement_changed_and_re_encoded_fails(signed: tuple[Path, Path, Any]) -> None:
    receipt_path, envelope, key = signed
    data = read_json(envelope)
    statement = json.loads(base64.b64decode(data["payload"]))
    statement["predicate"]["result"]["score"] = 0.95
    data["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
    write_json(envelope, data, indent=2)
    assert "no signature verifies with this key" in _problems(receipt_path, key)[0]


def test_a_receipt_edited_and_resealed_names_each_field(
        signed: tuple[Path, Path, Any]) -> None:
    receipt_path, _, key = signed
    receipt = read_json(receipt_path)
    score = receipt["result"]["score"]
    receipt["result"].update(score=0.95, grade="A")
    receipt["created_at"] = "2020-01-01T00:00:00Z"
    write_json(receipt_path, seal(receipt), indent=2)
    problems = _problems(receipt_path, key)
    assert f"signature: the signed receipt differs: result.score: receipt 0.95, signed {score}" \
        in problems
    assert any(p.startswith("signature: the signed receipt differs: created_at: receipt "
                            '"2020-01-01T00:00:00Z"') for p in problems)
    assert any("receipt_sha256" in p for p in problems)


def test_a_changed_input_fails_verify_with_its_name(signed: tuple[Path, Path, Any]) -> None:
    receipt_path, _, key = signed
    flip_byte(receipt_path.parent / "trace.json")
    result = verify_receipt(receipt_path)
    assert [p.subject for p in result.problems] == ["trace"]
    assert _problems(receipt_path, key) == ()  # the signature still binds the recorded hash


def test_a_missing_envelope_is_one_line(signed: tuple[Path, Path, Any]) -> None:
    receipt_path, envelope, key = signed
    envelope.unlink()
    (problem,) = _problems(receipt_path, key)
    assert problem == ("signature: run.receipt.dsse.json: signature envelope not found; "
                       "check the path")


def test_url_safe_base64_is_accepted(signed: tuple[Path, Path, Any]) -> None:
    """DSSE verifiers must accept either alphabet."""
    receipt_path, envelope, key = signed
    data = read_json(envelope)
    for field in ("payload",):
        data[field] = base64.urlsafe_b64encode(base64.b64decode(data[field])).decode()
    data["signatures"][0]["sig"] = base64.urlsafe_b64encode(
        base64.b64decode(data["signatures"][0]["sig"])).decode()
    write_json(envelope, data, indent=2)
    assert _problems(receipt_path, key) == ()


def test_envelope_path() -> None:
    assert envelope_path("out/run.receipt.json") == Path("out/run.receipt.dsse.json")


def test_a_changed_key_hint_fails(signed: tuple[Path, Path, Any]) -> None:
    """The keyid only narrows the keys tried: one naming another key leaves none to try."""
    receipt_path, envelope, key = signed
    data = read_json(envelope)
    data["signatures"][0]["keyid"] = "0" * 64
    write_json(envelope, data, indent=2)
    assert "no signature verifies with this key" in _problems(receipt_path, key)[0]
