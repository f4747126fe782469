"""What a competition format is: the ``Format`` protocol every format module satisfies, and the defaults
most formats share (``FormatBase``).

The service asks the competition's format (tournaments/formats/registry.py) and never branches on which
one it is: how the first rounds are made and the next ones after, what recording a match sets off, how
the table is ordered, what the competition page shows, and which settings it takes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from django.http import HttpRequest

from league.standings import Tiebreak
from tournaments.formats.spec import Spec, Value
from tournaments.models import Competition, Entrant, Standing

Table = tuple[int, ...]


@dataclass(frozen=True)
class Draft:
    """A competition as it would be after a creation or a change: what a format's checks look at."""

    #: None while it is being created.
    pk: int | None
    club_id: int
    game: str
    #: The settings every competition has (tournaments/formats/common.py), complete.
    common: Mapping[str, Value]
    #: The format's own settings, complete.
    settings: Mapping[str, Value]
    entered: int = 0
    people_entered: bool = False

    def _whole(self, name: str) -> int:
        # Read through the spec, which takes only whole numbers for these.
        return cast(int, self.common[name])

    @property
    def players_per_match(self) -> int:
        return self._whole("players_per_match")

    @property
    def games_per_match(self) -> int:
        return self._whole("games_per_match")

    @property
    def move_seconds(self) -> int:
        return self._whole("move_seconds")

    @property
    def game_seconds(self) -> int:
        return self._whole("game_seconds")

    @property
    def max_entrants(self) -> int | None:
        value = self.common["max_entrants"]
        return value if isinstance(value, int) else None

    @property
    def people_play(self) -> str:
        return str(self.common["people_play"])

    @property
    def duplicate_deals(self) -> bool:
        return bool(self.common["duplicate_deals"])


@dataclass(frozen=True)
class Ranking:
    """How a format orders its table beyond the game's figures, read once per table (tournaments/selectors.py)."""

    #: A figure no standings column holds (a Swiss's Buchholz), by entrant id and figure key.
    computed: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    #: What ranks before the figures (a bracket's place, a ladder's place or rating), per row.
    first_key: Callable[[Standing], tuple[Any, ...]] = lambda row: ()
    #: Whether the rows must be sorted here, not only by the database (computed figures, places).
    resort: bool = False
    #: Whether a row's rank is its first key alone, whatever its figures (a knockout's entrant who is out).
    settled: Callable[[Standing], bool] = lambda row: False


@dataclass(frozen=True)
class RoundByes:
    """Who sat a round out: by round number, or (``unseated``) whoever a round does not seat."""

    by_round: Mapping[int, list[int]] | None = None
    unseated: bool = False


class Format(Protocol):
    """A competition format (docs/formats.md, "Adding a format")."""

    #: The value of ``Competition.format``: lower case, stable once competitions use it.
    key: str
    #: Its name for people ("Swiss").
    label: str
    #: When a club would choose it, in one sentence for the forms and the schema.
    summary: str
    #: Its own settings, declared once.
    settings: Spec
    #: Whether it finishes by itself once its last match is recorded (a ladder runs until cancelled).
    ends_by_itself: bool
    #: Whether the next round depends on the results of the one before: rounds are then sent to the
    #: workers one at a time, and recording a round's last match asks ``next_round``.
    pairs_round_by_round: bool
    #: Whether entrants may join and leave while it runs (a ladder's).
    open_while_running: bool
    #: What ``order`` means to its start (``POST .../start/``), or "" if it takes none.
    start_order: str
    #: Whether its rating chart reads better against time than against round numbers.
    chart_over_time: bool

    def check(self, draft: Draft) -> dict[str, str]:
        """Refusals of settings that are each fine alone but not together, by setting name."""
        ...

    def entrant_refusal(self, competition: Competition, *, person: bool) -> str:
        """Why this entrant may not enter, or ""."""
        ...

    def start(self, competition: Competition, entrants: list[int], order: Sequence[int] | None) -> None:
        """Make what the start makes (the first rounds, a ladder's places), under the competition's lock;
        may change ``competition.settings``, which the start then saves."""
        ...

    def next_round(self, competition: Competition, number: int) -> list[int]:
        """Round ``number``'s match ids, made now if the round before is over and the format goes on; [] if
        it does not (yet)."""
        ...

    def match_recorded(self, competition_id: int, match_id: int, ranks: Mapping[int, int]) -> None:
        """What recording a match sets off (a challenge settles), under the competition's lock."""
        ...

    def finished(self, competition_id: int) -> None:
        """What finishing sets off (a stage cuts to its knockout), in the transaction that finished it."""
        ...

    def joined_running(self, competition: Competition, entrant: Entrant) -> None: ...

    def leaving_running(self, competition: Competition, entrant: Entrant) -> None: ...

    def best_of(self, competition: Competition) -> bool:
        """Whether a match ends as soon as it is decided (engine.match.decided_early)."""
        ...

    def standings_figures(self, game_order: tuple[Tiebreak, ...]) -> tuple[Tiebreak, ...]:
        """The figures that order the table, first first, given the game's."""
        ...

    def standings_sql_order(self) -> list[Any]:
        """Terms the database orders the table by before the figures."""
        ...

    def ranking(self, competition: Competition) -> Ranking: ...

    def order_note(self, labels: list[str]) -> str:
        """How the table is ordered, for the line under it."""
        ...

    def round_byes(self, competition: Competition) -> RoundByes: ...

    def page_part(self, competition: Competition, *, admin: bool, request: HttpRequest | None = None) -> str:
        """The HTML of its own part of the competition page (the admin's and the public one), or "". The public
        page passes its ``request``: a part may add what the person looking can do there (a ladder's challenges)."""
        ...


class FormatBase:
    """The defaults of a format made of rounds that finishes by itself: override what differs."""

    settings: Spec = ()
    ends_by_itself = True
    pairs_round_by_round = False
    open_while_running = False
    start_order = ""
    chart_over_time = False

    def check(self, draft: Draft) -> dict[str, str]:
        return {}

    def entrant_refusal(self, competition: Competition, *, person: bool) -> str:
        return ""

    def next_round(self, competition: Competition, number: int) -> list[int]:
        return []

    def match_recorded(self, competition_id: int, match_id: int, ranks: Mapping[int, int]) -> None:
        return None

    def finished(self, competition_id: int) -> None:
        return None

    def joined_running(self, competition: Competition, entrant: Entrant) -> None:
        return None

    def leaving_running(self, competition: Competition, entrant: Entrant) -> None:
        return None

    def best_of(self, competition: Competition) -> bool:
        return False

    def standings_figures(self, game_order: tuple[Tiebreak, ...]) -> tuple[Tiebreak, ...]:
        return game_order

    def standings_sql_order(self) -> list[Any]:
        return []

    def ranking(self, competition: Competition) -> Ranking:
        return Ranking()

    def order_note(self, labels: list[str]) -> str:
        return "Ordered by " + ", then ".join(labels)

    def round_byes(self, competition: Competition) -> RoundByes:
        return RoundByes(unseated=True)

    def page_part(self, competition: Competition, *, admin: bool, request: HttpRequest | None = None) -> str:
        return ""
