"""Reading a caller's files: regular files only, names shown printable, JSON Lines split on newlines.

A FIFO, a socket or a device is refused without being opened: reading one blocks until a writer
comes, or never ends. The file is opened without blocking and checked again once open, so one
swapped in after the check is refused too. A name with bytes that are not UTF-8 is read all the
same and shown with those bytes escaped (:func:`beliefdb.inputs.shown`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from beliefdb import errors
from beliefdb.inputs import shown

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"))


def _not_regular(mode: int, name: str) -> errors.InvalidInput:
    if stat.S_ISDIR(mode):
        return errors.InvalidInput(f"{name}: is a directory, not a file")
    kind = next((said for test, said in _KINDS if test(mode)), "not a regular file")
    return errors.InvalidInput(f"{name}: {kind}, not a regular file: refused without opening it")


def check_regular(path: Path, missing: str = "no such file") -> None:
    """NotFound, or InvalidInput for a directory, a FIFO, a socket, a device or an unreadable path,
    without opening it."""
    name = shown(path)
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        raise errors.NotFound(f"{name}: {missing}") from None
    except ValueError:  # a NUL character in the name
        raise errors.InvalidInput(f"{name}: not a valid file name") from None
    except OSError as exc:
        raise errors.InvalidInput(f"{name}: cannot read it ({exc.strerror or exc})") from None
    if not stat.S_ISREG(mode):
        raise _not_regular(mode, name)


def read_regular(path: Path, missing: str = "no such file") -> bytes:
    """The bytes of a regular file, or the error :func:`check_regular` names."""
    check_regular(path, missing)
    name = shown(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise errors.NotFound(f"{name}: {missing}") from None
    except OSError as exc:
        raise errors.InvalidInput(f"{name}: cannot read it ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(f.fileno()).st_mode
        if not stat.S_ISREG(mode):  # swapped for something else since the check
            raise _not_regular(mode, name)
        try:
            return f.read()
        except OSError as exc:
            raise errors.InvalidInput(f"{name}: cannot read it ({exc.strerror or exc})") from None


def check_output(path: Path) -> None:
    """InvalidInput when ``path``, to be written, is there and is not a regular file (writing to a FIFO
    blocks until a reader comes)."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return  # to be created (or the write says why it cannot be)
    except (OSError, ValueError) as exc:
        raise errors.InvalidInput(f"{shown(path)}: cannot write it ({getattr(exc, 'strerror', None) or exc})") from None
    if not stat.S_ISREG(mode):
        raise _not_regular(mode, shown(path))


def without_bom(text: str) -> str:
    """``text`` without a leading byte order mark (U+FEFF): it marks the encoding, it is not the document's
    text. What is stored, and every offset into it, starts after it, whether the text came as a file's
    bytes or as a string (ingest_text, bulk_ingest, remember's ``text``)."""
    return text.removeprefix("\ufeff")


def decode_utf8(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text without a byte order mark, or InvalidInput naming the line of the first
    bad byte: a NUL (binary), or one that is not UTF-8. UTF-16 and UTF-32 text, which only looks
    binary, is named as such."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        raise errors.InvalidInput(f"{name} line 1: UTF-16 or UTF-32 text, not UTF-8 (convert it, e.g. with iconv)")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise errors.InvalidInput(f"{name} line {line}: binary file (contains NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise errors.InvalidInput(f"{name} line {line}: not valid UTF-8 (byte {column} of the line, {exc.start + 1} of"
                                  " the file)") from None
    return without_bom(text)


def lines(text: str) -> Iterator[tuple[int, str]]:
    """The numbered lines of JSON Lines text: split on ``\\n`` only (a trailing ``\\r`` dropped). A JSON
    string may hold U+2028, U+2029 and U+0085, where ``str.splitlines`` splits too (as on \\v, \\f and
    \\x1c-\\x1e), which would cut a valid line in two and misnumber the lines after it."""
    for number, line in enumerate(text.split("\n"), start=1):
        yield number, line.removesuffix("\r")


def read_stream(stream: BinaryIO, name: str, limit: int) -> str:
    """The UTF-8 text of a stream (standard input, ``name`` in messages), at most ``limit`` bytes: past
    them InvalidInput, read no further (a stream has no size to check first); empty text refused."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise errors.InvalidInput(f"{name}: over the ingest limit of {limit:,} bytes; raise it with"
                                  f" {errors.argument('max_bytes')} or BELIEFDB_INGEST_MAX_BYTES")
    text = decode_utf8(data, name)
    if not text.strip():
        raise errors.InvalidInput(f"{name}: empty text")
    return text
