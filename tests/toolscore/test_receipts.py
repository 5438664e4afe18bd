"""The public API of receipts and regrade: ``toolscore`` and ``toolscore.receipts``."""

from __future__ import annotations

from pathlib import Path

import toolscore
import toolscore.receipts
from tests.helpers import example_folder
from toolscore_core import receipts as core_receipts
from toolscore_core import regrade as core_regrade
from toolscore_core import verify as core_verify


def test_facade_exports() -> None:
    for name in ("regrade", "Regrade", "build_receipt", "verify_receipt", "receipts"):
        assert name in toolscore.__all__
    assert toolscore.regrade is core_regrade.regrade
    assert toolscore.Regrade is core_regrade.Regrade
    assert toolscore.build_receipt is core_receipts.build_receipt
    assert toolscore.verify_receipt is core_verify.verify_receipt
    assert toolscore.receipts.verify_receipt is core_verify.verify_receipt
    for name in toolscore.receipts.__all__:
        assert getattr(toolscore.receipts, name) is not None


def test_record_once_regrade_forever(tmp_path: Path) -> None:
    folder = example_folder(tmp_path)
    evaluation = toolscore.evaluate_files(folder / "gold.json", folder / "trace.json")
    receipt = toolscore.build_receipt(evaluation, gold=folder / "gold.json",
                                      trace=folder / "trace.json",
                                      receipt_path=folder / "run.receipt.json")
    toolscore.receipts.write_receipt(receipt, folder / "run.receipt.json")
    assert toolscore.receipts.verify_receipt(folder / "run.receipt.json").ok
    result = toolscore.regrade(folder / "run.receipt.json", gold=folder / "contract.json")
    assert isinstance(result, toolscore.Regrade)
    assert result.previous is not None
    assert result.previous["record_sha256"] == evaluation.record_sha256
    assert result.result.score is not None and evaluation.score is not None
    assert result.score_delta == round(result.result.score - evaluation.score, 12)
