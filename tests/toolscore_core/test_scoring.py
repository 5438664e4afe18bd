import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolscore_core.errors import InputError
from toolscore_core.evaluation import evaluate
from toolscore_core.models import ToolCall
from toolscore_core.plugins import default_registry
from toolscore_core.scoring import grade_for, resolve_weights


def test_default_weights() -> None:
    assert resolve_weights(default_registry().metrics) == {
        "argument_f1": 0.3, "redundant_rate": 0.1, "required_call_recall": 0.0,
        "selection_accuracy": 0.4, "sequence_accuracy": 0.2,
    }


def test_overrides_are_merged_and_renormalized() -> None:
    weights = resolve_weights(default_registry().metrics, {"required_call_recall": 1.0})
    assert weights["required_call_recall"] == 0.5
    assert weights["selection_accuracy"] == 0.2
    assert sum(weights.values()) == pytest.approx(1.0)


def test_unknown_weight_names_are_an_error() -> None:
    with pytest.raises(InputError, match=r"unknown weight 'speed'.*use one of argument_f1"):
        resolve_weights(default_registry().metrics, {"speed": 1})


@pytest.mark.parametrize(("score", "grade"), [(1.0, "A"), (0.9, "A"), (0.8999, "B"),
                                              (0.8, "B"), (0.7, "C"), (0.6, "D"), (0.59, "F")])
def test_grades(score: float, grade: str) -> None:
    assert grade_for(score) == grade


names = st.sampled_from(["search", "book", "email", "pay"])
args = st.dictionaries(st.sampled_from(["a", "b", "c"]),
                       st.integers(0, 3) | st.text(max_size=3), max_size=3)


@given(st.lists(st.tuples(names, args), min_size=0, max_size=8))
def test_identical_traces_score_exactly_one(calls) -> None:
    expected = [{"tool": t, "args": a} for t, a in calls]
    actual = [ToolCall(tool=t, args=a, result="ok", is_error=False) for t, a in calls]
    result = evaluate(expected, actual, weights={"required_call_recall": 0.2})
    assert result.score == 1.0
    assert result.grade == "A"


@given(st.lists(st.tuples(names, args), max_size=6), st.lists(st.tuples(names, args), max_size=6))
def test_metrics_and_score_stay_within_0_and_1(exp, act) -> None:
    result = evaluate([{"tool": t, "args": a} for t, a in exp],
                      [ToolCall(tool=t, args=a) for t, a in act])
    for name in ("selection_accuracy", "argument_f1", "sequence_accuracy", "redundant_rate",
                 "required_call_recall"):
        value = result.metrics[name]
        assert value is None or 0.0 <= value <= 1.0
    assert result.score is None or 0.0 <= result.score <= 1.0
