"""Anthropic request bodies of exact token counts, for the tests of the cache simulator."""

from __future__ import annotations

from advisor_conformance._tools.cachesim.anthropic import AnthropicCache, AnthropicPrompt

H1 = {"type": "ephemeral", "ttl": "1h"}
M5 = {"type": "ephemeral"}


def blocks(*tokens: int, tag: str = "b") -> list[str]:
    """Texts of exactly the given token counts (4 bytes a token), each distinct."""
    out = []
    for i, n in enumerate(tokens):
        head = f"{tag}{i}:"
        out.append((head + "x" * (4 * n))[: 4 * n])
    return out


def body(
    texts: list[str],
    marks: dict[int, dict] | None = None,
    *,
    system: list[str] | None = None,
    tools: list[dict] | None = None,
    model: str = "m",
) -> dict:
    """An Anthropic body: optional tools and system blocks, then one message (one text block) per text; ``marks``
    maps a block position (in prefix order: tools, system blocks, messages) to its cache_control."""
    marks = marks or {}
    out: dict = {"model": model, "max_tokens": 10, "messages": []}
    position = 0
    if tools is not None:
        out["tools"] = tools
        position = len(tools)
    if system is not None:
        out["system"] = []
        for s in system:
            block = {"type": "text", "text": s}
            if position in marks:
                block["cache_control"] = marks[position]
            out["system"].append(block)
            position += 1
    for i, t in enumerate(texts):
        block = {"type": "text", "text": t}
        if position in marks:
            block["cache_control"] = marks[position]
        out["messages"].append({"role": "user" if i % 2 == 0 else "assistant", "content": [block]})
        position += 1
    return out


def send(cache: AnthropicCache, b: dict, at: float = 0.0):
    return cache.request(AnthropicPrompt.from_body(b), at)
