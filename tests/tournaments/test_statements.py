"""The worker's plain SQL: prepared on PostgreSQL, Django's cursor elsewhere; Django's errors and query log."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.tournaments.helpers import two_bot_match
from tests.tournaments.test_game_rows import played
from tournaments.models import Game, Match, MatchParticipant
from tournaments.services.play import match_claim
from tournaments.services.results import match_record_result
from tournaments.services.statements import insert_rows, pipelined, sql_cursor, update_rows

pytestmark = pytest.mark.django_db

postgres_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's")


def prepared_statements() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return {row[0] for row in cursor.fetchall()}


@postgres_only
def test_statements_are_prepared_once_on_the_connection_and_reused() -> None:
    match = two_bot_match(3)
    sql = f"SELECT status FROM {Match._meta.db_table} WHERE id = %s"
    for _ in range(3):
        with sql_cursor() as cursor:
            cursor.execute(sql, [match.pk])
            assert cursor.fetchone() == ("pending",)
    prepared = [text for text in prepared_statements() if f"FROM {Match._meta.db_table} WHERE id = $1" in text]
    assert len(prepared) == 1


@postgres_only
def test_with_prepared_statements_off_nothing_is_prepared(settings: Any) -> None:
    settings.DB_PREPARED_STATEMENTS = False
    match = two_bot_match(3)
    before = prepared_statements()
    recorded = match_record_result(match=match, result=played("war", 2, games=3))
    assert recorded.status == Match.Status.DONE and Game.objects.filter(match=match).count() == 3
    assert prepared_statements() == before


def test_a_failed_statement_raises_django_s_error_and_rolls_back() -> None:
    match = two_bot_match(3)
    with pytest.raises(IntegrityError), transaction.atomic(), sql_cursor() as cursor:
        cursor.execute(f"UPDATE {Match._meta.db_table} SET error = %s WHERE id = %s", ["changed", match.pk])
        cursor.execute(f"UPDATE {Match._meta.db_table} SET round_id = NULL WHERE id = %s", [match.pk])
    match.refresh_from_db()
    assert match.error == ""


def test_an_error_in_a_pipeline_surfaces_at_the_next_read_and_rolls_back() -> None:
    match = two_bot_match(3)
    with pytest.raises(IntegrityError), transaction.atomic(), sql_cursor() as cursor, pipelined():
        cursor.execute(f"UPDATE {Match._meta.db_table} SET error = %s WHERE id = %s", ["changed", match.pk])
        cursor.execute(f"UPDATE {Match._meta.db_table} SET round_id = NULL WHERE id = %s", [match.pk])
        cursor.execute(f"SELECT error FROM {Match._meta.db_table} WHERE id = %s", [match.pk])
        cursor.fetchone()
    match.refresh_from_db()
    assert match.error == ""


def test_statements_are_counted_in_django_s_query_log() -> None:
    match = two_bot_match(3)
    with CaptureQueriesContext(connection) as captured, sql_cursor() as cursor:
        cursor.execute(f"SELECT status FROM {Match._meta.db_table} WHERE id = %s", [match.pk])
        cursor.executemany(f"UPDATE {Match._meta.db_table} SET error = %s WHERE id = %s", [["a", match.pk]] * 3)
    assert len(captured) == 2
    assert captured[1]["sql"].startswith("3 times: UPDATE")


def test_deleting_a_match_deletes_its_games_without_a_database_constraint() -> None:
    match = two_bot_match(4)
    match_record_result(match=match, result=played("war", 2, games=4))
    assert Game.objects.filter(match_id=match.pk).count() == 4
    match.delete()
    assert not Game.objects.filter(match_id=match.pk).exists()


def test_a_claim_loads_the_match_and_competition_as_the_orm_would_once_only() -> None:
    match = two_bot_match(3)
    claimed = match_claim(match_id=match.pk)
    assert claimed is not None
    loaded = Match.objects.select_related("competition").get(pk=match.pk)
    for field in Match._meta.concrete_fields:
        assert getattr(claimed, field.attname) == getattr(loaded, field.attname), field.name
    for field in type(loaded.competition)._meta.concrete_fields:
        assert getattr(claimed.competition, field.attname) == getattr(loaded.competition, field.attname), field.name
    assert (claimed.status, claimed.attempts) == (Match.Status.RUNNING, 1)
    assert isinstance(claimed.competition.options, dict) and claimed.competition.options
    assert not claimed._state.adding
    assert match_claim(match_id=match.pk) is None


def test_rows_inserted_in_one_statement_take_their_defaults_and_come_back_in_order() -> None:
    match = two_bot_match(1)
    numbers = [7, 3, 9]
    with CaptureQueriesContext(connection) as statements:
        ids = insert_rows(
            Match,
            {
                "competition_id": [match.competition_id] * 3,
                "round_id": [match.round_id] * 3,
                "number": numbers,
                "seed": [1, 2, 3],
            },
            return_ids=True,
        )
    assert len(statements.captured_queries) == 1
    rows = {row.pk: row for row in Match.objects.filter(pk__in=ids)}
    assert [rows[pk].number for pk in ids] == numbers
    made = rows[ids[0]]
    assert (made.status, made.error, made.attempts, made.rated, made.commitments) == ("pending", "", 0, False, [])
    assert made.created_at is not None and made.queued_at is None
    with pytest.raises(ValueError):
        insert_rows(Match, {"number": [1, 2], "seed": [1]})
    # A value for every row.
    when = timezone.now() - timedelta(days=1)
    fixed = insert_rows(
        Match,
        {"competition_id": [match.competition_id] * 2, "round_id": [match.round_id] * 2, "number": [11, 12]},
        fixed={"queued_at": when, "seed": 5},
        return_ids=True,
    )
    assert set(Match.objects.filter(pk__in=fixed).values_list("queued_at", "seed")) == {(when, 5)}


def test_rows_updated_in_one_statement_are_set_added_to_and_stamped() -> None:
    match = two_bot_match(1)
    first, second = match.participants.order_by("seat")
    with sql_cursor() as cursor:
        update_rows(cursor, MatchParticipant, key="id", columns=("rank", "match_units"), rows=[(2, 5, first.pk)])
        update_rows(
            cursor,
            MatchParticipant,
            key="id",
            columns=("rank", "match_units"),
            added=("match_units",),
            rows=[(1, 3, first.pk), (2, 4, second.pk)],
        )
    first.refresh_from_db()
    second.refresh_from_db()
    # match_units starts null: null plus anything stays null, as in SQL.
    assert (first.rank, first.match_units, second.rank, second.match_units) == (1, 8, 2, None)
