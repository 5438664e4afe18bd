"""The least any ``toolscore eval`` built on toolscore's libraries can cost: start
Python, import the libraries that evaluating the bench's small trace loads (click to parse
the command line, attrs for the records, cattrs to read the contract, pluggy with the entry
points listed by importlib.metadata, rapidfuzz for the edit distance, rich's Console and
Table for the verdict) and print one table of nine rows. No toolscore code runs. Timed by
bench_evaluate.py and counted by bench_instructions.py beside both CLIs.

Every contract is read by the one cattrs converter, so cattrs is part of the floor. A
final answer costs more than the floor shows: it loads the language model of
claimed-success (about 14 ms; bench_evaluate.py times the README's example, which has one,
on its own line)."""

from importlib.metadata import entry_points

import attrs  # noqa: F401  (the records)
import cattrs  # noqa: F401  (reading the contract)
import click  # noqa: F401  (the command line)
import pluggy  # noqa: F401  (the plugin engine)
from rapidfuzz.distance import Levenshtein  # noqa: F401  (sequence_accuracy)
from rich.console import Console
from rich.table import Table

entry_points(group="toolscore")  # the plugins' entry points
table = Table()
for column in ("Metric", "Value", "Weight"):
    table.add_column(column)
for row in range(9):
    table.add_row(f"metric_{row}", "100.0%", "0.40")
Console().print(table)
