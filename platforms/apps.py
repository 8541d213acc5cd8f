from django.apps import AppConfig


class PlatformsConfig(AppConfig):
    name = "platforms"
    verbose_name = "Partner platforms"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import circles
        from games.signals import account_erasing, personal_data
        from platforms import services

        account_erasing.connect(services.on_account_erasing, dispatch_uid="platforms")
        personal_data.connect(services.personal_data, dispatch_uid="platforms")
        circles.use(services.circle_of)
