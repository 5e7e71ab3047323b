-- beliefdb: the support walk (docs/rules.md, rules 2 and 4): what assuming nodes stop holding
-- takes down, walked from them by the supports the nodes hold by (node.support), reads only.
-- beliefdb.impact (api/55_impact.sql) asks it first; when it cannot answer alone, the walk of the
-- whole forward closure is beliefdb.evaluate_closure (api/52_holding.sql).

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
-- superseded may be current again, or held without being current (its valid time ended), so what
-- stops holding is not what was current and stops holding, which is what the walk reports (the
-- caller evaluates the whole closure then). Reads only, and
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
    -- again, and meet its rivals; the walk does not answer that. Nor one that held without being
    -- current (expired): the walk reports what was current, and it stops holding all the same
    for v_p in 1 .. v_n loop
        if v_held[v_p] and not o_holds[v_p] and (v_related[v_p] or not o_was_current[v_p]) then
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
