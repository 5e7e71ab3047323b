-- Frozen at revision 0048: a source's authority before each change of it, and when (as-of confidence
-- reads the authority a source had then, rule 9); and a span forget masks remembers the line it lay in (the line's offset and
-- length in its version, and a keyed digest of the line's words as they were, under the workspace's
-- secret key), so that the same line, back word for word in a text of the same source, is masked
-- again (rule 14: a chat cut at its end, forgotten in, then ingested whole again). Spans masked
-- before this revision have no line: what they took out is not recognised when it comes back.
-- Never edit: change functions in sql/ (re-applied after every upgrade).

alter table beliefdb.redaction
    add column line_start integer,
    add column line_length integer,
    add column line_digest bytea,
    add constraint redaction_line_check
        check ((line_start is null) = (line_digest is null) and (line_length is null) = (line_digest is null));
comment on table beliefdb.redaction is 'A span of a source version masked when something in it was forgotten: offsets, reason and its line''s keyed digest, never the text';

-- A source's authority before each change of it, and when it changed: source.authority says only what
-- it is now, and as-of confidence asks what it was then (rule 9). Derived: a trigger
-- (internal/38_decisions.sql) writes a row whenever a source's authority changes (revision 0048;
-- changes before it left none).
create table beliefdb.authority_change (
    workspace_id uuid not null,
    id uuid not null default pg_catalog.gen_random_uuid(),
    source_id uuid not null,
    authority_before beliefdb.authority not null,
    changed_at timestamptz not null,
    primary key (workspace_id, id),
    foreign key (workspace_id, source_id) references beliefdb.source (workspace_id, id) on delete cascade
);
comment on table beliefdb.authority_change is 'Derived: a source''s authority before each change of it, and when (what as-of confidence reads)';
create index authority_change_source on beliefdb.authority_change (workspace_id, source_id, changed_at);
