"""Migration 0008: every player's names claimed, and collisions found in old data settled rather than fatal.

Run for real: the database is taken back to 0007, players are written as older versions allowed (names
that differ only in case, display names copying another's), and the migration is applied.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from league.names import name_key

#: A username longer than a display name may be (150 characters against 80), for a display name showing nothing.
LONG = "v" * 100

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("league", "0007_club_joining")]
AFTER = [("league", "0008_name_claims")]


def migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def latest() -> list[tuple[str, str]]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def old_players(apps: Any) -> dict[str, int]:
    """Players as the old rules let them be; their ids by username."""
    user_model = apps.get_model("auth", "User")
    player_model = apps.get_model("league", "Player")
    people = [
        ("Sam", "Sam"),
        ("sam", "sam"),  # an account that differs from the one before only in case
        ("bob", "Alice"),  # shows another's username: alice's, below
        ("alice", "Alice"),
        ("erin", "The Dealer"),
        ("frank", "the  dealer"),  # a copy of erin's display name
        ("gina", "\u200b"),  # shows nothing
        ("hal", "HAL"),  # one's own username, in another case
        (LONG, "\u200b"),  # shows nothing, and the username is too long to be shown instead
    ]
    ids = {}
    for username, display_name in people:
        user = user_model.objects.create(username=username)
        ids[username] = player_model.objects.create(user=user, display_name=display_name).pk
    return ids


def test_old_names_are_claimed_and_collisions_settled_by_who_had_the_name_first(
    caplog: pytest.LogCaptureFixture,
) -> None:
    try:
        ids = old_players(migrate(BEFORE))
        with caplog.at_level(logging.WARNING, logger="league.migrations"):
            apps = migrate(AFTER)
        player_model = apps.get_model("league", "Player")
        claim_model = apps.get_model("league", "NameClaim")
        shown = dict(player_model.objects.values_list("user__username", "display_name"))
        assert shown == {
            "Sam": "Sam",
            "sam": "sam (2)",
            "bob": "Alice (2)",
            "alice": "Alice",
            "erin": "The Dealer",
            "frank": "the  dealer (2)",
            "gina": "gina",
            "hal": "HAL",
            LONG: "v" * 80,
        }
        claims = {(c.player_id, c.kind): c.key for c in claim_model.objects.all()}
        assert claims == {
            (ids["Sam"], "username"): name_key("Sam"),
            (ids["sam"], "display_name"): name_key("sam (2)"),  # no username claim: Sam holds it
            (ids["bob"], "username"): name_key("bob"),
            (ids["bob"], "display_name"): name_key("Alice (2)"),
            (ids["alice"], "username"): name_key("alice"),
            (ids["erin"], "username"): name_key("erin"),
            (ids["erin"], "display_name"): name_key("The Dealer"),
            (ids["frank"], "username"): name_key("frank"),
            (ids["frank"], "display_name"): name_key("the dealer (2)"),
            (ids["gina"], "username"): name_key("gina"),
            (ids["hal"], "username"): name_key("hal"),
            (ids[LONG], "username"): name_key(LONG),
            (ids[LONG], "display_name"): name_key("v" * 80),
        }
        reported = caplog.text
        assert "username 'sam' folds like player" in reported
        assert "left out of auth_user_username_lower_unique" in reported
        assert "'Alice' is taken or shows nothing; now 'Alice (2)'" in reported
        # The old pair stays as it was; no new one can be made.
        user_model = apps.get_model("auth", "User")
        with pytest.raises(IntegrityError), transaction.atomic():
            user_model.objects.create(username="SAM")
        with pytest.raises(IntegrityError), transaction.atomic():
            user_model.objects.create(username="ALICE")
        assert user_model.objects.filter(username__iexact="sam").count() == 2
        # And back: the claims and the index go; the names stay as the upgrade left them.
        apps = migrate(BEFORE)
        apps.get_model("auth", "User").objects.create(username="SAM")
    finally:
        migrate(latest())
