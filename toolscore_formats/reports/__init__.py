"""Report writers: one module per report (console, JSON, ...)."""
