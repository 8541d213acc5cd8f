"""Staff register partner platforms here and issue, rotate and revoke their keys."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from rest_framework_api_key.admin import APIKeyModelAdmin
from rest_framework_api_key.models import APIKey

from platforms import services, webhooks
from platforms.models import (
    Platform,
    PlatformKey,
    PlatformPlayer,
    Scope,
    WebhookDelivery,
    WebhookSubscription,
)

QUOTAS = ("requests_per_minute", "requests_in_flight", "live_streams", "long_polls")

# The library's own key model is not used: platform keys are `PlatformKey`.
admin.site.unregister(APIKey)


@admin.register(Platform)
class PlatformAdmin(admin.ModelAdmin):
    list_display = ("name", "max_unfinished_matches", "max_bot_seat_deals",
                    "requests_per_minute", "live_streams", "created_at")
    search_fields = ("name",)
    fieldsets = (
        (None, {"fields": ("name",)}),
        ("Matches", {"fields": ("max_unfinished_matches", "max_bot_seat_deals")}),
        ("Quotas of the platform's key", {
            "description": "In place of every account's limits: docs/platforms.md, Quotas.",
            "fields": QUOTAS,
        }),
    )

    def save_model(self, request: HttpRequest, obj: Platform, form: Any, change: bool) -> None:
        if change:
            obj.save()
            return
        created = services.register_platform(name=obj.name)
        Platform.objects.filter(pk=created.pk).update(**{
            field: getattr(obj, field)
            for field in ("max_unfinished_matches", "max_bot_seat_deals", *QUOTAS)
        })
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
    # The library's admin leaves these unannotated, so mypy takes its own tuples' lengths as
    # their types (ModelAdmin declares sequences of any length).
    list_display = (  # type: ignore[assignment]
        "prefix", "platform", "name", "scopes", "created", "expiry_date", "revoked"
    )
    list_filter = ("platform", "revoked")  # type: ignore[assignment]
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


@admin.register(WebhookSubscription)
class WebhookSubscriptionAdmin(admin.ModelAdmin):
    list_display = ("platform", "url", "event_types", "active", "created_at", "deleted_at")
    list_filter = ("platform", "active", ("deleted_at", admin.EmptyFieldListFilter))
    readonly_fields = ("secret", "deleted_at")


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    """The delivery log: what was sent where, how often, and what the receiver answered."""

    list_display = ("event", "subscription", "status", "attempts", "last_status_code",
                    "last_latency_ms", "last_error", "next_attempt_at", "delivered_at")
    list_filter = ("status", "subscription__platform", "event__type")
    search_fields = ("event__id",)
    list_select_related = ("event", "subscription__platform")
    readonly_fields = tuple(field.name for field in WebhookDelivery._meta.fields)
    actions = ("redeliver",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_redeliver_permission(self, request: HttpRequest) -> bool:
        # An outbound request: more than reading the log.
        return request.user.has_perm("platforms.change_webhookdelivery")

    # The platform API's redeliver too: not a deleted subscription's, nor one under way.
    @admin.action(description="Redeliver: one more attempt now", permissions=["redeliver"])
    def redeliver(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        for delivery in queryset:
            webhooks.redeliver(delivery)
        self.message_user(request, f"{queryset.count()} deliveries sent again.")
