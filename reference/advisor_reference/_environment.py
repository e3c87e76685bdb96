"""The environment of a provider call: the proxy and the certificates its HTTP client takes from the process's
environment variables, each failure a :class:`~._provider.ProviderError` that names the variable.

The client reads the environment itself, not through httpx's ``trust_env``, so that it reads only what this call
needs and can say which setting failed:

* **The proxy** of the base URL, as urllib (and curl) read the variables: ``https_proxy`` for an https URL,
  ``http_proxy`` for an http one, else ``all_proxy``; the lower-case name before the upper-case one; none when
  ``no_proxy`` lists the host. A proxy set for the other scheme is not read, as the origin's Go client reads only
  the proxy of the URL it calls, so a broken ``HTTPS_PROXY`` does not fail a plain http call.
* **The certificates** of an https URL (or an https proxy): ``SSL_CERT_FILE``, else ``SSL_CERT_DIR``, else certifi's
  bundle (what httpx itself reads). A plain http call reads neither.

A setting that cannot be used (a proxy whose scheme is not http, https or socks5, one that is not a URL, a SOCKS
proxy without the socksio package, a certificate file that is missing, not a regular file or holds no certificate,
a certificate directory that is not one) fails the call that needs it: a provider error raised inside the call, so
the use it counted stays counted (clar. §6). The message names the variable, never its value, which may hold a
user name and password (``http://user:pass@proxy``).
"""

from __future__ import annotations

import os
import ssl
import stat
from dataclasses import dataclass
from urllib.parse import urlsplit
from urllib.request import getproxies_environment, proxy_bypass

import httpx

from ._provider import ProviderError
from ._redact import url_secrets

#: The variables of the certificates, in the order httpx reads them.
CERTIFICATE_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR")
#: The proxy schemes httpx can use (socks5 only with the socksio package).
PROXY_SCHEMES = ("http", "https", "socks5", "socks5h")


@dataclass(frozen=True)
class ClientEnvironment:
    """What a provider's client takes from the environment: the proxy (its URL and the variable that set it), the
    certificates (an SSL context, or True for httpx's own, and the variable that set it) and the proxy URL's
    credentials, which no message may show."""

    proxy: str | None = None
    proxy_variable: str | None = None
    verify: ssl.SSLContext | bool = True
    certificates_variable: str | None = None
    secrets: tuple[str, ...] = ()

    def client(self, timeout: float) -> httpx.Client:
        """An httpx client with this proxy and these certificates, reading nothing more from the environment."""
        try:
            return httpx.Client(timeout=httpx.Timeout(timeout), proxy=self.proxy, verify=self.verify, trust_env=False)
        except ImportError:  # httpx asks for socksio only when it makes a SOCKS proxy's transport
            raise ProviderError(
                f"the proxy set by {self.proxy_variable} is a SOCKS proxy, and the socksio package that httpx needs "
                "for one is not installed"
            ) from None
        except (ValueError, TypeError, httpx.InvalidURL):  # the URL itself is not shown: it may hold a password
            raise ProviderError(f"the proxy set by {self.proxy_variable} is not a proxy URL httpx can use") from None


def _variable(key: str) -> str:
    """The name of the variable urllib took the proxy ``key`` (``https``, ``all``, ...) from: lower case first."""
    lower = f"{key}_proxy"
    return lower if os.environ.get(lower) else lower.upper()


def proxy_of(base_url: str) -> tuple[str, str] | None:
    """The proxy a call to ``base_url`` goes through, as ``(variable, URL)``; None for none.

    A proxy without a scheme is an http proxy, as httpx and curl take it.
    """
    parts = urlsplit(base_url)
    proxies = getproxies_environment()
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    if proxy_bypass(host):  # no_proxy lists the host (on POSIX, urllib's reading of the environment)
        return None
    for key in (parts.scheme.lower(), "all"):
        value = proxies.get(key)
        if value:
            return _variable(key), value if "://" in value else f"http://{value}"
    return None


def _check_proxy(variable: str, url: str) -> None:
    """A proxy URL of a scheme httpx can use, with a host (its value is never shown)."""
    try:
        parts = urlsplit(url)
        _ = parts.port  # a port that is not a number raises here
    except ValueError:
        raise ProviderError(f"the proxy set by {variable} is not a URL") from None
    if parts.scheme.lower() not in PROXY_SCHEMES or not parts.hostname:
        raise ProviderError(
            f"the proxy set by {variable} must be an {', '.join(PROXY_SCHEMES[:-1])} or socks5h URL with a host"
        )


def _certificates() -> tuple[ssl.SSLContext | bool, str | None]:
    """The SSL context of the certificates the environment names (``SSL_CERT_FILE``, else ``SSL_CERT_DIR``), and the
    variable; ``True`` (httpx's certifi bundle) and None when neither is set."""
    name = next((variable for variable in CERTIFICATE_VARIABLES if os.environ.get(variable)), None)
    if name is None:
        return True, None
    value = os.environ[name]
    if name == "SSL_CERT_FILE":
        try:
            mode = os.stat(value).st_mode
        except OSError as exc:
            raise ProviderError(f"{name} names no certificate file ({os.strerror(exc.errno or 0)})") from None
        if not stat.S_ISREG(mode):  # a directory, or a FIFO that would block the load
            raise ProviderError(f"{name} names something that is not a regular file")
        cafile, capath = value, None
    else:
        # OpenSSL takes a list of directories (colon-separated); one of them must be a directory.
        if not any(os.path.isdir(part) for part in value.split(os.pathsep) if part):
            raise ProviderError(f"{name} names no directory")
        cafile, capath = None, value
    try:
        return ssl.create_default_context(cafile=cafile, capath=capath), name
    except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
        reason = exc.reason if isinstance(exc, ssl.SSLError) and exc.reason else type(exc).__name__
        raise ProviderError(f"the certificates of {name} cannot be loaded ({reason})") from None


def client_environment(base_url: str) -> ClientEnvironment:
    """What a client calling ``base_url`` takes from the environment; a setting it cannot use is a ProviderError
    naming the variable."""
    proxy = proxy_of(base_url)
    secrets: tuple[str, ...] = ()
    if proxy is not None:
        _check_proxy(*proxy)
        secrets = tuple(url_secrets(proxy[1]))
    tls = urlsplit(base_url).scheme.lower() == "https" or (proxy is not None and proxy[1].lower().startswith("https:"))
    verify, certificates = _certificates() if tls else (True, None)
    return ClientEnvironment(proxy[1] if proxy else None, proxy[0] if proxy else None, verify, certificates, secrets)
