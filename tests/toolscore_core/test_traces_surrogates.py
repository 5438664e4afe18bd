"""The surrogate prefilter of ``load_trace``: a file that may hold a lone surrogate is
found whatever else it holds, and one that cannot is not."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from toolscore_core.traces import may_hold_surrogates

# the rule stated once, as plainly as it can be: a surrogate's JSON escape, or its UTF-8 bytes
RULE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")
PIECES = st.sampled_from([b"\\u", b"\\ud83d", b"\\uD800", b"\\u00e9", b"\\uDz", b"\xed",
                          b"\xed\xa0\x80", b"\xed\x9f", b"\xed\xbf", b"d8", b"\\\\u", b"a"])


@given(st.lists(st.one_of(PIECES, st.binary(max_size=8)), max_size=12))
def test_the_prefilter_follows_the_rule(parts: list[bytes]) -> None:
    data = b"".join(parts)
    assert may_hold_surrogates(data) == (RULE.search(data) is not None)


def test_a_file_with_a_lone_surrogate_escape_is_found_and_a_plain_one_is_not() -> None:
    assert may_hold_surrogates(b'{"text": "broken \\ud83d here"}')
    assert may_hold_surrogates(b'{"text": "raw \xed\xa0\x80"}')
    assert not may_hold_surrogates('{"text": "caf\\u00e9 \u00e9 \U0001f600"}'.encode())
