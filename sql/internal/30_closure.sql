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

-- The support ranks a change must write (docs/rules.md, rule 2), into the working set's rank
-- column: ranks need only fall strictly along supports (node.support_rank), not be minimal, so a
-- node is ranked again only when its support changed, it had no rank, or its support rests on a node
-- whose new rank is not below its own; it keeps its rank when that is still above its support's
-- antecedents, else takes one more than the highest. Premises rank 0. In increasing depth of the
-- change's fixpoint (a node's support rests only on shallower nodes of the closure), so each node is
-- ranked after what it rests on; at a hub this writes what moved, not all that rests on it.
create or replace function beliefdb._rank_supports(p_workspace_id uuid) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_pending uuid[];
    v_now uuid[];
    v_depth integer;
begin
    -- plpgsql, not sql: the working set is a temporary table that exists only at run time
    v_pending := array(
        select e.id
          from pg_temp.beliefdb_evaluation e
          join beliefdb.node n on n.workspace_id = p_workspace_id and n.id = e.id
         where e.holds and (n.support is distinct from e.support or n.support_rank is null));
    loop
        select min(e.depth) into v_depth
          from pg_temp.beliefdb_evaluation e
          join unnest(v_pending) as p (id) on p.id = e.id;
        exit when v_depth is null;
        v_now := array(select e.id
                         from pg_temp.beliefdb_evaluation e
                         join unnest(v_pending) as p (id) on p.id = e.id
                        where e.depth = v_depth);
        with ranked as (
            select e.id, n.support_rank as old,
                   case when e.support is null then 0
                        else greatest(n.support_rank,
                                      (select max(coalesce(r.rank, m.support_rank)) + 1
                                         from beliefdb.justification_antecedent a
                                         join beliefdb.node m on m.workspace_id = p_workspace_id and m.id = a.antecedent
                                         left join pg_temp.beliefdb_evaluation r on r.id = a.antecedent
                                        where a.workspace_id = p_workspace_id and a.justification_id = e.support))
                   end as rank
              from pg_temp.beliefdb_evaluation e
              join unnest(v_now) as p (id) on p.id = e.id
              join beliefdb.node n on n.workspace_id = p_workspace_id and n.id = e.id
        ), stored as (
            update pg_temp.beliefdb_evaluation e
               set rank = r.rank
              from ranked r
             where e.id = r.id
            returning e.id, r.rank, r.old
        )
        -- what rests by its support on a node whose rank rose to or past its own
        select array(select p.id from unnest(v_pending) as p (id) where p.id <> all (v_now)
                     union
                     select c.id
                       from stored s
                       join beliefdb.justification_antecedent a
                         on a.workspace_id = p_workspace_id and a.antecedent = s.id
                       join pg_temp.beliefdb_evaluation c
                         on c.id = a.consequent and c.support = a.justification_id and c.holds
                       join beliefdb.node k on k.workspace_id = p_workspace_id and k.id = c.id
                      where s.rank is distinct from s.old and (k.support_rank is null or k.support_rank <= s.rank))
          into v_pending;
    end loop;
end
$$;
comment on function beliefdb._rank_supports(uuid) is 'Write into the evaluation working set the support ranks a change must store (uses the evaluation working set)';

drop function if exists beliefdb._supports_to_store(uuid);
drop function if exists beliefdb._support_rank(bigint, boolean, uuid, integer);
