"""A memory opened on a workspace deleted since (or deleted and made again under its name, a new id the
memory does not follow) says so: a write is refused naming the workspace as gone, where it said "no
workspace bound (set beliefdb.workspace_id)", a setting the library's user never sets; and ask raises
unknown_workspace where it answered no_match, as if the workspace held nothing on the question (trial20)."""

from __future__ import annotations

import pytest

import beliefdb
from beliefdb import api, errors


@pytest.mark.parametrize("made_again", [False, True])
def test_a_memory_of_a_deleted_workspace_says_it_is_gone(db_url: str, made_again: bool) -> None:
    api.create_workspace("delme", url=db_url)
    with beliefdb.connect(db_url, workspace="delme") as db:
        db.remember("A is 1.", "a", "v", "1", "A is 1", source="s1", text="A is 1.\n")
        assert db.ask("what is a").status == "ok"
        api.delete_workspace("delme", url=db_url, force=True)
        if made_again:
            api.create_workspace("delme", url=db_url)
        with pytest.raises(errors.UnknownWorkspace, match="no longer exists"):
            db.remember("A is 2.", "a", "v", "2", "A is 2", source="s2", text="A is 2.\n")
        with pytest.raises(errors.UnknownWorkspace, match="no longer exists"):
            db.ask("what is a")
        # nor do its listings answer empty, as if it held nothing (they did)
        for listing in (lambda: db.beliefs(), lambda: db.beliefs(limit=10), lambda: db.answers(subject="a"),
                        lambda: db.newest()):
            with pytest.raises(errors.UnknownWorkspace, match="no longer exists"):
                listing()
    with beliefdb.connect(db_url, workspace="delme" if made_again else "default") as fresh:
        assert fresh.ask("what is a").status == "no_match"  # (an empty workspace still answers no_match)
        assert fresh.beliefs() == [] and fresh.answers(subject="a") == [] and fresh.newest() == []


def test_workspaces_made_at_once_under_one_name_are_one_and_the_others_told_it_exists(db_url: str) -> None:
    """Two sessions creating one name at the same moment: the second's insert met the unique key after its
    check found no such workspace, and said PostgreSQL's words ('duplicate key value violates unique
    constraint "workspace_name_key"'). Made deterministic: the other session inserts between the check and
    the insert (its transaction commits while this one waits on the key)."""
    import threading

    import psycopg

    from beliefdb.db.queries import Q

    with psycopg.connect(db_url) as other, psycopg.connect(db_url, autocommit=True) as watch:
        other.execute(Q.create_workspace, ("raced",))  # (uncommitted: this session's check does not see it)
        mine = other.execute("select pg_backend_pid()").fetchone()

        waited: list[bool] = []

        def commit_once_waited_on() -> None:  # (this session's insert waits on the other's key)
            for _ in range(1000):
                if watch.execute("select exists (select from pg_stat_activity a"
                                 " where %s = any(pg_catalog.pg_blocking_pids(a.pid)))", mine).fetchone() == (True,):
                    waited.append(True)
                    break
                threading.Event().wait(0.01)
            other.commit()

        thread = threading.Thread(target=commit_once_waited_on)
        thread.start()
        try:
            with pytest.raises(errors.IntegrityViolation) as raised:
                api.create_workspace("raced", url=db_url)
        finally:
            thread.join()
    assert waited == [True]  # (the insert met the other's key: the race itself, not the check before it)
    assert str(raised.value.message) == "workspace 'raced' already exists"
    assert [w.name for w in api.list_workspaces(url=db_url, match="raced")] == ["raced"]
