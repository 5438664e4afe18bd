"""The LLM judge: prompt templates, the judgments file, the client, and what the checks ask."""
