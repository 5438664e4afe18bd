import pytest

from toolscore_cli.options import parse_weight, weights_from
from toolscore_core.errors import InputError


def test_weights_are_name_equals_value() -> None:
    assert weights_from(["selection_accuracy=2", " argument_f1 = 0.5"]) == {
        "selection_accuracy": 2.0, "argument_f1": 0.5}
    assert weights_from([]) is None


@pytest.mark.parametrize("text", ["selection_accuracy", "=1", "selection_accuracy=nan",
                                  "selection_accuracy=inf", "selection_accuracy=lots"])
def test_a_weight_that_is_not_name_equals_a_finite_number_is_refused(text: str) -> None:
    with pytest.raises(InputError, match=r"--weight: bad weight .*write NAME=VALUE"):
        parse_weight(text)
