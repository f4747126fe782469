"""The offline gauntlet: a candidate bot against chosen opponents, each pairing decided as the server decides one.

``python -m engine gauntlet mybot.py --game 1923 --vs counter,random`` (docs/gauntlet.md). Against each opponent
the candidate plays what a server "play to separation" competition between the two would play, entered
candidate first and seeded with the gauntlet's seed:

- round ``r`` is one match of ``games_per_match`` games, seeded :func:`engine.match.round_match_seed` (seed, r, 1),
  played by :func:`engine.match.play_match` with duplicate deals, so every deal is played from both seats;
- the candidate takes the first seat in odd rounds and the second in even ones (:func:`round_order`), as the
  server swaps seats every round;
- after each round the candidate's wins, draws and losses so far go into :func:`engine.sprt.sprt`; another round
  follows only while it says "continue", so the test stops where the server's would: a hypothesis accepted, or
  the games at the cap (``max_games``), undecided.

Agents are made as the server's worker makes them (league/agents.py): a built-in strategy afresh for every game
from that game's seed, an uploaded file or an HTTP bot once per match (one sandbox, one clock, one CPU allowance
for the whole match), closed when the match ends. A game with one winner is a win or a loss for the candidate;
any other game (a draw, a shared win, the engine's own seat winning) is a draw, as the server counts it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from engine.agents import Agent
from engine.bots import bot_names, make_bot
from engine.errors import EngineError
from engine.games import get_game, seats_for
from engine.harness import CACHE_DIR, BotFileError, is_external
from engine.intervals import wilson_interval
from engine.match import GamePlayed, play_match, round_match_seed, round_order
from engine.remote import RemoteBot
from engine.sandbox.bot import SandboxedBot
from engine.sandbox.code import BotCode, bot_code
from engine.sprt import SprtSettings, SprtState, SprtVerdict, sprt

Outcome = Literal["win", "draw", "loss"]


class GauntletError(EngineError, ValueError):
    """Input the gauntlet cannot play with (an unknown opponent, a game without decisions, ...)."""


@dataclass(frozen=True)
class Contender:
    """A bot as the gauntlet names it: a built-in strategy, an uploaded-style file (its code checked once), or a URL."""

    spec: str
    code: BotCode | None = None

    @property
    def builtin(self) -> bool:
        return self.code is None and not self.url

    @property
    def url(self) -> bool:
        return self.spec.startswith(("http://", "https://"))

    def remote(self, *, game: str, players: int, options: Mapping[str, Any]) -> RemoteBot:
        """A fresh external bot for one match, unstarted (it starts on its first decision, as on the server)."""
        if self.url:
            from engine.http_bot import HttpBot

            # Loopback and private addresses are welcome here: the author's own machine is the point.
            return HttpBot(url=self.spec, game=game, players=players, options=options, allow_private=True)
        if self.code is None:
            raise GauntletError(f"{self.spec} is a built-in strategy: it plays in process")
        return SandboxedBot(code=self.code, cache_dir=CACHE_DIR, game=game, players=players, options=options)


def contender(spec: str, game: str) -> Contender:
    """Check a bot named on the command line before any game: a built-in of ``game``, a readable bot file, a URL."""
    if not spec:
        raise GauntletError("an empty bot name")
    if spec.startswith(("http://", "https://")):
        return Contender(spec)
    path = Path(spec)
    if not is_external(spec):
        names = bot_names(game)
        if spec in names:
            return Contender(spec)
        if not path.is_file():
            raise GauntletError(f"unknown bot {spec!r} for {game}: choose one of {', '.join(names)}")
        # A file named without a path or a known ending: upload's own check says what is wrong with it.
    try:
        content = path.read_bytes()
    except OSError as exc:
        raise BotFileError(f"bot {spec}: {exc.strerror or exc}") from None
    return Contender(spec, bot_code(filename=path.name, content=content))


def candidate_outcome(winner: int | None, seating: Sequence[int | None], seat: int) -> Outcome:
    """The game for the candidate at ``seat``: a win or a loss if one participant won, a draw otherwise
    (a draw, a shared win, or the engine's own seat winning), as the server counts play to separation."""
    if winner is None or seating[winner] is None:
        return "draw"
    return "win" if winner == seat else "loss"


@dataclass(frozen=True)
class GameOutcome:
    round_number: int
    #: The game's number within its match, from 0.
    number: int
    #: The seed the game was dealt from.
    seed: int
    #: The candidate's seat.
    seat: int
    outcome: Outcome
    #: Why a seat forfeited, if one did: (seat, cause, detail).
    forfeit: tuple[int, str, str] | None


@dataclass
class Pairing:
    """The candidate against one opponent: every game, and the test as it stands."""

    opponent: str
    settings: SprtSettings
    games: list[GameOutcome] = field(default_factory=list)
    #: What the candidate's external bot wrote to stderr in a match where it failed, for its author.
    failure_logs: list[str] = field(default_factory=list)

    @property
    def state(self) -> SprtState:
        outcomes = [game.outcome for game in self.games]
        return SprtState(wins=outcomes.count("win"), draws=outcomes.count("draw"), losses=outcomes.count("loss"))

    @property
    def verdict(self) -> SprtVerdict:
        return sprt(self.state, self.settings)

    def candidate_forfeits(self) -> dict[str, int]:
        """The candidate's forfeits by cause."""
        causes: dict[str, int] = {}
        for game in self.games:
            if game.forfeit is not None and game.forfeit[0] == game.seat:
                causes[game.forfeit[1]] = causes.get(game.forfeit[1], 0) + 1
        return causes


@dataclass(frozen=True)
class Tally:
    """Games, wins, draws and losses with the score rate and its 95% interval (Wilson, as standings show it)."""

    state: SprtState

    @property
    def points(self) -> float:
        return self.state.wins + self.state.draws / 2

    @property
    def score_rate(self) -> float | None:
        return self.points / self.state.games if self.state.games else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.points, self.state.games)


def pooled(pairings: Sequence[Pairing]) -> SprtState:
    """Every opponent's games together."""
    states = [pairing.state for pairing in pairings]
    return SprtState(
        wins=sum(s.wins for s in states), draws=sum(s.draws for s in states), losses=sum(s.losses for s in states)
    )


@dataclass(frozen=True)
class GauntletPlan:
    game: str
    candidate: Contender
    opponents: tuple[Contender, ...]
    settings: SprtSettings
    seed: int
    games_per_match: int = 2
    options: Mapping[str, object] = field(default_factory=dict)


def check_plan(plan: GauntletPlan) -> tuple[int, dict[str, Any]]:
    """The seats at the table and the complete ruleset, or a GauntletError saying why the plan cannot be played."""
    game = get_game(plan.game)
    if not game.DECISIONS:
        raise GauntletError(f"{game.NAME} asks its players nothing: no bot can be better at it than another")
    if plan.games_per_match < 2 or plan.games_per_match % 2:
        raise GauntletError(
            f"--games-per-match {plan.games_per_match}: with duplicate deals a match is an even number of games "
            "(each deal played from both seats)"
        )
    if not plan.opponents:
        raise GauntletError("no opponents: name at least one with --vs")
    seats = seats_for(game, 2, plan.options)
    if not game.MIN_PLAYERS <= seats <= game.MAX_PLAYERS:
        raise GauntletError(
            f"{game.NAME} seats {game.MIN_PLAYERS} to {game.MAX_PLAYERS}: two players cannot play it with these options"
        )
    return seats, dict(game.parse_options(plan.options, seats))


#: Called after every round: the pairing so far and the games just played.
RoundDone = Callable[[Pairing, int], None]


def play_pairing(plan: GauntletPlan, opponent: Contender, *, after_round: RoundDone | None = None) -> Pairing:
    """The candidate against ``opponent``, round after round, until the test stops as the server's would."""
    seats, ruleset = check_plan(plan)
    pairing = Pairing(opponent=opponent.spec, settings=plan.settings)
    contenders = (plan.candidate, opponent)
    round_number = 0
    while pairing.verdict.decision == "continue":
        round_number += 1
        order = round_order(round_number)
        candidate = order.index(0)
        played = _play_round(plan, [contenders[who] for who in order], candidate, seats, ruleset, round_number)
        for game in played.games:
            seat = game.seating.index(candidate)
            forfeit = game.record.forfeit
            pairing.games.append(
                GameOutcome(
                    round_number=round_number,
                    number=game.number,
                    seed=game.record.seed,
                    seat=seat,
                    outcome=candidate_outcome((game.record.result or {}).get("winner"), game.seating, seat),
                    forfeit=None if forfeit is None else (forfeit.seat, forfeit.cause, forfeit.detail),
                )
            )
        if played.candidate_log:
            pairing.failure_logs.append(played.candidate_log)
        if after_round is not None:
            after_round(pairing, len(played.games))
    return pairing


@dataclass(frozen=True)
class _Round:
    games: Sequence[GamePlayed]
    #: The candidate's stderr in this round's match if its external bot failed there; empty otherwise.
    candidate_log: str


def _play_round(
    plan: GauntletPlan,
    seated: list[Contender],
    candidate: int,
    seats: int,
    ruleset: Mapping[str, Any],
    round_number: int,
) -> _Round:
    """One match between ``seated`` (participant 0 first), ``candidate`` the candidate's participant index."""
    remotes: dict[int, RemoteBot] = {}
    try:
        for who, bot in enumerate(seated):
            if not bot.builtin:
                remotes[who] = bot.remote(game=plan.game, players=seats, options=ruleset)

        def agents_for_game(number: int, seating: Sequence[int | None], seed: int) -> list[Agent | None]:
            return [None if who is None else agent(who, seat, number, seed) for seat, who in enumerate(seating)]

        def agent(who: int, seat: int, number: int, seed: int) -> Agent:
            if who in remotes:
                return remotes[who].seated(seat, number)
            # Made afresh for every game from its seed, as the server's worker makes it.
            return make_bot(seated[who].spec, game=plan.game, seat=seat, players=seats, options=ruleset, seed=seed)

        result = play_match(
            plan.game,
            participants=2,
            agents_for_game=agents_for_game,
            seats=seats,
            games=plan.games_per_match,
            seed=round_match_seed(plan.seed, round_number, 1),
            options=ruleset,
            duplicate=True,
        )
        mine = remotes.get(candidate)
        log = ""
        if mine is not None and mine.failure is not None:
            log = f"round {round_number}: {mine.failure}\n{mine.log}".rstrip()
        return _Round(games=result.games, candidate_log=log)
    finally:
        for remote in remotes.values():
            remote.close()
