"""/api/tournaments/{id}/entrants/: joining, leaving and the refusals that are 400s."""

from __future__ import annotations

import pytest
from django.utils import timezone

from league.models import BotVersion
from tests.factories import BotFactory, BotVersionFactory, ClubFactory, EntrantFactory, MembershipFactory
from tests.league.test_api_support import add_entrants, client_for, make_cast, results
from tournaments.models import Competition, Entrant

pytestmark = pytest.mark.django_db


def url(cast_or_id: object) -> str:
    competition_id = getattr(getattr(cast_or_id, "competition", None), "pk", cast_or_id)
    return f"/api/tournaments/{competition_id}/entrants/"


def test_a_bot_owner_enters_their_ready_version() -> None:
    cast = make_cast()
    response = cast.client("owner").post(url(cast), {"bot_version": cast.version.pk}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["bot_version"] == cast.version.pk and body["owner"] == cast.owner.pk
    assert body["bot"] == cast.version.bot_id
    assert body["name"] == f"{cast.version.bot.name} v{cast.version.number}"


def test_a_person_enters_themself_and_an_organiser_enters_anyone() -> None:
    cast = make_cast()
    MembershipFactory(club=cast.club, player=cast.stranger)  # only the club's members play in person
    own = cast.client("stranger").post(url(cast), {"player": cast.stranger.pk}, format="json")
    assert own.status_code == 201 and own.json()["player"] == cast.stranger.pk
    added = cast.client("organiser").post(url(cast), {"player": cast.member.pk}, format="json")
    assert added.status_code == 201 and added.json()["owner"] == cast.member.pk


def test_entering_someone_elses_bot_or_person_is_refused() -> None:
    cast = make_cast()
    client = cast.client("member")
    assert client.post(url(cast), {"bot_version": cast.version.pk}, format="json").status_code == 403
    assert client.post(url(cast), {"player": cast.stranger.pk}, format="json").status_code == 403
    assert not Entrant.objects.filter(competition=cast.competition).exists()


def test_someone_outside_the_club_cannot_enter_themself() -> None:
    cast = make_cast()
    MembershipFactory(club=ClubFactory(), player=cast.stranger)  # a member elsewhere is still an outsider here
    response = cast.client("stranger").post(url(cast), {"player": cast.stranger.pk}, format="json")
    assert response.status_code == 403
    assert response.json() == {"detail": f"only members of {cast.club.name} may enter"}
    assert not Entrant.objects.filter(competition=cast.competition).exists()


def test_an_organiser_cannot_enter_someone_outside_the_club() -> None:
    cast = make_cast()
    response = cast.client("organiser").post(url(cast), {"player": cast.stranger.pk}, format="json")
    assert response.status_code == 400
    assert response.json() == {"player": [f"{cast.stranger.display_name} is not a member of {cast.club.name}"]}
    assert not Entrant.objects.filter(competition=cast.competition).exists()


def test_a_club_member_enters_themself_and_the_owner_of_a_bot_need_not_be_a_member() -> None:
    cast = make_cast()
    own = cast.client("member").post(url(cast), {"player": cast.member.pk}, format="json")
    assert own.status_code == 201 and own.json()["player"] == cast.member.pk
    # Bots are not people: the rule is about who sits at a table in person.
    bot = cast.client("owner").post(url(cast), {"bot_version": cast.version.pk}, format="json")
    assert bot.status_code == 201


def test_a_competition_played_with_real_cards_takes_people_only() -> None:
    cast = make_cast()
    Competition.objects.filter(pk=cast.competition.pk).update(people_play=Competition.PeoplePlay.TRANSCRIPT)
    refused = cast.client("owner").post(url(cast), {"bot_version": cast.version.pk}, format="json")
    assert refused.status_code == 400
    assert refused.json() == {"bot_version": ["this competition is played with real cards: only people enter"]}
    refused = cast.client("organiser").post(url(cast), {"bot_version": cast.version.pk}, format="json")
    assert refused.status_code == 400
    person = cast.client("member").post(url(cast), {"player": cast.member.pk}, format="json")
    assert person.status_code == 201
    assert list(Entrant.objects.filter(competition=cast.competition).values_list("player", flat=True)) == [
        cast.member.pk
    ]


def test_a_duplicate_join_is_a_400() -> None:
    cast = make_cast()
    client = cast.client("owner")
    client.post(url(cast), {"bot_version": cast.version.pk}, format="json")
    again = client.post(url(cast), {"bot_version": cast.version.pk}, format="json")
    assert again.status_code == 400
    assert again.json() == {
        "entrant": [f"{cast.version.bot.name} v{cast.version.number} has already joined this competition"]
    }


def test_a_full_entrant_list_is_a_400() -> None:
    cast = make_cast()
    cast.competition.max_entrants = 2
    cast.competition.save()
    add_entrants(cast.competition, 2)
    response = cast.client("owner").post(url(cast), {"bot_version": cast.version.pk}, format="json")
    assert response.status_code == 400 and response.json() == {"competition": ["the entrant list is full (2)"]}


@pytest.mark.parametrize(
    ("payload", "errors"),
    [
        (
            {},
            {
                "bot_version": ["give exactly one of bot_version or player"],
                "player": ["give exactly one of bot_version or player"],
            },
        ),
        ({"bot_version": "one"}, {"bot_version": ["Incorrect type. Expected pk value, received str."]}),
        ({"bot_version": 999999}, {"bot_version": ['Invalid pk "999999" - object does not exist.']}),
    ],
)
def test_malformed_joins_are_400s_naming_the_field(payload: dict[str, object], errors: dict[str, list[str]]) -> None:
    cast = make_cast()
    response = cast.client("owner").post(url(cast), payload, format="json")
    assert response.status_code == 400 and response.json() == errors


def test_versions_that_cannot_play_here_are_refused() -> None:
    cast = make_cast()
    client = cast.client("owner")
    banter = BotVersionFactory(bot=BotFactory(owner=cast.owner, game="banter"))
    pending = BotVersionFactory(bot=BotFactory(owner=cast.owner, game="war"), status=BotVersion.Status.PENDING)
    retired = BotVersionFactory(bot=BotFactory(owner=cast.owner, game="war", retired_at=timezone.now()))
    assert client.post(url(cast), {"bot_version": banter.pk}, format="json").json() == {
        "bot_version": ["this bot plays banter, not war"]
    }
    assert client.post(url(cast), {"bot_version": pending.pk}, format="json").json() == {
        "bot_version": ["only ready versions can enter; this one is pending"]
    }
    assert client.post(url(cast), {"bot_version": retired.pk}, format="json").json() == {
        "bot_version": ["this bot is retired"]
    }


def test_the_owner_leaves_before_the_start_but_not_after() -> None:
    cast = make_cast()
    mine = EntrantFactory(competition=cast.competition, bot_version=cast.version)
    client = cast.client("owner")
    assert client.delete(f"{url(cast)}{mine.pk}/").status_code == 204
    assert not Entrant.objects.filter(pk=mine.pk).exists()
    mine = EntrantFactory(competition=cast.competition, bot_version=cast.version)
    add_entrants(cast.competition, 1)
    cast.client("organiser").post(f"/api/tournaments/{cast.competition.pk}/start/")
    late = client.delete(f"{url(cast)}{mine.pk}/")
    assert late.status_code == 400
    assert late.json() == {"competition": ["entrants can leave only before the start; the competition is running"]}


def test_joining_a_started_competition_is_a_400() -> None:
    cast = make_cast()
    add_entrants(cast.competition, 2)
    cast.client("organiser").post(f"/api/tournaments/{cast.competition.pk}/start/")
    response = cast.client("owner").post(url(cast), {"bot_version": cast.version.pk}, format="json")
    assert response.status_code == 400
    assert response.json() == {"competition": ["entries are closed: the competition is running"]}


def test_an_entrant_of_another_competition_is_a_404_here() -> None:
    cast = make_cast()
    elsewhere = EntrantFactory()
    assert cast.client("organiser").delete(f"{url(cast)}{elsewhere.pk}/").status_code == 404


def test_the_entrant_list_costs_three_queries_however_long(django_assert_num_queries) -> None:
    cast = make_cast()
    add_entrants(cast.competition, 6)
    with django_assert_num_queries(3):  # the competition + count + page (versions, bots and people joined)
        rows = results(client_for().get(url(cast)))
    assert len(rows) == 6 and all(r["owner"] is not None for r in rows)
