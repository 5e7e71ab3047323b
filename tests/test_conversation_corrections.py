"""A speaker correcting a value they gave (a user trial: a customer-support agent's conversation memory):
the correction names the same attribute as the first statement and its value is the value alone, so the
old value is superseded ("my email is actually X", "my new address is X", "I live in X now 🙂")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import beliefdb
from beliefdb.text.clauses import also_said
from beliefdb.text.self_statements import self_statement


def day(n: int) -> datetime:
    return datetime(2024, 6, 3, 10, 0, tzinfo=UTC) + timedelta(days=n)


@pytest.mark.parametrize(("sentence", "found"), [
    # the trial's turns
    ("Sorry, my email is actually maya@new.example.com", ("email", "maya@new.example.com")),
    ("Correction: my email address is lena@new.example.com", ("email", "lena@new.example.com")),
    ("My new address is 9 Elm Rd, Shelbyville.", ("address", "9 Elm Rd, Shelbyville")),
    ("My address is 5 Main St, Springfield", ("address", "5 Main St, Springfield")),
    ("I live in São Paulo now 🙂", ("lives_in", "São Paulo")),
    ("I typed it wrong, my email is really x@y.com", ("email", "x@y.com")),
    # a filler adverb before or after a value is no part of it
    ("My email is currently a@b.com.", ("email", "a@b.com")),
    ("My email is still a@b.com.", ("email", "a@b.com")),
    ("I work at Acme currently.", ("works_at", "Acme")),
    ("I live in Lisbon right now.", ("lives_in", "Lisbon")),
    ("My daughter is still 5.", ("daughter_age", "5")),
    ("I work at Now TV.", ("works_at", "Now TV")),  # (a name that starts with one keeps it)
    # ... but an intensifier before no datum still says no value
    ("My son is really happy.", None),
    ("My mom is still coming.", None),
    # an emoji or emoticon after a value is no part of it, nor is one after an age
    ("I live in Lisbon now 😀😀", ("lives_in", "Lisbon")),
    ("I moved to Porto 🇵🇹", ("lives_in", "Porto")),
    ("I work at Acme ❤️", ("works_at", "Acme")),
    ("I live in Lisbon =)", ("lives_in", "Lisbon")),
    ("I live in Lisbon <3", ("lives_in", "Lisbon")),
    ("I'm 35 now 🙂", ("age", "35")),
    # "new", "current", "updated", "correct" before the noun name the same attribute; e-mail is email
    ("My current email is a@b.com", ("email", "a@b.com")),
    ("My updated email address is a@b.com", ("email", "a@b.com")),
    ("My correct email is a@b.com", ("email", "a@b.com")),
    ("My e-mail is a@b.com", ("email", "a@b.com")),
    ("My new e-mail address is a@b.com", ("email", "a@b.com")),
    ("My work email address is a@b.com", ("work_email", "a@b.com")),
    ("My new shipping address is 4 Oak Ave, Portland, OR 97201.",
     ("shipping_address", "4 Oak Ave, Portland, OR 97201")),
    ("My new phone number is 555-0199.", ("phone_number", "555-0199")),  # (as a document names it)
    ("My phone number is (555) 123-4567.", ("phone_number", "(555) 123-4567")),
    # an address keeps its comma parts, up to a clause; other values stop at the comma
    ("My address is 12 Baker Street, London NW1 6XE.", ("address", "12 Baker Street, London NW1 6XE")),
    ("My address is Flat 3, 12 Baker Street, London.", ("address", "Flat 3, 12 Baker Street, London")),
    ("My address is 5 Main St, Springfield, which is nice.", ("address", "5 Main St, Springfield")),
    ("My address is 5 Main St, Springfield and I love it.", ("address", "5 Main St, Springfield")),
    ("My address is 5 Main St, but I'm moving soon.", ("address", "5 Main St")),
    ("my email is x@y.com, and I like tea", ("email", "x@y.com")),
    ("My favourite colour is green, and blue too.", ("favorite_color", "green")),
    ("My email is john.and.jane@for.example.com", ("email", "john.and.jane@for.example.com")),
    # what worked before still does
    ("My email is now maya@new.example.com.", ("email", "maya@new.example.com")),
    ("we switched to the annual plan", ("plan", "annual plan")),
    ("I moved to Berlin last month.", ("lives_in", "Berlin")),
    ("Actually, I moved to Berlin last month!", ("lives_in", "Berlin")),
    ("My daughter is 6 now.", ("daughter_age", "6")),
    ("I still live in Lisbon, not Porto.", ("lives_in", "Lisbon")),
    ("My new car is a Honda Jazz.", ("car", "Honda Jazz")),
    ("My new job at Quill Press is great.", ("works_at", "Quill Press")),
])
def test_a_correction_names_the_attribute_and_the_value_alone(sentence: str, found: tuple[str, str] | None) -> None:
    assert self_statement(sentence) == found


def test_a_second_clause_keeps_its_value_alone() -> None:
    assert also_said("I'm 35 and live in São Paulo now 🙂") == ("lives_in", "São Paulo")


@pytest.mark.slow
def test_a_correction_supersedes_the_value_it_corrects(bdb: beliefdb.BeliefDB) -> None:
    said = [("maya", "My email is maya@old.example.com.", "Sorry, my email is actually maya@new.example.com"),
            ("lena", "My email is lena@old.example.com.", "Correction: my email address is lena@new.example.com"),
            ("omar", "My address is 5 Main St, Springfield", "My new address is 9 Elm Rd, Shelbyville."),
            ("ines", "I moved to Lisbon last year.", "I live in São Paulo now 🙂"),
            ("theo", "My email is x@y.co.", "I typed it wrong, my email is really x@y.com")]
    for n, (speaker, before, after) in enumerate(said):
        bdb.remember_turn(f"support-{speaker}", speaker, before, time=day(n), embed=False)
        bdb.remember_turn(f"support-{speaker}", speaker, after, time=day(n + 30), embed=False)
    current = {(b.subject, b.attribute): b.value for b in bdb.beliefs()}
    assert current == {("maya", "email"): "maya@new.example.com", ("lena", "email"): "lena@new.example.com",
                       ("omar", "address"): "9 Elm Rd, Shelbyville", ("ines", "lives_in"): "São Paulo",
                       ("theo", "email"): "x@y.com"}
    stale = {(b.subject, b.value) for b in bdb.beliefs(include_all=True) if b.status == "superseded"}
    assert stale == {("maya", "maya@old.example.com"), ("lena", "lena@old.example.com"),
                     ("omar", "5 Main St, Springfield"), ("ines", "Lisbon"), ("theo", "x@y.co")}
