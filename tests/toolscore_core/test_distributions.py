"""The cheap metadata reader gives importlib.metadata's answers, or says it cannot."""

from __future__ import annotations

import importlib.metadata as im
import sys
import zipfile
from pathlib import Path

import pytest

from toolscore_core.distributions import distribution_version, may_declare_entry_points


def _dist(folder: Path, dirname: str, metadata: str, entry_points: str | None = None) -> None:
    info = folder / dirname
    info.mkdir(parents=True)
    (info / "METADATA").write_text(metadata, encoding="utf-8")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")


def _fresh(monkeypatch: pytest.MonkeyPatch, *paths: Path) -> None:
    monkeypatch.setattr(sys, "path", [str(p) for p in paths] + sys.path)
    im.FastPath.__new__.cache_clear()  # type: ignore[attr-defined]


def test_every_installed_version_is_importlib_metadata_s() -> None:
    names = {dist.metadata["Name"] for dist in im.distributions()}
    assert names
    for name in names:
        assert distribution_version(name) == im.version(name), name


def test_every_declared_group_is_seen_and_an_absent_one_is_not() -> None:
    groups = {ep.group for dist in im.distributions() for ep in dist.entry_points}
    for group in groups:
        assert may_declare_entry_points(group), group
    assert not may_declare_entry_points("toolscore-no-such-group")


def test_first_on_sys_path_wins_and_names_are_normalized(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    _dist(first, "My_Dist-1.0.dist-info", "Metadata-Version: 2.1\nName: My.Dist\nVersion: 1.0\n")
    _dist(second, "my_dist-2.0.dist-info", "Metadata-Version: 2.1\nName: my-dist\nVersion: 2.0\n",
          "[toolscore]\nexample = my_dist.plugin\n")
    _fresh(monkeypatch, first, second)
    assert distribution_version("my-dist") == im.version("my-dist") == "1.0"
    assert distribution_version("MY.DIST") == "1.0"
    # a shadowed distribution may still make the reader say "maybe": never a wrong "no"
    assert may_declare_entry_points("toolscore")


def test_entry_point_sections_as_importlib_reads_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _dist(tmp_path, "spaced-1.0.dist-info", "Name: spaced\nVersion: 1.0\n",
          "# [commented]\n  [ toolscore ]\nx = y\n\n[[other]]\nx = y\n")
    _fresh(monkeypatch, tmp_path)
    for group in ("toolscore", " toolscore ", "other", "commented"):
        found = bool(im.entry_points(group=group))
        assert may_declare_entry_points(group) is found, group


def test_unusual_metadata_is_left_to_importlib(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _dist(tmp_path, "folded-1.0.dist-info", "Name: folded\nVersion: 1.0\n  .post1\n")
    _dist(tmp_path, "crlf-1.0.dist-info", "Name: crlf\r\nVersion: 3.0\r\n")
    _dist(tmp_path, "breaks-1.0.dist-info", "Name: breaks\x0cVersion: 4.0\n")
    _dist(tmp_path, "late-1.0.dist-info", "Name: late\n\nVersion: 9\n")
    _fresh(monkeypatch, tmp_path)
    assert distribution_version("folded") is None
    assert distribution_version("crlf") == im.version("crlf") == "3.0"  # read as text
    assert distribution_version("late") is None
    assert distribution_version("breaks") is None
    assert distribution_version("not-installed-anywhere") is None


def test_a_zip_on_sys_path_makes_the_reader_unsure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("zipped-1.0.dist-info/METADATA", "Name: zipped\nVersion: 1.0\n")
        zf.writestr("zipped-1.0.dist-info/entry_points.txt", "[toolscore]\nz = zipped\n")
    _fresh(monkeypatch, archive)
    assert [ep.name for ep in im.entry_points(group="toolscore")] == ["z"]
    assert may_declare_entry_points("toolscore")
    assert distribution_version("zipped") is None
