"""Bot URLs and the addresses an HTTP bot may be reached at (engine/netguard.py).

Nothing here touches the network: name resolution is replaced by a fake, and
public-looking addresses are only ever values to check.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from typing import Any

import pytest

from engine import netguard
from engine.errors import EngineError
from engine.netguard import (
    BadBotUrl,
    ForbiddenAddress,
    ResolveError,
    ResolveTimeout,
    check_address,
    parse_bot_url,
    resolve,
)

PUBLIC_V4 = "93.184.215.14"
PUBLIC_V6 = "2606:2800:21f:cb07:6820:80da:af6b:8b2c"


@pytest.mark.parametrize(
    ("url", "host", "port", "target"),
    [
        ("http://example.com", "example.com", 80, "/"),
        ("https://example.com", "example.com", 443, "/"),
        ("HTTPS://Bot.Example.COM:8443/Play?as=me", "bot.example.com", 8443, "/Play?as=me"),
        ("http://bücher.example/bot", "xn--bcher-kva.example", 80, "/bot"),
        ("http://93.184.215.14:8080/x?y=1&z", "93.184.215.14", 8080, "/x?y=1&z"),
        ("http://[2606:2800:21F::1]:9000/", "2606:2800:21f::1", 9000, "/"),
        ("  http://example.com/padded  ", "example.com", 80, "/padded"),
        ("http://example.com:65535/%7Ebot", "example.com", 65535, "/%7Ebot"),
    ],
)
def test_a_well_formed_url_is_split_into_what_a_connection_needs(url: str, host: str, port: int, target: str) -> None:
    parsed = parse_bot_url(url)
    assert (parsed.host, parsed.port, parsed.path_and_query) == (host, port, target)
    assert parsed.url == url.strip()


def test_the_host_header_carries_the_port_only_when_it_is_not_the_default() -> None:
    assert parse_bot_url("http://example.com:80/").host_header == "example.com"
    assert parse_bot_url("https://example.com:8443/").host_header == "example.com:8443"
    assert parse_bot_url("http://[2606:2800::1]:81/").host_header == "[2606:2800::1]:81"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://x", "only http and https are accepted"),
        ("file:///etc/passwd", "only http and https are accepted"),
        ("gopher://example.com:70/", "only http and https are accepted"),
        ("example.com", "must start with http:// or https://"),
        ("localhost:8080", "must start with http:// or https://"),
        ("http:example.com", "must start with http:// or https://"),
        ("", "is empty"),
        ("http://", "has no host"),
        ("http://:8080/", "has no host"),
        ("http://user:secret@example.com/", "must not contain a user name or password"),
        ("http://user@example.com/", "must not contain a user name or password"),
        ("http://example.com/#top", "must not have a fragment"),
        ("http://example.com:0/", "port must be a number from 1 to 65535"),
        ("http://example.com:65536/", "port must be a number from 1 to 65535"),
        ("http://example.com:http/", "port must be a number from 1 to 65535"),
        ("http://exa mple.com/", "space or a control character"),
        ("http://example.com/\r\nX-Injected: 1", "space or a control character"),
        ("http://example.com/\x00", "space or a control character"),
        ("http://a..b/", "not a valid domain name"),
        ("http://-bot.example/", "not a valid domain name"),
        ("http://bot_1.example/", "not a valid domain name"),
        ("http://" + "a" * 64 + ".example/", "not a valid domain name"),
        ("http://127.1/", "not a valid IPv4 address"),
        ("http://2130706433/", "not a valid IPv4 address"),
        ("http://0x7f.0.0.1/", "not a valid IPv4 address"),
        ("http://[::1/", "cannot be parsed"),
        ("http://[fe80::1%25eth0]/", "zone identifiers"),
        ("http://example.com/é", "must be ASCII"),
        ("http://example.com/" + "a" * 2000, "longer than 2000 characters"),
    ],
)
def test_a_bad_url_is_refused_with_a_one_line_reason(url: str, reason: str) -> None:
    with pytest.raises(BadBotUrl) as caught:
        parse_bot_url(url)
    message = str(caught.value)
    assert reason in message
    assert message.startswith("bot URL ")
    assert "\n" not in message and "\r" not in message
    assert len(message) < 300


def test_the_error_quotes_the_url_as_given() -> None:
    with pytest.raises(BadBotUrl, match=r"^bot URL 'ftp://x': only http and https are accepted$"):
        parse_bot_url("ftp://x")


def test_a_bad_url_error_is_an_engine_error_and_a_value_error() -> None:
    with pytest.raises(BadBotUrl) as caught:
        parse_bot_url("ftp://x")
    assert isinstance(caught.value, EngineError) and isinstance(caught.value, ValueError)


def test_a_url_that_is_not_text_is_refused_clearly() -> None:
    with pytest.raises(BadBotUrl, match="is text, not int"):
        parse_bot_url(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("address", "what"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("172.31.255.254", "private"),
        ("192.168.1.1", "private"),
        ("fd12:3456::1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("100.64.0.1", "carrier-grade NAT"),
        ("100.127.255.254", "carrier-grade NAT"),
        ("192.0.2.10", "documentation"),
        ("198.51.100.7", "documentation"),
        ("203.0.113.99", "documentation"),
        ("2001:db8::1", "documentation"),
        ("198.18.0.1", "benchmarking"),
        ("240.0.0.1", "reserved"),
        ("::ffff:127.0.0.1", "loopback (it embeds 127.0.0.1)"),
        ("::ffff:10.0.0.1", "private (it embeds 10.0.0.1)"),
        ("::ffff:169.254.169.254", "link-local"),
        ("64:ff9b::a00:1", "private (it embeds 10.0.0.1)"),
        ("2002:7f00:1::", "loopback (it embeds 127.0.0.1)"),
    ],
)
def test_internal_addresses_are_refused_unless_private_ones_are_allowed(address: str, what: str) -> None:
    with pytest.raises(ForbiddenAddress) as caught:
        check_address(address, allow_private=False)
    assert what in str(caught.value)
    assert str(caught.value).startswith("address ")
    assert check_address(address, allow_private=True) == ipaddress.ip_address(address)


def test_an_ipv4_mapped_address_is_named_in_its_dotted_form() -> None:
    with pytest.raises(ForbiddenAddress, match=r"^address ::ffff:127\.0\.0\.1 is loopback"):
        check_address("::ffff:127.0.0.1", allow_private=False)


@pytest.mark.parametrize(
    ("address", "what"),
    [
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("0.1.2.3", "this network"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("ff02::1", "multicast"),
        ("255.255.255.255", "broadcast"),
        ("::ffff:0.0.0.0", "unspecified"),
    ],
)
def test_unspecified_multicast_and_broadcast_are_refused_even_when_private_ones_are_allowed(
    address: str, what: str
) -> None:
    for allow_private in (False, True):
        with pytest.raises(ForbiddenAddress, match=what):
            check_address(address, allow_private=allow_private)


@pytest.mark.parametrize("address", [PUBLIC_V4, "8.8.8.8", "1.1.1.1", PUBLIC_V6, "64:ff9b::808:808"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert check_address(address, allow_private=False) == ipaddress.ip_address(address)


def test_check_address_refuses_text_that_is_no_address() -> None:
    with pytest.raises(BadBotUrl, match=r"'bot\.example' is not an IP address"):
        check_address("bot.example", allow_private=True)


class FakeResolver:
    """Stands in for socket.getaddrinfo: answers from a table, counting its calls."""

    def __init__(self, answers: dict[str, list[str]], delay: float = 0.0) -> None:
        self.answers = answers
        self.delay = delay
        self.calls: list[str] = []

    def __call__(self, host: str, port: int, *args: Any, **kwargs: Any) -> list[tuple[Any, ...]]:
        self.calls.append(host)
        time.sleep(self.delay)
        if host not in self.answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [
            (socket.AF_INET6 if ":" in ip else socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port))
            for ip in self.answers[host]
        ]


@pytest.fixture
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> FakeResolver:
    resolver = FakeResolver({})
    monkeypatch.setattr(netguard.socket, "getaddrinfo", resolver)
    return resolver


def test_resolve_returns_every_allowed_address_once_in_the_resolvers_order(fake_dns: FakeResolver) -> None:
    fake_dns.answers["bot.example"] = [PUBLIC_V6, PUBLIC_V4, PUBLIC_V4]
    found = resolve(parse_bot_url("http://bot.example/"), allow_private=False, timeout=1)
    assert found == [ipaddress.ip_address(PUBLIC_V6), ipaddress.ip_address(PUBLIC_V4)]


def test_a_name_that_mixes_public_and_internal_addresses_is_refused(fake_dns: FakeResolver) -> None:
    fake_dns.answers["mixed.example"] = [PUBLIC_V4, "10.1.2.3"]
    with pytest.raises(ForbiddenAddress) as caught:
        resolve("http://mixed.example/", allow_private=False, timeout=1)
    assert str(caught.value) == "bot URL 'http://mixed.example/': address 10.1.2.3 is private"
    assert caught.value.reason == "address 10.1.2.3 is private"


def test_a_name_for_loopback_resolves_when_private_addresses_are_allowed(fake_dns: FakeResolver) -> None:
    fake_dns.answers["localhost"] = ["::1", "127.0.0.1"]
    found = resolve("http://localhost:8000/", allow_private=True, timeout=1)
    assert [str(ip) for ip in found] == ["::1", "127.0.0.1"]


def test_an_ip_literal_is_checked_without_asking_the_resolver(fake_dns: FakeResolver) -> None:
    assert resolve("http://93.184.215.14/", allow_private=False, timeout=1) == [ipaddress.ip_address(PUBLIC_V4)]
    with pytest.raises(ForbiddenAddress, match=r"address 127\.0\.0\.1 is loopback"):
        resolve("http://127.0.0.1:9/", allow_private=False, timeout=1)
    with pytest.raises(ForbiddenAddress, match=r"^bot URL 'http://\[::1\]:9/': address ::1 is loopback$"):
        resolve("http://[::1]:9/", allow_private=False, timeout=1)
    assert fake_dns.calls == []


def test_an_unknown_name_is_a_clear_resolve_error(fake_dns: FakeResolver) -> None:
    with pytest.raises(ResolveError) as caught:
        resolve("http://nowhere.example/", allow_private=False, timeout=1)
    assert (
        str(caught.value)
        == "bot URL 'http://nowhere.example/': cannot resolve nowhere.example: Name or service not known"
    )
    assert not isinstance(caught.value, ResolveTimeout)


def test_a_name_with_no_address_is_a_resolve_error(fake_dns: FakeResolver) -> None:
    fake_dns.answers["empty.example"] = []
    with pytest.raises(ResolveError, match="has no IP address"):
        resolve("http://empty.example/", allow_private=False, timeout=1)


def test_a_slow_resolver_gives_up_at_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()

    def stuck(*args: Any, **kwargs: Any) -> list[tuple[Any, ...]]:
        release.wait(5)
        return []

    monkeypatch.setattr(netguard.socket, "getaddrinfo", stuck)
    began = time.monotonic()
    with pytest.raises(ResolveTimeout, match="took more than 100 ms"):
        resolve("http://slow.example/", allow_private=False, timeout=0.1)
    assert time.monotonic() - began < 0.5
    release.set()


def test_resolving_with_no_time_left_is_a_timeout_at_once(fake_dns: FakeResolver) -> None:
    with pytest.raises(ResolveTimeout):
        resolve("http://bot.example/", allow_private=False, timeout=0)
    assert fake_dns.calls == []
