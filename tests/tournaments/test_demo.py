"""The demo club that `make run` loads: complete, played, and the same however often it is loaded."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from engine.bots import bot_names
from league.models import Membership
from tournaments.demo import (
    BANTER_CUP,
    BANTER_CUP_BOTS,
    CHALLENGE_LADDER,
    COMPETITIONS,
    DEMO_PASSWORD,
    DEMO_USERNAME,
    DUPLICATE,
    LADDER_CHALLENGES,
    LIVE_COMPETITION,
    PUNK_CUP,
    PUNK_CUP_BOTS,
    RATING_LADDER,
    RATING_LADDER_FIRST_ROUNDS,
    SEPARATION,
    SWISS,
    SWISS_BOTS,
    SWISS_CUT,
    demo_counts,
)
from tournaments.formats.values import setting
from tournaments.knockout_selectors import bracket_view
from tournaments.models import Challenge, ChallengeSide, Competition, Game, Match, MatchParticipant, Standing
from tournaments.services.live import live_clocks_enforce
from tournaments.services.live_tables import seat_deadline
from tournaments.services.separation import separation_report

pytestmark = pytest.mark.django_db


def load() -> str:
    out = StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


def test_load_demo_builds_a_played_competition_per_game_and_a_working_login(client: Client) -> None:
    output = load()
    assert "Admin login: demo / demo" in output
    user = get_user_model().objects.get(username=DEMO_USERNAME)
    assert user.is_superuser and user.is_staff and user.check_password(DEMO_PASSWORD)
    assert Membership.objects.get(player__user=user).role == Membership.Role.ORGANISER
    competitions = {c.game: c for c in Competition.objects.filter(name__in=[spec.name for spec in COMPETITIONS])}
    assert sorted(competitions) == sorted(spec.game for spec in COMPETITIONS)
    for game, competition in competitions.items():
        assert competition.status == Competition.Status.FINISHED
        assert not competition.matches.exclude(status=Match.Status.DONE).exists()
        strategies = set(competition.entrants.values_list("bot_version__strategy", flat=True))
        # Every built-in strategy of the game plays: random and the game's own.
        assert strategies == set(bot_names(game))
        assert Standing.objects.filter(competition=competition, played__gt=0).count() == competition.entrants.count()
    assert competitions["war"].games_per_match == 3
    assert (
        Game.objects.filter(match__competition=competitions["war"]).count() == 3 * competitions["war"].matches.count()
    )
    assert competitions["1923"].options["mode"] == "match" and competitions["1923"].options["target_points"] == 50
    assert competitions["punk"].players_per_match == 4
    assert client.login(username=DEMO_USERNAME, password=DEMO_PASSWORD)
    assert client.get(f"/admin/tournaments/competition/{competitions['banter'].pk}/change/").status_code == 200


def test_load_demo_twice_changes_nothing() -> None:
    load()
    first = demo_counts()
    games = Game.objects.count()
    output = load()
    assert demo_counts() == first
    assert Game.objects.count() == games
    assert "Already loaded" in output


def test_load_demo_completes_a_demo_that_stopped_part_way() -> None:
    load()
    full = demo_counts()
    (banter,) = (Competition.objects.get(name=spec.name) for spec in COMPETITIONS if spec.game == "banter")
    Match.objects.filter(competition=banter).delete()
    Standing.objects.filter(competition=banter).delete()
    Competition.objects.filter(pk=banter.pk).update(status=Competition.Status.OPEN, started_at=None, finished_at=None)
    banter.rounds.all().delete()
    load()
    assert demo_counts() == full


def test_load_demo_restores_the_demo_login_it_prints() -> None:
    load()
    user = get_user_model().objects.get(username=DEMO_USERNAME)
    user.set_password("changed")
    user.is_superuser = False
    user.save()
    load()
    user.refresh_from_db()
    assert user.is_superuser and user.check_password(DEMO_PASSWORD)


def test_load_demo_opens_live_tables_for_the_demo_login() -> None:
    load()
    live = Competition.objects.get(name=LIVE_COMPETITION.name)
    assert live.status == Competition.Status.RUNNING
    matches = live.matches.all()
    assert matches.count() == 3 and all(m.status == Match.Status.LIVE for m in matches)
    demo = get_user_model().objects.get(username=DEMO_USERNAME).player
    assert live.matches.filter(participants__entrant__player=demo).count() == 2


def test_load_demo_holds_a_challenge_ladder_with_its_history_and_a_running_rating_ladder(client: Client) -> None:
    load()
    ladder = Competition.objects.get(name=CHALLENGE_LADDER.name)
    assert (ladder.format, ladder.status) == ("challenge_ladder", Competition.Status.RUNNING)
    challenges = list(ladder.challenges.order_by("number"))
    assert [c.status for c in challenges] == [Challenge.Status.PLAYED] * len(LADDER_CHALLENGES) + [
        Challenge.Status.ISSUED
    ]
    # Every place is taken once, and every played challenge's match is recorded.
    places = sorted(ladder.entrants.values_list("position", flat=True))
    assert places == list(range(1, ladder.entrants.count() + 1))
    assert all(c.match is not None and c.match.status == Match.Status.DONE for c in challenges[:-1])
    rating = Competition.objects.get(name=RATING_LADDER.name)
    assert (rating.format, rating.status) == ("rating_ladder", Competition.Status.RUNNING)
    assert rating.rounds.count() == RATING_LADDER_FIRST_ROUNDS
    assert not rating.matches.exclude(status=Match.Status.DONE).exists()
    assert Standing.objects.filter(competition=rating, played__gt=0).exists()
    assert client.login(username=DEMO_USERNAME, password=DEMO_PASSWORD)
    for competition in (ladder, rating):
        assert client.get(f"/admin/tournaments/competition/{competition.pk}/change/").status_code == 200


def test_load_demo_holds_a_played_swiss_with_a_bye_a_round() -> None:
    load()
    swiss = Competition.objects.get(name=SWISS.name)
    assert swiss.status == Competition.Status.FINISHED
    assert setting(swiss, "round_count") == 3 and swiss.rounds.count() == 3  # ceil(log2 7)
    assert swiss.entrants.count() == SWISS_BOTS
    for round_ in swiss.rounds.all():
        seated = set(MatchParticipant.objects.filter(match__round=round_).values_list("entrant_id", flat=True))
        assert len(seated) == SWISS_BOTS - 1


def test_load_demo_holds_played_knockouts_with_their_brackets_and_the_swiss_s_cut(client: Client) -> None:
    load()
    swiss = Competition.objects.get(name=SWISS.name)
    cut = swiss.next_stage
    assert cut is not None and cut.format == "double_elimination" and setting(cut, "seeded_from") == swiss.pk
    assert cut.entrants.count() == SWISS_CUT
    banter = Competition.objects.get(name=BANTER_CUP.name)
    punk = Competition.objects.get(name=PUNK_CUP.name)
    assert client.login(username=DEMO_USERNAME, password=DEMO_PASSWORD)
    for competition, entrants in ((cut, SWISS_CUT), (banter, BANTER_CUP_BOTS), (punk, PUNK_CUP_BOTS)):
        assert competition.status == Competition.Status.FINISHED
        view = bracket_view(competition)
        assert view.finished and len(view.places) == entrants and view.places[0][0] == 1
        page = client.get(f"/admin/tournaments/competition/{competition.pk}/change/")
        assert page.status_code == 200
        assert view.places[0][1].name in page.content.decode()
    # Six in the Banter cup: its top two seeds sat round 1 out, and the losing semi-finalists played for third.
    first = bracket_view(banter).rounds[0]
    assert [e.seed for _, byes in first.byes for e in byes] == [1, 2]
    assert [t.side for t in bracket_view(banter).rounds[-1].tables] == ["final", "third_place"]
    assert [len(r.tables) for r in bracket_view(punk).rounds] == [2, 1]


def test_load_demo_holds_a_duplicate_deal_round_robin_and_a_decided_play_to_separation() -> None:
    load()
    duplicate = Competition.objects.get(name=DUPLICATE.name)
    assert duplicate.duplicate_deals and duplicate.status == Competition.Status.FINISHED
    for match in duplicate.matches.all():
        seeds = list(match.games.order_by("number").values_list("seed", flat=True))
        assert len(seeds) == 2 and seeds[0] == seeds[1]
    separation = Competition.objects.get(name=SEPARATION.name)
    assert separation.status == Competition.Status.FINISHED
    report = separation_report(separation)
    assert report is not None and report.verdict.decision in ("H0", "H1", "cap")


def test_the_demo_s_live_tables_wait_days_for_the_demo_login_not_minutes() -> None:
    load()
    live = Competition.objects.get(name=LIVE_COMPETITION.name)
    assert live.move_seconds >= 86400 and live.game_seconds >= live.move_seconds
    waiting = live.matches.filter(status=Match.Status.LIVE).count()
    # A day after `make run`, as beat's clock sweep would see it: nobody has run out of time.
    assert live_clocks_enforce(now=timezone.now() + timedelta(days=1)) == 0
    assert live.matches.filter(status=Match.Status.LIVE).count() == waiting == 3
    demo = get_user_model().objects.get(username=DEMO_USERNAME).player
    for match in live.matches.filter(participants__entrant__player=demo):
        table = match.live_tables.order_by("-number").first()
        assert table is not None
        assert all(seat_deadline(live, table, seat) > timezone.now() + timedelta(days=1) for seat in (0, 1))
    # People play accepted challenges at live tables too: the ladder keeps the same pace.
    ladder = Competition.objects.get(name=CHALLENGE_LADDER.name)
    assert (ladder.move_seconds, ladder.game_seconds) == (live.move_seconds, live.game_seconds)


def test_a_challenge_on_the_demo_ladder_awaits_the_demo_login_s_answer(client: Client) -> None:
    load()
    ladder = Competition.objects.get(name=CHALLENGE_LADDER.name)
    waiting = ladder.challenges.get(status=Challenge.Status.ISSUED)
    defender = waiting.sides.get(role=ChallengeSide.Role.DEFENDER)
    assert defender.entrant.player is not None and defender.entrant.player.user.username == DEMO_USERNAME
    assert defender.accepted_at is None and defender.open
    assert waiting.challenger.player is not None and waiting.challenger.player.user.username == "alice"
    assert waiting.issued_by == waiting.challenger.player
    assert waiting.deadline > timezone.now() + timedelta(days=1)
    # The demo login answers it through the API, as the ladder's page does.
    assert client.login(username=DEMO_USERNAME, password=DEMO_PASSWORD)
    answered = client.post(f"/api/tournaments/{ladder.pk}/challenges/{waiting.number}/accept/")
    assert answered.status_code == 200, answered.content
    waiting.refresh_from_db()
    assert waiting.status == Challenge.Status.ACCEPTED and waiting.match is not None
