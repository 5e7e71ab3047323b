-- The application role and row-level security (rule 13). The session starts as the migrating
-- user, which owns the tables and sees every workspace.
insert into beliefdb.workspace (name) values ('other');
select name from beliefdb.workspace order by name;

-- beliefdb_app with no workspace bound sees no workspace rows at all
set role beliefdb_app;
select beliefdb.current_workspace_id() is null as unbound, count(*) as sources from beliefdb.source;
-- and the functions that write need a workspace (BD003)
select beliefdb.ingest_version('notes.md', 'Nothing is bound.');

-- bind 'default', name yourself, write
select set_config('beliefdb.workspace_id', (select id::text from beliefdb.workspace where name = 'default'), false) is not null as bound;
select set_config('beliefdb.principal', 'dba:alice', false) as principal;
select beliefdb.current_principal();
select beliefdb.ingest_version('notes.md', 'The warehouse opens at 8.',
    p_claims => '[{"statement": "The warehouse opens at 8.", "subject": "warehouse", "attribute": "opens",
                   "value": "8", "quote": "The warehouse opens at 8.", "start": 0, "end": 25}]') ->> 'new_version' as new_version;
select statement, owner from beliefdb.current_beliefs;

-- bound to 'other', the same role sees none of it
select set_config('beliefdb.workspace_id', (select id::text from beliefdb.workspace where name = 'other'), false) is not null as bound;
select count(*) as beliefs, (select count(*) from beliefdb.audit_event) as audit_events from beliefdb.belief;
select set_config('beliefdb.workspace_id', (select id::text from beliefdb.workspace where name = 'default'), false) is not null as bound;

-- beliefdb_app writes only through beliefdb's functions: hand-written changes are refused
update beliefdb.belief set status = 'retracted';
insert into beliefdb.relation (from_belief, to_belief, kind)
select id, id, 'supersedes' from beliefdb.belief limit 1;
delete from beliefdb.evidence;
update beliefdb.node set holds = false;
delete from beliefdb.workspace where name = 'other';
select status from beliefdb.belief;

-- the audit chain takes events only from beliefdb's own changes: its internals are not granted
select has_function_privilege('beliefdb_app', 'beliefdb._audit_append(uuid, text, jsonb, boolean)', 'execute') as audit_append,
       has_function_privilege('beliefdb_app', 'beliefdb._audit(text, jsonb)', 'execute') as audit,
       has_function_privilege('beliefdb_app', 'beliefdb.ingest_version(text, text, beliefdb.origin_type, beliefdb.authority, beliefdb.provenance, text, text, jsonb, jsonb, jsonb)', 'execute') as ingest_version;

-- the source text is immutable for every role, the owner included (BD002)
reset role;
update beliefdb.source_version set content = 'The warehouse opens at 9.';

-- the error codes beliefdb raises, one meaning each
select code, name from beliefdb.error_code order by code;

-- two principals on one belief: bob's correction of alice's belief is a proposal for her
set role beliefdb_app;
select set_config('beliefdb.principal', 'alice', false) as principal;
select beliefdb.ingest_version('hours.md', 'The shop closes at 18.',
    p_claims => '[{"statement": "The shop closes at 18.", "subject": "shop", "attribute": "closes",
                   "value": "18", "quote": "The shop closes at 18.", "start": 0, "end": 22}]') -> 'accepted' -> 0 ->> 'id' as closes \gset
select set_config('beliefdb.principal', 'bob', false) as principal;
select proposed, owner from beliefdb.apply_correction(:'closes', 'The shop closes at 20.', '20', 'bob', 'new hours', 1);
select kind, proposed_by, subject from beliefdb.review_queue where kind = 'correction_proposed';
select id as item from beliefdb.review_queue where kind = 'correction_proposed' \gset
-- bob cannot approve it, nor retract alice's belief (BD008)
select beliefdb.review_resolve(:'item', 'approved');
select beliefdb.retract('node', :'closes', 'mine now');
-- alice approves: the correction is applied as hers
select set_config('beliefdb.principal', 'alice', false) as principal;
select status from beliefdb.review_resolve(:'item', 'approved');
select value, status, owner from beliefdb.belief where subject = 'shop' order by value;
