"""The seat view has `rematch` (null unless a finished match's offer): the first answers kept
for idempotent retries before it, replayed as they were kept, get it too."""

from django.db import migrations


def add_rematch(apps, schema_editor):
    IdempotencyRecord = apps.get_model("games", "IdempotencyRecord")
    for record in IdempotencyRecord.objects.iterator(chunk_size=1000):
        if isinstance(record.body, dict) and "seat" in record.body and "rematch" not in record.body:
            record.body = {**record.body, "rematch": None}
            record.save(update_fields=["body"])


class Migration(migrations.Migration):
    dependencies = [("games", "0023_waits_for_arrivals")]

    operations = [migrations.RunPython(add_rematch, migrations.RunPython.noop)]
