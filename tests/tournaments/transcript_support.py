"""Matches played with real cards, and transcripts of them made with the engine and its built-in bots.

A table game is dealt by hand, so every record here carries a complete explicit deal:
a shuffled deck (War, 1923's sets), hands (Punk), or Banter's piles together with every
reshuffle the game made (read off a replay, as the person writing it down would have).
"""

from __future__ import annotations

import copy
import random
from typing import Any

from django.utils import timezone

from engine.bots import seat_agents
from engine.cards import standard_deck
from engine.games import get_game, seats_for
from engine.games.punk import deck_for
from engine.match import seating_for
from engine.record import Record
from engine.runner import play_game
from league.models import Club, Membership, Player
from tests.factories import CompetitionFactory, PlayerFactory, full_options
from tournaments.models import Competition, Entrant, Match, MatchParticipant, Round, Standing

#: Bots that play each game at the "table".
BOTS = {"war": "random", "1923": "random", "banter": "random", "punk": "random"}


def transcript_match(
    game: str = "war",
    *,
    people: int = 2,
    games: int = 1,
    options: dict[str, Any] | None = None,
    players: list[Player] | None = None,
    club: Club | None = None,
) -> tuple[Match, list[Player]]:
    """A running transcript competition's one live match between ``people`` club members, seat 0 first; in
    ``club`` if given (its members stay as they are), else in a club of its own."""
    competition = CompetitionFactory(
        **({"club": club} if club is not None else {}),
        game=game,
        players_per_match=people,
        options=full_options(game, people, options),
        games_per_match=games,
        people_play=Competition.PeoplePlay.TRANSCRIPT,
        status=Competition.Status.RUNNING,
        started_at=timezone.now(),
    )
    seated = players or [PlayerFactory() for _ in range(people)]
    round_ = Round.objects.create(competition=competition, number=1)
    match = Match.objects.create(
        competition=competition, round=round_, number=1, seed=77, status=Match.Status.LIVE, started_at=timezone.now()
    )
    for seat, player in enumerate(seated):
        Membership.objects.get_or_create(
            club=competition.club, player=player, defaults={"role": Membership.Role.MEMBER}
        )
        entrant = Entrant.objects.create(competition=competition, player=player, name=player.display_name)
        MatchParticipant.objects.create(match=match, entrant=entrant, seat=seat)
        Standing.objects.create(competition=competition, entrant=entrant)
    return match, seated


def shuffled(cards: list[str], seed: int) -> list[str]:
    deck = list(cards)
    random.Random(seed).shuffle(deck)
    return deck


def _deal(game: str, seats: int, options: dict[str, Any], seed: int, complete: bool) -> dict[str, Any]:
    if game == "war":
        return {"deck": shuffled(standard_deck(), seed)}
    if game == "1923":
        sets = 1 if options["mode"] == "set" or not complete else 40
        return {"sets": [shuffled(standard_deck() * options["decks"], seed + n) for n in range(sets)]}
    if game == "banter":
        piles = [shuffled(standard_deck(), seed + seat) for seat in range(2)]
        return {"piles": [{"draw": pile[:13], "deck": pile[13:]} for pile in piles]}
    deck = shuffled(deck_for(seats), seed)
    return {"hands": [deck[seat::seats] for seat in range(seats)]}


def table_record(match: Match, game_number: int = 0, *, seed: int = 5, complete: bool = True) -> dict[str, Any]:
    """A valid transcript of game ``game_number`` of ``match``, dealt by hand, as a JSON object.

    ``complete=False`` leaves 1923's later sets and Banter's reshuffles to the seed: a record the
    engine verifies, but not one of a game dealt by hand.
    """
    competition = match.competition
    game = get_game(competition.game)
    people = match.participants.count()
    seats = seats_for(game, people, competition.options)
    options = dict(competition.options)
    bots = [BOTS[competition.game]] * people
    agents = seat_agents(competition.game, bots, options, seed)
    deal = _deal(game.NAME, seats, options, seed, complete)
    record = play_game(competition.game, agents=agents, seed=seed, options=options, deal=deal)
    if game.NAME == "banter" and complete:
        record.deal = {**(record.deal or {}), "reshuffles": banter_reshuffles(record)}
    assert len(seating_for(game_number, people, seats)) == record.players
    return record.to_dict()


def banter_reshuffles(record: Record) -> dict[str, list[list[str]]]:
    """Every reshuffle a Banter game made, as new draw piles top first: read off a step-by-step replay."""
    game = get_game("banter")
    options = game.parse_options(record.options, 2)
    state = game.new_state(options, 2, record.seed, game.parse_deal(record.deal, options, 2))
    made: dict[str, list[list[str]]] = {"0": [], "1": []}
    for step in record.actions:
        before = copy.deepcopy((state.reshuffles, [len(pile) for pile in state.draw]))
        game.apply(state, dict(zip(game.to_act(state), step, strict=True)))
        for seat in (0, 1):
            if state.reshuffles[seat] > before[0][seat]:
                # The hand took the old pile's cards first, then the top of the new one.
                made[str(seat)].append(state.hands[seat][before[1][seat] :] + state.draw[seat])
    return made
