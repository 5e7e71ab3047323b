-- beliefdb: agent traces and dependency-guided rollback repair (docs/rules.md, rule 10).
-- A run is a trace of typed steps, and its propagating edges are justifications (rule 2): a
-- step's joint inputs are one reason needing all of them, each `supports` input is a reason
-- of its own, and a memory a step wrote is a belief justified by that step. Time order
-- (follows) and deletions are trace edges that never propagate. Repair is the holding
-- fixpoint of beliefdb.evaluate with the faulty memories assumed off.

-- Record a batch of one run: the run (when new), its steps, the memories they wrote and the
-- edges between them, then propagate holding over what is new. Inputs of a step (and the
-- producer of a memory) are recorded with it: a later batch cannot add a reason to an old node.
create or replace function beliefdb.record_trace(p_run jsonb, p_steps jsonb, p_memories jsonb, p_edges jsonb)
returns beliefdb.trace_recorded
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_run uuid := (p_run ->> 'id')::uuid;
    v_new uuid[];
    v_worlds jsonb;
    v_bad record;
    v_replayed record;
    v_seeds uuid[];
    v_steps integer;
    v_memories integer;
    v_joint_nodes uuid[];
    v_joint_ids uuid[];
    v_support_from uuid[];
    v_support_to uuid[];
    v_support_ids uuid[];
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    if v_run is null then
        raise exception 'a trace needs its run id' using errcode = 'BD005';
    end if;
    insert into beliefdb.run (workspace_id, id, agent, task, parent_run_id)
    values (v_ws, v_run, coalesce(p_run ->> 'agent', beliefdb.current_principal()), coalesce(p_run ->> 'task', ''),
            (p_run ->> 'parent')::uuid)
    on conflict (workspace_id, id) do nothing;
    perform beliefdb._require_owner(v_ws, v_run, 'record in it');
    -- the same batch again (a retry after a lost reply) changes nothing, and says so: nothing added
    if beliefdb._trace_batch_recorded(v_ws, v_run, p_steps, p_memories, p_edges) then
        return row(v_run, 0, 0)::beliefdb.trace_recorded;
    end if;
    perform beliefdb._check_trace_order(v_ws, v_run, p_steps, p_memories, p_edges);

    v_new := array(select (x ->> 'id')::uuid from jsonb_array_elements(coalesce(p_steps, '[]')) x)
          || array(select (x ->> 'id')::uuid from jsonb_array_elements(coalesce(p_memories, '[]')) x);
    -- a step, and a memory, belongs to the highest world among what it rests on, through the batch's steps
    -- and memories to stored beliefs, quotes and recorded steps (rule 15, as a derived belief): what rests
    -- on fixture material is fixture material. One walk for the batch, before its nodes are stored; a
    -- step stores its world, so that a later flush stops at it instead of walking back through the run
    v_worlds := (select coalesce(jsonb_object_agg(w.node, w.world), '{}')
                   from beliefdb._trace_worlds(v_ws, v_new, p_memories, p_edges) w where w.node is not null);
    insert into beliefdb.step (workspace_id, id, run_id, seq, kind, payload, replay_of, world)
    select v_ws, s.id, v_run, s.seq, s.kind, coalesce(s.payload, '{}'), s.replay_of,
           coalesce((v_worlds ->> s.id::text)::beliefdb.provenance, 'production')
      from jsonb_to_recordset(coalesce(p_steps, '[]'))
           as s (id uuid, seq integer, kind beliefdb.step_kind, payload jsonb, replay_of uuid);
    get diagnostics v_steps = row_count;

    -- stored current, as an ingested claim and a derived belief are: the propagation below settles its
    -- status, and a memory is new at revision 1 whatever status that gives it (stored unsupported, one its
    -- step held started at revision 2, though nothing had changed it; see beliefdb.derive)
    insert into beliefdb.belief (workspace_id, id, statement, subject, attribute, value, kind, confidence_kind, status,
                                 provenance)
    select v_ws, m.id,
           coalesce(nullif(m.statement, ''), m.subject || ' ' || m.attribute || ' = ' || m.value),
           m.subject, m.attribute, m.value, coalesce(m.kind, 'fact'), 'agent_asserted', 'current',
           coalesce((v_worlds ->> m.id::text)::beliefdb.provenance, 'production')
      from jsonb_to_recordset(coalesce(p_memories, '[]'))
           as m (id uuid, subject text, attribute text, value text, statement text, kind text);
    get diagnostics v_memories = row_count;

    select e.* into v_bad
      from beliefdb._trace_edges(p_memories, p_edges) e
     where e.kind is null or e.kind not in ('reads', 'cites', 'initiates', 'derives', 'produces', 'updates',
                                            'consolidates', 'supports', 'follows', 'deletes')
     limit 1;
    if found then
        raise exception 'unknown trace edge kind %', coalesce(v_bad.kind, 'null') using errcode = 'BD005';
    end if;
    select e.* into v_bad
      from beliefdb._trace_edges(p_memories, p_edges) e
     where not exists (select from beliefdb.node n where n.workspace_id = v_ws and n.id = e.from_node)
        or not exists (select from beliefdb.node n where n.workspace_id = v_ws and n.id = e.to_node)
     limit 1;
    if found then
        raise exception 'trace edge % -> %: unknown node', v_bad.from_node, v_bad.to_node using errcode = 'BD004';
    end if;
    select e.* into v_bad
      from beliefdb._trace_edges(p_memories, p_edges) e
     where e.kind not in ('follows', 'deletes') and not (e.to_node = any(v_new))
     limit 1;
    if found then
        raise exception 'the inputs of % are recorded with it, not later', v_bad.to_node using errcode = 'BD005';
    end if;
    -- a tool call takes the verdict of its plan, an observation that of its tool call
    select e.* into v_bad
      from beliefdb._trace_edges(p_memories, p_edges) e
      join beliefdb.step s on s.workspace_id = v_ws and s.id = e.to_node
     where e.kind = 'supports' and s.kind in ('tool_call', 'observation')
     limit 1;
    if found then
        raise exception '% takes the verdict of its inputs: record them as inputs, not supports',
            (select case s.kind when 'observation' then 'an ' else 'a ' end || s.kind
               from beliefdb.step s where s.workspace_id = v_ws and s.id = v_bad.to_node)
            using errcode = 'BD005';
    end if;
    select e.* into v_bad
      from beliefdb._trace_edges(p_memories, p_edges) e
     where e.kind = 'deletes'
       and not exists (select from beliefdb.belief b where b.workspace_id = v_ws and b.id = e.to_node)
     limit 1;
    if found then
        raise exception 'only memories can be deleted, % is not one', v_bad.to_node using errcode = 'BD005';
    end if;
    perform beliefdb._require_owner(v_ws, e.to_node, 'delete it')
       from beliefdb._trace_edges(p_memories, p_edges) e where e.kind = 'deletes';
    -- worlds never touch one another (rule 15): a step resting on fixture material deletes no
    -- production memory (its decisions would be flagged), nor a production step a fixture one
    select e.from_node, w.world, e.to_node, b.provenance as other_world into v_bad
      from beliefdb._trace_edges(p_memories, p_edges) e
      join beliefdb._trace_worlds(v_ws, array(select d.from_node from beliefdb._trace_edges(p_memories, p_edges) d
                                               where d.kind = 'deletes'), p_memories, p_edges) w
        on w.node = e.from_node
      join beliefdb.belief b on b.workspace_id = v_ws and b.id = e.to_node
     where e.kind = 'deletes' and b.provenance <> w.world
     limit 1;
    if found then
        raise exception 'step % rests on % material and cannot delete % memory %: labels are separate worlds',
            v_bad.from_node, v_bad.world, v_bad.other_world, v_bad.to_node using errcode = 'BD002';
    end if;

    -- joint inputs: one reason per node, needing all of them (ids first: the antecedent trigger
    -- reads its justification, so the two inserts are separate statements)
    select coalesce(array_agg(x.to_node), '{}'), coalesce(array_agg(pg_catalog.gen_random_uuid()), '{}')
      into v_joint_nodes, v_joint_ids
      from (select distinct e.to_node from beliefdb._trace_edges(p_memories, p_edges) e
             where e.kind not in ('supports', 'follows', 'deletes')) x;
    insert into beliefdb.justification (workspace_id, id, consequent)
    select v_ws, j.id, j.node from unnest(v_joint_ids, v_joint_nodes) as j (id, node);
    insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, edge_kind)
    select distinct on (j.id, e.from_node) v_ws, j.id, e.from_node, e.kind::beliefdb.edge_kind
      from unnest(v_joint_ids, v_joint_nodes) as j (id, node)
      join beliefdb._trace_edges(p_memories, p_edges) e
        on e.to_node = j.node and e.kind not in ('supports', 'follows', 'deletes')
     order by j.id, e.from_node, e.kind;

    -- supports: each one an independent reason of its own
    select coalesce(array_agg(x.from_node), '{}'), coalesce(array_agg(x.to_node), '{}'),
           coalesce(array_agg(pg_catalog.gen_random_uuid()), '{}')
      into v_support_from, v_support_to, v_support_ids
      from (select distinct e.from_node, e.to_node
              from beliefdb._trace_edges(p_memories, p_edges) e where e.kind = 'supports') x;
    insert into beliefdb.justification (workspace_id, id, consequent)
    select v_ws, j.id, j.node from unnest(v_support_ids, v_support_to) as j (id, node);
    insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, edge_kind)
    select v_ws, j.id, j.ant, 'supports' from unnest(v_support_ids, v_support_from) as j (id, ant);

    insert into beliefdb.trace_edge (workspace_id, from_node, to_node, kind)
    select distinct v_ws, e.from_node, e.to_node, e.kind
      from beliefdb._trace_edges(p_memories, p_edges) e
     where e.kind in ('follows', 'deletes')
    on conflict do nothing;

    -- a deleted memory stops holding; an updated one is superseded by its new version
    update beliefdb.node n
       set retracted_at = beliefdb.clock(), retraction_reason = 'deleted by step ' || e.from_node
      from beliefdb._trace_edges(p_memories, p_edges) e
     where e.kind = 'deletes' and n.workspace_id = v_ws and n.id = e.to_node and n.retracted_at is null;
    -- worlds never supersede one another (rule 15): a fixture memory does not replace production's
    select m.id, b.provenance as world, m.supersedes, o.provenance as other_world into v_bad
      from jsonb_to_recordset(coalesce(p_memories, '[]')) as m (id uuid, supersedes uuid)
      join beliefdb.belief b on b.workspace_id = v_ws and b.id = m.id
      join beliefdb.belief o on o.workspace_id = v_ws and o.id = m.supersedes
     where o.provenance <> b.provenance
     limit 1;
    if found then
        raise exception 'memory % is % material and cannot supersede % memory %: labels are separate worlds',
            v_bad.id, v_bad.world, v_bad.other_world, v_bad.supersedes using errcode = 'BD002';
    end if;
    insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind, reason)
    select v_ws, m.id, m.supersedes, 'supersedes', 'a newer memory written by an agent step'
      from jsonb_to_recordset(coalesce(p_memories, '[]')) as m (id uuid, supersedes uuid)
     where m.supersedes is not null
    on conflict do nothing;

    -- old steps re-run by new ones are replayed now: only for the owner of the run replayed, or the
    -- principal that applied a repair marking the step for replay (rule 17: another's replay would stand
    -- as that run's answer, and its owner could no longer finish the repair)
    select s.id, r.owner into v_replayed
      from jsonb_to_recordset(coalesce(p_steps, '[]')) as x (replay_of uuid)
      join beliefdb.step s on s.workspace_id = v_ws and s.id = x.replay_of
      join beliefdb.run r on r.workspace_id = s.workspace_id and r.id = s.run_id
     where x.replay_of is not null and r.owner is distinct from beliefdb.current_principal()
       and not exists (select from beliefdb.repair p cross join lateral jsonb_array_elements(p.plan) i
                        where p.workspace_id = v_ws and p.created_by = beliefdb.current_principal()
                          and i ->> 'action' = 'replay' and i ->> 'node' = s.id::text)
     limit 1;
    if found then
        raise exception 'step % is of a run owned by %: only its owner, or who applied the repair that marks it for replay, replays it',
            v_replayed.id, v_replayed.owner using errcode = 'BD008';
    end if;
    update beliefdb.step s
       set status = 'replayed'
      from jsonb_to_recordset(coalesce(p_steps, '[]')) as x (replay_of uuid)
     where x.replay_of is not null and s.workspace_id = v_ws and s.id = x.replay_of and s.status = 'replay_pending';

    v_seeds := v_new
        || array(select e.to_node from beliefdb._trace_edges(p_memories, p_edges) e where e.kind = 'deletes');
    if cardinality(v_seeds) > 0 then
        perform beliefdb.propagate(v_ws, v_seeds);
        -- (a status the propagation of its own batch gave a new memory is no change to it)
        update beliefdb.belief b set revision = 1
         where b.workspace_id = v_ws and b.id = any(v_new) and b.revision <> 1;
    end if;
    return row(v_run, v_steps, v_memories)::beliefdb.trace_recorded;
end
$$;
comment on function beliefdb.record_trace(jsonb, jsonb, jsonb, jsonb) is 'Record a batch of an agent run (steps, memories, edges) in one call and propagate holding';

-- A faulty memory named as a repair takes it (rule 10): a belief a step of a recorded run wrote
-- (beliefdb.written_by_step), by its id or a unique prefix. An id of another kind of node (a decision,
-- a step) is said to be one, not "unknown belief"; a belief no step wrote (it rests on quotes, or is
-- derived) is no memory to roll back, and is refused (BD005): a retraction takes it down, history kept.
create or replace function beliefdb.resolve_memory(p_ref text) returns uuid
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_id uuid;
    v_other uuid;
    v_kind text;
    v_message text;
    v_detail text;
begin
    begin
        v_id := beliefdb.resolve_node(p_ref, '{belief}');
    exception when sqlstate 'BD004' then
        get stacked diagnostics v_message = message_text, v_detail = pg_exception_detail;
        begin
            v_other := beliefdb.resolve_node(p_ref);
        exception when others then
            v_other := null;  -- (nothing else either, or several: the belief is unknown)
        end;
        if v_other is null then
            raise exception '%', v_message using errcode = 'BD004', detail = v_detail;
        end if;
        select n.kind::text into v_kind from beliefdb.node n where n.workspace_id = v_ws and n.id = v_other;
        raise exception '% is a %, not a memory: a repair takes faulty memories, beliefs a step of a recorded run wrote (rule 10)',
            v_other, v_kind using errcode = 'BD005';
    end;
    if not beliefdb.written_by_step(v_ws, v_id) then
        raise exception 'belief % is no memory: no step of a recorded run wrote it, and a repair takes faulty memories (rule 10); retract it instead (beliefdb retract)',
            v_id using errcode = 'BD005';
    end if;
    return v_id;
end
$$;
comment on function beliefdb.resolve_memory(text) is 'Resolve a faulty memory (id or unique prefix) a repair takes: a belief a step wrote; another node or a belief no step wrote is refused, named (rule 10)';

-- The repair plan for faulty memories (rule 10), nothing written. From the faulty memories the
-- forward closure over propagating edges is the candidate set; inside it holding is recomputed
-- with them off, so what holds through evidence outside the faulty part is kept (rule 2). Of
-- the rest: faulty memories are deleted, derived memories quarantined, affected steps that lead
-- to the final answer of their run replayed (in execution order), the other affected steps
-- invalidated. With p_independent_evidence off, everything reachable counts as affected. The
-- faulty memories: each a belief's id or a unique prefix.
-- (an earlier signature without p_untouched, from before its release)
drop function if exists beliefdb.repair_plan(uuid[], boolean);

create or replace function beliefdb.repair_plan(p_faulty text[], p_independent_evidence boolean default true,
                                                p_untouched boolean default true)
returns table (node uuid, node_kind text, step_kind text, run_id uuid, seq integer, action text, reason text,
               saved_by uuid[])
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
-- the candidate set is small next to the workspace: walk it by index lookups, whatever the
-- statistics say (fresh workspaces look empty to the planner)
set enable_hashjoin = off
set enable_mergejoin = off
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_principal text := beliefdb.current_principal();
    v_faulty uuid[];
begin
    if coalesce(cardinality(p_faulty), 0) = 0 then
        raise exception 'name at least one faulty memory' using errcode = 'BD005';
    end if;
    v_faulty := array(select r.id from unnest(p_faulty) with ordinality f (ref, n)
                          cross join lateral (select beliefdb.resolve_memory(f.ref) as id) r
                         group by r.id order by min(f.n));
    perform beliefdb._require_unretracted(v_ws, v_faulty);
    perform beliefdb.evaluate(v_ws, v_faulty, v_faulty);

    -- (an item whose change is another principal's call says so: repair_apply refuses it, rule 17)
    return query
    select x.node, x.node_kind, x.step_kind, x.run_id, x.seq, x.action,
           x.reason || coalesce('; owned by ' || o.owner || ': only ' || o.owner
                                || ' (or a login granted beliefdb_eraser) may apply this repair', ''),
           x.saved_by
      from (
    with recursive candidate as (
        select e.id, e.kind, s.kind as step_kind, s.run_id, s.seq,
               e.id = any(v_faulty) as faulty,
               coalesce(e.held, false) and (e.kind <> 'belief' or coalesce(e.was_current, false)) as was_on,
               coalesce(e.held, false) as was_held,
               e.holds and not e.superseded and not e.expired as now_on,
               e.holds as still_holds, e.superseded,
               coalesce(e.was_current, false) as was_current
          from pg_temp.beliefdb_evaluation e
          -- every join below is driven from the candidate set (offset 0 keeps each lookup
          -- parameterised: a fresh workspace looks empty to the planner)
          left join lateral (select s.kind, s.run_id, s.seq from beliefdb.step s
                              where s.workspace_id = v_ws and s.id = e.id offset 0) s on true
    ),
    -- without the independent-evidence check: what rests on the faulty memories at all (reasons
    -- only; a tie partner or an older memory a faulty one superseded does not rest on it)
    reach (id) as (
        select f.id from unnest(v_faulty) f (id) where not p_independent_evidence
        union
        select x.consequent
          from reach r
          cross join lateral (
                select j.consequent
                  from beliefdb.justification_antecedent a
                  join beliefdb.justification j on j.workspace_id = a.workspace_id and j.id = a.justification_id
                 where a.workspace_id = v_ws and a.antecedent = r.id
                offset 0
          ) x
    ),
    -- affected: what was on (a step held, a memory was current) and no longer holds by rule 2; a
    -- memory that still holds but is superseded now (by one the faulty memories held down) is kept
    verdict as (
        select c.*,
               c.faulty or (c.was_on and case when p_independent_evidence then not c.still_holds
                                              else c.id in (select r.id from reach r) end) as affected
          from candidate c
    ),
    final_answer as (
        select v.id
          from verdict v
         where v.affected and v.step_kind = 'answer'
           and v.seq = (select max(s.seq) from beliefdb.step s
                         where s.workspace_id = v_ws and s.run_id = v.run_id and s.kind = 'answer')
    ),
    -- what the final answers need, back through affected nodes only: an affected step whose
    -- effect reaches an answer only through something independently supported need not re-run.
    -- The walk goes through faulty memories too: when what produced one is itself affected (a
    -- second fault upstream), the answer needs it produced again from the repaired inputs.
    answer_path (id) as (
        select f.id from final_answer f
        union
        select x.antecedent
          from answer_path p
          cross join lateral (
                select a.antecedent
                  from beliefdb.justification j
                  join beliefdb.justification_antecedent a
                    on a.workspace_id = j.workspace_id and a.justification_id = j.id
                 where j.workspace_id = v_ws and j.consequent = p.id
                offset 0
          ) x
          join verdict v on v.id = x.antecedent and v.affected
    ),
    planned as (
        select v.id, v.kind::text as node_kind, v.step_kind::text as step_kind, v.run_id, v.seq,
               case when v.faulty then 'delete'
                    when not v.affected then 'preserve'
                    when v.kind = 'belief' then 'quarantine'
                    when v.kind = 'step' and v.id in (select p.id from answer_path p) then 'replay'
                    else 'invalidate'
               end as action,
               v.affected, v.was_on, v.was_held, v.was_current, v.now_on, v.superseded
          from verdict v
         where v.faulty or v.affected or v.was_on or v.now_on
    )
    select p.id, p.node_kind, p.step_kind, p.run_id, p.seq, p.action,
           case p.action
               when 'delete' then 'named as faulty'
               when 'quarantine' then 'a memory that rested on the faulty ones and has no other support'
               when 'replay' then 'affected, and the final answer of its run needs it'
               when 'invalidate' then
                   case p.node_kind
                       when 'step' then 'affected, but the final answer of its run does not need it'
                       when 'decision' then 'lost its last support: flagged for review'
                       when 'action' then 'its decision lost its last support: held'
                       else 'lost its last support'
                   end
               -- (kept: without p_independent_evidence, what was on and is kept is what the faulty
               -- memories do not reach)
               else case when not p.was_current and p.node_kind = 'belief' and p.was_held
                         then 'current again: what superseded it rested on the faulty memories'
                         -- (what is listed was on before or is on after: so this is on after)
                         when not p.was_on
                         then 'holds again: what it rests on was held down by the faulty memories'
                         when p.node_kind = 'belief' and p.superseded
                         then 'still holds, superseded by a memory that holds without the faulty ones'
                         when not p_independent_evidence then 'does not rest on the faulty memories'
                         else 'still holds through evidence outside the faulty part' end
           end,
           case when p.action = 'preserve' then coalesce(saved.by, '{}') else '{}' end
      from planned p
      left join beliefdb.run r on r.workspace_id = v_ws and r.id = p.run_id
      cross join lateral (
            -- the antecedents of the reasons that still hold
            select array_agg(distinct a.antecedent order by a.antecedent) as by
              from beliefdb.justification j
              join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
             where p.action = 'preserve' and j.workspace_id = v_ws and j.consequent = p.id
               and not exists (
                    select from beliefdb.justification_antecedent a2
                      left join pg_temp.beliefdb_evaluation e2 on e2.id = a2.antecedent
                      left join lateral (select n2.current from beliefdb.node n2
                                          where n2.workspace_id = a2.workspace_id and n2.id = a2.antecedent
                                         offset 0) n2 on true
                     where a2.workspace_id = j.workspace_id and a2.justification_id = j.id
                       and not coalesce(case when e2.id is not null then e2.holds and not e2.superseded and not e2.expired
                                             else n2.current end, false))
            offset 0
      ) saved
    union all
    -- memories deleted by a step that is undone come back (once), unless a deletion of them still holds
    -- (rule 10: what still holds is kept): the memory's retraction is a step's deletion (whichever step's:
    -- the first one's, when several deleted it), and no step that deleted it holds after the repair, one
    -- this repair leaves alone holding as it holds now
    select distinct t.to_node, 'belief', null::text, null::uuid, null::integer, 'preserve',
           'restored: deleted by a step that is undone', '{}'::uuid[]
      from verdict v
      cross join lateral (select t.to_node from beliefdb.trace_edge t
                           where t.workspace_id = v_ws and t.from_node = v.id and t.kind = 'deletes' offset 0) t
      cross join lateral (select n.retraction_reason from beliefdb.node n
                           where n.workspace_id = v_ws and n.id = t.to_node and n.kind = 'belief' offset 0) n
     where v.affected and v.kind = 'step' and not (t.to_node = any(v_faulty))
       and n.retraction_reason like 'deleted by step %'
       and not exists (
            select from beliefdb.trace_edge d
              left join verdict w on w.id = d.from_node
              left join lateral (select n2.holds from beliefdb.node n2
                                  where n2.workspace_id = v_ws and n2.id = d.from_node offset 0) n2 on true
             where d.workspace_id = v_ws and d.to_node = t.to_node and d.kind = 'deletes'
               and case when w.id is not null then not w.affected and w.still_holds
                        else coalesce(n2.holds, false) end)
    union all
    -- steps of the affected runs that nothing faulty reaches: untouched
    select s.id, 'step', s.kind::text, s.run_id, s.seq, 'preserve', 'not reachable from the faulty memories', '{}'
      from (select distinct v.run_id from verdict v where p_untouched and v.affected and v.run_id is not null) r
      cross join lateral (select s.id, s.kind, s.run_id, s.seq, s.status from beliefdb.step s
                           where s.workspace_id = v_ws and s.run_id = r.run_id offset 0) s
     where s.status = 'recorded'
       and not exists (select from pg_temp.beliefdb_evaluation e where e.id = s.id)
      ) x (node, node_kind, step_kind, run_id, seq, action, reason, saved_by)
      cross join lateral (select case when x.action <> 'preserve' or x.reason like 'restored:%'
                                      then beliefdb._repair_item_owner(v_ws, v_principal, x.node, x.node_kind, x.run_id,
                                                                       x.action, x.reason) end as owner offset 0) o;
end
$$;
comment on function beliefdb.repair_plan(text[], boolean, boolean) is 'Rollback repair plan for faulty memories: delete, quarantine, invalidate, replay (in order), preserve (p_untouched: with the untouched steps of the affected runs), with reasons';

-- The plan as one ordered JSON array: by action, then execution order (run, then step). It stays
-- jsonb: it is the document beliefdb.repair keeps (repair.plan) for the replay; the typed plan is
-- beliefdb.repair_plan, and repair_apply returns it as beliefdb.plan_item[].
create or replace function beliefdb.repair_plan_json(p_faulty text[], p_independent_evidence boolean default true)
returns jsonb
language sql
security definer
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(jsonb_agg(to_jsonb(p) order by
               array_position(array['delete', 'quarantine', 'invalidate', 'replay', 'preserve'], p.action),
               r.created_at, r.id, p.seq, p.node), '[]')
      from beliefdb.repair_plan(p_faulty, p_independent_evidence) p
      left join beliefdb.run r on r.workspace_id = beliefdb.current_workspace_id() and r.id = p.run_id
$$;
comment on function beliefdb.repair_plan_json(text[], boolean) is 'The repair plan as a JSON array in action and execution order (jsonb: the document a repair keeps)';

-- Carry out the store side of a repair plan in one transaction (the faulty memories: each a
-- belief's id or a unique prefix): faulty memories deleted (retracted, history kept), derived ones
-- quarantined, affected steps invalidated or marked for replay, and holding propagated; the plan is
-- kept for the replay and audited.
create or replace function beliefdb.repair_apply(p_faulty text[], p_independent_evidence boolean default true)
returns beliefdb.repair_result
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_faulty uuid[];
    v_id uuid;
    v_plan jsonb;
    v_changes jsonb;
    v_eraser boolean := beliefdb._is_eraser();
    v_principal text := beliefdb.current_principal();
    v_other record;
    v_owners text[];
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    v_faulty := array(select r.id from unnest(p_faulty) with ordinality f (ref, n)
                          cross join lateral (select beliefdb.resolve_memory(f.ref) as id) r
                         group by r.id order by min(f.n));
    -- naming a memory faulty deletes it: its owner's call (an eraser's for any)
    if not v_eraser then
        perform beliefdb._require_owner(v_ws, f.id, 'name it faulty') from unnest(v_faulty) f (id);
    end if;
    v_plan := beliefdb.repair_plan_json(v_faulty::text[], p_independent_evidence);
    -- and so is every other change it makes by hand (rule 17): a memory quarantined or restored is its
    -- owner's call, a step invalidated or marked for replay its run's owner's. Refused, the first in the
    -- plan's order, unless the login is an eraser (then the audit event names it and the owners)
    select i.n, i.item ->> 'action' as action, i.item ->> 'node' as node, i.item ->> 'node_kind' as node_kind,
           i.item ->> 'run_id' as run_id, o.owner
      into v_other
      from jsonb_array_elements(v_plan) with ordinality i (item, n)
      cross join lateral (select beliefdb._repair_item_owner(v_ws, v_principal, (i.item ->> 'node')::uuid,
                                                             i.item ->> 'node_kind', (i.item ->> 'run_id')::uuid,
                                                             i.item ->> 'action', i.item ->> 'reason') as owner
                           offset 0) o
     where (i.item ->> 'action' <> 'preserve' or i.item ->> 'reason' like 'restored:%') and o.owner is not null
     order by i.n
     limit 1;
    if found and not v_eraser then
        raise exception 'this repair would % %, owned by %: only its owner can change its status (or a login granted beliefdb_eraser)',
            case v_other.action when 'replay' then 'mark for replay' when 'preserve' then 'restore'
                                else v_other.action end,
            case when v_other.node_kind = 'step' then 'step ' || v_other.node || ' of run ' || v_other.run_id
                 else 'belief ' || v_other.node end,
            v_other.owner
            using errcode = 'BD008',
                  hint = 'retract the faulty memory instead (what rests on it stops holding, whoever owns it), '
                         || 'or ask ' || v_other.owner || ' to repair it';
    end if;
    v_owners := array(select distinct o.owner
                        from jsonb_array_elements(v_plan) i
                        cross join lateral (select beliefdb._repair_item_owner(
                                v_ws, v_principal, (i ->> 'node')::uuid, i ->> 'node_kind', (i ->> 'run_id')::uuid,
                                i ->> 'action', i ->> 'reason') as owner offset 0) o
                       where (i ->> 'action' <> 'preserve' or i ->> 'reason' like 'restored:%') and o.owner is not null
                       order by o.owner);
    insert into beliefdb.repair (workspace_id, faulty, independent_evidence, plan)
    values (v_ws, v_faulty, p_independent_evidence, v_plan)
    returning id into v_id;

    with item as (
        select (i ->> 'node')::uuid as id, i ->> 'action' as action, i ->> 'node_kind' as node_kind
          from jsonb_array_elements(v_plan) i
    )
    update beliefdb.node n
       set retracted_at = beliefdb.clock(),
           retraction_reason = case item.action
                                   when 'delete' then 'deleted by repair '
                                   when 'quarantine' then 'quarantined by repair '
                                   when 'replay' then 'replayed by repair '
                                   else 'invalidated by repair ' end || v_id
      from item
     where n.workspace_id = v_ws and n.id = item.id and n.retracted_at is null
       and (item.action in ('delete', 'quarantine') or (item.action in ('invalidate', 'replay') and item.node_kind = 'step'));
    update beliefdb.belief b
       set status = 'quarantined', revision = b.revision + 1
      from jsonb_array_elements(v_plan) i
     where i ->> 'action' = 'quarantine' and b.workspace_id = v_ws and b.id = (i ->> 'node')::uuid;
    update beliefdb.step s
       set status = case i ->> 'action' when 'replay' then 'replay_pending' else 'invalidated' end
      from jsonb_array_elements(v_plan) i
     where i ->> 'action' in ('invalidate', 'replay') and s.workspace_id = v_ws and s.id = (i ->> 'node')::uuid;

    update beliefdb.node n
       set retracted_at = null, retraction_reason = null
      from jsonb_array_elements(v_plan) i
     where i ->> 'action' = 'preserve' and i ->> 'reason' like 'restored:%'
       and n.workspace_id = v_ws and n.id = (i ->> 'node')::uuid;

    -- the quarantined are seeds too: their status was written here, and a conflicting belief
    -- quarantined loses the conflict's factor of its confidence (propagate recomputes the seeds').
    -- So is every node retracted or restored here: the propagation walks what rests on its seeds by
    -- stored supports, and a step invalidated that held by another support is reached no other way.
    v_changes := beliefdb.propagate(v_ws, v_faulty || array(
        select (i ->> 'node')::uuid from jsonb_array_elements(v_plan) i
         where (i ->> 'action' = 'preserve' and i ->> 'reason' like 'restored:%')
            or i ->> 'action' in ('delete', 'quarantine')
            or (i ->> 'action' in ('invalidate', 'replay') and i ->> 'node_kind' = 'step')));
    perform beliefdb._audit('repair.apply', jsonb_build_object(
        'repair', v_id, 'faulty', v_faulty, 'independent_evidence', p_independent_evidence,
        'counts', (select jsonb_object_agg(x.action, x.n)
                     from (select i ->> 'action' as action, count(*) as n
                             from jsonb_array_elements(v_plan) i group by 1) x))
        || case when cardinality(v_owners) > 0
                then jsonb_build_object('eraser', session_user::text, 'owners', to_jsonb(v_owners))
                else '{}' end);
    return row(v_id, v_faulty,
               array(select jsonb_populate_record(null::beliefdb.plan_item, p.item)
                       from jsonb_array_elements(v_plan) with ordinality p (item, n) order by p.n),
               beliefdb._as_changes(v_changes))::beliefdb.repair_result;
end
$$;
comment on function beliefdb.repair_apply(text[], boolean) is 'Carry out a repair plan''s store side in one transaction and keep the plan for replay';

-- Mark a repair's replay finished.
create or replace function beliefdb.repair_replayed(p_repair uuid) returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._require_replayer(beliefdb.current_workspace_id(), p_repair);
    update beliefdb.repair r set replayed_at = beliefdb.clock()
     where r.workspace_id = beliefdb.current_workspace_id() and r.id = p_repair;
    if not found then
        raise exception 'unknown repair %', p_repair using errcode = 'BD004';
    end if;
end
$$;
comment on function beliefdb.repair_replayed(uuid) is 'Record that a repair''s replay has finished';

-- An applied repair to replay: what was faulty and its plan, for the repaired runs' owner or the
-- repair's maker only (rule 17: the replay writes those runs' new answers; not_owner for anyone else).
create or replace function beliefdb.repair_to_replay(p_repair uuid)
returns table (faulty uuid[], plan jsonb)
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    perform beliefdb._require_replayer(beliefdb.current_workspace_id(), p_repair);
    return query select r.faulty, r.plan from beliefdb.repair r
                  where r.workspace_id = beliefdb.current_workspace_id() and r.id = p_repair;
end
$$;
comment on function beliefdb.repair_to_replay(uuid) is 'An applied repair''s faulty memories and plan, for replaying it: its runs'' owner or its maker only (not_owner)';
