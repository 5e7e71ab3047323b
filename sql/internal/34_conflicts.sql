-- beliefdb: conflicts settled by rule (docs/rules.md, rule 8).
-- Rivals (one world, the same subject, attribute and scope, another value, overlapping valid
-- times) are ranked by authority, then by the later start of valid time or, when either has none,
-- the later recorded source version (a turn appended to a conversation: when it was appended; in one
-- conversation version, the later turn). The loser is superseded when the acting principal owns it;
-- otherwise, and on a tie, both are in conflict for a person to settle from the review queue.

-- What rule 8 ranks a belief by: its strongest source, its valid-time start, when its latest quote
-- was recorded (its version's moment; in a conversation, its turn's), and in a conversation its
-- latest turn there (the version and the turn's offset), all of the quotes that still support it
-- (beliefdb.supporting_quotes).
-- (plpgsql, not sql: the body reads beliefdb.supporting_quotes, which api/48_confidence.sql makes
-- after this file, and a language sql body is checked when it is created)
-- (its result has changed: an earlier one is dropped, this one kept, so that it keeps its grants)
do $$
begin
    if pg_catalog.pg_get_function_result(pg_catalog.to_regprocedure('beliefdb._belief_rank(uuid,uuid)'))
       is distinct from 'TABLE(authority beliefdb.authority, valid_from timestamp with time zone, recorded timestamp'
                        ' with time zone, turn_version uuid, turn_at integer)' then
        drop function if exists beliefdb._belief_rank(uuid, uuid);
    end if;
end
$$;
create or replace function beliefdb._belief_rank(p_workspace_id uuid, p_belief_id uuid)
returns table (authority beliefdb.authority, valid_from timestamptz, recorded timestamptz,
               turn_version uuid, turn_at integer)
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    return query
    select max(q.authority), lower(b.valid_time), max(q.recorded),
           (array_agg(q.version_id order by q.recorded desc, q.start_offset desc)
                filter (where q.speaker is not null))[1],
           (array_agg(q.start_offset order by q.recorded desc, q.start_offset desc)
                filter (where q.speaker is not null))[1]
      from beliefdb.belief b
      left join lateral (
            select q.authority, q.version_id, q.start_offset, q.speaker,
                   -- when the quoted text was recorded: a document's with its version; a conversation's
                   -- with its turn (the turn that quote lies in: the turn fragment at or before its
                   -- start), since its version grows in place by turns appended later (rule 18)
                   case when q.origin_type = 'conversation' then
                            coalesce((select tn.created_at
                                        from beliefdb.fragment t
                                        join beliefdb.node tn on tn.workspace_id = t.workspace_id and tn.id = t.id
                                       where t.workspace_id = b.workspace_id and t.source_version_id = q.version_id
                                         and t.start_offset <= q.start_offset and t.speaker is not null
                                       order by t.start_offset desc
                                       limit 1), q.version_recorded_at)
                        else q.version_recorded_at end as recorded
              from beliefdb.supporting_quotes(b.workspace_id, b.id) q
      ) q on true
     where b.workspace_id = p_workspace_id and b.id = p_belief_id
     group by b.valid_time;
end
$$;
comment on function beliefdb._belief_rank(uuid, uuid) is 'Rule 8 rank of a belief by the quotes that still support it: authority, valid-time start, when the latest was recorded, latest turn there';

-- Rule 8: 1 if belief a beats b, -1 if b beats a, 0 for a tie.
-- Higher authority wins; then the later valid-time start; when either has none, the later
-- recorded source version, and in the same conversation version the later turn (a transcript
-- without times still says which was said first). Equal on all counts is a tie, never a coin toss.
create or replace function beliefdb._compare_beliefs(p_workspace_id uuid, p_a uuid, p_b uuid) returns integer
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select case
        when a.authority is distinct from b.authority then
            case when coalesce(a.authority > b.authority, a.authority is not null) then 1 else -1 end
        when a.valid_from is not null and b.valid_from is not null then sign(extract(epoch from a.valid_from - b.valid_from))::integer
        when a.recorded is distinct from b.recorded then
            case when coalesce(a.recorded > b.recorded, a.recorded is not null) then 1 else -1 end
        when a.turn_version = b.turn_version and a.turn_at <> b.turn_at then sign(a.turn_at - b.turn_at)::integer
        else 0
    end
      from beliefdb._belief_rank(p_workspace_id, p_a) a, beliefdb._belief_rank(p_workspace_id, p_b) b
$$;
comment on function beliefdb._compare_beliefs(uuid, uuid, uuid) is 'Rule 8 comparison of two beliefs: 1 a wins, -1 b wins, 0 tie';

-- Rivals of a belief: current beliefs of its world (rule 15) on the same subject, attribute and
-- scope, with another value, whose valid times overlap.
create or replace function beliefdb._rivals(p_workspace_id uuid, p_belief_id uuid) returns setof uuid
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select r.id
      from beliefdb.belief b
      join beliefdb.belief r
        on r.workspace_id = b.workspace_id and r.subject = b.subject and r.attribute = b.attribute
       and r.scope = b.scope and r.value <> b.value and r.valid_time && b.valid_time
       and r.provenance = b.provenance
       and r.status in ('current', 'conflicting') and r.id <> b.id
       and (upper_inf(r.valid_time) or upper(r.valid_time) > beliefdb.clock())
     where b.workspace_id = p_workspace_id and b.id = p_belief_id
     order by r.recorded_at, r.id
$$;
comment on function beliefdb._rivals(uuid, uuid) is 'Current beliefs of the same world that contradict a belief: same subject, attribute, scope; other value; overlapping valid time, not ended';

-- Record that a winner supersedes a loser (rule 8, or a person settling a tie). A supersession into
-- the winner whose superseder no longer holds decides nothing now (rule 3); when the loser
-- influences that superseder, keeping it would close a cycle with the new one (a source gone back to
-- a value after another source took over: 30 -> 60, then 90 elsewhere, then 30 again), so it ends
-- first and stays as history. Anything else that closes a cycle is refused as before
-- (beliefdb.supersession_is_acyclic).
create or replace function beliefdb._supersede(p_workspace_id uuid, p_winner uuid, p_loser uuid, p_reason text)
returns void
language plpgsql
set search_path = pg_catalog, pg_temp
-- (planned once per session, often while relation is empty: the supersessions into the winner were
-- read by relation_in_effect, whose key has to_belief second, every relation in effect of the
-- workspace for each supersession recorded, 0.7 ms each at 4,000. They are found by
-- relation_to_belief, ended_at is null tested outside offset 0 so that the partial
-- relation_in_effect is no candidate, and ended by their primary key)
set enable_seqscan = off
as $$
declare
    v_ended uuid[];
begin
    v_ended := array(select r.id
                       from (select r.id, r.from_belief, r.ended_at
                               from beliefdb.relation r
                              where r.workspace_id = p_workspace_id and r.to_belief = p_winner
                                and r.kind = 'supersedes'
                             offset 0) r
                      where r.ended_at is null
                        and not exists (select from beliefdb.node n
                                         where n.workspace_id = p_workspace_id and n.id = r.from_belief and n.holds)
                        and beliefdb._influenced_by(p_workspace_id, r.from_belief, p_loser));
    if cardinality(v_ended) > 0 then
        update beliefdb.relation r
           set ended_at = beliefdb.clock()
         where r.workspace_id = p_workspace_id and r.id = any(v_ended);
    end if;
    insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind, reason)
    values (p_workspace_id, p_winner, p_loser, 'supersedes', p_reason);
end
$$;
comment on function beliefdb._supersede(uuid, uuid, uuid, text) is 'Record a supersession, first ending the ones into the winner that no longer hold and would close a cycle with it';

-- Settle a new belief against its rivals by rule 8, oldest first. Returns {"superseded": [{old,new}],
-- "conflicts": [{a,b,reason}]}. The loser is superseded only when the acting principal owns it; a
-- rival owned by someone else is not overruled but put in conflict, for its owner to settle from
-- the review queue. A belief that any rival beats, whoever owns it, is superseded by (or, another
-- principal's, in conflict with) each rival that beats it and settles nothing else: what it loses
-- to, beats or ties never depends on the order of rivals recorded together (two values of one new
-- version that both beat a belief back in force are ordered by their random ids; a weaker rival met
-- before the loss would be superseded by a belief that is about to lose), and a belief that loses
-- supersedes nothing in the same settling (another principal's, once its owner lets the winner
-- supersede it, would leave the rival it beat superseded by a belief that lost).
create or replace function beliefdb._settle(p_workspace_id uuid, p_belief_id uuid) returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_rivals uuid[];
    v_cmps integer[];
    v_rival uuid;
    v_cmp integer;
    v_loser uuid;
    v_owner text;
    v_reason text;
    v_lost boolean;
    v_i integer;
    v_superseded jsonb := '[]';
    v_conflicts jsonb := '[]';
begin
    -- only a belief that is current can win or tie (it may have just lost to one settled before
    -- it, or its valid time may have ended: rule 16)
    if not exists (select from beliefdb.belief b
                    where b.workspace_id = p_workspace_id and b.id = p_belief_id
                      and b.status in ('current', 'conflicting')
                      and (upper_inf(b.valid_time) or upper(b.valid_time) > beliefdb.clock())) then
        return jsonb_build_object('superseded', v_superseded, 'conflicts', v_conflicts);
    end if;
    select coalesce(array_agg(r.rival order by r.n), '{}'),
           coalesce(array_agg(beliefdb._compare_beliefs(p_workspace_id, p_belief_id, r.rival) order by r.n), '{}')
      into v_rivals, v_cmps
      from beliefdb._rivals(p_workspace_id, p_belief_id) with ordinality r(rival, n);
    -- a belief that any rival beats loses to each of them (or, another principal's, is in conflict
    -- with each) and settles nothing else: which rivals it beat or tied must not depend on the order
    -- they are met in
    v_lost := -1 = any(v_cmps);
    for v_i in 1 .. coalesce(array_length(v_rivals, 1), 0) loop
        v_rival := v_rivals[v_i];
        v_cmp := v_cmps[v_i];
        continue when v_lost and v_cmp >= 0;
        v_loser := case when v_cmp > 0 then v_rival when v_cmp < 0 then p_belief_id end;
        select b.owner into v_owner from beliefdb.belief b where b.workspace_id = p_workspace_id and b.id = v_loser;
        if v_loser is not null and v_owner = beliefdb.current_principal() then
            perform beliefdb._supersede(p_workspace_id, case when v_cmp > 0 then p_belief_id else v_rival end, v_loser,
                    case when v_cmp > 0 then 'rule 8: stronger or more recent'
                         else 'rule 8: rival is stronger or more recent' end);
            update beliefdb.belief set status = 'superseded', revision = revision + 1
             where workspace_id = p_workspace_id and id = v_loser and status <> 'superseded';
            v_superseded := v_superseded || jsonb_build_object(
                'old', v_loser, 'new', case when v_cmp > 0 then p_belief_id else v_rival end);
        else
            v_reason := case when v_loser is null then 'equal authority and recency: a person must choose (rule 8)'
                             else pg_catalog.format('rule 8 prefers %s, but %s belongs to %s, who must choose',
                                                    case when v_cmp > 0 then p_belief_id else v_rival end,
                                                    v_loser, v_owner) end;
            -- a conflict opens once; settling the same pair again (a side back in force, new evidence)
            -- only asks the question again if it is not open
            if exists (select from beliefdb.relation r
                        where r.workspace_id = p_workspace_id and r.kind = 'conflicts_with'
                          and (r.from_belief, r.to_belief) in ((p_belief_id, v_rival), (v_rival, p_belief_id))) then
                insert into beliefdb.review_item (workspace_id, kind, node, other_node, reason)
                select p_workspace_id, 'conflict', p_belief_id, v_rival, v_reason || ', in conflict again'
                 where not exists (select from beliefdb.review_item i
                                    where i.workspace_id = p_workspace_id and i.kind = 'conflict' and i.status = 'open'
                                      and (i.node, i.other_node) in ((p_belief_id, v_rival), (v_rival, p_belief_id)))
                on conflict do nothing;
                continue;
            end if;
            insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind, reason)
            values (p_workspace_id, p_belief_id, v_rival, 'conflicts_with',
                    case when v_loser is null then 'rule 8: equal authority and recency'
                         else 'rule 8: the loser has another owner' end);
            update beliefdb.belief set status = 'conflicting', revision = revision + 1
             where workspace_id = p_workspace_id and id in (p_belief_id, v_rival) and status <> 'conflicting';
            insert into beliefdb.review_item (workspace_id, kind, node, other_node, reason)
            values (p_workspace_id, 'conflict', p_belief_id, v_rival, v_reason)
            on conflict do nothing;
            v_conflicts := v_conflicts || jsonb_build_object('a', p_belief_id, 'b', v_rival, 'reason', v_reason);
        end if;
    end loop;
    return jsonb_build_object('superseded', v_superseded, 'conflicts', v_conflicts);
end
$$;
comment on function beliefdb._settle(uuid, uuid) is 'Apply rule 8 between a belief and its rivals: supersede the loser, or mark a tie conflicting';
