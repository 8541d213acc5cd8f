from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DealSetsConfig(AppConfig):
    name = "deal_sets"
    verbose_name = _("Deal sets")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from deal_sets import privacy, services
        from games.signals import match_progressed, personal_data

        match_progressed.connect(services.on_match_progressed, dispatch_uid="deal_sets")
        personal_data.connect(privacy.personal_data, dispatch_uid="deal_sets")
