"""The least any ``toolscore eval`` built on toolscore's libraries can cost: start
Python, import the libraries that evaluating the bench's small trace loads (click to parse
the command line, attrs for the records, pluggy with the entry points listed by
importlib.metadata, rapidfuzz for the edit distance, rich's Console and Table for the
verdict) and print one table of nine rows. No toolscore code runs. Timed by
bench_evaluate.py beside both CLIs.

cattrs is left out: the small trace's contract holds plain calls, which never load it (a
contract with matchers does, about 10 ms more; so does a final answer, which loads the
language model of claimed-success, about 14 ms; bench_evaluate.py times the README's example,
which has both, on its own line)."""

from importlib.metadata import entry_points

import attrs  # noqa: F401  (the records)
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
