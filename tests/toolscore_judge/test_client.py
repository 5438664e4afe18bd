"""The judge's client as it travels to other processes: without its key, which each process
reads from its own environment."""

from __future__ import annotations

import pickle

import pytest

from tests.toolscore_judge.chat_server import ChatServer, Reply
from toolscore_judge.client import ChatClient, JudgeUnavailable, chat_client

KEY = "sk-test-judge-0123456789abcdef"
REQUEST = {"model": "m", "messages": [{"role": "user", "content": "yes or no?"}],
           "temperature": 0, "max_tokens": 200}


def test_a_pickled_client_holds_no_key_and_takes_the_receiving_processs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    sent = chat_client("m", base_url="http://127.0.0.1:9/v1", timeout=5, retries=1,
                       env={"TOOLSCORE_JUDGE_API_KEY": KEY})
    data = pickle.dumps(sent)
    assert KEY.encode() not in data
    monkeypatch.setenv("TOOLSCORE_JUDGE_API_KEY", "sk-the-workers-own-key-0123")
    received = pickle.loads(data)
    assert isinstance(received, ChatClient)
    assert (received.model, received.base_url, received.timeout, received.retries) == (
        "m", "http://127.0.0.1:9/v1", 5, 1)
    assert received.api_key == "sk-the-workers-own-key-0123"
    with ChatServer([Reply("yes: sure")]).running() as server:
        asking = pickle.loads(pickle.dumps(chat_client("m", base_url=server.url,
                                                       env={"TOOLSCORE_JUDGE_API_KEY": KEY})))
        assert asking.complete(REQUEST) == "yes: sure"
    assert server.seen[0].authorization == "Bearer sk-the-workers-own-key-0123"


def test_a_process_without_a_key_gets_no_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    data = pickle.dumps(chat_client("m", env={"TOOLSCORE_JUDGE_API_KEY": KEY}))
    monkeypatch.delenv("TOOLSCORE_JUDGE_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(JudgeUnavailable, match="no API key in TOOLSCORE_JUDGE_API_KEY"):
        pickle.loads(data).complete(REQUEST)
