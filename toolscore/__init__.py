"""toolscore: deterministic, offline evaluation of LLM agents' tool calls.

The public API. Everything here is imported on first use, so ``import toolscore`` is cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscore_core.contracts import load_contract
    from toolscore_core.errors import InputError
    from toolscore_core.evaluation import evaluate, evaluate_files
    from toolscore_core.context import Evaluation, EvaluationContext
    from toolscore_core.plugins import Registry, build_registry, get_plugin_manager
    from toolscore_core.matchers import (
        ANY,
        AllOf,
        AnyOf,
        Approx,
        Contains,
        IsType,
        Judged,
        List,
        Not,
        Object,
        OneOf,
        Optional,
        Regex,
        Text,
    )
    from toolscore_core.models import (
        Check,
        CheckOutcome,
        Component,
        Contract,
        ExpectedCall,
        ImportedRun,
        ImportSource,
        Metric,
        MetricOutcome,
        ReportWriter,
        RunImporter,
        Setting,
        Settings,
        SpanRef,
        ToolCall,
        Trace,
        TraceFormat,
    )
    from toolscore_core.hookspecs import hookimpl
    from toolscore_core.traces import load_trace
    from toolscore_core.receipts import build_receipt
    from toolscore_core.verify import verify_receipt
    from toolscore_core.regrade import Regrade, regrade
    from toolscore import receipts
    from toolscore_studies.runner import run_study
    from toolscore_core.cases import Case, cases

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "evaluate": "toolscore_core.evaluation",
    "evaluate_files": "toolscore_core.evaluation",
    "Evaluation": "toolscore_core.context",
    "EvaluationContext": "toolscore_core.context",
    "InputError": "toolscore_core.errors",
    "Registry": "toolscore_core.plugins",
    "build_registry": "toolscore_core.plugins",
    "get_plugin_manager": "toolscore_core.plugins",
    "load_contract": "toolscore_core.contracts",
    "load_trace": "toolscore_core.traces",
    "ANY": "toolscore_core.matchers",
    "Regex": "toolscore_core.matchers",
    "Approx": "toolscore_core.matchers",
    "Contains": "toolscore_core.matchers",
    "OneOf": "toolscore_core.matchers",
    "IsType": "toolscore_core.matchers",
    "Judged": "toolscore_core.matchers",
    "Optional": "toolscore_core.matchers",
    "AllOf": "toolscore_core.matchers",
    "AnyOf": "toolscore_core.matchers",
    "Not": "toolscore_core.matchers",
    "Text": "toolscore_core.matchers",
    "Object": "toolscore_core.matchers",
    "List": "toolscore_core.matchers",
    "ToolCall": "toolscore_core.models",
    "Trace": "toolscore_core.models",
    "ExpectedCall": "toolscore_core.models",
    "Contract": "toolscore_core.models",
    "TraceFormat": "toolscore_core.models",
    "RunImporter": "toolscore_core.models",
    "ImportedRun": "toolscore_core.models",
    "ImportSource": "toolscore_core.models",
    "Check": "toolscore_core.models",
    "CheckOutcome": "toolscore_core.models",
    "Component": "toolscore_core.models",
    "Metric": "toolscore_core.models",
    "MetricOutcome": "toolscore_core.models",
    "ReportWriter": "toolscore_core.models",
    "Setting": "toolscore_core.models",
    "Settings": "toolscore_core.models",
    "SpanRef": "toolscore_core.models",
    "hookimpl": "toolscore_core.hookspecs",
    "regrade": "toolscore_core.regrade",
    "Regrade": "toolscore_core.regrade",
    "build_receipt": "toolscore_core.receipts",
    "verify_receipt": "toolscore_core.verify",
    "run_study": "toolscore_studies.runner",
    "cases": "toolscore_core.cases",
    "Case": "toolscore_core.cases",
}

# public submodules, imported on first attribute access (``toolscore.receipts``)
_SUBMODULES: tuple[str, ...] = ("receipts",)

__all__ = [*sorted(_EXPORTS), *_SUBMODULES, "__version__"]


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
