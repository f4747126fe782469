"""Reading settings from the environment, with a clear error for a bad value."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

from engine.errors import EngineError
from engine.games import game_names

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    return default if name not in os.environ else _bool_from(os.environ, name)


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a whole number") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


_RATE = re.compile(r"^\d+/(s|sec|second|m|min|minute|h|hour|d|day)$")


def env_rates(name: str, defaults: dict[str, str | None]) -> dict[str, str | None]:
    """``scope=rate,...`` over the defaults: a rate is ``N/second|minute|hour|day`` (or s, m, h, d), or ``off``."""
    rates = dict(defaults)
    for item in env_list(name, []):
        scope, _, rate = item.partition("=")
        scope, rate = scope.strip(), rate.strip()
        if scope not in defaults:
            raise ImproperlyConfigured(f"{name}: unknown scope {scope!r}; the scopes are {', '.join(sorted(defaults))}")
        if rate == "off":
            rates[scope] = None
        elif _RATE.match(rate):
            rates[scope] = rate
        else:
            raise ImproperlyConfigured(f"{name}: {item!r} is not scope=N/period (second, minute, hour or day) or =off")
    return rates


def redis_cache(url: str, timeout: float) -> dict[str, object]:
    """Django's cache settings for the shared cache on Redis at ``url``: failing soft (config/cache.py), and
    waiting at most ``timeout`` seconds to connect or for an answer."""
    return {
        "BACKEND": "config.cache.FailSoftRedisCache",
        "LOCATION": url,
        "OPTIONS": {"socket_connect_timeout": timeout, "socket_timeout": timeout},
    }


def check_engine_games() -> tuple[str, ...]:
    """Every game, the engine's own and those ``ENGINE_GAMES`` registers, each imported and checked now:
    a bad entry stops the process at start with one line, not a match or a request later."""
    try:
        return game_names()
    except EngineError as exc:
        raise ImproperlyConfigured(str(exc)) from None


@dataclass(frozen=True)
class EmailConfig:
    """Where the service's mail (sign-up's address confirmation, password resets) goes: Django's EMAIL_* settings."""

    backend: str = "django.core.mail.backends.console.EmailBackend"
    file_path: str = ""
    host: str = "localhost"
    port: int = 25
    user: str = ""
    password: str = ""
    use_tls: bool = False
    use_ssl: bool = False


_SMTP = "django.core.mail.backends.smtp.EmailBackend"
#: EMAIL_URL's schemes: (STARTTLS, TLS from the start, default port).
_SMTP_SCHEMES = {"smtp": (False, False, 25), "smtp+tls": (True, False, 587), "smtps": (False, True, 465)}


def email_config(environ: Mapping[str, str]) -> EmailConfig:
    """The mail settings from ``EMAIL_URL``, or ``EMAIL_HOST`` and its companions, or ``EMAIL_FILE_PATH``.

    Nothing set: the console (mail is printed by the web process). ``EMAIL_FILE_PATH``: one file per
    message in that folder. ``EMAIL_URL=smtp://user:password@host:port`` (``smtp+tls://`` for STARTTLS,
    ``smtps://`` for TLS from the start), or ``EMAIL_HOST`` with ``EMAIL_PORT``, ``EMAIL_HOST_USER``,
    ``EMAIL_HOST_PASSWORD``, ``EMAIL_USE_TLS`` and ``EMAIL_USE_SSL``: SMTP. A bad value is refused.
    """
    url = environ.get("EMAIL_URL", "").strip()
    host = environ.get("EMAIL_HOST", "").strip()
    file_path = environ.get("EMAIL_FILE_PATH", "").strip()
    chosen = [
        name for name, value in (("EMAIL_URL", url), ("EMAIL_HOST", host), ("EMAIL_FILE_PATH", file_path)) if value
    ]
    if len(chosen) > 1:
        both = "both" if len(chosen) == 2 else "all"
        raise ImproperlyConfigured(
            f"{' and '.join(chosen)} are {both} set: set only one of them to say where mail goes"
        )
    if url:
        return _smtp_from_url(url)
    if host:
        use_tls = _bool_from(environ, "EMAIL_USE_TLS")
        use_ssl = _bool_from(environ, "EMAIL_USE_SSL")
        if use_tls and use_ssl:
            raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL are both true: STARTTLS or TLS, not both")
        port = _port(environ.get("EMAIL_PORT", "465" if use_ssl else "587" if use_tls else "25"), "EMAIL_PORT")
        return EmailConfig(
            backend=_SMTP,
            host=host,
            port=port,
            user=environ.get("EMAIL_HOST_USER", ""),
            password=environ.get("EMAIL_HOST_PASSWORD", ""),
            use_tls=use_tls,
            use_ssl=use_ssl,
        )
    if file_path:
        return EmailConfig(backend="django.core.mail.backends.filebased.EmailBackend", file_path=file_path)
    return EmailConfig()


def _smtp_from_url(url: str) -> EmailConfig:
    shown = re.sub(r"//([^:@/]*):[^@/]*@", r"//\1:***@", url)  # the password stays out of the message
    parts = urlsplit(url)
    if parts.scheme not in _SMTP_SCHEMES:
        raise ImproperlyConfigured(
            f"EMAIL_URL={shown!r}: use smtp://, smtp+tls:// (STARTTLS) or smtps:// (TLS), "
            "e.g. smtp+tls://user:password@mail.example.org:587"
        )
    use_tls, use_ssl, default_port = _SMTP_SCHEMES[parts.scheme]
    try:
        port = parts.port or default_port
    except ValueError:
        raise ImproperlyConfigured(f"EMAIL_URL={shown!r}: the port is not a number from 1 to 65535") from None
    if not parts.hostname:
        raise ImproperlyConfigured(f"EMAIL_URL={shown!r}: no host name")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ImproperlyConfigured(f"EMAIL_URL={shown!r}: give only user, password, host and port")
    return EmailConfig(
        backend=_SMTP,
        host=parts.hostname,
        port=port,
        user=unquote(parts.username or ""),
        password=unquote(parts.password or ""),
        use_tls=use_tls,
        use_ssl=use_ssl,
    )


def _bool_from(environ: Mapping[str, str], name: str) -> bool:
    value = environ.get(name, "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={environ[name]!r}: expected one of true/false, 1/0, yes/no, on/off")


def _port(raw: str, name: str) -> int:
    if not re.fullmatch(r"[0-9]{1,5}", raw.strip()) or not 0 < int(raw) < 65536:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a port number from 1 to 65535")
    return int(raw)
