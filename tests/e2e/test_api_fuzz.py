"""The API fuzz gate: Schemathesis against the project's own OpenAPI schema, on a real server process.

Every operation, every check Schemathesis has (``--checks all``, and the project's
refused_for_a_stated_reason), twice: without credentials, and with the token of the demo club's
organiser, who also plays at its live table and wrote its transcript, so the authenticated paths
are reached. The implementation is shared with `make fuzz` (tournaments/fuzz.py), which runs 1,000
examples per operation; here it is FUZZ_EXAMPLES, 50 by default (CI included). FUZZ_SEED replays a run.

What the server does not do here, on purpose: it sends the tasks it would give the workers (a bot
version's validation, a match to play, a transcript to verify) to a broker folder of its own that no
worker reads, deleted afterwards. So nothing uploaded runs in the sandbox and no match is played
while the fuzzer runs; a version stays unvalidated and a match pending, which the API shows as any
other. Request rates are off for the server, so the fuzzer is never throttled (each throttled
operation still documents its 429).
"""

from __future__ import annotations

import os

import pytest
from django.db import connection

from tournaments.fuzz import database_url, examples_from_env, fuzz, seed_club


def test_every_operation_passes_every_check_anonymous_and_as_a_member(transactional_db: None) -> None:
    if connection.vendor != "postgresql":
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run the API fuzz gate on PostgreSQL: the server is another process")
        pytest.skip("needs PostgreSQL (DATABASE_URL): the server is another process on the test database")
    cast = seed_club()
    lines: list[str] = []
    results = fuzz(database_url=database_url(), cast=cast, examples=examples_from_env(), say=lines.append)
    print("\n".join(lines))
    assert [result.mode for result in results] == ["anonymous", "member"]
    assert all(result.passed for result in results), "\n".join(lines)
