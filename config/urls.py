"""Every route: the admin site, the REST API under /api/ with its schema, docs, token and sign-up endpoints,
the web table and the account pages under /accounts/."""

from django.contrib import admin
from django.contrib.auth.views import LogoutView
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.parsers import FormParser, MultiPartParser

from config.api_input import JSONParser
from config.api_root import ApiNotFoundView, ApiRootView
from config.throttles import LOGIN_THROTTLES, ThrottledLoginView, throttled_admin_login
from league.accounts import SignupPageView
from league.api.identity import RegisterView

# rest_framework.urls' two views, with sign-in under the login rates.
browsable_api_auth = [
    path("login/", ThrottledLoginView.as_view(template_name="rest_framework/login.html"), name="login"),
    path("logout/", LogoutView.as_view(), name="logout"),
]

# Before admin.site.urls builds the admin's routes from it.
admin.site.login = throttled_admin_login(admin.site.login)  # type: ignore[method-assign]  # a wrapped bound method

# A server error under /api/ answers JSON, and an outage of the database or Redis 503 (config/unavailable.py).
handler500 = "config.unavailable.server_error"
# The site's own pages for an unknown address and a refusal (tournaments/web/errors.py).
handler404 = "tournaments.web.errors.page_not_found"
handler403 = "tournaments.web.errors.permission_denied"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", ApiRootView.as_view(), name="api-root"),
    path("api/", include("league.api.urls")),
    path("api/", include("tournaments.api.urls")),
    # POST username and password, get {"token": ...}; send it as "Authorization: Token <token>".
    # DRF's view names its own parsers: here with the project's JSON parser (config/api_input.py).
    path(
        "api/auth/token/",
        # It authenticates by the body alone: a stale token or session sent along is no reason to refuse it.
        ObtainAuthToken.as_view(
            parser_classes=[FormParser, MultiPartParser, JSONParser],
            throttle_classes=list(LOGIN_THROTTLES),
            authentication_classes=[],
        ),
        name="api-token",
    ),
    # Sign-up: POST username, password and optionally e-mail and display name; get the player and a token.
    path("api/auth/register/", RegisterView.as_view(), name="api-register"),
    # Session login and logout for the browsable API and Swagger UI.
    path("api/auth/", include((browsable_api_auth, "rest_framework"))),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    # The web table for people: sign-in, /play/ (my matches) and /play/matches/<id>/ (tournaments/web/).
    path("", include("tournaments.web.urls")),
    # Sign-up (league/accounts.py): allauth's page in the site's style, under the register rate. Its name is
    # allauth's own, so allauth's mails and pages link here.
    path("accounts/signup/", SignupPageView.as_view(), name="account_signup"),
    # The rest of allauth's account pages: confirming an e-mail address, resetting a forgotten password.
    # Sign-in and sign-out above (the web table's) take /accounts/login/ and /accounts/logout/ first.
    path("accounts/", include("allauth.urls")),
    re_path(r"^api/", ApiNotFoundView.as_view()),
]
