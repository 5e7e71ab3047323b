-- Frozen at revision 0044: what a forget reports (rule 14 of docs/rules.md). Its report counts the
-- queued jobs and the proposals whose text it masked (jobs, proposals), and lists where people typed
-- a forgotten subject's name (mentions: a decision's title, a run's task...), which it leaves as typed.
-- Its audit event records a digest keyed by the workspace's secret (beliefdb.audit_key), not the plain
-- SHA-256 of the name, which a list of names reversed; the plain digests recorded before lose their
-- event's payload (below). A decision counts the reasons it had that were forgotten
-- (decision.forgotten_reasons): they go with what they cited, and its page says so.
-- Never edit: change functions in sql/ (re-applied after every upgrade).

alter type beliefdb.forget_result add attribute jobs integer, add attribute proposals integer,
                                  add attribute mentions jsonb;

-- Each workspace's secret key for the digests its audit chain records of what was forgotten (revision
-- 0044): a forget event keeps the HMAC-SHA-256 of the name under this key, which a list of names does
-- not reverse. Made on the workspace's first forget; read only by beliefdb's own functions (the
-- application role has no privilege on it).
create table beliefdb.audit_key (
    workspace_id uuid primary key references beliefdb.workspace (id) on delete cascade,
    key bytea not null check (pg_catalog.length(key) = 64),
    created_at timestamptz not null default pg_catalog.now()
);
comment on table beliefdb.audit_key is 'Each workspace''s secret key for the keyed digests (HMAC-SHA-256) its forget events record';

-- A forget event recorded the plain SHA-256 of the subject or the source's name it forgot, which anyone
-- with a list of names could compute: those events (of every workspace) keep their hashes only, their
-- payload redacted as an event naming a forgotten source is, so the chain still verifies. (A forgotten
-- belief's digest was of its id, no name: those stay.)
update beliefdb.audit_event set payload = null
 where action = 'forget' and payload ? 'sha256' and payload ->> 'target' in ('subject', 'source');

-- How many reasons of a decision were forgotten: a reason that cites something forgotten goes with it,
-- and nothing else would say the decision had it.
alter table beliefdb.decision add column forgotten_reasons integer not null default 0 check (forgotten_reasons >= 0);
