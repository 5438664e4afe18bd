"""Signed receipts: a DSSE envelope holding an in-toto Statement v1 whose subjects are the
evaluation's input files and whose predicate is the receipt, signed with Ed25519.

``cryptography`` is imported only here, and only when a key is made, used or checked.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from attrs import frozen

from toolscore_core.atomic import atomic_writer, write_text_atomic
from toolscore_core.canonical import canonical_json, sha256_hex
from toolscore_core.documents import parse_json, read_bytes
from toolscore_core.errors import InputError
from toolscore_core.inputs import read_input
from toolscore_core.receipts import INPUT_ROLES

PAYLOAD_TYPE = "application/vnd.in-toto+json"
"""The DSSE payload type of an in-toto Statement."""
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://toolscore.dev/attestation/evaluation/v1"
"""toolscore's predicate type: the predicate is a version-1 receipt, whole."""
ENVELOPE_SUFFIX = ".dsse.json"
"""``run.receipt.json`` is signed in ``run.receipt.dsse.json``."""
_KEY_READ_LIMIT = 64 << 10
"""Key files are a few hundred bytes; nothing larger is read as one."""


def envelope_path(receipt_path: str | os.PathLike[str]) -> Path:
    """Where the envelope of the receipt at ``receipt_path`` is written: beside it, its name
    ending ``.dsse.json`` instead of ``.json``."""
    path = Path(receipt_path)
    return path.with_name(path.name.removesuffix(".json") + ENVELOPE_SUFFIX)


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSE's pre-authentication encoding: ``DSSEv1 SP LEN(type) SP type SP LEN(body) SP
    body``, lengths in ASCII decimal (what is signed, never the envelope's JSON)."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(body), body)


def statement(receipt: Mapping[str, Any]) -> dict[str, Any]:
    """The in-toto Statement v1 of a receipt: a subject per bound input (its path as in the
    receipt, its SHA-256), the receipt as the predicate."""
    subjects = [{"name": entry["path"], "digest": {"sha256": entry["sha256"]}}
                for role in INPUT_ROLES
                if (entry := receipt["inputs"].get(role)) is not None]
    return {"_type": STATEMENT_TYPE, "subject": subjects, "predicateType": PREDICATE_TYPE,
            "predicate": dict(receipt)}


def key_id(public_raw: bytes) -> str:
    """The envelope's key hint: SHA-256 of the raw 32-byte Ed25519 public key, in hex (a
    hint to pick a key; never trusted by verification)."""
    return sha256_hex(public_raw)


def sign_receipt(receipt: Mapping[str, Any], key_file: str | os.PathLike[str],
                 receipt_path: str | os.PathLike[str]) -> Path:
    """Sign ``receipt`` with the private key in ``key_file``; write the envelope beside
    ``receipt_path``; return where."""
    from cryptography.hazmat.primitives import serialization

    private = load_private_key(key_file)
    body = canonical_json(statement(receipt)).encode("utf-8")
    public_raw = private.public_key().public_bytes(serialization.Encoding.Raw,
                                                   serialization.PublicFormat.Raw)
    envelope = {"payloadType": PAYLOAD_TYPE,
                "payload": base64.b64encode(body).decode("ascii"),
                "signatures": [{"keyid": key_id(public_raw),
                                "sig": base64.b64encode(
                                    private.sign(pae(PAYLOAD_TYPE, body))).decode("ascii")}]}
    target = envelope_path(receipt_path)
    write_text_atomic(target, json.dumps(envelope, indent=2) + "\n")
    return target


def generate_key_pair(private_path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """A new Ed25519 key pair: the private key (PKCS#8 PEM, mode 0600) at ``private_path``,
    the public key (SubjectPublicKeyInfo PEM) beside it, its name ending ``.pub``. An
    existing file at either path is refused, never replaced."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    private_file = Path(private_path)
    public_file = private_file.with_name(private_file.name + ".pub")
    for path in (private_file, public_file):
        if os.path.lexists(path):
            raise InputError("a file is already there", file=str(path),
                             fix="choose another path, or remove the old key first")
    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(serialization.Encoding.PEM,
                                    serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
    public_pem = key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
    with atomic_writer(private_file, mode="wb", permissions=0o600) as handle:
        handle.write(private_pem)
    with atomic_writer(public_file, mode="wb") as handle:
        handle.write(public_pem)
    return private_file, public_file


def load_private_key(path: str | os.PathLike[str]) -> Any:
    """The Ed25519 private key in a PEM file, or an InputError naming it."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return _load_key(path, "private key", Ed25519PrivateKey,
                     lambda data: serialization.load_pem_private_key(data, password=None),
                     "give the key `toolscore keygen` wrote")


def load_public_key(path: str | os.PathLike[str]) -> Any:
    """The Ed25519 public key in a PEM file, or an InputError naming it."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    return _load_key(path, "public key", Ed25519PublicKey, serialization.load_pem_public_key,
                     "give the .pub file `toolscore keygen` wrote")


def _load_key(path: str | os.PathLike[str], what: str, kind: type,
              load: Callable[[bytes], Any], fix: str) -> Any:
    """The key of type ``kind`` that ``load`` reads from the PEM file, or an InputError."""
    data = _key_bytes(path, what)
    try:
        key = load(data)
    except (ValueError, TypeError) as exc:
        pem = "an unencrypted PEM private key" if what == "private key" else "a PEM public key"
        raise InputError(f"not {pem} ({exc})", file=str(path), fix=fix) from None
    if not isinstance(key, kind):
        raise InputError(f"not an Ed25519 {what}", file=str(path), fix=fix)
    return key


def _key_bytes(path: str | os.PathLike[str], what: str) -> bytes:
    data = read_input(path, what=what, limit=_KEY_READ_LIMIT)
    if len(data) > _KEY_READ_LIMIT:
        raise InputError(f"larger than any {what}", file=str(path),
                         fix="give the key file `toolscore keygen` wrote")
    return data


@frozen
class SignatureCheck:
    """A receipt's envelope checked against a public key, the receipt and its inputs."""

    envelope: Path
    """Where the envelope was looked for."""
    problems: tuple[str, ...]
    """Each thing that does not hold, as one line; empty when the signature verifies and
    the statement is the receipt's."""

    @property
    def ok(self) -> bool:
        return not self.problems


def check_signature(receipt: Mapping[str, Any], receipt_path: str | os.PathLike[str],
                    public_key: Any) -> SignatureCheck:
    """Verify the envelope beside ``receipt_path`` with ``public_key``: its signature over
    the PAE of its payload, then the statement it signs against ``receipt`` (its
    predicate, field by field) and the receipt's inputs (its subjects, by path and digest).
    The files themselves are compared with the receipt by ``verify``'s input check."""
    from cryptography.exceptions import InvalidSignature

    where = envelope_path(receipt_path)
    try:
        envelope = parse_json(read_bytes(where, what="signature envelope"), file=str(where))
    except InputError as exc:
        return SignatureCheck(where, (f"signature: {exc.one_line()}",))
    try:
        body, payload_type, signatures = _decoded(envelope)
    except ValueError as exc:
        return SignatureCheck(where, (f"signature: {where}: {exc}",))
    from cryptography.hazmat.primitives import serialization

    ours = key_id(public_key.public_bytes(serialization.Encoding.Raw,
                                          serialization.PublicFormat.Raw))
    verified = False
    for keyid, sig in signatures:
        if keyid and keyid != ours:  # the hint narrows the keys tried, never widens them
            continue
        try:
            public_key.verify(sig, pae(payload_type, body))
            verified = True
            break
        except InvalidSignature:
            continue
    if not verified:
        return SignatureCheck(where, (
            f"signature: {where}: no signature verifies with this key over its payload "
            "(the envelope was changed, or signed with another key)",))
    if payload_type != PAYLOAD_TYPE:
        return SignatureCheck(where, (f"signature: payloadType {payload_type!r}, expected "
                                      f"{PAYLOAD_TYPE!r}",))
    try:
        signed = json.loads(body)
    except ValueError:
        return SignatureCheck(where, ("signature: the signed payload is not JSON",))
    return SignatureCheck(where, tuple(_statement_problems(signed, receipt)))


def _decoded(envelope: Any) -> tuple[bytes, str, list[tuple[str, bytes]]]:
    if not isinstance(envelope, Mapping):
        raise ValueError("not a DSSE envelope (an object with payload, payloadType, "
                         "signatures)")
    payload, payload_type = envelope.get("payload"), envelope.get("payloadType")
    signatures = envelope.get("signatures")
    if not isinstance(payload, str) or not isinstance(payload_type, str) or not isinstance(
            signatures, list) or not signatures:
        raise ValueError("not a DSSE envelope (payload, payloadType and signatures are "
                         "required)")
    sigs = []
    for entry in signatures:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("sig"), str):
            raise ValueError("a signature without its \"sig\"")
        keyid = entry.get("keyid")
        sigs.append((keyid if isinstance(keyid, str) else "",
                     _base64(entry["sig"], "a signature")))
    return _base64(payload, "the payload"), payload_type, sigs


def _base64(text: str, what: str) -> bytes:
    """Standard or URL-safe base64, as DSSE verifiers must accept."""
    try:
        alphabet = b"-_" if ("-" in text or "_" in text) else None
        return base64.b64decode(text.encode("ascii"), altchars=alphabet, validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ValueError(f"{what} is not base64") from None


def _statement_problems(signed: Any, receipt: Mapping[str, Any]) -> list[str]:
    from toolscore_core.verify import derived_differences, shown

    if not isinstance(signed, Mapping):
        return ["signature: the signed statement is not an object"]
    problems = []
    for key, wanted in (("_type", STATEMENT_TYPE), ("predicateType", PREDICATE_TYPE)):
        if signed.get(key) != wanted:
            problems.append(f"signature: statement {key} {signed.get(key)!r}, expected "
                            f"{wanted!r}")
    predicate = signed.get("predicate")
    if not isinstance(predicate, Mapping):
        return [*problems, "signature: the statement holds no receipt as its predicate"]
    for diff in derived_differences(receipt, predicate, everything=True):
        problems.append(f"signature: the signed receipt differs: {diff.field}: receipt "
                        f"{shown(diff.receipt)}, signed {shown(diff.recomputed)}")
    wanted_subjects = statement(receipt)["subject"]
    got = signed.get("subject")
    if got != wanted_subjects:
        named = {s["name"]: s["digest"]["sha256"] for s in wanted_subjects}
        signed_named = {s.get("name"): (s.get("digest") or {}).get("sha256")
                        for s in got if isinstance(s, Mapping)} if isinstance(got, list) else {}
        for name in sorted(named.keys() | signed_named.keys(), key=str):
            if named.get(name) != signed_named.get(name):
                problems.append(f"signature: subject {name}: receipt "
                                f"{named.get(name) or '(absent)'}, signed "
                                f"{signed_named.get(name) or '(absent)'}")
        if not problems:
            problems.append("signature: the statement's subjects are not the receipt's inputs")
    return problems

