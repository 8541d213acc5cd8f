"""Accounts in the admin: Django's own pages, plus the "erase personal data" action (the one
erasure, games/privacy.py, behind a confirmation page) and erased accounts shown as such and
changed no more."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from games import privacy
from games.errors import ServiceError


class ErasedFilter(admin.SimpleListFilter):
    title = "erased"
    parameter_name = "erased"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Erased"), ("no", "Not erased")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> QuerySet[User]:
        if self.value() == "yes":
            return queryset.filter(privacy.ERASED)
        if self.value() == "no":
            return queryset.exclude(privacy.ERASED)
        return queryset


@admin.action(description="Erase personal data of selected accounts", permissions=["erase"])
def erase_personal_data(
    model_admin: AccountAdmin, request: HttpRequest, queryset: QuerySet[User]
) -> TemplateResponse | None:
    accounts = list(queryset.exclude(privacy.ERASED))
    if request.POST.get("confirmed") != "yes":
        return TemplateResponse(request, "admin/auth/user/erase_confirmation.html", {
            **model_admin.admin_site.each_context(request),
            "opts": model_admin.opts,
            "title": "Erase personal data?",
            "accounts": accounts,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
            "former_player": privacy.FORMER_PLAYER,
        })
    erased = 0
    for account in accounts:
        try:
            privacy.erase_account(account, reason=privacy.ErasureReason.STAFF)
        except ServiceError as error:
            model_admin.message_user(request, f"{account}: {error.detail}", messages.ERROR)
        else:
            erased += 1
    if erased:
        model_admin.message_user(request, f"Erased {erased} account(s).", messages.SUCCESS)
    return None


admin.site.unregister(User)


@admin.register(User)
class AccountAdmin(UserAdmin):
    actions = (erase_personal_data,)
    list_display = ("username", "email", "first_name", "last_name", "is_staff", "erased")
    list_filter = ("is_staff", "is_superuser", "is_active", "groups", ErasedFilter)

    @admin.display(boolean=True, description="erased")
    def erased(self, account: User) -> bool:
        return privacy.is_erased(account)

    def has_erase_permission(self, request: HttpRequest) -> bool:
        # Erasing is deleting what names a person: only staff who may delete accounts.
        return request.user.has_perm("auth.delete_user")

    def has_change_permission(self, request: HttpRequest, obj: User | None = None) -> bool:
        # An erased account stays as the erasure left it: a form could name it again.
        if obj is not None and privacy.is_erased(obj):
            return False
        return super().has_change_permission(request, obj)
