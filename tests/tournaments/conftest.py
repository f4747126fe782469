"""Fixtures shared by the competition tests."""

from __future__ import annotations

from typing import cast

import pytest

from config import background
from tournaments.services import scheduling


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The matches whose task would have gone to the broker, in order, instead of running them."""
    match_ids: list[int] = []

    def send_now(task_name: str, args: tuple[object, ...], *, queue: str) -> None:
        assert task_name == scheduling.RUN_MATCHES
        match_ids.extend(cast(list[int], args[0]))

    monkeypatch.setattr(background, "send_now", send_now)
    return match_ids
