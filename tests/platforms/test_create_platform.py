"""`manage.py create_platform`: its help and its refusal name every scope a key may have."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandParser

from platforms.management.commands.create_platform import Command
from platforms.models import Platform, Scope


def test_the_help_lists_the_scopes() -> None:
    parser = Command().create_parser("manage.py", "create_platform")
    assert isinstance(parser, CommandParser)
    assert all(scope.value in parser.format_help().replace("\n", " ") for scope in Scope)


@pytest.mark.django_db
def test_an_unknown_scope_is_refused_with_the_scopes_there_are() -> None:
    errors = io.StringIO()
    with pytest.raises(SystemExit):
        call_command("create_platform", "Partner", "--scopes", "matches:fly", stderr=errors)
    assert "matches:fly" in errors.getvalue()
    assert all(scope.value in errors.getvalue() for scope in Scope)
    assert not Platform.objects.exists()


@pytest.mark.django_db
def test_it_prints_a_key_with_the_scopes_asked() -> None:
    out = io.StringIO()
    call_command("create_platform", "Partner", "--scopes", Scope.values[0], stdout=out)
    assert out.getvalue().strip()
    assert Platform.objects.filter(name="Partner").exists()
