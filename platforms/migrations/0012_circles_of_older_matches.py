"""The matches platforms created before circles (games migration 0009) are of their circle
too: a platform's matches are found, followed and told of by their circle."""

from django.db import migrations
from django.db.models import F


def circles_of_older_matches(apps, schema_editor):
    match, platform = apps.get_model("games", "Match"), apps.get_model("platforms", "Platform")
    match.objects.filter(
        circle__isnull=True, created_by__in=platform.objects.values("user_id")
    ).update(circle=F("created_by"))


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0011_rematch_offers"),
        ("platforms", "0011_rematch_and_rating_events"),
    ]

    operations = [
        migrations.RunPython(circles_of_older_matches, migrations.RunPython.noop),
    ]
