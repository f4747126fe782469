"""A club's life built through the services, for the front page's and the person page's tests (client and
browser): members, live tables, finished matches with ratings, a challenge awaiting an answer, join requests
and a disputed transcript."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from league.joining import club_join
from league.models import Club, Membership, Player
from tests.factories import ClubFactory, CompetitionFactory, MembershipFactory, PlayerFactory, UserFactory, full_options
from tests.tournaments.helpers import game_played, match_result
from tournaments.live_selectors import my_matches
from tournaments.models import Challenge, Competition, Entrant, Match, Transcript
from tournaments.services.challenges import challenge_issue
from tournaments.services.competitions import competition_create, competition_start, entrant_join
from tournaments.services.results import match_record_result


def person(username: str, *clubs: Club, role: str = Membership.Role.MEMBER, display_name: str = "") -> Player:
    """A player (password "pw"), a member of each club given."""
    player = PlayerFactory(
        user=UserFactory(username=username, email=f"{username}@example.org"),
        display_name=display_name or username.capitalize(),
    )
    for club in clubs:
        MembershipFactory(club=club, player=player, role=role)
    return player


def club(name: str, joining: str = Club.Joining.OPEN) -> Club:
    return ClubFactory(name=name, slug=name.lower().replace(" ", "-"), joining=joining)


def live_match(
    where: Club, people: Sequence[Player], name: str = "Thursday banter", game: str = "banter", seed: int | None = None
) -> Match:
    """A started round robin of these people: its one match is live at a table. In Banter one person acts
    at a time; in 1923 both choose at once."""
    competition = CompetitionFactory(
        club=where, name=name, game=game, players_per_match=len(people), options=full_options(game, len(people))
    )
    if seed is not None:
        Competition.objects.filter(pk=competition.pk).update(seed=seed)
        competition.refresh_from_db()
    for player in people:
        entrant_join(competition=competition, player=player)
    competition_start(competition=competition)
    return Match.objects.get(competition=competition)


class _NotTheirTurn(Exception):
    pass


def live_match_waiting_for(mover: Player, other: Player, where: Club, name: str) -> Match:
    """A live Banter match whose table waits for ``mover``: the deal decides who leads, so deals are tried
    (each try rolled back) until one has ``mover`` to act."""
    for seed in range(1, 40):
        try:
            with transaction.atomic():
                match = live_match(where, [mover, other], name=name, seed=seed)
                if whose_turn(match, [mover, other]) != mover:
                    raise _NotTheirTurn
                return match
        except _NotTheirTurn:
            continue
    raise AssertionError(f"no deal of the first 40 has {mover} to act")


def whose_turn(match: Match, people: Sequence[Player]) -> Player:
    """The person the live table waits for, as the API's "my matches" says."""
    return next(p for p in people if any(m["id"] == match.pk and m["my_turn"] for m in my_matches(player=p)))


def played_war(where: Club, people: Sequence[Player], ranks: Sequence[Sequence[int]], name: str) -> Competition:
    """A War round robin of these people, its matches (in the order the pairing made them) recorded with these
    ranks by seat, so that standings, ratings and head to head are the services' own."""
    competition = CompetitionFactory(club=where, name=name, game="war")
    for player in people:
        entrant_join(competition=competition, player=player)
    competition_start(competition=competition)
    matches = list(Match.objects.filter(competition=competition).order_by("round__number", "id"))
    assert len(matches) == len(ranks), f"{len(matches)} matches to record"
    for match, by_seat in zip(matches, ranks, strict=True):
        result = {"ranks": list(by_seat), "scores": [0] * len(by_seat), "rounds": 1}
        played = match_result([game_played("war", 0, list(range(len(by_seat))), result)], len(by_seat))
        match_record_result(match=match, result=played)
    competition.refresh_from_db()
    return competition


def played_1923_table(where: Club, people: Sequence[Player], ranks: Sequence[int], name: str) -> Competition:
    """A 1923 competition of one table of these people, recorded with these ranks by seat."""
    competition = CompetitionFactory(
        club=where, name=name, game="1923", players_per_match=len(people), options=full_options("1923", len(people))
    )
    for player in people:
        entrant_join(competition=competition, player=player)
    competition_start(competition=competition)
    match = Match.objects.get(competition=competition)
    figures = [10 * (len(people) - rank) for rank in ranks]
    result = {"ranks": list(ranks), "scores": figures, "points": figures, "cards": figures}
    seating = list(range(len(people)))
    match_record_result(match=match, result=match_result([game_played("1923", 0, seating, result)], len(people)))
    competition.refresh_from_db()
    return competition


def seat_names(match: Match) -> list[str]:
    return [p.entrant.name for p in match.participants.select_related("entrant").order_by("seat")]


def challenge_awaiting(where: Club, organiser: Player, challenger: Player, defender: Player) -> Challenge:
    """A War challenge ladder with the defender above the challenger, who has challenged them."""
    ladder = competition_create(
        club=where, created_by=organiser, name="Club ladder", game="war", format="challenge_ladder"
    )
    top = entrant_join(competition=ladder, player=defender)
    below = entrant_join(competition=ladder, player=challenger)
    competition_start(competition=ladder, order=[top.pk, below.pk])
    return challenge_issue(
        competition=ladder, challenger=Entrant.objects.get(pk=below.pk), defender=top, issued_by=challenger
    )


def asks_to_join(where: Club, *people: Player) -> None:
    for player in people:
        club_join(club=where, player=player, note="I play on Thursdays")


def disputed(match: Match, by: Player) -> Transcript:
    """A transcript of the match a participant has disputed (the services' steps are the transcript tests')."""
    return Transcript.objects.create(
        match=match, number=1, submitted_by=by, record={"game": "war"}, status=Transcript.Status.DISPUTED
    )
