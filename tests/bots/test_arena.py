from bots import arena


def test_arena_reports_a_duplicate_comparison() -> None:
    report = arena.run("auction", "easy", "random", 3)
    assert report.deal_sets == 3 and sum(count for _, count in report.role_means.values()) == 12
    assert "easy" in report.line()


def test_the_reference_field_that_sees_all_cards_plays_legal_cards() -> None:
    report = arena.run("partnership", "medium", arena.SEES_ALL, 2)
    assert report.deal_sets == 2


def test_the_judge_charges_nothing_to_the_search_it_judges_by() -> None:
    seeing = arena.run("spades", arena.SEES_ALL, "medium", 2, judged=True)
    assert set(seeing.loss_by_stage) == set(arena.STAGES)
    assert sum(seeing.loss_by_stage.values()) == 0
    medium = arena.run("spades", "medium", "easy", 4, judged=True)
    assert sum(medium.loss_by_stage.values()) > 0
    assert "given up against the seeing search" in medium.line()
    assert medium.unseen_value > 0
