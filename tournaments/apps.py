from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A competition's named organisers and referees leave it when they leave its club.
        from tournaments.formats.builtin import register_builtin_formats
        from tournaments.services import named_staff

        named_staff.connect()
        register_builtin_formats()
