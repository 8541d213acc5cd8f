"""The Kotlin client's checker (clients/kotlin_check.py, run by scripts/java_clients) on sources
written as openapi-generator writes them: the types they declare, import or take from Kotlin
pass; a made-up name such as `AnyOfLessThanGreaterThan` is reported with where it is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from clients import kotlin_check

MODEL = """\
package t.models

import t.models.Card
import t.models.AnyOfLessThanGreaterThan
import com.squareup.moshi.Json

/** A deal; `trump: OneOfInAComment` is no reference. */
data class Deal (
    @Json(name = "cards")
    val cards: kotlin.collections.List<Card>,
    @Json(name = "by_seat")
    val bySeat: kotlin.collections.Map<kotlin.String, kotlin.collections.List<Card?>>? = null,
    @Json(name = "kind")
    val kind: Deal.Kind,
    @Json(name = "oddity")
    val oddity: AnyOfLessThanGreaterThan? = null,
    val later: OneOfLessThanCardCommaSuitGreaterThan = error("x: NotAType")
) {
    enum class Kind(val value: kotlin.String) {
        @Json(name = "deal") deal("deal");
    }
}
"""
CARD = """\
package t.models

data class Card (val rank: kotlin.Int, val suit: String)
"""
API = """\
package t.apis

import java.io.IOException
import okhttp3.Call
import t.models.Card
import t.infrastructure.toMultiValue

open class CardsApi(client: Call.Factory) {
    fun <T> first(cards: List<Card>, pick: (Card) -> T): T? = cards.firstOrNull()?.let(pick)
    fun same(a: Any): Boolean = a is Card && (a as? Card)?.rank ?: 0 > 1
}
"""
INFRASTRUCTURE = """\
package t.infrastructure

fun toMultiValue(items: Array<Any>): List<String> = items.map { it.toString() }
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_undeclared_types_are_reported_where_they_are_named(tmp_path: Path) -> None:
    write(tmp_path, {"t/models/Deal.kt": MODEL, "t/models/Card.kt": CARD,
                     "t/apis/CardsApi.kt": API, "t/infrastructure/Functions.kt": INFRASTRUCTURE})

    found = kotlin_check.undeclared_types(tmp_path, "t")

    assert found == {
        "AnyOfLessThanGreaterThan": ["t/models/Deal.kt:4", "t/models/Deal.kt:16"],
        "OneOfLessThanCardCommaSuitGreaterThan": ["t/models/Deal.kt:17"],
    }
    assert kotlin_check.main(["kotlin_check", str(tmp_path), "t"]) == 1


def test_sources_that_declare_all_they_name_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"t/models/Card.kt": CARD, "t/apis/CardsApi.kt": API,
                     "t/infrastructure/Functions.kt": INFRASTRUCTURE})

    assert kotlin_check.undeclared_types(tmp_path, "t") == {}
    assert kotlin_check.main(["kotlin_check", str(tmp_path), "t"]) == 0
    assert "3 files, every type they name is declared" in capsys.readouterr().out
