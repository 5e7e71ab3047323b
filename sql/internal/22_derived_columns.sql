-- beliefdb: columns that repeat what other rows say, kept by triggers whoever writes.
-- The consequent copied onto antecedent edges, justification.unmet and decision.reasons; a DBA
-- recomputes decision.reasons after a bulk load with beliefdb.refresh_decision_reasons
-- (api/70_dba_tools.sql).

-- An antecedent edge carries its justification's consequent, so walking a closure forward is
-- one index-only scan per node (justification_antecedent_antecedent).
-- (workspace_id has no statistics, so the planner took justification_consequent, whose key is
-- (workspace_id, consequent), for a cheap way to find one id and read every justification of the
-- workspace for each edge: an ingest took time quadratic in its size. Without index-only scans
-- the primary key is the only cheap way.)
create or replace function beliefdb.antecedent_consequent() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
set enable_indexonlyscan = off
as $$
begin
    select j.consequent into new.consequent
      from beliefdb.justification j
     where j.workspace_id = new.workspace_id and j.id = new.justification_id;
    -- BEFORE ROW triggers run before row-level security: a row aimed at another workspace is
    -- left for the policy to refuse
    if new.consequent is null and new.workspace_id = beliefdb.current_workspace_id() then
        -- what the foreign key would say, before the not-null check says something vaguer
        raise exception 'insert or update on table "justification_antecedent" violates foreign key constraint '
                        '"justification_antecedent_workspace_id_justification_id_fkey"'
            using errcode = 'foreign_key_violation',
                  detail = pg_catalog.format('Key (workspace_id, justification_id)=(%s, %s) is not present in table "justification".',
                                             new.workspace_id, new.justification_id);
    end if;
    return new;
end
$$;
comment on function beliefdb.antecedent_consequent() is 'Trigger: copy the justification''s consequent onto its antecedent edge';

-- A set-based insert that wrote each edge's consequent itself, from the justifications it inserted
-- just before (a bulk ingest's), says so for its transaction in beliefdb.edges_noted: the WHEN
-- skips its rows that carry one, where the trigger took 25 us a row to look it up again. A row
-- without one, or any other statement, is looked up as before (only the bulk path writes the
-- column, so a session that sets the hint itself skips nothing of anyone else's); the foreign key
-- to justification still refuses an edge without its justification.
create or replace trigger justification_antecedent_consequent before insert or update on beliefdb.justification_antecedent
    for each row when (new.consequent is null
                       or pg_catalog.current_setting('beliefdb.edges_noted', true)
                          is distinct from pg_catalog.now()::text)
    execute function beliefdb.antecedent_consequent();

-- A justification's consequent moves with it onto its antecedent edges.
create or replace function beliefdb.justification_moved() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    update beliefdb.justification_antecedent a
       set consequent = new.consequent
     where a.workspace_id = new.workspace_id and a.justification_id = new.id;
    return null;
end
$$;
comment on function beliefdb.justification_moved() is 'Trigger: keep the consequent copied on antecedent edges when a justification''s changes';

create or replace trigger justification_moved after update of consequent on beliefdb.justification
    for each row when (old.consequent is distinct from new.consequent)
    execute function beliefdb.justification_moved();

-- justification.unmet counts the antecedents that are not current. Edges that come, go or
-- change recount their justifications (a deleted node's edges go after it: no delta is known).
-- Each justification is recounted and read by its key, and written by id (= any): a join to the
-- table let the plan read every justification of the workspace (a million rows: 0.3 to 1.4 s for
-- each insert of a bulk batch's edges, which mostly change no count).
create or replace function beliefdb.recount_unmet() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
-- the recount reads each justification by its key whatever the arrays hold: planned once per
-- session, not at every statement (0.7 ms of each correction's apply). The write is planned for
-- its arrays (execute): a generic plan rescanned the unnest for every justification it found
set plan_cache_mode = force_generic_plan
-- (as antecedent_consequent: planned once on a new database, whose tables were small or had no
-- statistics, the read of each justification's unmet took justification_consequent, whose key is
-- (workspace_id, consequent) and which carries id and unmet, for a cheap index-only way to find one
-- id, and read every justification of the workspace for each one recounted, for the rest of the
-- session: a third document of 2,000 claims spent 1.1 s here, a forget of 2,000 beliefs 3.6 s.
-- Without index-only scans each justification and edge is read by its primary key)
set enable_indexonlyscan = off
as $$
declare
    v_workspaces uuid[];
    v_ids uuid[];
    v_group record;
begin
    -- each event has its own transition tables: an update both, an insert or a delete one
    if TG_OP = 'UPDATE' then
        select array_agg(c.workspace_id), array_agg(c.justification_id) into v_workspaces, v_ids
          from (select r.workspace_id, r.justification_id from new_rows r
                union
                select r.workspace_id, r.justification_id from old_rows r) c;
    else
        select array_agg(c.workspace_id), array_agg(c.justification_id) into v_workspaces, v_ids
          from (select distinct r.workspace_id, r.justification_id from changed_rows r) c;
    end if;
    for v_group in
        select c.workspace_id, array_agg(c.justification_id) as ids, array_agg(c.unmet) as unmet
          from (select c.workspace_id, c.justification_id,
                       (select count(*)::integer
                          from beliefdb.justification_antecedent a
                          join beliefdb.node n on n.workspace_id = a.workspace_id and n.id = a.antecedent
                         where a.workspace_id = c.workspace_id and a.justification_id = c.justification_id
                           and not n.current) as unmet,
                       (select j.unmet
                          from beliefdb.justification j
                         where j.workspace_id = c.workspace_id and j.id = c.justification_id) as was
                  from unnest(v_workspaces, v_ids) as c (workspace_id, justification_id)) c
         where c.unmet <> c.was
         group by c.workspace_id
    loop
        execute 'update beliefdb.justification j
                    set unmet = u.unmet
                   from unnest($2, $3) as u (id, unmet)
                  where j.workspace_id = $1 and j.id = u.id
                    and j.id = any($2) and j.unmet <> u.unmet'
          using v_group.workspace_id, v_group.ids, v_group.unmet;
    end loop;
    return null;
end
$$;
comment on function beliefdb.recount_unmet() is 'Trigger: recount justification.unmet of the justifications whose antecedent edges changed';

-- Whether this statement's edges are a bulk ingest batch's own (beliefdb.edges_noted, and the batch
-- really running: beliefdb._audit_batch, which only the owner's batch can open). Such an insert gives
-- new justifications, inserted with unmet 0, antecedents that are all current, fragments it stored
-- so: no count moves, and the recount read each justification and its edges again for nothing (0.2 s
-- a batch). The setting alone is not enough: any session may set it, and a decision whose edges
-- were not counted would hold on a reason that does not.
create or replace function beliefdb._edges_noted() returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    -- (_audit_batch is made after this file: plpgsql finds it when called)
    return current_setting('beliefdb.edges_noted', true) is not distinct from now()::text
           and beliefdb._audit_batch() is not null;
end
$$;
comment on function beliefdb._edges_noted() is 'Whether this transaction''s edge insert is a running bulk ingest batch''s own, whose unmet counts need no recount';

create or replace trigger justification_antecedent_unmet_insert after insert on beliefdb.justification_antecedent
    referencing new table as changed_rows
    for each statement
    when (not beliefdb._edges_noted())
    execute function beliefdb.recount_unmet();
create or replace trigger justification_antecedent_unmet_delete after delete on beliefdb.justification_antecedent
    referencing old table as changed_rows
    for each statement execute function beliefdb.recount_unmet();
create or replace trigger justification_antecedent_unmet_update after update on beliefdb.justification_antecedent
    referencing old table as old_rows new table as new_rows
    for each statement execute function beliefdb.recount_unmet();

-- A node whose current flag changes moves justification.unmet of every justification it is an
-- antecedent of by one. (The old and new rows are grouped by id, not joined: the plan is made once,
-- for the first update's few rows, and a nested loop over an update of a large ingest's every
-- fragment took time quadratic in it.)
create or replace function beliefdb.node_current_unmet() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    update beliefdb.justification j
       set unmet = j.unmet + d.delta
      from (select a.workspace_id, a.justification_id, sum(case when n.current then -1 else 1 end)::integer as delta
              from (select c.workspace_id, c.id, bool_or(c.current) filter (where c.new) as current
                      from (select o.workspace_id, o.id, o.current, false as new from old_rows o
                            union all
                            select n.workspace_id, n.id, n.current, true from new_rows n) c
                     group by c.workspace_id, c.id
                    having bool_or(c.current) and not bool_and(c.current)) n
              join beliefdb.justification_antecedent a on a.workspace_id = n.workspace_id and a.antecedent = n.id
             group by a.workspace_id, a.justification_id
            having sum(case when n.current then -1 else 1 end) <> 0) d
     where j.workspace_id = d.workspace_id and j.id = d.justification_id;
    return null;
end
$$;
comment on function beliefdb.node_current_unmet() is 'Trigger: move justification.unmet when nodes become current or stop being current';

create or replace trigger node_current_unmet after update on beliefdb.node
    referencing old table as old_rows new table as new_rows
    for each statement execute function beliefdb.node_current_unmet();

-- Edges that come, go or change refresh the reasons of the decisions they are reasons of (an
-- update fires this twice, with the old rows and with the new ones, since an edge can move).
create or replace function beliefdb.decision_reasons_changed() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_group record;
begin
    for v_group in
        select r.workspace_id, array_agg(distinct r.consequent) as consequents
          from changed_rows r
         group by r.workspace_id
    loop
        perform beliefdb.refresh_decision_reasons(v_group.workspace_id, v_group.consequents);
    end loop;
    return null;
end
$$;
comment on function beliefdb.decision_reasons_changed() is 'Trigger: refresh decision.reasons of the consequents of changed antecedent edges';

create or replace trigger justification_antecedent_reasons_insert after insert on beliefdb.justification_antecedent
    referencing new table as changed_rows
    for each statement execute function beliefdb.decision_reasons_changed();
create or replace trigger justification_antecedent_reasons_delete after delete on beliefdb.justification_antecedent
    referencing old table as changed_rows
    for each statement execute function beliefdb.decision_reasons_changed();
create or replace trigger justification_antecedent_reasons_update_old after update on beliefdb.justification_antecedent
    referencing old table as changed_rows
    for each statement execute function beliefdb.decision_reasons_changed();
create or replace trigger justification_antecedent_reasons_update_new after update on beliefdb.justification_antecedent
    referencing new table as changed_rows
    for each statement execute function beliefdb.decision_reasons_changed();
