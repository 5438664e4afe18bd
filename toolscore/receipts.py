"""Receipts: build, write, load and verify them (``toolscore.receipts.verify_receipt``)."""

from __future__ import annotations

from toolscore_core.changes import Changes, CheckChange, MetricChange
from toolscore_core.receipts import (
    INPUT_ROLES,
    RECEIPT_KIND,
    RECEIPT_VERSION,
    build_receipt,
    load_receipt,
    write_receipt,
)
from toolscore_core.regrade import Regrade, RegradeRefused, regrade
from toolscore_core.signing import (
    SignatureCheck,
    check_signature,
    generate_key_pair,
    load_public_key,
    sign_receipt,
)
from toolscore_core.verify import (
    FieldDiff,
    Link,
    Problem,
    Recompute,
    Verification,
    verify_chain,
    verify_receipt,
)

__all__ = [
    "INPUT_ROLES",
    "RECEIPT_KIND",
    "RECEIPT_VERSION",
    "Changes",
    "CheckChange",
    "FieldDiff",
    "Link",
    "MetricChange",
    "Problem",
    "Recompute",
    "Regrade",
    "RegradeRefused",
    "SignatureCheck",
    "Verification",
    "build_receipt",
    "check_signature",
    "generate_key_pair",
    "load_public_key",
    "load_receipt",
    "regrade",
    "sign_receipt",
    "verify_chain",
    "verify_receipt",
    "write_receipt",
]
