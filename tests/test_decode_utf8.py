"""What a file that is not UTF-8 text is told: the line of the first bad byte, and where in that line (the
byte counted from the file's start alone, 'byte 15' of line 2, read as the line's 15th, was the file's)."""

from __future__ import annotations

import pytest

from beliefdb import errors
from beliefdb.store.files import decode_utf8


@pytest.mark.parametrize(("data", "said"), [
    (b"Caf\xe9: 1\n", "f.md line 1: not valid UTF-8 (byte 4 of the line, 4 of the file)"),
    (b"Price: 10 EUR\nCaf\xe9: 1\n", "f.md line 2: not valid UTF-8 (byte 4 of the line, 18 of the file)"),
    (b"a\nb\n\xff", "f.md line 3: not valid UTF-8 (byte 1 of the line, 5 of the file)"),
    (b"ok\x00", "f.md line 1: binary file (contains NUL bytes)"),
    (b"\xff\xfeh\x00", "f.md line 1: UTF-16 or UTF-32 text, not UTF-8 (convert it, e.g. with iconv)"),
])
def test_text_that_is_not_utf8_names_its_line_and_byte(data: bytes, said: str) -> None:
    with pytest.raises(errors.InvalidInput) as raised:
        decode_utf8(data, "f.md")
    assert raised.value.message == said


def test_a_byte_order_mark_is_not_part_of_the_text() -> None:
    assert decode_utf8("\ufeffWarranty: 2 years\n".encode(), "f.md") == "Warranty: 2 years\n"
