"""Staff register partner platforms here and issue, rotate and revoke their keys."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from rest_framework_api_key.admin import APIKeyModelAdmin
from rest_framework_api_key.models import APIKey

from platforms import services
from platforms.models import Platform, PlatformKey, PlatformPlayer, Scope

# The library's own key model is not used: platform keys are `PlatformKey`.
admin.site.unregister(APIKey)


@admin.register(Platform)
class PlatformAdmin(admin.ModelAdmin):
    list_display = ("name", "max_unfinished_matches", "max_bot_seat_deals", "created_at")
    search_fields = ("name",)

    def save_model(self, request: HttpRequest, obj: Platform, form: Any, change: bool) -> None:
        if change:
            obj.save()
            return
        created = services.register_platform(name=obj.name)
        Platform.objects.filter(pk=created.pk).update(
            max_unfinished_matches=obj.max_unfinished_matches,
            max_bot_seat_deals=obj.max_bot_seat_deals,
        )
        obj.pk, obj.user_id = created.pk, created.user_id


class PlatformKeyForm(forms.ModelForm):
    scopes = forms.MultipleChoiceField(choices=Scope.choices,
                                       widget=forms.CheckboxSelectMultiple)

    class Meta:
        model = PlatformKey
        fields = ("platform", "name", "scopes", "expiry_date", "revoked")


@admin.register(PlatformKey)
class PlatformKeyAdmin(APIKeyModelAdmin):
    form = PlatformKeyForm
    list_display = ("prefix", "platform", "name", "scopes", "created", "expiry_date", "revoked")
    list_filter = ("platform", "revoked")
    actions = ("rotate", "revoke")

    @admin.action(description="Rotate: a new key with the same scopes, this one lapses in 24 h")
    def rotate(self, request: HttpRequest, queryset: QuerySet[PlatformKey]) -> None:
        for key in queryset.filter(revoked=False):
            new, secret = services.rotate_key(key=key)
            self.message_user(
                request, f"The new key for {key.platform} ({key.name}) is: {secret}. Store "
                "it somewhere safe: it is not shown again.", messages.WARNING,
            )

    @admin.action(description="Revoke: the key stops working at once")
    def revoke(self, request: HttpRequest, queryset: QuerySet[PlatformKey]) -> None:
        for key in queryset.filter(revoked=False):
            services.revoke_key(key=key)


@admin.register(PlatformPlayer)
class PlatformPlayerAdmin(admin.ModelAdmin):
    list_display = ("external_id", "platform", "user", "language", "created_at")
    list_filter = ("platform",)
    search_fields = ("external_id",)
    readonly_fields = ("platform", "external_id", "user", "language", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
