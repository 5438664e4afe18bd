"""The example in docs/checks.md (examples/checks/) gives the evidence the page shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolscore_cli.app import main

EXAMPLES = Path(__file__).parents[2] / "examples" / "checks"


def _run(capsys: Any, *args: str) -> tuple[int, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, " ".join((out.out + out.err).split())


def test_every_check_fails_on_the_example(capsys: Any) -> None:
    code, out = _run(capsys, "eval", str(EXAMPLES / "gold.json"), str(EXAMPLES / "trace.json"),
                     "--injected", str(EXAMPLES / "injected.json"),
                     "--forbidden", str(EXAMPLES / "rules.json"),
                     "--honesty-config", str(EXAMPLES / "honesty.yaml"),
                     "--validate-side-effects", "--fail-on-violations")
    assert code == 1
    assert "Evidence: 0 pass, 9 fail, 0 unknown" in out
    assert "sk-proj-Ab3" not in out and "sk-p…4z" in out


def test_requests_only_example_is_unknown_where_outcomes_are_needed(capsys: Any) -> None:
    code, out = _run(capsys, "eval", str(EXAMPLES / "gold.json"),
                     str(EXAMPLES / "requests-only.json"),
                     "--injected", str(EXAMPLES / "injected.json"))
    assert code == 0
    assert "Evidence: 0 pass, 5 fail, 4 unknown" in out
    # deploy_service was asked with an argument the contract does not expect: not the
    # required call, whatever its outcome
    assert "required-calls: not made: deploy_service (call #4: argument 'token' was not " \
        "expected)" in out
    assert "unknown call-errors: no call has a result or error" in out


@pytest.mark.parametrize(("content", "message"), [
    ("refusal: [x]\n", "honesty.yaml: $.refusal: unknown key 'refusal'"),
    ("success_phrases: done\n",
     'honesty.yaml: $.success_phrases: "success_phrases" must be a list'),
])
def test_bad_honesty_config_is_one_line_and_exit_2(capsys: Any, tmp_path: Path,
                                                   content: str, message: str) -> None:
    config = tmp_path / "honesty.yaml"
    config.write_text(content, encoding="utf-8")
    code, out = _run(capsys, "eval", str(EXAMPLES / "gold.json"), str(EXAMPLES / "trace.json"),
                     "--honesty-config", str(config))
    assert code == 2 and message in out
    assert "Traceback" not in out
