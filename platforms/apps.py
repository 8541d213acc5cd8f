from django.apps import AppConfig


class PlatformsConfig(AppConfig):
    name = "platforms"
    verbose_name = "Partner platforms"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import circles
        from games.signals import (
            account_erasing,
            deal_analysed,
            match_changed,
            match_progressed,
            personal_data,
        )
        from platforms import events, services
        from ratings.signals import ratings_changed

        match_progressed.connect(events.on_match_progressed, dispatch_uid="platform-webhooks")
        match_changed.connect(events.on_match_changed, dispatch_uid="platform-webhooks")
        ratings_changed.connect(events.on_ratings_changed, dispatch_uid="platform-webhooks")
        account_erasing.connect(services.on_account_erasing, dispatch_uid="platforms")
        personal_data.connect(services.personal_data, dispatch_uid="platforms")
        deal_analysed.connect(events.on_deal_analysed, dispatch_uid="platform-webhooks")
        circles.use(services.circle_of)
