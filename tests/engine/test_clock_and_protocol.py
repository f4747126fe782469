"""The time control every external bot plays under, and the protocol's checks on what a bot answers."""

from __future__ import annotations

import pytest

from engine.agents import AgentFailure
from engine.clock import Clock, TimeControl
from engine.protocol import MAX_REPLY_BYTES, action_of, check_ready, decode_reply


def test_a_move_within_its_time_leaves_the_bank_untouched() -> None:
    clock = Clock(TimeControl(move_ms=100, bank_ms=1000))
    clock.spend(0.09)
    assert clock.remaining()["bank_ms"] == 1000
    assert clock.allowance() == pytest.approx(1.1, abs=0.01)


def test_overrunning_a_move_draws_on_the_bank_until_it_is_gone() -> None:
    clock = Clock(TimeControl(move_ms=100, bank_ms=1000))
    clock.spend(0.6)
    assert clock.remaining()["bank_ms"] == 500
    clock.spend(0.9)
    assert clock.remaining()["bank_ms"] == 0
    assert clock.allowance() == pytest.approx(0.1, abs=0.01)


def test_the_wall_clock_caps_every_allowance() -> None:
    clock = Clock(TimeControl(move_ms=5000, bank_ms=60_000, wall_ms=200, start_ms=5000))
    assert clock.allowance() <= 0.2
    assert clock.start_allowance() <= 0.2


@pytest.mark.parametrize("field", ["move_ms", "wall_ms", "start_ms"])
def test_a_time_control_refuses_a_zero_limit(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        TimeControl(**{field: 0})


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (b"{nope", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b"\xff\xfe", "not JSON"),
        (b'{"action": "' + b"x" * MAX_REPLY_BYTES + b'"}', "more than"),
    ],
)
def test_a_malformed_reply_is_the_bot_s_bad_output(raw: bytes, fragment: str) -> None:
    with pytest.raises(AgentFailure) as failure:
        decode_reply(raw)
    assert failure.value.cause == "bad_output"
    assert fragment in failure.value.detail


@pytest.mark.parametrize("reply", [{}, {"action": 3}, {"action": None}, {"move": "AS"}])
def test_a_reply_without_an_action_string_is_bad_output(reply: dict[str, object]) -> None:
    with pytest.raises(AgentFailure) as failure:
        action_of(reply)
    assert failure.value.cause == "bad_output"


def test_only_ready_true_answers_start() -> None:
    check_ready({"ready": True, "name": "mine"})
    for reply in ({}, {"ready": "yes"}, {"ready": 1}):
        with pytest.raises(AgentFailure) as failure:
            check_ready(reply)
        assert failure.value.cause == "init_failure"
