"""toolscore in pytest: ``assert_trace``, the ``toolscore`` fixture, case folders, trials.

The plugin (``toolscore_pytest.plugin``) is registered through the ``pytest11`` entry point
and does nothing until a test uses it.
"""

from __future__ import annotations

from toolscore_pytest.asserting import TraceAssertionError, assert_trace

__all__ = ["TraceAssertionError", "assert_trace"]
