"""What a support team's documents say under their headings: a ``Key: value`` line (or a one-word "The
window is ...") that names no subject is about its section's heading, not the whole file."""

from __future__ import annotations

from beliefdb.text.gate import gate
from beliefdb.text.rules import RuleExtractor
from beliefdb.text.skips import extraction_report


def triples(text: str, source_name: str = "handbook.md") -> list[tuple[str, str, str]]:
    return [(c.subject, c.attribute, c.value) for c in RuleExtractor().extract(text, source_name=source_name)]


def test_a_key_value_line_is_about_the_heading_it_stands_under() -> None:
    text = "# Support handbook\n\n## Returns\nWindow: 30 days\nFee: 5 EUR\n\n## Exchanges\nWindow: 14 days\n"
    assert triples(text) == [("return", "window", "30 days"), ("return", "fee", "5 EUR"),
                             ("exchange", "window", "14 days")]


def test_a_heading_that_names_nothing_leaves_the_subject_to_the_one_above_it_or_the_file() -> None:
    text = "# Returns\n## How to start one\nWindow: 30 days\n"
    assert triples(text) == [("return", "window", "30 days")]
    assert triples("## How do I reach you?\nEmail: help@example.com\n") == [("handbook", "email", "help@example.com")]
    # a deeper heading closes; its sibling at the level above takes over
    text = "## Returns\n### Sale items\nWindow: 7 days\n## Exchanges\nWindow: 14 days\n"
    assert triples(text) == [("sale_item", "window", "7 days"), ("exchange", "window", "14 days")]


def test_a_named_subject_and_a_document_without_headings_are_as_before() -> None:
    assert triples("## Returns\nRestocking fee: 15%\n") == [("restocking_policy", "fee", "15%")]
    assert triples("Window: 30 days\n", "returns.md") == [("return", "window", "30 days")]
    assert triples("## 2. Returns\nThe window is 30 days.\n") == [("return", "window", "30 days")]


def test_a_key_value_line_too_long_to_be_one_statement_gives_nothing() -> None:
    """A text file of very long lines: "Fee: 5 EUR. " and 100,000 characters more on the line was stored as
    the fee, its value every sentence after it."""
    filler = "This is filler text that goes on. " * 40
    assert triples("Fee: 5 EUR. " + filler + "\n") == []
    assert triples("Fee: 5 EUR\n" + filler + "\n") == [("handbook", "fee", "5 EUR")]


def test_a_code_block_and_front_matter_are_no_statements_of_the_document() -> None:
    """A support page's YAML front matter ("owner: support-team") and a config sample in a fenced code block
    ("Timeout: 30 seconds") were stored as facts of the returns policy; a "# comment" in a code block
    is no heading either."""
    text = ("---\ntitle: Returns and refunds\nowner: support-team\n---\n\n## Returns\nWindow: 30 days\n\n"
            "```yaml\n# Exchanges\nTimeout: 30 seconds\n```\n~~~\nRetries: 5\n~~~\nFee: 5 EUR\n")
    assert triples(text) == [("return", "window", "30 days"), ("return", "fee", "5 EUR")]
    # a rule line that opens no front matter, and a fence never closed, leave the text as it is
    assert triples("Window: 30 days\n---\nFee: 5 EUR\n---\n") == [("handbook", "window", "30 days"),
                                                                  ("handbook", "fee", "5 EUR")]
    assert triples("```\nFee: 5 EUR\n") == [("handbook", "fee", "5 EUR")]


def test_a_heading_that_states_a_fact_still_gives_it_about_the_section_above() -> None:
    assert triples("## The return window is 30 days\n") == [("return_policy", "window", "30 days")]
    assert triples("# Returns\n## The window is 30 days\nFee: 5 EUR\n") == [("return", "window", "30 days"),
                                                                         ("return", "fee", "5 EUR")]


def test_a_list_item_ending_in_a_colon_is_the_subject_of_the_items_nested_under_it() -> None:
    """"- Express shipping:" then "  - EU: 1 day" under "## Shipping" was shipping / eu = 1 day: the express
    time stored as the shipping time."""
    text = ("## Shipping\n- Express shipping:\n  - EU: 1 day\n  - US: 2 days\n- Threshold: 50 EUR\n"
            "Standard shipping:\n- EU: 3 days\n\nWindow: 30 days\n")
    assert triples(text) == [("express_shipping", "eu", "1 day"), ("express_shipping", "us", "2 days"),
                             ("shipping", "threshold", "50 EUR"), ("standard_shipping", "eu", "3 days"),
                             ("shipping", "window", "30 days")]
    # a sentence that ends in a colon is no label
    assert triples("Please send the following:\n- Order number: on the receipt\n") == [
        ("order", "number", "on the receipt")]


def test_a_key_in_bold_is_a_key() -> None:
    """"**Warranty:** 2 years", as wiki exports and hand-written support pages bold their keys, gave nothing."""
    assert triples("**Warranty:** 2 years\n- **Return window**: 30 days\n__Fee:__ 5 EUR\n") == [
        ("handbook", "warranty", "2 years"), ("return_policy", "window", "30 days"), ("handbook", "fee", "5 EUR")]
    assert triples("**Note** the fee: 5 EUR\n") == []  # (bold that is not the key's: as before)


def test_the_lines_of_front_matter_and_code_blocks_are_reported_as_such() -> None:
    text = "---\nowner: support-team\n---\n```\nTimeout: 30 seconds\n```\nFee: 5 EUR\n"
    located, rejected = gate(text, RuleExtractor().extract(text, source_name="handbook.md"))
    assert [(s.quote, s.detail) for s in extraction_report(text, located, rejected)[0]] == [
        ("owner: support-team", "front matter or a code block: not a statement of the document"),
        ("Timeout: 30 seconds", "front matter or a code block: not a statement of the document")]
