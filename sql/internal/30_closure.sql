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
    if not beliefdb._empty_working_table('beliefdb_evaluation', 'depth') then
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
            depth integer                 -- its depth in the fixpoint (0: premise; null: not holding)
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

-- The closure nodes of the evaluation in the working set whose stored support must be written
-- (docs/rules.md, rule 2): its support changed, it was never ranked, or it rests by an unchanged
-- support on one of those (whose rank grows, so its own must too). Ranks are written as
-- beliefdb._support_rank says; every other node keeps its support and rank, which stay
-- well-founded: nothing they rest on moved.
create or replace function beliefdb._supports_to_store(p_workspace_id uuid) returns uuid[]
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    -- plpgsql, not sql: the working set is a temporary table that exists only at run time
    return array(
        with recursive dirty (id) as (
            select e.id
              from pg_temp.beliefdb_evaluation e
              join beliefdb.node n on n.workspace_id = p_workspace_id and n.id = e.id
             where (n.support, n.support_rank is null)
                   is distinct from (e.support, not e.holds)
            union
            select e.id
              from dirty d
              join beliefdb.justification_antecedent a on a.workspace_id = p_workspace_id and a.antecedent = d.id
              join pg_temp.beliefdb_evaluation e on e.id = a.consequent and e.support = a.justification_id
        )
        select d.id from dirty d);
end
$$;
comment on function beliefdb._supports_to_store(uuid) is 'Closure nodes of the working set whose support or rank must be written (uses the evaluation working set)';

-- The rank stored with a support written by a change: above p_base, the highest rank of what the
-- change's moved supports rest on that keeps its rank, by the node's depth in the change's
-- fixpoint (more than the depth of each antecedent whose rank moves too). Premises rank 0; nodes
-- that do not hold have none.
create or replace function beliefdb._support_rank(p_base bigint, p_holds boolean, p_support uuid, p_depth integer)
returns bigint
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select case when not p_holds then null when p_support is null then 0 else p_base + p_depth end
$$;
comment on function beliefdb._support_rank(bigint, boolean, uuid, integer) is 'The rank stored with a support: 0 for a premise, base + depth for a derived node, null when it does not hold';
