from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TourConfig(AppConfig):
    name = "tour"
    verbose_name = _("Tour of Tables")

    def ready(self) -> None:
        from games.signals import personal_data
        from tour import privacy

        personal_data.connect(privacy.personal_data, dispatch_uid="tour")
