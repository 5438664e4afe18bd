"""Judges: one module per evidence check, and the metrics in ``metrics``."""
