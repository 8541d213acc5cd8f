from bots import arena


def test_arena_reports_a_duplicate_comparison() -> None:
    report = arena.run("auction", "easy", "random", 3)
    assert report.deal_sets == 3 and report.declarer_count + report.defender_count == 12
    assert "easy" in report.line()


def test_the_reference_field_that_sees_all_cards_plays_legal_cards() -> None:
    report = arena.run("partnership", "medium", arena.SEES_ALL, 2)
    assert report.deal_sets == 2
