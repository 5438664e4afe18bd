"""The judge's client: any OpenAI-compatible Chat Completions endpoint, through the openai SDK."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from attrs import field, frozen

from toolscore_core.canonical import canonical_json
from toolscore_core.errors import InputError
from toolscore_secrets.redaction import mask, redact_text

KEY_ENV = "TOOLSCORE_JUDGE_API_KEY"
"""Where the judge's API key is read from (else ``OPENAI_API_KEY``); it is never recorded."""
FALLBACK_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "TOOLSCORE_JUDGE_BASE_URL"
"""The endpoint when ``--judge-base-url`` is not given (else OpenAI's)."""
EXTRA = "pip install 'toolscore[judge]'"
DEFAULT_TIMEOUT = 60.0
DEFAULT_RETRIES = 2
TEMPERATURE = 0
MAX_TOKENS = 200
"""A verdict is one line; a judge that rambles is cut short (and costs little)."""


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
            reply = client.chat.completions.create(**request)
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
        choice = reply.choices[0] if reply.choices else None
        refusal = getattr(choice.message, "refusal", None) if choice else None
        if refusal:
            raise JudgeUnavailable(f"the model refused: {self._masked(str(refusal))}")
        text = choice.message.content if choice else None
        if not text or not text.strip():
            raise JudgeUnavailable("an empty answer")
        return self._masked(text)

    def _masked(self, text: str) -> str:
        """``text`` as it may be shown: the key masked wherever an endpoint echoes it."""
        return redact_text(text.replace(self.api_key, mask(self.api_key)))


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
