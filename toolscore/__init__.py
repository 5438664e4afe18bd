"""toolscore: deterministic, offline evaluation of LLM agents' tool calls.

The public API: the names in ``__all__``, and nothing else, are public (every other module is
internal and may change). Each name is imported on first use (PEP 562), so ``import
toolscore`` stays cheap; the ``TYPE_CHECKING`` block re-exports the same names explicitly, so
a type checker (``mypy --strict`` included) sees their real types.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscore_core.cases import (
        Case as Case,
        cases as cases,
    )
    from toolscore_core.canonical import file_sha256 as file_sha256
    from toolscore_core.context import (
        Evaluation as Evaluation,
        EvaluationContext as EvaluationContext,
    )
    from toolscore_core.contracts import load_contract as load_contract
    from toolscore_core.documents import (
        JSON_FAILURES as JSON_FAILURES,
        load_document as load_document,
        loads as loads,
        type_name as type_name,
    )
    from toolscore_core.errors import (
        InputError as InputError,
        PluginError as PluginError,
        ToolscoreError as ToolscoreError,
    )
    from toolscore_core.evaluation import (
        evaluate as evaluate,
        evaluate_files as evaluate_files,
    )
    from toolscore_core.hookspecs import hookimpl as hookimpl
    from toolscore_core.matchers import (
        ANY as ANY,
        AllOf as AllOf,
        AnyOf as AnyOf,
        Approx as Approx,
        Contains as Contains,
        IsType as IsType,
        Judged as Judged,
        List as List,
        Matcher as Matcher,
        Not as Not,
        Object as Object,
        OneOf as OneOf,
        Optional as Optional,
        Regex as Regex,
        Text as Text,
        from_json as from_json,
        judged_in as judged_in,
        to_json as to_json,
        to_repr as to_repr,
        values_match as values_match,
    )
    from toolscore_core.importers import (
        ImportedRun as ImportedRun,
        ImportSource as ImportSource,
        RunImporter as RunImporter,
    )
    from toolscore_core.models import (
        Check as Check,
        CheckOutcome as CheckOutcome,
        CheckResult as CheckResult,
        Component as Component,
        Contract as Contract,
        ExpectedCall as ExpectedCall,
        ForbiddenRule as ForbiddenRule,
        FormatChoice as FormatChoice,
        Metric as Metric,
        MetricOutcome as MetricOutcome,
        MetricResult as MetricResult,
        PluginInfo as PluginInfo,
        ReportWriter as ReportWriter,
        Setting as Setting,
        Settings as Settings,
        SideEffect as SideEffect,
        Status as Status,
        ToolCall as ToolCall,
        Trace as Trace,
        TraceFormat as TraceFormat,
    )
    from toolscore_core.pairing import Pair as Pair
    from toolscore_core.plugins import (
        Registry as Registry,
        build_registry as build_registry,
        get_plugin_manager as get_plugin_manager,
    )
    from toolscore_core.receipts import build_receipt as build_receipt
    from toolscore_core.regrade import (
        Regrade as Regrade,
        regrade as regrade,
    )
    from toolscore_core.spans import SpanRef as SpanRef
    from toolscore_core.structure import (
        Refusal as Refusal,
        at_least as at_least,
        shape as shape,
        structure as structure,
    )
    from toolscore_core.traces import (
        load_trace as load_trace,
        parse_trace as parse_trace,
    )
    from toolscore_core.verify import verify_receipt as verify_receipt
    from toolscore_core.wording import (
        count as count,
        number as number,
    )
    from toolscore_studies.runner import run_study as run_study
    from toolscore import receipts as receipts
    from toolscore import testing as testing

    # what the built-in checks, metrics, judge and secret scanner use besides the above
    from toolscore_core.atomic import write_text_atomic as write_text_atomic
    from toolscore_core.batches import BATCH as BATCH
    from toolscore_core.canonical import (
        canonical_json as canonical_json,
        canonical_sha256 as canonical_sha256,
    )
    from toolscore_core.judging import Judging as Judging
    from toolscore_core.inputs import read_input as read_input
    from toolscore_core.matchers import (
        absent_optional as absent_optional,
        members_decide as members_decide,
        undecided_arguments as undecided_arguments,
        undecided_in as undecided_in,
    )
    from toolscore_core.pairing import (
        arguments_differ as arguments_differ,
        arguments_unknown as arguments_unknown,
    )
    from toolscore_core.patterns import (
        TIMED_OUT as TIMED_OUT,
        compile_pattern as compile_pattern,
        search as search,
    )
    from toolscore_judge.rulings import (
        rulings as rulings,
        undecided as undecided,
    )
    from toolscore_judge.judging import (
        Question as Question,
        second_opinion as second_opinion,
    )
    from toolscore_judge.templates import (
        CLAIMED_SUCCESS as CLAIMED_SUCCESS,
        Template as Template,
    )
    from toolscore_secrets.redaction import (
        blob as blob,
        mask as mask,
        redact as redact,
        redact_text as redact_text,
        secret_key as secret_key,
        suspicious as suspicious,
        suspicious_value as suspicious_value,
    )
    from toolscore_secrets.scanning import find_in_value as find_in_value
    # -- the format toolkit: what format readers and report writers share --
    from toolscore_core.components import toolscore_version as toolscore_version
    from toolscore_core.documents import STRICT_DECODER as STRICT_DECODER
    from toolscore_core.matchers import decide as decide
    from toolscore_formats.calls import (
        CallTable as CallTable,
        outcome as outcome,
    )
    from toolscore_formats.content import (
        block_content as block_content,
        error_text as error_text,
        text_of as text_of,
    )
    from toolscore_formats.cursor import TextCursor as TextCursor
    from toolscore_formats.messages import Conversation as Conversation
    from toolscore_formats.spans import is_span as is_span
    from toolscore_formats.times import (
        iso_from_nanos as iso_from_nanos,
        iso_timestamp as iso_timestamp,
        parse_time as parse_time,
        seconds_between as seconds_between,
    )
    from toolscore_formats.values import (
        as_float as as_float,
        as_int as as_int,
        as_str as as_str,
        decode_args as decode_args,
        dict_of as dict_of,
        list_of as list_of,
        maybe_json as maybe_json,
        name_of as name_of,
    )
    from toolscore_secrets.redaction import (
        known_secrets as known_secrets,
        mask_known as mask_known,
    )

    __version__: str

__all__ = [  # noqa: RUF022 (blocks, each sorted: the core, what the built-ins use, the format toolkit)
    "ANY",
    "JSON_FAILURES",
    "AllOf",
    "AnyOf",
    "Approx",
    "Case",
    "Check",
    "CheckOutcome",
    "CheckResult",
    "Component",
    "Contains",
    "Contract",
    "Evaluation",
    "EvaluationContext",
    "ExpectedCall",
    "ForbiddenRule",
    "FormatChoice",
    "ImportSource",
    "ImportedRun",
    "InputError",
    "IsType",
    "Judged",
    "List",
    "Matcher",
    "Metric",
    "MetricOutcome",
    "MetricResult",
    "Not",
    "Object",
    "OneOf",
    "Optional",
    "Pair",
    "PluginError",
    "PluginInfo",
    "Refusal",
    "Regex",
    "Registry",
    "Regrade",
    "ReportWriter",
    "RunImporter",
    "Setting",
    "Settings",
    "SideEffect",
    "SpanRef",
    "Status",
    "Text",
    "ToolCall",
    "ToolscoreError",
    "Trace",
    "TraceFormat",
    "__version__",
    "at_least",
    "build_receipt",
    "build_registry",
    "cases",
    "count",
    "evaluate",
    "evaluate_files",
    "file_sha256",
    "from_json",
    "get_plugin_manager",
    "hookimpl",
    "judged_in",
    "load_contract",
    "load_document",
    "load_trace",
    "loads",
    "number",
    "parse_trace",
    "receipts",
    "regrade",
    "run_study",
    "shape",
    "structure",
    "testing",
    "to_json",
    "to_repr",
    "type_name",
    "values_match",
    "verify_receipt",
    # what the built-in checks, metrics, judge and secret scanner use besides the above
    "BATCH",
    "CLAIMED_SUCCESS",
    "Judging",
    "Question",
    "TIMED_OUT",
    "Template",
    "absent_optional",
    "arguments_differ",
    "arguments_unknown",
    "blob",
    "canonical_json",
    "canonical_sha256",
    "compile_pattern",
    "find_in_value",
    "mask",
    "members_decide",
    "read_input",
    "redact",
    "redact_text",
    "rulings",
    "search",
    "second_opinion",
    "secret_key",
    "suspicious",
    "suspicious_value",
    "undecided",
    "undecided_arguments",
    "undecided_in",
    "write_text_atomic",
    # -- the format toolkit: what format readers and report writers share --
    "STRICT_DECODER",
    "CallTable",
    "Conversation",
    "TextCursor",
    "as_float",
    "as_int",
    "as_str",
    "block_content",
    "decide",
    "decode_args",
    "dict_of",
    "error_text",
    "is_span",
    "iso_from_nanos",
    "iso_timestamp",
    "known_secrets",
    "list_of",
    "mask_known",
    "maybe_json",
    "name_of",
    "outcome",
    "parse_time",
    "seconds_between",
    "text_of",
    "toolscore_version",
]

# module -> the public names it defines, imported on first attribute access
_MODULES: dict[str, tuple[str, ...]] = {
    "toolscore_core.cases": ("Case", "cases"),
    "toolscore_core.canonical": ("file_sha256",),
    "toolscore_core.context": ("Evaluation", "EvaluationContext"),
    "toolscore_core.contracts": ("load_contract",),
    "toolscore_core.documents": ("JSON_FAILURES", "load_document", "loads", "type_name"),
    "toolscore_core.errors": ("InputError", "PluginError", "ToolscoreError"),
    "toolscore_core.evaluation": ("evaluate", "evaluate_files"),
    "toolscore_core.hookspecs": ("hookimpl",),
    "toolscore_core.importers": ("ImportSource", "ImportedRun", "RunImporter"),
    "toolscore_core.matchers": (
        "ANY", "AllOf", "AnyOf", "Approx", "Contains", "IsType", "Judged", "List", "Matcher",
        "Not", "Object", "OneOf", "Optional", "Regex", "Text", "from_json",
        "judged_in", "to_json", "to_repr", "values_match",
    ),
    "toolscore_core.models": (
        "Check", "CheckOutcome", "CheckResult", "Component", "Contract", "ExpectedCall",
        "ForbiddenRule", "FormatChoice", "Metric", "MetricOutcome", "MetricResult",
        "PluginInfo", "ReportWriter", "Setting", "Settings", "SideEffect", "Status", "ToolCall",
        "Trace", "TraceFormat",
    ),
    "toolscore_core.pairing": ("Pair",),
    "toolscore_core.plugins": ("Registry", "build_registry", "get_plugin_manager"),
    "toolscore_core.receipts": ("build_receipt",),
    "toolscore_core.regrade": ("Regrade", "regrade"),
    "toolscore_core.spans": ("SpanRef",),
    "toolscore_core.structure": ("Refusal", "at_least", "shape", "structure"),
    "toolscore_core.traces": ("load_trace", "parse_trace"),
    "toolscore_core.verify": ("verify_receipt",),
    "toolscore_core.wording": ("count", "number"),
    "toolscore_studies.runner": ("run_study",),
}

# what the built-in checks, metrics, judge and secret scanner use besides the above
_BUILT_INS_USE: dict[str, tuple[str, ...]] = {
    "toolscore_core.atomic": ("write_text_atomic",),
    "toolscore_core.batches": ("BATCH",),
    "toolscore_core.canonical": ("canonical_json", "canonical_sha256"),
    "toolscore_core.judging": ("Judging",),
    "toolscore_core.inputs": ("read_input",),
    "toolscore_core.matchers": (
        "absent_optional", "members_decide", "undecided_arguments", "undecided_in",
    ),
    "toolscore_core.pairing": ("arguments_differ", "arguments_unknown"),
    "toolscore_core.patterns": ("TIMED_OUT", "compile_pattern", "search"),
    "toolscore_judge.rulings": ("rulings", "undecided"),
    "toolscore_judge.judging": ("Question", "second_opinion"),
    "toolscore_judge.templates": ("CLAIMED_SUCCESS", "Template"),
    "toolscore_secrets.redaction": (
        "blob", "mask", "redact", "redact_text", "secret_key", "suspicious",
        "suspicious_value",
    ),
    "toolscore_secrets.scanning": ("find_in_value",),
}
# the format toolkit: what format readers and report writers share
_TOOLKIT: dict[str, tuple[str, ...]] = {
    "toolscore_core.components": ("toolscore_version",),
    "toolscore_core.documents": ("STRICT_DECODER",),
    "toolscore_core.matchers": ("decide",),
    "toolscore_formats.calls": ("CallTable", "outcome"),
    "toolscore_formats.content": ("block_content", "error_text", "text_of"),
    "toolscore_formats.cursor": ("TextCursor",),
    "toolscore_formats.messages": ("Conversation",),
    "toolscore_formats.spans": ("is_span",),
    "toolscore_formats.times": ("iso_from_nanos", "iso_timestamp", "parse_time", "seconds_between"),
    "toolscore_formats.values": (
        "as_float", "as_int", "as_str", "decode_args", "dict_of", "list_of", "maybe_json",
        "name_of",
    ),
    "toolscore_secrets.redaction": ("known_secrets", "mask_known"),
}
_EXPORTS: dict[str, str] = {
    name: module
    for modules in (_MODULES, _BUILT_INS_USE, _TOOLKIT)
    for module, names in modules.items()
    for name in names
}

# public submodules, imported on first attribute access (``toolscore.testing``)
_SUBMODULES: tuple[str, ...] = ("receipts", "testing")


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from toolscore_core.components import toolscore_version

        return toolscore_version()
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolscore' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
