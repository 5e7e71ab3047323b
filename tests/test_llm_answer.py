"""The llm extractor's answer is one pydantic model (beliefdb.text.llm_schema.Answer): the strict JSON schema sent
to the endpoint is generated from it, and what it refuses is a malformed answer, re-asked with the reason."""

from __future__ import annotations

import json
from typing import Any

import pytest

from beliefdb.text.llm import RESPONSE_FORMAT, SCHEMA, BeliefItem
from beliefdb.text.llm_schema import MalformedAnswer, content, parse_answer
from beliefdb.vocabulary import BELIEF_KINDS

Q7 = "Returns are accepted within 7 days of delivery."
WINDOW: dict[str, Any] = {"statement": Q7, "subject": "return_policy", "attribute": "window", "value": "7 days",
                          "quote": Q7, "kind": "policy", "scope": [{"key": "region", "value": "EU"}]}


def beliefs(*items: Any) -> str:
    return json.dumps({"beliefs": list(items)})


def without(key: str) -> dict[str, Any]:
    return {k: v for k, v in WINDOW.items() if k != key}


def test_the_schema_is_generated_from_the_model_in_strict_form() -> None:
    assert RESPONSE_FORMAT["json_schema"]["schema"] is SCHEMA
    assert RESPONSE_FORMAT["json_schema"]["strict"] is True
    text = json.dumps(SCHEMA)
    assert "$ref" not in text and "$defs" not in text and '"title"' not in text and '"default"' not in text
    assert SCHEMA["required"] == ["beliefs"] and SCHEMA["additionalProperties"] is False
    item = SCHEMA["properties"]["beliefs"]["items"]
    assert item["required"] == list(BeliefItem.model_fields)
    assert item["required"] == ["statement", "subject", "attribute", "value", "quote", "kind", "scope"]
    assert item["properties"]["kind"] == {"type": "string", "enum": list(BELIEF_KINDS)}
    assert "character for character" in item["properties"]["quote"]["description"]
    scope = item["properties"]["scope"]
    assert scope["type"] == "array" and "region = EU" in scope["description"]
    assert scope["items"] == {"type": "object", "properties": {"key": {"type": "string"},
                                                               "value": {"type": "string"}},
                              "required": ["key", "value"], "additionalProperties": False}


@pytest.mark.parametrize(("content", "says"), [
    ("[]", 'the answer must be an object {"beliefs": [...]}'),
    ("{}", "beliefs: Field required"),
    ('{"beliefs": {}}', "beliefs: Input should be a valid list"),
    (beliefs("x"), "beliefs[0]: Input should be a valid dictionary"),
    (beliefs({**WINDOW, "value": [7]}), "beliefs[0].value: Input should be a valid string"),
    (beliefs(without("quote")), "beliefs[0].quote: Field required"),
    (beliefs({**WINDOW, "statement": " "}), "beliefs[0].statement: must not be empty"),
    (beliefs({**WINDOW, "subject": "  "}), "beliefs[0].subject: must not be empty"),
    (beliefs({**WINDOW, "attribute": "\t"}), "beliefs[0].attribute: must not be empty"),
    (beliefs({**WINDOW, "kind": 3}), "beliefs[0].kind: Input should be a valid string"),
    (beliefs({**WINDOW, "scope": "EU"}), "beliefs[0].scope: Input should be a valid list"),
    (beliefs({**WINDOW, "scope": [{"key": "region"}]}), "beliefs[0].scope[0].value: Field required"),
    (beliefs({**WINDOW, "scope": [{"key": " ", "value": "EU"}]}), "beliefs[0].scope[0].key: scope keys must not be"),
    (beliefs({**WINDOW, "scope": {"region": 1}}), "beliefs[0].scope[0].value: Input should be a valid string"),
    ("not json", "the answer is not JSON"),
])
def test_what_the_model_refuses_is_malformed_with_the_reason(content: str, says: str) -> None:
    with pytest.raises(MalformedAnswer) as caught:
        parse_answer(content)
    assert str(caught.value).startswith(says), str(caught.value)


def test_several_problems_are_listed_up_to_three() -> None:
    with pytest.raises(MalformedAnswer) as caught:
        parse_answer(beliefs({}))
    message = str(caught.value)
    assert message.count("Field required") == 3 and message.endswith("(and 2 more)")


def test_what_it_accepts_beyond_the_schema() -> None:
    # kind and scope may be missing, scope may be an object, unknown fields are ignored; names stay as given
    (item,) = parse_answer(beliefs({**without("kind"), "scope": {"region": "EU"}, "confidence": 0.9,
                                    "subject": "Return policy"}))
    assert item.kind == "other" and item.subject == "Return policy"
    assert [(c.key, c.value) for c in item.scope] == [("region", "EU")]
    (item,) = parse_answer(f"```json\n{beliefs({**without('scope'), 'kind': 'guideline'})}\n```")
    assert item.kind == "guideline" and item.scope == []  # the extractor keeps an unknown kind as 'other'


def test_a_number_or_a_boolean_value_is_its_text() -> None:
    """``"value": 6`` was a malformed answer, asked again: it is the text the model meant."""
    found = [item.value for item in parse_answer(beliefs(*({**WINDOW, "value": v} for v in (6, 7.0, 2.5, True))))]
    assert found == ["6", "7", "2.5", "true"]


def test_an_answer_cut_at_the_token_limit_is_said_so() -> None:
    """An answer cut short (finish_reason "length") was re-asked as "not JSON", not saying why."""
    body = {"choices": [{"finish_reason": "length", "message": {"role": "assistant", "content": '{"beliefs": [{"st'}}]}
    with pytest.raises(MalformedAnswer, match=r"cut at the model's token limit \(finish_reason \"length\"\)"):
        content(body)
