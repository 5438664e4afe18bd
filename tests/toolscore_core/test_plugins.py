"""The plugin engine: built-ins, throwaway plugins, env switches, errors that name names."""

from __future__ import annotations

import sys
import textwrap
import types

import pytest

from toolscore_core.components import toolscore_version
from toolscore_core.errors import InputError, PluginError
from toolscore_core.evaluation import evaluate
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import (
    Check,
    CheckOutcome,
    Metric,
    MetricOutcome,
    Setting,
    Settings,
    ToolCall,
)
from toolscore_core.plugins import BUILTIN_PLUGINS, build_registry, get_plugin_manager


def make_plugin(name: str, **hooks: object) -> types.ModuleType:
    module = types.ModuleType(name)
    for hook_name, function in hooks.items():
        setattr(module, hook_name, hookimpl(function))  # type: ignore[arg-type]
    return module


def registry_with(*plugins: types.ModuleType, env: dict[str, str] | None = None):
    pm = get_plugin_manager(entry_points=False, env=env or {})
    for plugin in plugins:
        pm.register(plugin, name=plugin.__name__)
    return build_registry(pm)


def test_every_builtin_is_its_own_plugin_with_toolscore_version() -> None:
    registry = registry_with()
    names = [p.name for p in registry.plugins]
    assert names == list(BUILTIN_PLUGINS)
    assert {p.distribution for p in registry.plugins} == {"toolscore"}
    assert {p.version for p in registry.plugins} == {toolscore_version()}


def test_results_are_stamped_with_the_plugin_that_made_them() -> None:
    result = evaluate([{"tool": "a"}], [ToolCall(tool="a", result=1, is_error=False)])
    check = result.evidence.get("call-errors")
    assert check is not None and check.plugin.name == "toolscore_checks.call_errors"
    assert check.plugin.distribution == "toolscore"
    metric = next(m for m in result.metric_results if m.id == "selection_accuracy")
    assert metric.plugin.name == "toolscore_checks.metrics.selection_accuracy"


def test_a_check_that_raises_is_unknown_never_pass() -> None:
    def run(context):
        raise RuntimeError("disk on fire")

    plugin = make_plugin("fragile", toolscore_register_checks=lambda: [
        Check(id="fragile-check", description="breaks", run=run)])
    result = evaluate([], [], registry=registry_with(plugin))
    check = result.evidence.get("fragile-check")
    assert check is not None
    assert check.status == "unknown"
    assert "RuntimeError: disk on fire" in check.reason
    assert check.plugin.name == "fragile"


def test_a_throwaway_check_and_metric_take_part_and_are_recorded() -> None:
    plugin = make_plugin(
        "counting",
        toolscore_register_checks=lambda: [Check(
            id="has-answer", description="a final answer was given",
            run=lambda ctx: CheckOutcome("pass" if ctx.final_answer else "unknown", "looked"))],
        toolscore_register_metrics=lambda: [Metric(
            id="call_count", description="calls made",
            compute=lambda ctx: MetricOutcome(value=len(ctx.calls)))],
    )
    result = evaluate([], [ToolCall(tool="x")], final_answer="done",
                      registry=registry_with(plugin))
    record = result.to_dict()
    assert record["metrics"]["call_count"] == 1
    assert {"name": "counting", "distribution": None, "version": None} in record["plugins"]
    assert result.evidence.get("has-answer").status == "pass"


def test_duplicate_ids_name_both_providers() -> None:
    clash = make_plugin("clash", toolscore_register_checks=lambda: [
        Check(id="call-errors", description="again", run=lambda ctx: None)])
    with pytest.raises(PluginError) as info:
        registry_with(clash)
    message = str(info.value)
    assert "check id 'call-errors'" in message
    assert "'toolscore_checks.call_errors' (toolscore" in message
    assert "'clash'" in message


def test_a_wrong_record_type_is_refused_with_the_hook_named() -> None:
    bad = make_plugin("bad", toolscore_register_metrics=lambda: ["not a metric"])
    with pytest.raises(PluginError, match="returned str from toolscore_register_metrics"):
        registry_with(bad)


def test_a_misspelt_hookimpl_is_caught() -> None:
    pm = get_plugin_manager(entry_points=False, env={})
    module = types.ModuleType("typo")
    module.toolscore_register_chekcs = hookimpl(lambda: [])  # type: ignore[attr-defined]
    pm.register(module, name="typo")
    import pluggy

    with pytest.raises(pluggy.PluginValidationError, match="unknown hook"):
        pm.check_pending()


def test_disable_env_blocks_a_builtin() -> None:
    registry = registry_with(env={"TOOLSCORE_DISABLE_PLUGINS": "toolscore_checks.call_errors"})
    assert "call-errors" not in registry.checks
    assert "required-calls" in registry.checks


def test_load_env_selects_entry_points(tmp_path, monkeypatch) -> None:
    package = tmp_path / "ep_plugin_pkg"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent("""
        from toolscore_core.hookspecs import hookimpl
        from toolscore_core.models import CheckOutcome
        from toolscore_core.models import Check

        @hookimpl
        def toolscore_register_checks():
            return [Check(id="ep-check", description="d",
                          run=lambda ctx: CheckOutcome("pass", "ok"))]
    """))
    dist = tmp_path / "ep_plugin_pkg-0.3.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ep-plugin-pkg\nVersion: 0.3\n")
    (dist / "entry_points.txt").write_text("[toolscore]\nepcheck = ep_plugin_pkg\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    loaded = build_registry(get_plugin_manager(env={}))
    assert "ep-check" in loaded.checks
    assert loaded.checks["ep-check"].plugin.to_dict() == {
        "name": "epcheck", "distribution": "ep-plugin-pkg", "version": "0.3"}
    none = build_registry(get_plugin_manager(env={"TOOLSCORE_LOAD_PLUGINS": ""}))
    assert "ep-check" not in none.checks
    blocked = build_registry(get_plugin_manager(env={"TOOLSCORE_DISABLE_PLUGINS": "epcheck"}))
    assert "ep-check" not in blocked.checks
    sys.modules.pop("ep_plugin_pkg", None)


def test_a_plugin_that_fails_to_import_is_named(tmp_path, monkeypatch) -> None:
    (tmp_path / "broken_pkg.py").write_text("raise ImportError('missing dependency zzz')\n")
    dist = tmp_path / "broken_pkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-pkg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[toolscore]\nbroken = broken_pkg\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PluginError, match=r"plugin 'broken'.*missing dependency zzz.*"
                                          r"TOOLSCORE_DISABLE_PLUGINS=broken"):
        get_plugin_manager(env={})


def test_what_a_plugin_depends_on_is_recorded_in_receipts() -> None:
    """A check that names its library and model file gets their versions in the receipt;
    one that did not take part (it returned None: not applicable) adds nothing."""
    from importlib.metadata import version

    from toolscore_core.models import Component
    from toolscore_core.receipts import build_receipt

    model = Component(name="acme/model.bin", version=lambda: "sha256:" + "ab" * 32)
    plugin = make_plugin("acme", toolscore_register_checks=lambda: [
        Check(id="acme-judged", description="judged", depends_on=("pluggy", model),
              run=lambda context: CheckOutcome("pass", "fine")),
        Check(id="acme-idle", description="never applies", depends_on=("attrs",),
              run=lambda context: None)])
    receipt = build_receipt(evaluate([], [], registry=registry_with(plugin)))
    components = receipt["components"]
    assert components["pluggy"] == version("pluggy")
    assert components["acme/model.bin"] == "sha256:" + "ab" * 32
    assert "attrs" not in components
    assert components["python"].startswith("cpython ")


def _slow_calls(limit_default: float = 30.0) -> types.ModuleType:
    """A check with one option, ``limit``, declared through toolscore_register_settings."""
    def run(context):
        limit = context.config_for("slow-calls")["limit"]
        slow = [c.tool for c in context.calls if c.duration is not None and c.duration > limit]
        return CheckOutcome("fail" if slow else "pass", f"limit {limit:g}s", {"slow": slow})

    return make_plugin(
        "slow",
        toolscore_register_checks=lambda: [Check(id="slow-calls", description="d", run=run)],
        toolscore_register_settings=lambda: [Settings(id="slow-calls", settings=(
            Setting(name="limit", type=float, default=limit_default, help="seconds"),))])


def test_a_plugin_reads_its_option_or_its_default() -> None:
    registry = registry_with(_slow_calls())
    calls = [ToolCall(tool="build", duration=45.0, result="ok", is_error=False)]
    assert registry.settings["slow-calls"].plugin.name == "slow"
    plain = evaluate([], calls, registry=registry).evidence.get("slow-calls")
    assert plain is not None and (plain.status, plain.reason) == ("fail", "limit 30s")
    given = evaluate([], calls, registry=registry, config={"slow-calls": {"limit": 60}})
    check = given.evidence.get("slow-calls")
    assert check is not None and (check.status, check.reason) == ("pass", "limit 60s")


def test_config_for_an_id_without_options_makes_the_check_unknown() -> None:
    def run(context):
        return CheckOutcome("pass", str(context.config_for("nobody")))

    plugin = make_plugin("asks", toolscore_register_checks=lambda: [
        Check(id="asks", description="d", run=run)])
    check = evaluate([], [], registry=registry_with(plugin)).evidence.get("asks")
    assert check is not None and check.status == "unknown"
    assert "no plugin declares options for 'nobody'" in check.reason


def test_the_python_config_is_checked_like_a_file() -> None:
    with pytest.raises(InputError) as caught:
        evaluate([], [], registry=registry_with(_slow_calls()),
                 config={"slow-calls": {"limit": "soon"}})
    assert caught.value.place == "$.slow-calls.limit"


@pytest.mark.parametrize(("settings", "message"), [
    (Settings(id="no-such-check", settings=()),
     "plugin 'bad' declares settings for 'no-such-check', which no loaded check, metric or "
     "trace format has as its id"),
    (Settings(id="call-errors", settings=(Setting(name="a", type=int),
                                           Setting(name="a", type=str))),
     "plugin 'bad' declares the option 'a' of 'call-errors' twice"),
    (Settings(id="call-errors", settings=(Setting(name="when", type=tuple),)),
     "plugin 'bad' declares the option call-errors.when of type tuple; use one of bool, int, "
     "float, str, list, dict, object"),
])
def test_settings_must_name_a_loaded_id_and_list_each_option_once(
    settings: Settings, message: str
) -> None:
    plugin = make_plugin("bad", toolscore_register_settings=lambda: [settings])
    with pytest.raises(PluginError, match=message):
        registry_with(plugin)


def test_two_plugins_declaring_options_for_one_id_name_both() -> None:
    plugin = make_plugin("rival", toolscore_register_settings=lambda: [
        Settings(id="side-effects", settings=())])
    with pytest.raises(PluginError) as caught:
        registry_with(plugin)
    assert ("settings id 'side-effects' is provided by both plugin "
            "'toolscore_checks.side_effects'") in str(caught.value)
    assert "plugin 'rival'" in str(caught.value)


def _acme_tools() -> types.ModuleType:
    """A check with two shorthand flags: a switch and one that reads a file."""
    def run(context):
        options = context.config_for("acme-tools")
        return CheckOutcome("pass", f"strict={options['strict']} rules={options['rules']}")

    def rules(value):
        if not isinstance(value.get("tools"), list):
            raise InputError("tools is a list of tool names", place="$.tools",
                             fix="write tools: [name, ...]")

    return make_plugin(
        "acme",
        toolscore_register_checks=lambda: [Check(id="acme-tools", description="d", run=run)],
        toolscore_register_settings=lambda: [Settings(id="acme-tools", settings=(
            Setting(name="strict", type=bool, default=False, flag="--acme-strict"),
            Setting(name="rules", type=dict, default=None, validate=rules,
                    flag="--acme-rules", reads="acme rules"),
        ))])


def test_config_with_fills_the_options_of_the_flags_given_over_the_config(tmp_path) -> None:
    registry = registry_with(_acme_tools())
    path = tmp_path / "rules.yaml"
    path.write_text("tools: [deploy]\n", encoding="utf-8")
    given = {"acme-tools": {"strict": False, "rules": {"tools": ["other"]}}}
    config = registry.config_with(given, acme_strict=True, acme_rules_path=path)
    assert config == {"acme-tools": {"strict": True, "rules": {"tools": ["deploy"]}}}
    assert given["acme-tools"]["strict"] is False, "the given config is not changed"
    check = evaluate([], [], registry=registry, config=config).evidence.get("acme-tools")
    assert check is not None and check.reason == "strict=True rules={'tools': ['deploy']}"
    decoded = registry.config_with(acme_rules={"tools": []})
    assert decoded == {"acme-tools": {"rules": {"tools": []}}}
    assert registry.config_with(acme_strict=False, acme_rules_path=None) == {}


def test_config_with_names_the_file_of_a_flag_whose_value_its_plugin_refuses(tmp_path) -> None:
    registry = registry_with(_acme_tools())
    path = tmp_path / "rules.yaml"
    path.write_text("tools: 3\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        registry.config_with(acme_rules_path=path)
    assert (caught.value.file, caught.value.place) == (str(path), "$.tools")
    with pytest.raises(InputError, match="tools is a list"):
        registry.config_with(acme_rules={"tools": 3})


def test_config_with_refuses_a_flag_no_plugin_declares_and_a_file_for_a_switch() -> None:
    registry = registry_with(_acme_tools())
    with pytest.raises(InputError, match="no loaded plugin declares --acme-loud"):
        registry.config_with(acme_loud=True)
    with pytest.raises(InputError, match="--acme-strict takes no file"):
        registry.config_with(acme_strict_path="strict.json")


@pytest.mark.parametrize(("plugin", "keyword"), [
    ("toolscore_checks.side_effects", "validate_side_effects"),
    ("toolscore_checks.prompt_injection,toolscore_checks.disclosure", "injected"),
])
def test_a_flag_of_a_disabled_plugin_is_an_error_naming_the_plugin(plugin: str,
                                                                    keyword: str) -> None:
    registry = registry_with(env={"TOOLSCORE_DISABLE_PLUGINS": plugin})
    with pytest.raises(InputError) as caught:
        registry.config_with(**{keyword: {"kind": "toolscore.injected"}})
    assert "which is disabled" in caught.value.problem
    assert caught.value.problem.split("'")[1] in plugin.split(",")
