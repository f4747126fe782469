"""The test-only gauntlet format (tests/tournaments/gauntlet.py) in one process, and how a format kept outside
tournaments/formats/ is registered (tournaments/formats/outside.py). On the real worker path:
tests/e2e/test_gauntlet.py."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.core.exceptions import ImproperlyConfigured, ValidationError

from tests.factories import BotVersionFactory, ClubFactory, EntrantFactory, PlayerFactory
from tests.tournaments.gauntlet import GAUNTLET, KEY
from tournaments.formats.outside import register_outside_formats
from tournaments.formats.registry import format_keys, register, unregister
from tournaments.formats.round_robin import RoundRobin
from tournaments.models import Competition, Entrant, Match
from tournaments.selectors import competition_standings
from tournaments.services.competitions import competition_create, competition_start, competition_update
from tournaments.services.play import competition_play_pending


def _gauntlet(reference: int, **settings: object) -> Competition:
    club = ClubFactory()
    return competition_create(
        club=club,
        created_by=PlayerFactory(),
        name="Gauntlet",
        game="war",
        format=KEY,
        settings={"reference": reference, **settings},
    )


@pytest.mark.django_db
def test_each_entrant_plays_the_reference_and_ranks_by_its_score_rate(gauntlet: str) -> None:
    reference = BotVersionFactory(bot__game="war")
    competition = _gauntlet(reference.pk, rounds=4, games_per_match=3)
    entrants = [EntrantFactory(competition=competition) for _ in range(3)]
    competition_start(competition=competition)
    competition_play_pending(competition=competition)
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    yardstick = Entrant.objects.get(competition=competition, bot_version=reference)
    assert Match.objects.filter(competition=competition).count() == 3 * 4
    for entrant in entrants:
        met = Match.objects.filter(participants__entrant=entrant).filter(participants__entrant=yardstick)
        assert met.count() == 4
    rows = competition_standings(competition)
    assert rows[-1].standing.entrant_id == yardstick.pk and rows[-1].rank == len(rows)
    rates = [row.tiebreaks[0][1] for row in rows[:-1]]
    assert [t.key for t, _ in rows[0].tiebreaks][:2] == ["score_rate", "match_points"]
    assert rates == sorted(rates, reverse=True)
    assert rates == [Fraction(row.played_points) / row.standing.played for row in rows[:-1]]


@pytest.mark.django_db
def test_a_reference_entered_by_hand_is_the_one_played(gauntlet: str) -> None:
    reference = BotVersionFactory(bot__game="war")
    competition = _gauntlet(reference.pk, rounds=1)
    EntrantFactory(competition=competition)
    entered = EntrantFactory(competition=competition, bot_version=reference)
    competition_start(competition=competition)
    assert competition.entrants.count() == 2
    match = Match.objects.get(competition=competition)
    assert sorted(match.participants.values_list("entrant_id", flat=True))[-1] == entered.pk


@pytest.mark.django_db
def test_its_settings_are_checked_from_its_spec(gauntlet: str) -> None:
    reference = BotVersionFactory(bot__game="war")
    with pytest.raises(ValidationError) as refused:
        _gauntlet(reference.pk, rounds=11)
    assert refused.value.message_dict == {"rounds": ["must be between 1 and 10"]}
    with pytest.raises(ValidationError) as refused:
        _gauntlet(BotVersionFactory(bot__game="banter").pk)
    assert refused.value.message_dict == {"reference": ["the reference must play war; this bot plays banter"]}
    with pytest.raises(ValidationError) as refused:
        _gauntlet(reference.pk, players_per_match=3)
    assert "players_per_match" in refused.value.message_dict
    competition = _gauntlet(reference.pk)
    with pytest.raises(ValidationError) as refused:
        competition_update(competition=competition, settings={"cut_to": 4})
    assert list(refused.value.message_dict) == ["cut_to"]
    with pytest.raises(ValidationError) as refused:
        competition_start(competition=competition)
    assert "entrants" in refused.value.message_dict


def test_a_module_named_by_competition_formats_registers_its_formats() -> None:
    assert KEY not in format_keys()
    try:
        assert register_outside_formats({"COMPETITION_FORMATS": " tests.tournaments.gauntlet , "}) == [GAUNTLET]
        assert KEY in format_keys()
    finally:
        unregister(KEY)


@pytest.mark.parametrize(
    ("modules", "said"),
    [
        ("tests.tournaments.no_such_module", "cannot import 'tests.tournaments.no_such_module'"),
        ("tests.tournaments.helpers", "tests.tournaments.helpers has no FORMATS"),
        ("tests.tournaments.gauntlet,tests.tournaments.gauntlet", "a format 'gauntlet' is registered already"),
    ],
)
def test_a_bad_entry_of_competition_formats_says_what_is_wrong(modules: str, said: str) -> None:
    try:
        with pytest.raises(ImproperlyConfigured, match="COMPETITION_FORMATS") as refused:
            register_outside_formats({"COMPETITION_FORMATS": modules})
        assert said in str(refused.value)
    finally:
        unregister(KEY)


def test_a_format_must_have_every_member_of_the_protocol_and_a_plain_key() -> None:
    with pytest.raises(ValueError, match=r"lacks .*page_part"):
        register(object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a format's key"):
        register(RoundRobin(key="Round Robin", label="x", summary="x", cycles=1))
    with pytest.raises(ValueError, match="registered already"):
        register(RoundRobin(key="round_robin", label="x", summary="x", cycles=1))
