"""Routes of the competitions API, mounted under /api/ by config/urls.py."""

from __future__ import annotations

from rest_framework.routers import SimpleRouter

from tournaments.api.competitions import CompetitionViewSet
from tournaments.api.entrants import EntrantViewSet
from tournaments.api.games import GameViewSet
from tournaments.api.matches import MatchRaceViewSet, MatchSetViewSet, MatchViewSet
from tournaments.api.tables import RoundViewSet, StandingViewSet

# Path converters rather than regexes, so every id in the schema is typed as an integer.
router = SimpleRouter(use_regex_path=False)
router.register("tournaments", CompetitionViewSet, basename="competition")
router.register("tournaments/<int:competition_pk>/entrants", EntrantViewSet, basename="competition-entrant")
router.register("tournaments/<int:competition_pk>/rounds", RoundViewSet, basename="competition-round")
router.register("tournaments/<int:competition_pk>/standings", StandingViewSet, basename="competition-standing")
router.register("matches", MatchViewSet, basename="match")
router.register("matches/<int:match_pk>/race", MatchRaceViewSet, basename="match-race")
router.register("matches/<int:match_pk>/sets", MatchSetViewSet, basename="match-set")
router.register("games", GameViewSet, basename="game")

urlpatterns = router.urls
