"""Receipts: build, write, load and verify them (``toolscore.receipts.verify_receipt``)."""

from __future__ import annotations

from toolscore_core.receipts import (
    INPUT_ROLES,
    RECEIPT_KIND,
    RECEIPT_VERSION,
    build_receipt,
    load_receipt,
    write_receipt,
)
from toolscore_core.regrade import Regrade, RegradeRefused, regrade
from toolscore_core.verify import Problem, Recompute, Verification, verify_receipt

__all__ = [
    "INPUT_ROLES",
    "RECEIPT_KIND",
    "RECEIPT_VERSION",
    "Problem",
    "Recompute",
    "Regrade",
    "RegradeRefused",
    "Verification",
    "build_receipt",
    "load_receipt",
    "regrade",
    "verify_receipt",
    "write_receipt",
]
