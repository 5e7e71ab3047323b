-- beliefdb: impact, the dry run of a retraction (docs/rules.md, rules 4, 5 and 7): what retracting
-- nodes, sources or source versions would change, and its exact preview by a rolled-back
-- retraction. It reads the walks of api/54_support_walk.sql and api/52_holding.sql, and resolves
-- what it is given as api/53_targets.sql does.

-- Dry run (rules 4, 5): what retracting these nodes, sources or source versions would change, the
-- same report retract's apply gives: what stops holding (stops_holding: what held, current or not,
-- as a superseded belief holds, and does not hold after, as the retraction's stopped_holding; a
-- node that stops being current and still holds, superseded anew by a belief current again, is
-- stops_current), what becomes current again (a
-- belief whose winner stops holding, and what that settles under rule 8), which decisions would
-- be flagged, which actions held, and which decisions survive thanks to other support (they lose
-- a reason, a justification whose antecedents were all current, and still hold by another). A
-- decision whose reasons all stay live is not listed, even when it is in the closure.
--
-- Most changes only take support away: then the walk of what rests on the targets by its stored
-- support (support_walk, reads only: the nodes whose support the change touches, and their other
-- justifications) is the answer; when a belief it takes down is in a supersession or a tie, the
-- walk of the whole forward closure (evaluate_closure, reads only). When one brings something
-- back (a belief current again meets its rivals under rule 8, a retracted version puts an older
-- one back in force) or expiries are due, the retraction itself runs in a subtransaction that is
-- rolled back (simulate_retraction), so the preview is exactly what the apply does; a version
-- named or an expiry due goes there before any walk. Each reference: what
-- beliefdb.resolve_target accepts.
create or replace function beliefdb.impact(p_refs text[])
returns table (node uuid, kind text, effect text, detail jsonb)
language plpgsql
stable
set search_path = pg_catalog, pg_temp
-- the closure is small next to the graph: join it to decisions and actions by index lookups
-- (what is joined in memory, arrays to arrays, may hash); plan once per session, not per call
set enable_seqscan = off
set enable_mergejoin = off
set plan_cache_mode = force_generic_plan
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_ids uuid[];
    v_targets uuid[];
    v_e record;
    v_w record;
    -- what the walk says, per node it reached: kind, whether it held and was current before, and
    -- whether it is current and holds after (current and was current: of the closure's evaluation)
    v_node uuid[];
    v_kind beliefdb.node_kind[];
    v_held boolean[];
    v_was_current boolean[];
    v_current boolean[];
    v_holds boolean[];
    v_live uuid[];
    v_live_decision uuid[];
    v_simulate boolean;
    -- a read-only database (a standby) processes no expiry (beliefdb.expire_before_read): impact answers on
    -- what is stored, as every read there does, and cannot run a rolled-back retraction (its write lock);
    -- nor does a role that writes nothing (beliefdb_reader: beliefdb.read_only_session), which may not
    -- take that lock
    v_read_only boolean := beliefdb.read_only_session();
    v_nodes boolean;
    v_flag_id uuid[];
    v_flag_title text[];
    v_keep_id uuid[];
    v_keep_title text[];
    v_keep_reasons jsonb[];
begin
    if v_ws is null then
        raise exception 'no workspace is bound to this session' using errcode = 'BD003', hint = beliefdb.workspace_hint();
    end if;
    -- The usual reference is a node's whole id: one statement looks every whole id up in
    -- beliefdb.resolve_target's order (a source or a source version of that id, then a node, before
    -- a source of that name) and, when each is a node's, is the answer (a node expands to itself). Any
    -- other reference goes through resolve_target and expand_targets. (A preview of a 1,000-node
    -- closure is 1-3 ms of CPU: the general path's eight lookups and three calls were 5-10 % of it.)
    select array_agg(r.node order by r.n), array_agg(distinct r.node), bool_and(r.node is not null),
           -- due expiries change what is current
           not v_read_only and cardinality(beliefdb.due_to_expire(v_ws)) > 0
      into v_ids, v_targets, v_nodes, v_simulate
      from unnest(p_refs) with ordinality as r0 (ref, n)
     cross join lateral (
            select r0.n, case when x.id is not null
                               and not exists (select from beliefdb.source s where s.workspace_id = v_ws and s.id = x.id)
                               and not exists (select from beliefdb.source_version v
                                                where v.workspace_id = v_ws and v.id = x.id)
                              then (select n.id from beliefdb.node n where n.workspace_id = v_ws and n.id = x.id) end
              from (select case when lower(trim(r0.ref)) ~ '^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$'
                                then trim(r0.ref)::uuid end as id) x
            -- (offset 0: each reference looked up once, not once per aggregate the lookup feeds)
            offset 0) r (n, node);
    if not coalesce(v_nodes, false) then
        v_ids := array(select beliefdb.resolve_target(r.ref) from unnest(p_refs) with ordinality r (ref, n) order by r.n);
        v_targets := beliefdb.expand_targets(v_ws, v_ids);
        -- a retracted version may put an older one back in force
        v_simulate := v_simulate or exists (select from beliefdb.source_version v
                                             where v.workspace_id = v_ws and v.id = any(v_ids));
    end if;
    if cardinality(v_targets) = 0 then
        raise exception 'nothing to assess: no belief, fragment, decision or source has these ids' using errcode = 'BD004';
    end if;
    if not v_simulate then
        -- the arrays as they come: a preview writes nothing, not even the working set
        select * into v_w from beliefdb.support_walk(v_ws, v_targets);
        if v_w.o_settled then
            v_node := v_w.o_ids;
            v_kind := v_w.o_kind;
            -- (nothing is superseded anew, and what holds again is as current as it was: what
            -- was current stops being current exactly when it stops holding; and a settled walk
            -- takes down nothing that held without being current, so what held and stops holding
            -- is what was current and stops holding)
            v_held := v_w.o_was_current;
            v_holds := v_w.o_holds;
            v_live := v_w.o_live;
            v_live_decision := v_w.o_live_decision;
        else
            select * into v_e from beliefdb.evaluate_closure(v_ws, v_targets, v_targets);
            v_node := v_e.o_ids;
            v_kind := v_e.o_kind;
            v_was_current := v_e.o_was_current;
            v_held := v_e.o_held;
            v_holds := v_e.o_holds;
            v_current := array(select e.holds and not e.superseded and not e.expired
                                 from unnest(v_e.o_holds, v_e.o_superseded, v_e.o_expired) with ordinality
                                      as e (holds, superseded, expired, n)
                                order by e.n);
            -- a belief current again meets its rivals under rule 8: the walk does not answer that
            v_simulate := exists (select from unnest(v_kind, v_was_current, v_current) as e (kind, was_current, current)
                                   where e.kind = 'belief' and not e.was_current and e.current);
            v_live := v_e.o_live;
            v_live_decision := v_e.o_live_decision;
        end if;
    end if;
    if v_simulate and v_read_only and pg_catalog.current_setting('transaction_read_only') = 'on' then
        raise exception 'this impact is answered by a rolled-back retraction (of a source version, or one that makes a belief current again), which a read-only database cannot run: ask a writable one'
            using errcode = '25006',
                  hint = 'on a standby, ask the primary; elsewhere set default_transaction_read_only = off in this session';
    end if;
    if v_simulate and v_read_only then
        raise exception 'this impact is answered by a rolled-back retraction (of a source version, or one that makes a belief current again), which takes the workspace''s write lock: % may not take it', current_user
            using errcode = '42501',
                  hint = 'ask as a member of beliefdb_app (beliefdb impact); a login granted beliefdb_reader only reads';
    end if;
    if v_simulate then
        -- the retraction's own report, as impact's rows (beliefdb.change_rows)
        return query select * from beliefdb.change_rows(v_ws, beliefdb.simulate_retraction(v_ids::text[]));
        return;
    end if;
    -- Decisions are read into arrays, with one index scan over an array of ids each, and joined
    -- to the evaluation's arrays in memory by hashing. The decisions of the closure that stop
    -- holding and are active (or approved and holding now) are flagged; those that lost a reason, hold and are active or
    -- approved survive, by their live justifications, whose antecedents the decision row carries
    -- (decision.reasons). A walk that reached no decision reads none.
    v_flag_id := '{}';
    v_flag_title := '{}';
    v_keep_id := '{}';
    v_keep_title := '{}';
    v_keep_reasons := '{}';
    if cardinality(v_live_decision) > 0 or 'decision' = any(v_kind) then
        select f.*, k.*
          into v_flag_id, v_flag_title, v_keep_id, v_keep_title, v_keep_reasons
          from (select coalesce(array_agg(e.id) filter (where not e.holds), '{}') as lost,
                       array(select distinct l.id from unnest(v_live_decision) as l (id)) as kept
                  from (select unnest(v_node) as id, unnest(v_kind) as kind, unnest(v_holds) as holds) e
                 where e.kind = 'decision') e
          cross join lateral (
                select coalesce(array_agg(d.id), '{}'), coalesce(array_agg(d.title), '{}')
                  from beliefdb.decision d
                 where d.workspace_id = v_ws and d.id = any(e.lost)
                   and (d.status = 'active'
                        -- an approved decision that holds now: losing its last support again flags it again
                        or (d.status = 'approved'
                            and exists (select from beliefdb.node n
                                         where n.workspace_id = v_ws and n.id = d.id and n.holds)))) f
          cross join lateral (
                select coalesce(array_agg(d.id), '{}'), coalesce(array_agg(d.title), '{}'),
                       coalesce(array_agg(d.reasons), '{}')
                  from beliefdb.decision d
                 where d.workspace_id = v_ws and d.id = any(e.kept) and d.status in ('active', 'approved')) k;
    end if;
    return query
    select e.id, e.kind::text, 'stops_holding', '{}'::jsonb
      from (select unnest(v_node) as id, unnest(v_kind) as kind, unnest(v_held) as held,
                   unnest(v_holds) as holds) e
     where e.held and not e.holds
    union all
    select f.id, 'decision', 'flag', jsonb_build_object('title', f.title)
      from unnest(v_flag_id, v_flag_title) as f (id, title)
    union all
    select a.id, 'action', 'hold', jsonb_build_object('decision', a.decision_id, 'description', a.description)
      from beliefdb.action a
     where a.workspace_id = v_ws and a.decision_id = any(v_flag_id) and a.status = 'scheduled'
    union all
    select k.id, 'decision', 'survives', jsonb_build_object('title', k.title, 'by', s.by)
      from unnest(v_keep_id, v_keep_title) as k (id, title)
      -- (offset 0: each live justification's antecedents are picked out before the sort, which
      -- would otherwise carry the decision's whole reasons object in every row)
      left join (select l.decision, jsonb_agg(l.antecedents order by l.antecedents::text) as by
                   from (select l.decision, l.id, r.reasons -> l.id::text as antecedents
                           from unnest(v_live, v_live_decision) as l (id, decision)
                           join unnest(v_keep_id, v_keep_reasons) as r (id, reasons) on r.id = l.decision
                          offset 0) l
                  where l.antecedents is not null
                  group by l.decision) s on s.decision = k.id;
end
$$;
comment on function beliefdb.impact(text[]) is 'Dry run of a retraction: what stops holding, becomes current again, is flagged, held, or survives and by what';

-- Retract these nodes, sources or source versions of the bound workspace in a subtransaction that
-- is rolled back, and return the change report the retraction made (beliefdb._changes): an exact
-- preview. Owner rights (the retraction writes, then is undone), confined to the bound workspace.
-- Each reference: what beliefdb.resolve_target accepts.
create or replace function beliefdb.simulate_retraction(p_refs text[]) returns beliefdb.changes
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
begin
    -- nothing named: said so, not what the dry run of no ids fails on
    if coalesce(cardinality(p_refs), 0) = 0 then
        raise exception 'nothing to simulate: name a node, source or source version' using errcode = 'BD005';
    end if;
    return beliefdb._as_changes(beliefdb._standing_dry_run(
        'select beliefdb._retract_ids(($1 ->> ''workspace'')::uuid, array(select jsonb_array_elements_text($1 -> ''ids''))::uuid[], ''dry run'', false)',
        jsonb_build_object('workspace', v_ws,
                           'ids', to_jsonb(array(select beliefdb.resolve_target(r.ref)
                                                   from unnest(p_refs) with ordinality r (ref, n) order by r.n)))));
end
$$;
comment on function beliefdb.simulate_retraction(text[]) is 'The change report of retracting nodes, sources or versions of the bound workspace, computed in a subtransaction that is rolled back';

-- A change report (beliefdb._changes, as beliefdb.changes) as impact's rows, one per node and effect:
-- stops_holding (what held and stops holding), stops_current (what stops being current and still
-- holds: superseded, or its valid time ended), becomes_current, flag (a decision, with its title),
-- hold (an action, with its decision and description) and survives (a decision that loses a reason,
-- with the antecedents of each reason it keeps, one row a decision, in the report's order). What a
-- dry run reports read as impact reads the walks: impact's own simulated retraction, and what the
-- owner's approval of a proposed correction would change (beliefdb.correction_preview).
create or replace function beliefdb.change_rows(p_workspace_id uuid, p_changes beliefdb.changes)
returns setof beliefdb.impact_row
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
begin
    return query
    select x.id, n.kind::text, 'stops_holding', '{}'::jsonb
      from unnest(p_changes.stopped_holding) as x (id)
      join lateral (select n.kind from beliefdb.node n where n.workspace_id = p_workspace_id and n.id = x.id) n on true
    union all
    select x.id, n.kind::text, 'stops_current', '{}'::jsonb
      from unnest(p_changes.stopped_current) as x (id)
      join lateral (select n.kind from beliefdb.node n where n.workspace_id = p_workspace_id and n.id = x.id) n on true
     where x.id <> all(coalesce(p_changes.stopped_holding, '{}'))
    union all
    select x.id, n.kind::text, 'becomes_current', '{}'::jsonb
      from unnest(p_changes.became_current) as x (id)
      join lateral (select n.kind from beliefdb.node n where n.workspace_id = p_workspace_id and n.id = x.id) n on true
    union all
    select d.id, 'decision', 'flag', jsonb_build_object('title', d.title)
      from unnest(p_changes.flagged) as x (id)
      join beliefdb.decision d on d.workspace_id = p_workspace_id and d.id = x.id
    union all
    select a.id, 'action', 'hold', jsonb_build_object('decision', a.decision_id, 'description', a.description)
      from unnest(p_changes.held) as x (id)
      join beliefdb.action a on a.workspace_id = p_workspace_id and a.id = x.id
    union all
    -- (a decision's surviving reasons come one per row: each its antecedents, in the report's order)
    select d.id, 'decision', 'survives', jsonb_build_object('title', d.title, 'by', s.by)
      from (select s.decision, jsonb_agg(to_jsonb(s.reason) order by s.n) as by
              from unnest(p_changes.survives) with ordinality as s (decision, reason, n)
             group by s.decision) s
      join beliefdb.decision d on d.workspace_id = p_workspace_id and d.id = s.decision;
end
$$;
comment on function beliefdb.change_rows(uuid, beliefdb.changes) is 'A change report as impact rows: stops_holding, stops_current, becomes_current, flag, hold, survives';
