"""Play one game between agents and produce its record."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.agents import Agent, AgentFailure
from engine.cards import normalise_action
from engine.errors import PlayerCountError, shown
from engine.games import Game, get_game
from engine.record import Record
from engine.result import Forfeit, Result, with_forfeit


def check_players(game: Game, players: int) -> None:
    if not game.MIN_PLAYERS <= players <= game.MAX_PLAYERS:
        span = (
            str(game.MIN_PLAYERS)
            if game.MIN_PLAYERS == game.MAX_PLAYERS
            else f"{game.MIN_PLAYERS} to {game.MAX_PLAYERS}"
        )
        raise PlayerCountError(f"{game.NAME} takes {span} seats, not {players}")


def play_game(
    game_name: str,
    *,
    agents: Sequence[Agent | None],
    seed: int,
    options: Mapping[str, object] | None = None,
    deal: object = None,
) -> Record:
    """Play a game to its end, or to the first forfeit, and return its record.

    ``agents`` has one entry per seat; seats the engine plays itself (Punk's
    dummy) take ``None``. Options and deal are validated here, so bad input
    raises an :class:`~engine.errors.EngineError` before any move is made.
    """
    game = get_game(game_name)
    players = len(agents)
    check_players(game, players)
    parsed_options = game.parse_options(options, players)
    parsed_deal = None if deal is None else game.parse_deal(deal, parsed_options, players)
    auto = game.auto_seats(parsed_options, players)
    for seat in auto:
        if agents[seat] is not None:
            raise PlayerCountError(f"seat {seat} is played by the engine: pass None for it")
    state = game.new_state(parsed_options, players, seed, parsed_deal)
    steps: list[list[str]] = []
    forfeit: Forfeit | None = None
    # Locals: this loop is every benchmark's hot path.
    to_act, observation, legal_actions, apply = game.to_act, game.observation, game.legal_actions, game.apply
    is_over = game.is_over
    while not is_over(state):
        seats = to_act(state)
        step: list[str] = []
        for seat in seats:
            agent = agents[seat]
            if agent is None:
                if seat not in auto:
                    raise PlayerCountError(f"seat {seat} has a decision to make but no agent")
                step.append(game.auto_action(state, seat))
                continue
            legal = legal_actions(state, seat)
            try:
                # Typed as object: an agent outside our control may answer anything.
                action: object = agent.act(observation(state, seat), legal)
            except AgentFailure as failure:
                forfeit = Forfeit(seat, failure.cause, len(steps), failure.detail)
                break
            if action not in legal:
                if not isinstance(action, str):
                    forfeit = Forfeit(seat, "bad_output", len(steps), f"{shown(action)} is not an action string")
                    break
                # RULES.md: card notation is case-insensitive and 10 means T; accept any spelling.
                action = normalise_action(action)
                if action not in legal:
                    # Quoted short: a bot's reply may be 64 KiB, and the detail is stored with the game's record.
                    forfeit = Forfeit(seat, "illegal_action", len(steps), f"{shown(action)} is not a legal action")
                    break
            step.append(str(action))
        if forfeit is not None:
            break
        apply(state, dict(zip(seats, step, strict=True)))
        steps.append(step)
    result = final_result(game, state, forfeit, auto)
    return Record(
        game=game.NAME,
        players=players,
        options=parsed_options,
        seed=seed,
        deal=parsed_deal,
        actions=steps,
        forfeit=forfeit,
        result=result.to_json(),
    )


def final_result(game: Game, state: Any, forfeit: Forfeit | None, engine_seats: frozenset[int]) -> Result:
    result = game.result(state)
    return result if forfeit is None else with_forfeit(result, forfeit, engine_seats)
