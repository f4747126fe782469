"""Every route: the admin site, and the REST API under /api/ with its schema, docs and token endpoint."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("league.api.urls")),
    path("api/", include("tournaments.api.urls")),
    # POST username and password, get {"token": ...}; send it as "Authorization: Token <token>".
    path("api/auth/token/", obtain_auth_token, name="api-token"),
    # Session login and logout for the browsable API and Swagger UI.
    path("api/auth/", include("rest_framework.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    # The web table for people: sign-in, /play/ (my matches) and /play/matches/<id>/ (tournaments/web/).
    path("", include("tournaments.web.urls")),
]
