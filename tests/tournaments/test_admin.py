"""The competitions admin: pages, the competition sheet, running a club through the services, organiser scope."""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser
from typing import Any

import pytest
from django import forms
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league.models import BotVersion, Club, Membership, Player
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    ClubFactory,
    CompetitionFactory,
    EntrantFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
    full_options,
)
from tests.tournaments.helpers import game_played, match_between, match_result, seats_of, started
from tournaments.admin import forms as admin_forms
from tournaments.admin.forms import CompetitionChangeForm
from tournaments.formats.values import setting
from tournaments.models import Competition, Entrant, Game, Match, MatchSet, Round, Standing
from tournaments.selectors import competition_match_sheets, match_breakdown
from tournaments.services.play import competition_play_pending
from tournaments.services.results import match_record_result

pytestmark = pytest.mark.django_db


# --- Helpers ----------------------------------------------------------------------------------------


class _Tables(HTMLParser):
    """Collects the text of every cell of every table inside the element with a given id."""

    def __init__(self, element_id: str) -> None:
        super().__init__()
        self.element_id = element_id
        self.depth = 0  # >0 while inside the element
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth:
            self.depth += tag == "div"
            if tag == "tr":
                self.rows.append([])
            elif tag in ("td", "th"):
                self.cell = []
        elif tag == "div" and dict(attrs).get("id") == self.element_id:
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if not self.depth:
            return
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "div":
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def table_rows(html: str, element_id: str) -> list[list[str]]:
    parser = _Tables(element_id)
    parser.feed(html)
    return parser.rows


def messages_of(response: Any) -> list[str]:
    """The messages shown on the page a request ended on (follow=True), which uses them up."""
    return [str(m) for m in response.context["messages"]]


def login(client: Client, user: AbstractBaseUser) -> Client:
    client.force_login(user)
    return client


@pytest.fixture
def superuser() -> Player:
    return PlayerFactory(user=UserFactory(username="root", is_staff=True, is_superuser=True), display_name="Root")


@pytest.fixture
def boss(client: Client, superuser: Player) -> Client:
    return login(client, superuser.user)


def organiser_of(club: Club, username: str = "olga") -> Player:
    player = PlayerFactory(user=UserFactory(username=username, is_staff=True), display_name=username.capitalize())
    MembershipFactory(club=club, player=player, role=Membership.Role.ORGANISER)
    return player


def played_competition(game: str, entrants: int = 3, **kwargs: Any) -> Competition:
    """A competition of built-in bots, started and played through the engine."""
    competition = CompetitionFactory(
        game=game, options=full_options(game, kwargs.get("players_per_match", 2)), **kwargs
    )
    for _ in range(entrants):
        EntrantFactory(competition=competition)
    started(competition)
    competition_play_pending(competition=competition)
    competition.refresh_from_db()
    return competition


def record(
    competition: Competition, a: Entrant, b: Entrant, by_entrant: dict[int, dict[str, Any]], **shared: Any
) -> None:
    """Record a one-game match from figures given per entrant (lists in the result are by seat)."""
    match = match_between(competition, a, b)
    order = seats_of(match)
    result: dict[str, Any] = {key: [by_entrant[e][key] for e in order] for key in by_entrant[a.pk]}
    for key, value in shared.items():
        result[key] = value(order) if callable(value) else value
    match_record_result(match=match, result=match_result([game_played(competition.game, 0, [0, 1], result)], 2))


def change_url(obj: Any) -> str:
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])


def changelist_url(model: Any) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


COMPETITION_ADD = reverse("admin:tournaments_competition_add")


def add_url(format: str = "round_robin") -> str:
    """The add form of one format (the add page without one asks for the format first)."""
    return f"{COMPETITION_ADD}?format={format}"


# --- Every page renders --------------------------------------------------------------------------------


@pytest.mark.parametrize("model", [Competition, Entrant, Round, Match, Game, MatchSet, Standing])
def test_every_changelist_and_change_page_renders_for_a_superuser(boss: Client, model: Any) -> None:
    for game in ("1923", "banter"):
        played_competition(game)
    response = boss.get(changelist_url(model))
    assert response.status_code == 200
    assert response.context["cl"].result_count > 0
    for obj in model.objects.all()[:3]:
        assert boss.get(change_url(obj)).status_code == 200


@pytest.mark.parametrize("model", [Competition, Entrant, Round, Match, Game, MatchSet, Standing])
def test_a_changelist_takes_as_many_queries_for_many_rows_as_for_few(boss: Client, model: Any) -> None:
    played_competition("1923", entrants=2)
    with CaptureQueriesContext(connection) as few:
        assert boss.get(changelist_url(model)).status_code == 200
    played_competition("1923", entrants=4)
    played_competition("banter", entrants=3)
    with CaptureQueriesContext(connection) as many:
        assert boss.get(changelist_url(model)).status_code == 200
    assert len(many) == len(few)


@pytest.mark.parametrize("game", ["1923", "banter", "punk"])
def test_a_competition_page_takes_as_many_queries_for_a_big_competition_as_for_a_small_one(
    boss: Client, game: str
) -> None:
    table = 4 if game == "punk" else 2
    small, big = (played_competition(game, entrants=n, players_per_match=table) for n in (table, table + 2))
    boss.get(change_url(small))  # the first page of a session fills per-process caches (content types)

    def queries(competition: Competition) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert boss.get(change_url(competition)).status_code == 200
        return len(captured)

    assert queries(small) == queries(big)


def test_the_create_page_and_a_game_page_with_its_replay_check_render(boss: Client) -> None:
    played_competition("war", entrants=2)
    assert boss.get(COMPETITION_ADD).status_code == 200
    assert boss.get(add_url()).status_code == 200
    response = boss.get(change_url(Game.objects.first()))
    assert response.status_code == 200
    assert "Replay check" in response.text and ">valid<" in response.text
    # The one lower-first tiebreak says so (issue 11, finding 11).
    sheet = boss.get(change_url(Game.objects.first().match.competition)).text
    assert "then Rounds needed (fewer first);" in sheet


# --- The competition sheet -------------------------------------------------------------------------------


def test_the_competition_page_shows_the_1923_table_with_its_tiebreaks_and_each_matchs_set_table(
    boss: Client,
) -> None:
    competition = CompetitionFactory(game="1923", options=full_options("1923", 2))
    a, b, _ = (EntrantFactory(competition=competition, name=n) for n in ("Ann", "Ben", "Cy"))
    started(competition)
    sets = {
        a.pk: {"cards": [30, 30], "aces": [3, 2], "points": [26, 26]},
        b.pk: {"cards": [22, 22], "aces": [1, 2], "points": [10, 10]},
    }
    record(
        competition,
        a,
        b,
        {
            a.pk: {"ranks": 1, "scores": 52, "points": 52, "cards": 60},
            b.pk: {"ranks": 2, "scores": 20, "points": 20, "cards": 44},
        },
        set_table=lambda order: [
            {key: [sets[e][key][number] for e in order] for key in ("cards", "aces", "points")} for number in (0, 1)
        ],
    )
    response = boss.get(change_url(competition))
    assert response.status_code == 200
    rows = table_rows(response.text, "standings")
    columns = ["Rank", "Entrant", "Played", "Won", "Drawn", "Lost", "Match points", "Set points", "Cards won"]
    assert rows[0] == [*columns, "μ", "σ", "Ordinal"]
    assert [row[:9] for row in rows[1:]] == [
        ["1", "Ann", "1", "1", "0", "0", "1", "52", "60"],
        ["2", "Ben", "1", "0", "0", "1", "0", "20", "44"],
        ["3", "Cy", "0", "0", "0", "0", "0", "0", "0"],
    ]
    standing = Standing.objects.get(entrant=a)
    assert rows[1][9:] == [f"{standing.mu:.2f}", f"{standing.sigma:.2f}", f"{standing.ordinal:.2f}"]
    # The set table of the played match, by seat: Ann's and Ben's cards, Aces and points in each set.
    match_rows = table_rows(response.text, "matches")
    names = match_rows[0][2:]
    assert sorted(names) == ["Ann", "Ben"]
    body = [row for row in match_rows[2:] if len(row) == 8]
    ann_first = names[0] == "Ann"
    # The match's one game is game 1 on the page (stored as game 0).
    expected = [
        ["1", "1", *(["30", "3", "26", "22", "1", "10"] if ann_first else ["22", "1", "10", "30", "3", "26"])],
        ["1", "2", *(["30", "2", "26", "22", "2", "10"] if ann_first else ["22", "2", "10", "30", "2", "26"])],
    ]
    assert body == expected


def test_the_competition_page_shows_banter_trick_points_shared_ranks_and_the_race_with_play_on_marked(
    boss: Client,
) -> None:
    competition = CompetitionFactory(game="banter", options=full_options("banter", 2))
    a, b, *_ = (EntrantFactory(competition=competition, name=n) for n in ("Ann", "Ben", "Cy", "Di"))
    started(competition)
    race = {a.pk: [20, 40, 46], b.pk: [18, 40, 43]}
    record(
        competition,
        a,
        b,
        {a.pk: {"ranks": 1, "scores": 46}, b.pk: {"ranks": 2, "scores": 43}},
        race=lambda order: [[race[e][n] for e in order] for n in range(3)],
        play_on_rounds=[3],
    )
    response = boss.get(change_url(competition))
    rows = table_rows(response.text, "standings")
    assert rows[0][6:8] == ["Match points", "Trick points"]
    # Cy and Di are level on every tiebreak: they share third place.
    assert [row[:2] + row[6:8] for row in rows[1:]] == [
        ["1", "Ann", "1", "46"],
        ["2", "Ben", "0", "43"],
        ["3=", "Cy", "0", "0"],
        ["3=", "Di", "0", "0"],
    ]
    race_rows = [row for row in table_rows(response.text, "matches") if row and row[0] == "1"]
    ann_first = seats_of(match_between(competition, a, b))[0] == a.pk

    def cells(ann: str, ben: str) -> list[str]:
        return [ann, ben] if ann_first else [ben, ann]

    assert race_rows == [
        ["1", "1", *cells("+20 → 20", "+18 → 18"), ""],
        ["1", "2", *cells("+20 → 40", "+22 → 40"), "Ann, Ben at 40 or more" if ann_first else "Ben, Ann at 40 or more"],
        [
            "1",
            "3",
            *cells("+6 → 46", "+3 → 43"),
            "play-on round; " + ("Ann, Ben" if ann_first else "Ben, Ann") + " at 40 or more",
        ],
    ]
    assert 'class="play-on"' in response.text


def test_names_on_the_competition_page_are_escaped(boss: Client) -> None:
    competition = CompetitionFactory()
    EntrantFactory(competition=competition, name="<script>alert(1)</script>")
    EntrantFactory(competition=competition)
    started(competition)
    competition_play_pending(competition=competition)
    page = boss.get(change_url(competition)).text
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_the_match_page_shows_its_race_from_match_breakdown(boss: Client) -> None:
    competition = played_competition("banter", entrants=2)
    match = competition.matches.get()
    response = boss.get(change_url(match))
    assert response.status_code == 200
    rows = [row for row in table_rows(response.text, "race") if row and row[0].isdigit()]
    assert len(rows) == sum(len(race.rows) for race in match_breakdown(match)) > 0


def test_the_match_sheets_agree_with_match_breakdown_in_a_fixed_number_of_queries(
    django_assert_num_queries: Any,
) -> None:
    for game in ("1923", "banter"):
        competition = played_competition(game, entrants=4)
        with django_assert_num_queries(4):
            sheets = competition_match_sheets(competition)
        assert len(sheets) == 6
        for sheet in sheets:
            breakdown = match_breakdown(sheet.match)
            assert [(g.game.pk, g.rows) for g in sheet.games] == [(g.game.pk, g.rows) for g in breakdown]
            assert all(g.rows for g in breakdown)


# --- Creating and editing through the services ---------------------------------------------------------


def create_data(club: Club, organiser: Player, **overrides: Any) -> dict[str, Any]:
    """A round robin's add form as a browser sends it (with the settings a stage takes); POST it to add_url."""
    data = {
        "club": club.pk,
        "name": "Spring league",
        "game": "war",
        "players_per_match": 2,
        "games_per_match": 1,
        "max_entrants": "",
        "options": "{}",
        "organiser": organiser.pk,
        "seed": "",
        "people_play": "live",
        "move_seconds": "5 minutes",
        "game_seconds": "1 hour",
        "live_tables_public": "on",
        "advance_count": 1,
        "cut_to": "",
        "cut_format": "",
        "entrants-TOTAL_FORMS": 0,
        "entrants-INITIAL_FORMS": 0,
    }
    return {**data, **overrides}


@pytest.mark.parametrize(
    ("options", "named"),
    [('{"max_rounds": 0}', "max_rounds"), ('{"colour": "red"}', "colour"), ("{not json", "Enter a valid JSON")],
)
def test_the_create_form_rejects_a_bad_option_with_a_message_naming_it(
    boss: Client, superuser: Player, options: str, named: str
) -> None:
    response = boss.post(add_url(), create_data(ClubFactory(), superuser, options=options))
    assert response.status_code == 200
    assert named in " ".join(response.context["adminform"].form.errors["options"])
    assert not Competition.objects.exists()


def test_the_create_form_names_a_table_size_the_game_cannot_seat(boss: Client, superuser: Player) -> None:
    response = boss.post(add_url(), create_data(ClubFactory(), superuser, game="banter", players_per_match=3))
    assert response.status_code == 200
    assert "banter seats 2 to 2" in " ".join(response.context["adminform"].form.errors["players_per_match"])


def test_creating_a_competition_goes_through_the_service(boss: Client, superuser: Player) -> None:
    club = ClubFactory()
    response = boss.post(
        add_url(),
        create_data(club, superuser, game="1923", options='{"target_points": 50}', seed="7", max_entrants="8"),
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    competition = Competition.objects.get()
    # The engine completed the ruleset; the creator is the first organiser.
    assert competition.options == full_options("1923", 2, {"target_points": 50})
    assert (competition.seed, competition.max_entrants, competition.created_by) == (7, 8, superuser)
    assert list(competition.organisers.all()) == [superuser]
    assert response["Location"] == change_url(competition)


def test_the_create_form_makes_a_swiss_stage_that_cuts_to_a_knockout(boss: Client, superuser: Player) -> None:
    overrides = {"round_count": "", "bye_points": "draw", "cut_to": "4", "cut_format": "double_elimination"}
    response = boss.post(add_url("swiss"), create_data(ClubFactory(), superuser, **overrides))
    assert response.status_code == 302, response.context["adminform"].form.errors
    competition = Competition.objects.get()
    assert competition.format == "swiss"
    settings = competition.settings
    assert (settings["cut_to"], settings["cut_format"], settings["bye_points"]) == (4, "double_elimination", "draw")


def test_the_create_form_refuses_a_knockout_that_cannot_work_and_says_why_on_the_field(
    boss: Client, superuser: Player
) -> None:
    data = create_data(ClubFactory(), superuser, game="punk", players_per_match=4, name="Cup")
    response = boss.post(add_url("single_elimination"), {**data, "advance_count": 3, "seeding": "entry"})
    assert response.status_code == 200
    assert not Competition.objects.exists()
    form = response.context["adminform"].form
    assert "must divide 4" in " ".join(form.errors["advance_count"]), form.errors
    # What was typed is still there, to correct rather than type again.
    assert (form["name"].value(), form["advance_count"].value(), form["players_per_match"].value()) == ("Cup", "3", "4")


def edit_data(competition: Competition, **overrides: Any) -> dict[str, Any]:
    """The change form as a browser sends it: every field it may still change, none of those it shows disabled."""
    form = CompetitionChangeForm(instance=competition)
    data: dict[str, Any] = {"name": competition.name}
    for name, field in form.fields.items():
        if field.disabled or name == "name":
            continue
        value = form[name].value()  # as the page shows it
        if isinstance(field, forms.BooleanField):
            if value:
                data[name] = "on"
        elif isinstance(field, forms.JSONField):
            data[name] = value  # the JSON as the page shows it
        else:
            data[name] = "" if value is None else value
    data["entrants-TOTAL_FORMS"] = data["entrants-INITIAL_FORMS"] = competition.entrants.count()
    for index, entrant in enumerate(competition.entrants.order_by("id")):
        data[f"entrants-{index}-id"] = entrant.pk
        data[f"entrants-{index}-competition"] = competition.pk
    return {**data, **overrides}


def test_editing_an_open_competition_validates_options_and_saves_through_competition_update(boss: Client) -> None:
    competition = CompetitionFactory()
    response = boss.post(change_url(competition), edit_data(competition, options='{"max_rounds": -5}'))
    assert response.status_code == 200
    assert "max_rounds" in " ".join(response.context["adminform"].form.errors["options"])
    response = boss.post(
        change_url(competition),
        edit_data(competition, name="Renamed", options='{"max_rounds": 500}', games_per_match=5),
    )
    assert response.status_code == 302
    competition.refresh_from_db()
    assert (competition.name, competition.options, competition.games_per_match) == (
        "Renamed",
        {"max_rounds": 500},
        5,
    )


def test_editing_an_open_knockout_s_settings_goes_through_the_service_and_its_refusal_is_on_the_field(
    boss: Client,
) -> None:
    competition = CompetitionFactory(format="single_elimination")
    response = boss.post(change_url(competition), edit_data(competition, third_place="on", seeding="rating"))
    assert response.status_code == 302
    competition.refresh_from_db()
    assert (setting(competition, "third_place"), setting(competition, "seeding")) == (True, "rating")
    name = competition.name
    refused = boss.post(change_url(competition), edit_data(competition, advance_count=2, name="Renamed"))
    assert refused.status_code == 200
    assert "At tables of 2" in " ".join(refused.context["adminform"].form.errors["advance_count"])
    competition.refresh_from_db()
    assert (competition.name, setting(competition, "advance_count")) == (name, 1)


def test_a_refusal_the_form_can_foresee_is_on_its_field_and_changes_nothing(boss: Client) -> None:
    competition = competition_with_bots(3, name="Before")
    response = boss.post(change_url(competition), edit_data(competition, name="After", max_entrants=2))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["max_entrants"] == ["3 entrants have already joined."]
    competition.refresh_from_db()
    assert (competition.name, competition.max_entrants) == ("Before", None)


def test_a_refusal_only_the_service_knows_is_an_error_message_and_changes_nothing(
    boss: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    competition = competition_with_bots(3, name="Before")
    # As if a third entrant joined between the form's check and the save: only competition_update sees it.
    monkeypatch.setattr(admin_forms, "settings_checked", lambda **kwargs: None)
    response = boss.post(change_url(competition), edit_data(competition, name="After", max_entrants=2), follow=True)
    assert response.redirect_chain == [(change_url(competition), 302)]
    assert messages_of(response) == ["max_entrants: 3 entrants have already joined"]
    competition.refresh_from_db()
    assert (competition.name, competition.max_entrants) == ("Before", None)


def test_after_the_start_the_name_changes_and_a_fixed_setting_is_refused_on_its_field(boss: Client) -> None:
    competition = played_competition("war", entrants=2)
    name = competition.name
    response = boss.post(change_url(competition), edit_data(competition, name="Renamed", games_per_match=9))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert errors["games_per_match"] == ["Can change only while entries are open; the competition is finished."]
    competition.refresh_from_db()
    assert (competition.name, competition.games_per_match) == (name, 1)
    response = boss.post(change_url(competition), edit_data(competition, name="Renamed"), follow=True)
    assert [m for m in messages_of(response) if "successfully" not in m] == []
    competition.refresh_from_db()
    assert (competition.name, competition.games_per_match) == ("Renamed", 1)


def test_an_entrant_can_be_withdrawn_from_the_page_before_the_start(boss: Client) -> None:
    competition = CompetitionFactory()
    keep, leave = EntrantFactory(competition=competition), EntrantFactory(competition=competition)
    data = edit_data(competition)
    data["entrants-1-DELETE"] = "on"
    assert boss.post(change_url(competition), data).status_code == 302
    assert list(competition.entrants.all()) == [keep]
    assert not Entrant.objects.filter(pk=leave.pk).exists()


# --- Adding entrants -------------------------------------------------------------------------------------


def add_entrants_url(competition: Competition) -> str:
    return reverse("admin:tournaments_competition_add_entrants", args=[competition.pk])


def test_adding_entrants_offers_only_ready_versions_of_the_game_and_joins_through_the_service(boss: Client) -> None:
    competition = CompetitionFactory(game="war", max_entrants=3)
    ready = [BotVersionFactory(bot=BotFactory(game="war")) for _ in range(2)]
    BotVersionFactory(bot=BotFactory(game="banter"))
    BotVersionFactory(bot=BotFactory(game="war"), status=BotVersion.Status.PENDING)
    member = MembershipFactory(club=competition.club).player
    response = boss.get(add_entrants_url(competition))
    assert response.status_code == 200
    form = response.context["form"]
    assert set(form.fields["bot_versions"].queryset) == set(ready)
    assert list(form.fields["players"].queryset) == [member]
    response = boss.post(add_entrants_url(competition), {"bot_versions": [v.pk for v in ready], "players": [member.pk]})
    assert response.status_code == 302
    assert {e.bot_version for e in competition.entrants.all()} == {*ready, None}
    assert competition.entrants.filter(player=member).exists()


def test_a_refused_join_is_a_form_error_and_enters_nobody(boss: Client) -> None:
    competition = CompetitionFactory(game="war", max_entrants=2)
    versions = [BotVersionFactory(bot=BotFactory(game="war")) for _ in range(3)]
    response = boss.post(add_entrants_url(competition), {"bot_versions": [v.pk for v in versions]})
    assert response.status_code == 200
    assert "the entrant list is full (2)" in " ".join(response.context["form"].non_field_errors())
    assert not competition.entrants.exists()
    response = boss.post(add_entrants_url(competition), {})
    assert "choose at least one" in " ".join(response.context["form"].non_field_errors())


def test_adding_entrants_to_a_started_competition_is_refused_with_a_message(boss: Client) -> None:
    competition = played_competition("war", entrants=2)
    response = boss.get(add_entrants_url(competition), follow=True)
    assert response.redirect_chain == [(change_url(competition), 302)]
    assert messages_of(response) == [f"Entries are closed: {competition.name} is finished."]


# --- Running: actions and buttons ------------------------------------------------------------------------


def act(client: Client, model: Any, action: str, *objs: Any) -> Any:
    data = {"action": action, "_selected_action": [o.pk for o in objs]}
    return client.post(changelist_url(model), data, follow=True)


def run(client: Client, competition: Competition, step: str, *, confirmed: bool = True) -> Any:
    url = reverse("admin:tournaments_competition_run", args=[competition.pk])
    return client.post(url, {"step": step, **({"confirmed": "yes"} if confirmed else {})}, follow=True)


def competition_with_bots(n: int = 3, **kwargs: Any) -> Competition:
    competition = CompetitionFactory(**kwargs)
    for _ in range(n):
        EntrantFactory(competition=competition)
    return competition


def test_the_start_and_play_actions_run_a_competition_to_its_end(
    boss: Client, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    competition = competition_with_bots(3)
    response = act(boss, Competition, "start_competitions", competition)
    assert response.redirect_chain == [(changelist_url(Competition), 302)]
    competition.refresh_from_db()
    assert competition.status == Competition.Status.RUNNING
    assert messages_of(response) == [f"Started {competition.name}: 3 matches scheduled."]
    # The tasks go to the workers once the request commits; eager mode plays them there and then.
    with django_capture_on_commit_callbacks(execute=True):
        response = act(boss, Competition, "play_pending_matches", competition)
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    assert messages_of(response) == [f"Sent 3 matches of {competition.name} to the workers."]
    assert Standing.objects.filter(competition=competition, played=2).count() == 3


def test_the_page_buttons_start_play_and_cancel(boss: Client) -> None:
    competition = competition_with_bots(4)
    page = boss.get(change_url(competition)).text
    assert 'value="start"' in page and 'value="play"' not in page and "Add entrants" in page
    run(boss, competition, "start")
    page = boss.get(change_url(competition)).text
    assert 'value="play"' in page and 'value="start"' not in page and "Add entrants" not in page
    assert 'value="retry"' not in page  # nothing is in error
    first = competition.matches.order_by("round__number", "id").first()
    assert first is not None
    from tournaments.services.play import match_play

    match_play(match_id=first.pk)
    # Cancelling asks first, and asking changes nothing.
    response = run(boss, competition, "cancel", confirmed=False)
    assert response.status_code == 200 and "cannot be undone" in response.text
    assert Competition.objects.get(pk=competition.pk).status == Competition.Status.RUNNING
    response = run(boss, competition, "cancel")
    assert response.redirect_chain == [(change_url(competition), 302)]
    competition.refresh_from_db()
    assert competition.status == Competition.Status.CANCELLED
    assert set(competition.matches.exclude(pk=first.pk).values_list("status", flat=True)) == {"cancelled"}


def test_a_refused_step_is_an_error_message_not_a_500(boss: Client) -> None:
    lonely = competition_with_bots(1)
    response = act(boss, Competition, "start_competitions", lonely)
    assert response.status_code == 200
    assert messages_of(response) == [f"{lonely.name}: entrants: a round robin of tables of 2 needs at least 2 entrants"]
    assert Competition.objects.get(pk=lonely.pk).status == Competition.Status.OPEN
    finished = played_competition("war", entrants=2)
    response = run(boss, finished, "cancel")
    assert messages_of(response) == [f"{finished.name}: competition: the competition is already finished"]
    response = act(boss, Competition, "retry_errored_matches", finished)
    assert messages_of(response) == [f"{finished.name}: matches: no match of {finished.name} is in error"]
    response = run(boss, finished, "play")
    assert messages_of(response) == [
        f"{finished.name}: competition: only a running competition can be played; this one is finished"
    ]


def test_matches_in_error_are_retried_and_then_played(
    boss: Client, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    competition = competition_with_bots(2)
    started(competition)
    match = competition.matches.get()
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ERROR, error="worker lost")
    response = act(boss, Match, "retry_matches", match)
    assert messages_of(response) == ["1 match pending again: play them from their competition's page."]
    match.refresh_from_db()
    assert (match.status, match.error) == (Match.Status.PENDING, "")
    response = act(boss, Match, "retry_matches", match)
    assert messages_of(response) == [f"{match}: status: only a match in error can be retried; this one is pending"]
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ERROR)
    run(boss, competition, "retry")
    with django_capture_on_commit_callbacks(execute=True):
        run(boss, competition, "play")
    match.refresh_from_db()
    assert match.status == Match.Status.DONE


def test_a_match_the_engine_cannot_play_is_reported_once_the_workers_tried(
    boss: Client, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    competition = competition_with_bots(1, game="1923", options=full_options("1923", 2))
    # A version whose strategy the engine does not know cannot be played: its match ends in error.
    broken = BotVersionFactory(bot=BotFactory(game="1923"), strategy="no-such-strategy")
    Entrant.objects.create(competition=competition, bot_version=broken, name="A person")
    started(competition)
    with django_capture_on_commit_callbacks(execute=True):
        response = run(boss, competition, "play")
    assert messages_of(response) == [f"Sent 1 match of {competition.name} to the workers."]
    response = run(boss, competition, "play")
    (message,) = messages_of(response)
    assert message.startswith(f"Sent 0 matches of {competition.name} to the workers; some are in error: unknown bot")


def test_recorded_results_are_read_only_for_everybody(boss: Client) -> None:
    competition = played_competition("1923", entrants=2)
    for obj in (Game.objects.first(), MatchSet.objects.first(), Standing.objects.first(), competition.matches.first()):
        response = boss.get(change_url(obj))
        assert response.context["has_change_permission"] is False
        assert response.context["has_delete_permission"] is False
        assert boss.post(change_url(obj), {}).status_code == 403
    for model in (Game, MatchSet, Standing, Match, Entrant, Round):
        assert boss.get(reverse(f"admin:tournaments_{model._meta.model_name}_add")).status_code == 403


# --- Organisers ------------------------------------------------------------------------------------------


def test_an_organiser_sees_and_runs_only_their_clubs_competitions(client: Client) -> None:
    home, away = ClubFactory(), ClubFactory()
    organiser = organiser_of(home)
    ours = competition_with_bots(2, club=home, name="Ours")
    theirs = competition_with_bots(2, club=away, name="Theirs")
    login(client, organiser.user)
    index = client.get(reverse("admin:index"))
    assert index.status_code == 200
    assert {m["object_name"] for app in index.context["app_list"] for m in app["models"]} == {
        *["Player", "Club", "Membership", "Invitation", "JoinRequest", "PersonalInvitation", "Bot", "BotVersion"],
        *["Competition", "Entrant", "Round", "Match", "Game", "MatchSet", "Standing"],
        *["Transcript", "Challenge"],
        *["ClubWebhook", "WebhookDelivery"],  # their own club's, read-only
    }
    response = client.get(changelist_url(Competition))
    assert response.status_code == 200
    assert [c.name for c in response.context["cl"].result_list] == ["Ours"]
    assert client.get(change_url(ours)).status_code == 200
    # Another club's competition is out of sight, and out of reach.
    assert client.get(change_url(theirs)).status_code == 302
    assert (
        client.post(reverse("admin:tournaments_competition_run", args=[theirs.pk]), {"step": "start"}).status_code
        == 404
    )
    assert client.get(add_entrants_url(theirs)).status_code == 404
    act(client, Competition, "start_competitions", ours, theirs)
    assert Competition.objects.get(pk=ours.pk).status == Competition.Status.RUNNING
    assert Competition.objects.get(pk=theirs.pk).status == Competition.Status.OPEN
    started(theirs)
    for model in (Match, Round, Standing, Entrant):
        listed = client.get(changelist_url(model)).context["cl"].result_list
        assert {obj.competition_id for obj in listed} == {ours.pk}


def test_an_organiser_creates_competitions_only_in_their_clubs_and_as_themselves(client: Client) -> None:
    home, away = ClubFactory(), ClubFactory()
    organiser = organiser_of(home)
    login(client, organiser.user)
    form = client.get(add_url()).context["adminform"].form
    assert list(form.fields["club"].queryset) == [home]
    assert list(form.fields["organiser"].queryset) == [organiser]
    response = client.post(add_url(), create_data(away, organiser))
    assert "club" in response.context["adminform"].form.errors
    response = client.post(add_url(), create_data(home, organiser))
    assert response.status_code == 302
    assert Competition.objects.get().created_by == organiser


def test_staff_who_organise_nothing_get_no_competition_pages(client: Client) -> None:
    club = ClubFactory()
    member = PlayerFactory(user=UserFactory(username="mel", is_staff=True))
    MembershipFactory(club=club, player=member, role=Membership.Role.MEMBER)
    competition = CompetitionFactory(club=club)
    login(client, member.user)
    assert client.get(changelist_url(Competition)).status_code == 403
    assert client.get(change_url(competition)).status_code == 403
    assert client.post(reverse("admin:tournaments_competition_run", args=[competition.pk])).status_code == 403
