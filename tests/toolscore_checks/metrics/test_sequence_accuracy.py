from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from toolscore_checks.metrics.sequence_accuracy import _distance, _symbols
from toolscore_core.evaluation import evaluate
from toolscore_core.models import ToolCall


def test_edit_distance_over_tool_names() -> None:
    calls = [ToolCall(tool=t) for t in ("a", "x", "c")]
    assert evaluate([{"tool": t} for t in "abcd"], calls).metrics["sequence_accuracy"] == 0.5


@given(st.lists(st.sampled_from("abc"), max_size=300), st.lists(st.sampled_from("abc"),
                                                                 max_size=300))
def test_banded_distance_is_exact(a: list[str], b: list[str]) -> None:
    assert _distance(a, b, Levenshtein) == Levenshtein.distance(a, b)


@st.composite
def _long_pair(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A long expected sequence and a noisy copy: drops, extras, swaps and bursts."""
    tools = draw(st.lists(st.text("abcdefgh", min_size=1, max_size=3), min_size=1,
                          max_size=12, unique=True))
    seed = draw(st.integers(0, 2**32))
    import random

    rng = random.Random(seed)
    n = draw(st.integers(4097, 12_000))
    noise = draw(st.sampled_from([0.0, 0.01, 0.06, 0.3]))
    expected = [rng.choice(tools) for _ in range(n)]
    actual: list[str] = []
    for name in expected:
        roll = rng.random()
        if roll < noise / 3:
            continue
        if roll < 2 * noise / 3:
            actual.append(rng.choice(tools))
        elif roll < noise:
            actual.extend([name] * rng.randint(2, 40))
        else:
            actual.append(name)
    return expected, actual


@settings(max_examples=25, deadline=None)
@given(_long_pair())
def test_long_sequences_get_the_exact_distance(pair: tuple[list[str], list[str]]) -> None:
    """Past 4,096 names the cutoff is an alignment's cost: the answer stays exact."""
    expected, actual = pair
    a, b = _symbols(expected, actual)
    assert _distance(a, b, Levenshtein) == Levenshtein.distance(expected, actual)


def test_many_distinct_tools_use_numbers() -> None:
    names = [f"t{i}" for i in range(60_000)]
    a, b = _symbols(names, names[::-1])
    assert isinstance(a, list)
    assert _distance(a, b, Levenshtein) == Levenshtein.distance(names, names[::-1])


@given(st.lists(st.sampled_from("abcd"), max_size=140),
       st.lists(st.sampled_from("abcd"), max_size=140))
def test_the_bit_parallel_distance_is_exact(a: list[str], b: list[str]) -> None:
    """Sequences measured without rapidfuzz (past 64 names too, where the integers holding
    a column grow past one machine word) get rapidfuzz's distance."""
    from toolscore_checks.metrics.sequence_accuracy import small_distance

    assert small_distance(a, b) == Levenshtein.distance(a, b)
    assert small_distance(b, a) == Levenshtein.distance(a, b)


def test_a_small_trace_is_measured_without_rapidfuzz() -> None:
    """A one-shot `toolscore eval` of a trace of up to 128 calls never imports rapidfuzz."""
    import subprocess
    import sys

    code = ("import sys; from toolscore import evaluate; "
            "e = [{'tool': f't{i % 7}'} for i in range(120)]; "
            "a = [{'tool': f't{i % 5}'} for i in range(125)]; "
            "r = evaluate(e, a); print(r.metrics['sequence_accuracy'], "
            "'rapidfuzz' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    e = [f"t{i % 7}" for i in range(120)]
    a = [f"t{i % 5}" for i in range(125)]
    assert float(out[0]) == round(1 - Levenshtein.distance(e, a) / 125, 12)
    assert out[1] == "False"
