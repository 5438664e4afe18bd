"""The judge's client: any OpenAI-compatible Chat Completions endpoint, through the openai SDK."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from attrs import evolve, field, frozen

from toolscore import InputError, canonical_json, mask, redact_text

KEY_ENV = "TOOLSCORE_JUDGE_API_KEY"
"""Where the judge's API key is read from (else ``OPENAI_API_KEY``); it is never recorded."""
FALLBACK_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "TOOLSCORE_JUDGE_BASE_URL"
"""The endpoint when ``--judge-base-url`` is not given (else OpenAI's)."""
EXTRA = "pip install 'toolscore[judge]'"
KEY_MIN_LENGTH = 8
"""A key at least this long is masked wherever an endpoint's answer or error repeats it."""
DEFAULT_TIMEOUT = 60.0
DEFAULT_RETRIES = 2
TEMPERATURE = 0
MAX_TOKENS = 200
"""A verdict is one line; a judge that rambles is cut short (and costs little)."""
ANSWER_LIMIT = 4_000
"""The most characters of an answer read as one (200 tokens are well under 1,000): a longer
one, from an endpoint that ignores ``max_tokens``, is no verdict, and is never stored."""
BODY_LIMIT = 16 * ANSWER_LIMIT
"""The most bytes of an HTTP answer read: room for the JSON around the answer and escapes."""


def chat_request(model: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """What is sent to ask ``messages`` of ``model`` (and recorded: the key is not in it)."""
    return {"model": model, "messages": messages, "temperature": TEMPERATURE,
            "max_tokens": MAX_TOKENS}


class JudgeUnavailable(Exception):
    """The judge gave no answer: a timeout, a refusal, an HTTP error after the retries."""


@frozen
class ChatClient:
    """Asks one model through the openai SDK, with timeouts and retries with backoff."""

    model: str
    api_key: str = field(repr=lambda key: mask(key))
    base_url: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    _answers: dict[str, str | JudgeUnavailable] = field(factory=dict, init=False, eq=False,
                                                        repr=False)
    """What each request got, so that one evaluation's metrics and checks asking the same
    question (argument_f1 and judged-arguments) hear the same answer, a failure included."""
    _sdk: Any = field(default=None, init=False, eq=False, repr=False)
    """The openai SDK's client, made at the first question and kept: each new one builds
    its own connection pool and TLS context."""

    def __getstate__(self) -> dict[str, Any]:
        # Sent to other processes (a regrade's workers, a Ray cluster) without the key, which
        # each reads from its own environment: the key travels nowhere but to the endpoint.
        return {"model": self.model, "base_url": self.base_url, "timeout": self.timeout,
                "retries": self.retries}

    def __setstate__(self, state: dict[str, Any]) -> None:
        key = os.environ.get(KEY_ENV) or os.environ.get(FALLBACK_KEY_ENV) or ""
        for name, value in {**state, "api_key": key, "_answers": {}, "_sdk": None}.items():
            object.__setattr__(self, name, value)

    def fresh(self) -> ChatClient:
        """This client having heard no answer yet, its SDK connection shared: the judge of
        one run of a study, so that each run asks its own questions whatever other runs
        asked before it (and a run's requests do not depend on which run finished first)."""
        client = evolve(self)
        object.__setattr__(client, "_sdk", self._sdk)
        return client

    def complete(self, request: Mapping[str, Any]) -> str:
        """The model's answer to ``request``, credentials and the key masked in it;
        JudgeUnavailable when none comes."""
        key = canonical_json(dict(request))
        if key not in self._answers:
            try:
                self._answers[key] = self._complete(request)
            except JudgeUnavailable as exc:
                self._answers[key] = exc
        answer = self._answers[key]
        if isinstance(answer, JudgeUnavailable):
            raise answer
        return answer

    def _complete(self, request: Mapping[str, Any]) -> str:
        if not self.api_key:
            raise JudgeUnavailable(f"no API key in {KEY_ENV} (or {FALLBACK_KEY_ENV}) in the "
                                   "process that asked")
        import openai

        if self._sdk is None:
            object.__setattr__(self, "_sdk", openai.OpenAI(
                api_key=self.api_key, base_url=self.base_url, timeout=self.timeout,
                max_retries=self.retries))
        client = self._sdk
        tries = f"{self.retries + 1} {'try' if self.retries == 0 else 'tries'}"
        try:
            # Streamed, so that an answer over the limit is refused unread, not buffered.
            with client.chat.completions.with_streaming_response.create(**request) as response:
                body = _capped_body(response)
        except openai.APITimeoutError:
            raise JudgeUnavailable(f"no answer within {self.timeout:g}s ({tries})") from None
        except openai.APIStatusError as exc:
            raise JudgeUnavailable(f"HTTP {exc.status_code} ({tries}): "
                                   f"{self._masked(_message(exc))}") from None
        except openai.APIConnectionError:
            raise JudgeUnavailable(f"cannot connect to {self.base_url or 'api.openai.com'} "
                                   f"({tries})") from None
        except openai.OpenAIError as exc:
            raise JudgeUnavailable(self._masked(f"{type(exc).__name__}: {exc}")) from None
        message = _message_of(body)
        refusal = message.get("refusal")
        if isinstance(refusal, str) and refusal:
            raise JudgeUnavailable(f"the model refused: {self._masked(_cut(refusal))}")
        text = message.get("content")
        if not isinstance(text, str) or not text.strip():
            raise JudgeUnavailable("an empty answer")
        if len(text) > ANSWER_LIMIT:
            raise JudgeUnavailable(f"an answer of {len(text):,} characters, over the "
                                   f"{ANSWER_LIMIT:,} a verdict needs; not read")
        return self._masked(text)

    def _masked(self, text: str) -> str:
        """``text`` as it may be shown: the key masked wherever an endpoint echoes it, and
        every credential. A key of a few characters (a local server's ``x``) is no secret,
        and masking it would rewrite the answer's words."""
        if len(self.api_key) >= KEY_MIN_LENGTH:
            text = text.replace(self.api_key, mask(self.api_key))
        return redact_text(text)


def _capped_body(response: Any) -> bytes:
    """The body of a streamed response, refused (JudgeUnavailable) past BODY_LIMIT."""
    declared = response.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > BODY_LIMIT:
        raise JudgeUnavailable(f"an answer of {int(declared):,} bytes, over the "
                               f"{BODY_LIMIT:,} a verdict needs; not read")
    chunks: list[bytes] = []
    size = 0
    try:
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > BODY_LIMIT:
                raise JudgeUnavailable(f"an answer of over {BODY_LIMIT:,} bytes, more than a "
                                       "verdict needs; not read")
            chunks.append(chunk)
    except JudgeUnavailable:
        raise
    except Exception as exc:  # the SDK's HTTP library's own errors, while the body comes in
        raise JudgeUnavailable(f"the answer broke off ({type(exc).__name__})") from None
    return b"".join(chunks)


def _message_of(body: bytes) -> dict[str, Any]:
    """``choices[0].message`` of a Chat Completions answer; JudgeUnavailable, saying what is
    wrong, when the body is not one (undecodable bytes, not JSON, another shape)."""
    try:
        data = json.loads(body)
    except UnicodeDecodeError:
        raise JudgeUnavailable("the endpoint's answer is not text (undecodable bytes)") from None
    except ValueError as exc:
        raise JudgeUnavailable(f"the endpoint's answer is not JSON ({exc})") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    if not isinstance(message, dict):
        raise JudgeUnavailable("the endpoint's answer is not a Chat Completions answer (no "
                               "choices[0].message)")
    return message


def _cut(text: str) -> str:
    return text if len(text) <= 200 else text[:199] + "…"


def _message(exc: Any) -> str:
    body = exc.body
    if isinstance(body, Mapping) and isinstance(body.get("message"), str):
        return str(body["message"])[:200]
    return str(exc.message)[:200]


def chat_client(
    model: str, *, base_url: str | None = None, timeout: float = DEFAULT_TIMEOUT,
    retries: int = DEFAULT_RETRIES, env: Mapping[str, str] | None = None,
) -> ChatClient:
    """A client for ``model``: the key from the environment; the openai SDK must be installed
    (the ``judge`` extra), else a one-line InputError naming the extra."""
    env = os.environ if env is None else env
    try:
        import openai  # noqa: F401 - only whether it is there
    except ImportError:
        raise InputError("--judge needs the openai SDK, which is not installed",
                         place="--judge", fix=f"install the judge extra: {EXTRA}") from None
    key = env.get(KEY_ENV) or env.get(FALLBACK_KEY_ENV)
    if not key:
        raise InputError(f"--judge needs an API key in {KEY_ENV} (or {FALLBACK_KEY_ENV})",
                         place="--judge", fix=f"export {KEY_ENV}=... (any text for a local "
                         "server that needs none)")
    return ChatClient(model=model, api_key=key, base_url=base_url or env.get(BASE_URL_ENV),
                      timeout=timeout, retries=retries)
