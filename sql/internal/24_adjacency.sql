-- beliefdb: upkeep of the derived index beliefdb.adjacency, by triggers whoever writes.
-- The closure walk of beliefdb.evaluate_closure (api/52_holding.sql) reads it; the DBA rewrites it
-- after a bulk load with beliefdb.rebuild_adjacency (api/70_dba_tools.sql).

-- beliefdb.adjacency repeats, per node, what node, justification, justification_antecedent and
-- relation say (schema/10_tables.sql). An insert adds the adjacency rows of what came, a delete
-- removes those of what went, and an update does both for the rows whose walked columns changed
-- (a transition table does not pair old and new rows, so what changed is a set difference).

-- The out row into a leaf (a node that is not a belief, has one justification, of one antecedent,
-- and no edge out: an action, a decision on one belief nothing carries out) also carries the leaf's
-- standing, so that the closure walk learns all of the leaf from the edge that reaches it and never
-- reads the leaf's own rows (a third of a closure's nodes are actions). What the justification
-- misses follows from its one antecedent, which the walk reads. Beliefs are never leaves: their
-- supersessions and ties are walked too.

-- Set the leaf columns of the out rows into these nodes (pairwise workspace and node ids) to what
-- the tables say now: after a change of what rests on what.
create or replace function beliefdb._refresh_leaf_entries(p_workspace_ids uuid[], p_nodes uuid[]) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
-- called by the triggers of every change to the graph's edges, for a handful of nodes at a time:
-- index lookups by id, whatever the size of the tables; planned once per session, not per call
set enable_seqscan = off
set enable_hashjoin = off
set enable_mergejoin = off
set plan_cache_mode = force_generic_plan
as $$
declare
    v_workspace_ids uuid[];
    v_nodes uuid[];
begin
    -- most changes concern beliefs and fragments, which are never leaves: a cheap look first, by the
    -- node's kind before its justifications (a fragment is a premise, the consequent of none: where one
    -- belief quotes every fragment, the statistics say any node is every justification's consequent,
    -- and the look read all of them for each fragment a corroboration wrote)
    select array_agg(n.workspace_id), array_agg(n.id)
      into v_workspace_ids, v_nodes
      from (select distinct c.workspace_id, c.id
              from unnest(p_workspace_ids, p_nodes) as c (workspace_id, id)) c
      join beliefdb.node n on n.workspace_id = c.workspace_id and n.id = c.id
                          and n.kind not in ('belief', 'fragment')
     where exists (select from beliefdb.justification j
                    where j.workspace_id = n.workspace_id and j.consequent = n.id);
    if v_nodes is null then
        return;
    end if;
    update beliefdb.adjacency x
       set kind = l.kind, holds = l.holds, current = l.current, retracted = l.retracted
      from (select a.workspace_id, a.antecedent, a.justification_id,
                   case when s.leaf then s.kind end as kind, case when s.leaf then s.holds end as holds,
                   case when s.leaf then s.current end as current, case when s.leaf then s.retracted end as retracted
              -- each justification of the nodes, and whether the node is a leaf (the window keeps
              -- this a subquery, so each node is looked at once)
              from (select j.workspace_id, j.id, n.kind, n.holds, n.current, n.retracted_at is not null as retracted,
                           count(*) over (partition by c.workspace_id, c.id) = 1
                           and (select count(*) from beliefdb.justification_antecedent o
                                 where o.workspace_id = j.workspace_id and o.justification_id = j.id) = 1
                           and not exists (select from beliefdb.justification_antecedent o
                                            where o.workspace_id = c.workspace_id and o.antecedent = c.id) as leaf
                      from unnest(v_workspace_ids, v_nodes) as c (workspace_id, id)
                      join beliefdb.node n on n.workspace_id = c.workspace_id and n.id = c.id
                      join beliefdb.justification j on j.workspace_id = c.workspace_id and j.consequent = c.id) s
              join beliefdb.justification_antecedent a on a.workspace_id = s.workspace_id and a.justification_id = s.id) l
     where x.workspace_id = l.workspace_id and x.node = l.antecedent and x.entry = 'out'
       and x.justification = l.justification_id
       and (x.kind, x.holds, x.current, x.retracted) is distinct from (l.kind, l.holds, l.current, l.retracted);
end
$$;
comment on function beliefdb._refresh_leaf_entries(uuid[], uuid[]) is 'Set the leaf columns of the adjacency out rows into these nodes (workspace ids and node ids, pairwise)';

-- The same for nodes whose standing changed: rewrite the standing on the out row into each that is
-- a leaf (whether it is one did not change). Each node's justifications, then their antecedents, are
-- read by their keys in that order (lateral, not flattened): planned once for the session while the
-- tables were small, the join read every antecedent of the workspace for each node instead, a time
-- that grew with the workspace (0.4, then 0.9, then 2.5 s of one ingest of 2,000 turns as a session
-- ingested its first, second and third conversation).
create or replace function beliefdb._refresh_leaf_standing(p_workspace_ids uuid[], p_nodes uuid[]) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
-- what propagate writes, up to a closure of nodes at a time: index lookups by id
set enable_seqscan = off
set enable_hashjoin = off
set enable_mergejoin = off
set plan_cache_mode = force_generic_plan
as $$
begin
    update beliefdb.adjacency x
       set holds = s.holds, current = s.current, retracted = s.retracted
      from (select c.workspace_id, j.id as justification, a.antecedent, n.holds, n.current,
                   n.retracted_at is not null as retracted
              from unnest(p_workspace_ids, p_nodes) as c (workspace_id, id)
              join beliefdb.node n on n.workspace_id = c.workspace_id and n.id = c.id
                                  -- (a fragment is a premise: no justification has it as consequent. Its
                                  -- lookup is not made: where one belief quotes every fragment of a
                                  -- workspace, the statistics say any node is every justification's
                                  -- consequent, the plan reads them all by the workspace, and a change of
                                  -- 8,000 fragments took 6 s, 40 s when 36,000 were there)
                                  and n.kind <> 'fragment'
             cross join lateral (select j.id from beliefdb.justification j
                                  where j.workspace_id = c.workspace_id and j.consequent = c.id offset 0) j
             cross join lateral (select a.antecedent from beliefdb.justification_antecedent a
                                  where a.workspace_id = c.workspace_id and a.justification_id = j.id offset 0) a
            -- (and the out rows by their whole key, after all of that, offset 0: with the node's
            -- workspace alone the plan joined adjacency between the node and its justifications, and
            -- read every out row of the workspace for each node: a conversation of 8,000 turns,
            -- 2.7 s, one of 2,000, 0.17 s)
            offset 0) s
     where x.workspace_id = s.workspace_id and x.node = s.antecedent and x.entry = 'out'
       and x.justification = s.justification and x.kind is not null
       and (x.holds, x.current, x.retracted) is distinct from (s.holds, s.current, s.retracted);
end
$$;
comment on function beliefdb._refresh_leaf_standing(uuid[], uuid[]) is 'Set the standing on the adjacency out rows into these nodes where they are leaves (workspace ids and node ids, pairwise)';

-- Set the support column of the out rows of these justifications (workspace ids, justification
-- ids and the value, triples): true when a justification became its consequent's support, null
-- when it stopped being it.
create or replace function beliefdb._refresh_support_edges(p_workspace_ids uuid[], p_justifications uuid[],
                                                           p_support boolean[]) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
-- what propagate moves, up to a closure of supports at a time: index lookups by id, planned once
-- per session (a plan of the trigger's own, made for the transition tables of its first call,
-- hashed the workspace's edges and adjacency rows: 0.3 s at a hub of the 100k benchmark)
set enable_seqscan = off
set enable_hashjoin = off
set enable_mergejoin = off
set plan_cache_mode = force_generic_plan
as $$
begin
    update beliefdb.adjacency x
       set support = s.support
      from unnest(p_workspace_ids, p_justifications, p_support) as s (workspace_id, id, support)
      join beliefdb.justification_antecedent a on a.workspace_id = s.workspace_id and a.justification_id = s.id
     where x.workspace_id = a.workspace_id and x.node = a.antecedent and x.entry = 'out'
       and x.justification = a.justification_id and x.support is distinct from s.support;
end
$$;
comment on function beliefdb._refresh_support_edges(uuid[], uuid[], boolean[]) is 'Set the support column of the adjacency out rows of these justifications (workspace ids, justification ids, values)';

create or replace function beliefdb.adjacency_of_nodes() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_workspace_ids uuid[];
    v_nodes uuid[];
    v_support boolean[];
begin
    if TG_OP = 'INSERT' then
        -- a relation names beliefs that exist already: a node being made is in none
        insert into beliefdb.adjacency (workspace_id, node, entry, justification, kind, holds, current, retracted,
                                        related)
        select n.workspace_id, n.id, 'self'::beliefdb.adjacency_entry, n.id, n.kind, n.holds, n.current,
               n.retracted_at is not null, false
          from new_rows n;
    elsif TG_OP = 'DELETE' then
        delete from beliefdb.adjacency x
         using old_rows o
         where x.workspace_id = o.workspace_id and x.node = o.id and x.entry = 'self' and x.justification = o.id;
    else
        delete from beliefdb.adjacency x
         using (select o.workspace_id, o.id, o.kind, o.holds, o.current, o.retracted_at is not null from old_rows o
                except
                select n.workspace_id, n.id, n.kind, n.holds, n.current, n.retracted_at is not null from new_rows n)
               as went (workspace_id, id, kind, holds, current, retracted)
         where x.workspace_id = went.workspace_id and x.node = went.id and x.entry = 'self'
           and x.justification = went.id;
        with came as (
            insert into beliefdb.adjacency (workspace_id, node, entry, justification, kind, holds, current, retracted,
                                            related)
            select c.workspace_id, c.id, 'self'::beliefdb.adjacency_entry, c.id, c.kind, c.holds, c.current,
                   c.retracted, c.kind = 'belief' and beliefdb._is_related(c.workspace_id, c.id)
              from (select n.workspace_id, n.id, n.kind, n.holds, n.current, n.retracted_at is not null
                      from new_rows n
                    except
                    select o.workspace_id, o.id, o.kind, o.holds, o.current, o.retracted_at is not null
                      from old_rows o) as c (workspace_id, id, kind, holds, current, retracted)
            returning workspace_id, node, kind
        )
        select array_agg(c.workspace_id), array_agg(c.node)
          into v_workspace_ids, v_nodes
          from came c
         where c.kind <> 'belief';
        -- a leaf's standing is on the edge into it too
        if v_nodes is not null then
            perform beliefdb._refresh_leaf_standing(v_workspace_ids, v_nodes);
        end if;
        -- the supports that went and came (node.support): the out rows of their antecedents say so.
        -- Most updates change none (a standing, or a rank): the difference of the transition tables
        -- is empty then and nothing more is read
        select array_agg(s.workspace_id), array_agg(s.id), array_agg(s.support)
          into v_workspace_ids, v_nodes, v_support
          from (select w.workspace_id, w.id, null::boolean as support
                  from (select o.workspace_id, o.support from old_rows o where o.support is not null
                        except
                        select n.workspace_id, n.support from new_rows n where n.support is not null)
                       as w (workspace_id, id)
                union all
                select c.workspace_id, c.id, true
                  from (select n.workspace_id, n.support from new_rows n where n.support is not null
                        except
                        select o.workspace_id, o.support from old_rows o where o.support is not null)
                       as c (workspace_id, id)) s;
        if v_nodes is not null then
            perform beliefdb._refresh_support_edges(v_workspace_ids, v_nodes, v_support);
        end if;
    end if;
    return null;
end
$$;
comment on function beliefdb.adjacency_of_nodes() is 'Trigger: keep the self rows of beliefdb.adjacency equal to the nodes';

create or replace function beliefdb.adjacency_of_justifications() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_workspace_ids uuid[];
    v_nodes uuid[];
begin
    -- whether a node is a leaf depends on how many justifications it has: the consequents of what
    -- came, went or moved have their leaf columns set again (a change of unmet alone changes none)
    if TG_OP = 'INSERT' then
        insert into beliefdb.adjacency (workspace_id, node, entry, justification, unmet)
        select n.workspace_id, n.consequent, 'in'::beliefdb.adjacency_entry, n.id, n.unmet from new_rows n;
        select array_agg(n.workspace_id), array_agg(n.consequent) into v_workspace_ids, v_nodes from new_rows n;
    elsif TG_OP = 'DELETE' then
        delete from beliefdb.adjacency x
         using old_rows o
         where x.workspace_id = o.workspace_id and x.node = o.consequent and x.entry = 'in' and x.justification = o.id;
        select array_agg(o.workspace_id), array_agg(o.consequent) into v_workspace_ids, v_nodes from old_rows o;
    else
        delete from beliefdb.adjacency x
         using (select o.workspace_id, o.id, o.consequent, o.unmet from old_rows o
                except
                select n.workspace_id, n.id, n.consequent, n.unmet from new_rows n) as went
         where x.workspace_id = went.workspace_id and x.node = went.consequent and x.entry = 'in'
           and x.justification = went.id;
        insert into beliefdb.adjacency (workspace_id, node, entry, justification, unmet)
        select n.workspace_id, n.consequent, 'in'::beliefdb.adjacency_entry, n.id, n.unmet from new_rows n
        except
        select o.workspace_id, o.consequent, 'in'::beliefdb.adjacency_entry, o.id, o.unmet from old_rows o;
        -- the justifications that moved: the node each left and the node each reached (old and
        -- new rows grouped by id, not joined: the plan is made once, for the first update's few
        -- rows, and a nested loop over an update of every justification took time quadratic in it)
        select array_agg(moved.workspace_id), array_agg(m.consequent)
          into v_workspace_ids, v_nodes
          from (select c.workspace_id, array_agg(distinct c.consequent) as consequents
                  from (select o.workspace_id, o.id, o.consequent from old_rows o
                        union all
                        select n.workspace_id, n.id, n.consequent from new_rows n) c
                 group by c.workspace_id, c.id) moved
         cross join lateral unnest(moved.consequents) as m (consequent)
         where cardinality(moved.consequents) > 1;
    end if;
    if v_nodes is not null then
        perform beliefdb._refresh_leaf_entries(v_workspace_ids, v_nodes);
    end if;
    return null;
end
$$;
comment on function beliefdb.adjacency_of_justifications() is 'Trigger: keep the in rows of beliefdb.adjacency equal to the justifications';

-- What a new out row says of its consequent, from one probe of the consequent's node row: whether
-- the justification is its support (node.support: true, or null, the value adjacency.support has
-- on an out row that carries none), and whether it is a decision (adjacency.into_decision: a node's
-- kind never changes, so what the row says when it is made stays true).
create or replace function beliefdb._edge_facts(p_workspace_id uuid, p_justification uuid, p_consequent uuid,
                                                out o_support boolean, out o_decision boolean)
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    -- plpgsql, not sql: planned once per session, not once per calling query
    select case when n.support = p_justification then true end, n.kind = 'decision'
      into o_support, o_decision
      from beliefdb.node n
     where n.workspace_id = p_workspace_id and n.id = p_consequent;
    o_decision := coalesce(o_decision, false);
end
$$;
comment on function beliefdb._edge_facts(uuid, uuid, uuid) is 'Whether a justification is its consequent''s support (true, else null) and whether the consequent is a decision';

create or replace function beliefdb.adjacency_of_edges() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_workspace_ids uuid[];
    v_nodes uuid[];
begin
    -- an edge out of a node makes it no leaf, a second antecedent makes its justification's
    -- consequent no leaf, and a new out row into a leaf carries the leaf: the antecedents and
    -- consequents of what came, went or changed have their leaf columns set again
    if TG_OP = 'INSERT' then
        -- (an edge of a justification that is already its consequent's support carries it)
        -- (offset 0: one call per edge)
        insert into beliefdb.adjacency (workspace_id, node, entry, justification, consequent, support, into_decision)
        select n.workspace_id, n.antecedent, 'out'::beliefdb.adjacency_entry, n.justification_id, n.consequent,
               (n.f).o_support, (n.f).o_decision
          from (select n.workspace_id, n.antecedent, n.justification_id, n.consequent,
                       beliefdb._edge_facts(n.workspace_id, n.justification_id, n.consequent) as f
                  from new_rows n
                offset 0) n;
        select array_agg(c.workspace_id), array_agg(c.node)
          into v_workspace_ids, v_nodes
          from (select n.workspace_id, n.antecedent as node from new_rows n
                union
                select n.workspace_id, n.consequent from new_rows n) c;
    elsif TG_OP = 'DELETE' then
        delete from beliefdb.adjacency x
         using old_rows o
         where x.workspace_id = o.workspace_id and x.node = o.antecedent and x.entry = 'out'
           and x.justification = o.justification_id;
        select array_agg(c.workspace_id), array_agg(c.node)
          into v_workspace_ids, v_nodes
          from (select o.workspace_id, o.antecedent as node from old_rows o
                union
                select o.workspace_id, o.consequent from old_rows o) c;
    else
        delete from beliefdb.adjacency x
         using (select o.workspace_id, o.antecedent, o.justification_id, o.consequent from old_rows o
                except
                select n.workspace_id, n.antecedent, n.justification_id, n.consequent from new_rows n) as went
         where x.workspace_id = went.workspace_id and x.node = went.antecedent and x.entry = 'out'
           and x.justification = went.justification_id;
        insert into beliefdb.adjacency (workspace_id, node, entry, justification, consequent, support, into_decision)
        select c.workspace_id, c.antecedent, c.entry, c.justification_id, c.consequent, (c.f).o_support,
               (c.f).o_decision
          from (select c.*, beliefdb._edge_facts(c.workspace_id, c.justification_id, c.consequent) as f
                  from (select n.workspace_id, n.antecedent, 'out'::beliefdb.adjacency_entry, n.justification_id,
                               n.consequent
                          from new_rows n
                        except
                        select o.workspace_id, o.antecedent, 'out'::beliefdb.adjacency_entry, o.justification_id,
                               o.consequent
                          from old_rows o) as c (workspace_id, antecedent, entry, justification_id, consequent)
                offset 0) c;
        select array_agg(c.workspace_id), array_agg(c.node)
          into v_workspace_ids, v_nodes
          from (select n.workspace_id, n.antecedent as node from new_rows n
                union
                select n.workspace_id, n.consequent from new_rows n
                union
                select o.workspace_id, o.antecedent from old_rows o
                union
                select o.workspace_id, o.consequent from old_rows o) c;
    end if;
    if v_nodes is not null then
        perform beliefdb._refresh_leaf_entries(v_workspace_ids, v_nodes);
    end if;
    return null;
end
$$;
comment on function beliefdb.adjacency_of_edges() is 'Trigger: keep the out rows of beliefdb.adjacency equal to the antecedent edges';

-- A belief's self row says whether a supersession in effect or a tie involves it (adjacency.related), so the
-- closure walk looks up the relations of those beliefs alone.
create or replace function beliefdb._is_related(p_workspace_id uuid, p_belief uuid) returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
-- Planned once per session, often on a new database while relation is empty: a sequential scan
-- then looked cheapest, and the plan read every relation of the workspace at each call (a relation
-- trigger calls this for both beliefs of every supersession: 2,000 supersessions in one ingest,
-- 14,000 calls, 2.6 s; 8,000, 29 s). Each side is read by its index only: relation_in_effect by
-- from_belief; relation_to_belief by to_belief, behind offset 0 so that ended_at is null, tested
-- outside, does not let the planner take relation_in_effect (whose key has to_belief second, after
-- from_belief) for a cheap way to find one to_belief: it scans every relation in effect.
set enable_seqscan = off
as $$
begin
    -- plpgsql, not sql: planned once per session, not once per calling query. The same rule,
    -- set-based, is in rebuild_adjacency (and frozen in revision 0009's backfill).
    return exists (select from beliefdb.relation r
                    where r.workspace_id = p_workspace_id and r.from_belief = p_belief
                      and r.kind in ('supersedes', 'conflicts_with') and r.ended_at is null)
        or exists (select from (select r.ended_at
                                  from beliefdb.relation r
                                 where r.workspace_id = p_workspace_id and r.to_belief = p_belief
                                   and r.kind in ('supersedes', 'conflicts_with')
                                offset 0) r
                    where r.ended_at is null);
end
$$;
comment on function beliefdb._is_related(uuid, uuid) is 'Whether a belief supersedes, is superseded by or is tied with another';

create or replace function beliefdb.adjacency_of_relations() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
-- each belief's self row by its key, whatever the arrays hold: planned once per session, not at
-- every relation written (0.5 ms of a correction's apply)
set plan_cache_mode = force_generic_plan
as $$
declare
    v_workspace_ids uuid[];
    v_beliefs uuid[];
begin
    -- both beliefs of each relation that came, went or changed
    if TG_OP = 'INSERT' then
        select array_agg(n.workspace_id), array_agg(e.id) into v_workspace_ids, v_beliefs
          from new_rows n cross join lateral (values (n.from_belief), (n.to_belief)) as e (id);
    elsif TG_OP = 'DELETE' then
        select array_agg(o.workspace_id), array_agg(e.id) into v_workspace_ids, v_beliefs
          from old_rows o cross join lateral (values (o.from_belief), (o.to_belief)) as e (id);
    else
        select array_agg(r.workspace_id), array_agg(e.id) into v_workspace_ids, v_beliefs
          from (select n.workspace_id, n.from_belief, n.to_belief from new_rows n
                union all
                select o.workspace_id, o.from_belief, o.to_belief from old_rows o) r
         cross join lateral (values (r.from_belief), (r.to_belief)) as e (id);
    end if;
    update beliefdb.adjacency x
       set related = r.related
      from (select c.workspace_id, c.id, beliefdb._is_related(c.workspace_id, c.id) as related
              from (select distinct c.workspace_id, c.id
                      from unnest(v_workspace_ids, v_beliefs) as c (workspace_id, id)) c) r
     where x.node = r.id and x.workspace_id = r.workspace_id and x.entry = 'self' and x.justification = r.id
       and x.related is distinct from r.related;
    return null;
end
$$;
comment on function beliefdb.adjacency_of_relations() is 'Trigger: keep adjacency.related of the beliefs a relation names';

-- Whether this statement's insert into p_table (node, justification or justification_antecedent)
-- is a bulk ingest batch's own that writes the adjacency rows of what it inserts itself, set-based
-- (beliefdb.adjacency_noted: this transaction's time and the table, and the batch really running:
-- beliefdb._audit_batch, which only the owner's batch can open). The insert trigger of that table
-- skips the statement then: its new nodes, justifications and edges are of kinds whose rows it knows
-- (a fragment or a belief, never a leaf), where looking each edge's consequent up again and
-- refreshing leaf columns that cannot change took 0.1-0.3 s of a batch. Any session may set the
-- setting; without a running batch every insert is kept as before, so the closure walk never misses
-- an edge.
create or replace function beliefdb._adjacency_noted(p_table text) returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    -- (_audit_batch is made after this file: plpgsql finds it when called)
    return pg_catalog.current_setting('beliefdb.adjacency_noted', true)
               is not distinct from pg_catalog.now()::text || ' ' || p_table
           and beliefdb._audit_batch() is not null;
end
$$;
comment on function beliefdb._adjacency_noted(text) is 'Whether this transaction''s insert into the table is a running bulk ingest batch''s own, which writes its adjacency rows itself';

do $$
declare
    v_table record;
begin
    for v_table in
        select * from (values ('node', 'adjacency_of_nodes'), ('justification', 'adjacency_of_justifications'),
                              ('justification_antecedent', 'adjacency_of_edges'),
                              ('relation', 'adjacency_of_relations')) as t (name, fn)
    loop
        -- (a bulk ingest batch's insert that writes its adjacency rows itself is skipped: _adjacency_noted)
        execute pg_catalog.format(
            'create or replace trigger %I after insert on beliefdb.%I referencing new table as new_rows '
            'for each statement %s execute function beliefdb.%I()',
            v_table.name || '_adjacency_insert', v_table.name,
            case when v_table.name <> 'relation'
                 then pg_catalog.format('when (not beliefdb._adjacency_noted(%L))', v_table.name) else '' end,
            v_table.fn);
        execute pg_catalog.format(
            'create or replace trigger %I after update on beliefdb.%I '
            'referencing old table as old_rows new table as new_rows '
            'for each statement execute function beliefdb.%I()',
            v_table.name || '_adjacency_update', v_table.name, v_table.fn);
        execute pg_catalog.format(
            'create or replace trigger %I after delete on beliefdb.%I referencing old table as old_rows '
            'for each statement execute function beliefdb.%I()',
            v_table.name || '_adjacency_delete', v_table.name, v_table.fn);
    end loop;
end
$$;
