"""The permission matrix: every write endpoint × (anonymous, stranger, bot owner, club member, organiser).

Reading is open to everyone; each write names exactly who may make it. Refusals
are 401 for an anonymous caller (the API's token scheme asks them to log in) and
403 for a logged-in caller who is not allowed; allowed writes get their 2xx.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest

from league.joining import invitation_create
from league.models import Bot, BotVersion, Club, Invitation, JoinRequest, Membership, PersonalInvitation, Player
from league.personal_invitations import club_invite
from tests.factories import BotFactory, EntrantFactory
from tests.league.test_api_support import ROLES, Cast, add_entrants, make_cast
from tournaments.models import Challenge, Competition, Entrant, Match
from tournaments.services.challenges import challenge_issue
from tournaments.services.competitions import competition_start

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Write:
    method: str
    #: Builds the URL and body from a fresh cast; may add rows the write needs.
    request: Callable[[Cast], tuple[str, dict[str, Any] | None]]
    #: Status by role, in ROLES order: anonymous, stranger, owner, member, organiser.
    expected: tuple[int, int, int, int, int]


def _with_entrants(cast: Cast) -> Competition:
    add_entrants(cast.competition, 2)
    return cast.competition


#: Before any write in these tests: "play" must move a released match's queued_at past it.
LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)


def _started(cast: Cast) -> Competition:
    competition = competition_start(competition=_with_entrants(cast))
    competition.matches.update(queued_at=LONG_AGO)
    return competition


def _errored_match(cast: Cast) -> Match:
    competition = _started(cast)
    match = competition.matches.get()
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ERROR, error="the bot crashed")
    return match


def _owner_entrant(cast: Cast) -> Entrant:
    return EntrantFactory(competition=cast.competition, bot_version=cast.version)


def _invitation(cast: Cast) -> Invitation:
    return invitation_create(club=cast.club, created_by=cast.organiser)


def _stranger_asks(cast: Cast) -> JoinRequest:
    Club.objects.filter(pk=cast.club.pk).update(joining=Club.Joining.REQUEST)
    return JoinRequest.objects.create(club=cast.club, player=cast.stranger)


def _stranger_invited(cast: Cast) -> PersonalInvitation:
    return club_invite(club=cast.club, player=cast.stranger, role=Membership.Role.MEMBER, invited_by=cast.organiser)


def _members_membership(cast: Cast) -> Membership:
    return Membership.objects.get(club=cast.club, player=cast.member)


def _ladder(cast: Cast) -> tuple[Entrant, Entrant]:
    """The competition as a running challenge ladder: the member (a person) above the owner's bot."""
    Competition.objects.filter(pk=cast.competition.pk).update(format="challenge_ladder")
    member = Entrant.objects.create(competition=cast.competition, player=cast.member, name="Member")
    bot = EntrantFactory(competition=cast.competition, bot_version=cast.version)
    competition_start(competition=cast.competition, order=[member.pk, bot.pk])
    return member, bot


def _challenge_url(cast: Cast, verb: str) -> str:
    """The bot's challenge of the member, issued by the owner: ``verb`` answers or withdraws it."""
    member, bot = _ladder(cast)
    challenge = challenge_issue(competition=cast.competition, challenger=bot, defender=member, issued_by=cast.owner)
    return f"/api/tournaments/{cast.competition.pk}/challenges/{challenge.number}/{verb}/"


def _challenge_body(cast: Cast) -> dict[str, Any]:
    member, bot = _ladder(cast)
    return {"challenger": bot.pk, "defender": member.pk}


WRITES: dict[str, Write] = {
    "players.me.update": Write(
        "patch", lambda c: ("/api/players/me/", {"display_name": "Renamed"}), (401, 200, 200, 200, 200)
    ),
    "bots.create": Write("post", lambda c: ("/api/bots/", {"name": "Fresh", "game": "war"}), (401, 201, 201, 201, 201)),
    "bots.update": Write(
        "patch", lambda c: (f"/api/bots/{c.version.bot_id}/", {"description": "new"}), (401, 403, 200, 403, 403)
    ),
    "bots.delete": Write(
        "delete", lambda c: (f"/api/bots/{BotFactory(owner=c.owner).pk}/", None), (401, 403, 204, 403, 403)
    ),
    "bots.retire": Write("post", lambda c: (f"/api/bots/{c.version.bot_id}/retire/", None), (401, 403, 200, 403, 403)),
    "bots.versions.create": Write(
        "post",
        lambda c: (f"/api/bots/{c.version.bot_id}/versions/", {"strategy": "random"}),
        (401, 403, 201, 403, 403),
    ),
    "clubs.create": Write(
        "post", lambda c: ("/api/clubs/", {"name": "New club", "slug": "new-club"}), (401, 201, 201, 201, 201)
    ),
    # An organiser invites the stranger (202); only the stranger's acceptance makes them a member.
    "clubs.members.add": Write(
        "post",
        lambda c: (f"/api/clubs/{c.club.pk}/members/", {"player": c.stranger.pk}),
        (401, 403, 403, 403, 202),
    ),
    "clubs.members.role": Write(
        "post",
        lambda c: (f"/api/clubs/{c.club.pk}/members/", {"player": c.member.pk, "role": "referee"}),
        (401, 403, 403, 403, 200),
    ),
    "clubs.personal_invitations.withdraw": Write(
        "post",
        lambda c: (f"/api/clubs/{c.club.pk}/personal-invitations/{_stranger_invited(c).pk}/withdraw/", None),
        (401, 403, 403, 403, 200),
    ),
    # Only the invited person (the stranger) answers; anyone else does not see the invitation.
    "players.me.invitations.accept": Write(
        "post",
        lambda c: (f"/api/players/me/invitations/{_stranger_invited(c).pk}/accept/", None),
        (401, 201, 404, 404, 404),
    ),
    "players.me.invitations.decline": Write(
        "post",
        lambda c: (f"/api/players/me/invitations/{_stranger_invited(c).pk}/decline/", None),
        (401, 200, 404, 404, 404),
    ),
    "clubs.update": Write(
        "patch",
        lambda c: (f"/api/clubs/{c.club.pk}/", {"competition_creators": "members"}),
        (401, 403, 403, 403, 200),
    ),
    "clubs.members.remove": Write(
        "delete",
        lambda c: (f"/api/clubs/{c.club.pk}/members/{_members_membership(c).pk}/", None),
        (401, 403, 403, 403, 204),
    ),
    "clubs.invitations.create": Write(
        "post", lambda c: (f"/api/clubs/{c.club.pk}/invitations/", {"max_uses": 2}), (401, 403, 403, 403, 201)
    ),
    "clubs.invitations.revoke": Write(
        "post",
        lambda c: (f"/api/clubs/{c.club.pk}/invitations/{_invitation(c).pk}/revoke/", None),
        (401, 403, 403, 403, 200),
    ),
    # Anyone signed in who is not yet a member joins with the code; a member is told they already are.
    "invitations.accept": Write(
        "post", lambda c: (f"/api/invitations/{_invitation(c).code}/accept/", None), (401, 201, 201, 409, 409)
    ),
    "clubs.join_requests.accept": Write(
        "post",
        lambda c: (f"/api/clubs/{c.club.pk}/join-requests/{_stranger_asks(c).pk}/accept/", None),
        # The stranger is the one who asked, and may not decide it either.
        (401, 403, 403, 403, 200),
    ),
    "tournaments.create": Write(
        "post",
        lambda c: ("/api/tournaments/", {"club": c.club.pk, "name": "Cup", "game": "war"}),
        # A club lets only its organisers create competitions unless it says otherwise (test_api_clubs.py).
        (401, 403, 403, 403, 201),
    ),
    "tournaments.update": Write(
        "patch", lambda c: (f"/api/tournaments/{c.competition.pk}/", {"name": "Cup"}), (401, 403, 403, 403, 200)
    ),
    "tournaments.entrants.join": Write(
        "post",
        lambda c: (f"/api/tournaments/{c.competition.pk}/entrants/", {"bot_version": c.version.pk}),
        (401, 403, 201, 403, 201),
    ),
    "tournaments.entrants.remove": Write(
        "delete",
        lambda c: (f"/api/tournaments/{c.competition.pk}/entrants/{_owner_entrant(c).pk}/", None),
        (401, 403, 204, 403, 204),
    ),
    "tournaments.start": Write(
        "post",
        lambda c: (f"/api/tournaments/{_with_entrants(c).pk}/start/", None),
        (401, 403, 403, 403, 200),
    ),
    "tournaments.cancel": Write(
        "post", lambda c: (f"/api/tournaments/{c.competition.pk}/cancel/", None), (401, 403, 403, 403, 200)
    ),
    "tournaments.play": Write(
        "post", lambda c: (f"/api/tournaments/{_started(c).pk}/play/", None), (401, 403, 403, 403, 200)
    ),
    # A challenge ladder: the challenger's side (the bot's owner) challenges and withdraws, the defender's side
    # (the member) answers; organisers may do either.
    "tournaments.challenges.issue": Write(
        "post",
        lambda c: (f"/api/tournaments/{c.competition.pk}/challenges/", _challenge_body(c)),
        (401, 403, 201, 403, 201),
    ),
    "tournaments.challenges.accept": Write(
        "post", lambda c: (_challenge_url(c, "accept"), None), (401, 403, 403, 200, 200)
    ),
    "tournaments.challenges.decline": Write(
        "post", lambda c: (_challenge_url(c, "decline"), None), (401, 403, 403, 200, 200)
    ),
    "tournaments.challenges.withdraw": Write(
        "post", lambda c: (_challenge_url(c, "withdraw"), None), (401, 403, 200, 403, 200)
    ),
    "matches.retry": Write(
        "post", lambda c: (f"/api/matches/{_errored_match(c).pk}/retry/", None), (401, 403, 403, 403, 200)
    ),
}


def _effect_happened(name: str, cast: Cast) -> bool:
    """Whether the write changed the database: a refused write must leave no trace."""
    competition = Competition.objects.get(pk=cast.competition.pk)
    effects: dict[str, Callable[[], bool]] = {
        "players.me.update": lambda: Player.objects.filter(display_name="Renamed").exists(),
        "bots.create": lambda: Bot.objects.filter(name="Fresh").exists(),
        "bots.update": lambda: Bot.objects.get(pk=cast.version.bot_id).description == "new",
        "bots.delete": lambda: not Bot.objects.filter(owner=cast.owner).exclude(pk=cast.version.bot_id).exists(),
        "bots.retire": lambda: Bot.objects.get(pk=cast.version.bot_id).retired_at is not None,
        "bots.versions.create": lambda: BotVersion.objects.filter(bot_id=cast.version.bot_id).count() == 2,
        "clubs.create": lambda: Club.objects.filter(slug="new-club").exists(),
        "clubs.update": lambda: Club.objects.get(pk=cast.club.pk).competition_creators == "members",
        "clubs.members.add": lambda: PersonalInvitation.objects.filter(club=cast.club, player=cast.stranger).exists(),
        "clubs.members.role": lambda: Membership.objects.get(club=cast.club, player=cast.member).role == "referee",
        "clubs.personal_invitations.withdraw": lambda: _invitation_is(cast, PersonalInvitation.Status.WITHDRAWN),
        "players.me.invitations.accept": lambda: Membership.objects.filter(
            club=cast.club, player=cast.stranger
        ).exists(),
        "players.me.invitations.decline": lambda: _invitation_is(cast, PersonalInvitation.Status.DECLINED),
        "clubs.members.remove": lambda: not Membership.objects.filter(club=cast.club, player=cast.member).exists(),
        "clubs.invitations.create": lambda: Invitation.objects.filter(club=cast.club, max_uses=2).exists(),
        "clubs.invitations.revoke": lambda: Invitation.objects.filter(revoked_at__isnull=False).exists(),
        "invitations.accept": lambda: Invitation.objects.filter(uses=1).exists(),
        "clubs.join_requests.accept": lambda: Membership.objects.filter(club=cast.club, player=cast.stranger).exists(),
        "tournaments.create": lambda: Competition.objects.filter(name="Cup").exists(),
        "tournaments.update": lambda: competition.name == "Cup",
        "tournaments.entrants.join": lambda: competition.entrants.filter(bot_version=cast.version).exists(),
        "tournaments.entrants.remove": lambda: not competition.entrants.filter(bot_version=cast.version).exists(),
        "tournaments.start": lambda: competition.status == Competition.Status.RUNNING,
        "tournaments.cancel": lambda: competition.status == Competition.Status.CANCELLED,
        "tournaments.play": lambda: competition.matches.filter(queued_at__gt=LONG_AGO).exists(),
        "matches.retry": lambda: competition.matches.filter(status=Match.Status.PENDING).exists(),
        "tournaments.challenges.issue": lambda: competition.challenges.exists(),
        "tournaments.challenges.accept": lambda: _challenge_is(competition, Challenge.Status.ACCEPTED),
        "tournaments.challenges.decline": lambda: _challenge_is(competition, Challenge.Status.DECLINED),
        "tournaments.challenges.withdraw": lambda: _challenge_is(competition, Challenge.Status.WITHDRAWN),
    }
    return effects[name]()


def _invitation_is(cast: Cast, status: str) -> bool:
    return PersonalInvitation.objects.filter(club=cast.club, player=cast.stranger, status=status).exists()


def _challenge_is(competition: Competition, status: str) -> bool:
    return competition.challenges.filter(status=status).exists()


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(WRITES))
def test_each_write_is_allowed_exactly_for_its_roles(name: str, role: str) -> None:
    write = WRITES[name]
    cast = make_cast()
    url, body = write.request(cast)
    response = getattr(cast.client(role), write.method)(url, body, format="json")
    expected = write.expected[ROLES.index(role)]
    assert response.status_code == expected, response.content
    assert _effect_happened(name, cast) == (expected < 400)


@pytest.mark.parametrize(
    "url",
    [
        "/api/players/",
        "/api/bots/",
        "/api/clubs/",
        "/api/tournaments/",
        "/api/matches/",
        "/api/games/",
    ],
)
def test_anyone_may_read_the_lists(url: str) -> None:
    cast = make_cast()
    assert cast.client("anonymous").get(url).status_code == 200


def test_anyone_may_read_a_competitions_tables() -> None:
    cast = make_cast()
    _started(cast)
    client = cast.client("anonymous")
    base = f"/api/tournaments/{cast.competition.pk}"
    for part in ("", "entrants/", "rounds/", "standings/", "progress/"):
        assert client.get(f"{base}/{part}").status_code == 200, part


def test_an_organiser_of_another_competition_has_no_say_over_this_one() -> None:
    cast = make_cast()
    other = make_cast()
    client = other.client("organiser")
    assert client.patch(f"/api/tournaments/{cast.competition.pk}/", {"name": "Mine"}, format="json").status_code == 403
    assert client.post(f"/api/tournaments/{cast.competition.pk}/cancel/").status_code == 403
