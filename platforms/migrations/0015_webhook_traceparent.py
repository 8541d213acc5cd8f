from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("platforms", "0014_player_erased_webhook"),
    ]

    operations = [
        migrations.AddField(
            model_name="webhookevent",
            name="traceparent",
            field=models.CharField(blank=True, default="", editable=False, max_length=55),
        ),
    ]
