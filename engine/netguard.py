"""Which URLs an HTTP bot may have, and which addresses the referee may connect to for it.

A bot's URL is chosen by its owner, and the referee runs inside our network:
without these checks a "bot" could make us POST to internal services. So only
http(s) URLs are accepted, and every address a host resolves to is checked
(loopback, private, link-local and the like are refused unless a setting
allows them). Resolution happens again at every connect, and the connection
goes to the address that was checked, so a name cannot pass the check and then
rebind to an internal address.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

from engine.errors import EngineError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_URL_LENGTH = 2000
_DEFAULT_PORTS = {"http": 80, "https": 443}
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
# A host whose last label is a number is an IPv4 address to browsers and to
# inet_aton ("127.1", "2130706433", "0x7f.1"): refuse the ambiguous spellings
# instead of guessing which address they mean.
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")


class BadBotUrl(EngineError, ValueError):
    """A bot URL that cannot be used: its syntax, its scheme, or where it leads."""

    def __init__(self, reason: str, url: str | None = None) -> None:
        super().__init__(f"bot URL {_shown(url)}: {reason}" if url is not None else reason)
        self.reason = reason
        self.url = url


class ForbiddenAddress(BadBotUrl):
    """The URL leads to an address bots may not reach (loopback, private, ...)."""

    def __init__(self, address: IPAddress, reason: str, url: str | None = None) -> None:
        super().__init__(reason, url)
        self.address = address


class ResolveError(BadBotUrl):
    """The host did not resolve: no such name, or no address."""


class ResolveTimeout(ResolveError):
    """The host did not resolve in the time allowed."""


@dataclass(frozen=True)
class BotUrl:
    scheme: str
    #: The host as it goes on the wire: IDNA-encoded ASCII, or an IP literal without brackets.
    host: str
    port: int
    #: The request target: the path (at least "/") and the query, percent-encoded ASCII.
    path_and_query: str
    #: The URL as the owner gave it (surrounding whitespace removed).
    url: str

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == _DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"

    @property
    def ip_literal(self) -> IPAddress | None:
        try:
            return ipaddress.ip_address(self.host)
        except ValueError:
            return None


def parse_bot_url(url: str) -> BotUrl:
    """Check a bot URL's syntax; where it leads is :func:`resolve`'s business."""
    if not isinstance(url, str):
        raise BadBotUrl(f"a bot URL is text, not {type(url).__name__}")
    text = url.strip()
    if not text:
        raise BadBotUrl("is empty", text)
    if len(text) > MAX_URL_LENGTH:
        raise BadBotUrl(f"is longer than {MAX_URL_LENGTH} characters", text)
    if any(ord(char) <= 0x20 or ord(char) == 0x7F for char in text):
        # Spaces and control characters could split the request line or a header.
        raise BadBotUrl("contains a space or a control character", text)
    try:
        parts = urlsplit(text)
    except ValueError as exc:
        raise BadBotUrl(f"cannot be parsed: {exc}", text) from None
    scheme = parts.scheme.lower()
    if not scheme or "//" not in text:
        raise BadBotUrl("must start with http:// or https://", text)
    if scheme not in _DEFAULT_PORTS:
        raise BadBotUrl("only http and https are accepted", text)
    if "#" in text:
        raise BadBotUrl("must not have a fragment (#...)", text)
    if "@" in parts.netloc:
        raise BadBotUrl("must not contain a user name or password", text)
    if not parts.netloc:
        raise BadBotUrl("has no host", text)
    host = _host(parts.netloc, parts.hostname, text)
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port is None:
        port = _DEFAULT_PORTS[scheme]
    if not 1 <= port <= 65535:
        raise BadBotUrl("the port must be a number from 1 to 65535", text)
    path = parts.path or "/"
    if not path.startswith("/"):
        raise BadBotUrl("the path must start with /", text)
    target = f"{path}?{parts.query}" if parts.query else path
    if not target.isascii():
        raise BadBotUrl("the path and query must be ASCII (percent-encode other characters)", text)
    return BotUrl(scheme=scheme, host=host, port=port, path_and_query=target, url=text)


def _host(netloc: str, hostname: str | None, url: str) -> str:
    if not hostname:
        raise BadBotUrl("has no host", url)
    if netloc.startswith("["):
        if "%" in hostname:
            raise BadBotUrl("IPv6 zone identifiers (%...) are not accepted", url)
        try:
            return ipaddress.IPv6Address(hostname).compressed
        except ValueError:
            raise BadBotUrl(f"[{hostname}] is not an IPv6 address", url) from None
    try:
        return str(ipaddress.IPv4Address(hostname))
    except ValueError:
        pass
    try:
        # The codec lowercases and checks label lengths; it also turns Unicode labels into xn--.
        ascii_host = hostname.encode("idna").decode("ascii")
    except UnicodeError:
        raise BadBotUrl(f"host {hostname!r} is not a valid domain name", url) from None
    labels = ascii_host.lower().removesuffix(".").split(".")
    if len(ascii_host) > 253 or not all(_LABEL.match(label) for label in labels):
        raise BadBotUrl(f"host {hostname!r} is not a valid domain name", url)
    if _NUMERIC_LABEL.match(labels[-1]):
        raise BadBotUrl(f"host {hostname!r} is not a valid IPv4 address", url)
    return ascii_host.lower()


# Refused even when private addresses are allowed: nothing legitimate listens there.
_ALWAYS_REFUSED: tuple[tuple[str, ipaddress.IPv4Network | ipaddress.IPv6Network], ...] = (
    ("unspecified", ipaddress.ip_network("0.0.0.0/32")),
    ("in 0.0.0.0/8 (this network)", ipaddress.ip_network("0.0.0.0/8")),
    ("broadcast", ipaddress.ip_network("255.255.255.255/32")),
    ("multicast", ipaddress.ip_network("224.0.0.0/4")),
    ("unspecified", ipaddress.ip_network("::/128")),
    ("multicast", ipaddress.ip_network("ff00::/8")),
)

_INTERNAL: tuple[tuple[str, ipaddress.IPv4Network | ipaddress.IPv6Network], ...] = (
    ("loopback", ipaddress.ip_network("127.0.0.0/8")),
    ("private", ipaddress.ip_network("10.0.0.0/8")),
    ("private", ipaddress.ip_network("172.16.0.0/12")),
    ("private", ipaddress.ip_network("192.168.0.0/16")),
    ("link-local", ipaddress.ip_network("169.254.0.0/16")),
    ("shared address space (carrier-grade NAT)", ipaddress.ip_network("100.64.0.0/10")),
    ("reserved for documentation", ipaddress.ip_network("192.0.2.0/24")),
    ("reserved for documentation", ipaddress.ip_network("198.51.100.0/24")),
    ("reserved for documentation", ipaddress.ip_network("203.0.113.0/24")),
    ("reserved for benchmarking", ipaddress.ip_network("198.18.0.0/15")),
    ("loopback", ipaddress.ip_network("::1/128")),
    ("link-local", ipaddress.ip_network("fe80::/10")),
    ("private", ipaddress.ip_network("fc00::/7")),
    ("private (site-local)", ipaddress.ip_network("fec0::/10")),
    ("private (local-use NAT64)", ipaddress.ip_network("64:ff9b:1::/48")),
    ("reserved for documentation", ipaddress.ip_network("2001:db8::/32")),
    ("reserved for documentation", ipaddress.ip_network("3fff::/20")),
)

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def check_address(ip: str | IPAddress, *, allow_private: bool) -> IPAddress:
    """The address, if a bot may be reached there; otherwise :class:`ForbiddenAddress` saying why."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        raise BadBotUrl(f"{ip!r} is not an IP address") from None
    embedded = _embedded_ipv4(address)
    verdict = _classify(embedded if embedded is not None else address)
    if verdict is None:
        return address
    what, always = verdict
    if allow_private and not always:
        return address
    via = f" (it embeds {embedded})" if embedded is not None else ""
    raise ForbiddenAddress(address, f"address {shown_address(address)} is {what}{via}")


def shown_address(address: IPAddress) -> str:
    """An address as people write it: IPv4-mapped IPv6 keeps its dotted quad."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return f"::ffff:{address.ipv4_mapped}"
    return str(address)


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form stands for: whoever routes it may reach that host."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _classify(address: IPAddress) -> tuple[str, bool] | None:
    """What kind of address this is and whether it is refused even where private ones are allowed; None if public."""
    for table, always in ((_ALWAYS_REFUSED, True), (_INTERNAL, False)):
        for name, network in table:
            if address.version == network.version and address in network:
                return name, always
    # Whatever the explicit tables miss (IPv4-compatible IPv6, 240/4, IETF
    # protocol blocks, ...) is not somewhere a bot is hosted.
    if address.is_reserved or not address.is_global:
        return "reserved", False
    return None


def resolve(bot_url: BotUrl | str, *, allow_private: bool, timeout: float) -> list[IPAddress]:
    """The addresses to connect to, in the resolver's order; every one of them must be allowed.

    A name that mixes public and internal addresses is refused outright: which
    one a connection gets is not ours to predict.
    """
    target = bot_url if isinstance(bot_url, BotUrl) else parse_bot_url(bot_url)
    literal = target.ip_literal
    if literal is not None:
        return [_checked(literal, target, allow_private)]
    found: list[IPAddress] = []
    for family, _, _, _, sockaddr in _getaddrinfo_within(target, timeout):
        if family not in (socket.AF_INET, socket.AF_INET6):
            continue
        try:
            address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        except ValueError:
            continue
        if address not in found:
            found.append(address)
    if not found:
        raise ResolveError(f"host {target.host} has no IP address", target.url)
    return [_checked(address, target, allow_private) for address in found]


def _checked(address: IPAddress, target: BotUrl, allow_private: bool) -> IPAddress:
    try:
        return check_address(address, allow_private=allow_private)
    except ForbiddenAddress as exc:
        raise ForbiddenAddress(exc.address, exc.reason, target.url) from None


_AddrInfo = tuple[int, int, int, str, tuple[object, ...]]


def _getaddrinfo_within(target: BotUrl, timeout: float) -> list[_AddrInfo]:
    # getaddrinfo has no timeout of its own; a slow resolver must not stall a
    # move past its deadline, so it runs in a daemon thread that may be left behind.
    if timeout <= 0:
        raise ResolveTimeout(f"no time left to resolve {target.host}", target.url)
    outcome: list[list[_AddrInfo] | BaseException] = []
    done = threading.Event()

    def work() -> None:
        try:
            infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
            outcome.append([(info[0], info[1], info[2], info[3], tuple(info[4])) for info in infos])
        except (OSError, UnicodeError) as exc:
            outcome.append(exc)
        finally:
            done.set()

    threading.Thread(target=work, name=f"resolve {target.host}", daemon=True).start()
    if not done.wait(timeout):
        raise ResolveTimeout(f"resolving {target.host} took more than {timeout * 1000:.0f} ms", target.url)
    result = outcome[0]
    if isinstance(result, BaseException):
        reason = result.strerror if isinstance(result, OSError) and result.strerror else str(result)
        raise ResolveError(f"cannot resolve {target.host}: {reason}", target.url)
    return result


def _shown(url: str, limit: int = 100) -> str:
    return repr(url if len(url) <= limit else url[:limit] + "…")
