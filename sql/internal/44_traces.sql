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
