"""Every kind of event, made through the services, reaches the people it concerns by each channel with real
workers (issue 24): their inbox, one gathered mail each (Django's file backend, as a deployment might set
``EMAIL_FILE_PATH``), and the club's webhook receiver, signed, each delivery exactly once. An evening of
forty join requests is one mail to the organiser."""

from __future__ import annotations

import email
import email.policy
from collections import Counter
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from django.db import connection
from django.utils import timezone

from league.agents import BotReport
from league.joining import club_join
from league.models import BotVersion, Club, Membership, Player
from league.notifications.kinds import Kind
from league.notifications.models import Notification
from league.notifications.services import notification_settings_set
from league.services import bot_create, bot_version_create_upload
from league.webhooks.models import WebhookDelivery
from league.webhooks.services import webhook_create
from tests.e2e.conftest import Workers, wait_for
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    CompetitionFactory,
    EntrantFactory,
    PlayerFactory,
    full_options,
)
from tests.league.test_api_support import client_for
from tests.league.webhook_receiver import receiving
from tests.tournaments.front_support import challenge_awaiting, club, person
from tests.tournaments.transcript_support import table_record, transcript_match
from tournaments.models import Challenge, ChallengeSide, Competition, Match, MatchParticipant, Round, Transcript
from tournaments.services.bot_troubles import FAILURES_IN_A_ROW
from tournaments.services.challenges import challenge_decline, challenges_enforce_deadlines
from tournaments.services.competitions import competition_start, entrant_join
from tournaments.services.play import bot_runs_record
from tournaments.services.transcripts import transcript_dispute, transcript_submit

SECRET = "riverside-chat-secret"
#: Join requests in one evening, besides Nia's: one mail to the organiser, however many.
EVENING = 40
#: What each person is told, by kind (counts), when the scene has played out.
TOLD = {
    "ann": Counter(
        {
            Kind.COMPETITION_STARTED: 4,  # War and 1923 at the tables, the two challenge ladders
            Kind.ROUND_PAIRED: 2,
            Kind.YOUR_TURN: 1,  # 1923 at a live pace: told at once
            Kind.MATCH_RECORDED: 1,
            Kind.COMPETITION_FINISHED: 1,
            Kind.CHALLENGED: 2,
            Kind.CHALLENGE_DEADLINE: 1,
            Kind.BOT_REFUSED: 1,
            Kind.BOT_CRASHING: 1,
        }
    ),
    "ben": Counter(
        {
            Kind.COMPETITION_STARTED: 4,
            Kind.ROUND_PAIRED: 2,
            Kind.YOUR_TURN: 1,
            Kind.MATCH_RECORDED: 1,
            Kind.COMPETITION_FINISHED: 1,
            Kind.CHALLENGE_ANSWERED: 1,
        }
    ),
    # By correspondence: told of their turn by beat's sweep once it has been quiet a while, and mailed of it
    # alone (a round paired and a competition started are not mailed unless a person asks).
    "cat": Counter({Kind.COMPETITION_STARTED: 1, Kind.ROUND_PAIRED: 1, Kind.YOUR_TURN: 1}),
    "dan": Counter({Kind.COMPETITION_STARTED: 1, Kind.ROUND_PAIRED: 1, Kind.YOUR_TURN: 1}),
    "olga": Counter({Kind.JOIN_REQUEST: EVENING + 1, Kind.DISPUTE: 1}),
}
#: What the club's chat is told: one post an event, not one a person.
POSTED = Counter(
    {
        Kind.JOIN_REQUEST: EVENING + 1,
        Kind.COMPETITION_STARTED: 5,
        Kind.ROUND_PAIRED: 3,
        Kind.MATCH_RECORDED: 1,
        Kind.COMPETITION_FINISHED: 1,
        Kind.CHALLENGED: 2,
        Kind.CHALLENGE_ANSWERED: 1,
        Kind.DISPUTE: 1,
    }
)
QUICK = {
    "WEBHOOK_ALLOW_PRIVATE": "true",
    "WEBHOOK_RETRY_BASE_SECONDS": "1",
    "WEBHOOK_SWEEP_SECONDS": "1",
    "NOTIFY_MAIL_GATHER_SECONDS": "0",
    "NOTIFY_MAIL_SWEEP_SECONDS": "1",
    "NOTIFY_TURN_QUIET_SECONDS": "1",
    "NOTIFY_TURN_SWEEP_SECONDS": "1",
}
BROKEN_BOT = b"raise SystemExit('this bot does not start')\n"


def everything_mailed(people: list[Player]) -> None:
    for player in people:
        notification_settings_set(player=player, chosen={kind: (True, True) for kind in Kind.values})


def a_bot_that_keeps_failing(owner: Player) -> None:
    """Three finished matches of an HTTP bot of Ann's, each ended by its failure, their runs recorded as a
    worker records them (the matches are made here, not played: an unreachable bot is not this test's)."""
    version = BotVersionFactory(
        bot=BotFactory(owner=owner, game="war", name="Wobbly"), kind=BotVersion.Kind.HTTP, strategy="", url="http://x/"
    )
    bots_night = CompetitionFactory(game="war", name="Bots night", status=Competition.Status.RUNNING)
    wobbly = EntrantFactory(competition=bots_night, bot_version=version)
    round_ = Round.objects.create(competition=bots_night, number=1)
    for number in range(1, FAILURES_IN_A_ROW + 1):
        match = Match.objects.create(
            competition=bots_night, round=round_, number=number, seed=number, status=Match.Status.DONE
        )
        MatchParticipant.objects.create(match=match, entrant=wobbly, seat=0)
        MatchParticipant.objects.create(match=match, entrant=EntrantFactory(competition=bots_night), seat=1)
        report = BotReport(failure="crash", detail="exit status 1", log="", start_ms=1.0)
        bot_runs_record(match=match, reports={0: report})


def at_the_tables(where: Club, people: list[Player], name: str, game: str, **settings: Any) -> Competition:
    """A round robin of these people at the site's tables, started."""
    options = {"max_rounds": 30} if game == "war" else {}  # War's flips are played by the workers: a short game
    competition = CompetitionFactory(
        club=where, name=name, game=game, options=full_options(game, len(people), options), **settings
    )
    for player in people:
        entrant_join(competition=competition, player=player)
    return competition_start(competition=competition)


def mails_in(folder: Path) -> list[EmailMessage]:
    """Every message Django's file backend wrote (one file a connection, messages split by a line of dashes)."""
    mails = []
    for path in sorted(folder.glob("*.log")):
        for text in path.read_text().split("\n" + "-" * 79 + "\n"):
            if text.strip():
                mails.append(email.message_from_string(text, policy=email.policy.default))
    return mails  # type: ignore[return-value]


def test_each_event_reaches_the_inbox_one_mail_a_person_and_the_club_s_chat_once(
    workers: Workers, settings: Any, tmp_path: Path
) -> None:
    assert not connection.in_atomic_block  # each service commits at once: its deliveries go after the commit
    settings.WEBHOOK_ALLOW_PRIVATE = True
    settings.NOTIFY_TURN_QUIET_SECONDS = 1  # a table keeps when to tell, reckoned when its turn begins: here
    mail_folder = tmp_path / "mail"
    with receiving(SECRET) as receiver:
        river = club("Riverside", Club.Joining.REQUEST)
        olga = person("olga", river, role=Membership.Role.ORGANISER, display_name="Olga")
        ann, ben = person("ann", river, display_name="Ann"), person("ben", river, display_name="Ben")
        everything_mailed([ann, ben, olga])
        webhook_create(club=river, by=olga, url=receiver.url, secret=SECRET)
        # Mail waits for the second worker (its beat sweeps mail): everything below is gathered by then.
        workers("plays", extra_env={**QUICK, "EMAIL_FILE_PATH": str(mail_folder)})

        club_join(club=river, player=PlayerFactory(display_name="Nia"), note="I play on Thursdays")
        for number in range(EVENING):
            club_join(club=river, player=PlayerFactory(display_name=f"Newcomer {number}"))
        war = at_the_tables(river, [ann, ben], "Autumn war", "war")
        at_the_tables(river, [ann, ben], "Thursday 1923", "1923")  # both choose at once: both are told
        cat, dan = person("cat", river, display_name="Cat"), person("dan", river, display_name="Dan")
        days = {"move_seconds": 3 * 86400, "game_seconds": 10 * 86400}
        at_the_tables(river, [cat, dan], "Winter letters", "1923", **days)
        declined = challenge_awaiting(river, olga, challenger=ben, defender=ann)
        defender = declined.sides.get(role=ChallengeSide.Role.DEFENDER).entrant
        challenge_decline(competition=declined.competition, number=declined.number, defender=defender)
        near = challenge_awaiting(river, olga, challenger=ben, defender=ann)
        Challenge.objects.filter(pk=near.pk).update(deadline=timezone.now() + timedelta(hours=2))
        assert challenges_enforce_deadlines()["reminded"] == 1
        bot_version_create_upload(
            bot=bot_create(owner=ann, name="Sulky", game="war"), filename="bot.py", content=BROKEN_BOT
        )
        a_bot_that_keeps_failing(ann)
        written, _ = transcript_match("war", players=[ann, ben], club=river)
        submitted = transcript_submit(match=written, player=ann, game_number=0, record=table_record(written))
        wait_for(
            lambda: Transcript.objects.get(pk=submitted.pk).status == Transcript.Status.VERIFIED,
            what="the worker to verify the transcript",
        )
        transcript_dispute(transcript=submitted, player=ben, note="the third trick was mine")
        wait_for(
            lambda: Competition.objects.get(pk=war.pk).status == Competition.Status.FINISHED,
            what="the workers to play and record the War match",
        )
        wait_for(
            lambda: Notification.objects.filter(kind=Kind.BOT_REFUSED).exists(),
            what="the worker to refuse the broken bot",
        )

        # The inbox: each person's own notifications, by kind, and the API lists them.
        for player in (ann, ben, olga):  # cat and dan wait for the sweep
            kinds = Counter(Notification.objects.filter(player=player, on_site=True).values_list("kind", flat=True))
            assert kinds == TOLD[player.user.username], player.user.username
        listed = client_for(ann.user).get("/api/notifications/", {"unread": "true"}).json()
        assert listed["count"] == sum(TOLD["ann"].values())

        # The club's chat: each event once, signed, and every delivery answered.
        wait_for(
            lambda: (
                not WebhookDelivery.objects.filter(delivered_at__isnull=True).exists()
                and len(receiver.accepted()) == WebhookDelivery.objects.count()
            ),
            what="the club's chat to hear every event",
        )
        posts = receiver.all()
        assert all(post.signed for post in posts)
        assert Counter(post.body["event"] for post in posts) == POSTED
        assert len({post.body["delivery"] for post in posts}) == len(posts) == WebhookDelivery.objects.count()
        assert all(post.body["content"] == post.body["text"] and post.body["text"] for post in posts)

        # The mail: a worker with beat gathers each person's evening into one mail.
        workers("mails", beat=True, extra_env={**QUICK, "EMAIL_FILE_PATH": str(mail_folder)})
        wait_for(
            lambda: not Notification.objects.filter(mail_due=True, mailed_at__isnull=True).exists(),
            what="every notification to be mailed",
        )
        wait_for(
            lambda: Notification.objects.filter(kind=Kind.YOUR_TURN, player__in=[cat, dan]).count() == 2,
            what="beat to tell the correspondence players of their turn",
        )
        wait_for(
            lambda: not Notification.objects.filter(mail_due=True, mailed_at__isnull=True).exists(),
            what="the correspondence players' mail",
        )
        for player in (cat, dan):
            kinds = Counter(Notification.objects.filter(player=player, on_site=True).values_list("kind", flat=True))
            assert kinds == TOLD[player.user.username], player.user.username
    mails = mails_in(mail_folder)
    assert sorted(mail["To"] for mail in mails) == [f"{name}@example.org" for name in sorted(TOLD)]
    for mail in mails:
        text = mail.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]
        player = Player.objects.get(user__email=mail["To"])
        for notification in Notification.objects.filter(player=player):
            assert (f"* {notification.title}" in text) == notification.mail_due
        assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    subjects = {mail["To"]: mail["Subject"] for mail in mails}
    assert subjects["olga@example.org"].startswith(f"{EVENING + 2} things for you at the card club")
    assert subjects["cat@example.org"] == "Your turn against Dan in Winter letters"
