"""Credential detection and redaction: detect-secrets plus our detectors, no false alarms."""

from __future__ import annotations

import hashlib
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolscore_core.canonical import canonical_json
from toolscore_secrets.redaction import (
    find_credentials,
    find_secrets,
    mask,
    redact,
    redact_text,
    secret_key,
    suspicious,
    suspicious_json,
    suspicious_json_apart,
    suspicious_value,
    trivial_value,
)
from toolscore_secrets.scanning import find_in_value, scan

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


OPENAI = "sk-proj-abcDEF1234567890abcdEFGH_ijkl-mnop"


def _wide(text: str) -> str:
    """``text`` in full-width forms (``ｓｋ－``), as a chat interface may turn it."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)

PASSWORD = "Hunter2secretX"


@pytest.mark.parametrize(("text", "secret", "kind"), [
    # a word and a colon before an assignment
    (f"content: --password={PASSWORD}", PASSWORD, "Secret-named argument"),
    (f"note: password={PASSWORD}", PASSWORD, "Secret-named argument"),
    ("x: api_key=abcd1234efgh5678", "abcd1234efgh5678", "Secret-named argument"),
    ("content: aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "Secret-named argument"),
    # keys named pass or passWord, any case
    (f"pass={PASSWORD}", PASSWORD, "Secret-named argument"),
    (f"passWord={PASSWORD}", PASSWORD, "Secret-named argument"),
    (f"PASS: {PASSWORD}", PASSWORD, "Secret-named argument"),
    # a key glued to other characters
    (f"t_{OPENAI}", OPENAI, "OpenAI API Key"),
    (f"run_{AWS}_now", f"run_{AWS}_now", "AWS Access Key"),
    ("hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
     "Hugging Face Token"),
    ("key AIzaSyA1234567890abcdefghijklmnopqrstuv.", "AIzaSyA1234567890abcdefghijklmnopqrstuv",
     "Google API Key"),
    ("Authorization: Basic YWRtaW46cGFzc3dvcmQxMjM0NQ==", "YWRtaW46cGFzc3dvcmQxMjM0NQ==",
     "Basic Auth Credentials"),
    # found in the plain form, masked in the original
    ("https%3A%2F%2Fadmin%3APw0rdSecret99%40db.example.com", "Pw0rdSecret99",
     "Basic Auth Credentials"),
    (_wide(OPENAI), _wide(OPENAI), "OpenAI API Key"),
    ("key: sk-proj-abcDEF12345\u200b67890abcdEFGH_ijkl-mnop!",
     "sk-proj-abcDEF12345\u200b67890abcdEFGH_ijkl-mnop", "OpenAI API Key"),
    (_wide("AKIA\u200bIOSFODNN7EXAMPLE"), _wide("AKIA\u200bIOSFODNN7EXAMPLE"), "AWS Access Key"),
])
def test_finds_credentials_behind_prefixes_glue_and_encodings(text: str, secret: str,
                                                              kind: str) -> None:
    findings = find_credentials(text)
    assert [(f.secret, f.kind) for f in findings] == [(secret, kind)]
    assert redact_text(text) == text.replace(secret, mask(secret))  # only the credential


@pytest.mark.parametrize("key", ["pass", "passWord", "PassWord", "PASS", "db_pass", "Password"])
def test_keys_named_pass_in_any_case_hold_secrets(key: str) -> None:
    assert secret_key(key)
    assert redact({key: PASSWORD}) == {key: "Hunt…tX"}


@pytest.mark.parametrize("key", ["pass_through", "passThrough", "passenger", "compass",
                                 "passes", "bypass_cache"])
def test_words_holding_pass_name_no_secret(key: str) -> None:
    assert not secret_key(key)


@pytest.mark.parametrize("text", [
    "Basic understanding of the API is required.", "basic aGVsbG8gd29ybGQ=",
    "https%3A%2F%2Fexample.com%2Fpath%3Fq%3D1", "100%25 sure", "the compass=north",
    "東京の天気は晴れです。パスワードは不要です。", "👩\u200d💻 done", "Full-width ＡＢＣ１２３",
    "Evidence: 4 pass, 0 fail, 3 unknown", "passThrough=enabledX1",
    "sha256 " + hashlib.sha256(b"x").hexdigest(), "request " + str(uuid.UUID(int=7 << 64)),
    _wide("SHA " + hashlib.sha256(b"y").hexdigest()),
])
def test_prose_hashes_and_encoded_text_without_credentials_are_left_alone(text: str) -> None:
    assert find_secrets(text) == []
    assert redact_text(text) == text


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


# Pieces credentials and toolscore's own text are made of: secret-naming words in any case,
# the assignment and quote shapes of every detector, values, plain words.
_PIECES = st.sampled_from([
    "password", "PASSWORD", "Passwd", "pwd", "passphrase", "db_pass", "Api_Key", "apiKey",
    "X-Api-Key", "key", "keys", "token", "max_tokens", "secret", "client_secret", "cookie",
    "Authorization", "credentials", "contraseña", "Bearer", "bearer", "aws", "AWS_SECRET",
    " ", "  ", "\t", "\n", "=", ":", ":=", "=>", "==", "!=", "'", '"', "`", ";", "(",
    ".assign(", "]", "[0]", "-", "--", "_", "@", "://", "?", "&", ",", ".", "$",
    "Hunter2!x", "abc123XYZ", "s3cr3t-v4lue", "x", "hello", "AKIAIOSFODNN7EXAMPLE",
    "0.015779092702169626", "ab/cd+ef", "abc.def-ghi_jkl.mno", "wJalrXUtnFEMI/K7MDENG/bPxRfi",
    "sk-proj-abcd_efgh-ijkl_mnop-qrst", "{{x}}", "${X}", "…", "pass", "passWord", "PASS",
    "content: ", "note: ", "t_", "%3A", "%40", "%3D", "\u200b", "ｓｋ－ｐｒｏｊ－", "ＡＫＩＡ",
    "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "Basic ", "YWRtaW46cGFzc3dvcmQxMjM0NQ==", "\u00a0", "%2D", "%5F", "\u00b2", "\u2460",
    "\u0301", "ｐａｓｓｗｏｒｄ", "＝",
])
_TEXTS = st.lists(_PIECES, max_size=9).map("".join)


@settings(max_examples=600, deadline=None)
@given(text=_TEXTS)
def test_the_prefilter_never_hides_a_credential(text: str) -> None:
    # scan is detection without the prefilter: whatever it finds, the prefilter lets in,
    # in a text and in the JSON of any value holding the text as a string or a key.
    if not scan(text):
        return
    assert suspicious(text)
    for value in ([text], {"a": {"b": text}}, {text: 1}, {"k": [1, {text: None}]}):
        assert suspicious_value(value), value
        # an evaluation's record is looked at in its canonical JSON (sorted, no spaces)
        assert suspicious_json(canonical_json(value)), value


@settings(max_examples=300, deadline=None)
@given(key=_TEXTS, value=_TEXTS)
def test_the_prefilter_lets_in_every_secret_named_key_holding_a_string(key: str,
                                                                       value: str) -> None:
    if secret_key(key) and not trivial_value(value):
        assert suspicious_value({key: value})
        assert suspicious_value([{"n": 1, "deep": {key: value}}])
        assert suspicious_json(canonical_json({"z": 2, "deep": {key: value, "a": "b"}}))


@settings(max_examples=400, deadline=None)
@given(keys=st.lists(_TEXTS, min_size=1, max_size=4), values=st.lists(_TEXTS, max_size=4))
def test_a_record_s_canonical_json_is_suspect_whenever_its_blob_is(keys: list[str],
                                                                   values: list[str]) -> None:
    """Evaluation records go through the prefilter as canonical JSON, encoded once for the
    prefilter and the hash: it lets in everything the blob form (key order as built,
    ``", "`` and ``": "``) lets in."""
    record = {"calls": [{k: v for k, v in zip(keys, values, strict=False)},
                        {k: 1 for k in keys}], "final_answer": " ".join(values) or None}
    if suspicious_value(record):
        assert suspicious_json(canonical_json(record))


_OWN_WORDS = st.lists(st.sampled_from([
    "toolscore_checks.credentials", "credentials", "key", "keys", "tokens", "max_tokens",
    "pass", "secret", "0.1.0", "tool_1", "description", "required", "a b", "x"]),
    max_size=3).map(" ".join)
"""Strings a record's expected calls and plugins hold: words that name a secret, in no
shape a detector uses (so that such parts are set aside, not read whole)."""
_VALUES = st.recursive(
    st.none() | st.integers() | _TEXTS | _OWN_WORDS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXTS | _OWN_WORDS, inner,
                                                                  max_size=3),
    max_leaves=8)
_PARTS = st.lists(_VALUES, max_size=3) | st.dictionaries(_OWN_WORDS | _TEXTS, _VALUES,
                                                         max_size=3)


@settings(max_examples=600, deadline=None)
@given(record=st.dictionaries(_TEXTS, _VALUES, max_size=4), first=_PARTS, second=_PARTS)
def test_parts_set_aside_leave_the_prefilter_s_answer_as_it_is(
        record: dict[str, object], first: object, second: object) -> None:
    """A record's expected calls and plugins are read once per contract, not once per
    record: the prefilter then answers as it does on the whole text."""
    def placed(one: object, two: object) -> str:
        return canonical_json({**record, "calls": {"actual": record.get("a"), "expected": one},
                               "plugins": two})

    text = placed(first, second)
    aside = (canonical_json(first), canonical_json(second))
    assert suspicious_json_apart(text, placed([], []), aside) == suspicious_json(text)


def test_a_word_set_aside_still_makes_a_comparison_elsewhere_suspect() -> None:
    plugins = [{"name": "toolscore_checks.credentials"}]
    for answer, suspect in (("x == y", True), ("x = y", False)):
        text = canonical_json({"final_answer": answer, "plugins": plugins})
        shown = canonical_json({"final_answer": answer, "plugins": []})
        assert suspicious_json(text) is suspect
        assert suspicious_json_apart(text, shown, (canonical_json(plugins),)) is suspect


def test_toolscore_s_own_words_and_numbers_are_not_suspect() -> None:
    record = {"check": "credentials", "reason": "no credential in the arguments of 3 call(s)",
              "metrics": {"max_tokens": 5, "argument_f1": 0.015779092702169626},
              "plugins": [{"name": "toolscore-checks-credentials", "key": None}],
              "details": {"token_count": 3, "keys": ["a", "b"]}}
    assert not suspicious_value(record)
    assert redact(record) is record
    assert not suspicious_json('["no credential in the arguments of 3 call(s)", "key"]')
    assert not suspicious("the token-count of 3 keys")
    # the same words in an assignment shape, or a secret-named key holding a string, are
    assert suspicious_value({"note": "credentials=Hunter2!x"})
    assert suspicious_value({"credentials": "Hunter2!x"})
    assert suspicious_value({"note": 'set secret "abc";'})
