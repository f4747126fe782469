"""What the service publishes of a record: a forfeit's cause and move, not what the bot sent (issue 11, finding 6)."""

from __future__ import annotations

from engine.agents import Agent
from engine.bots import make_bot
from engine.games import get_game
from engine.record import result_without_bot_text, without_bot_text
from engine.result import Forfeit
from engine.runner import play_game
from engine.verify import verify


class Leaky(Agent):
    def act(self, observation: object, legal_actions: list[str]) -> str:
        return "PLAY ZZ-SECRET"


def test_a_forfeits_detail_is_dropped_and_the_record_still_verifies() -> None:
    game = get_game("banter")
    options = game.parse_options({}, 2)
    agents = [Leaky(), make_bot("random", game="banter", seat=1, players=2, options=options, seed=3)]
    record = play_game("banter", agents=agents, seed=3, options=options)
    assert record.forfeit is not None and "ZZ-SECRET" in record.forfeit.detail
    public = without_bot_text(record)
    assert public.forfeit == Forfeit(seat=0, cause="illegal_action", move=record.forfeit.move)
    assert "ZZ-SECRET" not in public.to_json()
    assert record.forfeit.detail  # the original is untouched, for the owner's log
    verify(public)


def test_a_result_without_a_forfeit_detail_is_returned_as_it_is() -> None:
    result = {"winner": 1, "forfeit": {"seat": 0, "cause": "timeout", "move": 4}}
    assert result_without_bot_text(result) is result
    assert result_without_bot_text(None) is None
    assert result_without_bot_text({**result, "forfeit": {**result["forfeit"], "detail": "x"}}) == result
