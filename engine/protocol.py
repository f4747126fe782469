"""The bot protocol (docs/bot-protocol.md): the JSON messages every external bot exchanges with the referee.

Uploaded bots read them as JSON lines on stdin and answer on stdout; HTTP bots
get each one as a POST body and answer in the response body. Whatever the
transport, a reply that is not what this module expects is the bot's
``bad_output``, never an error of ours.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from engine.agents import AgentFailure

PROTOCOL_VERSION = 1
#: Replies longer than this are refused unread: a bot cannot make the referee buffer without bound.
MAX_REPLY_BYTES = 64 * 1024


def start_message(
    *, match: str, game: str, players: int, options: Mapping[str, Any], time: Mapping[str, int]
) -> dict[str, Any]:
    return {
        "type": "start",
        "protocol": PROTOCOL_VERSION,
        "match": match,
        "game": game,
        "players": players,
        "options": dict(options),
        "time": dict(time),
    }


def act_message(
    *,
    match: str,
    game: str,
    game_number: int,
    seat: int,
    decision: int,
    observation: Mapping[str, Any],
    legal_actions: list[str],
    time: Mapping[str, int],
) -> dict[str, Any]:
    return {
        "type": "act",
        "match": match,
        "game": game,
        "game_number": game_number,
        "seat": seat,
        "decision": decision,
        "observation": observation,
        "legal_actions": legal_actions,
        "time": dict(time),
    }


def end_message(*, match: str) -> dict[str, Any]:
    return {"type": "end", "match": match}


def encode(message: Mapping[str, Any]) -> bytes:
    # Compact and ASCII-only: one line on the wire, whatever the card symbols.
    return json.dumps(message, separators=(",", ":")).encode()


def decode_reply(raw: bytes) -> dict[str, Any]:
    """A reply as a JSON object, or the bot's ``bad_output``."""
    if len(raw) > MAX_REPLY_BYTES:
        raise AgentFailure("bad_output", f"reply of more than {MAX_REPLY_BYTES} bytes")
    try:
        reply = json.loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise AgentFailure("bad_output", f"reply is not JSON (or nested too deep): {_excerpt(raw)}") from None
    if not isinstance(reply, dict):
        raise AgentFailure("bad_output", f"reply is not a JSON object: {_excerpt(raw)}")
    return reply


def action_of(reply: Mapping[str, Any]) -> str:
    """The action a reply names; whether it is legal is the referee's call, not the transport's."""
    action = reply.get("action")
    if not isinstance(action, str):
        raise AgentFailure("bad_output", f'reply has no "action" string: {_excerpt(encode(reply))}')
    return action


def check_ready(reply: Mapping[str, Any]) -> None:
    if reply.get("ready") is not True:
        raise AgentFailure(
            "init_failure", f'the answer to "start" was not {{"ready": true}}: {_excerpt(encode(reply))}'
        )


def _excerpt(raw: bytes, limit: int = 120) -> str:
    text = raw[:limit].decode("utf-8", "replace")
    return repr(text + ("…" if len(raw) > limit else ""))
