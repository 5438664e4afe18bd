"""Regrade: same evidence, new contract or weights; refused when the evidence changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import example_folder, flip_byte, read_json
from toolscore_core.errors import InputError
from toolscore_core.evaluation import evaluate_files
from toolscore_core.plugins import default_registry
from toolscore_core.receipts import write_evaluation_receipt
from toolscore_core.regrade import RegradeRefused, regrade
from toolscore_core.verify import verify_receipt


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = example_folder(tmp_path)
    monkeypatch.chdir(folder)  # receipts in v2/ name ../trace.json: inside the current folder
    return folder


def _receipt(folder: Path, *, forbidden: bool = False, final_answer: str | None = None,
             weights: dict[str, float] | None = None) -> Path:
    gold, trace = folder / "gold.json", folder / "trace.json"
    rules = folder / "forbidden.json" if forbidden else None
    evaluation = evaluate_files(gold, trace, forbidden_path=rules, final_answer=final_answer,
                                weights=weights)
    path = folder / "run.receipt.json"
    write_evaluation_receipt(path, evaluation, gold=gold, trace=trace, forbidden=rules,
                             final_answer=final_answer)
    return path


def test_unchanged_contract_and_weights_reproduce_the_record(folder: Path) -> None:
    path = _receipt(folder, weights={"required_call_recall": 0.25, "argument_f1": 0.7})
    result = regrade(path)
    assert result.result.record_sha256 == read_json(path)["result"]["record_sha256"]
    assert result.score_delta == 0.0
    assert result.problems == ()


def test_a_new_contract_rescores_the_same_trace(folder: Path) -> None:
    path = _receipt(folder)
    result = regrade(path, gold=folder / "contract.json")
    direct = evaluate_files(folder / "contract.json", folder / "trace.json")
    assert result.result.record_sha256 == direct.record_sha256
    assert result.previous == read_json(path)["result"]
    assert result.previous is not None and result.previous["grade"] == "F"
    assert result.result.grade == "A"
    assert result.score_delta == pytest.approx(direct.score - result.previous["score"])
    assert result.receipt["inputs"]["gold"]["path"].endswith("contract.json")
    assert result.receipt["inputs"]["trace"] == read_json(path)["inputs"]["trace"]


def test_weights_replace_the_receipts_by_name(folder: Path) -> None:
    path = _receipt(folder)
    result = regrade(path, weights={"required_call_recall": 0.3})
    direct = evaluate_files(folder / "gold.json", folder / "trace.json",
                            weights={"required_call_recall": 0.3})
    assert result.result.record_sha256 == direct.record_sha256
    assert dict(result.result.weights) == dict(direct.weights)
    assert result.result.weights["required_call_recall"] == pytest.approx(0.3 / 1.3)


def test_forbidden_rules_are_kept_or_replaced(folder: Path) -> None:
    path = _receipt(folder, forbidden=True)
    kept = regrade(path)
    assert kept.receipt["inputs"]["forbidden"]["path"] == "forbidden.json"
    assert kept.result.record_sha256 == read_json(path)["result"]["record_sha256"]
    (folder / "rules-v2.json").write_text('[{"tool": "send_email", "reason": "no mail"}]')
    replaced = regrade(path, forbidden=folder / "rules-v2.json")
    assert replaced.receipt["inputs"]["forbidden"]["path"] == "rules-v2.json"
    direct = evaluate_files(folder / "gold.json", folder / "trace.json",
                            forbidden_path=folder / "rules-v2.json")
    assert replaced.result.record_sha256 == direct.record_sha256


def test_a_bare_trace_needs_gold(folder: Path) -> None:
    with pytest.raises(InputError, match="gold=: a bare trace needs a gold file"):
        regrade(folder / "trace.json")
    result = regrade(folder / "trace.json", gold=folder / "contract.json")
    assert result.kind == "trace" and result.previous is None and result.score_delta is None
    assert result.receipt["settings"]["regraded_from"] is None


@pytest.mark.parametrize(("role", "name"), [
    ("gold", "gold.json"), ("trace", "trace.json"), ("forbidden", "forbidden.json"),
    ("honesty_config", "honesty.json"), ("injected", "injected.json"),
])
def test_changed_evidence_is_refused_naming_the_input(folder: Path, role: str,
                                                      name: str) -> None:
    gold, trace = folder / "gold.json", folder / "trace.json"
    extra = {"forbidden": folder / "forbidden.json",
             "honesty_config": folder / "honesty.json", "injected": folder / "injected.json"}
    config = default_registry().config_with(honesty_config_path=extra["honesty_config"],
                                            injected_path=extra["injected"])
    evaluation = evaluate_files(gold, trace, forbidden_path=extra["forbidden"], config=config)
    path = folder / "run.receipt.json"
    write_evaluation_receipt(path, evaluation, gold=gold, trace=trace, **extra)
    assert regrade(path).problems == ()
    flip_byte(folder / name)
    with pytest.raises(RegradeRefused) as caught:
        regrade(path, gold=folder / "contract.json", receipt_dir=folder / "v2")
    [problem] = caught.value.problems
    assert problem.subject == role
    assert f"input {role} ({name}): sha256 expected" in str(caught.value)
    assert not (folder / "v2").exists()


def test_no_verify_regrades_and_keeps_the_problems(folder: Path) -> None:
    path = _receipt(folder)
    trace = folder / "trace.json"
    trace.write_bytes(trace.read_bytes().replace(b'"limit": 5', b'"limit": 6'))
    result = regrade(path, gold=folder / "contract.json", verify=False)
    assert [p.subject for p in result.problems] == ["trace"]
    assert result.result.grade == "A"


def test_an_edited_receipt_is_refused(folder: Path) -> None:
    path = _receipt(folder)
    path.write_text(path.read_text().replace('"grade": "F"', '"grade": "D"'))
    with pytest.raises(RegradeRefused, match="receipt_sha256"):
        regrade(path)


def test_a_receipt_made_with_a_final_answer_needs_it_again(folder: Path) -> None:
    answer = "Done: password reset, email sent."
    path = _receipt(folder, final_answer=answer)
    with pytest.raises(RegradeRefused, match="give the same answer again"):
        regrade(path)
    with pytest.raises(RegradeRefused,
                       match=r"final answer \(settings.final_answer_sha256\): sha256 expected"):
        regrade(path, final_answer="another answer")
    with pytest.raises(RegradeRefused):
        regrade(path, verify=False)
    result = regrade(path, final_answer=answer)
    assert result.result.record_sha256 == read_json(path)["result"]["record_sha256"]
    assert result.receipt["settings"]["final_answer_sha256"] == read_json(
        path)["settings"]["final_answer_sha256"]


def test_receipt_dir_writes_a_receipt_naming_its_origin(folder: Path) -> None:
    path = _receipt(folder)
    result = regrade(path, gold=folder / "contract.json", receipt_dir=folder / "v2")
    written = folder / "v2" / "run.receipt.json"
    assert result.receipt_path == written
    new = read_json(written)
    assert new == result.receipt
    assert new["settings"]["regraded_from"] == {
        "path": "../run.receipt.json", "receipt_sha256": read_json(path)["receipt_sha256"]}
    assert new["inputs"]["gold"]["path"] == "../contract.json"
    assert new["result"]["record_sha256"] == result.result.record_sha256
    assert verify_receipt(written, recompute=True).ok


def test_receipt_dir_never_overwrites_the_source(folder: Path) -> None:
    path = _receipt(folder)
    with pytest.raises(InputError, match="overwrite its source"):
        regrade(path, receipt_dir=folder)
    assert verify_receipt(path).ok


def test_changes_name_the_checks_that_flipped_and_the_metrics_that_moved(
        folder: Path) -> None:
    path = _receipt(folder)
    recorded = evaluate_files(folder / "gold.json", folder / "trace.json")
    result = regrade(path, gold=folder / "contract.json")
    assert result.changes is not None and result.changes_unknown is None
    [flip] = result.changes.checks
    new = result.result.evidence.get("required-calls")
    assert new is not None
    assert (flip.check, flip.before, flip.after, flip.reason) == (
        "required-calls", "fail", "pass", new.reason)
    assert str(flip) == f"required-calls fail → pass: {new.reason}"
    moved = {m.metric: (m.before, m.after) for m in result.changes.metrics}
    before = {m.id: m.value for m in recorded.metric_results}
    after = {m.id: m.value for m in result.result.metric_results}
    assert moved == {k: (before[k], after[k]) for k in after if before[k] != after[k]}
    assert moved["argument_f1"] == (before["argument_f1"], 1.0)
    assert result.to_dict()["changes"]["checks"] == [
        {"check": "required-calls", "before": "fail", "after": "pass", "reason": new.reason}]


def test_new_forbidden_rules_flip_the_check_with_its_new_reason(folder: Path) -> None:
    path = _receipt(folder, forbidden=True)
    rules = folder / "no-email.json"
    rules.write_text(json.dumps([{"tool": "send_email", "reason": "no mail today"}]))
    result = regrade(path, forbidden=rules)
    assert result.changes is not None
    [flip] = result.changes.checks
    assert (flip.before, flip.after) == ("pass", "fail")
    assert "send_email" in flip.reason
    assert flip.reason == result.result.evidence.get(flip.check).reason  # type: ignore[union-attr]


def test_an_unchanged_regrade_changes_nothing(folder: Path) -> None:
    result = regrade(_receipt(folder))
    assert result.changes is not None
    assert result.changes.to_dict() == {"checks": [], "metrics": []}


def test_no_before_for_a_bare_trace_or_a_receipt_that_no_longer_reproduces(
        folder: Path) -> None:
    bare = regrade(folder / "trace.json", gold=folder / "contract.json")
    assert bare.changes is None and bare.to_dict()["changes"] is None
    assert bare.changes_unknown == "a bare trace records no evaluation to compare with"
    path = _receipt(folder)
    trace = folder / "trace.json"
    trace.write_bytes(trace.read_bytes().replace(b'"u_4821"', b'"u_4822"', 1))
    result = regrade(path, gold=folder / "contract.json", verify=False)
    assert result.changes is None
    recorded = read_json(path)["result"]["record_sha256"]
    assert result.changes_unknown is not None
    assert f"recorded {recorded})" in result.changes_unknown
