"""advisor_reference (the package): the curated public surface and its build_request shortcut."""

from __future__ import annotations

from dataclasses import replace

import pytest

import advisor_reference
from advisor_reference import REFERENCE_STRINGS, RequestBuilder, parse_transcript

from ._helpers import SNAPSHOT as RAW_SNAPSHOT

SNAPSHOT = parse_transcript(RAW_SNAPSHOT)


def test_public_names_exist():
    """Every name the package exports is defined."""
    assert all(hasattr(advisor_reference, name) for name in advisor_reference.__all__)


def test_build_request_defaults():
    """build_request with only a snapshot builds the reference's request with no question or files."""
    messages = advisor_reference.build_request(SNAPSHOT)
    assert messages == RequestBuilder(REFERENCE_STRINGS).build(SNAPSHOT, "", [])
    assert messages[0].content == REFERENCE_STRINGS.system_prompt
    strings = replace(REFERENCE_STRINGS, system_prompt="Be brief.")
    assert advisor_reference.build_request(SNAPSHOT, "q?", [], strings)[0].content == "Be brief."
    assert "q?" in advisor_reference.build_request(SNAPSHOT, "q?")[-1].content


#: The extension points: the public methods and state a variant of the reference overrides or uses (the broken,
#: mistaken and alternative implementations in tests/fakes do). Each is documented on its class.
EXTENSION_POINTS = {
    "advisor_reference.wire.HttpProvider": (
        "complete",
        "complete_plain",
        "complete_stream",
        "open_response",
        "read_error_body",
        "raise_for_status",
        "send",
    ),
    "advisor_reference.UseCounter": ("take", "used", "lock"),
    "advisor_reference.BudgetStore": ("counter", "new_counter"),
    "advisor_reference.CacheKeyStore": ("key", "setdefault"),
    "advisor_reference.PathPolicy": ("is_blocked", "resolved_work_dir"),
    "advisor_reference.RequestBuilder": ("build", "file_block", "cap_files", "render_question"),
}


def _reference_class(dotted):
    import importlib

    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_extension_points_are_public_and_documented():
    """Every extension point a variant overrides is a public name on a public class whose docstring it is in or
    whose own docstring says what it does."""
    import inspect

    policy = advisor_reference.PathPolicy("/")
    counter = advisor_reference.UseCounter(1)
    for dotted, names in EXTENSION_POINTS.items():
        cls = _reference_class(dotted)
        assert not cls.__name__.startswith("_"), dotted
        for name in names:
            assert not name.startswith("_")
            member = inspect.getattr_static(cls, name, None)
            if member is None:  # instance state, set in __init__
                instance = {"PathPolicy": policy, "UseCounter": counter}[cls.__name__]
                assert hasattr(instance, name), f"{dotted}.{name}"
                assert name in (cls.__doc__ or "") or name in inspect.getsource(cls), f"{dotted}.{name}"
            else:
                assert callable(member) and (member.__doc__ or name in (cls.__doc__ or "")), f"{dotted}.{name}"


def test_http_provider_steps_are_the_methods_complete_calls():
    """HttpProvider.complete reaches a plain call, the stream-required retry and a streamed call through the public
    step methods, so a variant's override of one of them takes effect."""
    import httpx

    from advisor_reference import ProviderRequest
    from advisor_reference.wire import HttpProvider, StreamRequired

    steps = []

    class Recording(HttpProvider):
        def complete_plain(self, request, deadline=None):
            steps.append("plain")
            return super().complete_plain(request, deadline)

        def raise_for_status(self, status, body, *, stream):
            steps.append(f"status {status}")
            if status == 400 and not stream:
                raise StreamRequired("stream required", status=status)
            super().raise_for_status(status, body, stream=stream)

        def complete_stream(self, request, deadline=None):
            steps.append("stream")
            raise advisor_reference.ProviderError("no stream here")

    client = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(400, text="no")))
    provider = Recording("openai", "https://provider.test", client=client)
    request = ProviderRequest(
        model="m",
        messages=(advisor_reference.RenderedMessage("user", "hi"),),
        max_tokens=10,
        reasoning=None,
        stream=False,
        prompt_cache_key="k" * 32,
        transport_session=None,
        parent_session=None,
    )
    with pytest.raises(advisor_reference.ProviderError, match="no stream here"):
        provider.complete(request)
    assert steps == ["plain", "status 400", "stream"]


def test_budget_store_makes_counters_with_new_counter():
    """BudgetStore.counter builds an unseen agent's counter with new_counter, once per agent id."""

    class Counting(advisor_reference.BudgetStore):
        made = 0

        def new_counter(self):
            Counting.made += 1
            return super().new_counter()

    store = Counting(2)
    assert store.counter("a") is store.counter("a") and store.counter("b").limit == 2
    assert Counting.made == 2


def test_cache_key_store_setdefault_keeps_the_first_key():
    """CacheKeyStore.setdefault stores a key only for a slot without one and answers the slot's key."""
    store = advisor_reference.CacheKeyStore({"advisor": "k1"})
    assert store.setdefault("advisor", "k2") == "k1"
    assert store.setdefault("other", "k3") == "k3" and store.key("other") == "k3"


def test_fakes_use_only_the_public_names_of_the_reference():
    """No implementation in tests/fakes or the suite's broken implementations (advisor_conformance._broken) imports
    a private module or name of the reference, nor overrides, reads or writes an underscore attribute the reference
    defines."""
    import ast
    from pathlib import Path

    import advisor_conformance

    root = Path(advisor_reference.__file__).parent
    private = set()
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = (
                node.name
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                else node.attr
                if isinstance(node, ast.Attribute)
                else node.id
                if isinstance(node, ast.Name)
                else ""
            )
            if name.startswith("_") and not name.startswith("__"):
                private.add(name)
    fakes = Path(__file__).resolve().parents[1] / "fakes"
    broken = Path(advisor_conformance.__file__).resolve().parent / "_broken"
    found = []
    for path in sorted([*fakes.rglob("*.py"), *broken.rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.name}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("advisor_reference"):
                if any(part.startswith("_") for part in (node.module or "").split(".")):
                    found.append(f"{where}: imports the private module {node.module}")
                found += [f"{where}: imports {alias.name}" for alias in node.names if alias.name.startswith("_")]
            elif isinstance(node, ast.Import):
                found += [
                    f"{where}: imports {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("advisor_reference._")
                ]
            elif isinstance(node, ast.ClassDef):
                found += [
                    f"{where}: overrides {item.name}"
                    for item in node.body
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in private
                ]
            elif isinstance(node, ast.Attribute) and node.attr in private:
                found.append(f"{where}: uses {node.attr}")
    assert len(list(fakes.rglob("*.py"))) > 5 and len(list(broken.rglob("*.py"))) > 5
    assert not found, "\n".join(found)
