-- beliefdb: the internals of agent traces (docs/rules.md, rule 10): the edges of a recorded batch.

-- The edges of a recorded batch: the given ones, plus step -> memory for each memory written.
create or replace function beliefdb._trace_edges(p_memories jsonb, p_edges jsonb)
returns table (from_node uuid, to_node uuid, kind text)
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select e.from_node, e.to_node, e.kind
      from jsonb_to_recordset(coalesce(p_edges, '[]')) as e (from_node uuid, to_node uuid, kind text)
    union all
    select m.step, m.id, 'produces'
      from jsonb_to_recordset(coalesce(p_memories, '[]')) as m (id uuid, step uuid)
$$;
comment on function beliefdb._trace_edges(jsonb, jsonb) is 'The edges of a recorded trace batch, with each memory''s producing step';

-- The world of nodes of a recorded trace (rule 15, as beliefdb.derive picks it for a derived belief):
-- for each of p_nodes (the batch's memories, or a step, new or recorded earlier), the highest
-- (production < fixture < synthetic) among the beliefs and quotes it rests on (a fragment is its
-- source's world), walking back over the batch's
-- propagating edges (every kind but follows and deletes) and the stored reasons of earlier nodes,
-- through steps and the batch's own memories, to stored beliefs and fragments, whose world is their own,
-- and to recorded steps that store theirs (step.world, revision 0049: a step recorded before it stores
-- none, and is walked through); production when it rests on none. For the batch's steps and memories,
-- run before they are stored (they are walked through, not read): record_trace stores a step's world
-- with it, so a flush walks its own nodes and what they rest on directly, not the whole run below them.
create or replace function beliefdb._trace_worlds(p_ws uuid, p_nodes uuid[], p_memories jsonb, p_edges jsonb)
returns table (node uuid, world beliefdb.provenance)
-- (plpgsql: its body names step.world, of revision 0049 on, which a sql function's body is checked
-- against when it is made, and an upgrade from an earlier release applies this file before it)
language plpgsql stable
set search_path = pg_catalog, pg_temp
-- the walk is a run's few nodes next to the workspace: index lookups from each node, whatever the
-- statistics say (a fresh workspace looks empty, and an anti-join read every belief per node); each
-- lookup is a subquery of its own (offset 0), and only the walk's own rows are joined to each other
set enable_mergejoin = off
as $$
#variable_conflict use_column
begin
    return query
    with recursive batch as materialized (
        select e.from_node, e.to_node
          from beliefdb._trace_edges(p_memories, p_edges) e
         where e.kind not in ('follows', 'deletes')
    ),
    -- (the batch's edges into each node, as one object looked up by key: a scan of the batch for each
    -- node walked was quadratic in a long run)
    inbound as materialized (
        select coalesce(jsonb_object_agg(g.to_node, g.froms), '{}') as edges
          from (select e.to_node::text as to_node, jsonb_agg(e.from_node) as froms
                  from batch e group by e.to_node) g
    ),
    -- Every node the given ones rest on, each edge once (node, the node it was reached from, its world),
    -- not a walk per given node: a run of 1,000 chained steps, each with a memory, walked 1,000 times
    -- the chain below each one, 29 s a flush. (world: a stored belief's own, a fragment's source's or a
    -- recorded step's, where the walk stops; null for a step or a memory of the batch, or a step recorded
    -- before revision 0049. Written out at the start and in
    -- the walk, not a function of its own: called once a node, a function took a 1,000-step run's
    -- flush from 0.86 to 2.1 s.)
    back (node, child, world) as (
        select n.id, null::uuid, o.provenance
          from unnest(p_nodes) n (id)
          cross join lateral (select coalesce(
                  (select o.provenance from beliefdb.belief o where o.workspace_id = p_ws and o.id = n.id),
                  (select s.provenance from beliefdb.fragment f
                     join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
                     join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
                    where f.workspace_id = p_ws and f.id = n.id),
                  (select s.world from beliefdb.step s where s.workspace_id = p_ws and s.id = n.id)) as provenance
                offset 0) o
        union
        select x.antecedent, b.node, o.provenance
          from back b
          cross join lateral (
                select (f.value #>> '{}')::uuid as antecedent
                  from inbound i cross join jsonb_array_elements(i.edges -> b.node::text) f
                union all
                select a.antecedent
                  from beliefdb.justification j
                  join beliefdb.justification_antecedent a
                    on a.workspace_id = j.workspace_id and a.justification_id = j.id
                 where j.workspace_id = p_ws and j.consequent = b.node
                offset 0
          ) x
          cross join lateral (select coalesce(
                  (select o.provenance from beliefdb.belief o where o.workspace_id = p_ws and o.id = x.antecedent),
                  (select s.provenance from beliefdb.fragment f
                     join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
                     join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
                    where f.workspace_id = p_ws and f.id = x.antecedent),
                  (select s.world from beliefdb.step s where s.workspace_id = p_ws and s.id = x.antecedent))
                as provenance offset 0) o
         where b.world is null
    ),
    -- then forward from the stored nodes of another world than production, over those edges: the worlds
    -- that reach each node
    taint (node, world) as (
        select b.node, b.world from back b where b.world is not null and b.world <> 'production'
        union
        select b.child, t.world from taint t join back b on b.node = t.node where b.child is not null
    )
    select n.id, coalesce((select max(t.world) from taint t where t.node = n.id), 'production'::beliefdb.provenance)
      from unnest(p_nodes) n (id);
end
$$;
comment on function beliefdb._trace_worlds(uuid, uuid[], jsonb, jsonb) is 'The world of trace nodes (a batch''s steps and memories, a step): the highest among the stored beliefs and quotes each rests on, through steps and memories to those and to steps storing theirs (rule 15)';

-- Rule 19 in a recorded run: a search hit is not evidence. The belief a memory_read step of run
-- p_run read whose id is (or starts with) p_cited; null when the run read none, or several, such.
create or replace function beliefdb._read_in_run(p_ws uuid, p_run uuid, p_cited text) returns uuid
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select case when count(distinct a.antecedent) = 1 then min(a.antecedent::text)::uuid end
      from beliefdb.step s
      join beliefdb.justification j on j.workspace_id = s.workspace_id and j.consequent = s.id
      join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
      join beliefdb.node n on n.workspace_id = a.workspace_id and n.id = a.antecedent and n.kind = 'belief'
     where s.workspace_id = p_ws and s.run_id = p_run and s.kind = 'memory_read' and a.edge_kind = 'reads'
       and p_cited <> '' and pg_catalog.starts_with(a.antecedent::text, pg_catalog.lower(p_cited))
$$;
comment on function beliefdb._read_in_run(uuid, uuid, text) is 'The belief a memory_read step of a run read, by id or unique prefix (rule 19); null if none or several';

-- A faulty memory already retracted (deleted by a repair, or retracted by hand) is refused by repair
-- plans and repairs (rule 10): what rests on it stopped holding when it was retracted, so a repair of
-- it would record a second repair that changes nothing and report its delete again.
create or replace function beliefdb._require_unretracted(p_ws uuid, p_faulty uuid[]) returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_node beliefdb.node;
begin
    select n.* into v_node
      from unnest(p_faulty) with ordinality f (id, k)
      join beliefdb.node n on n.workspace_id = p_ws and n.id = f.id
     where n.retracted_at is not null
     order by f.k
     limit 1;
    if found then
        raise exception 'memory % is retracted already (%): there is nothing to repair', v_node.id,
            coalesce(nullif(v_node.retraction_reason, ''), 'since ' || v_node.retracted_at)
            using errcode = 'BD005';
    end if;
end
$$;
comment on function beliefdb._require_unretracted(uuid, uuid[]) is 'Refuse a repair of faulty memories any of which is retracted already (BD005, naming it and why)';

-- Whose call an item of a repair plan is (rule 17), when not p_principal's (the acting principal, read
-- once by the caller): a memory deleted (a faulty one), quarantined or restored is its owner's (a belief's
-- status), a step invalidated or marked for replay its run's owner's. Null for what changes by the truth
-- rules alone (a decision flagged, an action held, what stops holding) and what is preserved (callers
-- skip a preserved item that is not a restore: most of a plan). Asked by repair_plan (which says so
-- beside the item) and repair_apply (which refuses it, unless the login is an eraser).
create or replace function beliefdb._repair_item_owner(p_ws uuid, p_principal text, p_node uuid, p_node_kind text,
                                                       p_run uuid, p_action text, p_reason text)
returns text
-- (plpgsql: its body names run.owner, of revision 0042 on, which a sql function's body is checked
-- against when it is made, and an upgrade from an earlier release applies this file before it)
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    return (select o.owner
              from (select b.owner from beliefdb.belief b
                     where b.workspace_id = p_ws and b.id = p_node
                       and (p_action in ('delete', 'quarantine') or (p_action = 'preserve' and p_reason like 'restored:%'))
                    union all
                    select r.owner from beliefdb.run r
                     where r.workspace_id = p_ws and r.id = p_run and p_node_kind = 'step'
                       and p_action in ('invalidate', 'replay')) o
             where o.owner is distinct from p_principal
             limit 1);
end
$$;
comment on function beliefdb._repair_item_owner(uuid, text, uuid, text, uuid, text, text) is 'The owner (other than the acting principal) whose call a repair plan item''s change is: a memory''s, a step''s run''s; null if none';

-- Only the owner of the runs a repair replays, or the principal that applied the repair, replays it
-- (rule 17): the replay writes the runs' new answers. Refused (not_owner) naming the first run the acting
-- principal does not own; BD004 for an unknown repair.
create or replace function beliefdb._require_replayer(p_ws uuid, p_repair uuid) returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_repair beliefdb.repair;
    v_run record;
begin
    select r.* into v_repair from beliefdb.repair r where r.workspace_id = p_ws and r.id = p_repair;
    if not found then
        raise exception 'unknown repair %', p_repair using errcode = 'BD004';
    end if;
    if v_repair.created_by = beliefdb.current_principal() then
        return;
    end if;
    select r.id, r.owner into v_run
      from (select distinct (i ->> 'run_id')::uuid as id from jsonb_array_elements(v_repair.plan) i
             where i ->> 'action' = 'replay') x
      join beliefdb.run r on r.workspace_id = p_ws and r.id = x.id
     where r.owner is distinct from beliefdb.current_principal()
     order by r.created_at, r.id
     limit 1;
    if found then
        raise exception 'run % is owned by %: only its owner, or %, who applied repair %, can replay it',
            v_run.id, v_run.owner, v_repair.created_by, p_repair
            using errcode = 'BD008', hint = 'the repaired run''s owner replays it with its own executor';
    elsif not exists (select from jsonb_array_elements(v_repair.plan) i where i ->> 'action' = 'replay') then
        raise exception 'repair % was applied by %: only that principal can mark it replayed', p_repair,
            v_repair.created_by using errcode = 'BD008';
    end if;
end
$$;
comment on function beliefdb._require_replayer(uuid, uuid) is 'Refuse (not_owner) to replay a repair unless the acting principal applied it or owns every run it replays';

-- Whether a trace batch is recorded already, whole and unchanged (a client sending it again after a
-- lost reply): false when none of its steps and memories is recorded, true when every one is, in the
-- run, with the same content, the same inputs and the same follows and deletes (record_trace then
-- changes nothing and says so: no step nor memory added). A batch reusing recorded ids otherwise
-- (other content, another run, ids of two batches) is refused in one line, naming the first (BD005).
create or replace function beliefdb._trace_batch_recorded(p_ws uuid, p_run uuid, p_steps jsonb, p_memories jsonb,
                                                          p_edges jsonb) returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ids uuid[];
    v_known record;
begin
    v_ids := array(select (x ->> 'id')::uuid from jsonb_array_elements(coalesce(p_steps, '[]')) x)
          || array(select (x ->> 'id')::uuid from jsonb_array_elements(coalesce(p_memories, '[]')) x);
    -- (one index lookup per id, whatever the statistics say: a fresh workspace looks empty)
    select f.id, f.kind into v_known
      from (select x.k, x.id, (select n.kind from beliefdb.node n where n.workspace_id = p_ws and n.id = x.id) as kind
              from unnest(v_ids) with ordinality x (id, k) offset 0) f
     where f.kind is not null
     order by f.k
     limit 1;
    if not found then
        return false;
    end if;
    if not exists (select from unnest(v_ids) x (id)
                    where not exists (select from beliefdb.node n where n.workspace_id = p_ws and n.id = x.id))
       and not exists (
           select from jsonb_to_recordset(coalesce(p_steps, '[]'))
                       as s (id uuid, seq integer, kind text, payload jsonb, replay_of uuid)
            where not exists (select from beliefdb.step t
                               where t.workspace_id = p_ws and t.id = s.id and t.run_id = p_run and t.seq = s.seq
                                 and t.kind::text = s.kind and t.payload = coalesce(s.payload, '{}')
                                 and t.replay_of is not distinct from s.replay_of))
       and not exists (
           select from jsonb_to_recordset(coalesce(p_memories, '[]'))
                       as m (id uuid, subject text, attribute text, value text, statement text, kind text,
                             supersedes uuid)
            where not exists (select from beliefdb.belief b
                               where b.workspace_id = p_ws and b.id = m.id and b.subject = m.subject
                                 and b.attribute = m.attribute and b.value = m.value
                                 and b.statement = coalesce(nullif(m.statement, ''),
                                                            m.subject || ' ' || m.attribute || ' = ' || m.value)
                                 and b.kind::text = coalesce(m.kind, 'fact'))
               or (m.supersedes is not null
                   and not exists (select from beliefdb.relation r
                                    where r.workspace_id = p_ws and r.from_belief = m.id and r.to_belief = m.supersedes
                                      and r.kind = 'supersedes')))
       and not exists (
           (select distinct e.to_node, e.from_node, e.kind = 'supports'
              from beliefdb._trace_edges(p_memories, p_edges) e
             where e.kind not in ('follows', 'deletes')
            except
            select a.consequent, a.antecedent, a.edge_kind = 'supports'
              from beliefdb.justification j
              join beliefdb.justification_antecedent a
                on a.workspace_id = j.workspace_id and a.justification_id = j.id
             where j.workspace_id = p_ws and j.consequent = any(v_ids))
           union all
           (select a.consequent, a.antecedent, a.edge_kind = 'supports'
              from beliefdb.justification j
              join beliefdb.justification_antecedent a
                on a.workspace_id = j.workspace_id and a.justification_id = j.id
             where j.workspace_id = p_ws and j.consequent = any(v_ids)
            except
            select e.to_node, e.from_node, e.kind = 'supports'
              from beliefdb._trace_edges(p_memories, p_edges) e
             where e.kind not in ('follows', 'deletes')))
       and not exists (
           (select e.from_node, e.to_node, e.kind
              from beliefdb._trace_edges(p_memories, p_edges) e where e.kind in ('follows', 'deletes')
            except
            select t.from_node, t.to_node, t.kind from beliefdb.trace_edge t
             where t.workspace_id = p_ws and t.from_node = any(v_ids))
           union all
           (select t.from_node, t.to_node, t.kind from beliefdb.trace_edge t
             where t.workspace_id = p_ws and t.from_node = any(v_ids)
            except
            select e.from_node, e.to_node, e.kind
              from beliefdb._trace_edges(p_memories, p_edges) e where e.kind in ('follows', 'deletes'))) then
        return true;
    end if;
    raise exception '% % is recorded already, with other content or in another batch: a batch is recorded once (sent again whole and unchanged, it changes nothing)',
        case v_known.kind when 'step' then 'step' when 'belief' then 'memory' else v_known.kind::text end,
        v_known.id using errcode = 'BD005';
end
$$;
comment on function beliefdb._trace_batch_recorded(uuid, uuid, jsonb, jsonb, jsonb) is 'Whether a trace batch is recorded already, whole and unchanged (true), or not at all (false); BD005 for recorded ids reused otherwise';

-- Seq is execution order (rule 10: a repair replays steps in seq order): a batch's steps each take a
-- seq of their own in the run, and a step's inputs come before it. A step whose input is a step of
-- its run at a later or the same seq, or a memory such a step wrote, is refused, naming both (BD005):
-- a replay would run it before its input, with nothing to rest on. (Runs are not ordered among
-- themselves: an input of another run is not compared.)
create or replace function beliefdb._check_trace_order(p_ws uuid, p_run uuid, p_steps jsonb, p_memories jsonb,
                                                       p_edges jsonb) returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_bad record;
begin
    select s.seq into v_bad
      from jsonb_to_recordset(coalesce(p_steps, '[]')) as s (seq integer)
     where s.seq is not null
     group by s.seq having count(*) > 1
     order by s.seq
     limit 1;
    if found then
        raise exception 'seq % of run % is given twice in the batch: seq is execution order, one step each',
            v_bad.seq, p_run using errcode = 'BD005';
    end if;
    select t.seq, t.taken as id into v_bad
      from (select s.seq, (select x.id from beliefdb.step x
                            where x.workspace_id = p_ws and x.run_id = p_run and x.seq = s.seq and x.id <> s.id) as taken
              from jsonb_to_recordset(coalesce(p_steps, '[]')) as s (id uuid, seq integer) offset 0) t
     where t.taken is not null
     order by t.seq
     limit 1;
    if found then
        raise exception 'seq % of run % is taken by step %: seq is execution order, one step each', v_bad.seq, p_run,
            v_bad.id using errcode = 'BD005';
    end if;
    -- (the batch joined to itself by hash, what was recorded before by index lookups: linear in the batch)
    with batch as materialized (
        select s.id, s.seq from jsonb_to_recordset(coalesce(p_steps, '[]')) as s (id uuid, seq integer)
    ),
    written as materialized (
        select m.id, m.step from jsonb_to_recordset(coalesce(p_memories, '[]')) as m (id uuid, step uuid)
    ),
    inputs as materialized (
        -- a memory input is as late as the step that wrote it (in the batch, or recorded)
        select t.id as step, t.seq, e.from_node as input,
               coalesce(w.step, (select a.antecedent
                                   from beliefdb.belief b
                                   join beliefdb.justification j on j.workspace_id = b.workspace_id and j.consequent = b.id
                                   join beliefdb.justification_antecedent a
                                     on a.workspace_id = j.workspace_id and a.justification_id = j.id
                                    and a.edge_kind = 'produces'
                                  where b.workspace_id = p_ws and b.id = e.from_node
                                  limit 1)) as writer
          from beliefdb._trace_edges(p_memories, p_edges) e
          join batch t on t.id = e.to_node
          left join written w on w.id = e.from_node
         where e.kind not in ('follows', 'deletes')
    )
    select f.step, f.seq, f.input, f.writer, f.input_seq into v_bad
      from (select i.*, coalesce(b.seq, (select x.seq from beliefdb.step x
                                          where x.workspace_id = p_ws and x.id = coalesce(i.writer, i.input)
                                            and x.run_id = p_run)) as input_seq
              from inputs i
              left join batch b on b.id = coalesce(i.writer, i.input) offset 0) f
     where f.input_seq >= f.seq
     order by f.seq, f.input_seq
     limit 1;
    if found and v_bad.writer is null then
        raise exception 'step % (seq %) has as input step % of its run at seq %: seq is execution order, and what a step rests on comes before it',
            v_bad.step, v_bad.seq, v_bad.input, v_bad.input_seq using errcode = 'BD005';
    elsif found then
        raise exception 'step % (seq %) has as input memory %, written by step % of its run at seq %: seq is execution order, and what a step rests on comes before it',
            v_bad.step, v_bad.seq, v_bad.input, v_bad.writer, v_bad.input_seq using errcode = 'BD005';
    end if;
end
$$;
comment on function beliefdb._check_trace_order(uuid, uuid, jsonb, jsonb, jsonb) is 'Refuse a trace batch whose steps share a seq in their run, or rest on a step (or its memory) of the run at a later or the same seq (BD005)';
