-- beliefdb: the audit chain (docs/rules.md, rule 12): its hashes, the workspace's write lock, and
-- verification. Events are appended only by beliefdb's own changes (internal/28_audit.sql).
-- Every change appends an event to its workspace's SHA-256 hash chain (internal/28_audit.sql). The
-- chain links hashes of payloads, so forgetting may redact a payload and the chain still verifies.

-- Hash of an event payload (jsonb text is canonical: keys sorted, whitespace fixed).
create or replace function beliefdb.audit_payload_hash(p_payload jsonb) returns bytea
language sql immutable strict
set search_path = pg_catalog, pg_temp
as $$
    select sha256(convert_to(p_payload::text, 'UTF8'))
$$;
comment on function beliefdb.audit_payload_hash(jsonb) is 'SHA-256 of an audit payload''s canonical jsonb text';

-- Hash of one link: previous hash, then every field of the event, then the payload hash.
create or replace function beliefdb.audit_link_hash(
    p_prev_hash bytea, p_workspace_id uuid, p_seq bigint, p_at timestamptz,
    p_principal text, p_action text, p_payload_hash bytea
) returns bytea
language sql immutable strict
set search_path = pg_catalog, pg_temp
as $$
    select sha256(
        p_prev_hash
        || convert_to(concat_ws(E'\x1f', p_workspace_id::text, p_seq::text,
                                ((extract(epoch from p_at) * 1000000)::bigint)::text,
                                p_principal, p_action), 'UTF8')
        || p_payload_hash)
$$;
comment on function beliefdb.audit_link_hash(bytea, uuid, bigint, timestamptz, text, text, bytea) is 'SHA-256 of one audit link';

-- What a belief says, hashed: its statement, subject, attribute, value, kind, scope, valid time (its
-- bounds as epoch seconds, so the session's time zone does not matter) and world, joined by 0x1f.
-- Stored in belief.sha256 when the belief is stored and never changed: beliefdb never changes what a
-- belief says (a correction is a new belief), so audit_verify compares the two and finds a belief
-- changed by hand, with the audit triggers on or off (the trigger: internal/20_integrity.sql). The
-- revision that added belief.sha256 wrote it out to fill the beliefs stored before: changing it here
-- would make every stored belief look changed.
create or replace function beliefdb.belief_sha256(
    p_statement text, p_subject text, p_attribute text, p_value text, p_kind text, p_scope jsonb,
    p_valid_time tstzrange, p_provenance beliefdb.provenance
) returns bytea
language sql stable
-- (no search_path of its own, every name qualified: a function that sets one is never inlined, and
-- audit_verify, which hashes every belief, took three times as long calling it row by row)
as $$
    select pg_catalog.sha256(pg_catalog.convert_to(pg_catalog.concat_ws(E'\x1f',
        p_statement, p_subject, p_attribute, p_value, p_kind, p_scope::text,
        pg_catalog.concat(case when pg_catalog.isempty(p_valid_time) then 'empty' end,
                          case when pg_catalog.lower_inc(p_valid_time) then '[' else '(' end,
                          extract(epoch from pg_catalog.lower(p_valid_time)), ',',
                          extract(epoch from pg_catalog.upper(p_valid_time)),
                          case when pg_catalog.upper_inc(p_valid_time) then ']' else ')' end),
        p_provenance::text), 'UTF8'))
$$;
comment on function beliefdb.belief_sha256(text, text, text, text, text, jsonb, tstzrange, beliefdb.provenance) is 'SHA-256 of what a belief says (statement, subject, attribute, value, kind, scope, valid time, world): belief.sha256, which audit_verify compares';

-- The hash a chain starts from.
create or replace function beliefdb.audit_genesis() returns bytea
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select decode(repeat('00', 32), 'hex')
$$;
comment on function beliefdb.audit_genesis() is 'The 32 zero bytes every chain starts from';

-- Take the workspace's write lock (its audit head row) before anything else. Every change
-- appends to the chain, so writers in a workspace serialize on this row anyway; taking it first
-- keeps one lock order (head, then propagation, then rows) and so no deadlock. What expired since
-- the last change is processed here, first, as a change of its own (beliefdb._expire_due): every
-- writer takes the lock before it reads what it checks, so none checks, repeats or dates anything
-- against the state before an expiry that a reader at that moment saw processed (rule 16).
create or replace function beliefdb.lock_workspace() returns void
language plpgsql security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    perform beliefdb._lock_workspace();
end
$$;
comment on function beliefdb.lock_workspace() is 'Take the bound workspace''s write lock first (one lock order for every writer), date what the transaction writes from then, and process what expired; BD003 when none is bound';

-- Verify a workspace's chain; first_broken is the first event whose link does not hold, and problem
-- says what is wrong there, in words (which event, and whether its payload, its link or the end of the
-- chain was touched). It also checks what the beliefs rest on against what beliefdb stored (a belief
-- that no longer says what it said, evidence deleted or changed alone, a version's text that no longer
-- hashes to its sha256, a node or the row of its kind deleted without the other, evidence of a belief
-- that is gone): a hand-written statement leaves those with links that all hold. It reads the chain as the caller: a chain the session cannot see (another
-- workspace's, which row-level security hides from the application role, or one of no workspace: for
-- the DBA, who sees every chain, one deleted) is refused, not verified as an empty one, and so is the bound workspace's when none is bound (BD003, as
-- lock_workspace). Null is the bound workspace, as the default (an agent's login is bound whatever it
-- sets: it said no workspace was bound).
-- (before problem, its result had three columns: a result of another type cannot be replaced in place)
do $$
begin
    if pg_catalog.to_regprocedure('beliefdb.audit_verify(uuid)') is not null
       and not exists (select from pg_catalog.pg_proc p
                        where p.oid = pg_catalog.to_regprocedure('beliefdb.audit_verify(uuid)')
                          and 'problem' = any(p.proargnames)) then
        drop function beliefdb.audit_verify(uuid);
    end if;
end
$$;

create or replace function beliefdb.audit_verify(p_workspace_id uuid default beliefdb.current_workspace_id())
returns table (ok boolean, events bigint, first_broken bigint, problem text)
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := coalesce(p_workspace_id, beliefdb.current_workspace_id());
begin
    if v_ws is null then
        raise exception 'no workspace is bound to this session' using errcode = 'BD003', hint = beliefdb.workspace_hint();
    end if;
    if not exists (select from beliefdb.audit_head h where h.workspace_id = v_ws)
       and not exists (select from beliefdb.audit_event ev where ev.workspace_id = v_ws) then
        -- the hint as who asks: row-level security hides other workspaces' chains from the
        -- application role and the reader's (which then binds this one: an auditor in psql binds by the
        -- setting; an agent's login sees no other workspace); a superuser or the tables' owner sees every
        -- chain, so there this one is gone (every workspace's chain starts when it is made) or the id is
        -- no workspace's
        raise exception 'workspace % has no audit chain this session can see', v_ws
            using errcode = 'BD003',
                  hint = case when pg_catalog.row_security_active('beliefdb.audit_event'::regclass)
                                   and not exists (select from beliefdb.workspace w where w.id = v_ws)
                              then 'this session sees no workspace with this id: select id, name from beliefdb.workspace'
                              when pg_catalog.row_security_active('beliefdb.audit_event'::regclass)
                              then 'this session sees the bound workspace''s chain only, and '
                                   || case when beliefdb.current_workspace_id() is null then 'none is bound'
                                           else 'another is bound' end
                                   || pg_catalog.format(': bind this one, select set_config(''beliefdb.workspace_id'', '
                                                        '%L, false), then select * from beliefdb.audit_verify()', v_ws)
                              when exists (select from beliefdb.workspace w where w.id = v_ws)
                              then 'this session sees every workspace''s chain, and this workspace''s is gone: its '
                                   'events and head (beliefdb.audit_event, beliefdb.audit_head) were deleted outside '
                                   'beliefdb (a workspace''s chain starts when it is made); restore them from a backup'
                              else 'this session sees every workspace''s chain, and no workspace has this id: '
                                   'select id, name from beliefdb.workspace'
                         end;
    end if;
    return query
    with e as (
        select ev.seq, ev.prev_hash, ev.hash, ev.payload, ev.payload_hash, ev.at, ev.principal, ev.action,
               lag(ev.seq) over w as prev_seq,
               lag(ev.hash) over w as expected_prev
          from beliefdb.audit_event ev
         where ev.workspace_id = v_ws
        window w as (order by ev.seq)
    ),
    -- what the beliefs rest on, against what beliefdb stored: beliefdb never changes what a belief says
    -- (belief.sha256 is its hash when it was stored), and its evidence (a quote of a fragment, one
    -- justification of the belief with that fragment as antecedent) changes only with its belief, its
    -- fragment or its justification. A hand-written update or delete appends an event like beliefdb's
    -- own (the links all hold), or none with the audit triggers off: this finds what it left.
    -- each kind's nodes and rows (fragment, belief, decision, action, correction, step): how many,
    -- and a hash of their ids; the same for every kind when each node has its row and each row its node
    kinds_match as (
        select not exists (
                   select from (select n.kind, count(*) as n, bit_xor(uuid_hash_extended(n.id, 0)) as h
                                  from beliefdb.node n
                                 where n.workspace_id = v_ws
                                 group by n.kind) n
                   full join (select 'fragment'::beliefdb.node_kind as kind, count(*) as n,
                                     bit_xor(uuid_hash_extended(k.id, 0)) as h
                                from beliefdb.fragment k where k.workspace_id = v_ws
                              union all
                              select 'belief', count(*), bit_xor(uuid_hash_extended(k.id, 0))
                                from beliefdb.belief k where k.workspace_id = v_ws
                              union all
                              select 'decision', count(*), bit_xor(uuid_hash_extended(k.id, 0))
                                from beliefdb.decision k where k.workspace_id = v_ws
                              union all
                              select 'action', count(*), bit_xor(uuid_hash_extended(k.id, 0))
                                from beliefdb.action k where k.workspace_id = v_ws
                              union all
                              select 'correction', count(*), bit_xor(uuid_hash_extended(k.id, 0))
                                from beliefdb.correction k where k.workspace_id = v_ws
                              union all
                              select 'step', count(*), bit_xor(uuid_hash_extended(k.id, 0))
                                from beliefdb.step k where k.workspace_id = v_ws) k on k.kind = n.kind
                    where coalesce(n.n, 0) <> coalesce(k.n, 0) or coalesce(n.h, 0) <> coalesce(k.h, 0)) as same
    ),
    rests as (
        select b.id::text as key, array['belief.update'] as actions,
               format('belief %s does not say what it said when it was stored: its statement, subject, attribute, '
                      'value, kind, scope, valid time or world is not what its sha256 recorded (beliefdb never '
                      'changes them: a correction is a new belief)', b.id) as problem
          from beliefdb.belief b
         where b.workspace_id = v_ws
           and b.sha256 is distinct from beliefdb.belief_sha256(b.statement, b.subject, b.attribute, b.value, b.kind,
                                                               b.scope, b.valid_time, b.provenance)
        union all
        select ev.belief_id || '/' || ev.fragment_id, array['evidence.insert', 'evidence.update', 'evidence.delete'],
               case when ev.quote is distinct from f.text then
                        format('belief %s: its evidence from fragment %s quotes what the fragment does not say (the '
                               'quote is not the fragment''s text)', ev.belief_id, ev.fragment_id)
                    else format('belief %s: its evidence from fragment %s names justification %s, which is not a '
                                'reason of this belief resting on that fragment (%s): the evidence row was inserted '
                                'or changed outside beliefdb', ev.belief_id, ev.fragment_id, ev.justification_id,
                                coalesce('a reason of belief ' || (select j.consequent from beliefdb.justification j
                                                                    where j.workspace_id = ev.workspace_id
                                                                      and j.id = ev.justification_id),
                                         'no such justification'))
               end
          from beliefdb.evidence ev
          join beliefdb.fragment f on f.workspace_id = ev.workspace_id and f.id = ev.fragment_id
          left join beliefdb.justification_antecedent a
            on a.workspace_id = ev.workspace_id and a.justification_id = ev.justification_id
           and a.antecedent = ev.fragment_id and a.consequent = ev.belief_id and a.edge_kind = 'evidence'
         where ev.workspace_id = v_ws
           and (ev.quote is distinct from f.text or (ev.role = 'supports' and a.justification_id is null))
        union all
        select a.consequent || '/' || a.antecedent, array['evidence.insert', 'evidence.update', 'evidence.delete'],
               format('belief %s rests on fragment %s (justification %s) with no evidence row: its evidence was '
                      'deleted alone (beliefdb deletes evidence only with its belief, fragment or justification)',
                      a.consequent, a.antecedent, a.justification_id)
          from beliefdb.justification_antecedent a
         where a.workspace_id = v_ws and a.edge_kind = 'evidence'
           and not exists (select from beliefdb.evidence ev
                            where ev.workspace_id = a.workspace_id and ev.justification_id = a.justification_id
                              and ev.fragment_id = a.antecedent and ev.belief_id = a.consequent)
        union all
        -- a version's text against its sha256: beliefdb writes them together (at ingest, a turn
        -- appended, a forget's mask), so a text changed alone no longer hashes to it, and its fragments'
        -- offsets and quotes may point at other words
        select v.id::text, array['source_version.update'],
               format('version %s of source %s (%s): its text does not hash to its sha256: the text was changed '
                      'after it was stored (beliefdb writes a version''s text and sha256 together: at ingest, a '
                      'turn appended, a forget''s mask), so its fragments'' offsets may no longer point at their '
                      'words', v.version, coalesce(pg_catalog.quote_literal(s.name), 'that no longer exists'), v.id)
          from beliefdb.source_version v
          left join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
         where v.workspace_id = v_ws
           and v.sha256 is distinct from sha256(convert_to(v.content, 'UTF8'))
        union all
        -- a node and the row of its kind (fragment, belief, decision, action, correction, step) go
        -- together: beliefdb deletes the node, and the row goes with it (on delete cascade). One left
        -- without the other was deleted outside beliefdb (alone, with the triggers that cascade off; a
        -- row deleted alone with them on leaves its node too, and an event). Compared kind by kind by
        -- their number and a hash of their ids (kinds, below: an index-only read), and named only when
        -- those differ (a join of every node with its row took as long as the rest of verify)
        select coalesce(n.id, k.id)::text,
               case when k.id is null then array[n.kind || '.delete', n.kind || '.update']
                    else array['node.delete', 'node.update'] end,
               case when k.id is null
                    then format('%s %s was deleted outside beliefdb: its node is left without its row in '
                                'beliefdb.%s (beliefdb deletes the node, and the row with it), and what rested '
                                'on it with it', n.kind, n.id, n.kind)
                    else format('%s %s has no node: its node was deleted outside beliefdb, with the triggers '
                                'that cascade off (beliefdb deletes the node, and the row with it)', k.kind, k.id)
               end
          from (select n.id, n.kind from beliefdb.node n
                 where n.workspace_id = v_ws and (select not m.same from kinds_match m)) n
          full join (select k.id, k.node_kind as kind from beliefdb.fragment k where k.workspace_id = v_ws
                     union all
                     select k.id, k.node_kind from beliefdb.belief k where k.workspace_id = v_ws
                     union all
                     select k.id, k.node_kind from beliefdb.decision k where k.workspace_id = v_ws
                     union all
                     select k.id, k.node_kind from beliefdb.action k where k.workspace_id = v_ws
                     union all
                     select k.id, k.node_kind from beliefdb.correction k where k.workspace_id = v_ws
                     union all
                     select k.id, k.node_kind from beliefdb.step k where k.workspace_id = v_ws) k
            on k.id = n.id and k.kind = n.kind and (select not m.same from kinds_match m)
         where (select not m.same from kinds_match m) and (n.id is null or k.id is null)
        union all
        -- evidence of a belief that is gone (its node and its row deleted together), by the keys' order
        select ev.belief_id || '/' || ev.fragment_id, array['evidence.insert', 'evidence.update'],
               format('belief %s: its evidence from fragment %s is left behind: the belief no longer exists '
                      '(deleted outside beliefdb, its node with it, with the triggers that cascade off)',
                      ev.belief_id, ev.fragment_id)
          from beliefdb.evidence ev
         where ev.workspace_id = v_ws
           and not exists (select from beliefdb.belief b where b.workspace_id = ev.workspace_id and b.id = ev.belief_id)
    ),
    -- the last event that changed each of those rows (by its key and what it did), if any recorded it
    touched as (
        select r.key, max(ev.seq) as seq
          from e ev
         cross join lateral jsonb_array_elements_text(
                case when jsonb_typeof(ev.payload -> 'keys') = 'array' then ev.payload -> 'keys' end) k (key)
          join rests r on r.key = k.key and ev.action = any(r.actions)
         where exists (select from rests)
         group by r.key
    ),
    -- each broken link with what is wrong, the most telling first where one event has several
    broken as (
        select x.seq, x.rank, x.problem
          from e
         cross join lateral (
            select e.seq, 1 as rank,
                   case when e.seq = coalesce(e.prev_seq, 0) + 2 then format('event %s is missing', e.seq - 1)
                        else format('events %s to %s are missing', coalesce(e.prev_seq, 0) + 1, e.seq - 1)
                   end || format(': the chain goes from %s to event %s (%s); events were deleted or renumbered',
                                 coalesce('event ' || e.prev_seq, 'its start'), e.seq, e.action) as problem
             where e.seq > coalesce(e.prev_seq, 0) + 1
            union all
            select e.seq, 2, format('event %s (%s): its seq is not after event %s''s: events were renumbered',
                                    e.seq, e.action, e.prev_seq)
             where e.seq <= coalesce(e.prev_seq, 0)
            union all
            select e.seq, 3, format('event %s (%s): its payload or payload_hash was changed after it was recorded '
                                    '(payload_hash is not the hash of its payload)', e.seq, e.action)
             where e.payload is not null and e.payload_hash <> beliefdb.audit_payload_hash(e.payload)
            union all
            select e.seq, 4, format('event %s (%s): its prev_hash is not the hash of %s: an event before it, or its '
                                    'place in the chain, was changed', e.seq, e.action,
                                    coalesce('event ' || e.prev_seq, 'the chain''s start (audit_genesis())'))
             where e.prev_hash <> coalesce(e.expected_prev, beliefdb.audit_genesis())
            union all
            select e.seq, 5, format('event %s (%s): its hash does not cover its seq, time, principal, action and '
                                    'payload_hash: one of them was changed after it was recorded', e.seq, e.action)
             where e.hash <> beliefdb.audit_link_hash(e.prev_hash, v_ws, e.seq, e.at, e.principal,
                                                      e.action, e.payload_hash)
         ) x
        union all
        -- events cut off the end, or a head that no longer matches the last event
        select least(h.seq, coalesce(max(e.seq), 0)) + 1, 6,
               case when h.seq > coalesce(max(e.seq), 0) then
                        case when h.seq = coalesce(max(e.seq), 0) + 1 then format('event %s is missing', h.seq)
                             else format('events %s to %s are missing', coalesce(max(e.seq), 0) + 1, h.seq) end
                        || format(': the head (audit_head) says the chain ends at %s, and %s; events were cut off '
                                  'the end', h.seq, coalesce('the last event is ' || max(e.seq), 'there is none'))
                    when h.seq < coalesce(max(e.seq), 0) then
                        format('event %s (%s) is past the head (audit_head), which says the chain ends at %s: '
                               'it was appended outside beliefdb', h.seq + 1,
                               (select e2.action from e e2 where e2.seq = h.seq + 1), h.seq)
                    else format('the head (audit_head) ends at event %s but its hash is not that event''s hash: '
                                'events were changed and the links after them computed again, or the head was replaced', h.seq)
               end
          from beliefdb.audit_head h
          left join e on true
         where h.workspace_id = v_ws
        group by h.seq, h.hash
        having h.seq <> coalesce(max(e.seq), 0)
            or h.hash is distinct from (select e2.hash from e e2 order by e2.seq desc limit 1)
        union all
        -- events and no head: nothing says where the chain ended (the head goes only with its
        -- workspace, and a reader that row-level security keeps from the head sees no events either)
        select max(e.seq) + 1, 7,
               'the workspace has no head (audit_head): nothing says where its chain ends, so events cut off the '
               'end would not show'
          from e
        having count(*) > 0
           and not exists (select from beliefdb.audit_head h where h.workspace_id = v_ws)
        union all
        -- an audit trigger left off (alter table ... disable trigger, or enabled for replicas only):
        -- the links all hold, but what that table's statements change is recorded by no event
        select (select coalesce(max(e.seq), 0) + 1 from e), 8,
               format('audit triggers are off: %s; what those tables'' statements change is recorded in no '
                      'event while they are, so events after %s may be missing (alter table ... enable trigger)',
                      string_agg(format('%s on %s', t.tgname, t.tgrelid::regclass), ', '
                                 order by t.tgrelid::regclass::text, t.tgname),
                      (select coalesce(max(e.seq), 0) from e))
          from pg_catalog.pg_trigger t
         where t.tgfoid::regproc::text like 'beliefdb.\_audit\_rows\_%'
           and t.tgenabled not in ('O', 'A')
        having count(*) > 0
        union all
        -- a belief that does not say what it said, evidence changed alone, a version's text changed, a
        -- node or its row deleted alone (rests, above): at the last event that changed its row, or past
        -- the end when none records it
        select coalesce(t.seq, (select coalesce(max(e.seq), 0) + 1 from e)), 9,
               r.problem
               || coalesce((select format('; the last event to change it is event %s (%s by %s, at %s)',
                                          ev.seq, ev.action, ev.principal, ev.at)
                              from e ev where ev.seq = t.seq),
                           '; no event records the change: it was made with the audit triggers off')
               || case when count(*) over () > 1
                       then format(' (%s rows in all are not as beliefdb stored them)', count(*) over ())
                       else '' end
          from rests r
          left join touched t on t.key = r.key
    ),
    first as (
        select b.seq, b.problem from broken b order by b.seq, b.rank, b.problem limit 1
    )
    select (select count(*) from broken) = 0,
           (select count(*) from e),
           (select f.seq from first f),
           (select f.problem from first f);
end
$$;
comment on function beliefdb.audit_verify(uuid) is 'Check a workspace''s audit chain (null or omitted: the bound one), and what its beliefs rest on against what beliefdb stored: ok, number of events, first broken link and what is wrong there (problem); BD003 for a chain the session cannot see (another workspace''s, or none bound)';
