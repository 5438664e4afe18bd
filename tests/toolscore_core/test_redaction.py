"""Credential detection and redaction: detect-secrets plus our detectors, no false alarms."""

from __future__ import annotations

import hashlib
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolscore_core.redaction import (
    find_credentials,
    find_in_value,
    find_secrets,
    mask,
    redact,
    redact_text,
    secret_key,
    suspicious,
)

AWS = "AKIAIOSFODNN7EXAMPLE"


@pytest.mark.parametrize(("text", "secret", "kind"), [
    (f"aws configure set key {AWS}.", AWS, "AWS Access Key"),
    ("token ghp_" + "a1B2" * 9 + " end", "ghp_" + "a1B2" * 9, "GitHub Token"),
    ("sk-proj-abcDEF1234567890abcdEFGH_ijkl-mnop", "sk-proj-abcDEF1234567890abcdEFGH_ijkl-mnop",
     "OpenAI API Key"),
    ("key=sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345-AA",
     "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345-AA", "Anthropic API Key"),
    ("https://deploy:s3cr3tpw@example.com/x", "s3cr3tpw", "Basic Auth Credentials"),
    ("mysql --password=hunter2 -u root", "hunter2", "Secret-named argument"),
    ("db password: Hunter2!x", "Hunter2!x", "Secret-named argument"),
    ('password = "hunter2secret"', "hunter2secret", "Secret Keyword"),
    ("curl -H 'Authorization: Bearer abcdef1234567890abcd'", "abcdef1234567890abcd",
     "Bearer token"),
    ("xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij", "Slack Token"),
])
def test_finds_each_credential_shape(text: str, secret: str, kind: str) -> None:
    findings = find_credentials(text)
    assert [f.secret for f in findings] == [secret]
    assert findings[0].kind == kind
    assert secret not in redact_text(text)


def test_private_key_block_is_redacted_whole() -> None:
    text = ("key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n"
            "-----END OPENSSH PRIVATE KEY-----\ndone")
    assert redact_text(text) == "key:\n----…--\ndone"


def test_mask_shows_first_four_and_last_two_or_nothing_for_short_secrets() -> None:
    assert mask(AWS) == "AKIA…LE"
    assert mask("hunter2") == "…"


@pytest.mark.parametrize("text", [
    "git checkout 3f786850e387550fdab836ed7e6dc881de23001b",
    "page_token=CAESBgoECAEQAQ", "order id ORD-2026-000123", "The key: main branch",
    "my password is hunter2", "flight UA123 from SFO on 2026-12-18",
    "38A3ACCA0123456789ABCDEF01234567",  # an upper-case hash holding an AWS-like prefix
    "Your reset token: expired", "password: required",
])
def test_ordinary_text_is_not_flagged(text: str) -> None:
    assert find_secrets(text) == []
    assert redact_text(text) == text


@settings(max_examples=150, deadline=None)
@given(data=st.binary(min_size=1, max_size=32), seed=st.integers(0, 2**128 - 1))
def test_hashes_and_uuids_beside_secret_words_are_not_flagged(data: bytes, seed: int) -> None:
    # "token" and "key" send the text through detect-secrets, not just the prefilter.
    digest = hashlib.sha256(data).hexdigest()
    text = (f"rotated api key; token digest {digest}, commit {hashlib.sha1(data).hexdigest()},"
            f" request {uuid.UUID(int=seed)}")
    assert suspicious(text)
    assert find_secrets(text) == []


def test_secret_named_keys() -> None:
    for key in ("password", "db_password", "X-Api-Key", "apiKey", "Authorization", "token",
                "client_secret", "GITHUB_TOKEN", "refresh_token", "cookie"):
        assert secret_key(key), key
    for key in ("password_hash", "max_tokens", "page_token", "token_count", "secret_name",
                "input_tokens", "key", "monkey", "author", "keyboard"):
        assert not secret_key(key), key


def test_redact_masks_secret_named_values_and_leaves_clean_values_alone() -> None:
    value = {"headers": {"Authorization": "Bearer abc.def.ghi.jkl", "Accept": "json"},
             "password_hash": "abc", "n": 3, "list": [{"token": "zz9988776655"}, AWS]}
    assert redact(value) == {"headers": {"Authorization": "Bear…kl", "Accept": "json"},
                             "password_hash": "abc", "n": 3,
                             "list": [{"token": "zz99…55"}, "AKIA…LE"]}
    clean = {"a": ["b", {"c": 1}]}
    assert redact(clean) is clean  # the prefilter found nothing: no copy, no walk


def test_find_in_value_reports_json_paths() -> None:
    found = find_in_value({"a": [{"b c": AWS}], "password": "long enough secret"})
    assert [(f.path, f.masked) for f in found] == [("$.a[0]['b c']", "AKIA…LE"),
                                                   ("$.password", "long…et")]
