"""Bytes in and out: one module per trace format, and the report writers in ``reports``."""
