from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("platforms", "0012_circles_of_older_matches"),
    ]

    operations = [
        migrations.AddField(
            model_name="webhookevent",
            name="traceparent",
            field=models.CharField(blank=True, default="", editable=False, max_length=55),
        ),
    ]
