"""Exports (docs/exports.md): standings as CSV, every game as JSON lines, and a whole competition as a document
another instance imports."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from league.models import Membership, Player
from league.notifications.models import Notification
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    ClubFactory,
    CompetitionFactory,
    EntrantFactory,
    MembershipFactory,
    PlayerFactory,
    full_options,
)
from tests.league.test_api_support import client_for, results
from tests.tournaments.helpers import started
from tournaments import game_exports
from tournaments.models import Competition, Game, Match
from tournaments.services.play import competition_play_pending

pytestmark = pytest.mark.django_db

#: Each game with a table size its bots play at (Punk's needs three).
GAMES = [("war", 2), ("1923", 2), ("banter", 2), ("punk", 3)]


def played(game: str, players: int, entrants: int = 4, **fields: Any) -> Competition:
    """A round robin of built-in bots, every match played in this process."""
    competition = CompetitionFactory(
        game=game, players_per_match=players, options=full_options(game, players), **fields
    )
    for _ in range(entrants):
        EntrantFactory(competition=competition)
    started(competition)
    competition_play_pending(competition=competition)
    competition.refresh_from_db()
    return competition


def json_rows(competition: Competition) -> list[dict[str, Any]]:
    return results(client_for().get(f"/api/tournaments/{competition.pk}/standings/"))


def csv_rows(competition: Competition, **query: str) -> tuple[list[str], list[dict[str, str]]]:
    headers = {} if query else {"HTTP_ACCEPT": "text/csv"}
    response = client_for().get(f"/api/tournaments/{competition.pk}/standings/", query, **headers)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    reader = csv.DictReader(io.StringIO(response.content.decode("utf-8"), newline=""))
    return list(reader.fieldnames or []), list(reader)


def cell(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else json.dumps(value)


# --- Standings as CSV ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_the_csv_standings_equal_the_json_standings_row_for_row(game: str, players: int) -> None:
    competition = played(game, players)
    expected = json_rows(competition)
    fields, rows = csv_rows(competition)
    tiebreaks = [t["field"] for t in expected[0]["tiebreaks"] if t["field"] != "match_points"]
    assert tiebreaks, "every game has tiebreaks of its own"
    assert fields[:5] == ["rank", "entrant_id", "entrant_name", "bot_version", "player"]
    assert fields[5:11] == ["played", "won", "drawn", "lost", "match_points", "match_points_exact"]
    assert fields[11 : 11 + len(tiebreaks)] == tiebreaks
    assert len(rows) == len(expected) == 4
    for line, row in zip(rows, expected, strict=True):
        assert line["rank"] == str(row["rank"])
        assert (line["entrant_id"], line["entrant_name"]) == (str(row["entrant"]["id"]), row["entrant"]["name"])
        assert line["bot_version"] == cell(row["entrant"]["bot_version"]) and line["player"] == ""
        for key in ("played", "won", "drawn", "lost", "match_points", "match_points_exact", "mu", "sigma", "ordinal"):
            assert line[key] == cell(row[key]), key
        assert line["score_rate"] == cell(row["score_rate"])
        assert [line["score_interval_low"], line["score_interval_high"]] == [cell(v) for v in row["score_interval"]]
        assert {f: line[f] for f in tiebreaks} == {t["field"]: t["value"] for t in row["tiebreaks"][1:]}
        assert float(line["mu"]) == row["mu"]


def test_format_csv_gives_the_same_file_to_download_with_a_filename() -> None:
    competition = played("war", 2)
    Competition.objects.filter(pk=competition.pk).update(name="Spring League: Café")
    url = f"/api/tournaments/{competition.pk}/standings/"
    by_accept = client_for().get(url, HTTP_ACCEPT="text/csv")
    by_query = client_for().get(url, {"format": "csv"})
    assert by_accept.content == by_query.content
    assert (
        by_query["Content-Disposition"] == f'attachment; filename="spring-league-cafe-{competition.pk}-standings.csv"'
    )
    # The JSON is unchanged by the CSV (and still paginated).
    assert set(client_for().get(url).json()) == {"count", "next", "previous", "results"}


def test_names_outside_ascii_and_with_commas_survive_the_csv() -> None:
    competition = CompetitionFactory(game="war")
    for name in ('Zoë, "the ace"', "Łukasz"):
        EntrantFactory(competition=competition, name=name)
    started(competition)
    _, rows = csv_rows(competition)
    assert sorted(row["entrant_name"] for row in rows) == sorted(['Zoë, "the ace"', "Łukasz"])


def test_an_unknown_competition_is_a_json_404_even_for_csv() -> None:
    response = client_for().get("/api/tournaments/999999/standings/", HTTP_ACCEPT="text/csv")
    assert response.status_code == 404
    assert response.json() == {"detail": "No Competition matches the given query."}


@pytest.mark.parametrize("entrants", [4, 12])
def test_the_csv_costs_two_queries_however_long_the_table(entrants: int, django_assert_num_queries: Any) -> None:
    competition = CompetitionFactory(game="war")
    for _ in range(entrants):
        EntrantFactory(competition=competition)
    started(competition)
    with django_assert_num_queries(2):  # the competition + the rows with their entrants
        _, rows = csv_rows(competition)
    assert len(rows) == entrants


def test_the_competition_page_links_the_csv_download() -> None:
    competition = played("war", 2)
    page = client_for().get(f"/competitions/{competition.pk}/").content.decode()
    assert f'href="/api/tournaments/{competition.pk}/standings/?format=csv" download' in page
    assert "Download the standings (CSV)" in page


# --- Games as JSON lines -------------------------------------------------------------------------------------


def lines_of(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.content
    body = b"".join(response.streaming_content).decode("utf-8")
    assert body.endswith("\n")
    return [json.loads(line) for line in body.splitlines()]


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_every_game_is_one_line_equal_to_its_public_record(game: str, players: int) -> None:
    competition = played(game, players, games_per_match=2)
    response = client_for().get(f"/api/tournaments/{competition.pk}/games.jsonl")
    assert response["Content-Type"] == "application/x-ndjson"
    assert response["Content-Disposition"].endswith(f'-{competition.pk}-games.jsonl"')
    lines = lines_of(response)
    games = list(Game.objects.filter(match__competition=competition).order_by("match_id", "number"))
    assert [line["game"] for line in lines] == [g.pk for g in games]
    assert len(lines) == 2 * competition.matches.count()
    for line, game_row in zip(lines, games, strict=True):
        served = client_for().get(f"/api/games/{game_row.pk}/record/").json()
        assert line["visibility"] == "public" and line["record"] == served["record"]
        assert not {"seed", "deal", "salt"} & set(line["record"])
        assert (line["match"], line["number"], line["seating"]) == (
            game_row.match_id,
            game_row.number,
            game_row.seating,
        )


def games_query_count(competition: Competition, django_assert_num_queries: Any, count: int) -> None:
    with django_assert_num_queries(count):
        lines = lines_of(client_for().get(f"/api/tournaments/{competition.pk}/games.jsonl"))
    # Every game once, in match order, however the chunks cut the matches.
    games = Game.objects.filter(match__competition=competition).order_by("match_id", "number")
    assert [line["game"] for line in lines] == list(games.values_list("id", flat=True))


@pytest.mark.parametrize("entrants", [3, 6])
def test_the_games_cost_a_fixed_number_of_queries_a_chunk(
    entrants: int, django_assert_num_queries: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    competition = played("war", 2, entrants=entrants, games_per_match=3)
    games = Game.objects.filter(match__competition=competition).count()
    assert games == 3 * entrants * (entrants - 1) // 2
    # Not cached yet: the competition, then per chunk its games and their records (one query each).
    games_query_count(competition, django_assert_num_queries, 3)
    # Cached now: the records are not read again.
    games_query_count(competition, django_assert_num_queries, 2)
    # Chunks of four games: a query a chunk, whatever the competition's size.
    monkeypatch.setattr(game_exports, "CHUNK", 4)
    chunks = -(-games // 4) + (games % 4 == 0)
    games_query_count(competition, django_assert_num_queries, 1 + chunks)


# --- Hidden information --------------------------------------------------------------------------------------


def organiser_in(competition: Competition) -> Player:
    organiser = PlayerFactory()
    MembershipFactory(club=competition.club, player=organiser, role=Membership.Role.ORGANISER)
    return organiser


def test_an_unfinished_match_s_seed_never_appears_and_private_records_wait_for_the_end() -> None:
    from tests.tournaments.test_seed_secrecy import finish_live_match, mixed_competition, seats_people, seeds_shown

    competition = mixed_competition()
    organiser = organiser_in(competition)
    people = [m for m in competition.matches.all() if seats_people(m)]
    done_game, salt = finish_live_match(people[0])
    # A game whose match is not over (as a match reset to play again leaves it): nothing of it is exported.
    hidden_game, hidden_salt = finish_live_match(people[1])
    Match.objects.filter(pk=people[1].pk).update(status=Match.Status.LIVE)
    secrets = [competition.seed, hidden_game.seed, *(m.seed for m in competition.matches.exclude(pk=people[0].pk))]
    url = f"/api/tournaments/{competition.pk}/games.jsonl"
    for who in (
        organiser.user,
        people[1].participants.filter(entrant__player__isnull=False)[0].entrant.player.user,
        None,
    ):
        client = client_for(who)
        lines = lines_of(client.get(url))
        text = json.dumps(lines)
        assert [line["game"] for line in lines] == [done_game.pk]
        assert seeds_shown(text, *secrets) == [] and hidden_salt not in text
        # The done live match's proof of a fair deal, as its record endpoint shows anyone.
        assert (lines[0]["seed"], lines[0]["salt"]) == (done_game.seed, salt)
        refused = client.get(url, {"view": "private"})
        assert refused.status_code == 403
        assert refused.json() == {"detail": "the private records are shown once the competition is finished"}

    Competition.objects.filter(pk=competition.pk).update(status=Competition.Status.FINISHED)
    private = lines_of(client_for(organiser.user).get(url, {"view": "private"}))
    assert [(line["visibility"], line["record"]["seed"]) for line in private] == [("private", done_game.seed)]
    assert client_for(PlayerFactory().user).get(url, {"view": "private"}).status_code == 403
    assert client_for().get(url, {"view": "private"}).status_code == 401
    assert client_for().get(url, {"view": "secret"}).status_code == 400
    unknown = client_for().get(url, {"format": "xml"})
    assert (unknown.status_code, unknown["Content-Type"]) == (404, "application/json")


# --- A whole competition, exported and imported ------------------------------------------------------------


def exported(competition: Competition, organiser: Player) -> dict[str, Any]:
    response = client_for(organiser.user).get(f"/api/tournaments/{competition.pk}/export/")
    assert response.status_code == 200
    assert response["Content-Disposition"].endswith(f'-{competition.pk}-competition.json"')
    return json.loads(b"".join(response.streaming_content))


def comparable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The standings rows without the ids that differ between two databases."""
    shown = []
    for row in rows:
        entrant = {k: v for k, v in row["entrant"].items() if k not in ("id", "bot_version", "player")}
        shown.append({**row, "entrant": entrant})
    return shown


def played_matches(competition: Competition) -> list[Any]:
    """Each match as the rounds list shows it, without ids (its seats' ranks, scores and points), and when it ended."""
    rounds = results(client_for().get(f"/api/tournaments/{competition.pk}/rounds/"))
    seats = [
        [(p["seat"], p["rank"], p["score"], p["match_points_exact"]) for p in match["participants"]]
        for round_ in rounds
        for match in round_["matches"]
    ]
    ended = list(competition.matches.order_by("round__number", "id").values_list("finished_at", flat=True))
    return list(zip(seats, ended, strict=True))


def import_file(document: Any, club: str, tmp_path: Any) -> str:
    path = tmp_path / "competition.json"
    path.write_text(json.dumps(document) if not isinstance(document, str) else document, encoding="utf-8")
    out = io.StringIO()
    call_command("import_competition", str(path), "--club", club, stdout=out)
    return out.getvalue()


def test_only_organisers_export_a_competition_and_a_running_one_keeps_its_secrets() -> None:
    from tests.tournaments.test_seed_secrecy import seeds_shown

    competition = CompetitionFactory(game="war", seed=987_654_321_987)
    for _ in range(3):
        EntrantFactory(competition=competition)
    started(competition)
    first = competition.matches.order_by("id").first()
    assert first is not None
    from tournaments.services.play import match_play

    match_play(match_id=first.pk)
    organiser = organiser_in(competition)
    url = f"/api/tournaments/{competition.pk}/export/"
    assert client_for().get(url).status_code == 401
    assert client_for(PlayerFactory().user).get(url).status_code == 403
    document = exported(competition, organiser)
    assert document["competition"]["seed"] is None and document["competition"]["status"] == "running"
    matches = [m for r in document["rounds"] for m in r["matches"]]
    unfinished = [m for m in competition.matches.exclude(pk=first.pk)]
    assert seeds_shown(json.dumps(document), competition.seed, *(m.seed for m in unfinished)) == []
    assert [m["seed"] for m in matches if m["key"] == first.pk] == [first.seed]
    assert {g["match"] for g in document["games"]} == {first.pk}


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_an_exported_competition_imports_into_another_club_with_equal_standings(
    game: str, players: int, tmp_path: Any
) -> None:
    competition = played(game, players, games_per_match=2)
    assert competition.status == Competition.Status.FINISHED
    document = exported(competition, organiser_in(competition))
    club = ClubFactory(slug="elsewhere")
    said = import_file(document, "elsewhere", tmp_path)
    copy = Competition.objects.exclude(pk=competition.pk).get(club=club)
    assert f"imported competition {copy.pk}" in said
    assert copy.status == Competition.Status.FINISHED and copy.seed == competition.seed
    assert comparable(json_rows(copy)) == comparable(json_rows(competition))
    assert (
        Game.objects.filter(match__competition=copy).count()
        == Game.objects.filter(match__competition=competition).count()
    )
    assert played_matches(copy) == played_matches(competition)
    # The same people and bots here: matched, not made again.
    assert sorted(copy.entrants.values_list("bot_version__bot_id", flat=True)) == sorted(
        competition.entrants.values_list("bot_version__bot_id", flat=True)
    )


def test_a_swiss_with_byes_and_people_imports_with_equal_standings(tmp_path: Any) -> None:
    competition = CompetitionFactory(game="war", format="swiss", settings={"rounds": 3}, options=full_options("war", 2))
    for _ in range(5):
        EntrantFactory(competition=competition)
    started(competition)
    while competition_play_pending(competition=competition):
        pass
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    assert any(s.bye_units for s in competition.standings.all())
    document = exported(competition, organiser_in(competition))
    ClubFactory(slug="swiss-club")
    import_file(document, "swiss-club", tmp_path)
    copy = Competition.objects.get(club__slug="swiss-club")
    assert comparable(json_rows(copy)) == comparable(json_rows(competition))


@pytest.mark.parametrize(("format", "settings"), [("single_elimination", {}), ("double_elimination", {})])
def test_a_knockout_imports_with_its_bracket_and_places(format: str, settings: dict[str, Any], tmp_path: Any) -> None:
    competition = CompetitionFactory(game="banter", format=format, settings=settings)
    for _ in range(6):
        EntrantFactory(competition=competition)
    started(competition)
    while competition_play_pending(competition=competition):
        pass
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    document = exported(competition, organiser_in(competition))
    ClubFactory(slug="cup-club")
    import_file(document, "cup-club", tmp_path)
    copy = Competition.objects.get(club__slug="cup-club")
    assert comparable(json_rows(copy)) == comparable(json_rows(competition))
    bracket = client_for().get(f"/api/tournaments/{copy.pk}/bracket/")
    assert bracket.status_code == 200


def bot_versions_of(competition: Competition) -> list[tuple[str, str, int, str, str]]:
    return list(
        competition.entrants.filter(bot_version__isnull=False).values_list(
            "bot_version__bot__owner__user__username",
            "bot_version__bot__name",
            "bot_version__number",
            "bot_version__kind",
            "bot_version__strategy",
        )
    )


@pytest.mark.django_db(transaction=True)
def test_an_exported_competition_imports_into_a_fresh_database_with_equal_standings(tmp_path: Any) -> None:
    competition = played("1923", 2, entrants=4)
    person = PlayerFactory(display_name="Hana")
    MembershipFactory(club=competition.club, player=person)
    uploaded = BotVersionFactory(
        bot=BotFactory(game="1923"), kind="upload", strategy="", sha256="ab" * 32, entry="bot.py", filename="bot.py"
    )
    # The entrants as they stood (a person and an uploaded bot among them), the results as played.
    first, second = competition.entrants.order_by("id")[:2]
    first.player, first.bot_version, first.name = person, None, "Hana"
    first.save()
    second.bot_version, second.name = uploaded, "Uploaded v1"
    second.save()
    document = exported(competition, organiser_in(competition))
    before = comparable(json_rows(competition))
    bots = sorted(bot_versions_of(competition))
    call_command("flush", interactive=False, verbosity=0)
    assert not Competition.objects.exists() and not Player.objects.exists()
    ClubFactory(slug="fresh")
    import_file(document, "fresh", tmp_path)
    copy = Competition.objects.get()
    assert comparable(json_rows(copy)) == before
    # Every bot by its owner, name, version number, kind and strategy, as it was.
    assert sorted(bot_versions_of(copy)) == bots
    hana = copy.entrants.get(name="Hana")
    assert hana.player is not None and hana.player.user.username == person.user.username
    assert not Notification.objects.exists()  # old results are history: nobody is told of them as news
    assert not hana.player.user.has_usable_password()
    imported_upload = copy.entrants.get(name="Uploaded v1").bot_version
    assert imported_upload is not None
    assert (imported_upload.kind, imported_upload.status, imported_upload.source) == ("upload", "failed", b"")


def upload(document: Any, club_id: int, player: Player | None) -> Any:
    text = document if isinstance(document, str) else json.dumps(document)
    file = SimpleUploadedFile("competition.json", text.encode(), content_type="application/json")
    return client_for(player.user if player else None).post(
        "/api/tournaments/import/", {"club": club_id, "file": file}, format="multipart"
    )


def test_a_club_organiser_imports_a_competition_through_the_api() -> None:
    competition = played("banter", 2, entrants=3)
    document = exported(competition, organiser_in(competition))
    club = ClubFactory()
    organiser = PlayerFactory()
    MembershipFactory(club=club, player=organiser, role=Membership.Role.ORGANISER)
    member = MembershipFactory(club=club).player
    assert upload(document, club.pk, None).status_code == 401
    refused = upload(document, club.pk, member)
    assert refused.status_code == 403
    assert refused.json() == {"detail": "only the club's organisers import competitions into it"}
    assert upload({**document, "version": 9}, club.pk, organiser).json() == {
        "file": ["the export is of version 9, newer than this instance reads (1): update this instance"]
    }
    assert upload("{not json", club.pk, organiser).json() == {"file": ["not a JSON file: not a competition export"]}
    assert set(upload(document, 999_999, organiser).json()) == {"club"}
    created = upload(document, club.pk, organiser)
    assert created.status_code == 201, created.content
    copy = Competition.objects.get(pk=created.json()["id"])
    assert copy.club == club and created.json()["status"] == "finished"
    assert comparable(json_rows(copy)) == comparable(json_rows(competition))


# --- Bad files ------------------------------------------------------------------------------------------------


@pytest.fixture
def good_document() -> dict[str, Any]:
    competition = played("war", 2, entrants=3)
    return exported(competition, organiser_in(competition))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: "not json at all {", "is not JSON (line 1, column 1): not a competition export"),
        (lambda d: [1, 2], 'this is not a competition export (it has no "format": "cardclub-competition")'),
        (lambda d: {**d, "format": "something-else"}, "this is not a competition export"),
        (lambda d: {**d, "version": 2}, "the export is of version 2, newer than this instance reads (1)"),
        (lambda d: {**d, "version": "one"}, 'the export has no "version" number'),
        (lambda d: {**d, "entrants": [{"name": "x"}]}, "entrants[0]: 'key' is missing"),
        (lambda d: {**d, "competition": {**d["competition"], "game": "chess"}}, "unknown game 'chess'"),
        (lambda d: {**d, "competition": {**d["competition"], "format": "melee"}}, "no competition format 'melee'"),
        (lambda d: {**d, "games": [{**d["games"][0], "match": 123456789}]}, "is not among the rounds' matches"),
        (lambda d: {**d, "games": [{**d["games"][0], "record": {"x": 1}}]}, "the export cannot be imported: format"),
        (lambda d: {**d, "rounds": [d["rounds"][0], d["rounds"][0]]}, "the export does not fit together"),
        (lambda d: {**d, "competition": {**d["competition"], "started_at": "soon"}}, "the export is malformed"),
    ],
)
def test_a_bad_file_is_refused_with_a_clear_message_and_nothing_written(
    good_document: dict[str, Any], change: Any, message: str, tmp_path: Any
) -> None:
    ClubFactory(slug="target")
    before = Competition.objects.count()
    with pytest.raises(CommandError) as refused:
        import_file(change(good_document), "target", tmp_path)
    assert message in str(refused.value)
    assert "Traceback" not in str(refused.value)
    assert Competition.objects.count() == before


def test_a_club_that_does_not_exist_or_a_missing_file_is_refused(good_document: dict[str, Any], tmp_path: Any) -> None:
    with pytest.raises(CommandError, match="there is no club with the slug 'nowhere'"):
        import_file(good_document, "nowhere", tmp_path)
    ClubFactory(slug="here")
    with pytest.raises(CommandError, match=r"cannot read /nonexistent/file\.json"):
        call_command("import_competition", "/nonexistent/file.json", "--club", "here")


def test_a_running_challenge_ladder_imports_with_its_places(
    django_capture_on_commit_callbacks: Any, tmp_path: Any
) -> None:
    from tests.tournaments.test_challenges import Ladder

    ladder = Ladder()
    bots = [ladder.bot(name) for name in "abcde"]
    ladder.start(order=bots)
    for challenger, defender in ((4, 2), (3, 1), (2, 0)):
        order = ladder.places()
        low = next(b for b in bots if b.name == order[challenger])
        high = next(b for b in bots if b.name == order[defender])
        with django_capture_on_commit_callbacks(execute=True):
            assert ladder.challenge(ladder.organiser, low, high).status_code == 201
    competition = ladder.competition
    assert competition.status == Competition.Status.RUNNING
    document = exported(competition, ladder.organiser)
    ClubFactory(slug="ladder-club")
    import_file(document, "ladder-club", tmp_path)
    copy = Competition.objects.get(club__slug="ladder-club")
    # A running competition imports as a record of what was played: cancelled, nothing left to play.
    assert copy.status == Competition.Status.CANCELLED
    assert comparable(json_rows(copy)) == comparable(json_rows(competition))
    assert [row["entrant"]["name"] for row in json_rows(copy)] == ladder.places()
