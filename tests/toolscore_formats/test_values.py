"""Values: arguments decoded, malformed ones kept raw."""

from __future__ import annotations

import pytest

from toolscore_formats.values import decode_args, json_key


def test_malformed_arguments_are_kept_raw() -> None:
    assert decode_args('{"a": ') == (None, '{"a": ')
    assert decode_args("[1, 2]") == (None, "[1, 2]")
    assert decode_args("") == ({}, None)


@pytest.mark.parametrize("text", ['{"x": NaN}', '{"x": Infinity}', '{"x": ' + "[" * 5000
                                  + "]" * 5000 + "}", '{"x": ' + "1" * 5000 + "}"])
def test_arguments_only_javascript_reads_are_kept_raw(text: str) -> None:
    """NaN, an infinity, too deep, too long a number: malformed arguments, kept as given."""
    assert decode_args(text) == (None, text)


def test_equal_json_values_share_a_key_and_deep_ones_share_one() -> None:
    assert json_key({"a": [1, {"b": True}]}) == json_key({"a": [1.0, {"b": 1}]})
    assert json_key({"a": [1]}) != json_key({"a": [2]})
    assert json_key({"a": [1]}) != json_key({"a": {"1": 1}})
    deep: object = 1
    other: object = 2
    for _ in range(12):
        deep, other = [deep], [other]
    assert deep != other and json_key(deep) == json_key(other)  # then compared by ==
