"""Finding credentials in text and arguments, and redacting them in every output (``AKIA…LE``).

Detection is detect-secrets' (its regex plugins, entropy plugins off, its false-positive
filters on) plus detectors of our own for the key formats it lacks (OpenAI
``sk-proj-…``/``sk-…``, Anthropic ``sk-ant-api03-…``, Hugging Face ``hf_…``, Google
``AIza…``), ``Bearer`` tokens, ``Basic`` credentials, and secrets assigned to a
secret-named key in a command line or prose (``--password=…``, ``note: API_KEY=…``). In
structured arguments, a non-trivial string under a key that names a secret (``password``,
``pass``, ``api_key``, ``token``, ``authorization``, …) is a credential too. Every
detector reads the text as it is and its :func:`normalized` form (full-width forms plain,
zero-width characters left out, percent-encoding decoded); what either finds is masked in
the original. Hashes, UUIDs and ordinary ids have no credential shape and are never flagged.

A cheap prefilter runs first (:func:`suspicious`, :func:`suspicious_value`): text that
holds none of the detectors' anchors costs a few substring searches, and a whole record or
trace is prefiltered at once. A word that names a secret is an anchor only in a shape a
detector can use (an assignment, a quote, a JSON key holding a string), so toolscore's own
words in a record ("credentials", "token") neither trigger a scan nor load detect-secrets.
The scan itself, and the walk of a nested value for its credentials, are in
toolscore_secrets.scanning, loaded for what the prefilter lets in.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscore_secrets.scanning import Finding

# detect-secrets plugins with a recognisable credential shape. Left out on purpose: the
# entropy plugins (they flag every hash), ArtifactoryDetector (``AP`` + 8 characters is an
# ordinary id), IPPublicDetector (an address is not a credential) and the keyword-only
# IBM/SoftLayer/Cloudant plugins (secret-named keys are handled below for every provider).
DETECT_SECRETS_PLUGINS: tuple[str, ...] = (
    "AWSKeyDetector",
    "AzureStorageKeyDetector",
    "BasicAuthDetector",
    "DiscordBotTokenDetector",
    "GitHubTokenDetector",
    "GitLabTokenDetector",
    "JwtTokenDetector",
    "KeywordDetector",
    "MailchimpDetector",
    "NpmDetector",
    "OpenAIDetector",
    "PrivateKeyDetector",
    "PypiTokenDetector",
    "SendGridDetector",
    "SlackDetector",
    "SquareOAuthDetector",
    "StripeDetector",
    "TelegramBotTokenDetector",
    "TwilioKeyDetector",
)

# The patterns only detection reads (the prefilter, and so a clean text, needs none of them)
# are kept as their text and compiled on first use, by _pattern.


@cache
def _pattern(text: str) -> re.Pattern[str]:
    """The compiled regex ``text``, compiled once, when first used."""
    return re.compile(text)


# Words a key is made of when it names a secret (``db_password``, ``X-Api-Key``, ...).
# ``pass`` alone names a secret only as the last word (``pass``, ``db_pass``), not in
# ``pass_through``.
_SECRET_KEY = re.compile(
    r"(?:^|_)(?:password|passwd|passphrase|pass_word|pass_phrase|pwd|secret|client_secret|"
    r"api_?key|apikey|access_?key|secret_?key|private_?key|auth_?key|auth_?token|"
    r"access_?token|refresh_?token|id_token|bearer|session_?token|session_?key|token|"
    r"authorization|credentials?|cookie)(?:$|_)|(?:^|_)pass$"
)
# A key naming a secret is about the secret, not the secret itself, when it ends so.
_NOT_A_SECRET_KEY = re.compile(
    r"(?:^|_)(?:type|types|name|names|id|ids|url|uri|path|file|count|length|len|hash|"
    r"digest|sha|sha1|sha256|md5|policy|hint|field|expiry|expires|expires_at|expires_in|"
    r"required|enabled|strength|min|max|limit|pattern|format|label|prompt|reset|version|"
    r"usage|tokens|page|cursor|provider|header|env|location|ttl|scope|scopes)$"
    r"|^(?:max|min|num|n|page|next|prev|previous|continuation|csrf|total)_"
)
_PLACEHOLDERS = frozenset(
    ("bearer", "basic", "digest", "none", "null", "nil", "undefined", "redacted", "[redacted]",
     "<redacted>", "hidden", "masked", "secret", "password", "token", "placeholder",
     "example", "todo", "xxx", "changeit", "n/a", "true", "false")
)

# In free text: ``--password=hunter2``, ``API_KEY=abc123``, ``?token=abc``.
_ASSIGNED = (
    r"(?i)(?<![\w-])-{0,2}([a-z][\w-]{0,40})\s*([=:])\s*([\"']?)([^\s\"'&,;]{4,200})\3"
)
# After "key:" in prose ("token: expired") a plain word is no secret; it needs a digit, a
# capital or a symbol, and six characters. After "=" (a command line, a URL) any value does.
_PLAIN_WORD = r"[a-z]+"
_BEARER = r"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{16,})"
# ``Basic`` and base64 that decodes to ``user:password`` (HTTP basic authentication).
_BASIC = r"(?i)\bbasic\s+([A-Za-z0-9+/]{6,}={0,2})(?![A-Za-z0-9+/=])"

# What detection reads besides the text itself: the text with characters that disguise
# ASCII in their plain form (NFKC: full-width forms, enclosed, superscript and subscript
# letters and digits), invisible characters (zero-width spaces and joiners, soft
# hyphens, direction marks) left out, and percent-encoded printable ASCII decoded
# (``https%3A%2F%2Fadmin%3Apw%40db``). Masks are put on the original text. Other
# characters (a no-break space, an ellipsis) hide no key and are left as they are, so
# that ordinary non-English text costs one search, not a second reading.
_INVISIBLE = "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
_PERCENT = r"%(?:[2-6][0-9A-Fa-f]|7[0-9A-Ea-e])"
_DISGUISED = "[\uff01-\uff5e\u2460-\u24ff\u2070-\u209f\u00b2\u00b3\u00b9" + _INVISIBLE + "]"
_SPECIAL = _PERCENT + "|" + _DISGUISED
"""What normalizing replaces; _PERCENT and _DISGUISED, its two halves, are each searched
faster alone (a character class alone is scanned in C without trying an alternation at
every position)."""

# Characters a token is made of; a detection is widened to the whole token around it.
_TOKEN_CHAR = r"[A-Za-z0-9_\-=.]"
_PRIVATE_KEY_BLOCK = (
    r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY"
    r"(?: BLOCK)?-----|\Z)|PuTTY-User-Key-File-2.*\Z"
)

# A shape-detector hit inside a hex string is a piece of a hash (``ACCA`` + 16 hex digits
# reads as an AWS key id); secrets found by their context are kept whatever their alphabet.
_HEX = r"[0-9a-fA-F-]{16,}"
_CONTEXT_KINDS = frozenset(("Secret Keyword", "Basic Auth Credentials"))
_HAS_LETTER = r"[A-Za-z]"
_BLOB_ENCODER = json.JSONEncoder(ensure_ascii=False, default=repr, check_circular=False)

# The prefilter. Every detector above needs one of: a run of 16 letters and digits (keys,
# tokens, JWTs, key bodies), "://" (credentials in a URL), a private-key marker, or a
# word that names a secret in an assignment shape. Text with none is clean.
# ASCII letters and digits as "a", every other byte as a space: a run of 16 is then a
# substring search, far cheaper than a regex over a whole trace.
_ALNUM = bytes(b"a"[0] if chr(i).isascii() and chr(i).isalnum() else b" "[0]
               for i in range(256))
_RUN = b"a" * 16
# The words that name a secret (any case), as plain substrings: a few substring searches
# over a whole record cost far less than one regex alternation at every position. "pass"
# is found once and counts as password, passwd, passphrase, db_pass or database_pass.
_WORDS = ("pass", "pwd", "secret", "token", "authoriz", "credential", "cookie", "contrase",
          "key", "bearer")
# A secret word alone is no credential: every form that finds one by its name needs the
# name followed, in the same token (and after any whitespace), by an assignment or a quote:
# ``password = …``, ``api_key: …``, ``--token=…``, ``secret "…";``; or, in a JSON value,
# the name in a key that holds a string (``"x-api-key": "…"``). ``aws`` (its secret-key
# form needs no assignment), ``bearer`` followed by a space and ``private key`` are suspect
# on their own; so is any word when the text compares (``"…" == password``). A word of
# toolscore's own text ("credentials", "tokens", "key", "pass") is then no reason to scan.
_TEXT_TOKEN = re.compile(r"[^\s=:;'`!\"]*+\s*+")
_TEXT_TRIGGERS = frozenset("=:;'`!\"")
_TEXT_SPACE = re.compile(r"\s")
# The same on JSON text (``blob``): a quote inside a string is ``\"``, a raw ``"`` ends it.
_JSON_TOKEN = re.compile(r"(?:[^\s=:;'`!\"\\]|\\[^nrt\"])*+(?:\s|\\[nrt])*+")
_JSON_TRIGGERS = frozenset("=:;'`!")
_JSON_SPACE = re.compile(r"\s|\\[nrt]")
_STRING_REST = re.compile(r"(?:[^\"\\]|\\.)*+")
# A regex with a literal prefix: a fast search, even where "passenger" is on every call.
_PASS = re.compile(r"pass(?:(?=w|phrase)|(?![a-z]))")
_KEY_MARKERS = ("private ", "putty-user-")  # "-----BEGIN RSA PRIVATE KEY-----", PuTTY files


def _named_secret(lower: str, json_text: bool) -> bool:
    """Whether lowercased ``lower`` names a secret in a shape a detector could use."""
    if len(lower) < _SHORT and not _ANY_WORD.search(lower):
        return False
    if "aws" in lower:
        return True
    compares: bool | None = None  # looked for once a word is found
    token, triggers, space = ((_JSON_TOKEN, _JSON_TRIGGERS, _JSON_SPACE) if json_text
                              else (_TEXT_TOKEN, _TEXT_TRIGGERS, _TEXT_SPACE))
    for word in _WORDS:
        at = _find(lower, word, 0)
        if at != -1 and compares is None:
            compares = _compares(lower)
        if at != -1 and compares:
            return True
        # Every later occurrence of the word inside a token (or a JSON string) already
        # looked at ends where that one did: skip it, so the search stays linear.
        token_end = key_end = -1
        while at != -1:
            after = at + len(word)
            if (word == "bearer" and space.match(lower, after)) or (
                    word == "key" and lower.endswith(_KEY_MARKERS, 0, at)):
                return True
            if after > token_end:
                token_end = token.match(lower, after).end()  # type: ignore[union-attr]
                if lower[token_end:token_end + 1] in triggers or (
                        json_text and lower.startswith('\\"', token_end)):
                    return True
            if json_text and after > key_end:
                key_end = _STRING_REST.match(lower, after).end()  # type: ignore[union-attr]
                # a key holding a string: blob's ``": "`` or canonical JSON's ``":"``
                if lower.startswith('": "', key_end) or lower.startswith('":"', key_end):
                    return True
            at = _find(lower, word, after)
    return False


def _find(lower: str, word: str, start: int) -> int:
    if word != "pass":
        return lower.find(word, start)
    found = _PASS.search(lower, start)  # not "passengers", nor "pass" (a check's status)
    return -1 if found is None else found.start()


# Key prefixes whose key bodies may hold "-" and "_" and so no run of 16 (OpenAI and
# Anthropic keys, GitLab's 20-character tokens). Longer bodies of that alphabet (Square,
# SendGrid, JWTs) practically always hold a run; each search here costs a pass over a trace.
_KEY_PREFIXES = ("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-", "sk-ant-")


# Under this length one regex costs less than a substring search per needle (each search
# is a call; a regex pays per character instead). Over it, "://" is looked for only in a
# text with a "/": a search for one character is far cheaper than one for three.
_SHORT = 1000
_ANY_ANCHOR = re.compile(r"://|xox|sk-(?:proj|svcacct|admin|None|ant)-|glpat-|AIza")
_ANY_WORD = re.compile("aws|" + "|".join(_WORDS))


def _anchored(text: str) -> bool:
    if len(text) < _SHORT:
        if _ANY_ANCHOR.search(text):
            return True
    elif ("/" in text and "://" in text) or "xox" in text or "glpat-" in text or "AIza" in text or (
            "sk-" in text and any(p in text for p in _KEY_PREFIXES)):
        return True
    data = text.encode("utf-8", "surrogatepass")
    runs = data.translate(_ALNUM)
    start = runs.find(_RUN)
    while start != -1:
        end = runs.find(b" ", start)
        end = len(runs) if end == -1 else end
        # The digits after a decimal point (``0.015779092702169626``, a score) are a
        # number's, not a key's: no detector's key is digits alone behind a full stop.
        if not (start and data[start - 1] == 46 and data[start:end].isdigit()):
            return True
        start = runs.find(_RUN, end)
    return False


def suspicious(text: str) -> bool:
    """The prefilter: whether ``text`` could hold a credential (clean text: False)."""
    if _anchored(text) or _named_secret(text.lower(), json_text=False):
        return True
    plain = normalized(text)
    return plain is not text and (_anchored(plain)
                                  or _named_secret(plain.lower(), json_text=False))


def suspicious_json(text: str) -> bool:
    """:func:`suspicious` for the JSON text of a value (:func:`blob` of it, or its canonical
    JSON: key order and the separators' spaces do not matter): whether any of its strings
    could hold a credential, or a secret-named key holds a string."""
    if _anchored(text) or _named_secret(text.lower(), json_text=True):
        return True
    plain = normalized(text)
    return plain is not text and (_anchored(plain)
                                  or _named_secret(plain.lower(), json_text=True))


def suspicious_json_apart(text: str, shown: str, aside: tuple[str, ...]) -> bool:
    """:func:`suspicious_json` of ``text``, the canonical JSON of a value that holds each
    of ``aside`` (the canonical JSON of an object or array) as a value, given ``shown``: the
    same text with each of them written as ``[]``.

    The parts set aside are read once per text (a record's expected calls and plugins are
    the same for every record of a contract): one that holds no anchor, no word in a shape
    a detector could use, nothing that compares and nothing :func:`normalized` changes
    decides nothing, whatever surrounds it, except that a word of its own makes a
    comparison elsewhere suspect. Any other part, or a ``shown`` that normalizing changes,
    and ``text`` is read whole.
    """
    facts = [_aside(part) for part in aside]
    if None in facts or normalized(shown) is not shown:
        return suspicious_json(text)
    if suspicious_json(shown):
        return True
    return any(facts) and _compares(shown)


@lru_cache(maxsize=64)
def _aside(part: str) -> bool | None:
    """Whether ``part`` (the canonical JSON of an object or array) holds a word that names
    a secret; None when it cannot be set aside (see :func:`suspicious_json_apart`)."""
    lower = part.lower()
    if not part.startswith(("[", "{")) or not part.isascii() or "%" in part or _compares(
            part) or "aws" in lower or _anchored(part) or _named_secret(lower, json_text=True):
        return None
    return _ANY_WORD.search(lower) is not None


def _compares(text: str) -> bool:
    """Whether ``text`` compares (``==``, ``!=``): then any word that names a secret is
    suspect (:func:`_named_secret`). A text without a "=" (or "!") is told by one search
    for that character, far cheaper than one for a pair."""
    return ("=" in text and "==" in text) or (
        "!" in text and ("!=" in text or "=!" in text or "!!" in text))


def _changes(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, replacement) of each place where :func:`normalized` changes ``text``."""
    for match in _pattern(_SPECIAL).finditer(text):
        found = match.group()
        if found[0] == "%":
            yield match.start(), match.end(), chr(int(found[1:], 16))
        else:
            plain = "" if found in _INVISIBLE else unicodedata.normalize("NFKC", found)
            if plain != found:
                yield match.start(), match.end(), plain


def _unchanged(text: str) -> bool:
    """Whether :func:`normalized` leaves ``text`` as it is: a flag and a byte search for
    ASCII text, one regex search otherwise."""
    return not ("%" in text and _pattern(_PERCENT).search(text)) and (
        text.isascii() or _pattern(_DISGUISED).search(text) is None)


def normalized(text: str) -> str:
    """``text`` as detection reads it besides the original: characters that disguise ASCII
    in their plain form (full-width ``ｓｋ－`` is ``sk-``), invisible characters left out,
    and percent-encoded printable ASCII decoded. ``text`` itself when nothing changes."""
    if _unchanged(text):
        return text
    parts: list[str] = []
    last = 0
    for start, stop, plain in _changes(text):
        parts += [text[last:start], plain]
        last = stop
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


def _normal_view(text: str) -> tuple[str, list[int], list[int]] | None:
    """:func:`normalized` ``text`` and, for each of its characters, the start and end of
    what it came from in ``text``; None when nothing changes."""
    if _unchanged(text):
        return None
    starts: list[int] = []
    ends: list[int] = []
    parts: list[str] = []
    last = 0
    for start, end, plain in _changes(text):
        parts += [text[last:start], plain]
        starts += range(last, start)
        ends += range(last + 1, start + 1)
        starts += [start] * len(plain)
        ends += [end] * len(plain)
        last = end
    if not parts:
        return None
    parts.append(text[last:])
    starts += range(last, len(text))
    ends += range(last + 1, len(text) + 1)
    return "".join(parts), starts, ends


def suspicious_value(value: Any) -> bool:
    """Whether any string or key of a JSON value could hold a credential (one search)."""
    return _looked_at(value)[1]


def _looked_at(value: Any) -> tuple[str, bool]:
    """:func:`blob` of ``value`` and whether it is suspect."""
    try:
        text = _BLOB_ENCODER.encode(value)
    except (TypeError, ValueError):
        # blob's fallback (keys JSON cannot hold) has no JSON shape to read: any secret word
        text = blob(value)
        lower = text.lower()
        return text, suspicious(text) or "aws" in lower or any(w in lower for w in _WORDS)
    return text, suspicious_json(text)


def mask(secret: str) -> str:
    """A credential as it may be shown: its first 4 and last 2 characters (``AKIA…LE``).

    Short credentials (under 12 characters) are hidden whole: showing 6 of them would
    show most of the secret.
    """
    if len(secret) < 12:
        return "…"
    return f"{secret[:4]}…{secret[-2:]}"


@lru_cache(maxsize=4096)
def secret_key(key: str) -> bool:
    """Whether an argument or object key names a secret (``password``, ``X-Api-Key``, ...)."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key)
    words = re.sub(r"[^a-z0-9]+", "_", words.lower()).strip("_")
    return bool(_SECRET_KEY.search(words)) and not _NOT_A_SECRET_KEY.search(words)


def trivial_value(value: str) -> bool:
    """Whether a value under a secret-named key is no secret: empty, a placeholder, masked.

    The placeholder forms are detect-secrets' heuristics (templated ``{…}``, ``<…>``,
    ``${…}``, a ``$`` prefix, no letter at all), written out here so that a clean record
    never imports detect-secrets.
    """
    text = value.strip()
    if len(text) < 4 or "…" in text or text.lower() in _PLACEHOLDERS:
        return True
    if len(set(text.lower()) - {"*", "x", "-", "_", "."}) == 0:
        return True
    return (text[0] + text[-1] in ("{}", "<>") or text.startswith(("$", "{{", "%(",
            "os.environ", "process.env")) or not _pattern(_HAS_LETTER).search(text))


def find_credentials(text: str) -> list[Finding]:
    """Every credential in ``text``, in order, without overlaps."""
    if not suspicious(text):
        return []
    # Imported here: text the prefilter finds clean never loads the detectors.
    from toolscore_secrets.scanning import scan

    return list(scan(text))


def find_secrets(text: str) -> list[str]:
    """The credentials found in ``text``, in order of appearance."""
    return [finding.secret for finding in find_credentials(text)]


def redact_text(text: str) -> str:
    """``text`` with every credential masked."""
    findings = find_credentials(text)
    if not findings:
        return text
    parts: list[str] = []
    last = 0
    for finding in findings:
        parts.append(text[last:finding.start])
        parts.append(mask(finding.secret))
        last = finding.end
    parts.append(text[last:])
    return "".join(parts)


def redact(value: Any) -> Any:
    """A JSON value with every credential masked: in every string and key, every
    non-trivial string held by a secret-named key, and that same string wherever else it
    appears as a whole word (an error that quotes a password, a diff that shows it).

    A branch the prefilter finds clean (and that holds no such string) is returned as it is,
    not copied; only suspect branches are walked, so a clean record costs about one pass.
    """
    if isinstance(value, str):
        return redact_text(value)
    if not isinstance(value, dict | list | tuple) or not suspicious_value(value):
        return value
    known = known_secrets(value)
    return _redact(value, known, {s: _BLOB_ENCODER.encode(s)[1:-1] for s in known})


def _redact(value: Any, known: frozenset[str], encoded: dict[str, str]) -> Any:
    if isinstance(value, str):
        return mask_known(redact_text(value), known)
    if not isinstance(value, dict | list | tuple):
        return value
    text, suspect = _looked_at(value)
    if not suspect and not any(e in text for e in encoded.values()):
        return value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            shown = _redact(key, known, encoded) if isinstance(key, str) else key
            if isinstance(key, str) and secret_key(key) and isinstance(item, str) \
                    and not trivial_value(item):
                out[shown] = mask(item)
            else:
                out[shown] = _redact(item, known, encoded)
        return out
    return [_redact(v, known, encoded) for v in value]


def known_secrets(value: Any) -> frozenset[str]:
    """The non-trivial strings held by secret-named keys anywhere in a JSON value: the
    strings to hide wherever else they appear."""
    out: set[str] = set()
    _named(value, out)
    return frozenset(out)


def _named(value: Any, out: set[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and isinstance(item, str) and secret_key(key) \
                    and not trivial_value(item):
                out.add(item)
            else:
                _named(item, out)
    elif isinstance(value, list | tuple):
        for item in value:
            _named(item, out)


def mask_known(text: str, secrets: frozenset[str]) -> str:
    """``text`` with each of ``secrets`` masked where it stands as a whole word."""
    for secret in sorted((s for s in secrets if s in text), key=lambda s: (-len(s), s)):
        parts: list[str] = []
        last = 0
        start = text.find(secret)
        while start != -1:
            end = start + len(secret)
            before = text[start - 1] if start else " "
            after = text[end] if end < len(text) else " "
            if not (before.isalnum() or after.isalnum()):
                parts += [text[last:start], mask(secret)]
                last = end
            start = text.find(secret, end if last == end else start + 1)
        text = "".join([*parts, text[last:]])
    return text


def blob(value: Any) -> str:
    """Every string and key of a JSON value in one text, for one prefilter search."""
    try:
        return _BLOB_ENCODER.encode(value)
    except (TypeError, ValueError):  # keys JSON cannot hold: every string on its own line
        out: list[str] = []
        _strings(value, out)
        return "\n".join(out)


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            out.append(str(key))
            _strings(item, out)
    elif isinstance(value, list | tuple):
        for item in value:
            _strings(item, out)
