"""A markdown table's rows: each cell a belief about its section, scoped by the row's first cell (its
column's header the scope's key), quoting the whole row; a changed row supersedes its own cells only."""

from __future__ import annotations

from beliefdb.text.gate import gate
from beliefdb.text.rules import RuleExtractor
from beliefdb.text.skips import extraction_report

SHIPPING = ("## Shipping\n\n| Region | Delivery time | Cost |\n|--------|:-------------:|------|\n"
            "| EU     | 3 days        | 5 EUR |\n| US     | 7 days        |  |\n")


def test_each_cell_of_a_table_row_is_a_belief_scoped_by_the_rows_first_cell() -> None:
    found = RuleExtractor().extract(SHIPPING, source_name="handbook.md")
    assert [(c.subject, c.attribute, c.value, dict(c.scope)) for c in found] == [
        ("shipping", "delivery_time", "3 days", {"region": "EU"}),
        ("shipping", "cost", "5 EUR", {"region": "EU"}),
        ("shipping", "delivery_time", "7 days", {"region": "US"})]  # (an empty cell says nothing)
    for c in found:
        assert c.start is not None and c.end is not None
        assert SHIPPING[c.start:c.end] == c.quote and c.quote.startswith("| ") and c.quote.endswith("|")
    assert found[0].statement == "EU: Delivery time 3 days"


def test_rows_that_are_no_table_give_what_they_gave_before() -> None:
    # no separator row under the first: not a table; a row of another width than its header: nothing
    assert RuleExtractor().extract("| Region | Cost |\n| EU | 5 EUR |\n", source_name="handbook.md") == []
    text = "| Region | Cost |\n|---|---|\n| EU | 5 EUR | extra |\n"
    assert RuleExtractor().extract(text, source_name="handbook.md") == []


def test_a_tables_header_and_dashes_are_not_reported_as_sentences_that_gave_nothing() -> None:
    located, rejected = gate(SHIPPING, RuleExtractor().extract(SHIPPING, source_name="handbook.md"))
    assert extraction_report(SHIPPING, located, rejected)[0] == []


def test_a_column_headed_in_any_script_is_an_attribute_and_a_cell_under_no_name_is_reported() -> None:
    # (issue: a CJK header named nothing, and its column was dropped without a word)
    text = ("## Shipping\n\n| Region | 配送时间 | — | Cost |\n|---|---|---|---|\n"
            "| EU | 3 days | yes | 5 EUR |\n| Москва | 5 дней |  |  |\n")
    found = RuleExtractor().extract(text, source_name="t7.md")
    assert [(c.subject, c.attribute, c.value, dict(c.scope)) for c in found] == [
        ("shipping", "配送时间", "3 days", {"region": "EU"}), ("shipping", "cost", "5 EUR", {"region": "EU"}),
        ("shipping", "配送时间", "5 дней", {"region": "Москва"})]
    located, rejected = gate(text, found)
    skipped = extraction_report(text, located, rejected)[0]
    at = text.index("yes")
    assert [(s.quote, s.start, s.end, s.reason) for s in skipped] == [("yes", at, at + 3, "no_pattern")]
    assert skipped[0].detail == "its column's header '—' names no attribute"
    assert extraction_report(text, located, rejected, extractor="llm")[0] == []


def test_a_property_value_table_is_a_list_of_key_value_lines() -> None:
    """Every row of "| Property | Value |" became `value`, scoped by its property (`technical_data / value
    = 2.1 kg`): no name said what the value was, and `ask` for the maximum load missed it (a user trial)."""
    text = ("# Trollstig 65\n\n| Property | Value |\n|---|---|\n| Packed weight | 2.1 kg |\n"
            "| Max load | 22 kg |\n\n"
            "| Eigenschaft | Wert |\n|---|---|\n| Gewicht | 1,9 kg |\n\n"
            "| Region | Shipping |\n|---|---|\n| EU | 5 EUR |\n\n| Region | Value |\n|---|---|\n| UK | 7 EUR |\n")
    got = [(c.subject, c.attribute, c.value, dict(c.scope))
           for c in RuleExtractor().extract(text, source_name="t.md")]
    assert got == [("trollstig_65", "packed_weight", "2.1 kg", {}), ("trollstig_65", "max_load", "22 kg", {}),
                   ("trollstig_65", "gewicht", "1,9 kg", {}), ("trollstig_65", "shipping", "5 EUR", {"region": "EU"}),
                   ("trollstig_65", "value", "7 EUR", {"region": "UK"})]  # (a value by region: as before)
