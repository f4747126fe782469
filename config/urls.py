"""Every route: the admin site, and the REST API under /api/ with its schema, docs and token endpoint."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.parsers import FormParser, MultiPartParser

from config.api_input import JSONParser

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("league.api.urls")),
    path("api/", include("tournaments.api.urls")),
    # POST username and password, get {"token": ...}; send it as "Authorization: Token <token>".
    # DRF's view names its own parsers: here with the project's JSON parser (config/api_input.py).
    path(
        "api/auth/token/",
        ObtainAuthToken.as_view(parser_classes=[FormParser, MultiPartParser, JSONParser]),
        name="api-token",
    ),
    # Session login and logout for the browsable API and Swagger UI.
    path("api/auth/", include("rest_framework.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    # The web table for people: sign-in, /play/ (my matches) and /play/matches/<id>/ (tournaments/web/).
    path("", include("tournaments.web.urls")),
]
