"""Long answer and error bodies and their pieces, shared by the streaming tests."""

from __future__ import annotations

TOKEN = "quota-exceeded-for-model-x7"


#: A long answer's text, about 200 KB: it arrives in many reads whatever the network does.
LONG = "".join(f"Step {index}: check the float64 rounding in refill(). " for index in range(4000)).strip()


def _pieces(text, size=1000):
    return [text[start:start + size] for start in range(0, len(text), size)]
