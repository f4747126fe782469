"""``--vs-ladder``: a competition's top bot versions, read from a running server, as the gauntlet's opponents.

The server lists them at ``GET /api/tournaments/{id}/opponents/?top=N`` (tournaments/gauntlet_opponents.py): a
built-in version by its strategy, which plays here exactly as there; an HTTP version by its address, shown only to
its owner (so a token, ``--token`` or ``CARDCLUB_TOKEN``, shows the caller's own); an uploaded version by its kind
alone, since its code stays on the server. What cannot be played here is named, not silently dropped.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from engine.gauntlet import GauntletError

#: The most opponents the server lists at once (tournaments/gauntlet_opponents.py, MAX_TOP).
MAX_LADDER_TOP = 50

#: A competition's page (/competitions/12/) or its API address (/api/tournaments/12/), on any server.
_COMPETITION = re.compile(r"^(?P<base>https?://[^/?#]+(?:/[^?#]*?)?)/(?:api/tournaments|competitions)/(?P<id>\d+)/?$")


@dataclass(frozen=True)
class LadderOpponents:
    game: str
    #: The competition's complete ruleset.
    options: dict[str, object]
    #: Opponents the gauntlet can play: built-in strategy names and HTTP addresses, best first.
    specs: list[str] = field(default_factory=list)
    #: Why each of the others cannot be played here, one line each.
    skipped: list[str] = field(default_factory=list)


def opponents_address(competition: str, top: int) -> str:
    """The API address listing ``competition``'s first ``top`` bot versions; GauntletError for another address."""
    found = _COMPETITION.match(competition.strip())
    if found is None:
        raise GauntletError(
            f"--vs-ladder {competition!r}: give the competition's address, "
            "e.g. https://club.example.org/competitions/12/"
        )
    return f"{found['base']}/api/tournaments/{found['id']}/opponents/?top={top}"


def fetch_ladder(competition: str, *, top: int, token: str | None = None, timeout: float = 15.0) -> LadderOpponents:
    """Ask the server for the competition's top bot versions; GauntletError, in one line, for whatever fails."""
    address = opponents_address(competition, top)
    request = urllib.request.Request(address, headers={"Accept": "application/json"})
    if token:
        request.add_header("Authorization", f"Token {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
    except urllib.error.HTTPError as exc:
        raise GauntletError(f"--vs-ladder: {address} answered {exc.code}: {_detail(exc)}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise GauntletError(f"--vs-ladder: cannot reach {address}: {reason}") from None
    try:
        return ladder_from_json(json.loads(body))
    except (ValueError, KeyError, TypeError) as exc:
        raise GauntletError(f"--vs-ladder: {address} did not answer with a list of opponents ({exc})") from None


def _detail(error: urllib.error.HTTPError) -> str:
    try:
        detail = json.loads(error.read()).get("detail")
    except (ValueError, AttributeError, OSError):
        detail = None
    return str(detail) if detail else error.reason


def ladder_from_json(data: dict[str, Any]) -> LadderOpponents:
    """The server's answer as opponents to play and opponents skipped, with the reason."""
    ladder = LadderOpponents(game=str(data["game"]), options=dict(data["options"]))
    for opponent in data["opponents"]:
        who = f"{opponent['name']} (rank {opponent['rank']})"
        if opponent["kind"] == "builtin" and opponent["strategy"]:
            ladder.specs.append(str(opponent["strategy"]))
        elif opponent["kind"] == "http" and opponent["url"]:
            ladder.specs.append(str(opponent["url"]))
        elif opponent["kind"] == "http":
            ladder.skipped.append(f"{who}: an HTTP bot whose address only its owner sees")
        else:
            ladder.skipped.append(f"{who}: an uploaded bot, whose code stays on the server")
    return ladder
