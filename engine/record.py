"""The compact JSON game record (docs/records.md).

A record holds what a replay needs (game, seats, ruleset, seed or deal, every
action) plus the stated result that :func:`engine.verify.verify` checks.
Serialisation is canonical (sorted keys, no spaces), so the same game gives
the same bytes on every machine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, TypeGuard

from engine.errors import RecordError, shown
from engine.result import FORFEIT_CAUSES, Forfeit

FORMAT = "cardgames-record/1"


@dataclass
class Record:
    game: str
    players: int
    options: dict[str, Any]
    seed: int
    deal: dict[str, Any] | None
    #: One list per step: the actions of the seats ``to_act`` named, in that order.
    actions: list[list[str]] = field(default_factory=list)
    forfeit: Forfeit | None = None
    result: dict[str, Any] | None = None
    #: The match's salt, revealed once a live match has ended (engine/fairness.py): with the seed it
    #: gives the commitment published at the start. None for games that published no commitment.
    salt: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT,
            "game": self.game,
            "players": self.players,
            "options": self.options,
            "seed": self.seed,
        }
        # Only when there is one, so every record without a commitment keeps its bytes.
        if self.salt is not None:
            data["salt"] = self.salt
        data["deal"] = self.deal
        data["actions"] = self.actions
        data["forfeit"] = self.forfeit.to_json() if self.forfeit else None
        data["result"] = self.result
        return data

    def to_json(self, *, indent: int | None = None) -> str:
        separators = (",", ":") if indent is None else (",", ": ")
        return json.dumps(self.to_dict(), sort_keys=True, separators=separators, indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> Record:
        try:
            data = json.loads(text)
        except (ValueError, UnicodeDecodeError) as exc:
            raise RecordError(f"not valid JSON: {exc}") from None
        except RecursionError:
            # json gives up on arrays or objects nested about a thousand deep; a record nests a handful of levels.
            raise RecordError("not valid JSON: nested too deeply") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: object) -> Record:
        if not isinstance(data, dict):
            raise RecordError("a record is a JSON object")
        if data.get("format") != FORMAT:
            raise RecordError(f"format: expected {FORMAT!r}, got {shown(data.get('format'))}")
        missing = [k for k in ("game", "players", "options", "seed", "actions") if k not in data]
        if missing:
            raise RecordError(f"missing field(s): {', '.join(missing)}")
        game, players, options, seed = data["game"], data["players"], data["options"], data["seed"]
        deal, actions, result = data.get("deal"), data["actions"], data.get("result")
        if not isinstance(game, str):
            raise RecordError("game: expected text")
        if not _is_int(players):
            raise RecordError("players: expected a whole number")
        if not isinstance(options, dict):
            raise RecordError("options: expected an object")
        if not _is_int(seed):
            raise RecordError("seed: expected a whole number")
        if deal is not None and not isinstance(deal, dict):
            raise RecordError("deal: expected an object or null")
        if not isinstance(actions, list):
            raise RecordError("actions: expected a list of steps")
        for index, step in enumerate(actions):
            if not isinstance(step, list) or not all(isinstance(a, str) for a in step):
                raise RecordError(f"step {index}: expected a list of action strings")
        if result is not None and not isinstance(result, dict):
            raise RecordError("result: expected an object or null")
        salt = data.get("salt")
        if salt is not None and not isinstance(salt, str):
            raise RecordError("salt: expected text or null")
        return cls(
            game=game,
            players=players,
            options=options,
            seed=seed,
            deal=deal,
            actions=actions,
            forfeit=_parse_forfeit(data.get("forfeit")),
            result=result,
            salt=salt,
        )


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def without_bot_text(record: Record) -> Record:
    """The record as the service publishes it: a forfeit keeps its seat, cause and move, not its detail.

    The detail can repeat what a bot sent ("'PLAY QS' is not a legal action" names a card of its hand);
    it is for the bot's owner, in the owner-only log. The record still verifies: it never needs the detail.
    """
    if record.forfeit is None or not record.forfeit.detail:
        return record
    return replace(record, forfeit=replace(record.forfeit, detail=""), result=result_without_bot_text(record.result))


def result_without_bot_text(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """A result document (``Result.to_json``) without its forfeit's detail."""
    forfeit = None if result is None else result.get("forfeit")
    if result is None or not isinstance(forfeit, dict) or "detail" not in forfeit:
        return result
    return {**result, "forfeit": {key: value for key, value in forfeit.items() if key != "detail"}}


def _parse_forfeit(raw: object) -> Forfeit | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise RecordError("forfeit: expected an object or null")
    seat, cause, move, detail = raw.get("seat"), raw.get("cause"), raw.get("move"), raw.get("detail", "")
    if not _is_int(seat) or not _is_int(move):
        raise RecordError("forfeit: seat and move must be whole numbers")
    if not isinstance(cause, str) or cause not in FORFEIT_CAUSES:
        raise RecordError(f"forfeit: cause must be one of {', '.join(FORFEIT_CAUSES)}")
    if not isinstance(detail, str):
        raise RecordError("forfeit: detail must be text")
    return Forfeit(seat=seat, cause=cause, move=move, detail=detail)
