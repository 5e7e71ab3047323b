-- beliefdb: the session's working set of one evaluation of holding (docs/rules.md, rules 2 to 5).
-- beliefdb.evaluate fills it with what beliefdb.evaluate_closure says of a change's forward closure
-- (api/52_holding.sql), and beliefdb.propagate stores that and asks it about open ties
-- (api/70_dba_tools.sql). One guard empties the session's working tables, this one and the change
-- record of internal/32_changes.sql.

-- Empty the session's working table p_table for a new operation, if it can be used: it must be the
-- acting role's own (the functions that write it run with owner rights, and a table of this name
-- made by the session's own role, with triggers of its choosing, must never be written by them) and
-- have p_column (one a session made before an upgrade added the column is stale). Otherwise it is
-- dropped, and false says the caller must create it. Past 8 MB it is truncated: dead rows are not
-- vacuumed in a temporary table.
create or replace function beliefdb._empty_working_table(p_table text, p_column text) returns boolean
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_table regclass := pg_catalog.to_regclass('pg_temp.' || pg_catalog.quote_ident(p_table));
begin
    if v_table is null then
        return false;
    end if;
    if exists (select from pg_catalog.pg_class c
                where c.oid = v_table
                  and (c.relowner <> (select r.oid from pg_catalog.pg_roles r where r.rolname = current_user)
                       or not exists (select from pg_catalog.pg_attribute a
                                       where a.attrelid = c.oid and a.attname = p_column))) then
        execute pg_catalog.format('drop table pg_temp.%I', p_table);
        return false;
    end if;
    if pg_catalog.pg_relation_size(v_table) > 8388608 then
        execute pg_catalog.format('truncate pg_temp.%I', p_table);
    else
        execute pg_catalog.format('delete from pg_temp.%I', p_table);
    end if;
    return true;
end
$$;
comment on function beliefdb._empty_working_table(text, text) is 'Empty a session working table that is the acting role''s own and current, or drop it (false: create it)';

-- The working set of one evaluation: the forward closure of a change, with old and new values.
-- A temporary table (one per session) so each step is a set-based join. It is emptied here, when
-- an evaluation starts, not at commit: emptying temporary tables at every commit cost each write
-- 2-4 ms (beliefdb._empty_working_table).
create or replace function beliefdb._prepare_evaluation() returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if not beliefdb._empty_working_table('beliefdb_evaluation', 'rank') then
        create temporary table beliefdb_evaluation (
            id uuid primary key,
            kind beliefdb.node_kind,
            held boolean,                 -- holding before the change
            was_current boolean,          -- current before the change
            premise boolean not null default false,
            blocked boolean not null default false, -- retracted, or assumed not to hold
            holds boolean not null default false,
            superseded boolean not null default false,
            expired boolean not null default false, -- a belief whose valid time has ended
            support uuid,                 -- the justification it holds by afterwards (null: premise or not holding)
            depth integer,                -- its depth in the fixpoint (0: premise; null: not holding)
            rank bigint                   -- the support rank propagate writes (null: the stored one stays)
        );
    end if;
end
$$;
comment on function beliefdb._prepare_evaluation() is 'Create or empty the session''s evaluation working set';

-- Is a belief in the working set in an open tie with a rival that is still current?
create or replace function beliefdb._in_open_conflict(p_workspace_id uuid, p_belief uuid) returns boolean
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
           and coalesce(eo.holds and not eo.superseded and not eo.expired, o.status in ('current', 'conflicting')));
end
$$;
comment on function beliefdb._in_open_conflict(uuid, uuid) is 'Whether a belief is tied with a rival that is still current (uses the evaluation working set)';

-- The supports and ranks a change must write (docs/rules.md, rule 2), into the working set. A node
-- keeps its stored support (and rank) unless the change moved it: it holds and had no rank, became
-- or stopped being a premise, is a seed whose support is gone or rests on a node that is not
-- current, or rests by its stored support on a node that is not current or that moved (what rests
-- on a kept support is kept, so kept supports stay ranked as before). A moved node that holds takes
-- the support of the change's fixpoint, which rests only on shallower nodes of the closure, and is
-- ranked in increasing depth: its old rank if that is still above its support's antecedents, else
-- one more than the highest (ranks need only fall strictly along supports, not be minimal).
-- The rank column says which: null for a node that keeps what is stored.
create or replace function beliefdb._rank_supports(p_workspace_id uuid, p_seeds uuid[]) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_moved uuid[];
    v_depth integer;
begin
    -- plpgsql, not sql: the working set is a temporary table that exists only at run time
    v_moved := array(
        with recursive moved (id) as (
            -- (a node that held has a rank: only what did not hold, a premise and a seed are looked
            -- up, each by its key, not the workspace's nodes hashed for a closure of a few dozen)
            select e.id
              from pg_temp.beliefdb_evaluation e
             cross join lateral (select n.support, n.support_rank
                                   from beliefdb.node n
                                  where n.workspace_id = p_workspace_id and n.id = e.id
                                 offset 0) as n
             where e.holds and (e.held is not true or e.support is null or e.id = any(p_seeds))
               and (n.support_rank is null or (n.support is null) <> (e.support is null))
            union
            select e.id
              from pg_temp.beliefdb_evaluation e
              join unnest(p_seeds) as s (id) on s.id = e.id
              join beliefdb.node n on n.workspace_id = p_workspace_id and n.id = e.id
             where e.holds and n.support is not null
               and (not exists (select from beliefdb.justification j
                                 where j.workspace_id = p_workspace_id and j.id = n.support and j.consequent = n.id)
                    or exists (select from beliefdb.justification_antecedent a
                                 join beliefdb.node m on m.workspace_id = p_workspace_id and m.id = a.antecedent
                                 left join pg_temp.beliefdb_evaluation r on r.id = a.antecedent
                                where a.workspace_id = p_workspace_id and a.justification_id = n.support
                                  and not coalesce(r.holds and not r.superseded and not r.expired, m.current)))
            union
            -- (lateral, offset 0: the edges out of each node by the index, not all the workspace's
            -- edges merged with the few nodes, the plan a generic estimate of the workspace picks)
            select a.consequent
              from pg_temp.beliefdb_evaluation e
             cross join lateral (select a.consequent
                                   from beliefdb.justification_antecedent a
                                   join beliefdb.node c on c.workspace_id = p_workspace_id and c.id = a.consequent
                                                       and c.support = a.justification_id
                                  where a.workspace_id = p_workspace_id and a.antecedent = e.id
                                 offset 0) as a
             where not (e.holds and not e.superseded and not e.expired)
            union
            select a.consequent
              from moved d
             cross join lateral (select a.consequent
                                   from beliefdb.justification_antecedent a
                                   join beliefdb.node c on c.workspace_id = p_workspace_id and c.id = a.consequent
                                                       and c.support = a.justification_id
                                  where a.workspace_id = p_workspace_id and a.antecedent = d.id
                                 offset 0) as a
        )
        select d.id from moved d);
    for v_depth in select distinct e.depth
                     from pg_temp.beliefdb_evaluation e
                     join unnest(v_moved) as p (id) on p.id = e.id
                    where e.holds
                    order by 1 loop
        update pg_temp.beliefdb_evaluation e
           set rank = case when e.support is null then 0
                           else greatest(n.support_rank,
                                         (select max(coalesce(r.rank, m.support_rank)) + 1
                                            from beliefdb.justification_antecedent a
                                            join beliefdb.node m on m.workspace_id = p_workspace_id and m.id = a.antecedent
                                            left join pg_temp.beliefdb_evaluation r on r.id = a.antecedent
                                           where a.workspace_id = p_workspace_id and a.justification_id = e.support))
                      end
          from unnest(v_moved) as p (id)
          join beliefdb.node n on n.workspace_id = p_workspace_id and n.id = p.id
         where e.id = p.id and e.holds and e.depth = v_depth;
    end loop;
end
$$;
comment on function beliefdb._rank_supports(uuid, uuid[]) is 'Write into the evaluation working set the supports and ranks a change must store (uses the evaluation working set)';

drop function if exists beliefdb._rank_supports(uuid);
drop function if exists beliefdb._supports_to_store(uuid);
drop function if exists beliefdb._support_rank(bigint, boolean, uuid, integer);
