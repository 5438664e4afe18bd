"""Write the Inspect eval logs of this folder with inspect_ai itself, offline.

The model is Inspect's own mock provider (``mockllm/model``) answering from a script: a
function of the conversation so far, so each sample's turns are the same whatever order
Inspect runs the samples in. Everything else (the agent loop, the tool calls and their
results, the epochs, the scores, the sample error) is what Inspect writes.

    pip install inspect_ai==0.3.285
    python make_logs.py    # writes arithmetic.json, arithmetic.eval, stock.json, unscored.json
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import exact, includes
from inspect_ai.solver import basic_agent
from inspect_ai.tool import tool

M = "mockllm/model"
HERE = Path(__file__).resolve().parent


@tool
def add():
    async def execute(x: int, y: int):
        """Add two numbers.

        Args:
          x: First number to add.
          y: Second number to add.
        """
        return x + y
    return execute


@tool
def multiply():
    async def execute(x: int, y: int):
        """Multiply two numbers.

        Args:
          x: First number.
          y: Second number.
        """
        return x * y
    return execute


@tool
def stock_price():
    async def execute(symbol: str):
        """The latest price of a stock.

        Args:
          symbol: The stock's ticker symbol.
        """
        # Not a ToolError: an exception a tool did not expect ends the sample with an error.
        raise ConnectionError("quote service unreachable")
    return execute


# What the model does for each question: the calls it makes, one turn each, then the answer
# it submits. A question asked twice (two epochs) is answered by the next plan in its list.
PLANS: dict[str, list[tuple[list[tuple[str, dict[str, Any]]], str]]] = {
    "What is 12 + 30?": [([("add", {"x": 12, "y": 30})], "42"),
                         ([("add", {"x": 12, "y": 30})], "The answer is 42")],
    "What is 6 times 7?": [([("multiply", {"x": 6, "y": 7})], "42"),
                           ([("add", {"x": 6, "y": 7})], "13")],
    "What is 2 + 2?": [([("add", {"x": 2, "y": 2})], "4")],
    "What is ACME trading at?": [([("stock_price", {"symbol": "ACME"})], "unknown")],
}
_asked: dict[str, int] = {}


def scripted(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """The model's next turn: the plan's next call, or its submission after the last."""
    question = next(m.text for m in messages if m.role == "user")
    turn = sum(1 for m in messages if m.role == "assistant")
    if turn == 0:
        _asked[question] = _asked.get(question, 0) + 1
    calls, answer = PLANS[question][_asked[question] - 1]
    if turn < len(calls):
        name, args = calls[turn]
        output = ModelOutput.for_tool_call(M, name, args, tool_call_id=f"{name}_{turn + 1}")
    else:
        output = ModelOutput.for_tool_call(M, "submit", {"answer": answer},
                                           tool_call_id=f"submit_{turn + 1}", content="")
    # Scripted usage too: without it Inspect counts the tokens itself, with an encoding
    # tiktoken downloads (this script runs offline).
    output.usage = ModelUsage(input_tokens=100 + 40 * turn, output_tokens=12,
                              total_tokens=112 + 40 * turn)
    return output


def run(name: str, samples: list[Sample], tools: list[Any], epochs: int, log_format: str,
        **options: Any) -> None:
    """Evaluate the samples and keep the log Inspect writes as ``name``."""
    _asked.clear()
    task = Task(name=name.split(".")[0], dataset=samples, solver=basic_agent(tools=tools),
                scorer=[includes(), exact()], epochs=epochs)
    with tempfile.TemporaryDirectory() as logs:
        (log,) = eval(task, model=get_model(M, custom_outputs=scripted), log_dir=logs,
                      log_format=log_format, display="none", max_samples=1, **options)
        shutil.copyfile(log.location, HERE / name)
    print(f"{name}: {log.status}", file=sys.stderr)


run("arithmetic.json", [Sample(id="add", input="What is 12 + 30?", target="42"),
                        Sample(id="multiply", input="What is 6 times 7?", target="42")],
    [add(), multiply()], epochs=2, log_format="json")
run("arithmetic.eval", [Sample(id="add", input="What is 12 + 30?", target="42"),
                        Sample(id="multiply", input="What is 6 times 7?", target="42")],
    [add(), multiply()], epochs=2, log_format="eval")
run("stock.json", [Sample(id="sum", input="What is 2 + 2?", target="4"),
                   Sample(id="acme", input="What is ACME trading at?", target="101.5")],
    [add(), stock_price()], epochs=1, log_format="json", fail_on_error=False)
run("unscored.json", [Sample(id="sum", input="What is 2 + 2?", target="4")], [add()], epochs=1,
    log_format="json", score=False)
