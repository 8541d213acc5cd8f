from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DealSetsConfig(AppConfig):
    name = "deal_sets"
    verbose_name = _("Deal sets")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from deal_sets import privacy
        from games.signals import personal_data

        personal_data.connect(privacy.personal_data, dispatch_uid="deal_sets")
