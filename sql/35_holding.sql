-- beliefdb: truth maintenance (truth rules 2, 3, 4, 5).
-- Premises hold on their own; every other node holds if one of its justifications has every
-- antecedent current. Holding is the least fixpoint from the premises, computed for the
-- forward closure of a change only; supersession is stratified on top of it.

-- Whether a source version is in force: the latest version of its source that is not
-- retracted, of a source that is not retracted.
create or replace function beliefdb.in_force(p_workspace_id uuid, p_source_version_id uuid) returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select s.retracted_at is null and v.retracted_at is null
           and not exists (select from beliefdb.source_version later
                            where later.workspace_id = v.workspace_id and later.source_id = v.source_id
                              and later.version > v.version and later.retracted_at is null)
      from beliefdb.source_version v
      join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
     where v.workspace_id = p_workspace_id and v.id = p_source_version_id
$$;
comment on function beliefdb.in_force(uuid, uuid) is 'Whether a source version is in force: the latest non-retracted version of a non-retracted source';

-- The working set of one evaluation: the forward closure of a change, with old and new values.
-- A temporary table (one per session, emptied at commit) so each step is a set-based join.
create or replace function beliefdb.prepare_evaluation() returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if to_regclass('pg_temp.beliefdb_evaluation') is null then
        create temporary table beliefdb_evaluation (
            id uuid primary key,
            kind beliefdb.node_kind,
            held boolean,                 -- holding before the change
            was_current boolean,          -- current before the change
            premise boolean not null default false,
            blocked boolean not null default false, -- retracted, or assumed not to hold
            holds boolean not null default false,
            superseded boolean not null default false,
            level integer                 -- fixpoint level at which it came to hold (null: not yet)
        ) on commit delete rows;
        create index on beliefdb_evaluation (level);
        -- the justifications of nodes in the closure, with how many antecedents each still misses
        create temporary table beliefdb_evaluation_reason (
            id uuid primary key,
            consequent uuid not null,
            needed integer not null,      -- antecedents in the closure, plus outside ones not current
            missing integer not null
        ) on commit delete rows;
        create index on beliefdb_evaluation_reason (consequent);
    else
        delete from pg_temp.beliefdb_evaluation;
        delete from pg_temp.beliefdb_evaluation_reason;
    end if;
end
$$;
comment on function beliefdb.prepare_evaluation() is 'Create or empty the session''s evaluation working set';

-- Evaluate holding for the forward closure of p_seeds (rules 2 and 3). p_assume_off are nodes
-- assumed to stop holding (impact previews); they are seeds too. Fills
-- pg_temp.beliefdb_evaluation and returns the number of supersession rounds it took. Nodes
-- outside the closure keep their stored node.current.
create or replace function beliefdb.evaluate(p_workspace_id uuid, p_seeds uuid[], p_assume_off uuid[] default '{}')
returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
-- the working set is small next to the graph: walk it with index lookups, never scan the graph
-- (the planner cannot know how few justifications a closure has)
set enable_seqscan = off
set enable_hashjoin = off
set enable_mergejoin = off
as $$
declare
    v_rounds integer := 0;
    v_level integer;
    v_changed bigint;
begin
    perform beliefdb.prepare_evaluation();

    -- 1. forward closure over reasons (antecedent -> consequent), supersession (winner -> loser)
    --    and ties (either side), ids first so the table statistics drive the joins that follow
    insert into pg_temp.beliefdb_evaluation (id)
    with recursive closure (id) as (
        select s.id from unnest(coalesce(p_seeds, '{}') || coalesce(p_assume_off, '{}')) as s (id)
        union
        select next.id
          from closure c
          cross join lateral (
                select j.consequent as id
                  from beliefdb.justification_antecedent a
                  join beliefdb.justification j on j.workspace_id = a.workspace_id and j.id = a.justification_id
                 where a.workspace_id = p_workspace_id and a.antecedent = c.id
                union all
                select r.to_belief
                  from beliefdb.relation r
                 where r.workspace_id = p_workspace_id and r.from_belief = c.id and r.kind = 'supersedes'
                union all
                -- the other side of a tie: whether it is still conflicting depends on this one
                select case when r.from_belief = c.id then r.to_belief else r.from_belief end
                  from beliefdb.relation r
                 where r.workspace_id = p_workspace_id and r.kind = 'conflicts_with'
                   and c.id in (r.from_belief, r.to_belief)
          ) next
    )
    select c.id from closure c;
    analyze pg_temp.beliefdb_evaluation;

    update pg_temp.beliefdb_evaluation e
       set kind = n.kind, held = n.holds, was_current = n.current,
           blocked = n.retracted_at is not null or n.id = any(coalesce(p_assume_off, '{}'))
      from beliefdb.node n
     where n.workspace_id = p_workspace_id and n.id = e.id;
    delete from pg_temp.beliefdb_evaluation where kind is null;  -- ids that are not nodes

    -- 2. premises: fragments of versions in force, corrections, user inputs
    update pg_temp.beliefdb_evaluation e
       set premise = true
      from beliefdb.fragment f
     where e.kind = 'fragment' and f.workspace_id = p_workspace_id and f.id = e.id
       and beliefdb.in_force(p_workspace_id, f.source_version_id);
    -- an agent step nothing was recorded as feeding is taken as given, like a user input
    update pg_temp.beliefdb_evaluation e
       set premise = true
     where e.kind = 'correction'
        or (e.kind = 'step' and exists (select from beliefdb.step s
                                         where s.workspace_id = p_workspace_id and s.id = e.id
                                           and (s.kind = 'user_input'
                                                or not exists (select from beliefdb.justification j
                                                                where j.workspace_id = s.workspace_id
                                                                  and j.consequent = s.id))));

    -- 3. supersession as it stands, then alternate: least fixpoint of holding given who is
    --    superseded, then who is superseded given holding, until nothing changes. Supersession is
    --    acyclic and never against a belief's own support, so this settles stratum by stratum.
    update pg_temp.beliefdb_evaluation e
       set superseded = exists (
            select from beliefdb.relation r
              join beliefdb.node w on w.workspace_id = r.workspace_id and w.id = r.from_belief
             where r.workspace_id = p_workspace_id and r.to_belief = e.id and r.kind = 'supersedes'
               and w.holds)
     where e.kind = 'belief';

    -- 4. every justification of a node in the closure, counting what it needs: antecedents in
    --    the closure (none holds yet) and antecedents outside it that are not current
    insert into pg_temp.beliefdb_evaluation_reason (id, consequent, needed, missing)
    select j.id, j.consequent, x.needed, x.needed
      from pg_temp.beliefdb_evaluation e
      join beliefdb.justification j on j.workspace_id = p_workspace_id and j.consequent = e.id
      cross join lateral (
            select count(*) filter (where ea.id is not null or not coalesce(an.current, false)) as needed
              from beliefdb.justification_antecedent a
              left join pg_temp.beliefdb_evaluation ea on ea.id = a.antecedent
              left join beliefdb.node an
                on ea.id is null and an.workspace_id = a.workspace_id and an.id = a.antecedent
             where a.workspace_id = j.workspace_id and a.justification_id = j.id
      ) x;
    analyze pg_temp.beliefdb_evaluation;
    analyze pg_temp.beliefdb_evaluation_reason;

    loop
        v_rounds := v_rounds + 1;
        if v_rounds > 100 then
            raise exception 'holding did not settle after 100 rounds' using errcode = 'BD002';
        end if;
        update pg_temp.beliefdb_evaluation_reason set missing = needed;
        -- level 0: premises, and nodes with a reason that needs nothing in the closure
        update pg_temp.beliefdb_evaluation e
           set holds = not e.blocked and (e.premise or exists (
                    select from pg_temp.beliefdb_evaluation_reason r where r.consequent = e.id and r.missing = 0)),
               level = case when not e.blocked and (e.premise or exists (
                    select from pg_temp.beliefdb_evaluation_reason r where r.consequent = e.id and r.missing = 0))
                       then 0 end;

        -- least fixpoint, semi-naive by counting: each node that became current at the last
        -- level takes one off what its justifications miss; a node holds once one of its
        -- justifications misses nothing. Work is linear in the closure's edges.
        v_level := 0;
        loop
            update pg_temp.beliefdb_evaluation_reason r
               set missing = r.missing - d.n
              from (select a.justification_id, count(*) as n
                      from pg_temp.beliefdb_evaluation e
                      join beliefdb.justification_antecedent a
                        on a.workspace_id = p_workspace_id and a.antecedent = e.id
                     where e.level = v_level and not e.superseded
                     group by a.justification_id) d
             where r.id = d.justification_id;
            update pg_temp.beliefdb_evaluation e
               set holds = true, level = v_level + 1
             where not e.holds and not e.blocked
               and exists (select from pg_temp.beliefdb_evaluation_reason r
                            where r.consequent = e.id and r.missing = 0);
            get diagnostics v_changed = row_count;
            exit when v_changed = 0;
            v_level := v_level + 1;
        end loop;

        update pg_temp.beliefdb_evaluation e
           set superseded = not e.superseded
         where e.kind = 'belief'
           and e.superseded is distinct from exists (
                select from beliefdb.relation r
                  left join pg_temp.beliefdb_evaluation ew on ew.id = r.from_belief
                  left join beliefdb.node w
                    on ew.id is null and w.workspace_id = r.workspace_id and w.id = r.from_belief
                 where r.workspace_id = p_workspace_id and r.to_belief = e.id and r.kind = 'supersedes'
                   and coalesce(ew.holds, w.holds));
        get diagnostics v_changed = row_count;
        exit when v_changed = 0;
    end loop;
    return v_rounds;
end
$$;
comment on function beliefdb.evaluate(uuid, uuid[], uuid[]) is 'Compute holding and supersession for the forward closure of a change (no writes outside the working set)';

-- Is a belief in the working set in an open tie with a rival that is still current?
create or replace function beliefdb.in_open_conflict(p_workspace_id uuid, p_belief uuid) returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    -- plpgsql, not sql: the working set is a temporary table that exists only at run time
    return exists (
        select from beliefdb.relation r
          join beliefdb.belief o
            on o.workspace_id = r.workspace_id
           and o.id = case when r.from_belief = p_belief then r.to_belief else r.from_belief end
          left join pg_temp.beliefdb_evaluation eo on eo.id = o.id
         where r.workspace_id = p_workspace_id and r.kind = 'conflicts_with'
           and p_belief in (r.from_belief, r.to_belief)
           and coalesce(eo.holds and not eo.superseded, o.status in ('current', 'conflicting')));
end
$$;
comment on function beliefdb.in_open_conflict(uuid, uuid) is 'Whether a belief is tied with a rival that is still current (uses the evaluation working set)';

-- Evaluate the closure of a change and store the result: holding, belief status, flags on
-- decisions that lost their last support (rule 4) and holds on their actions. Returns what changed.
create or replace function beliefdb.propagate(p_workspace_id uuid, p_seeds uuid[]) returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_result jsonb;
    v_flagged uuid[];
    v_held uuid[];
    v_round integer;
    v_revived uuid[];
    v_id uuid;
    v_settled jsonb;
    v_more uuid[] := '{}';
begin
    -- one propagation per workspace at a time: two concurrent changes that each leave a node
    -- one of two supports must not both conclude it still holds (READ COMMITTED gives every
    -- statement after the lock a snapshot that includes the other's commit)
    perform pg_advisory_xact_lock(hashtextextended('beliefdb.propagate:' || p_workspace_id::text, 0));
    perform beliefdb.evaluate(p_workspace_id, p_seeds);

    update beliefdb.node n
       set holds = e.holds, current = e.holds and not e.superseded
      from pg_temp.beliefdb_evaluation e
     where n.workspace_id = p_workspace_id and n.id = e.id
       and (n.holds, n.current) is distinct from (e.holds, e.holds and not e.superseded);

    with next as (
        select e.id,
               case when n.retracted_at is not null then 'retracted'
                    when e.superseded then 'superseded'
                    when not e.holds then 'unsupported'
                    when beliefdb.in_open_conflict(p_workspace_id, e.id) then 'conflicting'
                    else 'current'
               end::beliefdb.belief_status as status
          from pg_temp.beliefdb_evaluation e
          join beliefdb.node n on n.workspace_id = p_workspace_id and n.id = e.id
         where e.kind = 'belief'
    )
    update beliefdb.belief b
       set status = next.status, revision = b.revision + 1
      from next
     where b.workspace_id = p_workspace_id and b.id = next.id
       and b.status <> next.status and b.status <> 'quarantined';

    -- rule 4: a decision is flagged only when it no longer holds, not when a support changed
    with flagged as (
        update beliefdb.decision d
           set status = 'needs_review', revision = d.revision + 1
          from pg_temp.beliefdb_evaluation e
         where e.kind = 'decision' and d.workspace_id = p_workspace_id and d.id = e.id and not e.holds
           and d.status = 'active'
        returning d.id
    )
    select coalesce(array_agg(id), '{}') into v_flagged from flagged;
    insert into beliefdb.review_item (workspace_id, kind, node, reason)
    select p_workspace_id, 'decision_flagged', f.id, 'the decision lost its last remaining support'
      from unnest(v_flagged) f (id)
    on conflict do nothing;

    with held as (
        update beliefdb.action a
           set status = 'held'
          from beliefdb.decision d
         where a.workspace_id = p_workspace_id and d.workspace_id = a.workspace_id and d.id = a.decision_id
           and d.status = 'needs_review' and a.status = 'scheduled'
           and a.id in (select e.id from pg_temp.beliefdb_evaluation e where e.kind = 'action'
                        union all
                        select a2.id
                          from pg_temp.beliefdb_evaluation e
                          join beliefdb.action a2 on a2.workspace_id = p_workspace_id and a2.decision_id = e.id
                         where e.kind = 'decision')
           -- a person who released this action has decided; only a new flag may hold it again
           and not exists (select from beliefdb.review_item r
                            where r.workspace_id = a.workspace_id and r.kind = 'action_held' and r.node = a.id
                              and r.status = 'approved')
        returning a.id
    )
    select coalesce(array_agg(id), '{}') into v_held from held;
    insert into beliefdb.review_item (workspace_id, kind, node, reason)
    select p_workspace_id, 'action_held', h.id, 'its decision needs review'
      from unnest(v_held) h (id)
    on conflict do nothing;

    -- support changed, so confidence may have: the same factors why() shows. A derived belief
    -- reads what it is derived from as stored, so repeat until nothing moves (depth-bounded).
    for v_round in 1..20 loop
        exit when beliefdb.recompute_confidence(
            p_workspace_id, array(select e.id from pg_temp.beliefdb_evaluation e where e.kind = 'belief')) = 0;
    end loop;

    select jsonb_build_object(
        'stopped_holding', coalesce(jsonb_agg(e.id) filter (where e.held and not e.holds), '[]'),
        'started_holding', coalesce(jsonb_agg(e.id) filter (where not e.held and e.holds), '[]'),
        'flagged', to_jsonb(v_flagged),
        'held', to_jsonb(v_held))
      into v_result
      from pg_temp.beliefdb_evaluation e;

    -- a belief that is current again (what superseded it stopped holding) meets its rivals under
    -- rule 8 like a new one; what that settles is propagated in turn (supersession only grows,
    -- so this ends)
    v_revived := array(select e.id from pg_temp.beliefdb_evaluation e
                        where e.kind = 'belief' and not e.was_current and e.holds and not e.superseded);
    foreach v_id in array v_revived loop
        v_settled := beliefdb.settle(p_workspace_id, v_id);
        v_more := v_more
            || array(select (x ->> 'old')::uuid from jsonb_array_elements(v_settled -> 'superseded') x)
            || array(select (x ->> 'new')::uuid from jsonb_array_elements(v_settled -> 'superseded') x)
            || array(select (x ->> 'b')::uuid from jsonb_array_elements(v_settled -> 'conflicts') x);
    end loop;
    if cardinality(v_more) > 0 then
        v_result := beliefdb.merge_changes(v_result, beliefdb.propagate(p_workspace_id, v_more));
    end if;
    return v_result;
end
$$;
comment on function beliefdb.propagate(uuid, uuid[]) is 'Recompute and store holding for the forward closure of a change; flag decisions that lost their last support and hold their actions';

-- The union of two change reports of propagate, key by key.
create or replace function beliefdb.merge_changes(p_a jsonb, p_b jsonb) returns jsonb
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select jsonb_object_agg(k.key, coalesce((
               select jsonb_agg(distinct x.value)
                 from (select jsonb_array_elements(coalesce(p_a -> k.key, '[]')) as value
                       union
                       select jsonb_array_elements(coalesce(p_b -> k.key, '[]'))) x), '[]'))
      from (values ('stopped_holding'), ('started_holding'), ('flagged'), ('held')) as k (key)
$$;
comment on function beliefdb.merge_changes(jsonb, jsonb) is 'Union of two change reports of beliefdb.propagate';

-- Sources expand to their fragments; everything else is a node id.
create or replace function beliefdb.expand_targets(p_workspace_id uuid, p_ids uuid[]) returns uuid[]
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(array_agg(distinct x.id), '{}')
      from (
        select n.id from beliefdb.node n where n.workspace_id = p_workspace_id and n.id = any(p_ids)
        union all
        select f.id
          from beliefdb.source_version v
          join beliefdb.fragment f on f.workspace_id = v.workspace_id and f.source_version_id = v.id
         where v.workspace_id = p_workspace_id and (v.source_id = any(p_ids) or v.id = any(p_ids))
      ) x
$$;
comment on function beliefdb.expand_targets(uuid, uuid[]) is 'Node ids for a list of node, source and source-version ids';

-- Dry run (rule 4, 5): if these nodes (or all fragments of these sources / versions) stopped
-- holding, what would stop holding, which decisions would be flagged, which actions held, and
-- which decisions in the affected closure survive thanks to other support.
create or replace function beliefdb.impact(p_ids uuid[])
returns table (node uuid, kind text, effect text, detail jsonb)
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_targets uuid[] := beliefdb.expand_targets(v_ws, p_ids);
begin
    if cardinality(v_targets) = 0 then
        raise exception 'nothing to assess: no belief, fragment, decision or source has these ids' using errcode = 'BD004';
    end if;
    perform beliefdb.evaluate(v_ws, v_targets, v_targets);
    return query
    select e.id, e.kind::text, 'stops_holding', '{}'::jsonb
      from pg_temp.beliefdb_evaluation e
     where e.was_current and not (e.holds and not e.superseded)
    union all
    select e.id, 'decision', 'flag', jsonb_build_object('title', d.title)
      from pg_temp.beliefdb_evaluation e
      join beliefdb.decision d on d.workspace_id = v_ws and d.id = e.id
     where e.kind = 'decision' and not e.holds and d.status = 'active'
    union all
    select a.id, 'action', 'hold', jsonb_build_object('decision', a.decision_id, 'description', a.description)
      from pg_temp.beliefdb_evaluation e
      join beliefdb.decision d on d.workspace_id = v_ws and d.id = e.id
      join beliefdb.action a on a.workspace_id = d.workspace_id and a.decision_id = d.id
     where e.kind = 'decision' and not e.holds and d.status = 'active' and a.status = 'scheduled'
    union all
    select e.id, 'decision', 'survives', jsonb_build_object('title', d.title, 'by', s.by)
      from pg_temp.beliefdb_evaluation e
      join beliefdb.decision d on d.workspace_id = v_ws and d.id = e.id
      cross join lateral (
            select jsonb_agg(live.antecedents) as by
              from (select j.id, jsonb_agg(a.antecedent order by a.antecedent) as antecedents
                      from beliefdb.justification j
                      join beliefdb.justification_antecedent a
                        on a.workspace_id = j.workspace_id and a.justification_id = j.id
                      left join pg_temp.beliefdb_evaluation ea on ea.id = a.antecedent
                      left join beliefdb.node an on an.workspace_id = a.workspace_id and an.id = a.antecedent
                     where j.workspace_id = v_ws and j.consequent = e.id
                     group by j.id
                    having bool_and(coalesce(
                        case when ea.id is not null then ea.holds and not ea.superseded else an.current end,
                        false))) live
      ) s
     where e.kind = 'decision' and e.holds and d.status in ('active', 'approved');
end
$$;
comment on function beliefdb.impact(uuid[]) is 'Dry run: what stops holding, which decisions are flagged, which actions held, which decisions survive and by what';
