from __future__ import annotations

from pathlib import Path

import pytest

from toolscore_core.errors import InputError
from toolscore_core.matchers import OneOf
from toolscore_studies.spec import DEFAULT_PASS_THRESHOLD, load_study, parse_study

BASE = {"study": "s", "tasks": {"t1": {"prompt": "p", "expected": [{"tool": "a"}]}}}


def test_the_test_study_loads_with_defaults_merged(study_dir: Path) -> None:
    study = load_study(study_dir / "study.yaml")
    assert study.name == "plan-agent" and study.version == "1"
    assert list(study.tasks) == ["weather", "book", "flaky"]
    weather = study.tasks["weather"]
    assert weather.pass_threshold == 0.9
    assert isinstance(weather.contract.expected[0].args["unit"], OneOf)
    assert [r.tool for r in weather.contract.forbidden] == ["delete_everything"]
    assert study.pricing["test-model"].output_per_mtok == 15.0
    assert study.sha256 is not None and len(study.sha256) == 64


def test_task_values_override_study_defaults() -> None:
    doc = {"study": "s", "defaults": {"weights": {"argument_f1": 1, "selection_accuracy": 1},
                                      "pass_threshold": 0.5, "forbidden": [{"tool": "rm"}]},
           "tasks": {"t1": {"prompt": "p", "expected": [], "pass_threshold": 1,
                            "weights": {"argument_f1": 3},
                            "forbidden": [{"tool": "drop", "reason": "no"}]},
                     "t2": {"prompt": "q", "expected": []}}}
    study = parse_study(doc)
    t1, t2 = study.tasks["t1"], study.tasks["t2"]
    assert t1.pass_threshold == 1.0 and t2.pass_threshold == 0.5
    assert t1.weights == {"argument_f1": 3.0, "selection_accuracy": 1.0}
    assert [r.tool for r in t1.contract.forbidden] == ["rm", "drop"]
    assert [r.tool for r in t2.contract.forbidden] == ["rm"]


def test_the_default_threshold_applies_when_none_is_given() -> None:
    assert parse_study(BASE).tasks["t1"].pass_threshold == DEFAULT_PASS_THRESHOLD


@pytest.mark.parametrize(("task", "words"), [
    ({"expected": []}, ["'t1'", "$.tasks.t1.prompt"]),
    ({"prompt": "p"}, ["'t1'", "$.tasks.t1.expected", "missing"]),
    ({"prompt": "p", "expected": [{"tool": "a", "args": {"x": {"$regexp": "b"}}}]},
     ["'t1'", "$.tasks.t1.expected[0].args.x"]),
    ({"prompt": "p", "expected": [{"tool": "a", "arg": {}}]},
     ["'t1'", "$.tasks.t1.expected[0].arg", "unknown key"]),
    ({"prompt": "p", "expected": [], "pass_threshold": 2}, ["'t1'", "pass_threshold"]),
    ({"prompt": "p", "expected": [], "mcp_server": {"command": "python s.py"}},
     ["'t1'", "$.tasks.t1.mcp_server.command"]),
    ({"prompt": "p", "expected": [], "colour": 1}, ["$.tasks.t1.colour", "unknown key"]),
    ({"prompt": "p", "expected": [], "mcp_server": {"command": ["s"], "inject_fault": "x"}},
     ["'t1'", "$.tasks.t1.mcp_server.inject_fault", "must be a list"]),
    ({"prompt": "p", "expected": [], "mcp_server": {
        "command": ["s"], "inject_fault": [{"tool": "deploy", "mode": "crash"}]}},
     ["'t1'", "$.tasks.t1.mcp_server.inject_fault[0].mode", "unknown mode"]),
    ({"prompt": "p", "expected": [], "mcp_server": {
        "command": ["s"], "inject_prompt": ["tool=fetch_page,colour=red"]}},
     ["'t1'", "$.tasks.t1.mcp_server.inject_prompt[0]", "unknown key 'colour'"]),
    ({"prompt": "p", "expected": [], "mcp_server": {
        "command": ["s"], "inject_prompt": ["tool=fetch_page"]}},
     ["'t1'", "$.tasks.t1.mcp_server.inject_prompt[0].text", "required"]),
])
def test_a_bad_task_is_an_error_naming_the_task_and_the_field(task: dict, words: list[str]) -> None:
    with pytest.raises(InputError) as info:
        parse_study({"study": "s", "tasks": {"t1": task}}, file="study.yaml")
    message = info.value.one_line()
    assert message.startswith("study.yaml: ")
    for word in words:
        assert word in message


def test_study_level_errors_name_the_field() -> None:
    with pytest.raises(InputError, match=r"\$.study"):
        parse_study({"tasks": BASE["tasks"]})
    with pytest.raises(InputError, match=r"\$.tasks"):
        parse_study({"study": "s", "tasks": {}})
    with pytest.raises(InputError, match=r"\$.defaults.pricing.m.input_per_mtok"):
        parse_study({**BASE, "defaults": {"pricing": {"m": {"input_per_mtok": -1,
                                                             "output_per_mtok": 1}}}})


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("study: s\ntasks: {t1: [\n")
    with pytest.raises(InputError, match="line"):
        load_study(path)


def test_select_refuses_an_unknown_task() -> None:
    study = parse_study(BASE)
    assert [t.id for t in study.select(None)] == ["t1"]
    with pytest.raises(InputError, match="no task 'zz'"):
        study.select(["zz"])


def test_weights_naming_no_metric_are_refused_with_the_task() -> None:
    from toolscore_core.plugins import default_registry

    study = parse_study({"study": "s", "defaults": {"weights": {"argument_f1": 1}}, "tasks": {
        "t1": {"prompt": "p", "expected": [], "weights": {"argument_f2": 1}}}}, file="s.yaml")
    with pytest.raises(InputError) as info:
        study.check_weights(default_registry().metrics)
    assert "task 't1': unknown weight 'argument_f2'" in info.value.one_line()
    assert "$.tasks.t1.weights" in info.value.one_line()


def test_mcp_plantings_take_the_record_options_text_or_objects() -> None:
    study = parse_study({"study": "s", "tasks": {"t": {"prompt": "p", "expected": [],
        "mcp_server": {"command": ["python", "server.py"],
                       "inject_fault": ["tool=deploy,nth=2,error=Down, try later",
                                        {"tool": "add", "mode": "jsonrpc_error", "code": -1}],
                       "inject_prompt": ["tool=fetch_page,text=Ignore it, {canary}"]}}}})
    server = study.tasks["t"].mcp_server
    assert server is not None and server.plants
    assert server.plan_json() == {
        "faults": [{"tool": "deploy", "nth": "2", "error": "Down, try later"},
                   {"tool": "add", "mode": "jsonrpc_error", "code": -1}],
        "injections": [{"tool": "fetch_page", "text": "Ignore it, {canary}"}]}
    plain = parse_study({"study": "s", "tasks": {"t": {"prompt": "p", "expected": [],
                                                       "mcp_server": {"command": ["x"]}}}})
    assert plain.tasks["t"].mcp_server is not None
    assert not plain.tasks["t"].mcp_server.plants


def test_a_tasks_reference_answer_is_in_its_contract_and_stored_only_when_given() -> None:
    study = parse_study({"study": "s", "tasks": {
        "a": {"prompt": "p", "expected": [], "expected_answer": "It is 18°C in Paris."},
        "b": {"prompt": "p", "expected": []}}})
    assert study.tasks["a"].contract.expected_answer == "It is 18°C in Paris."
    assert study.tasks["a"].contract_json()["expected_answer"] == "It is 18°C in Paris."
    assert "expected_answer" not in study.tasks["b"].contract_json()
    with pytest.raises(InputError, match="expected_answer"):
        parse_study({"study": "s", "tasks": {"a": {"prompt": "p", "expected": [],
                                                   "expected_answer": 3}}})


def test_a_task_states_the_trajectory_keys_as_a_contract_does() -> None:
    from toolscore_core.contracts import parse_contract
    from toolscore_core.matchers import AllOf, Optional, Text

    keys = {"match": "superset", "judge_tools": ["cancel", "book"], "closed": True,
            "error_when": [{"result": "^Error:"}], "expected_outputs": ["4"]}
    expected = [{"tool": "cancel", "args": {
        "id": {"$all": [{"$type": "integer"}, 5]},
        "note": {"$optional": {"$text": "full refund"}}}}]
    doc = {"study": "s", "defaults": {"forbidden": [{"tool": "book"}]},
           "tasks": {"t1": {"prompt": "p", "expected": expected, **keys}}}
    task = parse_study(doc).tasks["t1"]
    assert task.contract == parse_contract({"expected": expected, **keys,
                                            "forbidden": [{"tool": "book"}]})
    args = task.contract.expected[0].args
    assert isinstance(args["id"], AllOf) and isinstance(args["note"], Optional)
    assert isinstance(args["note"].value, Text)
    # the run record's contract holds them, so a regrade reads the same contract back
    assert {k: task.contract_json()[k] for k in keys} == keys


@pytest.mark.parametrize(("task", "place", "words"), [
    ({"match": "loose"}, "$.tasks.t1.match", ["loose"]),
    ({"closed": True}, "$.tasks.t1.closed", ['"closed"', '"match"']),
    ({"judge_tools": ["x"], "ignore_tools": ["y"]}, "$.tasks.t1.ignore_tools", ["cannot both"]),
    ({"judge_tools": ["x"]}, "$.tasks.t1.expected[0].tool", ["does not judge"]),
    ({"judge_tools": ["a"], "forbidden": [{"tool": "x"}]}, "$.tasks.t1.forbidden[0].tool",
     ["could never fire"]),
    ({"judge_tools": ["a", "x"], "ignore_tools": None, "expected_outputs": [""]},
     "$.tasks.t1.expected_outputs", ["non-empty"]),
    ({"error_when": [{"result": "("}]}, "$.tasks.t1.error_when[0].result",
     ["regular expression"]),
])
def test_a_bad_trajectory_key_names_the_task_and_its_place(task: dict, place: str,
                                                           words: list[str]) -> None:
    doc = {"study": "s", "tasks": {"t1": {"prompt": "p", "expected": [{"tool": "a"}], **task}}}
    with pytest.raises(InputError) as info:
        parse_study(doc, file="spec.yaml")
    assert info.value.place == place
    assert "task 't1'" in info.value.problem
    assert all(w in str(info.value) for w in words)


def test_a_study_default_forbidden_rule_a_task_does_not_judge_names_the_defaults() -> None:
    doc = {"study": "s", "defaults": {"forbidden": [{"tool": "a"}, {"tool": "rm"}]},
           "tasks": {"t1": {"prompt": "p", "expected": [], "judge_tools": ["a"]}}}
    with pytest.raises(InputError) as info:
        parse_study(doc)
    assert info.value.place == "$.defaults.forbidden[1].tool"


def test_study_defaults_give_the_trajectory_keys_a_task_may_override() -> None:
    doc = {"study": "s",
           "defaults": {"match": "unordered", "judge_tools": ["a", "b"], "closed": True},
           "tasks": {"t1": {"prompt": "p", "expected": [{"tool": "a"}]},
                     "t2": {"prompt": "q", "expected": [{"tool": "c"}], "match": "superset",
                            "judge_tools": None, "closed": False}}}
    study = parse_study(doc)
    t1, t2 = study.tasks["t1"].contract, study.tasks["t2"].contract
    assert (t1.match, t1.judge_tools, t1.closed) == ("unordered", ("a", "b"), True)
    assert (t2.match, t2.judge_tools, t2.closed) == ("superset", None, False)
    bad = {**doc, "defaults": {"match": "loose"}}
    with pytest.raises(InputError) as info:
        parse_study(bad)
    assert info.value.place == "$.defaults.match"
