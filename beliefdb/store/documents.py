"""The documents paths name: a file by itself, a directory by its files of the kinds ingest reads, each
source named by the file's path below the directory (``beliefdb ingest DIR``, ``--queue``, ``--bulk``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from beliefdb import errors
from beliefdb.inputs import shown

__all__ = ["SUPPORTED_SUFFIXES", "documents", "named_documents", "no_documents", "one_file_a_name", "skipped_files",
           "suffix_list"]

SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown")


def documents(paths: Sequence[Path], suffixes: Sequence[str] = SUPPORTED_SUFFIXES) -> list[tuple[str, Path]]:
    """(source name, file) of each document ``paths`` name: a file by its name; a directory's files with
    one of ``suffixes`` (.txt, .md and .markdown; a conversation's also .jsonl), recursively and in name
    order, each named by its path below the directory. A file named twice (as itself and in its
    directory, say) is one document, named the first way."""
    named: dict[Path, str] = {}
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix.lower() in suffixes and p.is_file())
            for p in found:
                named.setdefault(p, shown(p.relative_to(path).as_posix()))
        else:
            named.setdefault(path, shown(path.name))
    return [(name, path) for path, name in named.items()]


def one_file_a_name(documents: Iterable[tuple[str, Path]]) -> None:
    """Refuse two files of :func:`documents` that would be one source (``d1/p.md`` and ``d2/p.md``, each
    named ``p.md``; ``projects/*/README.md``): the second would silently be a new version of the first, and
    supersede what it says. The command line asks this; the library takes them as versions, in order."""
    first: dict[str, Path] = {}
    for name, path in documents:
        # (one file spelled two ways, a/a.md and a/../a/a.md, or by a link, is one document)
        if (other := first.setdefault(name, path)).resolve() != path.resolve():
            raise errors.InvalidInput(
                f"{shown(other)} and {shown(path)} would both be the source '{name}' (a file is the source of its"
                " name): ingest one of them by itself with --source NAME, or, when one is a new version of the"
                " other, ingest them one command after the other")


def suffix_list(suffixes: Sequence[str], last: str = "or") -> str:
    """``.txt, .md or .markdown``: the suffixes as a sentence says them."""
    return ", ".join(suffixes[:-1]) + f" {last} {suffixes[-1]}" if len(suffixes) > 1 else "".join(suffixes)


def skipped_files(paths: Sequence[Path], suffixes: Sequence[str] = SUPPORTED_SUFFIXES) -> list[tuple[Path, str]]:
    """The files of the directories ``paths`` name that :func:`documents` leaves out (their suffix is not
    one of ``suffixes``; a broken link, a link to a directory, which is not followed, and what is no
    regular file, a pipe or a socket, whatever its suffix), in name order, each with the reason; a file
    named by itself is never skipped. Nothing is opened."""
    skipped: dict[Path, str] = {}
    for path in paths:
        if path.is_dir():
            for p in sorted(path.rglob("*")):
                if (why := _left_out(p, suffixes)) is not None:
                    skipped.setdefault(p, why)
    return list(skipped.items())


def _left_out(p: Path, suffixes: Sequence[str]) -> str | None:
    """Why :func:`documents` leaves out the entry ``p`` of a directory, or None when it reads it or it is
    a directory it walks."""
    if p.is_symlink() and not p.exists():
        return "a broken link"
    if p.is_dir():
        return "a link to a directory (not followed: give it by itself)" if p.is_symlink() else None
    if not p.is_file():
        return "not a regular file"
    if p.suffix.lower() in suffixes:
        return None
    return "a conversation: ingest it with --format chat" if p.suffix.lower() == ".jsonl" \
        else f"not a {suffix_list(suffixes)} file"


def no_documents(what: str, suffixes: Sequence[str] = SUPPORTED_SUFFIXES,
                 directories: Sequence[Path] = ()) -> errors.InvalidInput:
    """The error for paths that name no document (``directories``: the ones given, named in it)."""
    hint = "; .jsonl conversations with --format chat" if what == "ingest" and ".jsonl" not in suffixes else ""
    where = f"{', '.join(shown(d) for d in directories)}: " if directories else ""
    return errors.InvalidInput(f"{where}no documents to {what} (a directory's {', '.join(suffixes)} files"
                               f" count{hint})")


def named_documents(paths: Sequence[Path], what: str, suffixes: Sequence[str] = SUPPORTED_SUFFIXES, *,
                    source: str | None = None) -> dict[Path, str]:
    """Each file of :func:`documents` with its source name; none is an error saying what could not be
    done (``what``) and naming the directories given, and so are several when the caller names the
    one source they are (``source``, what ``--source`` gives; a blank one is an error too)."""
    if source is not None and not source.strip():  # (not "no name": each file would take its own)
        raise errors.InvalidInput(f"{errors.argument('source')} is blank: give the source's name, or leave it out"
                                  " to name each source by its file")
    named = {path: name for name, path in documents(paths, suffixes)}
    if not named:
        raise no_documents(what, suffixes, [p for p in paths if p.is_dir()])
    if source and len(named) > 1:
        raise errors.InvalidInput(f"{errors.argument('source')} names one source: give it one file at a time")
    return named
