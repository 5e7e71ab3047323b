"""How ``beliefdb serve`` stops: within a bound, whatever its clients do.

On SIGTERM (or Ctrl-C) uvicorn stops accepting connections and waits for the requests it is answering;
on its own it waits for ever, so a client that sent half a request and went quiet, or a call waiting on a
lock in the database, kept the server running. Here it waits at most ``grace`` seconds, then cancels the
requests still running, shuts the application down (its pools closed) and ends the process by the signal
it caught, as uvicorn does; a call still in a database statement then is rolled back by PostgreSQL as its
connection goes. Should the shutdown itself hang (closing pools while the database does not answer), the
process exits regardless ``MARGIN_S`` seconds after the grace, with status 1."""

from __future__ import annotations

import logging
import os
import threading
import time
from types import FrameType

import uvicorn

log = logging.getLogger("beliefdb.serve")

#: how long the application's shutdown (closing its pools) may take after the grace, before the exit
MARGIN_S = 5.0


class Server(uvicorn.Server):
    """uvicorn's server, stopping within ``grace`` + :data:`MARGIN_S` seconds of the first SIGTERM or SIGINT."""

    def __init__(self, config: uvicorn.Config, *, grace: int) -> None:
        self.grace = max(grace, 0)
        config.timeout_graceful_shutdown = self.grace
        super().__init__(config)
        self._deadline: threading.Thread | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        if self._deadline is None:
            self._deadline = threading.Thread(target=self._exit_at_deadline, name="beliefdb-serve-deadline",
                                              daemon=True)
            self._deadline.start()

    def _exit_at_deadline(self) -> None:
        time.sleep(self.grace + MARGIN_S)
        log.error("beliefdb serve did not stop within %g s of the signal (a call still runs): exiting now",
                  self.grace + MARGIN_S)
        logging.shutdown()
        os._exit(1)
