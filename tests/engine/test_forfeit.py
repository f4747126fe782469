"""Forfeits are part of the record (DESIGN.md): the seat, the cause and the move; verify accepts them."""

from __future__ import annotations

from typing import Any

import pytest

from engine.agents import AgentFailure
from engine.bots import make_bot
from engine.record import Record
from engine.result import Forfeit
from engine.runner import play_game
from engine.verify import verify


class FailsAt:
    """Plays like ``random`` until its ``move``-th decision, then fails the way it is told to."""

    def __init__(self, game: str, seat: int, players: int, move: int, failure: Any) -> None:
        self.inner = make_bot("random", game=game, seat=seat, players=players, options={}, seed=1)
        self.move = move
        self.failure = failure
        self.calls = 0

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        self.calls += 1
        if self.calls > self.move:
            if isinstance(self.failure, Exception):
                raise self.failure
            return self.failure  # type: ignore[no-any-return]
        return self.inner.act(observation, legal_actions)


def banter_with(failing: FailsAt) -> Record:
    other = make_bot("random", game="banter", seat=1, players=2, options={}, seed=5)
    return play_game("banter", agents=[failing, other], seed=5)


@pytest.mark.parametrize(
    ("failure", "cause"),
    [
        (AgentFailure("timeout", "no answer in 500 ms"), "timeout"),
        (AgentFailure("crash", "exit code 1"), "crash"),
        ("PLAY 9Z", "illegal_action"),
        (42, "bad_output"),
    ],
)
def test_a_failing_seat_forfeits_ranks_last_and_the_record_verifies(failure: Any, cause: str) -> None:
    record = banter_with(FailsAt("banter", 0, 2, 6, failure))
    assert record.forfeit is not None
    assert (record.forfeit.seat, record.forfeit.cause) == (0, cause)
    assert record.forfeit.move == len(record.actions)
    assert record.result is not None and record.result["ranks"] == [2, 1] and record.result["winner"] == 1
    assert record.result["forfeit"]["cause"] == cause
    assert verify(Record.from_json(record.to_json())).ok


def test_verify_rejects_a_forfeit_at_the_wrong_move_or_by_a_seat_not_deciding() -> None:
    record = banter_with(FailsAt("banter", 0, 2, 6, AgentFailure("timeout")))
    assert record.forfeit is not None
    wrong_move = Record.from_dict({**record.to_dict(), "forfeit": {**record.forfeit.to_json(), "move": 2}})
    assert "move 2" in str(verify(wrong_move))
    wrong_seat = Record.from_dict({**record.to_dict(), "forfeit": {**record.forfeit.to_json(), "seat": 1}})
    assert not verify(wrong_seat).ok


def test_a_forfeit_in_a_multiplayer_game_keeps_the_others_in_their_running_order() -> None:
    agents = [make_bot("random", game="punk", seat=s, players=4, options={}, seed=3) for s in range(4)]
    agents[2] = FailsAt("punk", 2, 4, 3, AgentFailure("crash"))  # type: ignore[call-overload]
    record = play_game("punk", agents=agents, seed=3)
    assert record.result is not None and record.forfeit == Forfeit(2, "crash", 3, "")
    assert record.result["ranks"][2] == 4
    assert sorted(record.result["ranks"][:2] + record.result["ranks"][3:])[-1] <= 3
    assert verify(record).ok


def test_a_person_forfeiting_beside_the_dummy_still_ranks_above_it() -> None:
    agents: list[Any] = [
        FailsAt("punk", 0, 3, 2, AgentFailure("timeout")),
        make_bot("random", game="punk", seat=1, players=3, options={"dummy": True}, seed=4),
        None,
    ]
    record = play_game("punk", agents=agents, seed=4, options={"dummy": True})
    assert record.result is not None
    assert record.result["ranks"] == [2, 1, 3]
    assert verify(record).ok


class Spells:
    """Answers with the first legal action, spelt in lower case with 10 for T."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        choice = legal_actions[-1]
        return " ".join("10" + w[1].lower() if w[0] == "T" and len(w) == 2 else w.lower() for w in choice.split())


def test_any_spelling_of_a_legal_action_is_accepted_and_recorded_canonically() -> None:
    # Seven players play ranks up to T, and the highest card comes last in the legal list.
    agents: list[Any] = [Spells() for _ in range(7)]
    record = play_game("punk", agents=agents, seed=12)
    assert any(action.startswith("T") for step in record.actions for action in step)
    assert record.forfeit is None
    assert all(action == action.upper() and "10" not in action for step in record.actions for action in step)
    assert verify(record).ok
