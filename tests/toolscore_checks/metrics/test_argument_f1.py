from toolscore_core.evaluation import evaluate
from toolscore_core.matchers import Regex
from toolscore_core.models import ExpectedCall, ToolCall


def test_per_call_f1_averaged_over_checked_expected_calls() -> None:
    expected = [ExpectedCall(tool="a", args={"x": 1, "y": 2}),
                ExpectedCall(tool="b", args={"q": Regex("^cat")}),
                ExpectedCall(tool="c")]
    calls = [ToolCall(tool="a", args={"x": 1, "y": 3}), ToolCall(tool="b", args={"q": "cats"}),
             ToolCall(tool="c", args={"whatever": 1})]
    # a: 1 of 2 keys right -> F1 0.5; b: 1.0; c is not checked
    assert evaluate(expected, calls).metrics["argument_f1"] == 0.75


def test_a_missing_call_counts_zero_and_extra_args_lower_precision() -> None:
    expected = [ExpectedCall(tool="a", args={"x": 1}), ExpectedCall(tool="b", args={})]
    calls = [ToolCall(tool="a", args={"x": 1, "verbose": True})]
    # a: 2*1/(1+2) = 0.667; b was never made: 0
    assert evaluate(expected, calls).metrics["argument_f1"] == round((2 / 3) / 2, 12)


def test_unknown_when_a_paired_calls_arguments_are_not_in_the_trace() -> None:
    # args and raw_args both null: the trace does not record them (content capture off)
    expected = [ExpectedCall(tool="a", args={"x": 1}), ExpectedCall(tool="b", args={})]
    calls = [ToolCall(tool="a", args={"x": 1}), ToolCall(tool="b")]
    evaluation = evaluate(expected, calls)
    assert evaluation.metrics["argument_f1"] == {
        "unknown": "the arguments of 1 call paired with an expected call are not in the trace"}
    assert "argument_f1" in evaluation.to_dict()["unscored"]
    # arguments that did not decode are known to be wrong: 0 for that call
    garbled = [ToolCall(tool="a", args={"x": 1}), ToolCall(tool="b", raw_args="{oops")]
    assert evaluate(expected, garbled).metrics["argument_f1"] == 0.5
