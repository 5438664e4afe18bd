"""The side-effect probes' records: read from a contract's side_effects, loaded only then."""

from __future__ import annotations

import subprocess
import sys

import pytest

from toolscore_core.contracts import parse_contract
from toolscore_core.errors import InputError


def test_each_probe_reads_its_parameters_and_keeps_them_as_written() -> None:
    effects = [
        {"type": "file_exists", "path": "out.txt", "description": "the report"},
        {"type": "file_contains", "path": "out.txt", "regex": "^done$"},
        {"type": "http_get", "url": "http://127.0.0.1:8080/health", "status": 200},
        {"type": "sqlite_query", "database": "app.db", "query": "select 1", "rows": 1},
    ]
    contract = parse_contract({"expected": [{"tool": "write"}], "side_effects": effects})
    assert [effect.type for effect in contract.side_effects] == [
        "file_exists", "file_contains", "http_get", "sqlite_query"]
    assert contract.side_effects[0].description == "the report"
    assert contract.side_effects[3].spec == {"database": "app.db", "query": "select 1",
                                             "rows": 1}


@pytest.mark.parametrize(("effect", "place", "problem"), [
    ({"type": "http_get", "url": "ftp://x"}, "$.side_effects[0].url", "http:// or https://"),
    ({"type": "file_contains", "path": "a"}, "$.side_effects[0]", 'exactly one of "text"'),
    ({"type": "file_contains", "path": "a", "regex": "("}, "$.side_effects[0].regex",
     "invalid regular expression"),
    ({"type": "sqlite_query", "database": "d", "query": "q", "rows": -1},
     "$.side_effects[0].rows", "at least 0"),
    ({"type": "file_exists", "path": " "}, "$.side_effects[0].path", "must not be empty"),
])
def test_a_bad_probe_is_one_line_at_its_place(effect: dict[str, object], place: str,
                                              problem: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_contract({"expected": [{"tool": "write"}], "side_effects": [effect]},
                       file="gold.json")
    assert caught.value.place == place
    assert problem in caught.value.problem


def test_probe_records_load_only_for_a_contract_with_side_effects() -> None:
    code = ("import sys\nfrom toolscore_core.contracts import parse_contract\n"
            "parse_contract({'expected': [{'tool': 'a', 'args': {'x': 1}}]})\n"
            "print('toolscore_core.probes' in sys.modules)\n"
            "parse_contract({'expected': [], 'side_effects': "
            "[{'type': 'file_exists', 'path': 'p'}]})\n"
            "print('toolscore_core.probes' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.split() == ["False", "True"]
