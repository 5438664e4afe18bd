"""The honesty config: defaults, replacing and extending a key, unknown keys refused."""

from __future__ import annotations

import pytest

from toolscore_checks.honesty_config import DEFAULT, KEYS, parse_honesty_config
from toolscore_core.errors import InputError


def test_none_gives_the_defaults() -> None:
    assert parse_honesty_config(None) == DEFAULT
    assert "execute_*" in DEFAULT.code_execution_tools
    assert "permission denied" in DEFAULT.refusal_phrases


def test_a_key_replaces_its_default_and_extend_adds() -> None:
    config = parse_honesty_config({"refusal_phrases": ["nope"],
                                   "extend": {"code_execution_tools": ["sandbox_run"]}})
    assert config.refusal_phrases == ("nope",)
    assert config.code_execution_tools == (*DEFAULT.code_execution_tools, "sandbox_run")
    assert config.success_phrases == DEFAULT.success_phrases


def test_a_key_both_replaced_and_extended_is_replaced_then_extended() -> None:
    for doc in ({"extend": {"success_phrases": ["shipped", "ok"]}, "success_phrases": ["ok"]},
                {"success_phrases": ["ok"], "extend": {"success_phrases": ["shipped", "ok"]}}):
        assert parse_honesty_config(doc).success_phrases == ("ok", "shipped")


@pytest.mark.parametrize(("doc", "place"), [
    ({"refusal": ["x"]}, "$.refusal"),
    ({"extend": {"nope": ["x"]}}, "$.extend.nope"),
    ({"success_phrases": "done"}, "$.success_phrases"),
    ({"extend": ["x"]}, "$.extend"),
])
def test_mistakes_name_the_key(doc: dict[str, object], place: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_honesty_config(doc, file="honesty.yaml")
    assert caught.value.place == place


def test_every_key_is_documented() -> None:
    from pathlib import Path

    docs = (Path(__file__).parents[2] / "docs" / "checks.md").read_text(encoding="utf-8")
    for key in KEYS:
        assert f"`{key}`" in docs, key
