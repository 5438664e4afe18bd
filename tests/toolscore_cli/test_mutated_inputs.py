"""The CLI fed mutated versions of real inputs: a verdict (exit 0 or 1) or one line of bad
input (exit 2), never a traceback. The mutations are seeded, so a failure repeats.

Fuzzing this way found a matcher written as a whole ``args`` object crashing the pairing,
and hand-edited runs-file rows ending ``regrade`` and ``summary`` in a traceback.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
import traceback
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import EXAMPLE
from toolscore_cli.app import main

CHECKS = EXAMPLE.parent / "checks"
# Values that have broken readers before, or could: wrong types, markup, matchers in the
# wrong place, huge numbers, control characters.
ATOMS: list[Any] = [None, True, False, 0, -1, 1.5, 10**30, "", "x", "\x1b[2J", [], {}, [None],
                    {"$regex": "("}, {"$any": True}, {"$type": "nope"}, {"$contains": None},
                    {"tool": None}, [{"tool": "t"}], "error", "passed", "NaN"]
KEYS = ["extra", "args", "tool", "calls", "expected", "is_error", "duration", "cost",
        "timestamp", "required", "forbidden", "trace", "evaluation", "outcome", "notes"]


def mutate(value: Any, rng: random.Random) -> Any:
    """A copy of ``value`` with one change at a place picked uniformly among all its places:
    a value swapped for one of ATOMS, a key or item deleted, or a key added."""
    value = copy.deepcopy(value)
    places = list(_places(value))
    if not places:
        return rng.choice(ATOMS)
    container, key = rng.choice(places)
    roll = rng.random()
    if roll < 0.6:
        container[key] = copy.deepcopy(rng.choice(ATOMS))
    elif roll < 0.8:
        del container[key]
    elif isinstance(container, dict):
        container[rng.choice(KEYS)] = copy.deepcopy(rng.choice(ATOMS))
    else:
        container.insert(key, copy.deepcopy(rng.choice(ATOMS)))
    return value


def _places(value: Any) -> Any:
    """(container, key or index) of every value inside ``value``."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield value, key
            yield from _places(item)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield value, index
            yield from _places(item)


def run(args: list[str]) -> tuple[Any, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(args)
        code: Any = 0
    except SystemExit as exc:
        code = exc.code
    except BaseException:  # what the test is here to catch
        code = "traceback"
        err.write(traceback.format_exc())
    return code, err.getvalue()


def assert_handled(code: Any, err: str, what: str) -> None:
    assert code in (0, 1, 2) and "Traceback" not in err, f"{what}\n{err[-2000:]}"
    if code == 2:
        assert len(err.strip().splitlines()) == 1, f"{what}\n{err}"


@pytest.mark.parametrize("seed", range(4))
def test_eval_of_mutated_contracts_traces_and_option_files(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    docs = {name: json.loads((CHECKS / name).read_text()) for name in
            ("gold.json", "trace.json", "injected.json", "rules.json")}
    for _ in range(100):
        changed = dict(docs)
        for _ in range(rng.randrange(1, 3)):
            name = rng.choice(list(changed))
            changed[name] = mutate(changed[name], rng)
        for name, doc in changed.items():
            (tmp_path / name).write_text(json.dumps(doc))
        code, err = run(["eval", str(tmp_path / "gold.json"), str(tmp_path / "trace.json"),
                         "--injected", str(tmp_path / "injected.json"),
                         "--forbidden", str(tmp_path / "rules.json"),
                         "--json", str(tmp_path / "out.json"),
                         "--html", str(tmp_path / "out.html")])
        assert_handled(code, err, json.dumps(changed)[:2000])


@pytest.mark.parametrize("seed", range(2))
def test_regrade_and_summary_of_mutated_runs_files(tmp_path: Path, seed: int) -> None:
    import toolscore
    from toolscore_core.models import ToolCall

    spec = {"study": "s", "version": "1", "tasks": {
        "find": {"prompt": "find x", "expected": [
            {"tool": "find", "args": {"q": "x", "n": {"$type": "int"}}}]}}}

    def agent(prompt: str) -> object:
        return [ToolCall(tool="find", args={"q": "x", "n": 1}, result="x=1", is_error=False,
                         duration=0.5)], "x is 1"

    runs = tmp_path / "runs.jsonl"
    toolscore.run_study(spec, agent, trials=2, output=runs)
    rows = [json.loads(line) for line in runs.read_text().splitlines()]
    spec_path = tmp_path / "spec.json"
    spec_path.write_text(json.dumps(spec))
    rng = random.Random(seed)
    for _ in range(60):
        lines = [json.dumps(mutate(row, rng)) for row in rows]
        source = tmp_path / "mutated.jsonl"
        source.write_text("\n".join(lines) + "\n")
        for args in (["regrade", str(source), "--spec", str(spec_path), "-o",
                      str(tmp_path / "out.jsonl")],
                     ["summary", str(source), "--json", str(tmp_path / "summary.json")]):
            code, err = run(args)
            assert_handled(code, err, "\n".join(lines)[:2000])
