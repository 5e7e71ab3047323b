-- beliefdb: invariants the database keeps by itself, whoever writes.

-- Per-kind rows (fragment, belief, ...) get their node row first, under the same key. An
-- operation recording its changes (beliefdb._begin_changes) notes the node as one it created.
create or replace function beliefdb.create_node() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    insert into beliefdb.node (workspace_id, id, kind)
    values (new.workspace_id, new.id, new.node_kind);
    if pg_catalog.to_regclass('pg_temp.beliefdb_changes') is not null
       and current_setting('beliefdb.changes_of', true) = now()::text then
        insert into pg_temp.beliefdb_changes (id, kind, held, was_current, created)
        values (new.id, new.node_kind, false, false, true)
        on conflict (id) do nothing;
    end if;
    return new;
end
$$;
comment on function beliefdb.create_node() is 'Trigger: insert the node row that a per-kind row shares its key with (and note it as created)';

create or replace trigger fragment_node before insert on beliefdb.fragment
    for each row execute function beliefdb.create_node();
create or replace trigger belief_node before insert on beliefdb.belief
    for each row execute function beliefdb.create_node();
create or replace trigger decision_node before insert on beliefdb.decision
    for each row execute function beliefdb.create_node();
create or replace trigger action_node before insert on beliefdb.action
    for each row execute function beliefdb.create_node();
create or replace trigger correction_node before insert on beliefdb.correction
    for each row execute function beliefdb.create_node();
create or replace trigger step_node before insert on beliefdb.step
    for each row execute function beliefdb.create_node();

-- A source version's sha256 is computed here, never trusted from the caller.
create or replace function beliefdb.source_version_hash() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    new.sha256 := sha256(convert_to(new.content, 'UTF8'));
    return new;
end
$$;
comment on function beliefdb.source_version_hash() is 'Trigger: compute the sha256 of a source version''s text';

create or replace trigger source_version_hash before insert on beliefdb.source_version
    for each row execute function beliefdb.source_version_hash();

-- Source versions are immutable text, whoever tries to change them. The one change allowed is
-- a redaction (forgetting a subject): the spans beliefdb.redaction records for the version, masked
-- with as many U+2588 (its sha256 stays that of the text as ingested).
create or replace function beliefdb.source_version_immutable() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if (new.source_id, new.version, new.sha256) is distinct from (old.source_id, old.version, old.sha256)
       or (new.content is distinct from old.content
           and new.content is distinct from beliefdb._masked(old.content, array(
                   select int4range(r.start_offset, r.end_offset) from beliefdb.redaction r
                    where r.workspace_id = old.workspace_id and r.source_version_id = old.id))) then
        raise exception 'source versions are immutable: ingest a new version instead' using errcode = 'BD002';
    end if;
    return new;
end
$$;
comment on function beliefdb.source_version_immutable() is 'Trigger: refuse changes to a source version''s text, hash or number, other than its recorded redactions';

create or replace trigger source_version_immutable before update on beliefdb.source_version
    for each row execute function beliefdb.source_version_immutable();

-- A fragment's text must be the version text at its offsets (0-based, end exclusive, in characters).
create or replace function beliefdb.fragment_matches_text() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_actual text;
    v_length integer;
begin
    -- (its text changes only with its version's, when that is redacted: checked below)
    if tg_op = 'UPDATE' and (new.source_version_id, new.start_offset, new.end_offset)
                            is distinct from (old.source_version_id, old.start_offset, old.end_offset) then
        raise exception 'fragments are immutable: insert a new fragment instead' using errcode = 'BD002';
    end if;
    select substr(v.content, new.start_offset + 1, new.end_offset - new.start_offset), length(v.content)
      into v_actual, v_length
      from beliefdb.source_version v
     where v.workspace_id = new.workspace_id and v.id = new.source_version_id;
    if v_actual is distinct from new.text or new.end_offset > v_length then
        raise exception 'fragment text is not the source text at offsets [%, %)', new.start_offset, new.end_offset
            using errcode = 'BD001',
                  detail = pg_catalog.format('expected %L, got %L', v_actual, new.text);
    end if;
    return new;
end
$$;
comment on function beliefdb.fragment_matches_text() is 'Trigger: refuse a fragment whose text differs from the source text at its offsets, or any change to it but a redaction''s';

create or replace trigger fragment_matches_text before insert or update on beliefdb.fragment
    for each row execute function beliefdb.fragment_matches_text();

-- Evidence must quote its fragment byte for byte, and come from the world of the belief it
-- supports (rule 15: a fixture never supports, corroborates or raises production history).
create or replace function beliefdb.evidence_matches_fragment() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_text text;
    v_world beliefdb.provenance;
    v_belief_world beliefdb.provenance;
begin
    select f.text, s.provenance into v_text, v_world
      from beliefdb.fragment f
      join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
      join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
     where f.workspace_id = new.workspace_id and f.id = new.fragment_id;
    if v_text is distinct from new.quote then
        raise exception 'evidence quote is not the text of its fragment'
            using errcode = 'BD001',
                  detail = pg_catalog.format('fragment text %L, quote %L', v_text, new.quote);
    end if;
    if tg_op = 'INSERT' or new.belief_id <> old.belief_id or new.fragment_id <> old.fragment_id then
        select b.provenance into v_belief_world
          from beliefdb.belief b
         where b.workspace_id = new.workspace_id and b.id = new.belief_id;
        if v_belief_world is distinct from v_world then
            raise exception 'evidence from a % source cannot support a % belief: labels are separate worlds',
                v_world, v_belief_world using errcode = 'BD002';
        end if;
    end if;
    return new;
end
$$;
comment on function beliefdb.evidence_matches_fragment() is 'Trigger: refuse evidence whose quote differs from its fragment text, or from another world than its belief';

create or replace trigger evidence_matches_fragment before insert or update on beliefdb.evidence
    for each row execute function beliefdb.evidence_matches_fragment();

-- Supersession keeps holding stratified (rules 2 and 3 have one answer): a new "from supersedes
-- to" is refused when to already influences from, through reasons (antecedent to consequent)
-- or earlier supersessions (winner to loser). That covers a supersession cycle and a belief
-- superseding anything it (transitively) rests on.
create or replace function beliefdb.supersession_is_acyclic() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if new.kind <> 'supersedes' then
        return new;
    end if;
    if exists (
        with recursive influenced (node) as (
            select new.to_belief
            union
            select next.node
              from influenced i
              cross join lateral (
                    select j.consequent as node
                      from beliefdb.justification_antecedent a
                      join beliefdb.justification j on j.workspace_id = a.workspace_id and j.id = a.justification_id
                     where a.workspace_id = new.workspace_id and a.antecedent = i.node
                    union all
                    select r.to_belief
                      from beliefdb.relation r
                     where r.workspace_id = new.workspace_id and r.from_belief = i.node and r.kind = 'supersedes'
              ) next
        )
        select from influenced where node = new.from_belief
    ) then
        raise exception 'belief % cannot supersede %: it rests on it, or is already superseded through it',
            new.from_belief, new.to_belief using errcode = 'BD002';
    end if;
    return new;
end
$$;
comment on function beliefdb.supersession_is_acyclic() is 'Trigger: refuse a supersedes edge that would make holding ambiguous (a cycle through reasons or supersession)';

create or replace trigger relation_supersession_acyclic before insert or update on beliefdb.relation
    for each row execute function beliefdb.supersession_is_acyclic();

-- An antecedent edge carries its justification's consequent, so walking a closure forward is
-- one index-only scan per node (justification_antecedent_antecedent).
create or replace function beliefdb.antecedent_consequent() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
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

create or replace trigger justification_antecedent_consequent before insert or update on beliefdb.justification_antecedent
    for each row execute function beliefdb.antecedent_consequent();

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
create or replace function beliefdb.recount_unmet() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    -- each event has its own transition tables: an update both, an insert or a delete one
    if TG_OP = 'UPDATE' then
        update beliefdb.justification j
           set unmet = x.unmet
          from (select c.workspace_id, c.justification_id,
                       (select count(*)::integer
                          from beliefdb.justification_antecedent a
                          join beliefdb.node n on n.workspace_id = a.workspace_id and n.id = a.antecedent
                         where a.workspace_id = c.workspace_id and a.justification_id = c.justification_id
                           and not n.current) as unmet
                  from (select r.workspace_id, r.justification_id from new_rows r
                        union
                        select r.workspace_id, r.justification_id from old_rows r) c) x
         where j.workspace_id = x.workspace_id and j.id = x.justification_id and j.unmet <> x.unmet;
    else
        update beliefdb.justification j
           set unmet = x.unmet
          from (select c.workspace_id, c.justification_id,
                       (select count(*)::integer
                          from beliefdb.justification_antecedent a
                          join beliefdb.node n on n.workspace_id = a.workspace_id and n.id = a.antecedent
                         where a.workspace_id = c.workspace_id and a.justification_id = c.justification_id
                           and not n.current) as unmet
                  from (select distinct r.workspace_id, r.justification_id from changed_rows r) c) x
         where j.workspace_id = x.workspace_id and j.id = x.justification_id and j.unmet <> x.unmet;
    end if;
    return null;
end
$$;
comment on function beliefdb.recount_unmet() is 'Trigger: recount justification.unmet of the justifications whose antecedent edges changed';

create or replace trigger justification_antecedent_unmet_insert after insert on beliefdb.justification_antecedent
    referencing new table as changed_rows
    for each statement execute function beliefdb.recount_unmet();
create or replace trigger justification_antecedent_unmet_delete after delete on beliefdb.justification_antecedent
    referencing old table as changed_rows
    for each statement execute function beliefdb.recount_unmet();
create or replace trigger justification_antecedent_unmet_update after update on beliefdb.justification_antecedent
    referencing old table as old_rows new table as new_rows
    for each statement execute function beliefdb.recount_unmet();

-- A node whose current flag changes moves justification.unmet of every justification it is an
-- antecedent of by one.
create or replace function beliefdb.node_current_unmet() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    update beliefdb.justification j
       set unmet = j.unmet + d.delta
      from (select a.workspace_id, a.justification_id, sum(case when n.current then -1 else 1 end)::integer as delta
              from old_rows o
              join new_rows n on n.workspace_id = o.workspace_id and n.id = o.id
              join beliefdb.justification_antecedent a on a.workspace_id = n.workspace_id and a.antecedent = n.id
             where o.current is distinct from n.current
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

-- decision.reasons lists each justification of a decision with its antecedents. Recomputed for
-- the given decisions of a workspace from the edges (ids that are not decisions are skipped);
-- returns how many rows changed. A DBA can call it for a whole workspace after a bulk load with
-- triggers off.
create or replace function beliefdb.refresh_decision_reasons(p_workspace_id uuid, p_decisions uuid[]) returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_changed integer;
begin
    update beliefdb.decision d
       set reasons = r.reasons
      from (select d2.id,
                   coalesce(jsonb_object_agg(j.id, a.antecedents) filter (where a.antecedents is not null), '{}')
                       as reasons
              from beliefdb.decision d2
              left join beliefdb.justification j on j.workspace_id = d2.workspace_id and j.consequent = d2.id
              left join lateral (
                    select jsonb_agg(x.antecedent order by x.antecedent) as antecedents
                      from beliefdb.justification_antecedent x
                     where x.workspace_id = j.workspace_id and x.justification_id = j.id) a on true
             where d2.workspace_id = p_workspace_id and d2.id = any(p_decisions)
             group by d2.id) r
     where d.workspace_id = p_workspace_id and d.id = r.id and d.reasons is distinct from r.reasons;
    get diagnostics v_changed = row_count;
    return v_changed;
end
$$;
comment on function beliefdb.refresh_decision_reasons(uuid, uuid[]) is 'Recompute decision.reasons of these decisions from their justifications';

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

-- beliefdb.adjacency repeats, per node, what node, justification, justification_antecedent and
-- relation say (10_tables.sql). An insert adds the adjacency rows of what came, a delete removes
-- those of what went, and an update does both for the rows whose walked columns changed (a
-- transition table does not pair old and new rows, so what changed is a set difference).

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
    -- most changes concern beliefs and fragments, which are never leaves: a cheap look first
    select array_agg(c.workspace_id), array_agg(c.id)
      into v_workspace_ids, v_nodes
      from (select distinct c.workspace_id, c.id
              from unnest(p_workspace_ids, p_nodes) as c (workspace_id, id)) c
     where exists (select from beliefdb.node n
                    where n.workspace_id = c.workspace_id and n.id = c.id and n.kind <> 'belief')
       and exists (select from beliefdb.justification j
                    where j.workspace_id = c.workspace_id and j.consequent = c.id);
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
-- a leaf (whether it is one did not change).
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
       set holds = n.holds, current = n.current, retracted = n.retracted_at is not null
      from unnest(p_workspace_ids, p_nodes) as c (workspace_id, id)
      join beliefdb.node n on n.workspace_id = c.workspace_id and n.id = c.id
      join beliefdb.justification j on j.workspace_id = c.workspace_id and j.consequent = c.id
      join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
     where x.workspace_id = a.workspace_id and x.node = a.antecedent and x.entry = 'out'
       and x.justification = j.id and x.kind is not null
       and (x.holds, x.current, x.retracted) is distinct from (n.holds, n.current, n.retracted_at is not null);
end
$$;
comment on function beliefdb._refresh_leaf_standing(uuid[], uuid[]) is 'Set the standing on the adjacency out rows into these nodes where they are leaves (workspace ids and node ids, pairwise)';

create or replace function beliefdb.adjacency_of_nodes() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_workspace_ids uuid[];
    v_nodes uuid[];
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
        -- the justifications that moved: the node each left and the node each reached
        select array_agg(m.workspace_id), array_agg(m.consequent)
          into v_workspace_ids, v_nodes
          from old_rows o
          join new_rows n on n.workspace_id = o.workspace_id and n.id = o.id and n.consequent <> o.consequent
         cross join lateral (values (o.workspace_id, o.consequent), (n.workspace_id, n.consequent)) as m (workspace_id, consequent);
    end if;
    if v_nodes is not null then
        perform beliefdb._refresh_leaf_entries(v_workspace_ids, v_nodes);
    end if;
    return null;
end
$$;
comment on function beliefdb.adjacency_of_justifications() is 'Trigger: keep the in rows of beliefdb.adjacency equal to the justifications';

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
        insert into beliefdb.adjacency (workspace_id, node, entry, justification, consequent)
        select n.workspace_id, n.antecedent, 'out'::beliefdb.adjacency_entry, n.justification_id, n.consequent
          from new_rows n;
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
        insert into beliefdb.adjacency (workspace_id, node, entry, justification, consequent)
        select n.workspace_id, n.antecedent, 'out'::beliefdb.adjacency_entry, n.justification_id, n.consequent
          from new_rows n
        except
        select o.workspace_id, o.antecedent, 'out'::beliefdb.adjacency_entry, o.justification_id, o.consequent
          from old_rows o;
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

-- A belief's self row says whether a supersession or a tie involves it (adjacency.related), so the
-- closure walk looks up the relations of those beliefs alone.
create or replace function beliefdb._is_related(p_workspace_id uuid, p_belief uuid) returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    -- plpgsql, not sql: planned once per session, not once per calling query. The same rule,
    -- set-based, is in rebuild_adjacency (and frozen in revision 0009's backfill).
    return exists (select from beliefdb.relation r
                    where r.workspace_id = p_workspace_id and r.from_belief = p_belief
                      and r.kind in ('supersedes', 'conflicts_with'))
        or exists (select from beliefdb.relation r
                    where r.workspace_id = p_workspace_id and r.to_belief = p_belief
                      and r.kind in ('supersedes', 'conflicts_with'));
end
$$;
comment on function beliefdb._is_related(uuid, uuid) is 'Whether a belief supersedes, is superseded by or is tied with another';

create or replace function beliefdb.adjacency_of_relations() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
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

do $$
declare
    v_table record;
begin
    for v_table in
        select * from (values ('node', 'adjacency_of_nodes'), ('justification', 'adjacency_of_justifications'),
                              ('justification_antecedent', 'adjacency_of_edges'),
                              ('relation', 'adjacency_of_relations')) as t (name, fn)
    loop
        execute pg_catalog.format(
            'create or replace trigger %I after insert on beliefdb.%I referencing new table as new_rows '
            'for each statement execute function beliefdb.%I()',
            v_table.name || '_adjacency_insert', v_table.name, v_table.fn);
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

-- Rewrite a workspace's adjacency rows from node, justification, justification_antecedent and
-- relation (after a bulk load with triggers off); returns how many rows it wrote.
create or replace function beliefdb.rebuild_adjacency(p_workspace_id uuid) returns bigint
language plpgsql
set search_path = pg_catalog, pg_temp
-- after a bulk load the tables have no statistics yet: the planner takes the leaves for a handful
-- of rows and looks through all of them once per edge (155 s at 100k nodes). Join by hashing.
set enable_nestloop = off
as $$
declare
    v_rows bigint;
begin
    delete from beliefdb.adjacency x where x.workspace_id = p_workspace_id;
    insert into beliefdb.adjacency (workspace_id, node, entry, justification, consequent, unmet, kind, holds, current,
                                    retracted, related)
    select n.workspace_id, n.id, 'self'::beliefdb.adjacency_entry, n.id, null::uuid, null::integer, n.kind, n.holds,
           n.current, n.retracted_at is not null, r.id is not null
      from beliefdb.node n
      -- the beliefs a supersession or a tie involves (see is_related)
      left join (select distinct e.id
                   from beliefdb.relation r
                  cross join lateral (values (r.from_belief), (r.to_belief)) as e (id)
                  where r.workspace_id = p_workspace_id and r.kind in ('supersedes', 'conflicts_with')) r
        on r.id = n.id
     where n.workspace_id = p_workspace_id
    union all
    select a.workspace_id, a.antecedent, 'out', a.justification_id, a.consequent, null, l.kind, l.holds, l.current,
           l.retracted, null
      from beliefdb.justification_antecedent a
      -- the leaf columns (see refresh_leaf_entries)
      left join (select j.id, n.kind, n.holds, n.current, n.retracted_at is not null as retracted
                   from beliefdb.justification j
                   join beliefdb.node n on n.workspace_id = j.workspace_id and n.id = j.consequent
                  where j.workspace_id = p_workspace_id and n.kind <> 'belief'
                    and not exists (select from beliefdb.justification o
                                     where o.workspace_id = j.workspace_id and o.consequent = j.consequent
                                       and o.id <> j.id)
                    and not exists (select from beliefdb.justification_antecedent o
                                     where o.workspace_id = j.workspace_id and o.antecedent = j.consequent)
                    and (select count(*) from beliefdb.justification_antecedent o
                          where o.workspace_id = j.workspace_id and o.justification_id = j.id) = 1) l
        on l.id = a.justification_id
     where a.workspace_id = p_workspace_id
    union all
    select j.workspace_id, j.consequent, 'in', j.id, null, j.unmet, null, null, null, null, null
      from beliefdb.justification j
     where j.workspace_id = p_workspace_id
    -- in index order: the index fills its pages as a fresh build would
    order by 1, 2, 3, 4;
    get diagnostics v_rows = row_count;
    return v_rows;
end
$$;
comment on function beliefdb.rebuild_adjacency(uuid) is 'Rewrite a workspace''s beliefdb.adjacency from the tables it repeats';
