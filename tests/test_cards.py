import pytest

from table_controller.cli import build_parser
from table_controller.engine.cards import FULL_DECK, Card, CardError, parse_cards


def test_full_deck_is_52_distinct_cards() -> None:
    assert len(set(FULL_DECK)) == 52
    assert [c.index for c in FULL_DECK] == list(range(52))


@pytest.mark.parametrize("text", ["", "A", "Ahh", "1h", "Ax", "10h"])
def test_bad_card_text_is_refused(text: str) -> None:
    with pytest.raises(CardError):
        Card.parse(text)


def test_parse_cards_round_trip() -> None:
    assert "".join(c.code for c in parse_cards("Ah Kd 2c")) == "AhKd2c"
    assert Card.parse("ah").describe() == "ace of hearts"


def test_cli_parser_builds() -> None:
    assert build_parser().prog == "table-controller"
