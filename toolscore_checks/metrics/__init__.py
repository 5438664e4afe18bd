"""Metrics: one module per metric, each a registered plugin."""
