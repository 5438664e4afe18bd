"""A test kit for plugin authors: a hermetic registry, random JSON, and the built-ins' corpus.

``toolscore.testing`` is public and typed like ``toolscore``. It is imported only when a test
asks for it (``import toolscore`` does not load it). :func:`json_documents` needs hypothesis
(in ``toolscore[test]``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import frozen

from toolscore_core.errors import InputError
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Trace, TraceFormat
from toolscore_core.plugins import Registry, build_registry, get_plugin_manager
from toolscore_core.traces import decode_trace_bytes, parse_trace

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = [
    "Fixture",
    "assert_claims",
    "assert_reads_or_refuses",
    "assert_steals_nothing",
    "builtin_fixtures",
    "json_documents",
    "read_document",
    "registry",
]

FIXTURES_PACKAGE = "toolscore_formats"
"""The built-in readers' fixture corpus ships as this package's data, in ``fixtures/``."""
MANIFEST = "formats.txt"
"""``<file> <format>`` per line (``-``: no format claims it), ``#`` starts a comment."""


@frozen
class Fixture:
    """A real trace file from the built-in readers' test corpus (SOURCES.md says where from)."""

    path: Path
    format: str | None
    """The format ``--format auto`` chooses for it; None when no format claims it (a near
    miss that the error names)."""

    @property
    def name(self) -> str:
        return self.path.name

    def document(self) -> Any:
        """The decoded document, read as the CLI reads the file (JSON or JSON Lines)."""
        return read_document(self.path)


def read_document(path: str | Path) -> Any:
    """A trace file decoded as ``toolscore eval`` decodes it (JSON, or JSON Lines as a list)."""
    return decode_trace_bytes(Path(path).read_bytes(), file=str(path))


def builtin_fixtures() -> tuple[Fixture, ...]:
    """Every fixture of the built-in trace readers, with the format each must be read as."""
    folder = Path(str(files(FIXTURES_PACKAGE).joinpath("fixtures")))
    fixtures: list[Fixture] = []
    for line in (folder / MANIFEST).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, fmt = line.split()
        fixtures.append(Fixture(path=folder / name, format=None if fmt == "-" else fmt))
    return tuple(fixtures)


class _Formats:
    """A plugin providing the given trace formats, for a registry built around them."""

    def __init__(self, formats: Iterable[TraceFormat]) -> None:
        self.formats = list(formats)

    @hookimpl
    def toolscore_register_trace_formats(self) -> list[TraceFormat]:
        return self.formats


def registry(*plugins: object, env: Mapping[str, str] | None = None,
             **named: object) -> Registry:
    """The built-ins and the given plugins (modules or objects with ``@hookimpl`` functions),
    and nothing else: no installed entry point, and ``TOOLSCORE_DISABLE_PLUGINS`` /
    ``TOOLSCORE_LOAD_PLUGINS`` from the environment are ignored unless passed in ``env``.

    A plugin passed by keyword is registered under that name (``registry(acme=module)``);
    one passed by position under its ``__name__``. A misspelt hook name is an error.
    """
    pm = get_plugin_manager(entry_points=False, env={} if env is None else env)
    for plugin in plugins:
        pm.register(plugin, name=getattr(plugin, "__name__", None))
    for name, plugin in named.items():
        pm.register(plugin, name=name)
    pm.check_pending()
    return build_registry(pm)


def _with(fmt: TraceFormat) -> Registry:
    """The built-ins, and ``fmt`` unless it is one of them."""
    builtins = registry()
    if fmt.id in builtins.trace_formats:
        return builtins
    pm = get_plugin_manager(entry_points=False, env={})
    pm.register(_Formats([fmt]), name=fmt.id)
    return build_registry(pm)


def _document(item: Any) -> tuple[str, Any]:
    if isinstance(item, Path):
        return item.name, read_document(item)
    if isinstance(item, Fixture):
        return item.name, item.document()
    return f"document {_short(item)}", item


def _short(document: Any) -> str:
    text = repr(document)
    return text if len(text) <= 60 else text[:57] + "..."


def assert_claims(fmt: TraceFormat, *traces: Any, registry: Registry | None = None
                  ) -> list[Trace]:
    """Assert that ``fmt`` claims each trace (a ``Path``, a :class:`Fixture` or a decoded
    document), that no other format in ``registry`` (default: the built-ins and ``fmt``)
    claims it too, and that it reads tool calls from it. Returns the traces read."""
    if not traces:
        raise ValueError("assert_claims needs at least one trace")
    reg = registry if registry is not None else _with(fmt)
    read: list[Trace] = []
    for item in traces:
        label, document = _document(item)
        reason = fmt.detect(document)
        if not (isinstance(reason, str) and reason.strip()):
            raise AssertionError(f"{fmt.id}.detect does not claim {label} (it returned "
                                 f"{reason!r})")
        try:
            trace, choice = parse_trace(document, registry=reg, file=label)
        except InputError as exc:
            raise AssertionError(f"{fmt.id} does not read {label}: {exc}") from None
        if choice.format != fmt.id:
            raise AssertionError(f"{label} is read as {choice.format}, not {fmt.id}")
        read.append(trace)
    return read


def assert_steals_nothing(fmt: TraceFormat, fixtures: Iterable[Fixture] | None = None) -> None:
    """Assert that ``fmt.detect`` claims none of the built-in readers' fixtures (or of
    ``fixtures``) and raises on none: a document another format reads stays theirs."""
    problems: list[str] = []
    for fixture in builtin_fixtures() if fixtures is None else fixtures:
        if fixture.format == fmt.id:
            continue
        try:
            reason = fmt.detect(fixture.document())
        except Exception as exc:
            problems.append(f"{fixture.name}: detect raised {type(exc).__name__}: {exc}")
            continue
        if reason:
            owner = fixture.format or "no format"
            problems.append(f"{fixture.name} (read by {owner}): claimed as {reason!r}")
    if problems:
        raise AssertionError(f"{fmt.id} claims what is not its own: " + "; ".join(problems))


def assert_reads_or_refuses(fmt: TraceFormat, document: Any) -> Trace | None:
    """Assert that ``fmt.parse`` returns a Trace for ``document`` or refuses it with an
    :class:`InputError` (a one-line message), never another exception; and that ``detect``
    and ``near`` answer a string or None without raising. Returns the trace, or None."""
    reason = fmt.detect(document)
    if reason is not None and not isinstance(reason, str):
        raise AssertionError(f"{fmt.id}.detect returned {reason!r}")
    if fmt.near is not None:
        hint = fmt.near(document)
        if hint is not None and not isinstance(hint, str):
            raise AssertionError(f"{fmt.id}.near returned {hint!r}")
    try:
        trace = fmt.parse(document)
    except InputError as exc:
        if not str(exc) or "\n" in str(exc):
            raise AssertionError(f"{fmt.id}.parse refused with {exc!r}") from None
        return None
    if not isinstance(trace, Trace):
        raise AssertionError(f"{fmt.id}.parse returned {type(trace).__name__}")
    return trace


def json_documents(*, keys: Iterable[str] = (), strings: Iterable[str] = (),
                   max_leaves: int = 40) -> SearchStrategy[Any]:
    """A hypothesis strategy of JSON documents: what ``json.loads`` can return (no NaN or
    infinity). ``keys`` and ``strings`` are drawn often, so documents reach deep into a
    reader that looks for them (its own key names, its role and type values)."""
    from hypothesis import strategies as st

    key_list, string_list = list(keys), list(strings)
    text = st.text(max_size=8)
    key = st.sampled_from(key_list) | text if key_list else text
    string = st.sampled_from(string_list) | text if string_list else text
    scalars = (st.none() | st.booleans() | st.integers()
               | st.floats(allow_nan=False, allow_infinity=False) | string)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=5) | st.dictionaries(key, inner, max_size=6),
        max_leaves=max_leaves,
    )
