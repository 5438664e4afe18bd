"""Verifying receipts as an attacker would try them: every field forged, self-hash recomputed,
and ``verify --recompute`` must name it; regrade lineages walked by ``verify_chain``."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import EXAMPLES, read_json, write_json
from toolscore_core.errors import InputError
from toolscore_core.evaluation import evaluate_files
from toolscore_core.plugins import default_registry
from toolscore_core.receipts import seal, write_evaluation_receipt
from toolscore_core.regrade import regrade
from toolscore_core.verify import verify_chain, verify_receipt

NOT_DERIVABLE = {("created_at",)}
"""The clock: nothing re-derives it (a signature binds it; docs/receipts.md)."""


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The checks example (its contract declares a side effect) evaluated with every input
    it has, and its receipt."""
    folder = tmp_path_factory.mktemp("forging")
    for name in ("gold.json", "trace.json", "rules.json", "honesty.yaml", "injected.json"):
        shutil.copy(EXAMPLES / "checks" / name, folder / name)
    paths = {"gold": folder / "gold.json", "trace": folder / "trace.json",
             "forbidden": folder / "rules.json", "honesty_config": folder / "honesty.yaml",
             "injected": folder / "injected.json"}
    evaluation = evaluate_files(
        paths["gold"], paths["trace"], forbidden_path=paths["forbidden"],
        config=default_registry().config_with(honesty_config_path=paths["honesty_config"],
                                              injected_path=paths["injected"]))
    receipt = write_evaluation_receipt(folder / "run.receipt.json", evaluation, **paths)
    return folder, receipt


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict) and value:
        return [leaf for key, item in value.items() for leaf in _leaves(item, (*path, key))]
    if isinstance(value, list) and value:
        return [leaf for i, item in enumerate(value) for leaf in _leaves(item, (*path, i))]
    return [path]


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _set(value: Any, path: tuple[Any, ...], new: Any) -> None:
    _get(value, path[:-1])[path[-1]] = new


def _named(receipt: dict[str, Any], path: tuple[Any, ...]) -> list[str]:
    """The ways a report may name the field at ``path``: its dotted path, any enclosing
    object's, a plugin by name, an input by role."""
    if path[0] == "plugins":
        return [f"plugins[{receipt['plugins'][path[1]]['name']}]", "plugin "]
    dotted = ".".join(str(p) for p in path)
    named = [".".join(str(p) for p in path[:n]) for n in range(1, len(path) + 1)]
    return [*named, f"$.{dotted}", *([f"input {path[1]}"] if path[0] == "inputs" else [])]


def _other(old: Any) -> st.SearchStrategy[Any]:
    if isinstance(old, bool):
        return st.just(not old)
    if isinstance(old, int | float):
        return st.one_of(st.floats(0, 1), st.integers(0, 10)).filter(lambda v: v != old)
    if isinstance(old, str):
        return st.one_of(st.sampled_from(["A", "F", "0.0.1", "0" * 64, "toolscore"]),
                         st.text(min_size=1, max_size=8)).filter(lambda v: v != old)
    return st.one_of(st.just("x"), st.just(0.5), st.just({"path": "p.json",
                                                           "receipt_sha256": "0" * 64}))


def _everything_said(folder: Path, receipt: dict[str, Any]) -> str:
    path = folder / "forged.receipt.json"
    write_json(path, receipt, indent=2)
    try:
        result = verify_receipt(path, recompute=True)
    except InputError as exc:
        return str(exc)
    assert not result.ok
    said = [p.message for p in result.problems]
    if result.recompute is not None:
        said += [result.recompute.reason, *(str(f) for f in result.recompute.fields)]
    return "\n".join(said)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_forged_field_goes_unnamed(made: tuple[Path, dict[str, Any]],
                                      data: st.DataObject) -> None:
    """Draw any field and a new value, reseal the receipt by the documented canonical JSON:
    ``verify --recompute`` fails and names the field."""
    folder, receipt = made
    fields = [p for p in _leaves(receipt) if p not in NOT_DERIVABLE
              and p != ("receipt_sha256",)]
    path = data.draw(st.sampled_from(fields), label="field")
    new = data.draw(_other(_get(receipt, path)), label="value")
    forged = copy.deepcopy(receipt)
    _set(forged, path, new)
    said = _everything_said(folder, seal(forged))
    assert any(name in said for name in _named(receipt, path)), said


@pytest.mark.parametrize("change", [
    pytest.param(lambda r: r.update(extra=1), id="top level"),
    pytest.param(lambda r: r["settings"].update(extra=1), id="settings"),
    pytest.param(lambda r: r["result"].update(extra=1), id="result"),
    pytest.param(lambda r: r["inputs"]["gold"].update(extra=1), id="input"),
])
def test_unknown_keys_are_refused_naming_them(made: tuple[Path, dict[str, Any]],
                                              change: Any) -> None:
    folder, receipt = made
    forged = copy.deepcopy(receipt)
    change(forged)
    with pytest.raises(InputError, match="extra"):
        verify_receipt(_written(folder, seal(forged)))


def _written(folder: Path, receipt: dict[str, Any]) -> Path:
    path = folder / "forged.receipt.json"
    write_json(path, receipt, indent=2)
    return path


def test_forged_score_and_grade_are_named_with_both_values(
        made: tuple[Path, dict[str, Any]]) -> None:
    folder, receipt = made
    forged = copy.deepcopy(receipt)
    forged["result"].update(score=0.95, grade="A")
    result = verify_receipt(_written(folder, seal(forged)), recompute=True)
    assert result.problems == ()  # internally consistent: only a re-run can tell
    assert result.recompute is not None and result.recompute.status == "differs"
    lines = [str(f) for f in result.recompute.fields]
    score = receipt["result"]["score"]
    assert f"result.score: receipt 0.95, recomputed {score}" in lines
    assert f'result.grade: receipt "A", recomputed "{receipt["result"]["grade"]}"' in lines


def test_a_forged_setting_is_found_by_its_alternative(
        made: tuple[Path, dict[str, Any]]) -> None:
    """Side effects claimed validated when they were not: the record reproduces only
    without, and that is said."""
    folder, receipt = made
    forged = copy.deepcopy(receipt)
    forged["settings"]["validate_side_effects"] = True
    result = verify_receipt(_written(folder, seal(forged)), recompute=True)
    assert result.recompute is not None
    assert ("settings.validate_side_effects: receipt true, recomputed false (the recorded "
            "record reproduces with this value)") in [str(f) for f in result.recompute.fields]


def test_chain_walks_regrades_back_to_the_first_evaluation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("gold.json", "trace.json", "contract.json"):
        shutil.copy(EXAMPLES / "contracts" / name, tmp_path / name)
    first = tmp_path / "run.receipt.json"
    write_evaluation_receipt(first, evaluate_files(tmp_path / "gold.json",
                                                   tmp_path / "trace.json"),
                             gold=tmp_path / "gold.json", trace=tmp_path / "trace.json")
    second = regrade(first, gold=tmp_path / "contract.json", receipt_dir=tmp_path / "v2")
    assert second.receipt_path is not None
    third = regrade(second.receipt_path, weights={"argument_f1": 1},
                    receipt_dir=tmp_path / "v3")
    assert third.receipt_path is not None
    links, broken = verify_chain(third.receipt_path)
    assert broken == []
    assert [link.path.resolve() for link in links] == [
        third.receipt_path.resolve(), second.receipt_path.resolve(), first.resolve()]
    assert all(link.verification.ok for link in links)
    assert verify_receipt(third.receipt_path, recompute=True).ok

    # a parent moved into the child's folder is found by its hash
    moved = tmp_path / "v3" / "parent.json"
    second.receipt_path.rename(moved)
    links, broken = verify_chain(third.receipt_path)
    assert broken == [] and links[1].path == moved

    # a parent edited (and resealed) no longer is the one named
    data = read_json(moved)
    data["result"]["score"] = 0.25
    write_json(moved, seal(data), indent=2)
    links, broken = verify_chain(third.receipt_path)
    assert len(links) == 1
    assert [p.subject for p in broken] == ["settings.regraded_from"]
    assert "is neither at" in broken[0].message
    result = verify_receipt(third.receipt_path, recompute=True)
    assert [p.kind for p in result.problems] == ["parent_missing"]


def test_an_unknown_key_in_a_plugin_entry_is_refused(
        made: tuple[Path, dict[str, Any]]) -> None:
    folder, receipt = made
    forged = copy.deepcopy(receipt)
    forged["plugins"][0]["extra"] = "1"
    with pytest.raises(InputError, match=r"\$\.plugins\[0\]"):
        verify_receipt(_written(folder, seal(forged)))


def test_a_trace_format_that_cannot_read_the_trace_is_named(
        made: tuple[Path, dict[str, Any]]) -> None:
    folder, receipt = made
    forged = copy.deepcopy(receipt)
    forged["settings"]["trace_format"] = "openai_chat"
    result = verify_receipt(_written(folder, seal(forged)), recompute=True)
    assert result.recompute is not None and result.recompute.status == "cannot reproduce"
    assert "settings.trace_format 'openai_chat'" in result.recompute.reason


@pytest.fixture
def regraded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, Any]]:
    """A receipt of the contracts example regraded under the other contract."""
    monkeypatch.chdir(tmp_path)
    for name in ("gold.json", "trace.json", "contract.json"):
        shutil.copy(EXAMPLES / "contracts" / name, tmp_path / name)
    first = tmp_path / "run.receipt.json"
    write_evaluation_receipt(first, evaluate_files(tmp_path / "gold.json",
                                                   tmp_path / "trace.json"),
                             gold=tmp_path / "gold.json", trace=tmp_path / "trace.json")
    result = regrade(first, gold=tmp_path / "contract.json", receipt_dir=tmp_path / "v2")
    assert result.receipt_path is not None and result.changes is not None
    receipt = read_json(result.receipt_path)
    assert receipt["changes"] == result.changes.to_dict()
    return result.receipt_path, receipt


def test_a_regraded_receipt_holds_its_changes_and_verifies(
        regraded: tuple[Path, dict[str, Any]]) -> None:
    path, receipt = regraded
    assert [c["check"] for c in receipt["changes"]["checks"]] == ["required-calls"]
    assert verify_receipt(path, recompute=True).ok
    links, broken = verify_chain(path)
    assert broken == [] and len(links) == 2 and all(link.verification.ok for link in links)
    assert "changes" not in read_json(links[1].path)  # a first evaluation has none


@pytest.mark.parametrize("edit", [
    pytest.param(lambda c: c["checks"][0].update(before="pass"), id="a status"),
    pytest.param(lambda c: c["checks"].clear(), id="a flip left out"),
    pytest.param(lambda c: c["metrics"][0].update(after=0.5), id="a metric's value"),
    pytest.param(lambda c: c["checks"][0].update(reason="looks fine"), id="a reason"),
])
def test_edited_changes_are_named_by_the_recompute(
        regraded: tuple[Path, dict[str, Any]], edit: Any) -> None:
    path, receipt = regraded
    forged = copy.deepcopy(receipt)
    edit(forged["changes"])
    write_json(path, forged, indent=2)
    assert [p.kind for p in verify_receipt(path).problems] == ["receipt_edited"]
    write_json(path, seal(forged), indent=2)
    result = verify_receipt(path, recompute=True)
    assert result.recompute is not None and result.recompute.status == "differs"
    assert [f.field.split(".")[0] for f in result.recompute.fields] == ["changes"]
    assert not result.ok


def test_changes_cannot_be_forged_into_a_receipt_that_was_not_regraded(
        made: tuple[Path, dict[str, Any]]) -> None:
    folder, receipt = made
    forged = {**copy.deepcopy(receipt), "changes": {"checks": [], "metrics": []}}
    result = verify_receipt(_written(folder, seal(forged)), recompute=True)
    assert result.recompute is not None
    assert "changes: receipt" in "\n".join(str(f) for f in result.recompute.fields)


def test_a_receipt_regraded_before_changes_were_recorded_still_verifies(
        regraded: tuple[Path, dict[str, Any]]) -> None:
    path, receipt = regraded
    older = {k: v for k, v in receipt.items() if k != "changes"}
    write_json(path, seal(older), indent=2)
    assert verify_receipt(path, recompute=True).ok
