from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A competition's named organisers and referees leave it when they leave its club.
        from tournaments.services import named_staff

        named_staff.connect()
