"""Seeds stay secret until the end (DESIGN.md): scheduling, the admin site and the API.

A match's seed fixes every card of its games. People's matches get fresh secret seeds
of their own; no admin page or API response shows a competition's seed before the
competition is over, nor a match's seed before the match is; a done live match's
games reveal their seed and salt beside the record, for anyone to check the deal.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from engine.fairness import commitment, commitment_holds, new_salt
from engine.match import GamePlayed, game_seed
from engine.rng import derive_seed
from engine.runner import play_game
from league.models import Club, Membership, Player
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    ClubFactory,
    CompetitionFactory,
    EntrantFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
)
from tests.league.test_api_support import client_for
from tests.tournaments.helpers import match_result, started
from tournaments.admin.seeds import HIDDEN
from tournaments.models import Competition, Entrant, Game, Match
from tournaments.services.results import match_record_result

pytestmark = pytest.mark.django_db

#: A chosen competition seed whose digits appear nowhere else on a page.
CHOSEN_SEED = 3_141_592_653_589_793_238


def organiser_of(club: Club) -> Player:
    player = PlayerFactory(user=UserFactory(username="otto", is_staff=True), display_name="Otto")
    MembershipFactory(club=club, player=player, role=Membership.Role.ORGANISER)
    return player


def person(club: Club, name: str) -> Entrant:
    return MembershipFactory(club=club, player=PlayerFactory(display_name=name)).player


def mixed_competition(seed: int = CHOSEN_SEED, club: Club | None = None) -> Competition:
    """Two people and two bots in a started War league: five matches seat a person, one only bots."""
    competition = CompetitionFactory(club=club or ClubFactory(), game="war", seed=seed)
    for name in ("Ann", "Bea"):
        player = MembershipFactory(club=competition.club, player=PlayerFactory(display_name=name)).player
        EntrantFactory(competition=competition, bot_version=None, player=player, name=name)
    for _ in range(2):
        EntrantFactory(competition=competition, bot_version=BotVersionFactory(bot=BotFactory(game="war")))
    return started(competition)


def seats_people(match: Match) -> bool:
    return match.participants.filter(entrant__player__isnull=False).exists()


def finish_live_match(match: Match) -> tuple[Game, str]:
    """Record a people's War match as the live service will: the game's record reveals the match's salt."""
    salt = new_salt()
    seed = game_seed(match.seed, 0)
    record = play_game("war", agents=[None, None], seed=seed)
    record.salt = salt
    Match.objects.filter(pk=match.pk).update(salt=salt, commitments=[commitment(seed, salt)])
    match.refresh_from_db()
    match_record_result(match=match, result=match_result([GamePlayed(number=0, seating=(0, 1), record=record)], 2))
    return Game.objects.get(match=match), salt


def seeds_shown(text: str, *seeds: int) -> list[int]:
    """The seeds whose digits appear in the text as a whole number."""
    return [seed for seed in seeds if re.search(rf"(?<!\d){seed}(?!\d)", text)]


# --- Scheduling ------------------------------------------------------------------------------------------


def test_a_match_that_seats_a_person_gets_a_fresh_seed_and_a_bot_only_match_derives_its_own() -> None:
    first, second = mixed_competition(), mixed_competition()
    for competition in (first, second):
        assert competition.matches.count() == 6
        for match in competition.matches.select_related("round"):
            derived = derive_seed(CHOSEN_SEED, f"round/{match.round.number}/match/{match.number}")
            assert (match.seed == derived) is not seats_people(match)
            assert 0 <= match.seed < 2**63
    # The same chosen seed replays the bots' match and says nothing of the people's.
    order = ("round__number", "number")
    for one, other in zip(first.matches.order_by(*order), second.matches.order_by(*order), strict=True):
        assert (one.seed == other.seed) is not seats_people(one)


# --- The admin site ----------------------------------------------------------------------------------------


def admin_pages(competition: Competition) -> list[str]:
    pages = [
        reverse("admin:tournaments_competition_change", args=[competition.pk]),
        reverse("admin:tournaments_competition_changelist"),
        reverse("admin:tournaments_match_changelist"),
        reverse("admin:tournaments_game_changelist"),
        reverse("admin:tournaments_round_changelist"),
    ]
    pages += [reverse("admin:tournaments_match_change", args=[m.pk]) for m in competition.matches.all()]
    pages += [reverse("admin:tournaments_round_change", args=[r.pk]) for r in competition.rounds.all()]
    pages += [reverse("admin:tournaments_game_change", args=[g.pk]) for g in Game.objects.all()]
    return pages


def admin_text(client: Client, competition: Competition) -> str:
    texts = []
    for url in admin_pages(competition):
        response = client.get(url)
        assert response.status_code == 200, url
        texts.append(response.content.decode())
    return "\n".join(texts)


@pytest.fixture(params=["organiser", "superuser"])
def admin_client(request: pytest.FixtureRequest, client: Client) -> tuple[Client, Club]:
    club = ClubFactory()
    if request.param == "organiser":
        client.force_login(organiser_of(club).user)
    else:
        client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client, club


def test_the_admin_shows_no_seed_of_a_running_competition_or_an_unfinished_match(
    admin_client: tuple[Client, Club],
) -> None:
    client, club = admin_client
    competition = mixed_competition(club=club)
    matches = list(competition.matches.all())
    text = admin_text(client, competition)
    assert seeds_shown(text, CHOSEN_SEED, *(m.seed for m in matches)) == []
    page = client.get(reverse("admin:tournaments_competition_change", args=[competition.pk])).content.decode()
    assert HIDDEN in page
    page = client.get(reverse("admin:tournaments_match_change", args=[matches[0].pk])).content.decode()
    assert HIDDEN in page

    # A match that is done shows its seed (and its game's); the others and the competition's stay hidden.
    people = next(m for m in matches if m.participants.filter(entrant__player__isnull=False).count() == 2)
    game, salt = finish_live_match(people)
    text = admin_text(client, competition)
    unfinished = [m.seed for m in matches if m.pk != people.pk]
    assert seeds_shown(text, CHOSEN_SEED, *unfinished) == []
    match_page = client.get(reverse("admin:tournaments_match_change", args=[people.pk])).content.decode()
    assert seeds_shown(match_page, people.seed) == [people.seed]
    game_page = client.get(reverse("admin:tournaments_game_change", args=[game.pk])).content.decode()
    assert seeds_shown(game_page, game.seed) == [game.seed] and salt in game_page

    # Once the competition is over, its seed is shown too.
    Competition.objects.filter(pk=competition.pk).update(status=Competition.Status.CANCELLED)
    Match.objects.filter(competition=competition).exclude(pk=people.pk).update(status=Match.Status.CANCELLED)
    text = admin_text(client, competition)
    assert seeds_shown(text, CHOSEN_SEED, *(m.seed for m in matches)) == [CHOSEN_SEED, *(m.seed for m in matches)]


def test_a_game_whose_match_is_not_over_hides_its_seed_deal_and_record_in_the_admin(
    admin_client: tuple[Client, Club],
) -> None:
    client, club = admin_client
    competition = mixed_competition(club=club)
    match = next(m for m in competition.matches.all() if seats_people(m))
    game, salt = finish_live_match(match)
    # Should a game row ever exist while its match is still being played, nothing of its deal shows.
    Match.objects.filter(pk=match.pk).update(status=Match.Status.LIVE)
    for url in (
        reverse("admin:tournaments_game_change", args=[game.pk]),
        reverse("admin:tournaments_game_changelist"),
        reverse("admin:tournaments_match_change", args=[match.pk]),
    ):
        page = client.get(url).content.decode()
        assert seeds_shown(page, game.seed, match.seed) == [] and salt not in page, url
    assert HIDDEN in client.get(reverse("admin:tournaments_game_change", args=[game.pk])).content.decode()


def test_the_add_form_still_takes_a_seed_and_says_what_it_fixes(admin_client: tuple[Client, Club]) -> None:
    client, _ = admin_client
    form = client.get(reverse("admin:tournaments_competition_add") + "?format=round_robin").context["adminform"].form
    assert "seed" in form.fields and "bot-only" in form.fields["seed"].help_text


# --- The API -----------------------------------------------------------------------------------------------


def api_text(client: Any, competition: Competition) -> str:
    urls = [
        "/api/tournaments/",
        f"/api/tournaments/{competition.pk}/",
        f"/api/tournaments/{competition.pk}/entrants/",
        f"/api/tournaments/{competition.pk}/rounds/",
        f"/api/tournaments/{competition.pk}/standings/",
        "/api/matches/",
        "/api/games/",
    ]
    urls += [f"/api/matches/{m.pk}/" for m in competition.matches.all()]
    texts = []
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        texts.append(response.content.decode())
    return "\n".join(texts)


@pytest.mark.parametrize("who", ["organiser", "player", "anonymous"])
def test_the_api_shows_no_seed_of_a_running_competition(who: str) -> None:
    club = ClubFactory()
    organiser = organiser_of(club)
    competition = mixed_competition(club=club)
    competition.organisers.add(organiser)
    viewer = {"organiser": organiser, "player": competition.entrants.filter(player__isnull=False)[0].player}
    client = client_for(viewer[who].user if who in viewer else None)
    matches = list(competition.matches.all())
    assert seeds_shown(api_text(client, competition), CHOSEN_SEED, *(m.seed for m in matches)) == []
    people = next(m for m in matches if seats_people(m))
    game, salt = finish_live_match(people)
    text = api_text(client, competition)
    assert seeds_shown(text, CHOSEN_SEED, *(m.seed for m in matches), game.seed) == []
    assert salt not in text


def test_a_done_live_match_reveals_each_game_s_seed_and_salt_to_anyone() -> None:
    competition = mixed_competition()
    match = next(m for m in competition.matches.all() if seats_people(m))
    game, salt = finish_live_match(match)
    body = client_for().get(f"/api/games/{game.pk}/record/").json()
    assert body["visibility"] == "public"
    assert not {"seed", "deal", "salt"} & set(body["record"])
    assert (body["seed"], body["salt"], body["commitment"]) == (game.seed, salt, match.commitments[0])
    assert commitment_holds(body["seed"], body["salt"], body["commitment"])


def test_a_game_of_an_unfinished_match_is_served_without_seed_deal_or_salt_even_to_insiders() -> None:
    club = ClubFactory()
    organiser = organiser_of(club)
    competition = mixed_competition(club=club)
    competition.organisers.add(organiser)
    match = next(m for m in competition.matches.all() if seats_people(m))
    game, salt = finish_live_match(match)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.LIVE)
    url = f"/api/games/{game.pk}/record/"
    seated = match.participants.filter(entrant__player__isnull=False)[0].entrant.player
    for insider in (organiser, seated):
        client = client_for(insider.user)
        body = client.get(url).json()
        assert body["visibility"] == "public" and set(body) == {"visibility", "record"}
        text = client.get(url).content.decode()
        assert seeds_shown(text, game.seed, match.seed) == [] and salt not in text
        refused = client.get(url, {"view": "private"})
        assert refused.status_code == 403
        assert refused.json() == {"detail": "the private record is shown once the match is done"}


def test_a_cached_public_record_reveals_the_seed_and_salt_only_while_the_match_is_done() -> None:
    competition = mixed_competition()
    match = next(m for m in competition.matches.all() if seats_people(m))
    game, salt = finish_live_match(match)
    url = f"/api/games/{game.pk}/record/"
    Match.objects.filter(pk=match.pk).update(status=Match.Status.LIVE)
    text = client_for().get(url).content.decode()
    assert seeds_shown(text, game.seed, match.seed) == [] and salt not in text
    Match.objects.filter(pk=match.pk).update(status=Match.Status.DONE)
    # Built and cached now; served from the cache the second time, the proof of the deal with it.
    for _ in range(2):
        body = client_for().get(url).json()
        assert (body["seed"], body["salt"], body["commitment"]) == (game.seed, salt, match.commitments[0])
    Match.objects.filter(pk=match.pk).update(status=Match.Status.LIVE)
    text = client_for().get(url).content.decode()
    assert seeds_shown(text, game.seed, match.seed) == [] and salt not in text


def test_a_bot_match_reveals_nothing_beyond_what_it_did_before() -> None:
    competition = mixed_competition()
    match = next(m for m in competition.matches.all() if not seats_people(m))
    record = play_game("war", agents=[None, None], seed=game_seed(match.seed, 0))
    match_record_result(match=match, result=match_result([GamePlayed(number=0, seating=(0, 1), record=record)], 2))
    game = Game.objects.get(match=match)
    body = client_for().get(f"/api/games/{game.pk}/record/").json()
    assert set(body) == {"visibility", "record"} and "seed" not in body["record"]


def test_creating_a_competition_with_a_seed_does_not_echo_it() -> None:
    club = ClubFactory()
    organiser = organiser_of(club)
    payload = {"club": club.pk, "name": "Chosen", "game": "war", "seed": CHOSEN_SEED}
    response = client_for(organiser.user).post("/api/tournaments/", payload, format="json")
    assert response.status_code == 201
    assert seeds_shown(response.content.decode(), CHOSEN_SEED) == []
