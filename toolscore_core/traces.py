"""Reading a trace: decode the file, choose its format (or take the one given), parse it."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any, NoReturn

from attrs import evolve

from toolscore_core.documents import (
    JSON_FAILURES,
    loads,
    nulls_for_non_finite,
    parse_json,
    read_bytes,
    refuse_empty,
    type_name,
)
from toolscore_core.errors import InputError
from toolscore_core.gc_pause import paused_gc
from toolscore_core.models import FormatChoice, Trace, TraceFormat
from toolscore_core.plugins import BUILTIN_PLUGINS, Registry, default_registry, provider
from toolscore_core.wording import count

AUTO = "auto"
DEBUG_ENV = "TOOLSCORE_DEBUG"
"""Set (to anything but empty or 0), a format hook that raises prints its traceback on stderr."""
STREAM_MIN_BYTES = 1_000_000
"""Smaller files are decoded whole: streaming only pays off (in memory) on large logs."""


ZIP_MAGIC = b"PK\x03\x04"
"""How a zip archive begins: Inspect's .eval logs are zips, which no trace reader decodes."""

TORN_LINE_NOTE = ("the file's last line was cut off mid-write (a recorder killed while "
                  "writing?) and was not read")


def hook_failure(fmt: TraceFormat, hook: str, exc: BaseException) -> str:
    """One line naming the format, its plugin and what its ``hook`` raised; the traceback
    goes to stderr when ``TOOLSCORE_DEBUG`` is set."""
    if os.environ.get(DEBUG_ENV, "") not in ("", "0"):
        import sys
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    return (f"trace format {fmt.id!r} of {provider(fmt.plugin)}: {hook} raised "
            f"{type(exc).__name__}: {exc}")


def _is_builtin(fmt: TraceFormat) -> bool:
    return fmt.plugin is None or fmt.plugin.name in BUILTIN_PLUGINS


def decode_trace_bytes(data: bytes, *, file: str) -> Any:
    """JSON, or JSON Lines (one value per line) when the whole file is not one JSON value."""
    return _decode(data, file=file)[0]


# A JSON escape of a UTF-16 surrogate, or UTF-8 bytes that encode one: a file may then
# hold a lone surrogate, which no UTF-8 output or hash can carry.
# Two searches, each led by a literal the regex engine scans for at C speed (an alternation
# of the two is ten times slower on a large file).
_SURROGATE_HINTS = (re.compile(rb"\\u[dD][89a-fA-F]"), re.compile(rb"\xed[\xa0-\xbf]"))
_SURROGATE = re.compile("[\ud800-\udfff]")


def may_hold_surrogates(data: bytes) -> bool:
    """Whether ``data`` may decode to a lone surrogate: a ``\\uD800``-``\\uDFFF`` escape or
    its bytes (ED A0-BF) written raw."""
    return any(hint.search(data) is not None for hint in _SURROGATE_HINTS)


def without_lone_surrogates(trace: Trace) -> Trace:
    """``trace`` with each lone UTF-16 surrogate in its text made U+FFFD, and a note saying
    how many strings held one (JSON lets ``"\\ud800"`` through; Unicode text cannot hold it)."""
    changed = [0]

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            if _SURROGATE.search(value) is None:
                return value
            changed[0] += 1
            return _SURROGATE.sub("\ufffd", value)
        if isinstance(value, dict):
            return {clean(k): clean(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(clean(v) for v in value)
        return value

    calls = tuple(evolve(c, tool=clean(c.tool), args=clean(c.args), id=clean(c.id),
                         result=clean(c.result), error=clean(c.error),
                         timestamp=clean(c.timestamp), raw_args=clean(c.raw_args))
                  for c in trace.calls)
    cleaned = evolve(trace, calls=calls, final_answer=clean(trace.final_answer),
                     model=clean(trace.model), usage=clean(trace.usage))
    if not changed[0]:
        return trace
    note = (f"{count(changed[0], 'string')} held a lone UTF-16 surrogate (not Unicode text), "
            "shown as U+FFFD")
    return evolve(cleaned, notes=(*cleaned.notes, note))


def _decode(data: bytes, *, file: str) -> tuple[Any, bool, list[str]]:
    """The decoded document, whether a torn last JSON Lines line was left out, and the NaN
    and infinities met (read as null: a trace is a program's output, and Python's json
    writes them).

    Only the very last line may be torn, and only when the file does not end with a
    newline: that is what a writer killed mid-line leaves. Any other bad line is an error.
    """
    refuse_empty(data, file=file)
    if data.startswith(ZIP_MAGIC):
        raise InputError(
            "a zip archive, not a JSON trace", file=file,
            fix="give the trace inside it as JSON (an Inspect .eval log: `inspect log dump "
            "LOG.eval > log.json` writes it as JSON)")
    decoder, met = nulls_for_non_finite()
    try:
        return loads(data, decoder=decoder), False, met
    except (json.JSONDecodeError, UnicodeDecodeError):
        pass
    except JSON_FAILURES:  # too deep, too long a number: parse_json names the place
        return parse_json(data, file=file), False, met
    met.clear()
    lines = [(number, line) for number, line in enumerate(data.splitlines(), start=1)
             if line.strip()]
    if len(lines) > 1:
        values = []
        for count, (number, line) in enumerate(lines, start=1):
            try:
                values.append(loads(line, decoder=decoder))
            except (json.JSONDecodeError, UnicodeDecodeError):
                if count == len(lines) and not data.endswith(b"\n"):
                    return values, True, met
                if values:  # JSON Lines from line 1 on: this line is the bad one
                    _refuse_line(line, number, file)
                break
            except JSON_FAILURES:  # a JSON Lines line that is JSON but not readable
                try:
                    parse_json(line, file=file)
                except InputError as exc:
                    raise InputError(exc.problem, file=file, place=f"line {number} ("
                                     f"{exc.place or 'its value'})", fix=exc.fix) from None
                raise
        else:
            return values, False, met
    return parse_json(data, file=file), False, met


def _refuse_line(line: bytes, number: int, file: str) -> NoReturn:
    """Raise the error of JSON Lines line ``number`` (the whole file read as one JSON value
    would name its second line, wherever the bad one is)."""
    try:
        parse_json(line, file=file)
    except InputError as exc:
        place = exc.place or ""
        place = f"line {number} {place[7:]}" if place.startswith("line 1 ") else \
            f"line {number} ({place or 'its value'})"
        raise InputError(exc.problem, file=file, place=place, fix=exc.fix) from None
    raise InputError("invalid JSON", file=file, place=f"line {number}",
                     fix="fix the JSON syntax")


def load_trace(
    path: str | os.PathLike[str], *, trace_format: str = AUTO, registry: Registry | None = None
) -> tuple[Trace, FormatChoice]:
    """Read and parse a trace file (streamed when a built-in streaming reader takes it)."""
    name = str(path)
    registry = registry or default_registry()
    # A large document is millions of objects; collecting garbage over them while reading
    # costs more than the reading (nothing read here makes reference cycles).
    with paused_gc():
        data = read_bytes(path, what="trace")
        surrogates = may_hold_surrogates(data)
        if len(data) >= STREAM_MIN_BYTES:
            streamed = _stream(data, trace_format, registry)
            if streamed is not None:
                trace, choice = streamed
                return (without_lone_surrogates(trace) if surrogates else trace), choice
        document, torn, non_finite = _decode(data, file=name)
        del data
        trace, choice = parse_trace(document, trace_format=trace_format, registry=registry,
                                    file=name)
    if surrogates:
        trace = without_lone_surrogates(trace)
    notes = [TORN_LINE_NOTE] if torn else []
    if non_finite:
        kinds = ", ".join(sorted(set(non_finite)))
        notes.append(f"{count(len(non_finite), 'value')} written as {kinds} (numbers JSON does "
                     "not have, as Python's json writes them) were read as null: unknown, not a "
                     "measurement")
    if notes:
        trace = evolve(trace, notes=(*trace.notes, *notes))
    return trace, choice


HEAD_BYTES = 65_536
"""How much of a streamed file a plugin format's ``detect`` is shown (see :func:`head`)."""


def head(data: bytes) -> Any | None:
    """The document's head: its first ``HEAD_BYTES`` cut after the last whole element of
    the outermost list that has two elements there, and closed (a JSON Lines file: its first
    whole lines, as a list); None when the beginning holds no such cut. The elements kept
    are whole; keys that follow the cut list are not in it."""
    text = data[:HEAD_BYTES].decode("utf-8", "ignore")
    decoder, _ = nulls_for_non_finite()
    lines = text.split("\n")[:-1]
    if len(lines) > 1:
        try:
            first = loads(lines[0], decoder=decoder)
        except JSON_FAILURES:
            first = None
        if isinstance(first, dict | list):
            try:
                return [loads(line, decoder=decoder) for line in lines if line.strip()]
            except JSON_FAILURES:
                return None
    stack: list[str] = []
    cuts: dict[int, tuple[int, str]] = {}  # depth of the list -> its last cut, and closers
    in_string = escaped = False
    for position, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            stack.append("]" if char == "[" else "}")
        elif char in "]}":
            if not stack:
                return None
            stack.pop()
        elif char == "," and stack and stack[-1] == "]":
            cuts[len(stack)] = (position, "".join(reversed(stack)))
    if not cuts:
        return None
    position, closers = cuts[min(cuts)]
    try:
        return loads(text[:position] + closers, decoder=decoder)
    except JSON_FAILURES:
        return None


def _plugin_claims_head(data: bytes, formats: Mapping[str, TraceFormat]) -> bool:
    """Whether a plugin format without ``stream`` claims (or cannot judge) the file's head:
    then the whole document decides, with every detector asked."""
    askers = [f for f in formats.values() if not _is_builtin(f) and f.stream is None]
    if not askers:
        return False
    document = head(data)
    if document is None:
        return True
    for fmt in askers:
        try:
            if fmt.detect(document):
                return True
        except Exception:  # asked again on the whole document, where it is reported
            return True
    return False


def _stream(data: bytes, trace_format: str, registry: Registry
            ) -> tuple[Trace, FormatChoice] | None:
    """The trace from a streaming reader, or None to read the document whole.

    In auto mode the built-ins' streaming readers are asked first (their shapes are
    disjoint, tested), then every plugin format's own ``stream``: two claims are the same
    error as two detectors claiming the decoded document. A plugin format without ``stream``
    is asked ``detect`` on the file's :func:`head` (deciding on the whole would mean
    decoding it, the memory streaming saves): if it claims the head, the document is read
    whole and every detector decides.
    """
    formats = registry.trace_formats
    if trace_format == AUTO:
        if _plugin_claims_head(data, formats):
            return None
        streamers = sorted((f for f in formats.values() if f.stream is not None),
                           key=lambda f: not _is_builtin(f))
    else:
        chosen = formats.get(trace_format)
        streamers = [chosen] if chosen is not None and chosen.stream is not None else []
    claims: list[tuple[TraceFormat, Trace, str]] = []
    failures: list[str] = []
    for fmt in streamers:
        if claims and _is_builtin(fmt):
            continue  # the built-ins' shapes are disjoint: a second built-in claims nothing
        assert fmt.stream is not None
        try:
            read = fmt.stream(data)
        except (InputError, ValueError, TypeError, KeyError, AttributeError, IndexError,
                RecursionError):
            read = None  # the whole-document path gives the precise error
        except Exception as exc:  # a plugin's bug: named with --explain-format, not fatal
            failures.append(hook_failure(fmt, "stream", exc))
            read = None
        if read is not None and read[0].calls:
            claims.append((fmt, *read))
    if not claims:
        return None
    if len(claims) > 1:
        listed = "; ".join(f"{fmt.id} ({reason})" for fmt, _, reason in claims)
        raise InputError(f"more than one trace format claims this document: {listed}",
                         place="$", fix=f"pass --format with one of "
                         f"{', '.join(fmt.id for fmt, _, _ in claims)}")
    fmt, trace, reason = claims[0]
    trace = trace if trace.format else evolve(trace, format=fmt.id)
    explicit = trace_format != AUTO
    return trace, FormatChoice(format=fmt.id, reason="given with --format" if explicit
                               else reason, explicit=explicit, failures=tuple(failures))


def choose_format(
    document: Any, formats: Mapping[str, TraceFormat], *, file: str | None = None
) -> FormatChoice:
    """The one format that claims ``document``; an error listing candidates otherwise."""
    claims: list[tuple[str, str]] = []
    failures: list[str] = []
    for fmt in formats.values():
        try:
            reason = fmt.detect(document)
        except Exception as exc:  # a detector that breaks does not claim the document
            failures.append(hook_failure(fmt, "detect", exc))
            reason = None
        if reason:
            claims.append((fmt.id, reason))
    if len(claims) == 1:
        return FormatChoice(format=claims[0][0], reason=claims[0][1], explicit=False,
                            failures=tuple(failures))
    if not claims:
        problem = f"no trace format recognises this document ({describe_document(document)})"
        misses = near_misses(document, formats, failures=failures)
        if failures:
            problem += "; " + "; ".join(failures)
        if not misses:
            raise InputError(
                problem, file=file, place="$", fix=f"pass --format with one of "
                f"{', '.join(formats)}, or install a plugin for this format (toolscore "
                "formats lists them)")
        listed = "; ".join(f"{fid} ({why})" for fid, why in misses)
        raise InputError(
            f"{problem}; closest: {listed}", file=file, place="$",
            fix="if it is meant to be one of these, fix what it misses; otherwise install a "
            "plugin that reads its format (toolscore formats lists what each format reads)")
    listed = "; ".join(f"{fid} ({why})" for fid, why in claims)
    raise InputError(
        f"more than one trace format claims this document: {listed}", file=file, place="$",
        fix=f"pass --format with one of {', '.join(fid for fid, _ in claims)}",
    )


NEAR_MISSES_SHOWN = 3
"""Near misses named in the error: more would not fit one line a person reads."""


def near_misses(document: Any, formats: Mapping[str, TraceFormat], *,
                failures: list[str] | None = None) -> list[tuple[str, str]]:
    """Each format that says what ``document`` almost is (``TraceFormat.near``), in order;
    a ``near`` that raises gives no hint, and its line is added to ``failures``."""
    misses: list[tuple[str, str]] = []
    for fmt in formats.values():
        if fmt.near is None:
            continue
        try:
            why = fmt.near(document)
        except Exception as exc:  # a near-miss hint that breaks is no hint
            if failures is not None:
                failures.append(hook_failure(fmt, "near", exc))
            why = None
        if isinstance(why, str) and why.strip():
            misses.append((fmt.id, why))
    return misses[:NEAR_MISSES_SHOWN]


KEYS_SHOWN = 5
KEY_CHARS = 40


def describe_document(document: Any) -> str:
    """The document's outline for an error: an object's first keys, a list's length."""
    if isinstance(document, dict):
        if not document:
            return "an empty object"
        keys = [json.dumps(str(key)[:KEY_CHARS], ensure_ascii=False)
                for key in list(document)[:KEYS_SHOWN]]
        more = len(document) - len(keys)
        return (f"an object with keys {', '.join(keys)}"
                f"{f' and {more} more' if more else ''}")
    if isinstance(document, list):
        if not document:
            return "an empty list"
        kinds = {type_name(item).split(" ")[-1] for item in document}
        kind = kinds.pop() if len(kinds) == 1 else "value"
        if len(document) == 1:
            return f"a list of one {kind}"
        return f"a list of {len(document)} {kind}s"
    return type_name(document)


def parse_trace(
    document: Any, *, trace_format: str = AUTO, registry: Registry | None = None,
    file: str | None = None,
) -> tuple[Trace, FormatChoice]:
    """Parse a decoded document with the given format, or the one that claims it."""
    registry = registry or default_registry()
    formats = registry.trace_formats
    if trace_format == AUTO:
        choice = choose_format(document, formats, file=file)
    elif trace_format in formats:
        choice = FormatChoice(format=trace_format, reason="given with --format", explicit=True)
    else:
        raise InputError(f"unknown trace format {trace_format!r}", place="trace_format=",
                         fix=f"use auto or one of {', '.join(formats)}")
    fmt = formats[choice.format]
    try:
        trace = fmt.parse(document)
    except InputError as exc:
        raise exc.at(file) if file else exc from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InputError(
            f"the {choice.format} reader could not read this document "
            f"({type(exc).__name__}: {exc})", file=file,
            fix="check that the file is in this format (--explain-format says why it was chosen)",
        ) from None
    except Exception as exc:
        if _is_builtin(fmt):
            raise
        raise InputError(
            f"the {choice.format} reader could not read this document "
            f"({hook_failure(fmt, 'parse', exc)})", file=file,
            fix=f"report it to the plugin's authors, or disable it with "
            f"TOOLSCORE_DISABLE_PLUGINS={fmt.plugin.name if fmt.plugin else '<name>'}",
        ) from None
    if not trace.calls:
        marker = find_call_marker(document)
        if marker:
            raise InputError(
                f"the {choice.format} reader found no tool calls, but the document holds "
                f"{marker}", file=file,
                fix="pass --format with the right format; if it is right, this is a reader bug",
            )
    return (trace if trace.format else evolve(trace, format=choice.format)), choice


_MARKER_KEYS = {"tool_calls", "function_call", "functionCall", "tool_use_id", "toolUse"}
_MARKER_TYPES = {"tool_use", "function_call", "custom_tool_call", "mcp_call", "tool-call"}


def find_call_marker(document: Any, *, budget: int = 200_000) -> str | None:
    """Describe a plain sign of a tool call in ``document`` (a key or type a format uses)."""
    stack: list[Any] = [document]
    seen = 0
    while stack and seen < budget:
        value = stack.pop()
        seen += 1
        if isinstance(value, dict):
            for key, item in value.items():
                if key in _MARKER_KEYS and item:
                    return f'a non-empty "{key}"'
                if key == "type" and isinstance(item, str) and item in _MARKER_TYPES:
                    return f'an item of type "{item}"'
                if key == "method" and item == "tools/call":
                    return 'a "tools/call" request'
                if key in ("gen_ai.operation.name", "gen_ai.tool.name") and item:
                    return f'an "{key}" attribute'
                if isinstance(item, dict | list):
                    stack.append(item)
                elif isinstance(item, str) and key == "value" and item == "execute_tool":
                    return 'an "execute_tool" span'
        elif isinstance(value, list):
            stack.extend(v for v in value if isinstance(v, dict | list))
    return None
