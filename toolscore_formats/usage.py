"""A run's token usage: the sum of its model calls' counts, in LangChain's ``UsageMetadata``
shape (``input_tokens``, ``output_tokens``, ``total_tokens``, ``input_token_details``,
``output_token_details``), and the counts the span conventions put on a model call.

Input counts include the cached ones (the GenAI conventions and OpenInference say so, as
LangChain does): ``input_token_details`` says how many of them a cache served or stored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from toolscore_formats.values import as_int

Path = tuple[str, ...]
"""Where a count goes in the run's usage (``("input_token_details", "cache_read")``)."""


class UsageKeys:
    """The attributes that hold a model call's counts: by count, in order of preference."""

    __slots__ = ("keys", "where")

    def __init__(self, counts: tuple[tuple[Path, tuple[str, ...]], ...]) -> None:
        self.where = {key: (path, rank) for path, keys in counts
                      for rank, key in enumerate(keys)}
        self.keys = frozenset(self.where)


# The GenAI conventions' counts on an inference span (their deprecated names after).
GENAI_COUNTS = UsageKeys((
    (("input_tokens",), ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")),
    (("output_tokens",), ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")),
    (("input_token_details", "cache_read"), ("gen_ai.usage.cache_read.input_tokens",)),
    (("input_token_details", "cache_creation"), ("gen_ai.usage.cache_creation.input_tokens",)),
    (("output_token_details", "reasoning"), ("gen_ai.usage.reasoning.output_tokens",)),
))
# OpenInference's counts on an LLM span.
OPENINFERENCE_COUNTS = UsageKeys((
    (("input_tokens",), ("llm.token_count.prompt",)),
    (("output_tokens",), ("llm.token_count.completion",)),
    (("total_tokens",), ("llm.token_count.total",)),
    (("input_token_details", "cache_read"), ("llm.token_count.prompt_details.cache_read",)),
    (("input_token_details", "cache_creation"),
     ("llm.token_count.prompt_details.cache_write",)),
    (("output_token_details", "reasoning"), ("llm.token_count.completion_details.reasoning",)),
))


Flat = dict[Path, "int | float"]
"""A call's counts by their path: summed without walking nested dicts, nested once at the
end."""


class RunUsage:
    """The run's tokens, added one model call at a time (memory stays flat): unknown when
    some call has none, as a partial sum would pass for the run's total.

    ``carrier`` and ``calls`` name, in the note, what holds a call's counts and the calls
    (``usage_metadata`` on ... ``AI messages``). With ``common_only``, a count that some call
    does not give (a cache count, say) is left out of the total rather than summed over the
    calls that give it: absent is unknown, never 0.
    """

    __slots__ = ("calls", "carrier", "common_only", "given", "seen", "times", "total")

    def __init__(self, carrier: str, calls: str, *, common_only: bool = False) -> None:
        self.carrier, self.calls, self.common_only = carrier, calls, common_only
        self.total: Flat = {}
        self.times: dict[Path, int] = {}  # the calls that gave each count
        self.seen = self.given = 0

    def add(self, usage: Any) -> None:
        """One model call's counts (a dict, details nested in it), or None when the call
        gives none."""
        self.add_flat(_flat(usage, ()) if isinstance(usage, dict) else None)

    def add_flat(self, counts: Flat | None) -> None:
        """One model call's counts as a ``Flat``, or None when the call gives none."""
        self.seen += 1
        if counts is None:
            return
        self.given += 1
        total, times = self.total, self.times
        for path, value in counts.items():
            total[path] = total.get(path, 0) + value
            times[path] = times.get(path, 0) + 1

    def result(self, notes: list[str]) -> dict[str, Any] | None:
        """The sum; None (with a note) when some call gave no counts, None when none did."""
        if not self.given:
            return None
        if self.given < self.seen:
            notes.append(f"{self.carrier} on {self.given} of {self.seen} {self.calls}: the "
                         "run's token usage is unknown")
            return None
        usage: dict[str, Any] = {}
        for path, value in sorted(self.total.items()):  # the same order, whatever came first
            if self.common_only and self.times[path] < self.given:
                continue
            inner = usage
            for key in path[:-1]:
                inner = inner.setdefault(key, {})
            inner[path[-1]] = value
        return usage


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
        self.spans: list[tuple[str | None, str | None, Flat | None]] = []

    def add(self, span_id: str | None, parent: str | None, counts: Flat | None) -> None:
        """One model-call span (its id, its parent's id) and its counts, or None."""
        self.spans.append((span_id, parent, counts))

    def result(self, notes: list[str]) -> dict[str, Any] | None:
        """The run's usage, or None (see ``RunUsage.result``)."""
        usage = RunUsage(self.carrier, self.calls, common_only=True)
        for _, _, counts in innermost(self.spans, lambda span: (span[0], span[1])):
            usage.add_flat(counts)
        return usage.result(notes)


T = TypeVar("T")


def innermost(calls: list[T], ids: Callable[[T], tuple[str | None, str | None]]) -> list[T]:
    """The model calls that wrap no other (``ids``: a call's id and its parent's): a model
    call with another below it is one request seen by two instrumentations, or a
    framework's wrapper that repeats its model calls' usage and cost."""
    known = [ids(call) for call in calls]
    present = {call_id for call_id, _ in known if call_id is not None}
    outer = {parent for _, parent in known if parent in present}
    return [call for call, (call_id, _) in zip(calls, known, strict=True)
            if call_id is None or call_id not in outer]


class Getter(Protocol):
    """Span attributes by key: ``Attributes``, or a plain mapping."""

    def keys(self) -> Any: ...

    def get(self, key: str) -> Any: ...


def span_counts(attributes: Getter, counts: UsageKeys) -> Flat | None:
    """A model-call span's counts; None unless it gives both its input and its output
    tokens. (Read on every model-call span of an export: one set operation finds the
    attributes it has, and only those are read.)"""
    present = counts.keys.intersection(attributes.keys())
    if not present:
        return None
    found: Flat = {}
    ranks: dict[Path, int] = {}
    where = counts.where
    for key in present:
        path, rank = where[key]
        if ranks.get(path, rank) < rank:
            continue  # a preferred attribute gave this count
        value = attributes.get(key)  # OTLP's intValue is read as an int already
        if type(value) is not int:
            value = as_int(value)
        if value is not None:
            ranks[path] = rank
            if value >= 0:
                found[path] = value
            else:  # a negative count is no count
                found.pop(path, None)
    return found if ("input_tokens",) in found and ("output_tokens",) in found else None


def _flat(usage: dict[str, Any], prefix: tuple[str, ...]) -> Flat:
    """A call's counts by path: its numbers, in nested dicts too (text and flags left out)."""
    flat: Flat = {}
    for key, value in usage.items():
        if isinstance(value, dict):
            flat.update(_flat(value, (*prefix, key)))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            flat[(*prefix, key)] = value
    return flat
