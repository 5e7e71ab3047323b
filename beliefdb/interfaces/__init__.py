"""How agents reach beliefdb over the network: the HTTP API (:mod:`beliefdb.interfaces.http`) and the
MCP server (:mod:`beliefdb.interfaces.mcp`). Each is a thin layer over :class:`beliefdb.api.BeliefDB`,
never a second path to the database: it parses a request, calls the entry point as the principal and
in the workspace of the caller's bearer token (:mod:`beliefdb.interfaces.access`), and answers with
the JSON the CLI prints with ``--json`` (:mod:`beliefdb.render`)."""
