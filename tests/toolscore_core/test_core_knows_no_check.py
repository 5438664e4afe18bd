"""The core names no built-in check: each check, metric and format brings its own options
and flags through the settings hook, so a check can be dropped or replaced without a
change in ``toolscore_core``."""

from __future__ import annotations

import re
from pathlib import Path

from toolscore_core.plugins import build_registry, get_plugin_manager

CORE = Path(__file__).resolve().parents[2] / "toolscore_core"


def _named(check_id: str) -> re.Pattern[str]:
    """Where source names a check: its id in quotes or backticks, and a hyphenated id
    anywhere (a one-word id such as "trajectory" is also an English word in prose)."""
    quoted = rf"[\"'`]{re.escape(check_id)}[\"'`]"
    if "-" in check_id:
        return re.compile(rf"{quoted}|(?<![\w.-]){re.escape(check_id)}(?![\w-])")
    return re.compile(quoted)


def test_no_built_in_check_id_appears_in_the_core() -> None:
    registry = build_registry(get_plugin_manager(entry_points=False, env={}))
    assert len(registry.checks) >= 10
    hits = []
    for path in sorted(CORE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for check_id in registry.checks:
            for match in _named(check_id).finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                hits.append(f"{path.relative_to(CORE.parent)}:{line}: {check_id}")
    assert hits == []


def test_the_pattern_finds_an_id_where_code_would_name_it() -> None:
    for text in ('config.get("side-effects")', "the ``side-effects`` check",
                 "side-effects: {validate: true}", "ids = ['trajectory']"):
        assert any(_named(i).search(text) for i in ("side-effects", "trajectory")), text
    for text in ("--validate-side-effects", "toolscore_checks.trajectory",
                 "the trajectory mode"):
        assert not any(_named(i).search(text) for i in ("side-effects", "trajectory")), text


def _declared_flags() -> list[str]:
    """Every shorthand flag the built-in plugins declare (``--validate-side-effects``)."""
    registry = build_registry(get_plugin_manager(entry_points=False, env={}))
    found = {s.flag for declared in registry.settings.values() for s in declared.settings
             if s.flag is not None}
    assert found, "the built-ins declare shorthand flags"
    return sorted(found)


def _flag_named(flag: str) -> re.Pattern[str]:
    """Where source names a flag: as the flag, or as the keyword ``Registry.config_with``
    takes for it (``validate_side_effects=``, ``injected_path``)."""
    keyword = re.escape(flag[2:].replace("-", "_"))
    return re.compile(rf"(?<![\w-]){re.escape(flag)}(?![\w-])|\b{keyword}_path\b"
                      rf"|\b{keyword}\s*=(?!=)")


def test_no_shorthand_flag_appears_in_the_core() -> None:
    hits = []
    flags = _declared_flags()
    for path in sorted(CORE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for flag in flags:
            for match in _flag_named(flag).finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                hits.append(f"{path.relative_to(CORE.parent)}:{line}: {match.group()}")
    assert hits == []


def test_evaluate_takes_no_keyword_of_a_check() -> None:
    import inspect

    from toolscore_core.evaluation import evaluate, evaluate_files

    keywords = {f[2:].replace("-", "_") for f in _declared_flags()}
    keywords |= {f"{k}_path" for k in keywords}
    for function in (evaluate, evaluate_files):
        assert not keywords & set(inspect.signature(function).parameters), function.__name__


def test_the_flag_pattern_finds_a_flag_where_code_would_name_it() -> None:
    pattern = _flag_named("--acme-rules")
    for text in ("click.option('--acme-rules')", "evaluate(acme_rules=doc)",
                 "acme_rules_path=path", "keyword acme_rules_path"):
        assert pattern.search(text), text
    for text in ("--acme-rules-extra", "acme_rules == x", "the acme rules file",
                 "'acme_rules': None"):
        assert not pattern.search(text), text
