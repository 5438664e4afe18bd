"""What metrics, checks and report writers are given and what they are: the evaluation's
context (contract, trace, pairing, options) and its result, and the records of those three
plugin kinds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from attrs import field, frozen

from toolscore_core.canonical import (
    canonical_json,
    join_members,
    non_finite_note,
    object_json,
    sha256_hex,
    without_non_finite,
)
from toolscore_core.components import versions
from toolscore_core.config import PluginConfig
from toolscore_core.contracts import judgment_json
from toolscore_core.errors import CanonicalJSONError
from toolscore_core.matchers import judged_in, to_repr
from toolscore_core.models import (
    STATUSES,
    CheckResult,
    Component,
    Contract,
    ExpectedCall,
    ForbiddenRule,
    FormatChoice,
    MetricResult,
    PluginInfo,
    Settings,
    ToolCall,
    Trace,
)
from toolscore_core.pairing import (
    Pairing,
    args_key,
    arguments_differ,
    exact_pair,
    has_matcher,
    pair_exact_first,
)
from toolscore_core.scoring import grade_for
from toolscore_core.wording import number
from toolscore_secrets.redaction import redact, suspicious_json_apart

if TYPE_CHECKING:  # only judged evaluations load the judge's record
    from toolscore_core.judging import Judging

SCHEMA_VERSION = "2"


@frozen
class Options:
    """Inputs beyond the contract and the trace that checks may use."""

    forbidden: tuple[ForbiddenRule, ...] = ()
    """Forbidden-call rules (from ``--forbidden`` and the contract)."""
    config: PluginConfig = field(factory=dict)
    """Plugin options as given (``--config`` and the flags that fill it), by plugin id;
    plugins read theirs with ``EvaluationContext.config_for``."""
    base_dir: str | None = None
    """The folder relative side-effect paths are read from (the gold file's; None: cwd)."""
    judge: Judging | None = None
    """The LLM judge, when one was asked for (none by default)."""


@frozen
class EvaluationContext:
    """Everything a metric or a check may look at; built once per evaluation."""

    contract: Contract
    trace: Trace
    final_answer: str | None
    """The final answer given with ``--final-answer``, else the trace's."""
    pairing: Pairing
    options: Options = field(factory=Options)
    settings: Mapping[str, Settings] = field(factory=dict)
    """The options the loaded plugins declare, by plugin id (``config_for``'s defaults)."""
    ignored: tuple[tuple[int, ToolCall], ...] = ()
    """The calls the contract does not judge (``judge_tools``/``ignore_tools``), each with
    its 0-based place in the trace; ``trace`` holds the others, the only ones that count."""

    def config_for(self, plugin_id: str) -> dict[str, Any]:
        """The options of the check, metric or trace format ``plugin_id``: each option it
        declares, with the value given (``--config``, a flag) or else its default."""
        declared = self.settings.get(plugin_id)
        if declared is None:
            raise KeyError(f"no plugin declares options for {plugin_id!r} "
                           "(toolscore_register_settings)")
        given = self.options.config.get(plugin_id, {})
        return {s.name: s.default if given.get(s.name) is None else given[s.name]
                for s in declared.settings}

    @property
    def expected(self) -> tuple[ExpectedCall, ...]:
        return self.contract.expected

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        return self.trace.calls

    # Columns that several metrics and checks read, made once per evaluation.
    @cached_property
    def tools(self) -> list[str]:
        """The actual calls' tool names, in order."""
        return list(map(_TOOL, self.trace.calls))

    @cached_property
    def outcomes(self) -> list[bool | None]:
        """The actual calls' ``is_error`` (True failed, False succeeded, None unknown)."""
        return list(map(_IS_ERROR, self.trace.calls))

    @cached_property
    def expected_tools(self) -> list[str]:
        """The expected calls' tool names, in order."""
        return list(map(_TOOL, self.contract.expected))

    @cached_property
    def paired(self) -> dict[int, int]:
        """Expected call index -> the index of the actual call paired with it."""
        return {pair[0]: pair[1] for pair in self.pairing.pairs}

    @cached_property
    def to_judge(self) -> bool:
        """Whether a pair of the pairing has a ``$judge`` argument to decide
        (:func:`judged_in`): the argument F1 and the judge's checks all ask."""
        return judged_in(self.contract.expected, self.pairing.pairs)

    @cached_property
    def made_exactly(self) -> dict[int, int]:
        """Expected call index -> the call that is it, tool and arguments
        (``arguments_differ`` finds nothing), as many expected calls answered so as can be.

        The shared pairing's exact pairs, unless an expected call they leave out has a call
        that is it and that could be freed for it, which the shared pairing, made for
        argument F1, may have given another expected call: the calls of such tools are
        then paired exact-first (``pair_exact_first``)."""
        expected, calls = self.contract.expected, self.trace.calls
        # a pair of identical calls is exact: only the others are asked
        same = self.pairing.identical or bytes(len(expected))
        exact = {pair[0]: pair[1] for pair in self.pairing.pairs
                 if same[pair[0]] or exact_pair(expected[pair[0]], calls[pair[1]], pair[3])}
        if len(exact) == len(expected):
            return exact
        redo = _tools_to_repair(expected, calls, exact, same, self.pairing.twinless)
        if not redo:
            return exact
        sub_e = [i for i, want in enumerate(expected) if want.tool in redo]
        sub_a = [j for j, call in enumerate(calls) if call.tool in redo]
        pairing = pair_exact_first([expected[i] for i in sub_e], [calls[j] for j in sub_a])
        found = {i: j for i, j in exact.items() if expected[i].tool not in redo}
        for pair in pairing.pairs:
            i, j = sub_e[pair.expected], sub_a[pair.actual]
            if arguments_differ(expected[i], calls[j]) is None and expected[i].turn in (
                    None, calls[j].turn):  # a call pinned to a turn is made in that turn
                found[i] = j
        return dict(sorted(found.items()))


def _tools_to_repair(
    expected: Sequence[ExpectedCall], calls: Sequence[ToolCall], exact: Mapping[int, int],
    identical: bytes, twinless: bytes,
) -> set[str]:
    """The tools whose calls more expected calls could be made exactly with.

    A better pairing would give an expected call left out a call that is it, at the end of
    a chain of exchanges that frees one: only a tool with a free call (no exact pair holds
    it) can have one. Between expected calls of plain arguments, held by calls of equal
    arguments, the chain is short: the expected call takes a free call equal to its
    arguments, found by their hash (none for a call the pairing marks ``twinless``: a free
    call is one it left outside its identical pairs). With matchers or omitted ``args``
    (the left-out call's or a holder's) the tool is paired again. The cost stays linear in
    the trace."""
    # the expected calls left out, the free calls (set differences, in C) and the tools
    # they share: only those are looked at, in any order (the answer is a set)
    left_out = set(range(len(expected))).difference(exact)
    wanted = {expected[i].tool for i in left_out}
    free = set(range(len(calls))).difference(exact.values())
    free_tools = {calls[j].tool for j in free}.intersection(wanted)
    # a matcher never equals a value: arguments equal to the call's hold none (an identical
    # pair's, by ``identical``, are known to)
    flexible = {tool for i, j in exact.items() if not identical[i]
                and (tool := expected[i].tool) in wanted
                and (expected[i].args is None
                     or (expected[i].args != calls[j].args and has_matcher(expected[i].args)))}
    free_by_args: dict[tuple[str, Any], list[int]] | None = None
    redo: set[str] = set()
    for i in left_out:
        want = expected[i]
        tool = want.tool
        if tool in redo or tool not in free_tools:
            continue
        args = want.args
        if args is None or tool in flexible:
            redo.add(tool)
            continue
        if not _PLAIN.issuperset(map(type, args.values())) and has_matcher(args):
            redo.add(tool)
            continue
        if twinless and twinless[i]:  # no free call has its key
            continue
        key = args_key(args)  # no matcher: the items are the key
        if key is None:
            redo.add(tool)
            continue
        if free_by_args is None:
            free_by_args = _by_args(calls, free, free_tools)
        equal = free_by_args.get((tool, key))  # most left-out calls: no free call is equal
        if equal and any(arguments_differ(want, calls[j]) is None for j in equal):
            redo.add(tool)
    return redo


def _by_args(calls: Sequence[ToolCall], free: set[int],
             tools: set[str]) -> dict[tuple[str, Any], list[int]]:
    """The free calls of ``tools`` by tool and :func:`args_key` (a call without arguments,
    or of none, left out)."""
    found: dict[tuple[str, Any], list[int]] = {}
    for j in free:
        call = calls[j]
        tool = call.tool
        if tool not in tools or call.args is None:
            continue
        key = args_key(call.args)
        if key is not None:
            found.setdefault((tool, key), []).append(j)
    return found

_PLAIN = frozenset((str, int, float, bool, type(None)))
_TOOL = attrgetter("tool")
_IS_ERROR = attrgetter("is_error")


@frozen
class Coverage:
    """How much of the trace holds the evidence."""

    calls: int
    with_outcome: int
    with_duration: int
    with_cost: int
    final_answer_known: bool

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "with_outcome": self.with_outcome,
                "with_duration": self.with_duration, "with_cost": self.with_cost,
                "final_answer_known": self.final_answer_known}


@frozen
class Evidence:
    """The checks' results, in order, and their counts."""

    checks: tuple[CheckResult, ...]

    @property
    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = dict.fromkeys(STATUSES, 0)
        for result in self.checks:
            counts[result.status] += 1
        return counts

    def summary(self) -> str:
        """``Evidence: 4 pass, 0 fail, 3 unknown``."""
        c = self.counts
        return f"Evidence: {c['pass']} pass, {c['fail']} fail, {c['unknown']} unknown"

    def get(self, check_id: str) -> CheckResult | None:
        return next((r for r in self.checks if r.check == check_id), None)

    def failing(
        self, checks: Sequence[str] | None = None, *, strict_unknown: bool = False
    ) -> tuple[CheckResult, ...]:
        """The results that should fail a build: ``fail`` (and ``unknown`` when
        ``strict_unknown``) among ``checks`` (None: every check that ran)."""
        bad = ("fail", "unknown") if strict_unknown else ("fail",)
        return tuple(r for r in self.checks
                     if r.status in bad and (checks is None or r.check in checks))

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.checks)

    def __len__(self) -> int:
        return len(self.checks)

    def to_dict(self) -> dict[str, Any]:
        return {"counts": self.counts, "checks": [r.to_dict() for r in self.checks]}


@frozen
class Evaluation:
    """The result of one evaluation. ``to_dict()`` is the complete, deterministic record."""

    context: EvaluationContext
    weights: Mapping[str, float]
    metric_results: tuple[MetricResult, ...]
    evidence: Evidence
    score: float | None
    unscored: tuple[str, ...]
    """Weighted metrics left out of the score because their value is unknown."""
    format: FormatChoice | None
    plugins: tuple[PluginInfo, ...]
    """The plugins that took part: the format's, every metric's and every check's."""
    format_plugin: PluginInfo | None = None
    """The plugin of the trace format that read the trace (None for in-memory calls)."""
    dependencies: tuple[str | Component, ...] = ()
    """What the format, metrics and checks that took part depend on besides their plugins
    (``depends_on``), after the core's own; see ``components``."""
    calls_json: tuple[Sequence[Mapping[str, Any]], str] | None = field(
        default=None, eq=False, repr=False)
    """The calls as the caller holds them in JSON, and their canonical JSON (a regrade's
    row): the record writes that text for its actual calls when each call's dict holds the
    very values of the caller's (nothing changed them), instead of encoding them again."""

    @property
    def components(self) -> dict[str, str | None]:
        """The versions of everything in ``dependencies``, by name (what receipts record)."""
        return versions(self.dependencies)

    @property
    def grade(self) -> str | None:
        return None if self.score is None else grade_for(self.score)

    @property
    def metrics(self) -> dict[str, Any]:
        return {r.id: r.value for r in self.metric_results}

    @property
    def trace(self) -> Trace:
        return self.context.trace

    @property
    def contract(self) -> Contract:
        return self.context.contract

    @property
    def final_answer(self) -> str | None:
        return self.context.final_answer

    @property
    def required_call_recall(self) -> float | None:
        value = self.metrics.get("required_call_recall")
        return value if isinstance(value, int | float) else None

    @property
    def coverage(self) -> Coverage:
        calls = self.context.calls
        return Coverage(
            calls=len(calls),
            with_outcome=sum(1 for c in calls if c.is_error is not None),
            with_duration=sum(1 for c in calls if c.duration is not None),
            with_cost=sum(1 for c in calls if c.cost is not None),
            final_answer_known=self.context.final_answer is not None,
        )

    def to_dict(self) -> dict[str, Any]:
        """The complete record (schema_version "2"), credentials redacted."""
        return dict(self._record)

    @property
    def _record(self) -> dict[str, Any]:
        return self._redacted[0]

    @cached_property
    def record_json(self) -> str:
        """The canonical JSON of ``to_dict()`` (what ``record_sha256`` hashes)."""
        text = self._redacted[1]
        return canonical_json(self._record) if text is None else text

    @cached_property
    def _redacted(self) -> tuple[dict[str, Any], str | None]:
        """The redacted record and, when it was found clean, its canonical JSON: a record
        the redaction prefilter passes is encoded once, for the prefilter and the hash."""
        record = self._plain_record()
        try:
            text, shown, aside = self._record_json(record)
        except CanonicalJSONError:
            record, replaced = without_non_finite(record)
            if replaced:
                record["trace"]["notes"].append(non_finite_note(replaced))
            try:
                text, shown, aside = self._record_json(record)
            except CanonicalJSONError:  # a value only Python holds: redaction walks it
                return redact(record), None
        if suspicious_json_apart(text, shown, aside):
            redacted: dict[str, Any] = redact(record)
            return redacted, None
        return record, text

    def _record_json(self, record: dict[str, Any]) -> tuple[str, str, tuple[str, str]]:
        """The canonical JSON of ``record``, its calls written from the JSON already made:
        the actual calls' from ``calls_json`` when it holds them, the expected calls' once
        per contract (``expected_json``); then the same text with the expected calls and
        the plugins written as ``[]``, and those two, for the prefilter
        (``suspicious_json_apart``): they are the same for every record of a contract."""
        aside = (expected_json(self.context.expected), self._plugins_json())
        calls = record["calls"]
        actual = _same_calls_json(calls["actual"], self.calls_json)
        members = {"actual": canonical_json(calls["actual"]) if actual is None else actual,
                   "expected": _ASIDE[0]}
        if "ignored" in calls:
            members["ignored"] = canonical_json(calls["ignored"])
        marked = object_json(record, {"calls": join_members(members), "plugins": _ASIDE[1]})
        head, _, rest = marked.partition(_ASIDE[0])  # "calls" comes before "plugins"
        middle, _, tail = rest.partition(_ASIDE[1])
        return ("".join((head, aside[0], middle, aside[1], tail)),
                "".join((head, "[]", middle, "[]", tail)), aside)

    def _plugins_json(self) -> str:
        """The canonical JSON of the record's ``plugins``, made once for the same plugins
        (the same objects: a registry's, which every evaluation with it shares)."""
        key = tuple(map(id, self.plugins))
        kept = _PLUGINS.get(key)
        if kept is None:
            if len(_PLUGINS) >= _EXPECTED_KEPT:
                _PLUGINS.clear()
            # the entry holds the plugins, so their identities cannot be reused while it lives
            kept = _PLUGINS[key] = (self.plugins,
                                    canonical_json([p.to_dict() for p in self.plugins]))
        return kept[1]

    def _plain_record(self) -> dict[str, Any]:
        trace = self.context.trace
        contract = self.context.contract
        calls: dict[str, Any] = {
            "expected": expected_dicts(self.context.expected),
            "actual": [call_dict(c) for c in self.context.calls],
        }
        record: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "score": self.score,
            "grade": self.grade,
            "weights": dict(self.weights),
            "unscored": list(self.unscored),
            "required_call_recall": self.required_call_recall,
            "metrics": self.metrics,
            "evidence": self.evidence.to_dict(),
            "coverage": self.coverage.to_dict(),
            "calls": calls,
            "final_answer": self.context.final_answer,
            "trace": {
                "format": trace.format,
                "model": trace.model,
                "usage": None if trace.usage is None else dict(trace.usage),
                "run_cost": trace.run_cost,
                "run_duration": trace.run_duration,
                "notes": list(trace.notes),
            },
            "plugins": [p.to_dict() for p in self.plugins],
            "provenance": {
                "format": None if self.format_plugin is None else self.format_plugin.name,
                "metrics": {r.id: r.plugin.name for r in self.metric_results},
            },
        }
        # What only a contract using the trajectory keys adds: other records keep their bytes.
        judgment = judgment_json(contract)
        if judgment:
            record["judgment"] = judgment
        if contract.judge_tools is not None or contract.ignore_tools is not None:
            calls["ignored"] = [{"position": number(j), **call_dict(c)}
                                          for j, c in self.context.ignored]
        if contract.expected_outputs:
            record["replies"] = None if trace.replies is None else list(trace.replies)
        return record

    @property
    def record_sha256(self) -> str:
        """SHA-256 of the canonical JSON of ``to_dict()``."""
        return sha256_hex(self.record_json.encode("utf-8"))


def call_dict(call: ToolCall) -> dict[str, Any]:
    """A ToolCall as JSON, every field present (null where absent); ``error_rule`` only on a
    call an ``error_when`` rule marked failed, ``turn`` only when the trace tells it, so the
    records of other traces stay as they were."""
    data = {
        "id": call.id, "tool": call.tool, "args": call.args, "raw_args": call.raw_args,
        "result": call.result, "is_error": call.is_error, "error": call.error,
        "duration": call.duration, "cost": call.cost, "timestamp": call.timestamp,
    }
    if call.error_rule is not None:
        data["error_rule"] = call.error_rule
    if call.turn is not None:
        data["turn"] = call.turn
    return data


def expected_dicts(expected: tuple[ExpectedCall, ...]) -> list[dict[str, Any]]:
    """The expected calls as the record shows them: fresh dicts, each the same for every
    evaluation under the contract, so the last few contracts' are kept (a batch or a regrade
    evaluates many traces under one contract object; ``load_contract`` and a study's tasks
    keep it). The arguments' JSON form is shared between records: nothing changes it."""
    return [dict(d) for d in _expected_kept(expected)[1]]


def expected_json(expected: tuple[ExpectedCall, ...]) -> str:
    """The canonical JSON of ``expected_dicts(expected)``, made once per kept contract."""
    kept = _expected_kept(expected)
    if kept[2] is None:
        kept[2] = canonical_json(kept[1])
    return kept[2]


def _expected_kept(expected: tuple[ExpectedCall, ...]) -> list[Any]:
    kept = _EXPECTED.get(id(expected))
    if kept is None or kept[0] is not expected:
        kept = [expected, [_expected_dict(c) for c in expected], None]
        if len(_EXPECTED) >= _EXPECTED_KEPT:
            _EXPECTED.clear()  # a batch has one contract, a study a few: no order to keep
        _EXPECTED[id(expected)] = kept
    return kept


_EXPECTED: dict[int, list[Any]] = {}
"""By the identity of a contract's tuple of expected calls, which each entry holds (so the
identity cannot be reused while the entry lives): [that tuple, its expected-call dicts,
their canonical JSON once made]."""
_EXPECTED_KEPT = 16


def _same_calls_json(actual: list[dict[str, Any]],
                     given: tuple[Sequence[Mapping[str, Any]], str] | None) -> str | None:
    """``given``'s text when its calls hold the very values (the same objects, under the
    same keys) of the record's ``actual`` call dicts: then both have one canonical JSON."""
    if given is None:
        return None
    calls, text = given
    if len(calls) != len(actual):
        return None
    for mine, theirs in zip(actual, calls, strict=True):
        if mine.keys() != theirs.keys():
            return None
        for key, value in mine.items():
            if theirs[key] is not value:
                return None
    return text


_ASIDE = ("\x00", "\x01")
"""Where a record's text under construction holds its expected calls and its plugins: two
characters canonical JSON never writes (it escapes them), replaced once it is made."""

_PLUGINS: dict[tuple[int, ...], tuple[tuple[PluginInfo, ...], str]] = {}
"""The plugins' canonical JSON by the identities of the plugins that took part."""


def _expected_dict(call: ExpectedCall) -> dict[str, Any]:
    data = {"tool": call.tool, "args": None if call.args is None else to_repr(call.args),
            "required": call.required, "description": call.description}
    if call.closed:
        data["closed"] = True
    if call.turn is not None:  # only when pinned: records of other contracts stay as they were
        data["turn"] = call.turn
    return data
