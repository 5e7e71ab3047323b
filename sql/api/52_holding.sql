-- beliefdb: truth maintenance (docs/rules.md, rules 2, 3, 4, 5): which versions are in force,
-- holding over a change's forward closure, and impact, the dry run of a retraction.
-- Premises hold on their own; every other node holds if one of its justifications has every
-- antecedent current. Holding is the least fixpoint from the premises, computed for the
-- forward closure of a change only; supersession is stratified on top of it. Storing what it
-- says is beliefdb.propagate (api/70_dba_tools.sql).

-- Whether a source version is in force: the latest version of its source that is not
-- retracted, of a source that is not retracted.
create or replace function beliefdb.in_force(p_workspace_id uuid, p_source_version_id uuid) returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    -- plpgsql, not sql: the statement is planned once per session, not once per calling query
    return (
        select s.retracted_at is null and v.retracted_at is null
               and not exists (select from beliefdb.source_version later
                                where later.workspace_id = v.workspace_id and later.source_id = v.source_id
                                  and later.version > v.version and later.retracted_at is null)
          from beliefdb.source_version v
          join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
         where v.workspace_id = p_workspace_id and v.id = p_source_version_id);
end
$$;
comment on function beliefdb.in_force(uuid, uuid) is 'Whether a source version is in force: the latest non-retracted version of a non-retracted source';

-- Evaluate holding for the forward closure of p_seeds (rules 2 and 3) and return it as arrays,
-- one element per closure node (o_ids ...), plus, for each decision that lost a reason and still
-- holds, its live justifications (o_live, o_live_decision: every antecedent current afterwards),
-- and the number of supersession rounds. A node is current afterwards when it holds, is not
-- superseded and is not expired (o_expired: a belief whose valid time ended by beliefdb.clock(),
-- rule 16; it still holds, and still supersedes what it superseded).
-- o_support is the justification each node holds by afterwards (null: a premise, or it does not
-- hold), the one that made it hold in the fixpoint, and o_depth its depth there (0: a premise; more
-- than the depth of each antecedent in the closure): what beliefdb.propagate stores as node.support.
-- p_assume_off are nodes assumed to stop holding (impact previews); they are seeds too. Nodes
-- outside the closure keep their stored node.current. Writes nothing.
--
-- p_walk (what beliefdb.propagate asks): only what rests on the seeds by its stored support
-- (adjacency.support), level by level as beliefdb.support_walk walks, joins the closure, with the
-- supersessions and ties of what it reaches and, read last and not followed, what the seeds' other
-- edges reach (one may start to hold by a new justification). That is the answer while the change
-- only takes away: what rests on a closure node by another justification than its support holds by
-- a support that rests on nothing walked, so it keeps its standing. When a seed is not current, or
-- something in the closure would start to hold or be current again (a belief whose winner stops
-- holding, say), the forward closure is evaluated whole instead.
--
-- The closure is walked breadth first, one level at a time: one statement per level reads its
-- nodes, the edges out of them and their justifications with what they miss outside the closure
-- (justification.unmet), all from beliefdb.adjacency with one index scan over the level's array
-- of ids (for beliefs in a supersession or a tie, a second statement reads those); the next level
-- is what those edges reach that was not seen. An edge into a leaf (an action, say) carries all the walk
-- needs of the leaf, so leaves join the closure from the edge and are never read themselves.
-- Justifications are numbered as read and edges placed by hash joins in memory, and the fixpoint
-- runs in memory over integer arrays. Arrays are unnested in select lists, where the rows stream,
-- not in from, where they are first copied into a tuplestore (7% of the time). (o_: out
-- parameters, named apart from the columns.)
create or replace function beliefdb.evaluate_closure(
    p_workspace_id uuid, p_seeds uuid[], p_assume_off uuid[], p_walk boolean default false,
    out o_ids uuid[], out o_kind beliefdb.node_kind[], out o_held boolean[], out o_was_current boolean[],
    out o_premise boolean[], out o_blocked boolean[], out o_holds boolean[], out o_superseded boolean[],
    out o_expired boolean[], out o_live uuid[], out o_live_decision uuid[], out o_rounds integer,
    out o_support uuid[], out o_depth integer[])
language plpgsql
-- reads only: every statement sees the snapshot of the calling one (one consistent graph, and
-- no new snapshot per level)
stable
set search_path = pg_catalog, pg_temp
-- the working set is small next to the graph: read it with index scans by id or over arrays of
-- ids, never scan the graph (the planner cannot know how few rows a closure has), and join what
-- is in memory by hashing. The plans do not depend on the arguments: plan once per session, not per call.
set enable_seqscan = off
set enable_mergejoin = off
set plan_cache_mode = force_generic_plan
as $$
declare
    v_off uuid[] := coalesce(p_assume_off, '{}');
    v_front uuid[] := coalesce(p_seeds, '{}') || v_off;
    v_seeds uuid[] := array_remove(v_front, null);  -- (not in over a null is never true)
    v_retracted boolean[] := '{}';
    -- what the walk read, by id: edges out of closure nodes, justifications of closure nodes,
    -- supersessions of closure beliefs (loser, winner)
    v_edge_from uuid[] := '{}';
    v_edge_via uuid[] := '{}';
    v_just_of uuid[] := '{}';
    v_just_id uuid[] := '{}';
    v_just_unmet integer[] := '{}';
    v_read integer;               -- justifications read from nodes (the leaves' come after)
    v_sup_of uuid[] := '{}';
    v_sup_by uuid[] := '{}';
    -- leaves reached, by the edge into each: their standing, their one justification and its one
    -- antecedent
    v_leaf uuid[] := '{}';
    v_leaf_kind beliefdb.node_kind[] := '{}';
    v_leaf_held boolean[] := '{}';
    v_leaf_current boolean[] := '{}';
    v_leaf_retracted boolean[] := '{}';
    v_leaf_just uuid[] := '{}';
    -- one level of the walk
    v_level_ids uuid[];
    v_level_related uuid[];
    v_kind beliefdb.node_kind[];
    v_held boolean[];
    v_current boolean[];
    v_retr boolean[];
    v_from uuid[];
    v_via uuid[];
    v_to uuid[];
    v_of uuid[];
    v_jid uuid[];
    v_unmet integer[];
    v_l uuid[];
    v_l_kind beliefdb.node_kind[];
    v_l_held boolean[];
    v_l_current boolean[];
    v_l_retracted boolean[];
    v_l_just uuid[];
    v_rel uuid[];
    v_loser_ids uuid[];
    v_winner_ids uuid[];
    v_tied uuid[];
    v_loser boolean[];            -- a belief something supersedes
    v_lost boolean[];             -- a decision that holds but one of whose justifications stops being live
    v_first integer[];            -- a node's edges in v_edge_just: v_first .. v_last
    v_last integer[];
    -- justifications of closure nodes, by position
    v_just uuid[];
    v_cons integer[];
    v_need integer[];             -- antecedents in the closure, plus outside ones not current
    v_missing integer[];
    -- edges inside the closure (antecedent position -> justification position), by antecedent
    v_edge_ant integer[];
    v_edge_just integer[];
    -- supersessions of closure beliefs: loser position, winner position (0: outside), winner holds
    v_sup_loser integer[];
    v_sup_winner integer[];
    v_sup_holds boolean[];
    v_queue integer[];
    v_head integer;
    v_tail integer;
    v_n integer;
    v_p integer;
    v_c integer;
    v_j integer;
    v_k integer;
    v_changed boolean;
    v_sup boolean;
    v_by integer[];               -- the justification (position) each node holds by, in the last round
    v_jdepth integer[];           -- a justification's deepest antecedent in the closure so far
    -- walking by stored supports (p_walk): from the seeds and from what is reached so, only the
    -- edges out that carry a support are followed (v_all: every edge out, when not walking); what
    -- the seeds' other edges reach (v_terminal) is read last, and not followed (v_stop)
    v_walk boolean := coalesce(p_walk, false);
    v_all boolean := true;
    v_stop boolean := false;
    v_to_support uuid[];
    v_terminal uuid[];
begin
    o_rounds := 0;
    o_live := '{}';
    o_live_decision := '{}';
    o_ids := '{}';
    o_kind := '{}';
    o_held := '{}';
    o_was_current := '{}';

    -- 1. forward closure over reasons (antecedent -> consequent), supersession (winner -> loser)
    --    and ties (either side), one level at a time; ids that are not nodes drop out
    loop
        -- the level's nodes: their standing, the edges out of them, their justifications and what
        -- each misses outside the closure, side by side in beliefdb.adjacency: one index-only scan
        -- over the level's ids, its rows split by one pass of filtered aggregates (not a
        -- materialized CTE read several times: 20% of the walk). Each row's entry is compared once,
        -- in the subquery (offset 0 keeps it from being merged into the aggregates, which would
        -- compare it again in each filter: 7% of the statement). The edges into leaves (kind set)
        -- give the leaves; the others, the next level. One statement.
        select array_agg(x.node) filter (where x.is_self), array_agg(x.kind) filter (where x.is_self),
               array_agg(x.holds) filter (where x.is_self), array_agg(x.current) filter (where x.is_self),
               array_agg(x.retracted) filter (where x.is_self),
               array_agg(x.node) filter (where x.is_self and x.related),
               array_agg(x.node) filter (where x.is_out), array_agg(x.justification) filter (where x.is_out),
               array_agg(x.consequent) filter (where x.is_out and not x.is_leaf),
               array_agg(x.consequent) filter (where x.is_out and not x.is_leaf and x.support),
               array_agg(x.node) filter (where x.is_in), array_agg(x.justification) filter (where x.is_in),
               array_agg(x.unmet) filter (where x.is_in),
               array_agg(x.consequent) filter (where x.is_leaf), array_agg(x.kind) filter (where x.is_leaf),
               array_agg(x.holds) filter (where x.is_leaf), array_agg(x.current) filter (where x.is_leaf),
               array_agg(x.retracted) filter (where x.is_leaf), array_agg(x.justification) filter (where x.is_leaf)
          into v_level_ids, v_kind, v_held, v_current, v_retr, v_level_related,
               v_from, v_via, v_to, v_to_support, v_of, v_jid, v_unmet,
               v_l, v_l_kind, v_l_held, v_l_current, v_l_retracted, v_l_just
          from (select x.*, x.entry = 'self' as is_self, x.entry = 'out' as is_out, x.entry = 'in' as is_in,
                       x.entry = 'out' and x.kind is not null and not v_stop as is_leaf
                  from beliefdb.adjacency x
                 where x.workspace_id = p_workspace_id and x.node = any(v_front)
                offset 0) x;
        exit when v_level_ids is null;
        if v_walk then
            if v_all then
                -- the seeds: one that is not current may start to hold or be current again, and
                -- what rests on it has no support to walk: the whole closure then. Else what their
                -- other edges reach is read last (it may start to hold by a new justification).
                if false = any(v_current) then
                    v_walk := false;
                else
                    v_terminal := v_to;
                    v_all := false;
                end if;
            end if;
            if not v_all then
                v_to := v_to_support;
            end if;
        end if;
        o_ids := o_ids || v_level_ids;
        o_kind := o_kind || v_kind;
        o_held := o_held || v_held;
        o_was_current := o_was_current || v_current;
        v_retracted := v_retracted || v_retr;
        v_edge_from := v_edge_from || v_from;
        v_edge_via := v_edge_via || v_via;
        v_just_of := v_just_of || v_of;
        v_just_id := v_just_id || v_jid;
        v_just_unmet := v_just_unmet || v_unmet;
        if v_l is not null then
            v_leaf := v_leaf || v_l;
            v_leaf_kind := v_leaf_kind || v_l_kind;
            v_leaf_held := v_leaf_held || v_l_held;
            v_leaf_current := v_leaf_current || v_l_current;
            v_leaf_retracted := v_leaf_retracted || v_l_retracted;
            v_leaf_just := v_leaf_just || v_l_just;
        end if;

        -- beliefs a supersession or a tie involves (adjacency.related; most beliefs are in none):
        -- the losers of their supersessions and the other sides of their ties (whose standing
        -- depends on them); what supersedes them and what they are tied with
        v_rel := null;
        v_tied := null;
        if v_level_related is not null then
            select f.*, t.*
              into v_rel, v_loser_ids, v_winner_ids, v_tied
              from (select array_agg(r.to_belief)
                      from beliefdb.relation r
                     where r.workspace_id = p_workspace_id and r.from_belief = any(v_level_related)
                       and r.kind in ('supersedes', 'conflicts_with') and r.ended_at is null) f,
                   (select array_agg(r.to_belief) filter (where r.kind = 'supersedes'),
                           array_agg(r.from_belief) filter (where r.kind = 'supersedes'),
                           array_agg(r.from_belief) filter (where r.kind = 'conflicts_with')
                      from beliefdb.relation r
                     where r.workspace_id = p_workspace_id and r.to_belief = any(v_level_related)
                       and r.kind in ('supersedes', 'conflicts_with') and r.ended_at is null) t;
            v_sup_of := v_sup_of || v_loser_ids;
            v_sup_by := v_sup_by || v_winner_ids;
        end if;

        -- the next level: what these reach that was not seen yet
        -- (what was read last is not followed: its standing does not change, nor what depends on
        -- it; what supersedes it was read above, for its own standing)
        v_front := case when v_stop then '{}' else array(select unnest(v_to)
                                                         union all
                                                         select unnest(v_rel)
                                                         union all
                                                         select unnest(v_tied)
                                                         except
                                                         select unnest(o_ids)) end;
        if cardinality(v_front) = 0 and v_terminal is not null then
            v_front := array(select unnest(v_terminal) except select unnest(o_ids));
            v_terminal := null;
            v_stop := true;
        end if;
        exit when cardinality(v_front) = 0;
    end loop;
    -- the leaves join the closure with their justification, numbered after every justification
    -- read from a node (above v_read). Its one antecedent is in the closure, so it needs exactly
    -- that one whatever it was (the edges below add none for it), and it is counted as not live
    -- before: a leaf has no other justification to hold by, so it never survives losing one. A
    -- leaf that was a seed was read as a node and is there already.
    v_read := cardinality(v_just_id);
    if cardinality(v_leaf) > 0 then
        if exists (select unnest(v_leaf) intersect select unnest(v_seeds)) then
            select coalesce(array_agg(l.id), '{}'), coalesce(array_agg(l.kind), '{}'),
                   coalesce(array_agg(l.held), '{}'), coalesce(array_agg(l.current), '{}'),
                   coalesce(array_agg(l.retracted), '{}'), coalesce(array_agg(l.just), '{}')
              into v_leaf, v_leaf_kind, v_leaf_held, v_leaf_current, v_leaf_retracted, v_leaf_just
              from (select unnest(v_leaf) as id, unnest(v_leaf_kind) as kind, unnest(v_leaf_held) as held,
                           unnest(v_leaf_current) as current, unnest(v_leaf_retracted) as retracted,
                           unnest(v_leaf_just) as just) l
             where l.id not in (select unnest(v_seeds));
        end if;
        o_ids := o_ids || v_leaf;
        o_kind := o_kind || v_leaf_kind;
        o_held := o_held || v_leaf_held;
        o_was_current := o_was_current || v_leaf_current;
        v_retracted := v_retracted || v_leaf_retracted;
        v_just_of := v_just_of || v_leaf;
        v_just_id := v_just_id || v_leaf_just;
        v_just_unmet := v_just_unmet || array_fill(1, array[cardinality(v_leaf)]);
    end if;
    v_n := cardinality(o_ids);
    if v_n = 0 then
        return;
    end if;

    -- 2. justifications are numbered as read; their consequents and the edges by position (hash
    --    joins in memory), edges grouped by antecedent. Their justifications are all of closure nodes.
    v_just := v_just_id;
    v_need := v_just_unmet;
    select coalesce(array_agg(n.pos order by u.ord), '{}')
      into v_cons
      from (select unnest(v_just_of) as id, generate_series(1, cardinality(v_just_of)) as ord) u
      join (select unnest(o_ids) as id, generate_series(1, v_n) as pos) n on n.id = u.id;
    select coalesce(array_agg(n.pos order by n.pos, j.jpos), '{}'),
           coalesce(array_agg(j.jpos order by n.pos, j.jpos), '{}')
      into v_edge_ant, v_edge_just
      from (select unnest(v_edge_from) as ant, unnest(v_edge_via) as just) u
      join (select unnest(o_ids) as id, generate_series(1, v_n) as pos) n on n.id = u.ant
      join (select unnest(v_just_id) as id, generate_series(1, cardinality(v_just_id)) as jpos) j on j.id = u.just;
    -- premises: fragments of versions in force, corrections, user inputs, and agent steps nothing
    -- was recorded as feeding (taken as given, like a user input); blocked: retracted or assumed off
    select array_agg(case u.kind
                        when 'fragment' then exists (
                            select from beliefdb.fragment f
                             where f.workspace_id = p_workspace_id and f.id = u.id
                               and beliefdb.in_force(p_workspace_id, f.source_version_id))
                        when 'correction' then true
                        when 'step' then exists (
                            select from beliefdb.step s
                             where s.workspace_id = p_workspace_id and s.id = u.id
                               and (s.kind = 'user_input'
                                    or not exists (select from beliefdb.justification j
                                                    where j.workspace_id = s.workspace_id
                                                      and j.consequent = s.id)))
                        else false
                     end order by u.pos),
           array_agg(u.retracted or u.id = any(v_off) order by u.pos)
      into o_premise, o_blocked
      from (select unnest(o_ids) as id, unnest(o_kind) as kind, unnest(v_retracted) as retracted,
                   generate_series(1, v_n) as pos) u;
    -- beliefs whose valid time has ended: they hold, but are never current (rule 16). Few beliefs
    -- have an end: the partial index of those (belief_ending) is probed with the closure's beliefs.
    o_expired := array_fill(false, array[v_n]);
    v_first := null;
    if exists (select from beliefdb.belief b where b.workspace_id = p_workspace_id and not upper_inf(b.valid_time)) then
        select array_agg(u.pos::integer)
          into v_first
          from unnest(o_ids) with ordinality as u (id, pos)
         where u.id in (select b.id
                          from beliefdb.belief b
                         where b.workspace_id = p_workspace_id
                           and b.id = any(array(select x.id from unnest(o_ids, o_kind) as x (id, kind)
                                                 where x.kind = 'belief'))
                           and not upper_inf(b.valid_time) and upper(b.valid_time) <= beliefdb.clock());
    end if;
    if v_first is not null then
        for v_k in 1 .. cardinality(v_first) loop
            o_expired[v_first[v_k]] := true;
        end loop;
    end if;
    -- beliefs something supersedes
    v_loser := array_fill(false, array[v_n]);
    if cardinality(v_sup_of) > 0 then
        select array_agg(u.pos::integer)
          into v_first
          from unnest(o_ids) with ordinality as u (id, pos)
         where u.id in (select x.id from unnest(v_sup_of) as x (id));
        for v_k in 1 .. cardinality(v_first) loop
            v_loser[v_first[v_k]] := true;
        end loop;
    end if;

    -- an antecedent inside the closure is needed whatever it was (unmet counted it if it was not
    -- current; a leaf's justification needs its one antecedent already)
    v_first := array_fill(1, array[v_n]);
    v_last := array_fill(0, array[v_n]);
    for v_k in 1 .. cardinality(v_edge_ant) loop
        v_p := v_edge_ant[v_k];
        v_j := v_edge_just[v_k];
        if o_was_current[v_p] and v_j <= v_read then
            v_need[v_j] := v_need[v_j] + 1;
        end if;
        if v_last[v_p] = 0 then
            v_first[v_p] := v_k;
        end if;
        v_last[v_p] := v_k;
    end loop;

    -- supersession as it stands: a belief is superseded while a winner over it holds
    o_superseded := array_fill(false, array[v_n]);
    if cardinality(v_sup_of) > 0 then
        select array_agg(l.pos), array_agg(coalesce(w.pos, 0)), array_agg(n.holds)
          into v_sup_loser, v_sup_winner, v_sup_holds
          from unnest(v_sup_of, v_sup_by) as s (loser, winner)
          join unnest(o_ids) with ordinality as l (id, pos) on l.id = s.loser
          left join unnest(o_ids) with ordinality as w (id, pos) on w.id = s.winner
          join beliefdb.node n on n.workspace_id = p_workspace_id and n.id = s.winner;
        for v_k in 1 .. cardinality(v_sup_loser) loop
            if v_sup_holds[v_k] then
                o_superseded[v_sup_loser[v_k]] := true;
            end if;
        end loop;
    end if;

    -- 3. alternate: least fixpoint of holding given who is superseded, then who is superseded
    --    given holding, until nothing changes. Supersession is acyclic and never against a
    --    belief's own support, so this settles stratum by stratum.
    loop
        o_rounds := o_rounds + 1;
        if o_rounds > 100 then
            raise exception 'holding did not settle after 100 rounds' using errcode = 'BD002';
        end if;
        -- least fixpoint by counting: a node that becomes current takes one off what each
        -- justification it is in misses; a node holds once one of its justifications misses
        -- nothing. Linear in the closure's edges.
        v_missing := v_need;
        o_holds := array_fill(false, array[v_n]);
        v_queue := array_fill(0, array[v_n]);
        v_by := array_fill(0, array[v_n]);
        o_depth := array_fill(null::integer, array[v_n]);
        v_jdepth := array_fill(0, array[greatest(cardinality(v_cons), 1)]);
        v_tail := 0;
        for v_p in 1 .. v_n loop
            if o_premise[v_p] and not o_blocked[v_p] then
                o_holds[v_p] := true;
                o_depth[v_p] := 0;
                if not o_superseded[v_p] and not o_expired[v_p] then
                    v_tail := v_tail + 1;
                    v_queue[v_tail] := v_p;
                end if;
            end if;
        end loop;
        for v_j in 1 .. cardinality(v_cons) loop
            if v_missing[v_j] = 0 then
                v_c := v_cons[v_j];
                if not o_holds[v_c] and not o_blocked[v_c] then
                    o_holds[v_c] := true;
                    v_by[v_c] := v_j;
                    o_depth[v_c] := 1;
                    if not o_superseded[v_c] and not o_expired[v_c] then
                        v_tail := v_tail + 1;
                        v_queue[v_tail] := v_c;
                    end if;
                end if;
            end if;
        end loop;
        v_head := 1;
        while v_head <= v_tail loop
            v_p := v_queue[v_head];
            v_head := v_head + 1;
            for v_k in v_first[v_p] .. v_last[v_p] loop
                v_j := v_edge_just[v_k];
                v_missing[v_j] := v_missing[v_j] - 1;
                if o_depth[v_p] > v_jdepth[v_j] then
                    v_jdepth[v_j] := o_depth[v_p];
                end if;
                if v_missing[v_j] = 0 then
                    v_c := v_cons[v_j];
                    if not o_holds[v_c] and not o_blocked[v_c] then
                        o_holds[v_c] := true;
                        v_by[v_c] := v_j;
                        o_depth[v_c] := v_jdepth[v_j] + 1;
                        if not o_superseded[v_c] and not o_expired[v_c] then
                            v_tail := v_tail + 1;
                            v_queue[v_tail] := v_c;
                        end if;
                    end if;
                end if;
            end loop;
        end loop;

        -- a belief is superseded while a winner over it holds (in the closure: as just computed)
        exit when v_sup_loser is null;
        v_changed := false;
        for v_p in 1 .. v_n loop
            if v_loser[v_p] then
                v_sup := false;
                for v_k in 1 .. cardinality(v_sup_loser) loop
                    if v_sup_loser[v_k] = v_p then
                        v_c := v_sup_winner[v_k];
                        v_sup := v_sup or (case when v_c > 0 then o_holds[v_c] else v_sup_holds[v_k] end);
                    end if;
                end loop;
                if v_sup <> o_superseded[v_p] then
                    o_superseded[v_p] := v_sup;
                    v_changed := true;
                end if;
            end if;
        end loop;
        exit when not v_changed;
    end loop;

    -- walking by stored supports, the nodes outside the walk kept their standing: sound while the
    -- change only takes away (what is outside holds by a support that rests on nothing walked).
    -- Should anything walked start to hold, or be current again, what rests on it is not walked:
    -- the whole closure then.
    if v_walk then
        for v_p in 1 .. v_n loop
            if o_holds[v_p] and (not o_held[v_p]
                                 or (not o_was_current[v_p] and not o_superseded[v_p] and not o_expired[v_p])) then
                select * into o_ids, o_kind, o_held, o_was_current, o_premise, o_blocked, o_holds, o_superseded,
                              o_expired, o_live, o_live_decision, o_rounds, o_support, o_depth
                  from beliefdb.evaluate_closure(p_workspace_id, p_seeds, p_assume_off, false);
                return;
            end if;
        end loop;
    end if;

    -- what each node holds by: the justification that made it hold in the last round
    o_support := array(select case when u.j > 0 then v_just[u.j] end from unnest(v_by) with ordinality as u (j, n)
                        order by u.n);

    -- decisions that lost a reason (a justification with every antecedent current before, now
    -- missing one) and still hold: their justifications that miss nothing
    v_lost := array_fill(false, array[v_n]);
    for v_j in 1 .. cardinality(v_cons) loop
        if v_missing[v_j] > 0 and v_just_unmet[v_j] = 0 then
            v_c := v_cons[v_j];
            if o_holds[v_c] and o_kind[v_c] = 'decision' then
                v_lost[v_c] := true;
            end if;
        end if;
    end loop;
    if true = any(v_lost) then
        v_k := 0;
        for v_j in 1 .. cardinality(v_cons) loop
            if v_missing[v_j] = 0 and v_lost[v_cons[v_j]] then
                v_k := v_k + 1;
                o_live[v_k] := v_just[v_j];
                o_live_decision[v_k] := o_ids[v_cons[v_j]];
            end if;
        end loop;
    end if;
end
$$;
comment on function beliefdb.evaluate_closure(uuid, uuid[], uuid[], boolean) is 'Holding and supersession of the forward closure of a change, or of what rests on it by stored supports, as arrays (reads only)';

-- Beliefs of a workspace whose valid time has ended while they were still current (rule 16).
create or replace function beliefdb.due_to_expire(p_workspace_id uuid) returns uuid[]
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(array_agg(b.id), '{}')
      from beliefdb.belief b
     where b.workspace_id = p_workspace_id and b.status in ('current', 'conflicting')
       and not upper_inf(b.valid_time) and upper(b.valid_time) <= beliefdb.clock()
$$;
comment on function beliefdb.due_to_expire(uuid) is 'Current beliefs whose valid time has ended and that are not yet marked expired';

-- Sources expand to their fragments; everything else is a node id. (plpgsql, not sql: the
-- statement is planned once per session, not at every call.) The versions named and those of the
-- sources named are looked up apart, each by its index: one condition "source or id" on
-- source_version can use neither, and read every version of the workspace (150,000 at 10M nodes).
create or replace function beliefdb.expand_targets(p_workspace_id uuid, p_ids uuid[]) returns uuid[]
language plpgsql stable
set search_path = pg_catalog, pg_temp
set plan_cache_mode = force_generic_plan
as $$
begin
    return (
        select coalesce(array_agg(distinct x.id), '{}')
          from (
            select n.id from beliefdb.node n where n.workspace_id = p_workspace_id and n.id = any(p_ids)
            union all
            select f.id
              from (select v.id
                      from beliefdb.source_version v
                     where v.workspace_id = p_workspace_id and v.source_id = any(p_ids)
                    union
                    select v.id
                      from beliefdb.source_version v
                     where v.workspace_id = p_workspace_id and v.id = any(p_ids)) v
              join beliefdb.fragment f on f.workspace_id = p_workspace_id and f.source_version_id = v.id
          ) x);
end
$$;
comment on function beliefdb.expand_targets(uuid, uuid[]) is 'Node ids for a list of node, source and source-version ids';

-- What a retraction or an impact names, from what a person calls it: a source by its name (or its
-- id), a source version by its id, or any node by its id or a unique prefix (resolve_node).
create or replace function beliefdb.resolve_target(p_ref text) returns uuid
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_ref text := lower(trim(coalesce(p_ref, '')));
    v_id uuid;
begin
    if v_ref ~ '^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$' then
        -- a whole id, the usual reference: one statement, in the same order as below (beliefdb.impact
        -- looks whole node ids up in this order too, in one statement for all its references: keep
        -- the two in step)
        select coalesce((select s.id from beliefdb.source s where s.workspace_id = v_ws and s.name = p_ref),
                        (select s.id from beliefdb.source s where s.workspace_id = v_ws and s.id = v_ref::uuid),
                        (select v.id from beliefdb.source_version v where v.workspace_id = v_ws and v.id = v_ref::uuid),
                        (select n.id from beliefdb.node n where n.workspace_id = v_ws and n.id = v_ref::uuid))
          into v_id;
    else
        select s.id into v_id from beliefdb.source s where s.workspace_id = v_ws and s.name = p_ref;
    end if;
    if v_id is not null then
        return v_id;
    end if;
    -- (the subtransaction of an exception block, only when the quick answers found nothing)
    begin
        return beliefdb.resolve_node(p_ref);
    exception when sqlstate 'BD004' then
        raise exception 'no node, source or source version is named %', p_ref using errcode = 'BD004';
    end;
end
$$;
comment on function beliefdb.resolve_target(text) is 'Resolve a source name (or id), a source version id, or a node id or unique id prefix in the bound workspace';

-- What assuming p_off stops holding takes down (rules 2 and 4), walked as a JTMS walks it. Every
-- node that holds stores the justification it holds by, ranked above what that rests on
-- (node.support, node.support_rank: well-founded), and the out rows that carry a support say so
-- (adjacency.support). Only the nodes whose support rests on p_off can stop holding: they are
-- walked from p_off by those rows alone, and the walk stops at a node that another of its
-- justifications keeps holding for certain (what rests on it keeps holding too); then the least
-- fixpoint over the walked nodes, with everything else as it stands.
-- Returns, per walked node (o_ids ...), its kind, whether it was current and whether it holds
-- afterwards; for each decision that loses a reason and still holds, its live justifications
-- (o_live, o_live_decision), as beliefdb.evaluate_closure does. o_settled is false when the walk
-- cannot answer alone: a belief that stops holding is in a supersession or a tie, so what it
-- superseded may be current again (the caller evaluates the whole closure then). Reads only, and
-- only what the walk reaches: one recursive statement for a small walk, else one that goes a level
-- a row (every row of each node it reaches with one probe of the adjacency's primary key and, where
-- a node may be kept, the other justifications' antecedents and ranks); and of what rests outside
-- the walk on what stops holding, the standing and justifications of the decisions among it (the
-- out rows say which consequents are decisions: one probe per such decision, none for the rest).
create or replace function beliefdb.support_walk(
    p_workspace_id uuid, p_off uuid[],
    out o_ids uuid[], out o_kind beliefdb.node_kind[], out o_was_current boolean[], out o_holds boolean[],
    out o_live uuid[], out o_live_decision uuid[], out o_settled boolean)
language plpgsql
stable
set search_path = pg_catalog, pg_temp
-- a handful of nodes next to the graph: index scans over arrays of ids, and arrays joined to
-- rows in memory by hashing (a generic plan takes an array for a few rows, and a nested loop over
-- two of them is quadratic: seconds for a walk of 8,000 nodes); the plans do not depend on the
-- arguments
set enable_seqscan = off
set enable_mergejoin = off
set enable_nestloop = off
set plan_cache_mode = force_generic_plan
as $$
declare
    v_off uuid[] := array(select distinct x.id from unnest(p_off) as x (id) where x.id is not null);
    v_n integer;
    v_held boolean[];
    v_related boolean[];
    v_retracted boolean[];
    -- the walked nodes' rows of beliefdb.adjacency, as read: their justifications (in) and the
    -- edges out of them (out)
    v_in_node uuid[];
    v_in_just uuid[];
    v_in_unmet integer[];
    v_out_node uuid[];
    v_out_just uuid[];
    v_out_cons uuid[];
    v_out_decision boolean[];
    -- every node the walk reached
    v_reached uuid[];
    v_small_rows integer := case when current_setting('beliefdb.support_walk_rows', true) ~ '^[0-9]{1,9}$'
                                 then current_setting('beliefdb.support_walk_rows', true)::integer
                                 else 60 end;
    v_small boolean;
    -- the walked nodes' justifications, by position: id, consequent position, unmet before
    v_just uuid[];
    v_cons integer[];
    v_unmet integer[];
    v_missing integer[];
    -- edges from walked nodes that were current into those justifications, grouped by antecedent
    v_edge_ant integer[];
    v_edge_just integer[];
    v_first integer[];
    v_last integer[];
    -- what the nodes that stop holding were reasons of outside the walk: the justifications,
    -- their consequents, and of the decisions among those, every justification with what it missed
    v_lost_just uuid[];
    v_next uuid[];
    v_dec uuid[];
    v_dec_just uuid[];
    v_dec_unmet integer[];
    v_dec_holding uuid[];
    v_queue integer[];
    v_head integer;
    v_tail integer;
    v_p integer;
    v_j integer;
    v_k integer;
    v_c integer;
    v_lost boolean[];
begin
    o_settled := true;
    o_live := '{}';
    o_live_decision := '{}';
    o_ids := '{}';
    o_kind := '{}';
    o_was_current := '{}';
    o_holds := '{}';
    -- 1. what rests on p_off by its support, level by level, in support-rank order where it
    --    matters, as a JTMS walks it: a node reached (its support rests on one that may stop
    --    holding) on which two or more others rest by their support, and that has another
    --    justification which missed nothing (unmet 0) and whose every antecedent is certain to keep
    --    holding, keeps holding by it, and what rests on it is not walked; the others may stop
    --    holding, and what rests on them by its support is the next level. An antecedent is certain
    --    to keep holding when a level before kept it so, or when the walk has not reached it and its
    --    rank is not above the least rank of the level's nodes on which anything rests by its
    --    support: whatever the walk reaches later rests by its support on one of those, or on what
    --    rests on them, so it ranks above that, and the antecedent's support, ranked below it, rests
    --    on nothing the walk can reach. (That least rank grows from one level to the next, so what a
    --    level keeps holds by supports that are well-founded.) A level reads every row of its nodes
    --    by one probe of the adjacency's primary key each (their standing, their justifications and
    --    the edges out of them, side by side there, with which edges carry a support) and, only
    --    where a node may be kept, which of them another justification keeps (those
    --    justifications' antecedents, and the ranks of the level's nodes and of the antecedents not
    --    yet decided, by key); the next level is what rests on the others. The levels are one
    --    statement (a walk's cost is its statements' start-up as much as its reads). The fixpoint
    --    below then runs over every node reached, kept or not.
    --    Most walks are small: the whole of what rests on p_off by its support is read first by one
    --    recursive statement, which stops after 60 rows (about ten nodes; the setting
    --    beliefdb.support_walk_rows, when it is a number); one that stops short is the walk,
    --    without keeping anything (the fixpoint finds the same). The level walk's statement pays
    --    for its start-up only on larger walks. (union, not union all: a node whose support rests on
    --    two walked nodes is reached twice, and its rows kept once.)
    v_small := false;
    if v_small_rows > 0 then
        select coalesce(array_agg(x.node) filter (where x.entry = 'self'), '{}'),
               coalesce(array_agg(x.kind) filter (where x.entry = 'self'), '{}'),
               coalesce(array_agg(x.current) filter (where x.entry = 'self'), '{}'),
               coalesce(array_agg(x.holds) filter (where x.entry = 'self'), '{}'),
               coalesce(array_agg(x.related) filter (where x.entry = 'self'), '{}'),
               coalesce(array_agg(x.retracted) filter (where x.entry = 'self'), '{}'),
               coalesce(array_agg(x.node) filter (where x.entry = 'in'), '{}'),
               coalesce(array_agg(x.justification) filter (where x.entry = 'in'), '{}'),
               coalesce(array_agg(x.unmet) filter (where x.entry = 'in'), '{}'),
               coalesce(array_agg(x.node) filter (where x.entry = 'out'), '{}'),
               coalesce(array_agg(x.justification) filter (where x.entry = 'out'), '{}'),
               coalesce(array_agg(x.consequent) filter (where x.entry = 'out'), '{}'),
               coalesce(array_agg(x.into_decision) filter (where x.entry = 'out'), '{}'),
               v_off || coalesce(array_agg(x.consequent) filter (where x.entry = 'out' and x.support), '{}'),
               count(*) < v_small_rows
          into o_ids, o_kind, o_was_current, v_held, v_related, v_retracted, v_in_node, v_in_just, v_in_unmet,
               v_out_node, v_out_just, v_out_cons, v_out_decision, v_reached, v_small
          from (with recursive w (node, entry, justification, consequent, unmet, kind, current, holds, related, retracted,
                                  support, into_decision) as (
                    select x.node, x.entry, x.justification, x.consequent, x.unmet, x.kind, x.current, x.holds, x.related,
                           x.retracted, x.support, x.into_decision
                      from beliefdb.adjacency x
                     where x.workspace_id = p_workspace_id and x.node = any(v_off)
                    union
                    -- (the lateral subquery, kept apart by offset 0, can only be a nested loop over the
                    -- rows found so far: joined by hashing, it would read the workspace's every row)
                    select y.node, y.entry, y.justification, y.consequent, y.unmet, y.kind, y.current, y.holds, y.related,
                           y.retracted, y.support, y.into_decision
                      from w
                     cross join lateral (select y.node, y.entry, y.justification, y.consequent, y.unmet, y.kind, y.current,
                                                y.holds, y.related, y.retracted, y.support, y.into_decision
                                           from beliefdb.adjacency y
                                          where y.workspace_id = p_workspace_id and y.node = w.consequent
                                         offset 0) y
                     where w.entry = 'out' and w.support)
                select * from w limit v_small_rows) x;
    end if;
    -- the level walk as one recursive statement, a row a level, from p_off: what the levels read so
    -- far, every node reached, those kept, and the supports that reached the next level's nodes
    -- (consequent, justification). A statement's start-up is paid once, not once or twice a level
    -- (the level's aggregates run over the row's own arrays, which a recursive term may do). It
    -- replaces whatever the small walk read.
    if not v_small then
        with recursive lv (depth, frontier, reached, kept, sup_cons, sup_just, ids, kind, was_current, held, related,
                           retracted, in_node, in_just, in_unmet, out_node, out_just, out_cons, out_decision) as (
            select 0, v_off, v_off, '{}'::uuid[], '{}'::uuid[], '{}'::uuid[], '{}'::uuid[],
                   '{}'::beliefdb.node_kind[], '{}'::boolean[], '{}'::boolean[], '{}'::boolean[], '{}'::boolean[],
                   '{}'::uuid[], '{}'::uuid[], '{}'::integer[], '{}'::uuid[], '{}'::uuid[], '{}'::uuid[], '{}'::boolean[]
            union all
            select lv.depth + 1, s.frontier, lv.reached || s.frontier, lv.kept || s.kept, s.sup_cons, s.sup_just,
                   lv.ids || s.ids, lv.kind || s.kind, lv.was_current || s.was_current, lv.held || s.held,
                   lv.related || s.related, lv.retracted || s.retracted, lv.in_node || s.in_node,
                   lv.in_just || s.in_just, lv.in_unmet || s.in_unmet, lv.out_node || s.out_node,
                   lv.out_just || s.out_just, lv.out_cons || s.out_cons, lv.out_decision || s.out_decision
              from lv
             cross join lateral (
                with y as materialized (
                    -- every row of the level's nodes
                    select y.node, y.entry, y.justification, y.consequent, y.unmet, y.kind, y.current, y.holds,
                           y.related, y.retracted, y.support, y.into_decision
                      from beliefdb.adjacency y
                     where y.workspace_id = p_workspace_id and y.node = any(lv.frontier)
                ), parent as (
                    -- the level's nodes on which two or more others rest by their support (none among
                    -- p_off): keeping one spares the walk of those (for fewer, looking at its other
                    -- justifications reads about as much as it spares)
                    select y.node
                      from y
                     where y.entry = 'out' and y.support and cardinality(lv.sup_cons) > 0
                     group by y.node
                    having count(*) >= 2
                ), other as (
                    -- their live justifications other than the support that reached them
                    select i.node, i.justification as just
                      from y i
                      join parent on parent.node = i.node
                      join y n on n.node = i.node and n.entry = 'self' and not n.retracted
                      left join unnest(lv.sup_cons, lv.sup_just) as p (cons, just)
                        on p.cons = i.node and p.just = i.justification
                     where i.entry = 'in' and i.unmet = 0 and p.cons is null
                ), next as (
                    -- what rests by its support on the level's nodes and is not reached yet (the next
                    -- level, but for what rests on a node the level keeps)
                    select o.node, o.consequent, o.justification
                      from y o
                      left join unnest(lv.reached) as w (id) on w.id = o.consequent
                     where o.entry = 'out' and o.support and w.id is null
                ), antecedent as (
                    -- the other justifications' antecedents: which the levels before kept, which the
                    -- walk reached
                    select o.node, o.just, a.antecedent, h.id is not null as kept, w.id is not null as reached
                      from other o
                     cross join lateral (select a.antecedent from beliefdb.justification_antecedent a
                                          where a.workspace_id = p_workspace_id and a.justification_id = o.just
                                         offset 0) a
                      left join unnest(lv.kept) as h (id) on h.id = a.antecedent
                      left join unnest(lv.reached) as w (id) on w.id = a.antecedent
                ), candidate as (
                    -- (a justification with an antecedent the walk reached and did not keep cannot keep
                    -- its node: only the others' antecedents are ranked)
                    select x.node, x.just from antecedent x group by x.node, x.just
                    having bool_and(x.kept or not x.reached)
                ), ranked as (
                    -- the ranks looked up, each node once: those antecedents, and the level's nodes on
                    -- which anything rests by its support (bearing; what the walk reaches later rests on
                    -- one of them, so ranks above the least of theirs). The two never meet: an
                    -- antecedent looked up is not reached. Only where a node may be kept.
                    select d.id, d.bearing, r.support_rank
                      from (select distinct x.antecedent as id, false as bearing
                              from antecedent x
                              join candidate c on c.node = x.node and c.just = x.just
                             where not x.kept
                            union all
                            select distinct b.node, true
                              from y b
                             where b.entry = 'out' and b.support and exists (select from candidate)) d
                     cross join lateral (select r.support_rank from beliefdb.node r
                                          where r.workspace_id = p_workspace_id and r.id = d.id offset 0) r
                ), kept as (
                    select distinct x.node
                      from antecedent x
                      join candidate c on c.node = x.node and c.just = x.just
                      left join ranked r on r.id = x.antecedent and not r.bearing
                     group by x.node, x.just
                    having bool_and(x.kept or r.support_rank <= (select min(f.support_rank) from ranked f
                                                                  where f.bearing))
                ), walked as (
                    select n.consequent, n.justification
                      from next n
                      left join kept k on k.node = n.node
                     where k.node is null
                )
                select coalesce(array_agg(y.node) filter (where y.entry = 'self'), '{}') as ids,
                       coalesce(array_agg(y.kind) filter (where y.entry = 'self'), '{}') as kind,
                       coalesce(array_agg(y.current) filter (where y.entry = 'self'), '{}') as was_current,
                       coalesce(array_agg(y.holds) filter (where y.entry = 'self'), '{}') as held,
                       coalesce(array_agg(y.related) filter (where y.entry = 'self'), '{}') as related,
                       coalesce(array_agg(y.retracted) filter (where y.entry = 'self'), '{}') as retracted,
                       coalesce(array_agg(y.node) filter (where y.entry = 'in'), '{}') as in_node,
                       coalesce(array_agg(y.justification) filter (where y.entry = 'in'), '{}') as in_just,
                       coalesce(array_agg(y.unmet) filter (where y.entry = 'in'), '{}') as in_unmet,
                       coalesce(array_agg(y.node) filter (where y.entry = 'out'), '{}') as out_node,
                       coalesce(array_agg(y.justification) filter (where y.entry = 'out'), '{}') as out_just,
                       coalesce(array_agg(y.consequent) filter (where y.entry = 'out'), '{}') as out_cons,
                       coalesce(array_agg(y.into_decision) filter (where y.entry = 'out'), '{}') as out_decision,
                       (select coalesce(array_agg(k.node), '{}') from kept k) as kept,
                       (select coalesce(array_agg(w.consequent), '{}') from walked w) as sup_cons,
                       (select coalesce(array_agg(w.justification), '{}') from walked w) as sup_just,
                       (select coalesce(array_agg(distinct w.consequent), '{}') from walked w) as frontier
                  from y
             ) s
             where cardinality(lv.frontier) > 0
        )
        select lv.ids, lv.kind, lv.was_current, lv.held, lv.related, lv.retracted, lv.in_node, lv.in_just,
               lv.in_unmet, lv.out_node, lv.out_just, lv.out_cons, lv.out_decision, lv.reached
          into o_ids, o_kind, o_was_current, v_held, v_related, v_retracted, v_in_node, v_in_just, v_in_unmet,
               v_out_node, v_out_just, v_out_cons, v_out_decision, v_reached
          from lv
         order by lv.depth desc
         limit 1;
    end if;
    v_n := cardinality(o_ids);
    if v_n = 0 then
        return;
    end if;
    -- the justifications of walked nodes that are neither retracted nor assumed off, by position
    -- (their order: by id), and the edges into them from walked nodes that were current, grouped
    -- by antecedent (hash joins of the arrays, in memory)
    select coalesce(array_agg(j.id order by j.id), '{}'), coalesce(array_agg(j.cons order by j.id), '{}'),
           coalesce(array_agg(j.unmet order by j.id), '{}')
      into v_just, v_cons, v_unmet
      from (select i.just as id, s.pos as cons, i.unmet
              from unnest(v_in_node, v_in_just, v_in_unmet) as i (node, just, unmet)
              join unnest(o_ids, v_retracted) with ordinality as s (id, retracted, pos) on s.id = i.node
              left join unnest(v_off) as o (id) on o.id = i.node
             where not s.retracted and o.id is null) j;
    select coalesce(array_agg(s.pos order by s.pos, j.pos), '{}'), coalesce(array_agg(j.pos order by s.pos, j.pos), '{}')
      into v_edge_ant, v_edge_just
      from unnest(v_out_node, v_out_just) as o (node, just)
      join unnest(v_just) with ordinality as j (id, pos) on j.id = o.just
      join unnest(o_ids, o_was_current) with ordinality as s (id, was_current, pos) on s.id = o.node
     where s.was_current;

    -- 3. the least fixpoint over the walked nodes by counting, as evaluate_closure's: a
    --    justification misses what it missed before (unmet) and its walked antecedents; nothing
    --    walked holds until one of its justifications misses nothing. A walked node that holds
    --    again is current again if it was (nothing is superseded anew: the walk only takes away)
    v_first := array_fill(1, array[v_n]);
    v_last := array_fill(0, array[v_n]);
    v_missing := v_unmet;
    for v_k in 1 .. cardinality(v_edge_ant) loop
        v_p := v_edge_ant[v_k];
        v_missing[v_edge_just[v_k]] := v_missing[v_edge_just[v_k]] + 1;
        if v_last[v_p] = 0 then
            v_first[v_p] := v_k;
        end if;
        v_last[v_p] := v_k;
    end loop;
    o_holds := array_fill(false, array[v_n]);
    v_queue := array_fill(0, array[v_n]);
    v_tail := 0;
    for v_j in 1 .. cardinality(v_just) loop
        v_c := v_cons[v_j];
        if v_missing[v_j] = 0 and not o_holds[v_c] then
            o_holds[v_c] := true;
            if o_was_current[v_c] then
                v_tail := v_tail + 1;
                v_queue[v_tail] := v_c;
            end if;
        end if;
    end loop;
    v_head := 1;
    while v_head <= v_tail loop
        v_p := v_queue[v_head];
        v_head := v_head + 1;
        for v_k in v_first[v_p] .. v_last[v_p] loop
            v_j := v_edge_just[v_k];
            v_missing[v_j] := v_missing[v_j] - 1;
            v_c := v_cons[v_j];
            if v_missing[v_j] = 0 and not o_holds[v_c] then
                o_holds[v_c] := true;
                if o_was_current[v_c] then
                    v_tail := v_tail + 1;
                    v_queue[v_tail] := v_c;
                end if;
            end if;
        end loop;
    end loop;

    -- a belief that stops holding in a supersession or a tie: what it superseded may be current
    -- again, and meet its rivals; the walk does not answer that
    for v_p in 1 .. v_n loop
        if v_held[v_p] and not o_holds[v_p] and v_related[v_p] then
            o_settled := false;
            return;
        end if;
    end loop;

    -- 4. decisions that lose a reason (a justification whose antecedents were all current, now
    --    missing one) and still hold, with their justifications that miss nothing. Walked ones:
    --    as counted above.
    v_lost := array_fill(false, array[v_n]);
    for v_j in 1 .. cardinality(v_just) loop
        v_c := v_cons[v_j];
        if v_missing[v_j] > 0 and v_unmet[v_j] = 0 and o_holds[v_c] and o_kind[v_c] = 'decision' then
            v_lost[v_c] := true;
        end if;
    end loop;
    v_k := 0;
    for v_j in 1 .. cardinality(v_just) loop
        if v_missing[v_j] = 0 and v_lost[v_cons[v_j]] then
            v_k := v_k + 1;
            o_live[v_k] := v_just[v_j];
            o_live_decision[v_k] := o_ids[v_cons[v_j]];
        end if;
    end loop;
    -- outside the walk: nodes that rest on what stops holding by another justification than their
    -- support, and so still hold (the edges out of it, read above); the decisions among them lose
    -- that justification's reason if it missed nothing before
    if not (true = any(o_was_current) and false = any(o_holds)) then
        return;
    end if;
    -- (only decisions can lose a reason: the out rows say which consequents are)
    select array_agg(distinct o.just), array_agg(distinct o.cons)
      into v_lost_just, v_next
      from unnest(v_out_node, v_out_just, v_out_cons, v_out_decision) as o (node, just, cons, decision)
      join unnest(o_ids, o_was_current, o_holds) as p (id, was_current, holds) on p.id = o.node
      left join unnest(v_reached) as w (id) on w.id = o.cons
     where o.decision and p.was_current and not p.holds and w.id is null;
    if v_lost_just is null then
        return;
    end if;
    -- those decisions' standing and justifications: one scan of the primary key by node and entry,
    -- which reads a decision's self and in rows from the leaf page one descent reaches (past the
    -- few edges out of it, into its actions)
    select array_agg(y.node) filter (where y.entry = 'in'), array_agg(y.justification) filter (where y.entry = 'in'),
           array_agg(y.unmet) filter (where y.entry = 'in'), array_agg(y.node) filter (where y.entry = 'self' and y.holds)
      into v_dec, v_dec_just, v_dec_unmet, v_dec_holding
      from beliefdb.adjacency y
     where y.workspace_id = p_workspace_id and y.node = any(v_next)
       and y.entry = any('{self,in}'::beliefdb.adjacency_entry[]);
    if v_dec_holding is null then
        return;
    end if;
    -- (a decision whose lost justifications all missed something before lost no reason)
    select o_live || coalesce(array_agg(d.justification), '{}'), o_live_decision || coalesce(array_agg(d.node), '{}')
      into o_live, o_live_decision
      from unnest(v_dec, v_dec_just, v_dec_unmet) as d (node, justification, unmet)
      join unnest(v_dec_holding) as h (node) on h.node = d.node
      left join unnest(v_lost_just) as l (id) on l.id = d.justification
     where d.unmet = 0 and l.id is null
       and d.node in (select e.node
                        from unnest(v_dec, v_dec_just, v_dec_unmet) as e (node, justification, unmet)
                        join unnest(v_lost_just) as m (id) on m.id = e.justification
                       where e.unmet = 0);
end
$$;
comment on function beliefdb.support_walk(uuid, uuid[]) is 'What assuming nodes stop holding takes down, walked by stored supports only (reads only)';

-- Dry run (rules 4, 5): what retracting these nodes, sources or source versions would change, the
-- same report retract's apply gives: what stops being current, what becomes current again (a
-- belief whose winner stops holding, and what that settles under rule 8), which decisions would
-- be flagged, which actions held, and which decisions survive thanks to other support (they lose
-- a reason, a justification whose antecedents were all current, and still hold by another). A
-- decision whose reasons all stay live is not listed, even when it is in the closure.
--
-- Most changes only take support away: then the walk of what rests on the targets by its stored
-- support (support_walk, reads only: the nodes whose support the change touches, and their other
-- justifications) is the answer; when a belief it takes down is in a supersession or a tie, the
-- walk of the whole forward closure (evaluate_closure, reads only). When one brings something
-- back (a belief current again meets its rivals under rule 8, a retracted version puts an older
-- one back in force) or expiries are due, the retraction itself runs in a subtransaction that is
-- rolled back (simulate_retraction), so the preview is exactly what the apply does; a version
-- named or an expiry due goes there before any walk. Each reference: what
-- beliefdb.resolve_target accepts.
create or replace function beliefdb.impact(p_refs text[])
returns table (node uuid, kind text, effect text, detail jsonb)
language plpgsql
stable
set search_path = pg_catalog, pg_temp
-- the closure is small next to the graph: join it to decisions and actions by index lookups
-- (what is joined in memory, arrays to arrays, may hash); plan once per session, not per call
set enable_seqscan = off
set enable_mergejoin = off
set plan_cache_mode = force_generic_plan
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_ids uuid[];
    v_targets uuid[];
    v_e record;
    v_w record;
    v_report beliefdb.changes;
    -- what the walk says, per node it reached: kind, whether current before and after
    v_node uuid[];
    v_kind beliefdb.node_kind[];
    v_was_current boolean[];
    v_current boolean[];
    v_holds boolean[];
    v_live uuid[];
    v_live_decision uuid[];
    v_simulate boolean;
    v_nodes boolean;
    v_flag_id uuid[];
    v_flag_title text[];
    v_keep_id uuid[];
    v_keep_title text[];
    v_keep_reasons jsonb[];
begin
    -- The usual reference is a node's whole id: one statement looks every whole id up in
    -- beliefdb.resolve_target's order (a source of that name, a source or a source version of that
    -- id, then a node) and, when each is a node's, is the answer (a node expands to itself). Any
    -- other reference goes through resolve_target and expand_targets. (A preview of a 1,000-node
    -- closure is 1-3 ms of CPU: the general path's eight lookups and three calls were 5-10 % of it.)
    select array_agg(r.node order by r.n), array_agg(distinct r.node), bool_and(r.node is not null),
           -- due expiries change what is current
           cardinality(beliefdb.due_to_expire(v_ws)) > 0
      into v_ids, v_targets, v_nodes, v_simulate
      from unnest(p_refs) with ordinality as r0 (ref, n)
     cross join lateral (
            select r0.n, case when x.id is not null
                               and not exists (select from beliefdb.source s where s.workspace_id = v_ws and s.name = r0.ref)
                               and not exists (select from beliefdb.source s where s.workspace_id = v_ws and s.id = x.id)
                               and not exists (select from beliefdb.source_version v
                                                where v.workspace_id = v_ws and v.id = x.id)
                              then (select n.id from beliefdb.node n where n.workspace_id = v_ws and n.id = x.id) end
              from (select case when lower(trim(r0.ref)) ~ '^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$'
                                then trim(r0.ref)::uuid end as id) x
            -- (offset 0: each reference looked up once, not once per aggregate the lookup feeds)
            offset 0) r (n, node);
    if not coalesce(v_nodes, false) then
        v_ids := array(select beliefdb.resolve_target(r.ref) from unnest(p_refs) with ordinality r (ref, n) order by r.n);
        v_targets := beliefdb.expand_targets(v_ws, v_ids);
        -- a retracted version may put an older one back in force
        v_simulate := v_simulate or exists (select from beliefdb.source_version v
                                             where v.workspace_id = v_ws and v.id = any(v_ids));
    end if;
    if cardinality(v_targets) = 0 then
        raise exception 'nothing to assess: no belief, fragment, decision or source has these ids' using errcode = 'BD004';
    end if;
    if not v_simulate then
        -- the arrays as they come: a preview writes nothing, not even the working set
        select * into v_w from beliefdb.support_walk(v_ws, v_targets);
        if v_w.o_settled then
            v_node := v_w.o_ids;
            v_kind := v_w.o_kind;
            v_was_current := v_w.o_was_current;
            -- (nothing is superseded anew, and what holds again is as current as it was: what
            -- was current stops being current exactly when it stops holding)
            v_current := v_w.o_holds;
            v_holds := v_w.o_holds;
            v_live := v_w.o_live;
            v_live_decision := v_w.o_live_decision;
        else
            select * into v_e from beliefdb.evaluate_closure(v_ws, v_targets, v_targets);
            v_node := v_e.o_ids;
            v_kind := v_e.o_kind;
            v_was_current := v_e.o_was_current;
            v_holds := v_e.o_holds;
            v_current := array(select e.holds and not e.superseded and not e.expired
                                 from unnest(v_e.o_holds, v_e.o_superseded, v_e.o_expired) with ordinality
                                      as e (holds, superseded, expired, n)
                                order by e.n);
            -- a belief current again meets its rivals under rule 8: the walk does not answer that
            v_simulate := exists (select from unnest(v_kind, v_was_current, v_current) as e (kind, was_current, current)
                                   where e.kind = 'belief' and not e.was_current and e.current);
            v_live := v_e.o_live;
            v_live_decision := v_e.o_live_decision;
        end if;
    end if;
    if v_simulate then
        v_report := beliefdb.simulate_retraction(v_ids::text[]);
        return query
        select x.id, n.kind::text, 'stops_holding', '{}'::jsonb
          from unnest(v_report.stopped_current) as x (id)
          join lateral (select n.kind from beliefdb.node n where n.workspace_id = v_ws and n.id = x.id) n on true
        union all
        select x.id, n.kind::text, 'becomes_current', '{}'::jsonb
          from unnest(v_report.became_current) as x (id)
          join lateral (select n.kind from beliefdb.node n where n.workspace_id = v_ws and n.id = x.id) n on true
        union all
        select d.id, 'decision', 'flag', jsonb_build_object('title', d.title)
          from unnest(v_report.flagged) as x (id)
          join beliefdb.decision d on d.workspace_id = v_ws and d.id = x.id
        union all
        select a.id, 'action', 'hold', jsonb_build_object('decision', a.decision_id, 'description', a.description)
          from unnest(v_report.held) as x (id)
          join beliefdb.action a on a.workspace_id = v_ws and a.id = x.id
        union all
        -- (a decision's surviving reasons come one per row: each its antecedents, in the report's order)
        select d.id, 'decision', 'survives', jsonb_build_object('title', d.title, 'by', s.by)
          from (select s.decision, jsonb_agg(to_jsonb(s.reason) order by s.n) as by
                  from unnest(v_report.survives) with ordinality as s (decision, reason, n)
                 group by s.decision) s
          join beliefdb.decision d on d.workspace_id = v_ws and d.id = s.decision;
        return;
    end if;
    -- Decisions are read into arrays, with one index scan over an array of ids each, and joined
    -- to the evaluation's arrays in memory by hashing. The decisions of the closure that stop
    -- holding and are active are flagged; those that lost a reason, hold and are active or
    -- approved survive, by their live justifications, whose antecedents the decision row carries
    -- (decision.reasons). A walk that reached no decision reads none.
    v_flag_id := '{}';
    v_flag_title := '{}';
    v_keep_id := '{}';
    v_keep_title := '{}';
    v_keep_reasons := '{}';
    if cardinality(v_live_decision) > 0 or 'decision' = any(v_kind) then
        select f.*, k.*
          into v_flag_id, v_flag_title, v_keep_id, v_keep_title, v_keep_reasons
          from (select coalesce(array_agg(e.id) filter (where not e.holds), '{}') as lost,
                       array(select distinct l.id from unnest(v_live_decision) as l (id)) as kept
                  from (select unnest(v_node) as id, unnest(v_kind) as kind, unnest(v_holds) as holds) e
                 where e.kind = 'decision') e
          cross join lateral (
                select coalesce(array_agg(d.id), '{}'), coalesce(array_agg(d.title), '{}')
                  from beliefdb.decision d
                 where d.workspace_id = v_ws and d.id = any(e.lost) and d.status = 'active') f
          cross join lateral (
                select coalesce(array_agg(d.id), '{}'), coalesce(array_agg(d.title), '{}'),
                       coalesce(array_agg(d.reasons), '{}')
                  from beliefdb.decision d
                 where d.workspace_id = v_ws and d.id = any(e.kept) and d.status in ('active', 'approved')) k;
    end if;
    return query
    select e.id, e.kind::text, 'stops_holding', '{}'::jsonb
      from (select unnest(v_node) as id, unnest(v_kind) as kind, unnest(v_was_current) as was_current,
                   unnest(v_current) as current) e
     where e.was_current and not e.current
    union all
    select f.id, 'decision', 'flag', jsonb_build_object('title', f.title)
      from unnest(v_flag_id, v_flag_title) as f (id, title)
    union all
    select a.id, 'action', 'hold', jsonb_build_object('decision', a.decision_id, 'description', a.description)
      from beliefdb.action a
     where a.workspace_id = v_ws and a.decision_id = any(v_flag_id) and a.status = 'scheduled'
    union all
    select k.id, 'decision', 'survives', jsonb_build_object('title', k.title, 'by', s.by)
      from unnest(v_keep_id, v_keep_title) as k (id, title)
      -- (offset 0: each live justification's antecedents are picked out before the sort, which
      -- would otherwise carry the decision's whole reasons object in every row)
      left join (select l.decision, jsonb_agg(l.antecedents order by l.antecedents::text) as by
                   from (select l.decision, l.id, r.reasons -> l.id::text as antecedents
                           from unnest(v_live, v_live_decision) as l (id, decision)
                           join unnest(v_keep_id, v_keep_reasons) as r (id, reasons) on r.id = l.decision
                          offset 0) l
                  where l.antecedents is not null
                  group by l.decision) s on s.decision = k.id;
end
$$;
comment on function beliefdb.impact(text[]) is 'Dry run of a retraction: what stops being current, becomes current again, is flagged, held, or survives and by what';

-- Retract these nodes, sources or source versions of the bound workspace in a subtransaction that
-- is rolled back, and return the change report the retraction made (beliefdb._changes): an exact
-- preview. Owner rights (the retraction writes, then is undone), confined to the bound workspace.
-- Each reference: what beliefdb.resolve_target accepts.
create or replace function beliefdb.simulate_retraction(p_refs text[]) returns beliefdb.changes
language sql
security definer
set search_path = pg_catalog, pg_temp
as $$
    select beliefdb._as_changes(beliefdb._dry_run(
        'select beliefdb._retract_ids(($1 ->> ''workspace'')::uuid, array(select jsonb_array_elements_text($1 -> ''ids''))::uuid[], ''dry run'', false)',
        jsonb_build_object('workspace', beliefdb.current_workspace_id(),
                           'ids', to_jsonb(array(select beliefdb.resolve_target(r.ref)
                                                   from unnest(p_refs) with ordinality r (ref, n) order by r.n)))))
$$;
comment on function beliefdb.simulate_retraction(text[]) is 'The change report of retracting nodes, sources or versions of the bound workspace, computed in a subtransaction that is rolled back';
