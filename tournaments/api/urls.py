"""Routes of the competitions API, mounted under /api/ by config/urls.py."""

from __future__ import annotations

from django.urls import path
from rest_framework.routers import SimpleRouter

from tournaments.api.challenges import ChallengeViewSet
from tournaments.api.competitions import CompetitionViewSet
from tournaments.api.entrants import EntrantViewSet
from tournaments.api.exports import CompetitionExportView, CompetitionGamesExportView, CompetitionImportView
from tournaments.api.games import GameViewSet
from tournaments.api.live import MatchMoveView, MatchTableView, MyMatchesView, match_events
from tournaments.api.matches import MatchRaceViewSet, MatchSetViewSet, MatchViewSet
from tournaments.api.tables import RoundViewSet, StandingViewSet
from tournaments.api.training_data import BotTrainingDataView
from tournaments.api.transcripts import DisputeViewSet, TranscriptViewSet

# Path converters rather than regexes, so every id in the schema is typed as an integer.
router = SimpleRouter(use_regex_path=False)
router.register("tournaments", CompetitionViewSet, basename="competition")
router.register("tournaments/<int:competition_pk>/entrants", EntrantViewSet, basename="competition-entrant")
router.register("tournaments/<int:competition_pk>/rounds", RoundViewSet, basename="competition-round")
router.register("tournaments/<int:competition_pk>/standings", StandingViewSet, basename="competition-standing")
router.register("tournaments/<int:competition_pk>/challenges", ChallengeViewSet, basename="competition-challenge")
router.register("matches", MatchViewSet, basename="match")
router.register("matches/<int:match_pk>/race", MatchRaceViewSet, basename="match-race")
router.register("matches/<int:match_pk>/sets", MatchSetViewSet, basename="match-set")
router.register("games", GameViewSet, basename="game")
# Transcripts of games played with real cards.
router.register("matches/<int:match_pk>/transcripts", TranscriptViewSet, basename="match-transcript")
router.register("tournaments/<int:competition_pk>/disputes", DisputeViewSet, basename="competition-dispute")

urlpatterns = router.urls

# Live tables (docs/live-play.md): paths of their own, beside the router's.
urlpatterns += [
    path("matches/<int:pk>/table/", MatchTableView.as_view(), name="match-table"),
    path("matches/<int:pk>/moves/", MatchMoveView.as_view(), name="match-moves"),
    path("matches/<int:pk>/events/", match_events, name="match-events"),
    path("players/me/matches/", MyMatchesView.as_view(), name="player-me-matches"),
]

# Exports of a competition (docs/exports.md): streamed, so beside the router too.
urlpatterns += [
    path("tournaments/<int:pk>/games.jsonl", CompetitionGamesExportView.as_view(), name="competition-games-export"),
    path("tournaments/<int:pk>/export/", CompetitionExportView.as_view(), name="competition-export"),
    path("tournaments/import/", CompetitionImportView.as_view(), name="competition-import"),
]

# A bot's training data (docs/training-data.md): under the bot, streamed, and reading games, so here rather
# than in league's routes (tournaments depends on league, never the other way).
urlpatterns += [
    path("bots/<int:pk>/training-data/", BotTrainingDataView.as_view(), name="bot-training-data"),
]
