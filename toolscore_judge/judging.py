"""What the checks ask the judge: a question, its judgment (from the file or the model), and
the check's outcome when the rules left it unknown."""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping
from typing import Any

from attrs import frozen

from toolscore import CheckOutcome, EvaluationContext, InputError, Judging, Status, redact
from toolscore_judge.client import chat_request
from toolscore_judge.store import Judgment, Verdict, read_judgments, record, request_sha256
from toolscore_judge.templates import Template

_VERDICT = re.compile(r"\W*(yes|no)\b\W*(.*)", re.IGNORECASE | re.DOTALL)
WHY_LIMIT = 200


@frozen
class Question:
    """A question a check puts to the judge, and what each answer makes the check."""

    template: Template
    fields: Mapping[str, Any]
    """The material under judgment by the template's field names (JSON values)."""
    on_yes: tuple[Status, str]
    """The status and the reason's words when the judge answers yes."""
    on_no: tuple[Status, str]


def read_verdict(text: str) -> tuple[Verdict | None, str]:
    """The verdict at the start of the judge's answer and its reason (None: no verdict)."""
    found = _VERDICT.match(text)
    if found is None:
        return None, "no yes or no in the answer: " + _short(text)
    verdict: Verdict = "yes" if found.group(1).lower() == "yes" else "no"
    return verdict, _short(found.group(2)).rstrip(".")


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= WHY_LIMIT else flat[:WHY_LIMIT - 1] + "…"


def judgment(judge: Judging, template: Template, fields: Mapping[str, Any]) -> Judgment | None:
    """The judgment of ``template`` on ``fields``: from the judge's judgments (a file, or a
    run record's, held in memory), else (with a client) asked of the model and added to
    them; None when neither has it. Credentials in ``fields`` are masked before anything is
    sent, stored or addressed."""
    masked = {name: redact(value) for name, value in fields.items()}
    request = chat_request(judge.model, template.messages(masked))
    address = request_sha256(request, template.sha256)
    store = judge.judgments
    known = store if isinstance(store, MutableMapping) else (
        {} if store is None else read_judgments(store))
    found = known.get(address)
    if judge.client is None or (found is not None and found.verdict is not None):
        return found
    new = _ask(judge, template, request, address)
    if isinstance(store, MutableMapping):
        store[address] = new
    elif store is not None:
        record(new, store)
    return new


def _ask(judge: Judging, template: Template, request: dict[str, Any], address: str) -> Judgment:
    from toolscore_judge.client import JudgeUnavailable

    try:
        text: str | None = judge.client.complete(request)
    except JudgeUnavailable as exc:
        text, verdict, why = None, None, str(exc)
    else:
        verdict, why = read_verdict(text or "")
    return Judgment(sha256=address, model=judge.model, template=template.id,
                    template_sha256=template.sha256, request=request, response=text,
                    verdict=verdict, why=why)


def consult(judge: Judging, template: Template,
            fields: Mapping[str, Any]) -> tuple[Judgment | None, str | None]:
    """The judgment of a question (None when there is none) and, when it gives no verdict,
    why not, in words for a reason: the file cannot be read, lacks it, or the judge had none."""
    try:
        found = judgment(judge, template, fields)
    except InputError as exc:  # the file's path is left out: records name no host paths
        return None, f"the judgments file cannot be read ({exc.place}: {exc.problem})"
    if found is None:
        where = ("the judgments file (`toolscore eval --judge` asks again)"
                 if judge.file is not None or judge.judgments is None
                 else "the run's stored judgments (`toolscore regrade --judge` asks again)")
        return None, f"the judge {judge.model}'s judgment is not in {where}"
    if found.verdict is None:
        return found, f"the judge {judge.model} gave no verdict: {found.why}"
    return found, None


def second_opinion(context: EvaluationContext, outcome: CheckOutcome,
                   question: Question) -> CheckOutcome:
    """``outcome`` when the rules decided it or no judge takes part; else the judge's
    decision, the rules' reason kept in the details; unknown when the judge has none."""
    judge = context.options.judge
    if judge is None or outcome.status != "unknown":
        return outcome
    found, missing = consult(judge, question.template, question.fields)
    details = {**outcome.details, "rules": outcome.reason,
               "judge": {"model": judge.model, "template": question.template.id,
                         "template_sha256": question.template.sha256,
                         "judgment_sha256": None if found is None else found.sha256,
                         "verdict": None if found is None else found.verdict}}
    if found is None or found.verdict is None:
        return CheckOutcome("unknown", f"{outcome.reason}; {missing}", details)
    status, words = question.on_yes if found.verdict == "yes" else question.on_no
    why = f" ({found.why})" if found.why else ""
    return CheckOutcome(status, f"decided by the judge {judge.model}: {words}{why}", details)
