"""LangChain's serialized messages, as the langchain and langsmith formats both meet them."""

from __future__ import annotations

from typing import Any

# Class names (lc serialization) and dict "type" values (messages_to_dict, model_dump).
KINDS = {
    "AIMessage": "ai", "AIMessageChunk": "ai", "ai": "ai",
    "ToolMessage": "tool", "ToolMessageChunk": "tool", "tool": "tool",
    "HumanMessage": "human", "HumanMessageChunk": "human", "human": "human",
    "SystemMessage": "system", "system": "system",
    "FunctionMessage": "function", "function": "function",
    "ChatMessage": "chat", "chat": "chat", "RemoveMessage": "remove", "remove": "remove",
}


def message_fields(item: Any) -> tuple[str, dict[str, Any]] | None:
    """The kind ("ai", "tool", ...) and the fields of a serialized message, or None."""
    if not isinstance(item, dict) or "role" in item:
        return None
    if item.get("lc") == 1 and item.get("type") == "constructor":
        path = item.get("id")
        kwargs = item.get("kwargs")
        if isinstance(path, list) and path and isinstance(kwargs, dict):
            kind = KINDS.get(str(path[-1]))
            return (kind, kwargs) if kind else None
        return None
    kind = KINDS.get(str(item.get("type")))
    if kind is None:
        return None
    if isinstance(item.get("data"), dict):
        return kind, item["data"]
    return (kind, item) if "content" in item else None
