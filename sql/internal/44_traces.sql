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
