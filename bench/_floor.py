"""The least any ``toolscore eval`` built as the design card says can cost: start Python,
import what the verdict is built on (rich's Console and Table, attrs, pluggy) and print one
table of nine rows. No toolscore code runs. Timed by bench_evaluate.py beside both CLIs."""

import attrs  # noqa: F401  (the records)
import pluggy  # noqa: F401  (the plugin engine)
from rich.console import Console
from rich.table import Table

table = Table()
for column in ("Metric", "Value", "Weight"):
    table.add_column(column)
for row in range(9):
    table.add_row(f"metric_{row}", "100.0%", "0.40")
Console().print(table)
