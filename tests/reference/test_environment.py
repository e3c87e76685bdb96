"""advisor_reference._environment: the proxy and the certificates a provider call takes from the environment. A
setting it cannot use fails the call as a provider error that names the variable and never its value, consuming the
use the call counted; a setting the call does not need is not read. No test leaves 127.0.0.1."""

from __future__ import annotations

import json
import os
import socket
import ssl
import sys

import pytest

from advisor_conformance._contract.loopback import RawServer
from advisor_reference import ProviderError
from advisor_reference._environment import client_environment, proxy_of
from advisor_reference._http import HttpProvider
from advisor_reference.adapter import ReferenceAdapter

from ..support.provider_requests import provider_request
from ._helpers import SNAPSHOT

SECRET = "s3cr3t-pw"
#: Every variable the client may read, cleared before each test so the machine's own settings play no part.
VARIABLES = [
    *(f"{name}_proxy" for name in ("http", "https", "all", "no")),
    *(f"{name}_PROXY" for name in ("HTTP", "HTTPS", "ALL", "NO")),
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUEST_METHOD",
]
ANSWER = json.dumps({"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]}).encode()


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server():
    """A server on 127.0.0.1 that answers every request with a complete OpenAI answer."""
    reply = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(ANSWER), ANSWER)
    with RawServer(reply).running() as running:
        yield running


def _failure(base_url: str) -> str:
    """The message of the provider error one call to ``base_url`` fails with (the call's own deadline: 5 s)."""
    provider = HttpProvider("openai", base_url, api_key="k", timeout=5)
    with pytest.raises(ProviderError) as info:
        provider.complete(provider_request())
    provider.close()
    return str(info.value)


def _certificate_file(tmp_path, kind: str) -> str:
    path = tmp_path / "certs.pem"
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "not-certificates":
        path.write_text("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n")
    return str(path)  # "missing": nothing there


@pytest.mark.parametrize(
    "variable, value, url, named",
    [
        ("ALL_PROXY", f"socks5://user:{SECRET}@127.0.0.1:1080", "http://provider.test", "ALL_PROXY"),
        ("HTTPS_PROXY", f"ftp://user:{SECRET}@proxy.test:21", "https://provider.test", "HTTPS_PROXY"),
        ("HTTP_PROXY", f"http://user:{SECRET}@[::1", "http://provider.test", "HTTP_PROXY"),
        ("HTTP_PROXY", f"http://user:{SECRET}@proxy.test:port", "http://provider.test", "HTTP_PROXY"),
        ("HTTP_PROXY", "::::", "http://provider.test", "HTTP_PROXY"),
        ("https_proxy", f"file:///{SECRET}", "https://provider.test", "https_proxy"),
    ],
    ids=["socks-without-socksio", "ftp-scheme", "unclosed-bracket", "port-not-a-number", "colons", "lower-case"],
)
def test_a_proxy_setting_that_cannot_be_used_is_a_provider_error_naming_it(monkeypatch, variable, value, url, named):
    """A proxy the client cannot use fails the call as a provider error naming its variable, without its value."""
    monkeypatch.setitem(sys.modules, "socksio", None)  # as without the package, wherever the tests run
    monkeypatch.setenv(variable, value)
    message = _failure(url)
    assert named in message and SECRET not in message and "user" not in message, message


def test_the_lower_case_proxy_variable_is_read_first(monkeypatch):
    """With https_proxy and HTTPS_PROXY both set, the lower-case one is the proxy, as urllib and curl read them."""
    monkeypatch.setenv("HTTPS_PROXY", "http://upper.test:1")
    monkeypatch.setenv("https_proxy", "http://lower.test:2")
    assert proxy_of("https://provider.test/v1") == ("https_proxy", "http://lower.test:2")
    monkeypatch.setenv("ALL_PROXY", "lower.test:3")
    assert proxy_of("ftp://provider.test") == ("ALL_PROXY", "http://lower.test:3")  # no scheme: an http proxy


@pytest.mark.parametrize(
    "variables",
    [
        {"HTTPS_PROXY": f"ftp://user:{SECRET}@proxy.test:21"},
        {"HTTP_PROXY": "socks5://127.0.0.1:1", "NO_PROXY": "127.0.0.1"},
        {"HTTP_PROXY": "http://[::1", "no_proxy": "*"},
        {"SSL_CERT_FILE": "/nonexistent/certs.pem"},
        {"SSL_CERT_DIR": "/nonexistent/certs"},
    ],
    ids=["https-proxy-for-http", "no-proxy-lists-the-host", "no-proxy-star", "stale-cert-file", "stale-cert-dir"],
)
def test_a_setting_the_call_does_not_need_is_not_read(monkeypatch, server, variables):
    """A plain http call reads no certificate setting and only its own proxy (none when no_proxy lists the host): a
    broken setting it does not need leaves it answered."""
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    provider = HttpProvider("openai", server.base_url, timeout=5)
    assert provider.complete(provider_request()).text == "ok"
    provider.close()


@pytest.mark.parametrize(
    "variable, kind",
    [
        ("SSL_CERT_FILE", "missing"),
        ("SSL_CERT_FILE", "directory"),
        ("SSL_CERT_FILE", "fifo"),
        ("SSL_CERT_FILE", "not-certificates"),
        ("SSL_CERT_DIR", "missing"),
    ],
)
def test_a_certificate_setting_that_cannot_be_used_fails_an_https_call_naming_it(monkeypatch, tmp_path, variable, kind):
    """A certificate file that is missing, a directory, a FIFO (never opened: it would block) or holds no certificate,
    or a certificate directory that is not one, fails an https call as a provider error naming the variable."""
    path = _certificate_file(tmp_path, kind)
    monkeypatch.setenv(variable, path)
    message = _failure("https://provider.test")
    assert variable in message and path not in message, message


def test_an_https_call_trusts_the_certificates_of_the_environment(monkeypatch, tmp_path):
    """SSL_CERT_FILE, else SSL_CERT_DIR, names the certificates an https call trusts (as httpx reads them)."""
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))
    environment = client_environment("https://provider.test")
    assert environment.certificates_variable == "SSL_CERT_DIR" and isinstance(environment.verify, ssl.SSLContext)
    assert client_environment("http://provider.test").certificates_variable is None


def test_a_connection_refused_by_the_proxy_names_its_variable_not_its_password(monkeypatch):
    """A call whose proxy refuses the connection fails naming the proxy's variable; its password is not shown."""
    with socket.socket() as probe:  # a loopback port where nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://user:{SECRET}@127.0.0.1:{port}")
    message = _failure("http://provider.test")
    assert "HTTP_PROXY" in message and SECRET not in message, message


def test_a_name_that_does_not_resolve_is_a_provider_error(monkeypatch):
    """A host name the resolver does not know fails the call as a provider error naming the host."""

    def unknown(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    message = _failure("http://provider.test")
    assert "provider.test" in message, message


def test_a_certificate_that_does_not_verify_names_the_certificate_setting(monkeypatch, tmp_path, server):
    """A TLS handshake whose certificate does not verify fails naming the variable of the trusted certificates."""
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))

    def refuse(self, *args, **kwargs):
        raise ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed")

    monkeypatch.setattr(ssl.SSLContext, "wrap_socket", refuse)
    message = _failure(server.base_url.replace("http:", "https:"))
    assert "SSL_CERT_DIR" in message and "CERTIFICATE_VERIFY_FAILED" in message, message


def test_a_failed_environment_consumes_the_use_it_counted(monkeypatch):
    """Through the scenario operation, a broken proxy setting is a provider_error of the call (not an exception),
    after its use was counted: the next call finds the budget spent."""
    monkeypatch.setenv("HTTPS_PROXY", f"ftp://user:{SECRET}@proxy.test:21")
    call = {"agent": None, "conversation": 1, "turn": 1, "input": {}, "snapshot": SNAPSHOT}
    answer = ReferenceAdapter().scenario(
        {
            "runtime": {"max_uses_per_run": 1, "http_provider": {"kind": "openai", "base_url": "https://p.test"}},
            "steps": [{"call": call}, {"call": {**call, "turn": 2}}],
        }
    )
    first, second = answer["calls"]
    assert first["error"]["code"] == "provider_error" and "HTTPS_PROXY" in first["error"]["message"]
    assert SECRET not in json.dumps(answer) and "1/1" in second["result"]
