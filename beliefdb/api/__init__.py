"""The library API and the one entry point: ``beliefdb.connect()`` and the :class:`BeliefDB` object an
agent uses (:mod:`beliefdb.api.memory`), and the few operations that come before a workspace is bound
(:mod:`beliefdb.api.operations`), and ``beliefdb.aconnect()`` with :class:`AsyncBeliefDB`, the same methods
awaited (:mod:`beliefdb.api.async_memory`). The CLI, the HTTP and MCP servers and the framework adapters
call this and nothing else."""

from __future__ import annotations

from beliefdb.api.async_memory import AsyncBeliefDB, aconnect
from beliefdb.api.memory import BeliefDB, Progress, connect
from beliefdb.api.operations import (
    SOURCE_VERSION,
    Authenticator,
    authenticator,
    count_claims,
    create_agent,
    create_roles,
    create_token,
    create_workspace,
    delete_workspace,
    demo,
    drop_agent,
    dump_database,
    effective_settings,
    ensure_vector_indexes,
    list_agents,
    list_tokens,
    list_workspaces,
    migrate,
    migration_sql,
    migration_status,
    name_sessions,
    restore_database,
    revoke_token,
    rules,
    server_status,
    server_url,
    start_server,
    stop_server,
    unknown_settings,
    version,
)
from beliefdb.db.connector import DEFAULT_WORKSPACE
from beliefdb.inputs import (
    MOMENT_RANGE,
    check_moment,
    cursor_problem,
    parse_moment,
    scope_conditions,
    shown,
    unstorable,
    unstorable_in,
)
from beliefdb.models import Answer, AskResult, Belief, Calibration, EmbedReport, ServerStatus
from beliefdb.store.beliefs import MAX_PAGE
from beliefdb.store.calibrate import DEFAULT_BINS, MAX_BINS
from beliefdb.store.conversations import CHAT_SUFFIXES
from beliefdb.store.documents import SUPPORTED_SUFFIXES, documents, one_file_a_name, skipped_files, suffix_list
from beliefdb.store.files import read_stream
from beliefdb.store.ingest import max_ingest_bytes
from beliefdb.store.retrieve import MAX_K, MAX_QUESTION

__all__ = [
    "CHAT_SUFFIXES",
    "DEFAULT_BINS",
    "DEFAULT_WORKSPACE",
    "MAX_BINS",
    "MAX_K",
    "MAX_PAGE",
    "MAX_QUESTION",
    "MOMENT_RANGE",
    "SOURCE_VERSION",
    "SUPPORTED_SUFFIXES",
    "Answer",
    "AskResult",
    "AsyncBeliefDB",
    "Authenticator",
    "Belief",
    "BeliefDB",
    "Calibration",
    "EmbedReport",
    "Progress",
    "ServerStatus",
    "aconnect",
    "authenticator",
    "check_moment",
    "connect",
    "count_claims",
    "create_agent",
    "create_roles",
    "create_token",
    "create_workspace",
    "cursor_problem",
    "delete_workspace",
    "demo",
    "documents",
    "drop_agent",
    "dump_database",
    "effective_settings",
    "ensure_vector_indexes",
    "list_agents",
    "list_tokens",
    "list_workspaces",
    "max_ingest_bytes",
    "migrate",
    "migration_sql",
    "migration_status",
    "name_sessions",
    "one_file_a_name",
    "parse_moment",
    "read_stream",
    "restore_database",
    "revoke_token",
    "rules",
    "scope_conditions",
    "server_status",
    "server_url",
    "shown",
    "skipped_files",
    "start_server",
    "stop_server",
    "suffix_list",
    "unknown_settings",
    "unstorable",
    "unstorable_in",
    "version",
]
