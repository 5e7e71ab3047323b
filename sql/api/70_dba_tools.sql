-- beliefdb: the DBA's tools, not granted to the application role (docs/dba.md).
-- Rules cited as "rule N" are those of docs/rules.md.
-- What a DBA runs by hand as the schema's owner: evaluate and store holding over a change's
-- forward closure (every change of the API propagates with its owner's rights), rewrite
-- beliefdb.adjacency and decision.reasons after a bulk load with triggers off, and create the
-- vector index of an embedding dimension.

-- Evaluate the forward closure of a change into pg_temp.beliefdb_evaluation (see
-- evaluate_closure; p_walk: only what rests on it by stored supports, when that is the answer) and
-- return the number of supersession rounds it took.
create or replace function beliefdb.evaluate(p_workspace_id uuid, p_seeds uuid[], p_assume_off uuid[] default '{}',
                                             p_walk boolean default false)
returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_e record;
begin
    perform beliefdb._prepare_evaluation();
    select * into v_e from beliefdb.evaluate_closure(p_workspace_id, p_seeds, p_assume_off, p_walk);
    insert into pg_temp.beliefdb_evaluation (id, kind, held, was_current, premise, blocked, holds, superseded,
                                             expired, support, depth)
    select * from unnest(v_e.o_ids, v_e.o_kind, v_e.o_held, v_e.o_was_current, v_e.o_premise, v_e.o_blocked,
                         v_e.o_holds, v_e.o_superseded, v_e.o_expired, v_e.o_support, v_e.o_depth);
    return v_e.o_rounds;
end
$$;
comment on function beliefdb.evaluate(uuid, uuid[], uuid[], boolean) is 'Compute holding and supersession for the forward closure of a change, or what rests on it by stored supports (no writes outside the working set)';

-- Evaluate the closure of a change and store the result: holding, belief status, flags on
-- decisions that lost their last support (rule 4) and holds on their actions. Beliefs whose valid
-- time ended since the last change are processed first, each as of the moment it ended
-- (beliefdb._process_expiries; rule 16). The closure is what rests on the seeds
-- by stored supports while the change only takes away, else the whole forward closure
-- (evaluate_closure, p_walk): a caller passes as seeds every node whose own standing it changed
-- (retracted, restored, new, given or losing a justification). p_factors_moved: the seeds whose
-- confidence factors the change may have moved (null: every seed); a seed whose standing alone
-- changed (a corrected belief, now superseded) need not be computed again. Returns the operation's
-- changes so far (beliefdb._changes).
create or replace function beliefdb.propagate(p_workspace_id uuid, p_seeds uuid[],
                                              p_factors_moved uuid[] default null) returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_flagged uuid[];
    v_reflagged uuid[];
    v_lost uuid[];
    v_held uuid[];
    v_revived uuid[];
    v_id uuid;
    v_settled jsonb;
    v_more uuid[] := '{}';
    v_confidence uuid[];
    v_conflict_moved uuid[];
    v_untied uuid[];
    v_tied uuid[];
begin
    -- one propagation per workspace at a time: two concurrent changes that each leave a node
    -- one of two supports must not both conclude it still holds (READ COMMITTED gives every
    -- statement after the lock a snapshot that includes the other's commit). The lock is the
    -- workspace's write lock (its audit chain's head row, beliefdb.lock_workspace), which every
    -- writer holds already, not an advisory lock: pg_locks shows an advisory lock's key to every
    -- login, and any login may take one (pg_advisory_lock is PostgreSQL's, executable by all), so
    -- another workspace's agent took this one's and every write here waited for it and failed
    perform from beliefdb.audit_head h where h.workspace_id = p_workspace_id for update;
    -- what expired since the last change, first and as of when it did (unless this is that,
    -- beliefdb._expiries_under_way)
    if not beliefdb._expiries_under_way() then
        perform beliefdb._process_expiries(p_workspace_id);
    end if;
    -- (walking stored supports: what rests on the change by another justification keeps its
    -- standing, and is neither read nor written; the whole closure when the change gives back)
    perform beliefdb.evaluate(p_workspace_id, p_seeds || beliefdb.due_to_expire(p_workspace_id), '{}', true);
    -- the planner gets the working set's size when it is large, or when the statistics say large
    -- and it is small again: index walks for small closures, not scans. Not at every propagation:
    -- an analyze changes the catalog, and every cached plan that reads the working set (three
    -- dozen statements of a correction, 5-7 ms of planning) is made again after it
    if (select count(*) from pg_temp.beliefdb_evaluation) >= 1000
       or (select c.reltuples from pg_catalog.pg_class c
            where c.oid = pg_catalog.to_regclass('pg_temp.beliefdb_evaluation')) >= 1000 then
        analyze pg_temp.beliefdb_evaluation;
    end if;

    -- what is about to change, as it was before the operation changed it
    perform beliefdb._note_changes(p_workspace_id, array(
        select e.id from pg_temp.beliefdb_evaluation e
         where (e.held, e.was_current) is distinct from (e.holds, e.holds and not e.superseded and not e.expired)));

    -- with the standing, what each node holds by (rule 2) and its rank: only the rows where one
    -- of them changes are written; a node the change did not move keeps its support and rank
    -- (beliefdb._rank_supports)
    perform beliefdb._rank_supports(p_workspace_id, p_seeds);
    update beliefdb.node n
       set holds = e.holds, current = e.holds and not e.superseded and not e.expired,
           support = case when e.holds then case when e.rank is null then n.support else e.support end end,
           support_rank = case when e.holds then coalesce(e.rank, n.support_rank) end
      from pg_temp.beliefdb_evaluation e
     where n.workspace_id = p_workspace_id and n.id = e.id
       -- named by id (= any): a join alone let the plan hash every node of the workspace at a hub
       -- (issue 21: 100,003 rows at 100k for a closure of 22,027; a million at 1M)
       and n.id = any(array(select x.id from pg_temp.beliefdb_evaluation x))
       and (n.holds, n.current, n.support, n.support_rank)
           is distinct from (e.holds, e.holds and not e.superseded and not e.expired,
                             case when e.holds then case when e.rank is null then n.support else e.support end end,
                             case when e.holds then coalesce(e.rank, n.support_rank) end);

    -- the beliefs whose status moved into or out of an open conflict: that moves their confidence
    -- (the status before: a subquery of the update reads the rows as they were when it began).
    -- The beliefs are named by id (= any): a join alone let a generic plan, guessing the workspace
    -- small, read all of its beliefs into a hash (issue 21: 55,001 rows for a closure of 8,830)
    -- (only a belief with a tie can be in an open one: those are found by two index scans, and
    -- _in_open_conflict asked of them alone, not of every belief of a hub's closure)
    v_tied := array(
        select r.from_belief
          from beliefdb.relation r
         where r.workspace_id = p_workspace_id and r.kind = 'conflicts_with'
           and r.from_belief = any(array(select e.id from pg_temp.beliefdb_evaluation e where e.kind = 'belief'))
        union
        select r.to_belief
          from beliefdb.relation r
         where r.workspace_id = p_workspace_id and r.kind = 'conflicts_with'
           and r.to_belief = any(array(select e.id from pg_temp.beliefdb_evaluation e where e.kind = 'belief')));
    with next as (
        select e.id,
               case when n.retracted_at is not null then 'retracted'
                    when e.superseded then 'superseded'
                    when not e.holds then 'unsupported'
                    when e.expired then 'expired'
                    when e.id = any(v_tied) and beliefdb._in_open_conflict(p_workspace_id, e.id) then 'conflicting'
                    else 'current'
               end::beliefdb.belief_status as status
          from pg_temp.beliefdb_evaluation e
          join beliefdb.node n on n.workspace_id = p_workspace_id and n.id = e.id
         where e.kind = 'belief'
    ),
    moved as (
        update beliefdb.belief b
           set status = next.status, revision = b.revision + 1
          from next
         where b.workspace_id = p_workspace_id and b.id = next.id
           and b.id = any(array(select e.id from pg_temp.beliefdb_evaluation e where e.kind = 'belief'))
           -- (quarantined is a repair's retraction: kept while the retraction stands, and what the rules
           -- say once its owner restores the memory)
           and b.status <> next.status and not (b.status = 'quarantined' and next.status = 'retracted')
        returning b.id, next.status,
                  (select was.status from beliefdb.belief was
                    where was.workspace_id = b.workspace_id and was.id = b.id) as was
    )
    select coalesce(array_agg(m.id) filter (where 'conflicting' in (m.was, m.status)), '{}'),
           coalesce(array_agg(m.id) filter (where m.was = 'conflicting' and m.status = 'current'), '{}')
      into v_conflict_moved, v_untied
      from moved m;

    -- rule 4: a decision is flagged only when it no longer holds, not when a support changed.
    -- A write that changes nothing still costs its statement triggers (audit, adjacency: about a
    -- millisecond each): the writes below run only when there is something to write.
    -- An approved decision is flagged again when it loses its last support again: a person approved it
    -- once (unsupported then, or on its own), and it has held since (its support came back).
    v_flagged := '{}';
    v_reflagged := '{}';
    if exists (select from pg_temp.beliefdb_evaluation e where e.kind = 'decision' and not e.holds) then
    -- (the decisions named by id, = any, here and below: joined, the plan read every decision of the
    -- workspace, with no statistics on workspace_id)
    v_lost := array(select e.id from pg_temp.beliefdb_evaluation e where e.kind = 'decision' and not e.holds);
    v_reflagged := array(
        select d.id
          from pg_temp.beliefdb_evaluation e
          join beliefdb.decision d on d.workspace_id = p_workspace_id and d.id = e.id
         where e.kind = 'decision' and not e.holds and e.held and d.status = 'approved'
           and d.id = any(v_lost));
    with flagged as (
        update beliefdb.decision d
           set status = 'needs_review', revision = d.revision + 1
         where d.workspace_id = p_workspace_id and d.id = any(v_lost)
           and (d.status = 'active' or d.id = any(v_reflagged))
        returning d.id
    )
    select coalesce(array_agg(id), '{}') into v_flagged from flagged;
    end if;
    if cardinality(v_flagged) > 0 then
        -- a flagged decision was active, or approved (its standing, unless noted above, did not change)
        perform beliefdb._note_review(p_workspace_id, array(select x from unnest(v_flagged) x where x <> all(v_reflagged)),
                                      'active', 'decision_flagged', 'the decision lost its last remaining support');
        perform beliefdb._note_review(p_workspace_id, v_reflagged, 'approved', 'decision_flagged',
                                      'the decision lost its last remaining support again, after it was approved');
    end if;

    -- actions of the decisions in the closure (and actions in it) whose decision needs review: found
    -- first (a read), written only when there are any
    -- (the candidates named by id, = any: as a join or `in`, the plan began from the workspace's
    -- decisions needing review, with no statistics on workspace_id, and read all 15,000 decisions of
    -- the 100k benchmark at every correction; each decision's actions by its key: joined, the plan
    -- read every action of the workspace for a few hundred decisions, 45-100 ms at 150,000 actions);
    -- each action's decision by its key, a subquery: joined, a plan made without statistics (a
    -- fresh workspace) probed the decisions needing review for each action, and read them all each
    -- time (83,000 rows for the 450 decisions of a 3,000-node graph)
    v_held := array(
        select a.id
          from beliefdb.action a
         where a.workspace_id = p_workspace_id
           and (select d.status from beliefdb.decision d
                 where d.workspace_id = a.workspace_id and d.id = a.decision_id) = 'needs_review'
           and a.status = 'scheduled'
           and a.id = any(array(select e.id from pg_temp.beliefdb_evaluation e where e.kind = 'action'
                                union all
                                select unnest(array(select a2.id from beliefdb.action a2
                                                     where a2.workspace_id = p_workspace_id
                                                       and a2.decision_id = e.id))
                                  from pg_temp.beliefdb_evaluation e
                                 where e.kind = 'decision'))
           -- a person who released this action has decided; only a new flag may hold it again
           and (a.decision_id = any(v_reflagged)
                or not exists (select from beliefdb.review_item r
                                where r.workspace_id = a.workspace_id and r.kind = 'action_held' and r.node = a.id
                                  and r.status = 'approved')));
    if cardinality(v_held) > 0 then
        with held as (
            update beliefdb.action a
               set status = 'held'
             where a.workspace_id = p_workspace_id and a.id = any(v_held) and a.status = 'scheduled'
            returning a.id
        )
        select coalesce(array_agg(id), '{}') into v_held from held;
        -- a held action was scheduled (its standing, unless noted above, did not change)
        perform beliefdb._note_review(p_workspace_id, v_held, 'scheduled', 'action_held', 'its decision needs review');
    end if;

    -- support changed, so confidence may have: the same factors why() shows (rule 9 of
    -- docs/rules.md). Standing is not one of them, so the first round computes only the beliefs
    -- whose factors the change can have moved: the seeds (a new belief, new evidence), unless the
    -- caller names fewer, the beliefs such a seed fragment is evidence for (their source retracted
    -- or restored) and those that entered or left an open conflict. The rest of the
    -- closure would come out as stored: a hub's closure is thousands of beliefs that stop or start
    -- holding, none of whose factors moved. What time alone moves (recency) is decay's to store.
    -- A derived belief reads what it is derived from as stored, so the beliefs derived from those
    -- whose confidence moved are computed too, each once, after what it derives from
    -- (beliefdb._propagate_confidence). A retraction's preview reads none of it
    -- (beliefdb._standing_preview), and skips it.
    v_confidence := case when beliefdb._standing_preview() then '{}' else array(
        select e.id
          from pg_temp.beliefdb_evaluation e
         where e.kind = 'belief' and e.id = any(coalesce(p_factors_moved, p_seeds) || v_conflict_moved)
        union
        -- one index scan for the seed fragments (= any; a seed belief may be a hub, whose edges out
        -- are not evidence): a join to them could, in a generic plan that guesses a workspace
        -- small, hash the whole workspace's edges (issue 21: 300 ms at 100k nodes)
        select a.consequent
          from beliefdb.justification_antecedent a
          join pg_temp.beliefdb_evaluation e on e.id = a.consequent and e.kind = 'belief'
         where a.workspace_id = p_workspace_id and a.edge_kind = 'evidence'
           and a.antecedent = any(array(select f.id from pg_temp.beliefdb_evaluation f
                                         where f.id = any(coalesce(p_factors_moved, p_seeds))
                                           and f.kind = 'fragment'))
        union
        -- an agent's memory a step whose standing changed wrote (or any step resting on it): the memory
        -- weight counts only while such a step holds (confidence_factors), whether or not the memory
        -- holds on by another reason. Read from the steps of the evaluation whose standing changed (a
        -- correction's closure has none)
        select a.consequent
          from beliefdb.justification_antecedent a
          join beliefdb.belief b on b.workspace_id = a.workspace_id and b.id = a.consequent
         where a.workspace_id = p_workspace_id and b.confidence_kind = 'agent_asserted'
           and a.antecedent = any(array(select s.id from pg_temp.beliefdb_evaluation s
                                         where s.kind = 'step' and s.held is distinct from s.holds))) end;
    perform beliefdb._propagate_confidence(p_workspace_id, v_confidence);

    -- the review items about what this evaluation reached (before a nested one replaces it), when
    -- an open one is about a belief of it
    if exists (select from beliefdb.review_item r
                where r.workspace_id = p_workspace_id and r.status = 'open'
                  and r.kind in ('conflict', 'correction_proposed')
                  and r.node = any(array(select e.id from pg_temp.beliefdb_evaluation e where e.kind = 'belief'))) then
        perform beliefdb._settle_review_items(p_workspace_id);
    end if;

    -- a belief that is current again (what superseded it stopped holding) meets its rivals under
    -- rule 8 like a new one; what that settles is propagated in turn (supersession only grows,
    -- so this ends). So does one whose open conflicts closed (v_untied), after those: one that
    -- lost to another principal's rival settled nothing else then (rule 8), and the rivals it left
    -- are still to settle; one that only tied settled them all already and meets none again. After
    -- them, so that a belief current again loses to each rival that beats it before any of those
    -- rivals, met again, settles it alone (a status can move out of a conflict and back within
    -- one change)
    v_revived := array(select e.id from pg_temp.beliefdb_evaluation e
                        where e.kind = 'belief' and not e.was_current and e.holds and not e.superseded
                          and not e.expired);
    v_revived := v_revived || array(select u from unnest(v_untied) u where u <> all(v_revived));
    foreach v_id in array v_revived loop
        v_settled := beliefdb._settle(p_workspace_id, v_id);
        v_more := v_more
            || array(select (x ->> 'old')::uuid from jsonb_array_elements(v_settled -> 'superseded') x)
            || array(select (x ->> 'new')::uuid from jsonb_array_elements(v_settled -> 'superseded') x)
            || array(select (x ->> 'b')::uuid from jsonb_array_elements(v_settled -> 'conflicts') x)
            -- the revived belief too when it opened a conflict: rule 8 marked it conflicting
            -- before the nested propagation, so only as a seed is its confidence computed again
            || array(select (x ->> 'a')::uuid from jsonb_array_elements(v_settled -> 'conflicts') x);
    end loop;
    if cardinality(v_more) > 0 then
        perform beliefdb.propagate(p_workspace_id, v_more);
    end if;
    return beliefdb._changes(p_workspace_id);
end
$$;
comment on function beliefdb.propagate(uuid, uuid[], uuid[]) is 'Recompute and store holding for what a change moves (what rests on it by stored supports, or its whole forward closure); flag decisions that lost their last support and hold their actions; returns the operation''s changes (jsonb: the report the internals build on; the API returns beliefdb.changes)';

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
                                    retracted, related, support, into_decision)
    select n.workspace_id, n.id, 'self'::beliefdb.adjacency_entry, n.id, null::uuid, null::integer, n.kind, n.holds,
           n.current, n.retracted_at is not null, r.id is not null, null::boolean, null::boolean
      from beliefdb.node n
      -- the beliefs a supersession or a tie involves (see is_related)
      left join (select distinct e.id
                   from beliefdb.relation r
                  cross join lateral (values (r.from_belief), (r.to_belief)) as e (id)
                  where r.workspace_id = p_workspace_id and r.kind in ('supersedes', 'conflicts_with')
                    and r.ended_at is null) r
        on r.id = n.id
     where n.workspace_id = p_workspace_id
    union all
    select a.workspace_id, a.antecedent, 'out', a.justification_id, a.consequent, null, l.kind, l.holds, l.current,
           l.retracted, null, case when c.support = a.justification_id then true end, c.kind = 'decision'
      from beliefdb.justification_antecedent a
      -- whether the edge carries its consequent's support, and whether that is a decision
      join beliefdb.node c on c.workspace_id = a.workspace_id and c.id = a.consequent
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
    select j.workspace_id, j.consequent, 'in', j.id, null, j.unmet, null, null, null, null, null, null, null
      from beliefdb.justification j
     where j.workspace_id = p_workspace_id
    -- in index order: the index fills its pages as a fresh build would
    order by 1, 2, 3, 4;
    get diagnostics v_rows = row_count;
    return v_rows;
end
$$;
comment on function beliefdb.rebuild_adjacency(uuid) is 'Rewrite a workspace''s beliefdb.adjacency from the tables it repeats';

-- Rewrite a workspace's stored supports from its stored holding (after a bulk load, or to repair
-- them): level by level from the premises, a node that holds takes the first (by id) of its
-- justifications whose antecedents are all current and ranked at an earlier level, with a rank
-- above theirs (rule 2 of docs/rules.md: the holding is the least fixpoint, so every node that
-- holds gets one); then the out rows of beliefdb.adjacency that carry a support say so. The same
-- rule as revision 0022's backfill. Returns how many levels it took.
create or replace function beliefdb.rebuild_supports(p_workspace_id uuid) returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_level integer := 0;
    v_rows bigint;
begin
    update beliefdb.node n
       set support = null,
           support_rank = case
               when n.holds and (n.kind in ('fragment', 'correction')
                                 or (n.kind = 'step'
                                     and (exists (select from beliefdb.step s
                                                   where s.workspace_id = n.workspace_id and s.id = n.id
                                                     and s.kind = 'user_input')
                                          or not exists (select from beliefdb.justification j
                                                          where j.workspace_id = n.workspace_id
                                                            and j.consequent = n.id)))) then 0 end
     where n.workspace_id = p_workspace_id;
    loop
        v_level := v_level + 1;
        update beliefdb.node n
           set support = c.id, support_rank = v_level
          from (select distinct on (j.consequent) j.consequent, j.id
                  from beliefdb.justification j
                  join beliefdb.node t on t.workspace_id = j.workspace_id and t.id = j.consequent
                 where j.workspace_id = p_workspace_id and t.holds and t.support_rank is null
                   and not exists (select from beliefdb.justification_antecedent a
                                     join beliefdb.node m on m.workspace_id = a.workspace_id and m.id = a.antecedent
                                    where a.workspace_id = j.workspace_id and a.justification_id = j.id
                                      and not (m.current and m.support_rank is not null and m.support_rank < v_level))
                 order by j.consequent, j.id) c
         where n.workspace_id = p_workspace_id and n.id = c.consequent;
        get diagnostics v_rows = row_count;
        exit when v_rows = 0;
    end loop;
    update beliefdb.adjacency x
       set support = s.support
      from (select a.workspace_id, a.antecedent, a.justification_id,
                   case when c.support = a.justification_id then true end as support
              from beliefdb.justification_antecedent a
              join beliefdb.node c on c.workspace_id = a.workspace_id and c.id = a.consequent
             where a.workspace_id = p_workspace_id) s
     where x.workspace_id = s.workspace_id and x.node = s.antecedent and x.entry = 'out'
       and x.justification = s.justification_id and x.support is distinct from s.support;
    return v_level - 1;
end
$$;
comment on function beliefdb.rebuild_supports(uuid) is 'Rewrite a workspace''s stored supports (node.support, support_rank, adjacency.support) from its stored holding';

-- decision.reasons lists each justification of a decision with its antecedents. Recomputed for
-- the given decisions of a workspace from the edges (ids that are not decisions are skipped);
-- returns how many rows changed. A DBA can call it for a whole workspace after a bulk load with
-- triggers off.
create or replace function beliefdb.refresh_decision_reasons(p_workspace_id uuid, p_decisions uuid[]) returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
-- the read goes from each decision by its key, whatever the array holds: planned once per session,
-- not for every new edge (0.8 ms of each correction's apply, whose edge is into a belief). The
-- write is planned for its arrays (execute): a generic plan rescanned the unnest for every decision
set plan_cache_mode = force_generic_plan
as $$
declare
    v_ids uuid[];
    v_reasons jsonb[];
begin
    -- what changes is found first (a read) and written only when there is any: the trigger on
    -- justification_antecedent calls this for every new edge, most of them into beliefs, and an
    -- update that changes nothing still costs decision's statement triggers
    select array_agg(r.id), array_agg(r.reasons)
      into v_ids, v_reasons
      from (select d2.id, d2.reasons as was,
                   coalesce(jsonb_object_agg(j.id, a.antecedents) filter (where a.antecedents is not null), '{}')
                       as reasons
              from beliefdb.decision d2
              left join beliefdb.justification j on j.workspace_id = d2.workspace_id and j.consequent = d2.id
              left join lateral (
                    select jsonb_agg(x.antecedent order by x.antecedent) as antecedents
                      from beliefdb.justification_antecedent x
                     where x.workspace_id = j.workspace_id and x.justification_id = j.id) a on true
             where d2.workspace_id = p_workspace_id and d2.id = any(p_decisions)
             group by d2.id, d2.reasons) r
     where r.was is distinct from r.reasons;
    if v_ids is null then
        return 0;
    end if;
    execute 'update beliefdb.decision d
                set reasons = u.reasons
               from unnest($2, $3) as u (id, reasons)
              where d.workspace_id = $1 and d.id = u.id and d.id = any($2)'
      using p_workspace_id, v_ids, v_reasons;
    return cardinality(v_ids);
end
$$;
comment on function beliefdb.refresh_decision_reasons(uuid, uuid[]) is 'Recompute decision.reasons of these decisions from their justifications';

-- Make sure a dimension has the vector index its size calls for. Under 20,000 vectors: HNSW (built
-- empty, kept up by every insert). From 20,000 on: IVFFlat over halfvec with one list per 100
-- vectors (at most 2,000), trained on the vectors stored; rebuilt when the store has grown 4 times
-- past what its lists were made for (vectors added later go to the nearest existing list, which
-- then grows), or when the index is over full vectors (built before halfvec). An
-- HNSW graph over many near-duplicates misses what exact search finds (recall@10 0.57 at 100k with
-- ef_search 400; IVFFlat 0.97, in less time). pgvector's HNSW takes vectors of at most 2,000
-- dimensions: a larger dimension has no index (exact search) until IVFFlat over halfvec (at most
-- 4,000); one over 4,000 never has one, and is refused (BD005). One call a dimension at a time (a transaction-level advisory lock): two at once would
-- build twice. True when it created or rebuilt an index.
create or replace function beliefdb.ensure_vector_index(p_dim integer) returns boolean
language plpgsql security definer
-- pg_catalog, pgvector's schema, pg_temp (schema/02_extensions.sql): the index names its type,
-- operator class and vector_dims wherever the extension is installed
set search_path from current
as $$
declare
    v_rows bigint;
    v_lists integer;
    v_have integer;
begin
    if p_dim is null or p_dim < 1 or p_dim > 16000 then
        raise exception 'invalid embedding dimension %', p_dim using errcode = 'BD005';
    end if;
    -- a dimension no index of pgvector takes, whatever its number of vectors (it returned false under
    -- 20,000, as if its index were there, and failed from then on)
    if p_dim > 4000 then
        raise exception 'embedding dimension % has no vector index: pgvector indexes at most 4,000 dimensions '
                        '(IVFFlat over halfvec; HNSW at most 2,000)', p_dim
            using errcode = 'BD005',
                  hint = 'its searches stay exact (they read every vector of the workspace''s model); a model of '
                         '4,000 dimensions or fewer can be indexed';
    end if;
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('beliefdb.ensure_vector_index', p_dim));
    execute 'select count(*) from beliefdb.belief_embedding where vector_dims(embedding) = $1'
       into v_rows using p_dim;
    if v_rows < 20000 then
        if to_regclass(pg_catalog.format('beliefdb.belief_embedding_hnsw_%s', p_dim)) is not null
           or to_regclass(pg_catalog.format('beliefdb.belief_embedding_ivf_%s', p_dim)) is not null
           or p_dim > 2000 then
            return false;
        end if;
        execute pg_catalog.format(
            'create index %I on beliefdb.belief_embedding using hnsw ((embedding::vector(%s)) '
            'vector_cosine_ops) where vector_dims(embedding) = %s',
            'belief_embedding_hnsw_' || p_dim, p_dim, p_dim);
        return true;
    end if;
    v_lists := least(v_rows / 100, 2000)::integer;
    -- null too for an IVFFlat index over full vectors (before halfvec): rebuilt
    v_have := beliefdb._halfvec_lists(p_dim);
    if v_have is not null and v_have * 4 > v_lists then
        return false;
    end if;
    perform beliefdb._build_vector_index(p_dim, v_lists);
    return true;
end
$$;
comment on function beliefdb.ensure_vector_index(integer) is 'Create or rebuild the vector index a dimension''s size calls for: HNSW under 20,000 vectors, IVFFlat over halfvec from then on (owner rights); BD005 for a dimension over 4,000, which no index takes';
