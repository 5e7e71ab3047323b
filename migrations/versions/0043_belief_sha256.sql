-- Frozen at revision 0043: a belief keeps the sha256 of what it says (statement, subject, attribute,
-- value, kind, scope, valid time, world), computed when it is stored, so that audit_verify finds a
-- belief whose words were changed afterwards: beliefdb never changes them (a correction is a new
-- belief), and a hand-written update appended an event like beliefdb's own and verified. A belief
-- stored before takes the sha256 of what it says now (events belief.update name them, 50,000 a
-- statement). The hash is beliefdb.belief_sha256 (api/50_audit.sql), written out here as it was
-- at this revision. Never edit: change functions in sql/ (re-applied after every upgrade).

alter table beliefdb.belief add column sha256 bytea;
-- in statements of 50,000 beliefs: each statement's audit event names its rows and hashes their text,
-- which for one statement over millions of beliefs outgrew what a jsonb value or a text may hold
do $$
declare
    v_ws uuid;
    v_from uuid;
    v_to uuid;
begin
    for v_ws in select w.id from beliefdb.workspace w order by w.id loop
        v_from := null;
        loop
            v_to := null;
            select x.id into v_to
              from (select b.id from beliefdb.belief b
                     where b.workspace_id = v_ws and (v_from is null or b.id > v_from)
                     order by b.id limit 50000) x
             order by x.id desc limit 1;
            exit when v_to is null;
            update beliefdb.belief b
               set sha256 = pg_catalog.sha256(pg_catalog.convert_to(pg_catalog.concat_ws(E'\x1f',
                       b.statement, b.subject, b.attribute, b.value, b.kind, b.scope::text,
                       pg_catalog.concat(case when pg_catalog.isempty(b.valid_time) then 'empty' end,
                                         case when pg_catalog.lower_inc(b.valid_time) then '[' else '(' end,
                                         extract(epoch from pg_catalog.lower(b.valid_time)), ',',
                                         extract(epoch from pg_catalog.upper(b.valid_time)),
                                         case when pg_catalog.upper_inc(b.valid_time) then ']' else ')' end),
                       b.provenance::text), 'UTF8'))
             where b.workspace_id = v_ws and (v_from is null or b.id > v_from) and b.id <= v_to;
            v_from := v_to;
        end loop;
    end loop;
end
$$;
alter table beliefdb.belief alter column sha256 set not null;
