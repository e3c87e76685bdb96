"""Implementations that declare more than they answer: the run must stop before any test, naming what is missing."""

from __future__ import annotations

from advisor_reference.adapter import ReferenceAdapter


class ToolWithoutScenario(ReferenceAdapter):
    """Declares every area, tool and the runtime ones included, but has no scenario operation."""

    name = "partial-advisor"
    scenario = None  # the in-process transport answers unsupported_op for a missing operation


class MisspelledArea(ReferenceAdapter):
    """Declares an area the catalogue does not know (a typo of `tool`)."""

    name = "partial-advisor"

    def describe(self, params=None):
        answer = super().describe(params or {})
        return {**answer, "areas": [*answer["areas"], "tols"]}


adapter = ToolWithoutScenario()


class OperationsOnly(ReferenceAdapter):
    """The reference with only the operations named in $ADVISOR_TEST_OPERATIONS (comma-separated), declaring exactly
    the areas whose operations (AREA_OPERATIONS) those cover: its run shows that the table names every operation the
    areas' tests call."""

    name = "partial-advisor"

    def __init__(self):
        import os

        from advisor_conformance._contract.protocol import AREA_OPERATIONS

        super().__init__()
        self.kept = set(os.environ["ADVISOR_TEST_OPERATIONS"].split(","))
        self.areas = [area for area, ops in AREA_OPERATIONS.items() if set(ops) <= self.kept]
        for op in {"shape", "tool_definition", "scenario", "encode"} - self.kept:
            setattr(self, op, None)

    def describe(self, params=None):
        from advisor_conformance._contract.protocol import capability_probe

        answer = super().describe(params or {})
        capabilities = {
            name: bool(offered) and capability_probe(name, "http://127.0.0.1:9")[0] in self.kept
            for name, offered in answer.get("capabilities", {}).items()
        }
        return {**answer, "areas": self.areas, "capabilities": capabilities}


def _without(areas, *left_out):
    return [area for area in areas if area not in left_out]


class StreamingWithoutHttp(ReferenceAdapter):
    """Declares every area, streaming included, but declines the capability its tests need (http)."""

    name = "partial-advisor"

    def describe(self, params=None):
        return {**super().describe(params or {}), "capabilities": {"http": False}}


class HttpUnanswered(ReferenceAdapter):
    """Offers http (declared true) without streaming, but its scenario answers unsupported_op to runtime.http_provider."""

    name = "partial-advisor"

    def describe(self, params=None):
        answer = super().describe(params or {})
        return {**answer, "areas": _without(answer["areas"], "streaming"), "capabilities": {"http": True}}

    def scenario(self, params):
        if isinstance(params, dict) and (params.get("runtime") or {}).get("http_provider"):
            return {"error": {"code": "unsupported_op", "message": "no HTTP client"}}
        return super().scenario(params)


class HttpWithoutStreamingAlwaysStreams(ReferenceAdapter):
    """Offers http without declaring streaming, and streams every call (the broken AlwaysStreams): a handler test over
    HTTP, which relies on the streaming rules to send and read the call, is skipped naming streaming, never failed."""

    name = "partial-advisor"

    def __init__(self):
        from advisor_conformance._broken.wire import AlwaysStreams

        super().__init__()
        self.http_provider_class = AlwaysStreams.http_provider_class

    def describe(self, params=None):
        answer = super().describe(params or {})
        return {**answer, "areas": _without(answer["areas"], "streaming", "wire"), "capabilities": {"http": True}}


class HomeDirUnanswered(ReferenceAdapter):
    """Offers home_dir (declared true), but its scenario answers unsupported_op to runtime.home_dir."""

    name = "partial-advisor"

    def scenario(self, params):
        if isinstance(params, dict) and "home_dir" in (params.get("runtime") or {}):
            return {"error": {"code": "unsupported_op", "message": "runtime.home_dir is not supported"}}
        return super().scenario(params)


class BeforeHomeDir(ReferenceAdapter):
    """An implementation written before the capability home_dir: its describe says nothing of it, and its scenario
    refuses runtime.home_dir as an unknown field (invalid_input), as a strict reader of the older protocol does."""

    name = "partial-advisor"

    def describe(self, params=None):
        answer = super().describe(params or {})
        return {key: value for key, value in answer.items() if key != "capabilities"}

    def scenario(self, params):
        if isinstance(params, dict) and "home_dir" in (params.get("runtime") or {}):
            return {"error": {"code": "invalid_input", "message": "unknown field home_dir", "at": "runtime.home_dir"}}
        return super().scenario(params)


def _unsupported(what):
    return {"error": {"code": "unsupported_op", "message": f"no {what}"}}


class OneProvider(ReferenceAdapter):
    """Speaks Anthropic only, as many ports do: declares it (and every area), answers unsupported_op to an encode for
    another provider and to a call over HTTP to another (its tests of the others must be skipped, naming them)."""

    name = "partial-advisor"
    speaks = ("anthropic",)

    def describe(self, params=None):
        return {**super().describe(params or {}), "providers": list(self.speaks)}

    def encode(self, params):
        if isinstance(params, dict) and params.get("provider") not in self.speaks:
            return _unsupported(f"{params.get('provider')} encoding")
        return super().encode(params)

    def scenario(self, params):
        http = (params.get("runtime") or {}).get("http_provider") if isinstance(params, dict) else None
        if isinstance(http, dict) and http.get("kind") not in self.speaks:
            return _unsupported(f"{http.get('kind')} client")
        return super().scenario(params)


class CodexDeclaredNotEncoded(OneProvider):
    """Declares all three providers (by saying nothing) but speaks Anthropic and OpenAI only: codex is declared but
    absent."""

    speaks = ("anthropic", "openai")

    def describe(self, params=None):
        answer = super().describe(params)
        del answer["providers"]
        return answer


class BreakpointsWithoutAnthropic(OneProvider):
    """Declares every area, breakpoints included, but only the provider openai (breakpoints are Anthropic's)."""

    speaks = ("openai",)
