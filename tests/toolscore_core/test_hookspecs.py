"""plugins.md documents every hook and every field of the hook records exactly once, with
an example of its own; the hookspecs point to it."""

from __future__ import annotations

import ast
import inspect
import re
from collections import Counter

import attrs
import pytest

from tests.conftest import ROOT
from toolscore_core import hookspecs, importers, models

PLUGINS_MD = (ROOT / "plugins.md").read_text(encoding="utf-8")
HOOKS = sorted(name for name in dir(hookspecs) if name.startswith("toolscore_register_"))

RECORDS = (models.TraceFormat, models.Check, models.CheckOutcome, models.Metric,
           models.MetricOutcome, models.ReportWriter, models.Settings, models.Setting,
           importers.RunImporter, importers.ImportSource, importers.ImportedRun)
"""What the hooks return, what those records hold, and what their functions return."""

TABLE_HEADER = re.compile(r"^\| field of ((?:`\w+`(?:, )?)+) \| meaning \|$", re.M)


def _field_rows(text: str) -> list[tuple[str, str]]:
    """``(record, field)`` for every row of every ``| field of `Record` |`` table."""
    rows: list[tuple[str, str]] = []
    for header in TABLE_HEADER.finditer(text):
        records = re.findall(r"`(\w+)`", header.group(1))
        body = text[header.end():].lstrip("\n").split("\n\n", 1)[0]
        for line in body.splitlines()[1:]:  # the first is the | --- | line
            field = re.match(r"\| `(\w+)", line)
            assert field, f"plugins.md: a row of the table of {records} names no field: {line}"
            rows += [(record, field.group(1)) for record in records]
    return rows


def test_every_hook_has_one_section() -> None:
    headings = Counter(re.findall(r"^## (toolscore_register_\w+)$", PLUGINS_MD, re.M))
    assert {hook: headings[hook] for hook in HOOKS} == dict.fromkeys(HOOKS, 1)
    assert sorted(headings) == HOOKS, "plugins.md has a section for a hook that does not exist"


@pytest.mark.parametrize("record", RECORDS, ids=lambda record: record.__name__)
def test_every_field_of_a_hook_record_has_one_row(record: type) -> None:
    rows = Counter(field for name, field in _field_rows(PLUGINS_MD) if name == record.__name__)
    fields = [field.name for field in attrs.fields(record)]
    assert {field: rows[field] for field in fields} == dict.fromkeys(fields, 1), (
        f"plugins.md needs exactly one row for each field of {record.__name__}")
    assert sorted(rows) == sorted(fields), (
        f"plugins.md documents a field {record.__name__} does not have")


def test_field_tables_name_only_hook_records() -> None:
    named = {record for record, _ in _field_rows(PLUGINS_MD)}
    assert named <= {record.__name__ for record in RECORDS}


def test_the_field_tables_live_only_in_plugins_md() -> None:
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        assert not TABLE_HEADER.search(path.read_text(encoding="utf-8")), (
            f"{path.name} documents a hook record's fields: link to plugins.md instead")


@pytest.mark.parametrize("hook", HOOKS)
def test_each_hookspec_links_to_its_section(hook: str) -> None:
    doc = inspect.getdoc(getattr(hookspecs, hook)) or ""
    assert f"plugins.md#{hook}" in doc


def _sections() -> dict[str, str]:
    parts = re.split(r"^## (.+)$", PLUGINS_MD, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def _example_parts(section: str) -> tuple[set[str], set[str]]:
    """The ids a section's examples register, and the bodies of the functions they define."""
    ids: set[str] = set()
    bodies: set[str] = set()
    for block in re.findall(r"^```python\n(.*?)^```$", section, re.S | re.M):
        tree = ast.parse(block)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                if any(isinstance(d, ast.Name) and d.id == "hookimpl"
                       for d in node.decorator_list):
                    ids |= {kw.value.value for call in ast.walk(node)
                            if isinstance(call, ast.Call) for kw in call.keywords
                            if kw.arg == "id" and isinstance(kw.value, ast.Constant)}
                else:
                    bodies.add(ast.dump(ast.Module(body=node.body, type_ignores=[])))
    return ids, bodies


def test_no_two_sections_share_an_example() -> None:
    seen: dict[str, str] = {}
    for title, section in _sections().items():
        ids, bodies = _example_parts(section)
        for part in sorted(ids) + sorted(bodies):
            assert part not in seen, (
                f"plugins.md: sections {seen[part]!r} and {title!r} share an example "
                f"({part[:60]})")
            seen[part] = title
