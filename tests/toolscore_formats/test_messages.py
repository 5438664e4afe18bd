"""Walking a message list: bad messages named by place, replies and the final answer."""

from __future__ import annotations

import pytest

from toolscore import InputError
from toolscore_formats.messages import Conversation


def test_a_message_that_is_not_an_object_is_bad_input_at_its_place() -> None:
    talk = Conversation()
    with pytest.raises(InputError) as caught:
        list(talk.walk([{"role": "user"}, "hi"], place="$.messages"))
    assert caught.value.place == "$.messages[1]"
    assert caught.value.problem == "a message is an object"
    with pytest.raises(InputError) as caught:
        list(talk.walk([{"parts": []}, {"parts": None}], place="$", list_key="parts",
                       problem='a message is {"parts": [...]}'))
    assert (caught.value.place, caught.value.problem) == ("$[1]", 'a message is {"parts": [...]}')
    assert list(talk.walk([{"parts": []}], place="$", list_key="parts")) == [(0, {"parts": []})]


def test_replies_keep_every_text_and_the_final_answer_only_the_last_unwaiting_one() -> None:
    talk = Conversation()
    row = talk.table.add("search", '{"q": "x"}', call_id="c1")
    talk.said("Let me look.", final=None)  # it waits on its call
    assert talk.table.answer("c1", result="found", is_error=False)
    talk.said(None, final=None)
    talk.said("Found it.", final="Found it.")
    talk.notes.append("one note")
    trace = talk.trace(model="m")
    assert trace.replies == ("Let me look.", "Found it.")
    assert trace.final_answer == "Found it." and trace.model == "m"
    assert trace.notes == ("one note",)
    assert row.answered and trace.calls[0].args == {"q": "x"}
    assert trace.calls[0].result == "found"


def test_an_answer_that_waits_on_calls_leaves_no_final_answer() -> None:
    talk = Conversation()
    talk.said("Done.", final="Done.")
    talk.said("Checking again.", final=None)
    assert talk.trace().final_answer is None
