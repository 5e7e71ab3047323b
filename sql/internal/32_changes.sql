-- beliefdb: what one operation changed, and exact previews (docs/rules.md, rule 7).
-- Each user-visible operation notes the state of the nodes it changes and reports the net
-- difference it made (beliefdb._changes); a preview runs the operation itself in a subtransaction
-- that is rolled back (beliefdb._dry_run).

-- What changes during one user-visible operation: the state each node had when a propagation
-- first changed it (holding, current, and a decision's or action's status), and the nodes the
-- operation created (create_node notes them: they are reported as what they are, a new belief or
-- decision, not as changes). An operation starts it empty (begin_changes) and reports against it at
-- the end (changes), so its report is the net difference the operation made to what existed,
-- however many propagations it took. One per session, emptied when an operation starts (see
-- prepare_evaluation); the functions that write it run with owner rights.
create or replace function beliefdb._begin_changes() returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if not beliefdb._empty_working_table('beliefdb_changes', 'created') then
        create temporary table beliefdb_changes (
            id uuid primary key,
            kind beliefdb.node_kind not null,
            held boolean not null,        -- holding before the operation
            was_current boolean not null, -- current before the operation
            status text,                  -- a decision's or action's status before the operation
            created boolean not null default false  -- made by the operation
        );
    end if;
    -- which transaction the record is of (a propagation called on its own, from psql say, starts one)
    perform pg_catalog.set_config('beliefdb.changes_of', pg_catalog.now()::text, false);
end
$$;
comment on function beliefdb._begin_changes() is 'Start recording what one operation changes (emptied when an operation starts)';

-- Remember the state nodes had before the operation changed them (the first time only).
create or replace function beliefdb._note_changes(p_workspace_id uuid, p_ids uuid[]) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
-- the nodes by their keys (= any), then each one's decision or action row by its key, whatever the
-- array holds: planned once per session, not at every propagation (0.6 ms of a correction's apply)
set plan_cache_mode = force_generic_plan
as $$
begin
    if to_regclass('pg_temp.beliefdb_changes') is null
       or current_setting('beliefdb.changes_of', true) is distinct from now()::text then
        perform beliefdb._begin_changes();
    end if;
    insert into pg_temp.beliefdb_changes (id, kind, held, was_current, status)
    select n.id, n.kind, n.holds, n.current, coalesce(d.status, a.status)
      from beliefdb.node n
      left join beliefdb.decision d on n.kind = 'decision' and d.workspace_id = n.workspace_id and d.id = n.id
      left join beliefdb.action a on n.kind = 'action' and a.workspace_id = n.workspace_id and a.id = n.id
     where n.workspace_id = p_workspace_id and n.id = any(p_ids)
    on conflict (id) do nothing;
end
$$;
comment on function beliefdb._note_changes(uuid, uuid[]) is 'Record the state of nodes about to change, unless this operation changed them before';

-- The net difference the operation made so far: nodes that stopped or started holding, stopped
-- being or became current (rule 3: a superseded belief whose winner stopped holding is current
-- again), decisions flagged (rule 4) and actions held, and the decisions that lost a reason but
-- still hold by another (survives: the reasons that still hold them).
create or replace function beliefdb._changes(p_workspace_id uuid) returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
-- What changed is a handful of rows next to a workspace of any size, and the planner cannot tell:
-- the working table has no statistics and workspace_id has none (schema/10_tables.sql), so it guesses
-- one row for "a workspace's decisions" and drives the join from there (100 s for one decide on a
-- 180-node workspace once autovacuum had analyzed it). Every lookup below is therefore a lateral
-- subquery behind offset 0, from the noted rows outwards, by key: the plan cannot be reordered.
set enable_hashjoin = off
set enable_mergejoin = off
set enable_bitmapscan = off
set enable_seqscan = off
-- and plan it once per session: the plan does not depend on the workspace
set plan_cache_mode = force_generic_plan
as $$
declare
    v_result jsonb;
    v_stopped uuid[];
begin
    if to_regclass('pg_temp.beliefdb_changes') is null
       or current_setting('beliefdb.changes_of', true) is distinct from now()::text then
        perform beliefdb._begin_changes();
    end if;
    with now as materialized (
        select c.id, c.kind, c.held, c.was_current, c.status,
               coalesce(n.holds, false) as holds, coalesce(n.current, false) as current, n.now_status
          from pg_temp.beliefdb_changes c
          left join lateral (
                select n.holds, n.current,
                       case n.kind
                           when 'decision' then (select d.status from beliefdb.decision d
                                                  where d.workspace_id = n.workspace_id and d.id = n.id)
                           when 'action' then (select a.status from beliefdb.action a
                                                where a.workspace_id = n.workspace_id and a.id = n.id)
                       end as now_status
                  from beliefdb.node n
                 where n.workspace_id = p_workspace_id and n.id = c.id
                offset 0) n on true
         where not c.created
    )
    select jsonb_build_object(
        'stopped_holding', coalesce((select jsonb_agg(x.id order by x.id) from now x where x.held and not x.holds), '[]'),
        'started_holding', coalesce((select jsonb_agg(x.id order by x.id) from now x where not x.held and x.holds), '[]'),
        'stopped_current', coalesce((select jsonb_agg(x.id order by x.id) from now x
                                      where x.was_current and not x.current), '[]'),
        'became_current', coalesce((select jsonb_agg(x.id order by x.id) from now x
                                     where not x.was_current and x.current), '[]'),
        'flagged', coalesce((select jsonb_agg(x.id order by x.id) from now x
                              where x.kind = 'decision' and x.status in ('active', 'approved')
                                and x.now_status = 'needs_review'), '[]'),
        'held', coalesce((select jsonb_agg(x.id order by x.id) from now x
                           where x.kind = 'action' and x.status = 'scheduled' and x.now_status = 'held'), '[]')),
        (select coalesce(array_agg(x.id), '{}') from now x where x.was_current and not x.current)
      into v_result, v_stopped;
    if cardinality(v_stopped) = 0 then
        return v_result || '{"survives": []}'::jsonb;  -- nothing stopped being current: no reason was lost
    end if;

    -- a decision that holds and had a reason whose antecedents were all current, one of which is
    -- not any more: it survives by its reasons that are live now
    with lost_reason as (
        -- (the out rows of the adjacency name each justification a node is an antecedent of, its
        -- consequent and whether that is a decision: one index-only scan a node, and only the
        -- decisions looked at)
        select distinct j.consequent as decision
          from unnest(v_stopped) x(id)
          cross join lateral (select y.justification as justification_id, y.consequent
                                from beliefdb.adjacency y
                               where y.workspace_id = p_workspace_id and y.node = x.id and y.entry = 'out'
                                 and y.into_decision
                              offset 0) j
         where coalesce((select true
                           from beliefdb.node d
                           join beliefdb.decision s on s.workspace_id = d.workspace_id and s.id = d.id
                          where d.workspace_id = p_workspace_id and d.id = j.consequent
                            and d.kind = 'decision' and d.holds and s.status in ('active', 'approved')), false)
           -- every antecedent of that reason was current before the operation
           and not coalesce((select true
                               from beliefdb.justification_antecedent o
                              where o.workspace_id = p_workspace_id and o.justification_id = j.justification_id
                                and not coalesce((select c.was_current from pg_temp.beliefdb_changes c
                                                   where c.id = o.antecedent and not c.created),
                                                 (select n.current from beliefdb.node n
                                                   where n.workspace_id = p_workspace_id and n.id = o.antecedent),
                                                 false)
                              limit 1), false)
    ),
    live as (
        select l.decision, r.antecedents
          from lost_reason l
          cross join lateral (select j.id
                                from beliefdb.justification j
                               where j.workspace_id = p_workspace_id and j.consequent = l.decision
                              offset 0) j
          cross join lateral (select jsonb_agg(a.antecedent order by a.antecedent) as antecedents,
                                     bool_and(coalesce((select n.current from beliefdb.node n
                                                         where n.workspace_id = p_workspace_id
                                                           and n.id = a.antecedent), false)) as all_current
                                from beliefdb.justification_antecedent a
                               where a.workspace_id = p_workspace_id and a.justification_id = j.id) r
         where r.all_current
    )
    select v_result || jsonb_build_object('survives', coalesce((
               select jsonb_agg(jsonb_build_object('decision', s.decision, 'by', s.by) order by s.decision)
                 from (select l.decision, jsonb_agg(l.antecedents order by l.antecedents::text) as by
                         from live l group by l.decision) s), '[]'))
      into v_result;
    return v_result;
end
$$;
comment on function beliefdb._changes(uuid) is 'Net change report of the operation so far: holding, current, flags, holds, surviving decisions';

-- A change report with nothing in it (the shape of beliefdb._changes).
create or replace function beliefdb._empty_changes() returns jsonb
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select '{"stopped_holding": [], "started_holding": [], "stopped_current": [], "became_current": [],
             "flagged": [], "held": [], "survives": []}'::jsonb
$$;
comment on function beliefdb._empty_changes() is 'A change report with nothing in it';

-- Run one statement of beliefdb's own, whose one column is a jsonb report, in a subtransaction that
-- is then rolled back, and return the report: a preview that is exactly what the change does,
-- because it is the change. Nothing stays written, not even in the audit chain. Like the change, it
-- takes the workspace's write lock before its first row (held until the rollback): a statement
-- that writes rows before it appends to the audit chain (a retraction keys the nodes it retracts)
-- would otherwise hold them while waiting for a writer that needs them, a deadlock. Internal: the
-- statement is executed as given, so only beliefdb's functions call it (not granted).
create or replace function beliefdb._dry_run(p_statement text, p_args jsonb) returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_report jsonb;
    v_text text;
begin
    begin
        perform beliefdb.lock_workspace();
        perform beliefdb._begin_changes();
        execute p_statement into v_report using p_args;
        raise exception 'rolled back' using errcode = 'BD900', detail = coalesce(v_report, 'null'::jsonb)::text;
    exception when sqlstate 'BD900' then
        get stacked diagnostics v_text = pg_exception_detail;
    end;
    return v_text::jsonb;
end
$$;
comment on function beliefdb._dry_run(text, jsonb) is 'Internal: run one of beliefdb''s statements in a rolled-back subtransaction and return its jsonb report (exact previews)';

-- The same, for a report of standing alone (what stops or starts holding or being current, flagged
-- decisions, held actions: a retraction's), which reads no confidence: the propagation inside it
-- skips computing confidence (beliefdb._standing_preview), which the rollback would discard unread.
-- (The setting is set around the dry run, not in it, and cleared after: an error leaves it only in
-- the transaction or savepoint that the error ends.)
create or replace function beliefdb._standing_dry_run(p_statement text, p_args jsonb) returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_report jsonb;
begin
    perform set_config('beliefdb.dry_run', 'standing', true);
    v_report := beliefdb._dry_run(p_statement, p_args);
    perform set_config('beliefdb.dry_run', '', true);
    return v_report;
end
$$;
comment on function beliefdb._standing_dry_run(text, jsonb) is 'Internal: beliefdb._dry_run for a report of standing alone (retraction previews): confidence is not computed';

-- Whether this propagation runs inside a dry run whose report is of standing alone (a retraction's
-- preview): then what it would store as confidence is rolled back unread, and computing it is
-- skipped (a 2,000-belief source at 100k nodes: 3.8 s of a 4.8 s preview, the confidence of every
-- belief derived from it, round after round). Both the setting and the call stack are asked: a
-- session can set a setting of that name itself, and a real change must store confidence; only
-- beliefdb's own functions call _standing_dry_run (it is not granted).
create or replace function beliefdb._standing_preview() returns boolean
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_context text;
begin
    if coalesce(current_setting('beliefdb.dry_run', true), '') <> 'standing' then
        return false;
    end if;
    get diagnostics v_context = pg_context;
    return position('function beliefdb._standing_dry_run(text,jsonb) ' in v_context) > 0;
end
$$;
comment on function beliefdb._standing_preview() is 'Internal: whether a propagation runs inside a dry run whose report reads no confidence (it may skip computing it)';

-- A change report (beliefdb._changes, with proposed, review_item and owner when a proposal) as the
-- API returns it: beliefdb.changes, each surviving reason one beliefdb.still_supported (a decision
-- that survives on two reasons is two of them, in the order the report lists them). Every report has
-- the one shape: review_item and owner name the owner a proposal waits for, and are null on any
-- other report (whoever produced it). Null for anything but a JSON object (a dry run that changed
-- nothing reports null).
create or replace function beliefdb._as_changes(p_report jsonb) returns beliefdb.changes
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select row(coalesce(c.stopped_holding, '{}'), coalesce(c.started_holding, '{}'),
               coalesce(c.stopped_current, '{}'), coalesce(c.became_current, '{}'),
               coalesce(c.flagged, '{}'), coalesce(c.held, '{}'),
               array(select row((s.survivor ->> 'decision')::uuid,
                                array(select x::uuid from jsonb_array_elements_text(g.reason) with ordinality x (x, k)
                                       order by x.k))::beliefdb.still_supported
                       from jsonb_array_elements(coalesce(p_report -> 'survives', '[]')) with ordinality s (survivor, i)
                      cross join jsonb_array_elements(s.survivor -> 'by') with ordinality g (reason, j)
                      order by s.i, g.j),
               coalesce(c.proposed, false), case when c.proposed then c.review_item end,
               case when c.proposed then c.owner end)::beliefdb.changes
      from (select p_report as report where jsonb_typeof(p_report) = 'object') r
     cross join lateral jsonb_populate_record(null::beliefdb.changes, r.report - 'survives') c
$$;
comment on function beliefdb._as_changes(jsonb) is 'A change report as the API returns it (beliefdb.changes: one still_supported per surviving reason); null for no report';
