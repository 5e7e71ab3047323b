-- Frozen at revision 0015: hardening (issue 22). Never edit: change tables through a new revision,
-- and sql/schema/10_tables.sql with it.
-- The application role could append events of its own making to its workspace's audit chain
-- through the granted beliefdb.audit. It goes; beliefdb's functions with owner rights append their
-- summaries through beliefdb._audit (internal, not granted), re-applied after this revision. A
-- function body names its callees as text, so dropping the old name is safe: the callers are
-- re-created with the new one right after.
drop function if exists beliefdb.audit(text, jsonb);
