from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings and progress"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games.signals import account_erasing, personal_data
        from ratings import privacy

        account_erasing.connect(privacy.on_account_erasing, dispatch_uid="ratings")
        personal_data.connect(privacy.personal_data, dispatch_uid="ratings")
