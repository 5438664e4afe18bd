"""User regexes: compiled within a bound, searched within a time limit, in re's syntax."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolscore_core.errors import InputError
from toolscore_core.patterns import (
    REPEAT_LIMIT,
    TIMEOUTS,
    PatternError,
    compile_pattern,
    search,
)

PATTERNS = [r"^a", r"b$", r"a+b", r"(ab|ba)*", r"^\d{2,4}$", r"\w+\s\w+", r"(?i)AB", r"a{2}",
            r"(?=ab)a", r"(?<!b)a", r"(a)\1", r"[^a-c]", r"(?:x|y)?z", r"\bword\b", r"."]


@given(st.sampled_from(PATTERNS), st.text(alphabet="abcxyz AB12_wordé\n", max_size=12))
def test_searches_find_what_pythons_re_finds(pattern: str, text: str) -> None:
    """The regex package runs re's syntax with re's meaning: the reference is re itself."""
    assert search(compile_pattern(pattern), text) is (re.search(pattern, text) is not None)


@pytest.mark.parametrize("pattern", [
    "((a{1000}){1000}){1000}",  # took minutes to compile in the regex package
    "x{4294967294}",
    "(x){100000}",
    "(?=a{30000})",
    "(a)(?(1)b|c{50000})",
    "x{1002}",
    r"(?:\d{3}-){300}",
])
def test_repeats_that_would_take_long_to_compile_are_refused_before_compiling(
        pattern: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import regex

    compiled = []
    monkeypatch.setattr(regex, "compile", lambda *a: compiled.append(a))
    with pytest.raises(PatternError) as info:
        compile_pattern(pattern)
    assert f"more than the {REPEAT_LIMIT:,} they may add; use smaller counts" in str(info.value)
    assert compiled == []


@pytest.mark.parametrize("pattern", ["x{1000}", "x{0,1000000}", "x{5,}", r"[0-9a-f]{64}",
                                     r"(?:\d{3}-){2}\d{4}"])
def test_ordinary_and_open_ended_repeats_compile(pattern: str) -> None:
    assert compile_pattern(pattern) is not None


def test_a_pattern_outside_res_syntax_is_refused_as_re_refused_it() -> None:
    with pytest.raises(PatternError, match=r"bad escape \\p"):
        compile_pattern(r"\p{L}")


def test_a_search_past_the_limit_is_undecided_and_counted() -> None:
    before = TIMEOUTS[0]
    assert search(compile_pattern(r"(a|aa)+$"), "a" * 60 + "b") is None
    assert TIMEOUTS[0] == before + 1


@pytest.mark.parametrize(("contract", "place"), [
    ([{"tool": "t", "args": {"s": {"$regex": "((a{1000}){1000}){1000}"}}}], "$[0].args.s"),
    ({"expected": [], "side_effects": [{"type": "file_contains", "path": "p",
                                        "regex": "x{4294967294}"}]}, "$.side_effects[0].regex"),
])
def test_a_contract_with_such_a_pattern_is_one_line_naming_the_place(
        contract: object, place: str) -> None:
    from toolscore_core.contracts import parse_contract

    with pytest.raises(InputError) as info:
        parse_contract(contract, file="gold.json")
    message = info.value.one_line()
    assert message.startswith(f"gold.json: {place}: ")
    assert "counted repeats add" in message
