"""The plugin manager: built-ins, then entry points, then the registry of what they provide."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable, Mapping
from functools import cache, cached_property
from types import FunctionType, MethodType, ModuleType
from typing import TYPE_CHECKING, Any

import pluggy
from attrs import evolve, frozen

from toolscore_core import hookspecs
from toolscore_core.components import DISTRIBUTION, toolscore_version
from toolscore_core.config import PluginConfig, config_with
from toolscore_core.errors import PluginError
from toolscore_core.gc_pause import paused_gc
from toolscore_core.judgment import core_settings
from toolscore_core.models import (
    Check,
    Metric,
    PluginInfo,
    ReportWriter,
    Setting,
    Settings,
    TraceFormat,
)

if TYPE_CHECKING:  # only importing another tool's results loads the importers' records
    from toolscore_core.importers import RunImporter

ENTRY_POINT_GROUP = "toolscore"
LOAD_ENV = "TOOLSCORE_LOAD_PLUGINS"
DISABLE_ENV = "TOOLSCORE_DISABLE_PLUGINS"

BUILTIN_PLUGINS: tuple[str, ...] = (
    "toolscore_formats.native",
    "toolscore_formats.openai_chat",
    "toolscore_formats.openai_responses",
    "toolscore_formats.anthropic",
    "toolscore_formats.gemini",
    "toolscore_formats.mcp",
    "toolscore_formats.otel",
    "toolscore_formats.langchain",
    "toolscore_formats.agents_sdk",
    "toolscore_formats.claude_agent_sdk",
    "toolscore_formats.bedrock_converse",
    "toolscore_formats.pydantic_ai",
    "toolscore_formats.jaeger",
    "toolscore_formats.vercel_ai",
    "toolscore_formats.langsmith",
    "toolscore_formats.google_adk",
    "toolscore_formats.openinference",
    "toolscore_formats.inspect_ai",
    "toolscore_formats.langfuse",
    "toolscore_formats.mlflow",
    "toolscore_formats.swe_agent",
    "toolscore_formats.mini_swe_agent",
    "toolscore_formats.openhands",
    "toolscore_formats.gemini_cli",
    "toolscore_formats.codex",
    "toolscore_formats.cline",
    "toolscore_checks.metrics.selection_accuracy",
    "toolscore_checks.metrics.argument_f1",
    "toolscore_checks.metrics.sequence_accuracy",
    "toolscore_checks.metrics.redundancy",
    "toolscore_checks.metrics.required_call_recall",
    "toolscore_checks.metrics.efficiency",
    "toolscore_checks.metrics.latency",
    "toolscore_checks.metrics.cost",
    "toolscore_checks.required_calls",
    "toolscore_checks.trajectory",
    "toolscore_checks.call_errors",
    "toolscore_checks.forbidden_calls",
    "toolscore_checks.credentials",
    "toolscore_checks.claimed_success",
    "toolscore_checks.disclosure",
    "toolscore_checks.escape_hatch",
    "toolscore_checks.prompt_injection",
    "toolscore_checks.side_effects",
    "toolscore_checks.expected_outputs",
    "toolscore_judge.answer",
    "toolscore_judge.arguments",
    "toolscore_formats.reports.console",
    "toolscore_formats.reports.json_report",
    "toolscore_formats.reports.markdown",
    "toolscore_formats.reports.html",
    "toolscore_formats.reports.junit",
    "toolscore_studies.importers.tau_bench",
    "toolscore_studies.importers.tau2_bench",
    "toolscore_studies.importers.bfcl",
    "toolscore_studies.importers.agentdojo",
    "toolscore_studies.importers.inspect_ai",
)
"""Every built-in plugin, once, in the order their records are listed."""

# hook name -> (kind label, record class), for the hooks every registry calls
KINDS: dict[str, tuple[str, type]] = {
    "toolscore_register_trace_formats": ("trace format", TraceFormat),
    "toolscore_register_checks": ("check", Check),
    "toolscore_register_metrics": ("metric", Metric),
    "toolscore_register_report_writers": ("report writer", ReportWriter),
    "toolscore_register_settings": ("settings", Settings),
}
RUN_IMPORTERS_HOOK = "toolscore_register_run_importers"
"""Called when a registry's run importers are first asked for (``Registry.run_importers``)."""
HOOKS: tuple[str, ...] = (*KINDS, RUN_IMPORTERS_HOOK)
"""Every hook toolscore knows."""


_MODULE_TYPE_NAMES = frozenset(vars(ModuleType))
"""What a module's type itself defines, which pluggy's static lookup would find first."""
_IMPL_MARK = hookspecs.PROJECT + "_impl"


class PluginManager(pluggy.PluginManager):
    """pluggy's manager, reading a module plugin's names from the module's namespace.

    ``register`` asks ``parse_hookimpl_opts`` about every name in ``dir(plugin)``; pluggy
    answers each with ``inspect.getattr_static``, which for a module holding its imports
    is most of the cost of registering it. A name of a plain module that holds a plain
    function or anything that cannot be a hook implementation is answered here from
    ``vars(module)`` alone, with the answer pluggy would give (a property test holds the
    two equal); every other name and every other plugin goes to pluggy.
    """

    def parse_hookimpl_opts(self, plugin: object, name: str) -> Any:
        if type(plugin) is ModuleType and name not in _MODULE_TYPE_NAMES:
            value = vars(plugin).get(name)
            if type(value) is FunctionType:
                opts = getattr(value, _IMPL_MARK, None)
                return opts if isinstance(opts, dict) else None
            if not isinstance(value, (FunctionType, MethodType, staticmethod, classmethod)):
                return None
        return super().parse_hookimpl_opts(plugin, name)


def _split_env(value: str | None) -> list[str]:
    return [item.strip() for item in (value or "").split(",") if item.strip()]


def get_plugin_manager(
    *, entry_points: bool = True, env: Mapping[str, str] | None = None
) -> pluggy.PluginManager:
    """A new manager with the built-ins and (unless disabled) the ``toolscore`` entry points.

    ``TOOLSCORE_DISABLE_PLUGINS=a,b`` blocks plugins by name (built-in module names or
    entry-point names); ``TOOLSCORE_LOAD_PLUGINS=a,b`` loads only those entry points
    (empty: none).
    """
    env = os.environ if env is None else env
    pm = PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for name in _split_env(env.get(DISABLE_ENV)):
        pm.set_blocked(name)
    for module_name in BUILTIN_PLUGINS:
        if pm.is_blocked(module_name):
            continue
        pm.register(importlib.import_module(module_name), name=module_name)
    if entry_points:
        _load_entry_points(pm, env.get(LOAD_ENV))
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise PluginError(
            f"{exc}; the hooks toolscore knows are {', '.join(HOOKS)} "
            f"(disable the plugin with {DISABLE_ENV}=<name>)"
        ) from None
    return pm


def _load_entry_points(pm: pluggy.PluginManager, only: str | None) -> None:
    """The ``toolscore`` entry points (only those named in ``only``, when given), by name."""
    wanted = None if only is None else set(_split_env(only))
    if wanted == set():
        return
    from importlib.metadata import entry_points

    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        if wanted is not None and ep.name not in wanted:
            continue
        try:
            pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP, name=ep.name)
        except ValueError as exc:
            raise PluginError(f"plugin {ep.name!r} could not be registered: {exc}") from None
        except Exception as exc:
            raise PluginError(
                f"plugin {ep.name!r} ({ep.value}) failed to load: {type(exc).__name__}: {exc}; "
                f"disable it with {DISABLE_ENV}={ep.name} or uninstall its distribution"
            ) from None


def plugin_info(pm: pluggy.PluginManager, plugin: Any) -> PluginInfo:
    """Name, distribution and version of a registered plugin."""
    name = pm.get_name(plugin) or repr(plugin)
    if name in BUILTIN_PLUGINS:
        return PluginInfo(name=name, distribution=DISTRIBUTION, version=toolscore_version())
    for loaded, dist in pm.list_plugin_distinfo():
        if loaded is plugin:
            return PluginInfo(name=name, distribution=dist.metadata["name"],
                              version=dist.version)
    return PluginInfo(name=name)


@frozen
class Registry:
    """Everything the loaded plugins provide, by kind and id, each stamped with its plugin."""

    trace_formats: Mapping[str, TraceFormat]
    checks: Mapping[str, Check]
    metrics: Mapping[str, Metric]
    report_writers: Mapping[str, ReportWriter]
    settings: Mapping[str, Settings]
    """The options of checks, metrics and trace formats, by their id."""
    plugins: tuple[PluginInfo, ...]
    hooks: Mapping[str, tuple[str, ...]]
    """Plugin name -> the hooks it implements."""
    run_importer_hooks: tuple[tuple[PluginInfo, Callable[[], Any]], ...] = ()
    """The implementations of ``toolscore_register_run_importers``, each with its plugin, in
    plugin order: ``run_importers`` calls them."""
    disabled: tuple[str, ...] = ()
    """The plugins blocked by ``TOOLSCORE_DISABLE_PLUGINS``, by name."""

    @cached_property
    def run_importers(self) -> Mapping[str, RunImporter]:
        """Readers of other tools' results, by the FORMAT of ``toolscore runs import``,
        collected on first use: a duplicate id or a bad record is a PluginError then."""
        from toolscore_core.importers import RunImporter

        return _collect(self.run_importer_hooks, RUN_IMPORTERS_HOOK, "run importer",
                        RunImporter)

    def config_with(
        self, config: PluginConfig | None = None, /, **shorthands: Any
    ) -> dict[str, dict[str, Any]]:
        """Plugin options for ``evaluate(config=...)`` and ``evaluate_files(config=...)``:
        ``config`` (options by plugin id, then name) with the options the shorthand flags
        the loaded plugins declare (``Setting.flag``) fill. Give each flag as its keyword:
        ``--acme-strict`` as ``acme_strict=True``, and a flag that reads a file either as
        ``acme_rules_path=PATH`` (the file is read and checked, an error names it) or as
        ``acme_rules=VALUE`` (the decoded document). A flag given wins over the same
        option in ``config``; one left at None or False sets nothing; one no loaded plugin
        declares is an InputError, which names the plugin when it is disabled."""
        return config_with(config, self.settings, _disabled_flags(self.disabled), shorthands)


def build_registry(pm: pluggy.PluginManager) -> Registry:
    """Call every register hook, stamp provenance, and refuse duplicate ids."""
    collected: dict[str, dict[str, Any]] = {}
    hooks: dict[str, list[str]] = {}
    order = {name: i for i, name in enumerate(BUILTIN_PLUGINS)}
    plugins = sorted(
        pm.get_plugins(), key=lambda p: (order.get(pm.get_name(p) or "", len(order)),
                                         pm.get_name(p) or "")
    )
    infos = {id(p): plugin_info(pm, p) for p in plugins}
    implementations: dict[str, list[tuple[PluginInfo, Callable[[], Any]]]] = {}
    for hook_name in HOOKS:
        impls = {id(impl.plugin): impl for impl in getattr(pm.hook, hook_name).get_hookimpls()}
        found = implementations[hook_name] = []
        for plugin in plugins:
            impl = impls.get(id(plugin))
            if impl is None:
                continue
            info = infos[id(plugin)]
            hooks.setdefault(info.name, []).append(hook_name)
            found.append((info, impl.function))
    for hook_name, (kind, record_type) in KINDS.items():
        collected[hook_name] = _collect(implementations[hook_name], hook_name, kind, record_type)
    settings = collected["toolscore_register_settings"]
    for declared in settings.values():
        _check_settings(declared, collected)
    for declared in core_settings():
        if declared.id in settings:
            raise PluginError(f"{_who(settings[declared.id].plugin or PluginInfo(name='unknown'))}"
                              f" declares settings for {declared.id!r}, a section of "
                              "toolscore's own; name another id")
        settings[declared.id] = evolve(declared, plugin=PluginInfo(
            name="toolscore_core", distribution=DISTRIBUTION, version=toolscore_version()))
    return Registry(
        trace_formats=collected["toolscore_register_trace_formats"],
        checks=collected["toolscore_register_checks"],
        metrics=collected["toolscore_register_metrics"],
        report_writers=collected["toolscore_register_report_writers"],
        settings=settings,
        plugins=tuple(infos[id(p)] for p in plugins),
        hooks={name: tuple(h) for name, h in hooks.items()},
        run_importer_hooks=tuple(implementations[RUN_IMPORTERS_HOOK]),
        disabled=tuple(sorted(name for name, plugin in pm.list_name_plugin() if plugin is None)),
    )


def _collect(implementations: Iterable[tuple[PluginInfo, Callable[[], Any]]], hook_name: str,
             kind: str, record_type: type) -> dict[str, Any]:
    """The records the implementations of one hook return, by id, each stamped with its
    plugin; an id two plugins provide is a PluginError naming both."""
    records: dict[str, Any] = {}
    for info, function in implementations:
        for record in _call_register(function, info, hook_name, kind, record_type):
            previous = records.get(record.id)
            if previous is not None:
                raise PluginError(
                    f"{kind} id {record.id!r} is provided by both {_who(previous.plugin)} "
                    f"and {_who(info)}; disable one with {DISABLE_ENV}=<name>"
                )
            records[record.id] = evolve(record, plugin=info)
    return records


def _disabled_flags(disabled: Iterable[str]) -> dict[str, str]:
    """The shorthand flags of the disabled built-in plugins -> the plugin's name (an entry
    point that is disabled is never loaded, so its flags are not known)."""
    found: dict[str, str] = {}
    for name in disabled:
        if name not in BUILTIN_PLUGINS:
            continue
        register = getattr(importlib.import_module(name), "toolscore_register_settings", None)
        for declared in register() if register is not None else ():
            for setting in declared.settings:
                if setting.flag is not None:
                    found.setdefault(setting.flag, name)
    return found


SETTING_TYPES: tuple[type, ...] = (bool, int, float, str, list, dict, object)
"""What a ``Setting.type`` may be: the JSON types a config file can hold, or any."""


def _check_settings(declared: Settings, collected: Mapping[str, Mapping[str, Any]]) -> None:
    """A plugin's options name a check, metric or format that is loaded, once each."""
    owners = ("toolscore_register_checks", "toolscore_register_metrics",
              "toolscore_register_trace_formats")
    who = _who(declared.plugin or PluginInfo(name="unknown"))
    if not any(declared.id in collected[hook] for hook in owners):
        raise PluginError(
            f"{who} declares settings for {declared.id!r}, which no loaded check, metric or "
            "trace format has as its id; name the id of one in Settings(id=...)")
    names: set[str] = set()
    for setting in declared.settings:
        if not isinstance(setting, Setting):
            raise PluginError(f"{who} lists {type(setting).__name__} in the settings of "
                              f"{declared.id!r}; list Setting records")
        if setting.name in names:
            raise PluginError(f"{who} declares the option {setting.name!r} of "
                              f"{declared.id!r} twice; give each option once")
        if setting.type not in SETTING_TYPES:
            raise PluginError(
                f"{who} declares the option {declared.id}.{setting.name} of type "
                f"{getattr(setting.type, '__name__', setting.type)!s}; use one of "
                f"{', '.join(t.__name__ for t in SETTING_TYPES)}")
        names.add(setting.name)


def _who(info: PluginInfo) -> str:
    if info.distribution:
        return f"plugin {info.name!r} ({info.distribution} {info.version})"
    return f"plugin {info.name!r}"


def provider(info: PluginInfo | None) -> str:
    """The plugin that provides a record, for a message: name, distribution and version."""
    return "an unregistered plugin" if info is None else _who(info)


def _call_register(
    function: Any, info: PluginInfo, hook_name: str, kind: str, record_type: type
) -> Iterable[Any]:
    try:
        records = function()
    except Exception as exc:
        raise PluginError(
            f"{_who(info)} failed in {hook_name}: {type(exc).__name__}: {exc}; "
            f"disable it with {DISABLE_ENV}={info.name}"
        ) from None
    if records is None:
        return []
    if isinstance(records, record_type):
        records = [records]
    out = list(records)
    for record in out:
        if not isinstance(record, record_type):
            raise PluginError(
                f"{_who(info)} returned {type(record).__name__} from {hook_name}; "
                f"it must return a list of {record_type.__name__} ({kind} records)"
            )
    return out


@cache
def default_registry() -> Registry:
    """The registry of the default manager, built once per process on first use.

    The collector is paused meanwhile: importing the plugins makes thousands of objects
    that live as long as the process (functions, classes, records) and no garbage, so
    collector passes over them would be pure overhead."""
    with paused_gc():
        return build_registry(get_plugin_manager())
