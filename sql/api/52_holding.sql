-- beliefdb: truth maintenance (docs/rules.md, rules 2, 3 and 16): which versions are in force,
-- holding over a change's forward closure, and the beliefs whose valid time has ended.
-- Premises hold on their own; every other node holds if one of its justifications has every
-- antecedent current. Holding is the least fixpoint from the premises, computed for the
-- forward closure of a change only; supersession is stratified on top of it. Storing what it
-- says is beliefdb.propagate (api/70_dba_tools.sql); previewing a retraction is beliefdb.impact
-- (api/55_impact.sql).

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
    v_sup_first integer[];        -- a loser's supersessions in v_sup_loser: v_sup_first .. v_sup_last
    v_sup_last integer[];
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

    -- supersession as it stands: a belief is superseded while a winner over it holds. The
    -- supersessions by loser position (each loser's in v_sup_first .. v_sup_last), joined to the
    -- positions as the edges above are: `unnest ... with ordinality` of an array parameter is planned
    -- for the 10 rows the planner guesses, and the two were joined by nested loops that read o_ids
    -- again for every supersession (a source of 2,000 winning beliefs retracted: 4,000 supersessions
    -- in a closure of 10,000, 40 million comparisons, 6 s)
    o_superseded := array_fill(false, array[v_n]);
    v_sup_first := array_fill(1, array[v_n]);
    v_sup_last := array_fill(0, array[v_n]);
    if cardinality(v_sup_of) > 0 then
        select array_agg(l.pos order by l.pos, s.k), array_agg(coalesce(w.pos, 0) order by l.pos, s.k),
               array_agg(n.holds order by l.pos, s.k)
          into v_sup_loser, v_sup_winner, v_sup_holds
          from (select unnest(v_sup_of) as loser, unnest(v_sup_by) as winner,
                       generate_series(1, cardinality(v_sup_of)) as k) s
          join (select unnest(o_ids) as id, generate_series(1, v_n) as pos) l on l.id = s.loser
          left join (select unnest(o_ids) as id, generate_series(1, v_n) as pos) w on w.id = s.winner
          -- the winners by their key (= any): with no statistics on workspace_id the generic plan
          -- guessed 0.5 % of the table for the workspace and hashed all of its nodes (100,003 rows,
          -- 23 ms of a 31 ms correction at 100k)
          join beliefdb.node n on n.workspace_id = p_workspace_id and n.id = s.winner
                              and n.id = any(v_sup_by);
        for v_k in 1 .. coalesce(cardinality(v_sup_loser), 0) loop
            if v_sup_holds[v_k] then
                o_superseded[v_sup_loser[v_k]] := true;
            end if;
            if v_sup_last[v_sup_loser[v_k]] = 0 then
                v_sup_first[v_sup_loser[v_k]] := v_k;
            end if;
            v_sup_last[v_sup_loser[v_k]] := v_k;
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
                -- (its own supersessions only: every supersession for every loser was quadratic, 16
                -- million steps a round for 4,000)
                for v_k in v_sup_first[v_p] .. v_sup_last[v_p] loop
                    v_c := v_sup_winner[v_k];
                    v_sup := v_sup or (case when v_c > 0 then o_holds[v_c] else v_sup_holds[v_k] end);
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
