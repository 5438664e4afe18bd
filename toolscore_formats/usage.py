"""A run's token usage: the sum of its model calls' counts, in LangChain's ``UsageMetadata``
shape (``input_tokens``, ``output_tokens``, ``total_tokens``, ``input_token_details``,
``output_token_details``), and the counts the span conventions put on a model call.

Input counts include the cached ones (the GenAI conventions and OpenInference say so, as
LangChain does): ``input_token_details`` says how many of them a cache served or stored.
"""

from __future__ import annotations

from typing import Any, Protocol

from toolscore_formats.values import as_int

Counts = tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]
"""Where each count goes in the run's usage (a path of keys), and the attributes that hold
it, in order of preference."""

# The GenAI conventions' counts on an inference span (their deprecated names after).
GENAI_COUNTS: Counts = (
    (("input_tokens",), ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")),
    (("output_tokens",), ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")),
    (("input_token_details", "cache_read"), ("gen_ai.usage.cache_read.input_tokens",)),
    (("input_token_details", "cache_creation"), ("gen_ai.usage.cache_creation.input_tokens",)),
    (("output_token_details", "reasoning"), ("gen_ai.usage.reasoning.output_tokens",)),
)
# OpenInference's counts on an LLM span.
OPENINFERENCE_COUNTS: Counts = (
    (("input_tokens",), ("llm.token_count.prompt",)),
    (("output_tokens",), ("llm.token_count.completion",)),
    (("total_tokens",), ("llm.token_count.total",)),
    (("input_token_details", "cache_read"), ("llm.token_count.prompt_details.cache_read",)),
    (("input_token_details", "cache_creation"),
     ("llm.token_count.prompt_details.cache_write",)),
    (("output_token_details", "reasoning"), ("llm.token_count.completion_details.reasoning",)),
)


class RunUsage:
    """The run's tokens, added one model call at a time (memory stays flat): unknown when
    some call has none, as a partial sum would pass for the run's total.

    ``carrier`` and ``calls`` name, in the note, what holds a call's counts and the calls
    (``usage_metadata`` on ... ``AI messages``). With ``common_only``, a count that some call
    does not give (a cache count, say) is left out of the total rather than summed over the
    calls that give it: absent is unknown, never 0.
    """

    __slots__ = ("_common", "calls", "carrier", "common_only", "given", "seen", "total")

    def __init__(self, carrier: str, calls: str, *, common_only: bool = False) -> None:
        self.carrier, self.calls, self.common_only = carrier, calls, common_only
        self.total: dict[str, Any] = {}
        self.seen = self.given = 0
        self._common: set[tuple[str, ...]] | None = None

    def add(self, usage: Any) -> None:
        """One model call's counts (a dict), or None when the call gives none."""
        self.seen += 1
        if not isinstance(usage, dict):  # (an ABC's isinstance costs more, on every call)
            return
        self.given += 1
        _add(self.total, usage)
        if self.common_only:
            paths = _paths(usage)
            self._common = paths if self._common is None else self._common & paths

    def result(self, notes: list[str]) -> dict[str, Any] | None:
        """The sum; None (with a note) when some call gave no counts, None when none did."""
        if not self.given:
            return None
        if self.given < self.seen:
            notes.append(f"{self.carrier} on {self.given} of {self.seen} {self.calls}: the "
                         "run's token usage is unknown")
            return None
        if self._common is None:
            return self.total
        return _kept(self.total, self._common, ())


class ModelCalls:
    """The model-call spans' counts, kept until every span is read, then summed as
    ``RunUsage`` sums them (a count some call does not give is left out).

    A model-call span whose child is a model-call span is one request seen by two
    instrumentations (a framework's, and its provider SDK's inside it): it is counted once,
    at the inner span.
    """

    __slots__ = ("calls", "carrier", "spans")

    def __init__(self, carrier: str, calls: str) -> None:
        self.carrier, self.calls = carrier, calls
        self.spans: list[tuple[str | None, str | None, dict[str, Any] | None]] = []

    def add(self, span_id: str | None, parent: str | None,
            counts: dict[str, Any] | None) -> None:
        """One model-call span (its id, its parent's id) and its counts, or None."""
        self.spans.append((span_id, parent, counts))

    def result(self, notes: list[str]) -> dict[str, Any] | None:
        """The run's usage, or None (see ``RunUsage.result``)."""
        usage = RunUsage(self.carrier, self.calls, common_only=True)
        ids = {span_id for span_id, _, _ in self.spans if span_id is not None}
        outer = {parent for _, parent, _ in self.spans if parent in ids}
        for span_id, _, counts in self.spans:
            if span_id is None or span_id not in outer:
                usage.add(counts)
        return usage.result(notes)


class Getter(Protocol):
    """Span attributes by key: ``Attributes``, or a plain mapping."""

    def __contains__(self, key: str) -> bool: ...

    def get(self, key: str) -> Any: ...


def span_counts(attributes: Getter, counts: Counts) -> dict[str, Any] | None:
    """A model-call span's counts, in the run usage's shape; None unless it gives both its
    input and its output tokens. (Read on every model-call span of an export: an attribute
    the span lacks is passed over without being read.)"""
    usage: dict[str, Any] = {}
    for path, keys in counts:
        for key in keys:
            if key in attributes:
                value = attributes.get(key)  # OTLP's intValue is read as an int already
                if type(value) is not int:
                    value = as_int(value)
                if value is not None:
                    break
        else:
            continue
        if value >= 0:
            inner = usage
            for key in path[:-1]:
                inner = inner.setdefault(key, {})
            inner[path[-1]] = value
    return usage if "input_tokens" in usage and "output_tokens" in usage else None


def _add(total: dict[str, Any], usage: dict[str, Any]) -> None:
    """Add one call's token counts into ``total`` (nested details key by key)."""
    for key, value in usage.items():
        if isinstance(value, dict):
            inner = total.setdefault(key, {})
            if isinstance(inner, dict):
                _add(inner, value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            before = total.get(key, 0)
            if isinstance(before, (int, float)) and not isinstance(before, bool):
                total[key] = before + value


def _paths(usage: dict[str, Any], prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    paths: set[tuple[str, ...]] = set()
    for key, value in usage.items():
        if isinstance(value, dict):
            paths |= _paths(value, (*prefix, key))
        else:
            paths.add((*prefix, key))
    return paths


def _kept(total: dict[str, Any], common: set[tuple[str, ...]], prefix: tuple[str, ...]
          ) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, value in total.items():
        if isinstance(value, dict):
            inner = _kept(value, common, (*prefix, key))
            if inner:
                kept[key] = inner
        elif (*prefix, key) in common:
            kept[key] = value
    return kept
