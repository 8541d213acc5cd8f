from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TourConfig(AppConfig):
    name = "tour"
    verbose_name = _("Tour of Tables")
