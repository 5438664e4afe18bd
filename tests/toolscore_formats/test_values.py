"""Values: arguments decoded, malformed ones kept raw."""

from __future__ import annotations

import pytest

from toolscore_formats.values import decode_args


def test_malformed_arguments_are_kept_raw() -> None:
    assert decode_args('{"a": ') == (None, '{"a": ')
    assert decode_args("[1, 2]") == (None, "[1, 2]")
    assert decode_args("") == ({}, None)


@pytest.mark.parametrize("text", ['{"x": NaN}', '{"x": Infinity}', '{"x": ' + "[" * 5000
                                  + "]" * 5000 + "}", '{"x": ' + "1" * 5000 + "}"])
def test_arguments_only_javascript_reads_are_kept_raw(text: str) -> None:
    """NaN, an infinity, too deep, too long a number: malformed arguments, kept as given."""
    assert decode_args(text) == (None, text)
