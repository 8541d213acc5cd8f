"""API tokens in the admin: who holds how many, since when and until when, and revoking them.
No page shows a token or can make one: staff could otherwise act as any player. (knox's own
admin offers to create tokens for any account; it is replaced here.)"""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest
from knox.models import AuthToken

admin.site.unregister(AuthToken)


@admin.register(AuthToken)
class TokenAdmin(admin.ModelAdmin):
    list_display = ("user", "created", "expiry")
    list_select_related = ("user",)
    search_fields = ("user__username",)
    fields = ("user", "created", "expiry")
    readonly_fields = fields
    ordering = ("-created",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: AuthToken | None = None) -> bool:
        return False
