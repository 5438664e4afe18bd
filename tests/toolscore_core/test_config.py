"""Plugin options: a config file's sections checked against what plugins declare, and the
flags that fill the same options."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolscore_core.config import check_config, load_config, with_shorthands
from toolscore_core.errors import InputError
from toolscore_core.models import Setting, Settings
from toolscore_core.plugins import default_registry


def _positive(value: Any) -> None:
    if value <= 0:
        raise InputError("must be above 0", place="$", fix="give a number of seconds")


DECLARED = {
    "acme-slow-calls": Settings(id="acme-slow-calls", settings=(
        Setting(name="limit", type=float, default=30.0, validate=_positive),
        Setting(name="tools", type=list, default=None),
        Setting(name="strict", type=bool, default=False),
        Setting(name="label", type=str, default="slow"),
        Setting(name="retries", type=int, default=0),
        Setting(name="extra", type=object, default=None),
    )),
}


def _error(config: Any) -> InputError:
    with pytest.raises(InputError) as caught:
        check_config(config, DECLARED, file="toolscore.yaml")
    return caught.value


def test_declared_options_of_every_type_pass() -> None:
    check_config({"acme-slow-calls": {"limit": 60, "tools": ["build"], "strict": True,
                                      "label": "x", "retries": 2, "extra": [1, {"a": None}]}},
                 DECLARED, file="toolscore.yaml")


def test_null_means_the_default() -> None:
    check_config({"acme-slow-calls": {"limit": None}}, DECLARED)


def test_an_unknown_section_names_the_file_the_path_and_the_sections() -> None:
    error = _error({"acme_slow_calls": {"limit": 60}})
    assert error.one_line() == (
        "toolscore.yaml: $.acme_slow_calls: unknown section 'acme_slow_calls'; sections are "
        "the ids of plugins with options: acme-slow-calls")


def test_an_unknown_option_names_the_options_of_its_section() -> None:
    error = _error({"acme-slow-calls": {"limt": 60}})
    assert error.place == "$.acme-slow-calls.limt"
    assert error.fix == "acme-slow-calls takes limit, tools, strict, label, retries, extra"


@pytest.mark.parametrize(("option", "value", "problem"), [
    ("limit", "60", "limit must be a number, not a string"),
    ("limit", True, "limit must be a number, not a boolean"),
    ("strict", 1, "strict must be true or false, not a number"),
    ("retries", 1.5, "retries must be a whole number, not a number"),
    ("tools", "build", "tools must be a list, not a string"),
    ("label", ["x"], "label must be a string, not a list"),
])
def test_a_value_of_the_wrong_type(option: str, value: Any, problem: str) -> None:
    error = _error({"acme-slow-calls": {option: value}})
    assert (error.file, error.place, error.problem) == (
        "toolscore.yaml", f"$.acme-slow-calls.{option}", problem)
    assert error.fix and error.fix.startswith(f"write {option}: ")


def test_the_plugins_own_check_speaks_at_the_options_path() -> None:
    error = _error({"acme-slow-calls": {"limit": -1}})
    assert error.one_line() == ("toolscore.yaml: $.acme-slow-calls.limit: must be above 0; "
                                "give a number of seconds")


def test_a_built_in_checks_words_are_checked_by_the_honesty_config_rules() -> None:
    with pytest.raises(InputError) as caught:
        check_config({"escape-hatch": {"words": {"extend": {"refusal": ["no"]}}}},
                     default_registry().settings, file="toolscore.yaml")
    assert caught.value.place == "$.escape-hatch.words.extend.refusal"
    assert caught.value.problem == "unknown key 'refusal'"


@pytest.mark.parametrize(("text", "place", "problem"), [
    ("- side-effects\n", "$", "the config is an object, not a list"),
    ("side-effects: true\n", "$.side-effects",
     "the section 'side-effects' is an object of options, not a boolean"),
])
def test_a_config_file_is_an_object_of_sections(tmp_path: Path, text: str, place: str,
                                                problem: str) -> None:
    path = tmp_path / "toolscore.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_config(path)
    assert (caught.value.file, caught.value.place, caught.value.problem) == (
        str(path), place, problem)


def test_a_yaml_config_may_share_one_value_between_sections(tmp_path: Path) -> None:
    path = tmp_path / "toolscore.yaml"
    path.write_text("claimed-success:\n  words: &w {extend: {success_phrases: [shipped]}}\n"
                    "disclosure:\n  words: *w\n", encoding="utf-8")
    config = load_config(path)
    assert config["disclosure"]["words"] == config["claimed-success"]["words"]
    check_config(config, default_registry().settings, file=str(path))


def test_a_flag_fills_every_option_it_stands_for_and_wins_over_the_config() -> None:
    declared = default_registry().settings
    config = {"side-effects": {"validate": False}, "disclosure": {"words": {"x": 1}}}
    merged = with_shorthands(config, declared, validate_side_effects=True,
                             honesty_config={"success_phrases": ["ok"]}, injected=None)
    assert merged["side-effects"] == {"validate": True}
    for check in ("claimed-success", "disclosure", "escape-hatch"):
        assert merged[check] == {"words": {"success_phrases": ["ok"]}}
    assert "prompt-injection" not in merged
    assert config["side-effects"] == {"validate": False}, "the given config is not changed"


def test_a_flag_left_off_sets_nothing() -> None:
    config = {"side-effects": {"validate": True}}
    assert with_shorthands(config, default_registry().settings, validate_side_effects=False,
                           honesty_config=None, injected=None) == config


def test_a_flag_passes_over_a_plugin_that_is_not_loaded() -> None:
    declared = {k: v for k, v in default_registry().settings.items() if k != "disclosure"}
    merged = with_shorthands({}, declared, injected={"kind": "toolscore.injected"})
    assert set(merged) == {"prompt-injection"}
