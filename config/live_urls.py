"""The URL conf the sync lane resolves with (config/sync_lane.py): the live table's read, move and events first, then
every route of the site (config/urls.py), so that reversing any name works as under the site's own conf.

The same views as tournaments/api/urls.py mounts; found at once, where the site's conf tries the
league's routes and most of the API's before them, which measured as a tenth of a move's CPU.
"""

from django.urls import include, path

from tournaments.api.live import MatchMoveView, MatchTableView, match_events

urlpatterns = [
    path("api/matches/<int:pk>/table/", MatchTableView.as_view(), name="match-table"),
    path("api/matches/<int:pk>/moves/", MatchMoveView.as_view(), name="match-moves"),
    path("api/matches/<int:pk>/events/", match_events, name="match-events"),
    path("", include("config.urls")),
]
