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
-- through steps and the batch's own memories, to stored beliefs and fragments, whose world is their own;
-- production when it rests on none. For the batch's memories, run before they are stored (they are
-- walked through, not read).
create or replace function beliefdb._trace_worlds(p_ws uuid, p_nodes uuid[], p_memories jsonb, p_edges jsonb)
returns table (node uuid, world beliefdb.provenance)
language sql stable
set search_path = pg_catalog, pg_temp
-- the walk is a run's few nodes next to the workspace: index lookups from each node, whatever the
-- statistics say (a fresh workspace looks empty, and an anti-join read every belief per node); each
-- lookup is a subquery of its own (offset 0), and only the walk's own rows are joined to each other
set enable_mergejoin = off
as $$
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
    -- the chain below each one, 29 s a flush. (world: a stored belief's own, or a fragment's source's,
    -- where the walk stops; null for a step or a memory of the batch. Written out at the start and in
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
                    where f.workspace_id = p_ws and f.id = n.id)) as provenance offset 0) o
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
                    where f.workspace_id = p_ws and f.id = x.antecedent)) as provenance offset 0) o
         where b.world is null
    ),
    -- then forward from the stored nodes of another world than production, over those edges: the worlds
    -- that reach each node
    taint (node, world) as (
        select b.node, b.world from back b where b.world is not null and b.world <> 'production'
        union
        select b.child, t.world from taint t join back b on b.node = t.node where b.child is not null
    )
    select n.id, coalesce((select max(t.world) from taint t where t.node = n.id), 'production')
      from unnest(p_nodes) n (id)
$$;
comment on function beliefdb._trace_worlds(uuid, uuid[], jsonb, jsonb) is 'The world of trace nodes (a batch''s memories, a step): the highest among the stored beliefs each rests on through steps and memories (rule 15)';

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
