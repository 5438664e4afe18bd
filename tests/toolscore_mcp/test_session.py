"""The session file and the injected.json log, written line by line and finished whole."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from toolscore_core.errors import InputError
from toolscore_mcp.planting import FaultPlan, InjectionPlan, Plan, Planter
from toolscore_mcp.relay import Relay
from toolscore_mcp.session import InjectedLog, SessionWriter

ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_header_messages_and_end(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    writer = SessionWriter(path, transport="stdio", server=["python", "server.py"])
    writer.open()
    raw = '{"jsonrpc":"2.0",  "id":1, "method":"ping", "params":{"note":"é ✓"}}'
    writer.message("client_to_server", json.loads(raw), raw=raw, stamp=writer.stamp())
    header, message = lines(path)
    assert header["kind"] == "toolscore.mcp_session"
    assert (header["version"], header["transport"]) == ("1", "stdio")
    assert header["server"] == ["python", "server.py"]
    assert ISO.fullmatch(header["started_at"])
    assert message["message"] == json.loads(raw)
    assert message["planted"] is None and "original" not in message
    assert ISO.fullmatch(message["timestamp"]) and message["monotonic"] >= 0
    # The message is spliced in as it came, byte for byte.
    assert f'"message":{raw},' in path.read_text(encoding="utf-8")
    writer.close(0)
    end = lines(path)[-1]
    assert end["kind"] == "end" and end["exit_code"] == 0 and ISO.fullmatch(end["ended_at"])
    # Closing twice, or writing after close, changes nothing.
    before = path.read_bytes()
    writer.close(1)
    writer.message("server_to_client", {}, stamp=writer.stamp())
    assert path.read_bytes() == before


def test_each_line_is_on_disk_before_close(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    writer = SessionWriter(path, transport="http", server="http://127.0.0.1:1/mcp")
    writer.open()
    for i in range(3):
        writer.message("client_to_server", {"id": i}, stamp=writer.stamp())
        assert len(lines(path)) == i + 2
    assert lines(path)[0]["server"] == "http://127.0.0.1:1/mcp"


def test_close_drops_a_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    writer = SessionWriter(path, transport="stdio", server=["s"])
    writer.open()
    writer.message("client_to_server", {"id": 1}, stamp=writer.stamp())
    with path.open("ab") as handle:
        handle.write(b'{"kind":"message","dire')
    writer.close(None)
    kinds = [row["kind"] for row in lines(path)]
    assert kinds == ["toolscore.mcp_session", "message", "end"]


def test_folders_are_made_and_unwritable_paths_are_input_errors(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "today" / "s.json"
    writer = SessionWriter(path, transport="stdio", server=["s"])
    writer.open()
    writer.close(0)
    assert [row["kind"] for row in lines(path)] == ["toolscore.mcp_session", "end"]
    with pytest.raises(InputError, match="the session file is a directory; give a file path"):
        SessionWriter(tmp_path, transport="stdio", server=["s"])
    (tmp_path / "plain.txt").write_text("x")
    under_a_file = SessionWriter(tmp_path / "plain.txt" / "s.json", transport="stdio",
                                 server=["s"])
    with pytest.raises(InputError, match="cannot write the session file"):
        under_a_file.open()


def test_an_earlier_session_stays_until_open(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_text("earlier session\n")
    opened: list[str] = []
    writer = SessionWriter(path, transport="stdio", server=["s"],
                           on_open=lambda: opened.append(path.read_text()))
    writer.close(None)  # never opened: nothing to finish, nothing written
    assert path.read_text() == "earlier session\n" and not writer.started and not opened
    writer.open()
    assert writer.started and [json.loads(line)["kind"] for line in opened[0].splitlines()] == [
        "toolscore.mcp_session"]


def test_a_session_is_published_only_when_the_server_first_speaks(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_text("earlier session\n")
    writer = SessionWriter(path, transport="stdio", server=["s"])
    relay = Relay(writer)
    writer.begin()
    relay.client_message(b'{"jsonrpc":"2.0","id":0,"method":"initialize"}')
    # The client spoke, the server has not: the earlier session is still there.
    assert path.read_text() == "earlier session\n" and not writer.started
    relay.server_message(b'{"jsonrpc":"2.0","id":0,"result":{}}')
    assert writer.started
    assert [row["kind"] for row in lines(path)] == ["toolscore.mcp_session", "message",
                                                    "message"]
    assert writer.close(0) is True
    assert sorted(p.name for p in tmp_path.iterdir()) == ["session.json"]


def test_a_server_that_never_speaks_leaves_no_session(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_text("earlier session\n")
    writer = SessionWriter(path, transport="stdio", server=["s"])
    writer.begin()
    Relay(writer).client_message(b'{"jsonrpc":"2.0","id":0,"method":"initialize"}')
    assert writer.close(1) is False and not writer.started
    assert path.read_text() == "earlier session\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["session.json"]  # no temp file


def test_injected_log_is_rewritten_as_things_are_planted(tmp_path: Path) -> None:
    path = tmp_path / "injected.json"
    log = InjectedLog(path)
    log.add("fault", {"tool": "deploy", "call_id": "3"})
    assert not path.exists()  # started with the session, not before
    log.start()
    assert json.loads(path.read_text()) == {"kind": "toolscore.injected", "version": "1",
                                            "faults": [{"tool": "deploy", "call_id": "3"}],
                                            "injections": []}
    log.add("injection", {"tool": "fetch_page", "call_id": "5"})
    document = json.loads(path.read_text())
    assert document["faults"] == [{"tool": "deploy", "call_id": "3"}]
    assert document["injections"] == [{"tool": "fetch_page", "call_id": "5"}]


def test_relay_records_planted_and_original(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    writer = SessionWriter(path, transport="stdio", server=["s"])
    writer.open()
    log = InjectedLog(tmp_path / "injected.json")
    log.start()
    plan = Plan(faults=(FaultPlan(tool="deploy", forward=False),),
                injections=(InjectionPlan(tool="fetch_page", text="Do {canary}"),))
    relay = Relay(writer, Planter(plan, on_planted=log.add))
    outcome = relay.client_message(b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
                                   b'"params":{"name":"deploy","arguments":{}}}')
    assert not outcome.forward and outcome.answer is not None
    assert json.loads(outcome.answer)["result"]["isError"] is True
    assert relay.client_message(b'{"jsonrpc":"2.0","id":2,"method":"tools/call",'
                                b'"params":{"name":"fetch_page","arguments":{}}}').forward
    original = b'{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"p"}]}}'
    replacement = relay.server_message(original)
    assert replacement is not None
    assert relay.server_message(b'{"jsonrpc":"2.0","method":"notifications/message"}') is None
    assert relay.server_message(b"server log line, not JSON") is None
    assert relay.server_message(b"progress 50%\r\n") is None
    assert relay.server_message(b"\xff\xfebinary\tnoise\n") is None
    rows = lines(path)[1:]
    assert [r["direction"] for r in rows] == ["client_to_server", "server_to_client",
                                              "client_to_server", "server_to_client",
                                              "server_to_client", "server_to_client",
                                              "server_to_client", "server_to_client"]
    request, answer = rows[0], rows[1]
    assert request["planted"]["fault"]["forwarded"] is False
    assert answer["planted"] == request["planted"] and "original" not in answer
    injected = rows[3]
    assert injected["original"] == json.loads(original)
    assert injected["message"] == json.loads(replacement)
    canary = injected["planted"]["injection"]["canary"]
    assert injected["message"]["result"]["content"][-1]["text"] == f"Do {canary}"
    assert rows[5]["kind"] == "unparsed" and rows[5]["raw"] == "server log line, not JSON"
    # Lines that are not JSON keep every byte: \r, and invalid UTF-8 in raw_base64.
    assert rows[6]["raw"] == "progress 50%\r" and "raw_base64" not in rows[6]
    assert rows[7]["raw"] == "\ufffd\ufffdbinary\tnoise"
    assert base64.b64decode(rows[7]["raw_base64"]) == b"\xff\xfebinary\tnoise"
    document = json.loads((tmp_path / "injected.json").read_text())
    assert [f["call_id"] for f in document["faults"]] == ["1"]
    assert [i["canary"] for i in document["injections"]] == [canary]
