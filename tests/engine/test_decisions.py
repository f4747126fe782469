"""A finished game's decisions from one seat's point of view (engine/decisions.py, docs/training-data.md).

The decisions a replay gives must be exactly what each bot was asked while the game was played: the same
observation (as the bot protocol sends it), the same legal actions, and the action it answered.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from engine.agents import Agent, AgentFailure
from engine.bots import seat_agents
from engine.decisions import DecisionError, seat_decisions, seat_outcome
from engine.games import get_game
from engine.record import Record
from engine.runner import play_game
from engine.verify import ReplayError, verify

#: Each game and table the engine plays, with options that change what a seat sees or who sits where.
TABLES: list[tuple[str, int, dict[str, Any]]] = [
    ("1923", 2, {}),
    ("1923", 4, {"mode": "set"}),
    ("banter", 2, {}),
    ("punk", 3, {}),
    ("punk", 5, {}),
    ("punk", 2, {"dummy": True}),
]


class Recording:
    """Plays like the agent it wraps, and keeps what it was asked, as the bot protocol would have sent it."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.asked: list[tuple[str, list[str], str]] = []

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        action = self.inner.act(observation, legal_actions)
        # Encoded now: what the seat saw at this moment, whatever the game does to its state afterwards.
        self.asked.append((json.dumps(observation, separators=(",", ":")), list(legal_actions), action))
        return action


def recorded_game(game: str, people: int, options: dict[str, Any], seed: int) -> tuple[Record, list[Any]]:
    agents = seat_agents(game, ["random"] * people, options, seed)
    recording = [None if agent is None else Recording(agent) for agent in agents]
    record = play_game(game, agents=recording, seed=seed, options=options)
    return record, recording


def as_asked(record: Record, seat: int) -> list[tuple[str, list[str], str]]:
    return [
        (json.dumps(d.observation, separators=(",", ":")), d.legal_actions, d.action)
        for d in seat_decisions(record, seat)
    ]


@pytest.mark.parametrize(("game", "people", "options"), TABLES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_seat_gets_exactly_what_its_bot_was_asked_while_the_game_was_played(
    game: str, people: int, options: dict[str, Any], seed: int
) -> None:
    record, recording = recorded_game(game, people, options, seed)
    assert verify(record).ok
    total = 0
    for seat, agent in enumerate(recording):
        if agent is None:
            assert list(seat_decisions(record, seat)) == []  # the engine's own seat decides nothing
            continue
        assert agent.asked, "every seat of these games decides"
        assert as_asked(record, seat) == agent.asked
        decisions = list(seat_decisions(record, seat))
        assert [d.number for d in decisions] == list(range(len(decisions)))
        assert all(d.seat == seat and d.action in d.legal_actions for d in decisions)
        # Each is the seat's action in the record at its step, and a seat decides at most once a step.
        steps = [d.step for d in decisions]
        assert steps == sorted(set(steps))
        assert all(d.action in record.actions[d.step] for d in decisions)
        total += len(decisions)
    # Every action of the record is some seat's decision, but the engine's own seat's (the dummy plays every trick).
    engine_seats = get_game(game).auto_seats(record.options, record.players)
    assert total == sum(map(len, record.actions)) - len(engine_seats) * len(record.actions)


def test_a_decision_s_observation_is_a_copy_no_later_step_changes() -> None:
    record, recording = recorded_game("1923", 2, {}, 5)
    decisions = list(seat_decisions(record, 0))  # every step applied before any is looked at
    assert [json.dumps(d.observation, separators=(",", ":")) for d in decisions] == [a[0] for a in recording[0].asked]
    assert all(isinstance(d.observation["hand"], list) for d in decisions)  # JSON's form: lists, not tuples


def test_war_has_no_decisions_and_yields_none_for_either_seat() -> None:
    record = play_game("war", agents=[None, None], seed=4)
    assert verify(record).ok
    assert list(seat_decisions(record, 0)) == list(seat_decisions(record, 1)) == []
    outcome = seat_outcome(record, record.result["winner"])  # type: ignore[index]
    assert (outcome.rank, outcome.score_rate, outcome.players) == (1, Fraction(1), 2)


def test_a_forfeited_decision_is_not_one_and_the_forfeiting_seat_ranks_last() -> None:
    class FailsOnThird:
        def __init__(self, inner: Agent) -> None:
            self.inner, self.calls = inner, 0

        def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
            self.calls += 1
            if self.calls == 3:
                raise AgentFailure("crash", "exit code 1")
            return self.inner.act(observation, legal_actions)

    agents = seat_agents("punk", ["random"] * 3, {}, 9)
    record = play_game("punk", agents=[agents[0], FailsOnThird(agents[1]), agents[2]], seed=9)  # type: ignore[list-item]
    assert record.forfeit is not None and record.forfeit.seat == 1 and verify(record).ok
    assert len(list(seat_decisions(record, 1))) == 2  # the third was never made
    assert len(list(seat_decisions(record, 0))) == 2
    failed, other = seat_outcome(record, 1), seat_outcome(record, 0)
    assert (failed.forfeited, failed.rank, failed.score_rate) == (True, 3, Fraction(0))
    assert not other.forfeited and other.rank < 3


def test_the_outcome_rates_the_people_among_themselves_beside_the_dummy() -> None:
    record, _ = recorded_game("punk", 2, {"dummy": True}, 3)
    outcomes = [seat_outcome(record, seat) for seat in (0, 1)]
    assert {o.players for o in outcomes} == {2}
    assert sorted(o.score_rate for o in outcomes) in ([Fraction(0), Fraction(1)], [Fraction(1, 2)] * 2)
    assert [o.score for o in outcomes] == record.result["scores"][:2]  # type: ignore[index]
    with pytest.raises(DecisionError, match="played by the engine"):
        seat_outcome(record, 2)


def test_a_draw_between_two_is_half_each() -> None:
    record = play_game("war", agents=[None, None], seed=1, deal={"hands": [["2C"], ["2D"]]})
    assert record.result is not None and record.result["ranks"] == [1, 1]
    assert [seat_outcome(record, s).score_rate for s in (0, 1)] == [Fraction(1, 2)] * 2


def test_a_seat_outside_the_record_is_refused() -> None:
    record, _ = recorded_game("banter", 2, {}, 1)
    with pytest.raises(DecisionError, match="seat 2 is not one of the record's 2 seats"):
        list(seat_decisions(record, 2))
    with pytest.raises(DecisionError):
        seat_outcome(record, -1)


def test_a_record_that_breaks_raises_where_it_breaks() -> None:
    record, _ = recorded_game("punk", 3, {}, 2)
    steps = [list(step) for step in record.actions]
    steps[4][0] = steps[3][0]  # a card already played
    broken = Record.from_dict({**record.to_dict(), "actions": steps})
    given = []
    with pytest.raises(ReplayError) as raised:
        for decision in seat_decisions(broken, 0):
            given.append(decision.step)
    assert raised.value.step == 4
    assert given == [0, 1, 2, 3]  # not the refused step's: its action was never played
    lying = Record.from_dict({**record.to_dict(), "result": {**record.result, "scores": [0, 0, 0]}})  # type: ignore[dict-item]
    with pytest.raises(ReplayError, match="result: stated scores"):
        list(seat_decisions(lying, 0))
