"""The child process of tests/test_concurrency.py: an applier of one correction, started from a fork
server that has imported beliefdb once.

Each child is a real process of its own (forked from the server, never from the test process), opens
its own connection pool, says ``ready`` and waits for its order; the test can SIGKILL it at any
moment. Starting a fresh interpreter for each of them (``python -c``) spent ~1 s of CPU per child on
imports (the SIGKILL test starts 31, the race test 32), time the test then waited for: the fork server
imports beliefdb once and forks a child in milliseconds. What the child runs after the fork is what the
``python -c`` child ran after its imports: nothing it uses (a pool, a connection, the embedder) exists
before the fork.
"""

from __future__ import annotations

import multiprocessing
import os
import warnings
from collections.abc import Mapping
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext
from typing import Any

# imported once here too: beliefdb imports it at an endpoint's first call, and the SIGKILL test's children
# call the embeddings endpoint right after they commit
import httpx  # noqa: F401

import beliefdb
from beliefdb import errors

_CONTEXT: ForkServerContext | None = None


def context() -> ForkServerContext:
    """The fork server context whose server has imported this module and beliefdb's library (``import
    beliefdb`` loads nothing until one of its names is used, PEP 562: each child imported beliefdb.api, ~100
    modules and ~1 s of CPU, at its first connect; 16 children racing on two busy cores were ready 40 s after
    they started)."""
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = multiprocessing.get_context("forkserver")
        _CONTEXT.set_forkserver_preload([__name__, "beliefdb.api"])
    return _CONTEXT


def apply_one(url: str, pipe: Connection, env: Mapping[str, str] | None = None) -> None:
    """Connect as the library does, say ready, then apply the one correction sent and send back its
    outcome (a dict). ``env``: variables set first (the fork server's environment is the one it started
    with, not the test's now)."""
    warnings.simplefilter("ignore")
    os.environ.update(env or {})
    db = beliefdb.connect(url)
    pipe.send("ready")
    order = pipe.recv()
    out: dict[str, Any]
    try:
        r = db.apply_correction(order["belief"], order["statement"], reviewer=order["reviewer"],
                                expect_revision=order["revision"], idempotency_key=order.get("key"))
        out = {"outcome": "already_applied" if r.already_applied else "applied", "correction": str(r.correction),
               "replacement": str(r.replacement), "flagged": sorted(map(str, r.flagged)),
               "held": sorted(map(str, r.held))}
    except errors.StaleCorrectionPreview as exc:
        out = {"outcome": "stale", "code": exc.code, "message": exc.message}
    except errors.NotCorrectable as exc:
        out = {"outcome": "not_correctable", "code": exc.code, "message": exc.message}
    except Exception as exc:
        out = {"outcome": "error", "type": type(exc).__name__, "message": str(exc)}
    pipe.send(out)
    db.close()
