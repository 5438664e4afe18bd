import io

from toolscore_core.evaluation import evaluate, evaluate_files
from toolscore_core.models import ToolCall
from toolscore_formats.reports import console


def render(evaluation) -> str:
    stream = io.StringIO()
    console.write(evaluation, stream)
    return stream.getvalue()


def test_verdict_shows_score_metrics_problems_and_evidence(examples) -> None:
    text = render(evaluate_files(examples / "gold.json", examples / "trace.json"))
    assert "Score 87.5% B" in text
    assert "2.303s (3 of 4 calls)" in text
    assert "What went wrong" in text
    assert "arguments differ: passengers: expected 2, got 1" in text
    assert "Evidence:" in text


def test_a_metric_left_out_of_the_score_and_arguments_not_in_the_trace_are_said() -> None:
    # The calls' arguments are not in the trace (args and raw_args null): argument_f1 is
    # unknown, so the score is of the other metrics, and the headline says so.
    text = render(evaluate([{"tool": "search", "args": {"q": "x"}}],
                           [ToolCall(tool="search", result="ok", is_error=False)]))
    assert text.splitlines()[0] == ("Score 100.0% A  (1 call vs 1 expected; left out of the "
                                    "score, unknown: argument_f1)")
    assert ("call #1 search: arguments not in the trace (whether they are the expected ones "
            "is unknown)") in text
    assert "arguments differ" not in text


def test_a_measured_zero_is_shown_as_zero_and_markup_is_not_interpreted() -> None:
    text = render(evaluate([{"tool": "[bold]x[/bold]"}],
                           [ToolCall(tool="[red]y", duration=0.0, result=1, is_error=False)]))
    assert "0.000s" in text
    assert "[red]y" in text


def test_emoji_codes_in_trace_content_are_printed_as_written() -> None:
    """Trace content is untrusted: ``:smile:`` in a tool name or an error stays text."""
    text = render(evaluate([{"tool": "deploy:smile:"}],
                           [ToolCall(tool="deploy:smile:", is_error=True,
                                     error="failed :thumbs_up:")]))
    assert "deploy:smile:" in text
    assert "failed :thumbs_up:" in text
    assert "\N{SMILING FACE WITH OPEN MOUTH AND SMILING EYES}" not in text
    assert "\N{THUMBS UP SIGN}" not in text


def test_control_characters_in_trace_content_cannot_drive_the_terminal() -> None:
    """ESC sequences (clear screen, set title), BEL and CR from a trace are shown, not sent."""
    tool = "deploy\x1b[2J"
    text = render(evaluate([{"tool": tool}],
                           [ToolCall(tool=tool, is_error=True, error="x\x1b]0;pwned\x07y\rz")]))
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text
    assert "deploy\\x1b[2J" in text and "x\\x1b]0;pwned\\x07y\\x0dz" in text


def test_invisible_characters_in_tool_names_are_shown() -> None:
    text = render(evaluate([{"tool": "search"}], [ToolCall(tool="sea\u200brch", result=1,
                                                           is_error=False)]))
    assert "unexpected call #1 sea\\u200brch" in text and "\u200b" not in text


def test_a_readers_notes_are_shown_after_the_evidence() -> None:
    from toolscore_core.models import Trace

    trace = Trace(calls=(ToolCall(tool="a"),),
                  notes=("the file's last line was cut off [bold]mid-write[/bold]",))
    text = render(evaluate([{"tool": "a"}], trace))
    assert text.index("Evidence:") < text.index("Trace notes")
    assert "  - the file's last line was cut off [bold]mid-write[/bold]" in text
    assert "Trace notes" not in render(evaluate([{"tool": "a"}], [ToolCall(tool="a")]))
