-- beliefdb: the session's working set of one evaluation of holding (docs/rules.md, rules 2 to 5).
-- beliefdb.evaluate fills it with what beliefdb.evaluate_closure says of a change's forward closure
-- (api/52_holding.sql), and beliefdb.propagate stores that and asks it about open ties
-- (api/70_dba_tools.sql). One guard empties the session's working tables, this one, the change
-- record of internal/32_changes.sql and the moment of the expiries being processed (last below).

-- A table of one of these names in the session's temporary schema that its own login made, which the
-- acting role may not drop (an agent's login, when the schema's owner is no superuser): beliefdb's
-- functions use those names for their working tables, so say so, not "must be owner of table".
create or replace function beliefdb._refuse_foreign_temp_tables(p_tables text[]) returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_foreign name;
begin
    select c.relname into v_foreign from pg_catalog.pg_class c
     where c.relnamespace = pg_catalog.pg_my_temp_schema() and c.relname = any(p_tables)
       and not pg_catalog.pg_has_role(current_user, c.relowner, 'usage')
     limit 1;
    if v_foreign is not null then
        raise exception 'this session made a temporary table pg_temp.% of its own, and beliefdb''s functions use that name for theirs', v_foreign
            using errcode = 'BD005', hint = pg_catalog.format('drop table pg_temp.%I', v_foreign);
    end if;
end
$$;
comment on function beliefdb._refuse_foreign_temp_tables(text[]) is 'Refuse (BD005) when the session''s own login made a temporary table of one of these working-table names';

-- Make these working-table names the acting role's before it creates or reuses them (create
-- temporary table if not exists, with owner rights): a relation of one of these names in the
-- session's temporary schema that another role made (the session's own login, an agent's) may
-- carry triggers, rules or a view's functions of its choosing, which writing or reading it would
-- run with the owner's rights. A table or view of the acting role's own stays; another is dropped,
-- or refused (BD005) where the acting role may not drop it.
create or replace function beliefdb._claim_working_tables(p_tables text[]) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_rel record;
begin
    perform beliefdb._refuse_foreign_temp_tables(p_tables);
    for v_rel in select c.relname, c.relkind from pg_catalog.pg_class c
                  where c.relnamespace = pg_catalog.pg_my_temp_schema() and c.relname = any(p_tables)
                    and (c.relkind <> 'r'
                         or c.relowner <> (select r.oid from pg_catalog.pg_roles r where r.rolname = current_user))
    loop
        if v_rel.relkind in ('r', 'p') then
            execute pg_catalog.format('drop table pg_temp.%I', v_rel.relname);
        elsif v_rel.relkind = 'v' then
            execute pg_catalog.format('drop view pg_temp.%I', v_rel.relname);
        else
            raise exception 'this session made pg_temp.% of its own, and beliefdb''s functions use that name for a table', v_rel.relname
                using errcode = 'BD005';
        end if;
    end loop;
end
$$;
comment on function beliefdb._claim_working_tables(text[]) is 'Drop (or refuse, BD005) a relation of these working-table names in the session''s temporary schema that is not a table of the acting role''s own';

-- Refuse (BD005) unless each of these working tables exists in the session's temporary schema as a
-- table of the acting role's own: what a function made earlier in the transaction (bulk_stage) and
-- another reads with owner rights, which a relation the session's login made in its place must not be.
create or replace function beliefdb._require_own_working_tables(p_tables text[], p_message text) returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    if (select count(*) from pg_catalog.pg_class c
         where c.relnamespace = pg_catalog.pg_my_temp_schema() and c.relname = any(p_tables) and c.relkind = 'r'
           and c.relowner = (select r.oid from pg_catalog.pg_roles r where r.rolname = current_user))
       <> cardinality(p_tables) then
        raise exception '%', p_message using errcode = 'BD005';
    end if;
end
$$;
comment on function beliefdb._require_own_working_tables(text[], text) is 'Refuse (BD005, this message) unless each of these working tables is the acting role''s own table in the session''s temporary schema';

-- Drop those of these working tables the session's temporary schema has, and say nothing of the
-- others: drop table if exists told psql of each one missing (schema "pg_temp" does not exist,
-- skipping; table ... does not exist, skipping), which is every time for tables dropped at commit.
create or replace function beliefdb._drop_temp_tables(p_tables text[]) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_table name;
begin
    for v_table in select c.relname from pg_catalog.pg_class c
                    where c.relnamespace = pg_catalog.pg_my_temp_schema() and c.relname = any(p_tables)
    loop
        execute pg_catalog.format('drop table pg_temp.%I', v_table);
    end loop;
end
$$;
comment on function beliefdb._drop_temp_tables(text[]) is 'Drop those of these tables the session''s temporary schema has (no notice for the others)';

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
                  and (c.relkind <> 'r'
                       or c.relowner <> (select r.oid from pg_catalog.pg_roles r where r.rolname = current_user))) then
        -- (another role's: its triggers must never run with owner rights)
        perform beliefdb._claim_working_tables(array[p_table]);
        return false;
    end if;
    if not exists (select from pg_catalog.pg_attribute a where a.attrelid = v_table and a.attname = p_column) then
        execute pg_catalog.format('drop table pg_temp.%I', p_table);
        return false;
    end if;
    if pg_catalog.pg_relation_size(v_table) > 8388608 then
        execute pg_catalog.format('truncate pg_temp.%I', p_table);
    -- the three working tables by name, statements the session plans once (an execute was parsed
    -- and planned at each of the three a correction empties)
    elsif p_table = 'beliefdb_evaluation' then
        delete from pg_temp.beliefdb_evaluation;
    elsif p_table = 'beliefdb_changes' then
        delete from pg_temp.beliefdb_changes;
    elsif p_table = 'beliefdb_audit_operation' then
        delete from pg_temp.beliefdb_audit_operation;
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
-- keeps its stored support and rank unless the change may have moved it: it holds and had no rank,
-- became or stopped being a premise, is a seed whose support is gone or rests on a node that is not
-- current, rests by its stored support on a node that is not current, or on one whose rank rose.
-- Such a node still keeps its stored support while that is still one (its justification, every
-- antecedent current), and else takes the fixpoint's, which rests only on shallower nodes of the
-- closure. The nodes are ranked once what their support rests on is (by counting, in memory, not
-- a statement per depth); when kept supports are left waiting on each other in a cycle (a node took
-- a fixpoint support resting on what rests on it), the shallowest takes the fixpoint's. A node
-- keeps its rank while that is still above its support's antecedents', else takes one more than the
-- highest (ranks need only fall strictly along supports, not be minimal); what rests on a node whose
-- rank stays is not looked at. The rank column says which: null for a node not looked at.
create or replace function beliefdb._rank_supports(p_workspace_id uuid, p_seeds uuid[]) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
-- every row is looked up by its key (lateral, offset 0) or in the working set by id, whatever the
-- arrays hold: planned once per session, not at every propagation (custom plans over the arrays
-- were 1 ms of each correction's apply)
set plan_cache_mode = force_generic_plan
as $$
declare
    v_moved uuid[];
    v_more uuid[];
    -- what may have moved and holds, in increasing depth: id, whether a premise, the fixpoint's
    -- support, the stored one, the stored rank (-1: none) and whether the stored support is still
    -- one. (No nulls in what the loops below read by position: an element of an array with nulls
    -- is found by counting from the start.)
    v_id uuid[];
    v_premise boolean[];
    v_fix uuid[];
    v_kept uuid[];
    v_rank bigint[];
    v_new bigint[];
    v_kept_ok boolean[];
    v_n integer;
    -- the antecedents of both supports, in node order: the node's position, of which support, the
    -- antecedent's position if it may have moved (else 0), whether it is current now, its stored rank
    v_edge_node integer[];
    v_edge_fix boolean[];
    v_edge_kept boolean[];
    v_edge_moved integer[];
    v_edge_current boolean[];
    v_edge_rank bigint[];
    v_first integer[];
    v_last integer[];
    -- ranking by counting: whether a node keeps its stored support, how many of the nodes its
    -- support rests on that may have moved are not ranked yet, whether it is ranked, the queue of
    -- those ready, and the edges by the node they rest on
    v_use_kept boolean[];
    v_wait integer[];
    v_done boolean[];
    v_queue integer[];
    v_head integer;
    v_tail integer;
    v_min integer;
    v_count integer;
    v_rev integer[];
    v_rfirst integer[];
    v_rlast integer[];
    v_k integer;
    v_p integer;
    v_r integer;
    v_c bigint;
    v_d integer;
begin
    -- plpgsql, not sql: the working set is a temporary table that exists only at run time
    v_moved := array(
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
        -- (each seed's node and stored support by their keys: a join let the plan read every node of
        -- the workspace, 2 million rows at a million beliefs, 1 to 5 s of a bulk batch. A support
        -- whose antecedents are all current as stored (unmet = 0) can rest only on a node of the
        -- working set that is not current now, which the out rows below find: its antecedents are
        -- looked at only when some is not current as stored)
        select e.id
          from pg_temp.beliefdb_evaluation e
          join unnest(p_seeds) as s (id) on s.id = e.id
         cross join lateral (select n.id, n.support
                               from beliefdb.node n
                              where n.workspace_id = p_workspace_id and n.id = e.id
                             offset 0) as n
          left join lateral (select j.unmet
                               from beliefdb.justification j
                              where j.workspace_id = p_workspace_id and j.id = n.support and j.consequent = n.id
                             offset 0) as j on true
         where e.holds and n.support is not null
           and (j.unmet is null
                or (j.unmet > 0
                    and exists (select from beliefdb.justification_antecedent a
                                  join beliefdb.node m on m.workspace_id = p_workspace_id and m.id = a.antecedent
                                  left join pg_temp.beliefdb_evaluation r on r.id = a.antecedent
                                 where a.workspace_id = p_workspace_id and a.justification_id = n.support
                                   and not coalesce(r.holds and not r.superseded and not r.expired, m.current))))
        union
        -- what rests by its stored support on a node that is not current: the out rows that carry
        -- a support, by their partial index (lateral, offset 0: by the index for each node, not the
        -- plan a generic estimate of the workspace picks)
        select x.consequent
          from pg_temp.beliefdb_evaluation e
         cross join lateral (select x.consequent
                               from beliefdb.adjacency x
                              where x.workspace_id = p_workspace_id and x.node = e.id and x.entry = 'out'
                                and x.support
                             offset 0) as x
         where not (e.holds and not e.superseded and not e.expired));
    -- what rests by its stored support on a node whose rank rose may have to move too: it is
    -- added, and all of it ranked again, until no rank rises under a stored support (a node whose
    -- rank stays keeps what rests on it as it is: most changes take one round)
    loop
        -- what may have moved and holds, by depth, with its stored and fixpoint supports; then the
        -- antecedents of both, each with its standing now, its stored rank and, if it may have moved
        -- too, its position here (one pass in memory, not a statement per depth)
        select coalesce(array_agg(e.id order by e.depth, e.id), '{}'),
               coalesce(array_agg(e.support is null order by e.depth, e.id), '{}'),
               coalesce(array_agg(e.support order by e.depth, e.id), '{}'),
               coalesce(array_agg(n.support order by e.depth, e.id), '{}'),
               coalesce(array_agg(coalesce(n.support_rank, -1) order by e.depth, e.id), '{}'),
               coalesce(array_agg(j.id is not null order by e.depth, e.id), '{}')
          into v_id, v_premise, v_fix, v_kept, v_rank, v_kept_ok
          from unnest(v_moved) as p (id)
          join pg_temp.beliefdb_evaluation e on e.id = p.id
          -- (lateral, offset 0: each row by its key, as above)
          cross join lateral (select n.support, n.support_rank
                                from beliefdb.node n
                               where n.workspace_id = p_workspace_id and n.id = p.id
                              offset 0) as n
          left join lateral (select j.id
                               from beliefdb.justification j
                              where j.workspace_id = p_workspace_id and j.id = n.support and j.consequent = p.id
                             offset 0) as j on true
         where e.holds;
        v_n := cardinality(v_id);
        if v_n = 0 then
            return;
        end if;
        select coalesce(array_agg(m.pos::integer order by m.pos, a.justification_id, a.antecedent), '{}'),
               coalesce(array_agg(coalesce(a.justification_id = m.fix, false)
                                  order by m.pos, a.justification_id, a.antecedent), '{}'),
               coalesce(array_agg(coalesce(a.justification_id = m.kept, false)
                                  order by m.pos, a.justification_id, a.antecedent), '{}'),
               -- (an antecedent's position among the nodes, from one object built once: a join to the
               -- array could, in a generic plan, scan it again for every edge)
               coalesce(array_agg(coalesce(((select jsonb_object_agg(q.id, q.pos)
                                               from unnest(v_id) with ordinality as q (id, pos))
                                            ->> a.antecedent::text)::integer, 0)
                                  order by m.pos, a.justification_id, a.antecedent), '{}'),
               coalesce(array_agg(coalesce(r.holds and not r.superseded and not r.expired, c.current, false)
                                  order by m.pos, a.justification_id, a.antecedent), '{}'),
               coalesce(array_agg(coalesce(c.support_rank, -1) order by m.pos, a.justification_id, a.antecedent), '{}')
          into v_edge_node, v_edge_fix, v_edge_kept, v_edge_moved, v_edge_current, v_edge_rank
          from unnest(v_id, v_fix, v_kept) with ordinality as m (id, fix, kept, pos)
          cross join lateral (select a.justification_id, a.antecedent
                                from beliefdb.justification_antecedent a
                               where a.workspace_id = p_workspace_id and a.justification_id in (m.fix, m.kept)
                              offset 0) as a
          cross join lateral (select c.current, c.support_rank
                                from beliefdb.node c
                               where c.workspace_id = p_workspace_id and c.id = a.antecedent
                              offset 0) as c
          left join pg_temp.beliefdb_evaluation r on r.id = a.antecedent;
        -- each node's edges, and whether its stored support is still one (its antecedents current)
        v_first := array_fill(1, array[v_n]);
        v_last := array_fill(0, array[v_n]);
        for v_k in 1 .. cardinality(v_edge_node) loop
            v_p := v_edge_node[v_k];
            if v_last[v_p] = 0 then
                v_first[v_p] := v_k;
            end if;
            v_last[v_p] := v_k;
            if v_edge_kept[v_k] and not v_edge_current[v_k] then
                v_kept_ok[v_p] := false;
            end if;
        end loop;
        -- a node keeps its stored support when that is still one, and is ranked once what its support
        -- rests on that may have moved is (by counting); the edges grouped by what they rest on
        v_use_kept := array_fill(false, array[v_n]);
        v_wait := array_fill(0, array[v_n]);
        v_done := array_fill(false, array[v_n]);
        v_new := array_fill(-1::bigint, array[v_n]);
        v_queue := array_fill(0, array[v_n]);
        v_tail := 0;
        for v_p in 1 .. v_n loop
            v_use_kept[v_p] := not v_premise[v_p] and v_kept_ok[v_p];
            for v_k in v_first[v_p] .. v_last[v_p] loop
                if v_edge_moved[v_k] > 0
                   and (case when v_use_kept[v_p] then v_edge_kept[v_k] else v_edge_fix[v_k] end) then
                    v_wait[v_p] := v_wait[v_p] + 1;
                end if;
            end loop;
            if v_wait[v_p] = 0 then
                v_tail := v_tail + 1;
                v_queue[v_tail] := v_p;
            end if;
        end loop;
        v_rev := array(select e.k from unnest(v_edge_moved) with ordinality as e (q, k)
                        where e.q > 0 order by e.q, e.k);
        v_rfirst := array_fill(1, array[v_n]);
        v_rlast := array_fill(0, array[v_n]);
        for v_r in 1 .. cardinality(v_rev) loop
            v_p := v_edge_moved[v_rev[v_r]];
            if v_rlast[v_p] = 0 then
                v_rfirst[v_p] := v_r;
            end if;
            v_rlast[v_p] := v_r;
        end loop;
        v_head := 1;
        v_min := 1;
        v_count := 0;
        loop
            while v_head <= v_tail loop
                v_p := v_queue[v_head];
                v_head := v_head + 1;
                -- its rank: its old one while that is still above what its support rests on
                if v_premise[v_p] then
                    v_new[v_p] := 0;
                else
                    v_new[v_p] := v_rank[v_p];
                    for v_k in v_first[v_p] .. v_last[v_p] loop
                        if (case when v_use_kept[v_p] then v_edge_kept[v_k] else v_edge_fix[v_k] end) then
                            v_c := case when v_edge_moved[v_k] > 0 then v_new[v_edge_moved[v_k]]
                                        else v_edge_rank[v_k] end + 1;
                            if v_c > v_new[v_p] then
                                v_new[v_p] := v_c;
                            end if;
                        end if;
                    end loop;
                end if;
                v_done[v_p] := true;
                v_count := v_count + 1;
                for v_r in v_rfirst[v_p] .. v_rlast[v_p] loop
                    v_k := v_rev[v_r];
                    v_d := v_edge_node[v_k];
                    if not v_done[v_d]
                       and (case when v_use_kept[v_d] then v_edge_kept[v_k] else v_edge_fix[v_k] end) then
                        v_wait[v_d] := v_wait[v_d] - 1;
                        if v_wait[v_d] = 0 then
                            v_tail := v_tail + 1;
                            v_queue[v_tail] := v_d;
                        end if;
                    end if;
                end loop;
            end loop;
            exit when v_count = v_n;
            -- the stored supports left wait on each other in a cycle (one took a support, from the
            -- fixpoint, that rests on what rests on it): the shallowest node not ranked waits on its
            -- stored support (the fixpoint's rests on shallower nodes, all ranked), and takes the
            -- fixpoint's
            while v_done[v_min] loop
                v_min := v_min + 1;
            end loop;
            if not v_use_kept[v_min] then
                raise exception 'beliefdb._rank_supports: the supports of % do not rank', v_id[v_min];
            end if;
            v_use_kept[v_min] := false;
            v_wait[v_min] := 0;
            for v_k in v_first[v_min] .. v_last[v_min] loop
                if v_edge_fix[v_k] and v_edge_moved[v_k] > 0 and not v_done[v_edge_moved[v_k]] then
                    v_wait[v_min] := v_wait[v_min] + 1;
                end if;
            end loop;
            if v_wait[v_min] > 0 then
                raise exception 'beliefdb._rank_supports: the supports of % do not rank', v_id[v_min];
            end if;
            v_tail := v_tail + 1;
            v_queue[v_tail] := v_min;
        end loop;
        v_more := array(select distinct x.consequent
                          from unnest(v_id, v_rank, v_new) as m (id, old, new)
                         cross join lateral (select x.consequent
                                               from beliefdb.adjacency x
                                              where x.workspace_id = p_workspace_id and x.node = m.id
                                                and x.entry = 'out' and x.support
                                             offset 0) as x
                         where m.old >= 0 and m.new > m.old
                        except
                        select unnest(v_moved));
        exit when cardinality(v_more) = 0;
        v_moved := v_moved || v_more;
    end loop;
    update pg_temp.beliefdb_evaluation e
       set support = case when m.kept then m.kept_support else m.fix end, rank = greatest(m.rank, 0)
      from unnest(v_id, v_use_kept, v_kept, v_fix, v_new) as m (id, kept, kept_support, fix, rank)
     where e.id = m.id;
end
$$;
comment on function beliefdb._rank_supports(uuid, uuid[]) is 'Write into the evaluation working set the supports and ranks a change must store (uses the evaluation working set)';

drop function if exists beliefdb._rank_supports(uuid);
drop function if exists beliefdb._supports_to_store(uuid);
drop function if exists beliefdb._support_rank(bigint, boolean, uuid, integer);

-- Whether this session is processing what expired at one moment (beliefdb._process_expiries), so that
-- what it calls must not start that again: the setting beliefdb.expiry_clock says to look, and counts only
-- while this session's temporary table beliefdb_expiry_clock, which belongs to the acting role (as
-- beliefdb.clock asks), holds the moment. A session that sets the setting itself skips nothing.
create or replace function beliefdb._expiries_under_way() returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    if coalesce(pg_catalog.current_setting('beliefdb.expiry_clock', true), '') = '' or not exists (
            select from pg_catalog.pg_class c
             where c.oid = pg_catalog.to_regclass('pg_temp.beliefdb_expiry_clock') and c.relpersistence = 't'
               and c.relowner = (select r.oid from pg_catalog.pg_roles r where r.rolname = current_user)) then
        return false;
    end if;
    -- (a statement of its own: it is planned only once the table exists)
    return exists (select from pg_temp.beliefdb_expiry_clock);
end
$$;
comment on function beliefdb._expiries_under_way() is 'Whether this session is processing what expired at one moment (beliefdb._process_expiries); a setting the session made itself does not count';

-- Process what expired (rule 16) before anything else a change does: the beliefs of a workspace
-- whose valid time ended and that are still current, moment by moment in the order they ended, each
-- moment's as a change of its own dated then (beliefdb.clock is that moment while it is processed,
-- api/05_session.sql): what rests on them stops holding, decisions that lose their last support are
-- flagged and their actions held, with review items opened when the valid time ended. So what an
-- as-of question sees between that moment and the next writer or reader (who processes it) is what
-- a reader then saw, having processed it first; and a decision with two reasons that end at two
-- moments loses its last support at the later one. Returns the beliefs processed, in that order.
create or replace function beliefdb._process_expiries(p_workspace_id uuid) returns uuid[]
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_at timestamptz;
    v_due uuid[];
    v_done uuid[] := '{}';
begin
    for v_at in select distinct upper(b.valid_time)
                  from beliefdb.belief b
                 where b.workspace_id = p_workspace_id and b.status in ('current', 'conflicting')
                   and not upper_inf(b.valid_time) and upper(b.valid_time) <= beliefdb.clock()
                 order by 1
    loop
        if not beliefdb._empty_working_table('beliefdb_expiry_clock', 'at') then
            create temporary table beliefdb_expiry_clock (at timestamptz not null);
        end if;
        insert into pg_temp.beliefdb_expiry_clock (at) values (v_at);
        perform pg_catalog.set_config('beliefdb.expiry_clock', v_at::text, true);
        -- as of that moment: the beliefs that ended then (those of earlier moments are processed)
        v_due := beliefdb.due_to_expire(p_workspace_id);
        if cardinality(v_due) > 0 then
            perform beliefdb.propagate(p_workspace_id, v_due);
        end if;
        perform pg_catalog.set_config('beliefdb.expiry_clock', '', true);
        delete from pg_temp.beliefdb_expiry_clock;
        v_done := v_done || v_due;
    end loop;
    return v_done;
end
$$;
comment on function beliefdb._process_expiries(uuid) is 'Process a workspace''s beliefs whose valid time ended, moment by moment, each dated when it ended (rule 16); the beliefs processed';

-- The write lock as beliefdb.lock_workspace takes it (the audit head row; BD003 when no workspace is
-- bound), what the transaction writes dated from the first time it is taken (beliefdb.clock), and
-- what expired since the last change processed as a change of its own (beliefdb._expire_due), unless
-- this is that processing (beliefdb._expiries_under_way). Returns that change's report (nothing
-- expired: an empty one).
-- The time of the transaction's first lock of each workspace is kept in the owner's session table
-- beliefdb_write_lock (a row a workspace the session locked, updated in place for the transaction
-- that takes it first: a table of one row a workspace, where a row deleted and another inserted
-- each transaction left dead rows no vacuum takes from a temporary table; a rolled-back
-- subtransaction takes its update back with its lock), which the application role can neither
-- write nor read, and every lock sets beliefdb.locked_at, which clock() reads, from it: any session
-- can set that setting, and one set before the lock (to the transaction's start, say) dated the
-- writes before another principal's that committed while this transaction waited, when the lock
-- left a set value alone. By workspace: a transaction that locked one workspace, then waited for
-- another's lock, is dated in the second from when it got that lock.
create or replace function beliefdb._lock_workspace() returns beliefdb.expired
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_table regclass;
    v_at timestamptz;
    v_found boolean;
begin
    -- (the lock below is a write: refused there as "cannot execute SELECT FOR UPDATE", which names no call)
    if pg_catalog.current_setting('transaction_read_only') = 'on' then
        raise exception 'the database session is read-only (default_transaction_read_only or a standby): this call writes; nothing was changed'
            using errcode = '25006',
                  hint = 'on a standby, call the primary; elsewhere default_transaction_read_only is on for this'
                         ' session (the role''s, the database''s or the connection''s): set default_transaction_read_only'
                         ' = off in it, or alter role ... reset default_transaction_read_only';
    end if;
    perform from beliefdb.audit_head h where h.workspace_id = v_ws for update;
    if not found then
        -- (a memory opened on a workspace deleted since, or deleted and made again under its name: a
        -- new id, which the memory does not follow, said "no workspace bound")
        if v_ws is not null and not exists (select from beliefdb.workspace w where w.id = v_ws) then
            raise exception 'workspace % no longer exists (it was deleted): nothing was written', v_ws
                using errcode = 'BD003', hint = 'open a memory on an existing workspace (beliefdb workspace list);'
                                                 ' an agent''s login: ask for a new one';
        end if;
        raise exception 'no workspace bound (set beliefdb.workspace_id), or the workspace has no audit chain'
            using errcode = 'BD003';
    end if;
    -- what this transaction writes is dated from its first lock, when no other writer of the
    -- workspace runs (beliefdb.clock): in the order the writers commit. (A session table, made once
    -- per session; one of that name the acting role does not own is refused or dropped first.)
    v_table := pg_catalog.to_regclass('pg_temp.beliefdb_write_lock');
    if v_table is not null
       and not exists (select from pg_catalog.pg_class c
                        where c.oid = v_table and c.relkind = 'r' and c.relpersistence = 't'
                          and c.relowner = (select r.oid from pg_catalog.pg_roles r where r.rolname = current_user)
                          and exists (select from pg_catalog.pg_attribute a
                                       where a.attrelid = c.oid and a.attname = 'workspace_id')) then
        perform beliefdb._claim_working_tables(array['beliefdb_write_lock']);
        -- (the acting role's own, of the shape before the workspace was in it)
        perform beliefdb._drop_temp_tables(array['beliefdb_write_lock']);
        v_table := null;
    end if;
    if v_table is null then
        create temporary table beliefdb_write_lock (workspace_id uuid not null, xact xid8 not null,
                                                    at timestamptz not null);
    end if;
    select case when w.xact = pg_catalog.pg_current_xact_id() then w.at end, true into v_at, v_found
      from pg_temp.beliefdb_write_lock w where w.workspace_id = v_ws;
    if v_found is null then
        v_at := pg_catalog.clock_timestamp();
        insert into pg_temp.beliefdb_write_lock (workspace_id, xact, at)
        values (v_ws, pg_catalog.pg_current_xact_id(), v_at);
    elsif v_at is null then
        v_at := pg_catalog.clock_timestamp();
        update pg_temp.beliefdb_write_lock w set xact = pg_catalog.pg_current_xact_id(), at = v_at
         where w.workspace_id = v_ws;
    end if;
    perform pg_catalog.set_config('beliefdb.locked_at', v_at::text, true);
    if beliefdb._expiries_under_way() then
        return row(0, '{}', beliefdb.clock(), beliefdb._as_changes(beliefdb._empty_changes()))::beliefdb.expired;
    end if;
    return beliefdb._expire_due(v_ws);
end
$$;
comment on function beliefdb._lock_workspace() is 'Take the bound workspace''s write lock, date the transaction''s writes from then, and process what expired first (its report)';

-- Under the workspace's write lock: its beliefs whose valid time ended, processed as one change of
-- their own before the caller's (beliefdb._process_expiries), audited as an expire event with what
-- it flagged and held, and reported. The record of the transaction's changes then starts again, so
-- the caller's report is of its own change: the expiry's are not its (each is dated when it ended).
create or replace function beliefdb._expire_due(p_workspace_id uuid) returns beliefdb.expired
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_due uuid[];
    v_changes jsonb;
begin
    if cardinality(beliefdb.due_to_expire(p_workspace_id)) = 0 then
        return row(0, '{}', beliefdb.clock(), beliefdb._as_changes(beliefdb._empty_changes()))::beliefdb.expired;
    end if;
    perform beliefdb._begin_changes();
    v_due := beliefdb._process_expiries(p_workspace_id);
    v_changes := beliefdb._changes(p_workspace_id);
    perform beliefdb._audit('expire', jsonb_build_object(
        'expired', cardinality(v_due), 'beliefs', to_jsonb(v_due), 'flagged', v_changes -> 'flagged',
        'held', v_changes -> 'held'));
    perform pg_catalog.set_config('beliefdb.changes_of', '', false);
    return row(cardinality(v_due), v_due, beliefdb.clock(), beliefdb._as_changes(v_changes))::beliefdb.expired;
end
$$;
comment on function beliefdb._expire_due(uuid) is 'Under the write lock: process what expired as a change of its own, audited (expire), and report it';
