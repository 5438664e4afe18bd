"""Credential detectors detect-secrets lacks, as detect-secrets plugins (imported lazily)."""

from __future__ import annotations

import re

from detect_secrets.plugins.base import RegexBasedDetector

# A key with a prefix of its own is found wherever it stands, glued to other text as well
# (a tool named ``t_sk-proj-…``): no word could hold the prefix and then a key's body. A
# shorter prefix needs no letter or digit just before it (``disk-…`` holds no ``sk-`` key).
_NO_ALNUM_BEFORE = r"(?<![A-Za-z0-9])"


class OpenAIKeyDetector(RegexBasedDetector):
    """OpenAI API keys: ``sk-proj-…``, ``sk-svcacct-…``, ``sk-admin-…`` and legacy ``sk-…``."""

    secret_type = "OpenAI API Key"
    denylist = (
        re.compile(r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}"),
        re.compile(_NO_ALNUM_BEFORE + r"sk-(?!ant-)[A-Za-z0-9]{32,}(?![A-Za-z0-9])"),
    )


class AnthropicKeyDetector(RegexBasedDetector):
    """Anthropic API keys: ``sk-ant-api03-…`` and ``sk-ant-admin01-…``."""

    secret_type = "Anthropic API Key"
    denylist = (re.compile(r"sk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_\-]{20,}"),)


class HuggingFaceTokenDetector(RegexBasedDetector):
    """Hugging Face access tokens: ``hf_`` and 30 or more letters and digits."""

    secret_type = "Hugging Face Token"
    denylist = (re.compile(_NO_ALNUM_BEFORE + r"hf_[A-Za-z0-9]{30,}"),)


class GoogleAPIKeyDetector(RegexBasedDetector):
    """Google API keys (Gemini, Maps, Firebase): ``AIza`` and 35 key characters."""

    secret_type = "Google API Key"
    denylist = (re.compile(r"AIza[0-9A-Za-z_\-]{35}"),)


OWN_DETECTORS: tuple[type[RegexBasedDetector], ...] = (
    OpenAIKeyDetector, AnthropicKeyDetector, HuggingFaceTokenDetector, GoogleAPIKeyDetector)


def own_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """(secret type, pattern) of every detector above."""
    return [(str(d.secret_type), p) for d in OWN_DETECTORS
            for p in d.denylist]  # type: ignore[attr-defined]
