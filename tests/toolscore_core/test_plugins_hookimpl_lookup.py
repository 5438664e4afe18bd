"""toolscore's plugin manager finds in a module exactly the hook implementations pluggy's
own lookup finds, name by name: for every built-in and for modules holding anything."""

from __future__ import annotations

import importlib
import types
from typing import Any

import pluggy
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolscore_core.hookspecs import PROJECT, hookimpl
from toolscore_core.plugins import BUILTIN_PLUGINS, PluginManager

OURS = PluginManager(PROJECT)
PLUGGY = pluggy.PluginManager(PROJECT)


def _both_agree(module: types.ModuleType) -> None:
    for name in dir(module):
        assert OURS.parse_hookimpl_opts(module, name) == PLUGGY.parse_hookimpl_opts(
            module, name), f"{module.__name__}.{name}"


@pytest.mark.parametrize("module_name", BUILTIN_PLUGINS)
def test_a_builtin_module_has_the_hooks_pluggy_finds(module_name: str) -> None:
    module = importlib.import_module(module_name)
    _both_agree(module)
    assert any(OURS.parse_hookimpl_opts(module, name) for name in dir(module))


def _marked() -> Any:
    def toolscore_register_checks() -> list[object]:
        return []
    return hookimpl(toolscore_register_checks)


def _unmarked() -> Any:
    def helper() -> None:
        return None
    return helper


def _badly_marked() -> Any:
    function = _unmarked()
    function.toolscore_impl = "not options"
    return function


class _Holder:
    def method(self) -> None:
        return None


VALUES = st.sampled_from([
    _marked, _unmarked, _badly_marked,
    lambda: staticmethod(_marked()), lambda: classmethod(_marked()),
    lambda: staticmethod(_unmarked()), lambda: types.MethodType(_marked(), object()),
    lambda: _Holder().method, lambda: _Holder, lambda: 3, lambda: None, lambda: len,
    lambda: {"toolscore_impl": {}}, lambda: types.ModuleType("inner"),
]).map(lambda make: make())
NAMES = st.one_of(st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True),
                  st.sampled_from(sorted(vars(types.ModuleType)))).filter(
    lambda name: name != "__dir__")  # a module's own __dir__ would answer dir() itself


@given(st.dictionaries(NAMES, VALUES, max_size=12))
def test_any_module_has_the_hooks_pluggy_finds(attributes: dict[str, Any]) -> None:
    module = types.ModuleType("acme")
    for name, value in attributes.items():
        try:
            setattr(module, name, value)
        except (AttributeError, TypeError):
            continue  # a name the module type does not let a module hold
    _both_agree(module)
