"""Credential detectors detect-secrets lacks, as detect-secrets plugins (imported lazily)."""

from __future__ import annotations

import re

from detect_secrets.plugins.base import RegexBasedDetector


class OpenAIKeyDetector(RegexBasedDetector):
    """OpenAI API keys: ``sk-proj-…``, ``sk-svcacct-…``, ``sk-admin-…`` and legacy ``sk-…``."""

    secret_type = "OpenAI API Key"
    denylist = (
        re.compile(r"(?<![\w-])sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}"),
        re.compile(r"(?<![\w-])sk-(?!ant-)[A-Za-z0-9]{32,}(?![\w-])"),
    )


class AnthropicKeyDetector(RegexBasedDetector):
    """Anthropic API keys: ``sk-ant-api03-…`` and ``sk-ant-admin01-…``."""

    secret_type = "Anthropic API Key"
    denylist = (re.compile(r"(?<![\w-])sk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_\-]{20,}"),)


OWN_DETECTORS: tuple[type[RegexBasedDetector], ...] = (OpenAIKeyDetector, AnthropicKeyDetector)


def own_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """(secret type, pattern) of every detector above."""
    return [(str(d.secret_type), p) for d in OWN_DETECTORS
            for p in d.denylist]  # type: ignore[attr-defined]
