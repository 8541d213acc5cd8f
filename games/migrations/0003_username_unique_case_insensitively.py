"""Usernames are unique whatever their case, in the database itself: two sign-ups racing for
`Racer2` and `racer2` cannot both commit. An expression index, which SQLite and PostgreSQL
both have; Django's own `auth_user` table cannot carry a model constraint of this app."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("games", "0002_seat_character"),
    ]

    operations = [
        migrations.RunSQL(
            "CREATE UNIQUE INDEX auth_user_username_lower_unique ON auth_user (lower(username))",
            "DROP INDEX auth_user_username_lower_unique",
        ),
    ]
