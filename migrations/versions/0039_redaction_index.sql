-- Frozen at revision 0039: beliefdb.redaction by source version (each ingest of a source reads the
-- spans forgotten in its text in force; a version's deletion cascades here). Never edit: change
-- functions in sql/ (re-applied after every upgrade).

create index redaction_version on beliefdb.redaction (workspace_id, source_version_id, start_offset);
