"""The evaluation pipeline: trace + contract -> pairing -> metrics -> checks -> score."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolscore_core.components import CORE
from toolscore_core.config import PluginConfig, check_config, load_config, overlay, sections
from toolscore_core.context import Evaluation, EvaluationContext, Evidence, Options
from toolscore_core.contracts import (
    UNJUDGED_FIX,
    load_contract,
    parse_contract,
    parse_forbidden,
    unjudged_rule,
)
from toolscore_core.documents import load_document
from toolscore_core.errors import InputError
from toolscore_core.gc_pause import paused_gc
from toolscore_core.judgment import apply_error_rules, config_rules, judged
from toolscore_core.models import (
    STATUSES,
    CheckOutcome,
    CheckResult,
    Component,
    Contract,
    FormatChoice,
    MetricOutcome,
    MetricResult,
    PluginInfo,
    ToolCall,
    Trace,
    TraceFormat,
)
from toolscore_core.pairing import pair_for
from toolscore_core.plugins import Registry, default_registry
from toolscore_core.scoring import composite, resolve_weights
from toolscore_core.traces import AUTO, load_trace, parse_trace

if TYPE_CHECKING:  # only judged evaluations load the judge's record
    from toolscore_core.judging import Judging


def evaluate(
    expected: Any,
    actual: Any,
    *,
    weights: Mapping[str, float] | None = None,
    forbidden: Any = None,
    final_answer: str | None = None,
    trace_format: str = AUTO,
    config: PluginConfig | None = None,
    judge: Judging | None = None,
    registry: Registry | None = None,
) -> Evaluation:
    """Evaluate ``actual`` (a Trace, ToolCalls, or any trace document) against ``expected``.

    ``expected`` is a Contract, a list of expected calls (dicts or ExpectedCall), or a
    contract object. ``weights`` override the default weights and are renormalized.
    ``config`` holds plugin options by plugin id, then option name (with the shorthand
    flags' options filled by ``registry.config_with(...)``); ``judge`` is asked.
    """
    registry = registry or default_registry()
    with paused_gc():
        contract = parse_contract(expected)
        choice: FormatChoice | None = None
        if isinstance(actual, Trace):
            trace = actual
        elif isinstance(actual, list | tuple) and all(isinstance(c, ToolCall) for c in actual):
            trace = Trace(calls=tuple(actual))
        else:
            trace, choice = parse_trace(actual, trace_format=trace_format, registry=registry)
        rules = contract.forbidden + (() if forbidden is None else parse_forbidden(forbidden))
        given = {} if config is None else sections(config)
        check_config(given, registry.settings)
        options = Options(forbidden=rules, judge=judge, config=given)
        return run_evaluation(contract, trace, options=options, weights=weights,
                              final_answer=final_answer, choice=choice, registry=registry)


def run_evaluation(
    contract: Contract, trace: Trace, *, options: Options, weights: Mapping[str, float] | None,
    final_answer: str | None, choice: FormatChoice | None, registry: Registry,
    calls_json: tuple[Sequence[Mapping[str, Any]], str] | None = None,
) -> Evaluation:
    """Run every metric and check of ``registry`` on a parsed contract and trace.

    ``calls_json``: the JSON the trace's calls were read from and its canonical JSON, when
    the caller holds both (a regrade's row), for the record to reuse (``Evaluation``)."""
    normalized = resolve_weights(registry.metrics, weights)
    for rule in options.forbidden[len(contract.forbidden):]:
        if isinstance(rule.tool, str) and not contract.judges(rule.tool):
            raise InputError(unjudged_rule(rule.tool), place="forbidden=", fix=UNJUDGED_FIX)
    trace = apply_error_rules(trace, contract.error_when + config_rules(options.config))
    trace, ignored = judged(trace, contract)
    context = EvaluationContext(
        contract=contract, trace=trace,
        final_answer=final_answer if final_answer is not None else trace.final_answer,
        pairing=pair_for(contract.expected, trace.calls, contract.match), options=options,
        settings=registry.settings, ignored=ignored,
    )
    metric_results = tuple(_run_metric(m, context) for m in registry.metrics.values())
    checks = tuple(r for r in (_run_check(c, context) for c in registry.checks.values()) if r)
    score, unscored = composite(metric_results, normalized)
    fmt = registry.trace_formats.get(trace.format) if trace.format else None
    plugins, dependencies = _taking_part(registry, fmt, tuple(r.check for r in checks))
    return Evaluation(
        context=context, weights=normalized, metric_results=metric_results,
        evidence=Evidence(checks=checks), score=score, unscored=unscored, format=choice,
        plugins=plugins, format_plugin=None if fmt is None else fmt.plugin,
        dependencies=dependencies, calls_json=calls_json,
    )


def _taking_part(registry: Registry, fmt: TraceFormat | None, ran: tuple[str, ...]
                 ) -> tuple[tuple[PluginInfo, ...], tuple[str | Component, ...]]:
    """The plugins that took part in an evaluation (sorted by name) and what they depend
    on besides (the core's own first): the format's, every metric's and those of the checks
    that gave a result (``ran``). Made once for the same registry, format and checks."""
    key = (id(registry), id(fmt), ran)
    kept = _TAKING_PART.get(key)
    if kept is not None and kept[0] is registry:
        return kept[1]
    used: dict[str, PluginInfo] = {}
    dependencies = list(CORE)
    if fmt is not None:
        dependencies += fmt.depends_on
        if fmt.plugin:
            used[fmt.plugin.name] = fmt.plugin
    for metric in registry.metrics.values():
        dependencies += metric.depends_on
    for check in registry.checks.values():
        if check.id in ran:
            dependencies += check.depends_on
    for plugin in ([_plugin_of(m) for m in registry.metrics.values()]
                   + [_plugin_of(registry.checks[c]) for c in ran]):
        used.setdefault(plugin.name, plugin)
    found = (tuple(sorted(used.values(), key=lambda p: p.name)), tuple(dependencies))
    if len(_TAKING_PART) >= 16:
        _TAKING_PART.clear()  # a process evaluates with one registry or a few
    # the entry holds the registry, so its identity cannot be reused while the entry lives
    _TAKING_PART[key] = (registry, found)
    return found


_TAKING_PART: dict[tuple[int, int, tuple[str, ...]],
                   tuple[Registry, tuple[tuple[PluginInfo, ...], tuple[str | Component, ...]]]] = {}
"""By the identities of a registry and of its trace format (None's for none) and the checks
that gave a result: the registry (which holds the format, so neither identity can be reused
while the entry lives) and :func:`_taking_part`'s answer."""


def _plugin_of(part: Any) -> PluginInfo:
    """The plugin a metric or check came from; one named "unknown" when none is recorded."""
    return part.plugin or PluginInfo(name="unknown")


def _run_metric(metric: Any, context: EvaluationContext) -> MetricResult:
    plugin = _plugin_of(metric)
    try:
        outcome = metric.compute(context)
        if not isinstance(outcome, MetricOutcome):
            outcome = MetricOutcome(value=outcome)
    except Exception as exc:  # a broken metric is unknown, never a number
        return MetricResult(id=metric.id, value={"error": f"{type(exc).__name__}: {exc}"},
                            score=None, plugin=plugin)
    return MetricResult(id=metric.id, value=outcome.value, score=outcome.score, plugin=plugin)


def _run_check(check: Any, context: EvaluationContext) -> CheckResult | None:
    plugin = _plugin_of(check)
    try:
        outcome = check.run(context)
    except Exception as exc:  # a check that raises is unknown, never pass
        return CheckResult(check=check.id, status="unknown",
                           reason=f"the check raised {type(exc).__name__}: {exc}",
                           details={"exception": type(exc).__name__}, plugin=plugin)
    if outcome is None:
        return None
    if not isinstance(outcome, CheckOutcome) or outcome.status not in STATUSES:
        return CheckResult(check=check.id, status="unknown",
                           reason=f"the check returned {outcome!r}, not a CheckOutcome",
                           details={}, plugin=plugin)
    return CheckResult(check=check.id, status=outcome.status, reason=outcome.reason,
                       details=dict(outcome.details), plugin=plugin)


def evaluate_files(
    gold_path: str | os.PathLike[str],
    trace_path: str | os.PathLike[str],
    *,
    trace_format: str = AUTO,
    weights: Mapping[str, float] | None = None,
    forbidden_path: str | os.PathLike[str] | None = None,
    final_answer: str | None = None,
    config_path: str | os.PathLike[str] | None = None,
    config: PluginConfig | None = None,
    judge: Judging | None = None,
    registry: Registry | None = None,
) -> Evaluation:
    """Evaluate a trace file against a gold file (JSON or YAML).

    ``config_path`` is a config file of plugin options (a section per plugin id);
    ``config`` holds options too (with the shorthand flags' options filled by
    ``registry.config_with(...)``), each winning over the same option in the file.
    """
    registry = registry or default_registry()
    with paused_gc():
        contract = load_contract(gold_path)
        trace, choice = load_trace(trace_path, trace_format=trace_format, registry=registry)
    rules = contract.forbidden
    if forbidden_path is not None:
        doc = load_document(forbidden_path, what="forbidden rules")
        try:
            rules += parse_forbidden(doc, file=str(forbidden_path))
        except InputError as exc:
            raise exc.at(str(forbidden_path)) from None
    declared = registry.settings
    given: dict[str, dict[str, Any]] = {}
    if config_path is not None:
        given = load_config(config_path)
        check_config(given, declared, file=str(config_path))
    if config is not None:
        extra = sections(config)
        check_config(extra, declared)
        given = overlay(given, extra)
    options = Options(forbidden=rules, judge=judge, config=given,
                      base_dir=os.path.dirname(os.path.abspath(gold_path)))
    with paused_gc():
        return run_evaluation(contract, trace, options=options, weights=weights,
                              final_answer=final_answer, choice=choice, registry=registry)

