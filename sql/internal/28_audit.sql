-- beliefdb: the audit chain's internals (docs/rules.md, rule 12): appending an event, the
-- triggers that append one per change, and redacting the payloads that name a forgotten source.
-- Every change appends an event to its workspace's SHA-256 hash chain. The chain links hashes of
-- payloads, so forgetting may redact a payload and the chain still verifies. Its hash functions,
-- the API's summary events and verification are api/50_audit.sql.

-- HMAC-SHA-256 (RFC 2104) of a message under a key given as its two padded keys (beliefdb._hmac_pads,
-- made once for many messages): every keyed digest beliefdb records is one (a forget's, a masked line's,
-- an audit event's); the per-entry loops of an event write it out, where a call an entry cost most.
create or replace function beliefdb._hmac(p_pads bytea[], p_message bytea) returns bytea
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select sha256(p_pads[2] || sha256(p_pads[1] || p_message))
$$;
comment on function beliefdb._hmac(bytea[], bytea) is 'HMAC-SHA-256 of a message under padded keys (beliefdb._hmac_pads)';

-- A new random salt: 16 bytes, 122 of them random (a UUID's; gen_random_uuid draws from the server's strong
-- random source). A masked line's record has one (beliefdb._salted_line_digest), and an event a forget
-- may redact carries one as its nonce (beliefdb._audit_append).
create or replace function beliefdb._salt() returns bytea
language sql volatile
set search_path = pg_catalog, pg_temp
as $$
    select decode(replace(gen_random_uuid()::text, '-', ''), 'hex')
$$;
comment on function beliefdb._salt() is 'A new random salt (16 bytes of a random UUID)';

-- What an event records of the words it stored (rows_sha256: the sha256 of the rows a statement wrote,
-- made by the row audit and a bulk batch; text_sha256: of the text an ingest stored or a proposal
-- gave; name_sha256: of what a forget forgot) is keyed before the chain holds it: rows_hmac, text_hmac
-- and hmac_sha256, HMAC-SHA-256 under the
-- workspace's secret (beliefdb.audit_key) of the event's own salt (beliefdb._audit_salt: its seq and
-- time) and that sha256. A plain digest of words a forget later masks or deletes would confirm a guess
-- of them to anyone who reads the chain (rule 14); a digest keyed alone would too, to anyone who may
-- write in the workspace (an ingest of the guess records its keyed digest: the same); bound to its
-- event, no other event's digest is ever the same, and only whoever holds the key (the schema's owner, a
-- backup) can test a guess. Top-level and in each entry of an operation's rows, their order kept.
create or replace function beliefdb._audit_keyed_payload(p_workspace_id uuid, p_salt bytea, p_payload jsonb)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_pads bytea[] := beliefdb._hmac_pads(beliefdb._audit_key(p_workspace_id));
    -- (the two padded keys, the inner with the salt after it: what each digest's HMAC begins with)
    v_inner bytea := v_pads[1] || p_salt;
    v_outer bytea := v_pads[2];
begin
    p_payload := beliefdb._audit_keyed_top(v_pads, p_salt, p_payload);
    if jsonb_typeof(p_payload -> 'rows') = 'array' then
        -- (beliefdb._hmac written out: a function with its own search_path is not inlined, and a call an
        -- entry was most of the cost of an operation's event)
        p_payload := p_payload || jsonb_build_object('rows', (
            select coalesce(jsonb_agg(case when e ? 'rows_sha256'
                                           then e - 'rows_sha256' || jsonb_build_object('rows_hmac', encode(sha256(
                                                    v_outer || sha256(v_inner || decode(e ->> 'rows_sha256', 'hex'))),
                                                    'hex'))
                                           else e end order by n), '[]')
              from jsonb_array_elements(p_payload -> 'rows') with ordinality as x (e, n)));
    end if;
    return p_payload;
end
$$;
comment on function beliefdb._audit_keyed_payload(uuid, bytea, jsonb) is 'An event''s payload with its digests of words keyed to the event (text_hmac, rows_hmac: HMAC-SHA-256 under the workspace''s secret of its salt and the sha256)';

-- The top-level digests of words of an event's payload keyed to it (text_sha256 as text_hmac, name_sha256
-- as hmac_sha256, rows_sha256 as rows_hmac; beliefdb._audit_keyed_payload), under padded keys made once.
create or replace function beliefdb._audit_keyed_top(p_pads bytea[], p_salt bytea, p_payload jsonb) returns jsonb
language plpgsql immutable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_key record;
begin
    for v_key in select * from (values ('text_sha256', 'text_hmac'), ('name_sha256', 'hmac_sha256'),
                                       ('rows_sha256', 'rows_hmac')) k (plain, keyed) loop
        if p_payload ? v_key.plain then
            p_payload := p_payload - v_key.plain || jsonb_build_object(
                v_key.keyed, beliefdb._audit_keyed(p_pads, p_salt, p_payload ->> v_key.plain));
        end if;
    end loop;
    return p_payload;
end
$$;
comment on function beliefdb._audit_keyed_top(bytea[], bytea, jsonb) is 'An event''s payload with its top-level digests of words keyed to the event';

-- An event's salt: what binds a keyed digest to that one event (its seq and its time in microseconds
-- since 1970, each as 8 bytes, after a tag no other keyed digest of the workspace begins with).
create or replace function beliefdb._audit_salt(p_seq bigint, p_at timestamptz) returns bytea
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select convert_to('event' || chr(31), 'UTF8') || int8send(p_seq)
           || int8send((extract(epoch from p_at) * 1000000)::bigint)
$$;
comment on function beliefdb._audit_salt(bigint, timestamp with time zone) is 'The salt that binds a keyed digest to one audit event: its seq and time';

-- The keyed form (hex) of a hex digest an event records (beliefdb._audit_keyed_payload): HMAC-SHA-256 of
-- the event's salt and the digest's bytes under the padded keys of the workspace's secret (_hmac_pads).
-- The schema's owner checks a row against its event: beliefdb._audit_keyed(beliefdb._hmac_pads(
-- beliefdb._audit_key(WORKSPACE)), beliefdb._audit_salt(e.seq, e.at), encode(sha256(convert_to(ROWS,
-- 'UTF8')), 'hex')) = ROWS_HMAC.
create or replace function beliefdb._audit_keyed(p_pads bytea[], p_salt bytea, p_hex text) returns text
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select encode(beliefdb._hmac(p_pads, p_salt || decode(p_hex, 'hex')), 'hex')
$$;
comment on function beliefdb._audit_keyed(bytea[], bytea, text) is 'HMAC-SHA-256 (hex) of an event''s salt and a hex digest under padded keys: what an audit event records of a digest of words';

-- An operation's event payload (p_payload) with its statements' entries under rows, in statement order,
-- each with its rows' digest keyed to the event (rows_hmac, as _audit_keyed_payload does; built here from
-- the entries and their plain digests in beliefdb_audit_operation, not from a payload that held them),
-- and its top-level digests keyed too (beliefdb._audit_keyed_top).
create or replace function beliefdb._audit_operation_rows(p_workspace_id uuid, p_salt bytea, p_payload jsonb)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_pads bytea[];
    v_inner bytea;
    v_rows jsonb;
begin
    if p_payload ?| array['text_sha256', 'name_sha256', 'rows_sha256']
       or exists (select from pg_temp.beliefdb_audit_operation o where o.step > 0) then
        v_pads := beliefdb._hmac_pads(beliefdb._audit_key(p_workspace_id));
        v_inner := v_pads[1] || p_salt;
        p_payload := beliefdb._audit_keyed_top(v_pads, p_salt, p_payload);
    end if;
    if v_pads is not null then
        select jsonb_agg(case when o.digest is null then o.entry
                              else o.entry || jsonb_build_object('rows_hmac', encode(sha256(
                                       v_pads[2] || sha256(v_inner || o.digest)), 'hex')) end order by o.step)
          into v_rows
          from pg_temp.beliefdb_audit_operation o
         where o.step > 0;
    end if;
    return p_payload || jsonb_build_object('rows', coalesce(v_rows, '[]'));
end
$$;
comment on function beliefdb._audit_operation_rows(uuid, bytea, jsonb) is 'An operation''s event payload with its statements'' entries under rows, their digests keyed to the event';

-- (keyed without the event before: a guess's ingest recorded the same digest)
drop function if exists beliefdb._audit_text_digest(uuid, text);
drop function if exists beliefdb._audit_keyed(bytea[], text);
drop function if exists beliefdb._audit_keyed_rows(uuid, jsonb);

-- Append one event; the head row lock serializes writers so the chain cannot fork. Every change
-- appends (rule 12: every table's statement trigger, every API summary), so this is also where a
-- write with a fixed clock is refused to a session whose login may not fix it (beliefdb_clock,
-- schema/00_schema.sql): its rows would be dated when it says, and as-of answers would gain what
-- was never believed then. Reading with a fixed clock stays open to everyone.
-- The head row is updated by the first 1024 appends of a transaction to a workspace; past them it
-- waits for the commit (audit_head_at_commit writes the last event there). An update leaves a new
-- version of the row that this transaction cannot prune, every hundred or so a new index entry
-- too, and each new entry's uniqueness check visited them all: a large ingest's appends (one per
-- statement, a million for 50 MB) took time quadratic in their number. What the transaction
-- appended last, how many and where the head row is are kept in a transaction-local setting per
-- workspace (undone with a rolled-back subtransaction); a value that names no version of this
-- workspace's head row, or no event it appended, is not used. Any session can write the setting,
-- so it is a hint that decides nothing. The append that first leaves the head behind (the 1,025th,
-- or the first after a forged count) queues the commit's check of the workspace with its event
-- (beliefdb.audit_deferred on for its insert only); an append goes on past the head without a
-- check of its own only when the setting names an event past the head, that is when the head
-- already lags, which only such an append, whose check has not run yet, leaves it doing (a check
-- moves the head to the last event, and a rolled-back append takes its check with it). So a
-- forged count only makes the head wait for the commit, and at the commit the head goes to the
-- workspace's last event, whatever the setting says then; a forged last event that is not the
-- last fails on the next append's key. Until the commit, a large transaction's head lags its
-- events (set constraints beliefdb.audit_head_at_commit immediate brings it up to date).
-- (p_operation: the open operation's statements' entries are the event's rows, each keyed here: they
-- wait in beliefdb_audit_operation with their rows' plain digest, which the application role cannot read)
drop function if exists beliefdb._audit_append(uuid, text, jsonb);
create or replace function beliefdb._audit_append(p_workspace_id uuid, p_action text, p_payload jsonb,
                                                  p_operation boolean default false)
returns bigint
language plpgsql security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_seq bigint;
    v_prev bytea;
    -- real time, not beliefdb.clock(): a session may fix its clock, never the audit's; taken when the
    -- event is appended, under the head row's lock (below), not at the transaction's start (now()): a
    -- writer that waited for another's lock was dated before the events it waited for
    v_at timestamptz;
    v_principal text := beliefdb.current_principal();
    v_payload_hash bytea;
    v_hash bytea;
    v_clock text := pg_catalog.current_setting('beliefdb.now', true);
    v_setting text := 'beliefdb.audit_' || pg_catalog.replace(p_workspace_id::text, '-', '');
    -- appends so far / the last one's seq / its hash / the head row's ctid
    v_state text[] := pg_catalog.string_to_array(pg_catalog.current_setting(v_setting, true), '/');
    v_count bigint := 0;
    v_head tid;
    v_past_head boolean := false;  -- the head lags: this transaction's check will move it
begin
    if v_clock <> '' and not pg_catalog.pg_has_role(session_user, 'beliefdb_clock', 'member') then
        raise exception 'this session fixed its clock (beliefdb.now = %), and login % may not write with a fixed clock: reset beliefdb.now, or have it granted beliefdb_clock',
            v_clock, session_user using errcode = 'BD010';
    end if;
    if pg_catalog.cardinality(v_state) = 4 and v_state[1] ~ '^[0-9]{1,18}$' and v_state[2] ~ '^[0-9]{1,18}$'
       and v_state[3] ~ '^[0-9a-f]{64}$' and v_state[4] ~ '^\([0-9]{1,10},[0-9]{1,5}\)$' then
        select h.seq + 1, h.hash, h.ctid into v_seq, v_prev, v_head
          from beliefdb.audit_head h
         where h.ctid = v_state[4]::tid and h.workspace_id = p_workspace_id
           for update;
        if v_head is not null then
            v_count := v_state[1]::bigint;
            -- the events past the head are this transaction's: the chain goes on from the last
            if v_state[2]::bigint >= v_seq and exists (
                    select from beliefdb.audit_event e
                     where e.workspace_id = p_workspace_id and e.seq = v_state[2]::bigint
                       and e.hash = pg_catalog.decode(v_state[3], 'hex')) then
                v_seq := v_state[2]::bigint + 1;
                v_prev := pg_catalog.decode(v_state[3], 'hex');
                v_past_head := true;
            end if;
        end if;
    end if;
    if v_head is null then
        select h.seq + 1, h.hash, h.ctid into v_seq, v_prev, v_head
          from beliefdb.audit_head h
         where h.workspace_id = p_workspace_id
           for update;
    end if;
    if v_head is null then
        -- the workspace is being deleted (delete from beliefdb.workspace cascades, its chain's head
        -- among the first): the rows the cascade then deletes have no chain left to append to, and
        -- the chain goes with them
        if not exists (select from beliefdb.workspace w where w.id = p_workspace_id) then
            return null;
        end if;
        raise exception 'workspace % has no audit chain', p_workspace_id using errcode = 'BD003';
    end if;
    v_count := v_count + 1;
    if v_count > 1024 and not v_past_head then
        -- the head stops here: this event queues the check that moves it at the commit
        perform pg_catalog.set_config('beliefdb.audit_deferred', 'on', true);
    end if;
    v_at := pg_catalog.clock_timestamp();
    -- an event a forget may redact (its payload names a source, or holds someone's reason, or it retracts
    -- or restores: forget keeps their hashes only) carries a random nonce: its payload_hash, which stays,
    -- is then of nothing one can rebuild around a guess of the name or the words (its other fields are
    -- often all known)
    if p_payload ?| array['source', 'reason'] or p_action in ('retract', 'unretract') then
        p_payload := p_payload || jsonb_build_object('nonce', pg_catalog.encode(beliefdb._salt(), 'hex'));
    end if;
    -- what the chain records of words is a digest keyed to this event (_audit_keyed_payload)
    if p_operation then
        p_payload := beliefdb._audit_operation_rows(p_workspace_id, beliefdb._audit_salt(v_seq, v_at), p_payload);
    elsif p_payload ?| array['rows_sha256', 'text_sha256', 'name_sha256']
          or (pg_catalog.jsonb_typeof(p_payload -> 'rows') = 'array' and p_payload -> 'rows' <> '[]') then
        p_payload := beliefdb._audit_keyed_payload(p_workspace_id, beliefdb._audit_salt(v_seq, v_at), p_payload);
    end if;
    v_payload_hash := beliefdb.audit_payload_hash(p_payload);
    v_hash := beliefdb.audit_link_hash(v_prev, p_workspace_id, v_seq, v_at, v_principal, p_action, v_payload_hash);
    insert into beliefdb.audit_event
        (workspace_id, seq, at, principal, action, payload, payload_hash, prev_hash, hash)
    values (p_workspace_id, v_seq, v_at, v_principal, p_action, p_payload, v_payload_hash, v_prev, v_hash);
    if v_past_head then
        null;
    elsif v_count <= 1024 then
        update beliefdb.audit_head h set seq = v_seq, hash = v_hash
         where h.ctid = v_head and h.workspace_id = p_workspace_id
        returning h.ctid into v_head;
    else
        perform pg_catalog.set_config('beliefdb.audit_deferred', 'off', true);
    end if;
    perform pg_catalog.set_config(v_setting, pg_catalog.concat_ws('/', v_count, v_seq, pg_catalog.encode(v_hash, 'hex'),
                                                                  v_head), true);
    return v_seq;
end
$$;
comment on function beliefdb._audit_append(uuid, text, jsonb, boolean) is 'Append an event to a workspace''s audit chain (serialized per workspace); refuses a write with a clock the login may not fix (BD010)';

-- Trigger, at commit: the head of a workspace that a transaction's appends left behind (past its
-- 1,024th, _audit_append) goes to the chain's last event. Queued by the append that left it behind,
-- not by every event past it: a probe per event took a 30,000-event transaction's commit from 107
-- to 252 ms, 2.4 ms now (bench/audit_commit.py). The last is the chain's highest seq, not what the transaction's
-- setting names: the caller can write that setting, and one changed before the commit left the head
-- behind the events, so that every later append of the workspace failed on a duplicate key. (The
-- transaction holds the head row's lock from its first append: no other writer's event follows its
-- own.)
create or replace function beliefdb.audit_head_at_commit() returns trigger
language plpgsql security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    update beliefdb.audit_head h set seq = e.seq, hash = e.hash
      from (select e.seq, e.hash from beliefdb.audit_event e
             where e.workspace_id = new.workspace_id
             order by e.seq desc limit 1) e
     where h.workspace_id = new.workspace_id and h.seq < e.seq;
    return null;
end
$$;
comment on function beliefdb.audit_head_at_commit() is 'Trigger: at commit, move a workspace''s audit head to the last event a large transaction appended';

-- (a constraint trigger cannot be replaced: dropped and made again)
drop trigger if exists audit_head_at_commit on beliefdb.audit_event;
create constraint trigger audit_head_at_commit after insert on beliefdb.audit_event
    deferrable initially deferred
    for each row when (pg_catalog.current_setting('beliefdb.audit_deferred', true) = 'on')
    execute function beliefdb.audit_head_at_commit();

-- Append a summary event for the bound workspace: what beliefdb's functions with owner rights call
-- after their change. Not granted: the application role appends nothing of its own making.
create or replace function beliefdb._audit(p_action text, p_payload jsonb) returns bigint
language sql
set search_path = pg_catalog, pg_temp
as $$
    select beliefdb._audit_append(beliefdb.current_workspace_id(), p_action, p_payload)
$$;
comment on function beliefdb._audit(text, jsonb) is 'Append a summary event to the bound workspace''s audit chain (beliefdb''s own changes only)';

-- Trigger: a new workspace starts its chain with a genesis event.
create or replace function beliefdb.audit_workspace_created() returns trigger
language plpgsql security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    insert into beliefdb.audit_head (workspace_id, seq, hash) values (new.id, 0, beliefdb.audit_genesis());
    perform beliefdb._audit_append(new.id, 'workspace.insert', jsonb_build_object('name', new.name));
    return null;
end
$$;
comment on function beliefdb.audit_workspace_created() is 'Trigger: start a new workspace''s audit chain';

create or replace trigger workspace_audit after insert on beliefdb.workspace
    for each row execute function beliefdb.audit_workspace_created();

-- The workspace whose bulk ingest batch is running in this transaction (beliefdb.bulk_ingest_batch),
-- or null. Its statements' rows are counted into the batch's one summary event instead of an event
-- each (rule 12: the batch event says how many rows of each table it inserted, updated and deleted,
-- with the hash of the rows it was made from). Only beliefdb's owner can open a batch: the setting
-- counts only while this session's temporary table beliefdb_audit_batch exists and belongs to the
-- owner (the role these security definer functions run as), which the batch creates for its own
-- transaction and drops before it returns; a rolled-back batch takes both back with it.
create or replace function beliefdb._audit_batch() returns uuid
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select s.ws::uuid
      from (select pg_catalog.current_setting('beliefdb.audit_batch', true) as ws) s
     where s.ws ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
       and exists (select from pg_catalog.pg_class c
                    where c.oid = pg_catalog.to_regclass('pg_temp.beliefdb_audit_batch')
                      and c.relpersistence = 't'
                      and c.relowner = (select r.oid from pg_catalog.pg_roles r where r.rolname = current_user))
$$;
comment on function beliefdb._audit_batch() is 'The workspace whose bulk ingest batch counts this transaction''s row changes into its one audit event, or null';

-- The workspace of the operation whose rows this transaction's statements count into its one audit
-- event (beliefdb._audit_open), or null. A correction's apply writes ~25 statements to audited
-- tables; an event each cost as much as the rest of the statement's triggers (issue 21), so its
-- statements' events (table, op, count, keys, rows_sha256: what each would have carried) become the
-- entries of its one summary event, in statement order. Only beliefdb's owner can open one: the
-- open operation is a row of this transaction in the session's temporary table
-- beliefdb_audit_operation owned by the owner (the role these security definer functions run as),
-- which the application role can neither write nor read; a rolled-back operation takes its row back.
create or replace function beliefdb._audit_operation() returns uuid
language plpgsql stable
set search_path = pg_catalog, pg_temp
-- The operation's row by beliefdb_audit_operation_open: the table holds an entry per statement of
-- the operation, and every audited statement asks, so a sequential scan (the plan made while the
-- table was small) took time quadratic in the operation (an ingest settling 4,000 claims one by
-- one: 12,000 asks over up to 8,000 entries, 3.3 s; 8,000 claims, 11 s)
set enable_seqscan = off
as $$
declare
    v_table regclass := pg_catalog.to_regclass('pg_temp.beliefdb_audit_operation');
begin
    if v_table is null
       or not exists (select from pg_catalog.pg_class c
                       where c.oid = v_table and c.relpersistence = 't'
                         and pg_catalog.pg_get_userbyid(c.relowner) = current_user) then
        return null;
    end if;
    return (select o.workspace_id from pg_temp.beliefdb_audit_operation o
             where o.step = 0 and o.xact = pg_catalog.pg_current_xact_id_if_assigned());
end
$$;
comment on function beliefdb._audit_operation() is 'The workspace of the operation whose statements count their rows into its one audit event in this transaction, or null';

-- Open an operation of the workspace (see _audit_operation): until _audit_close, the statements'
-- events of its rows are kept as entries of the operation's one event. False when one is open
-- already in this transaction (its event takes the rows; the caller appends its summary itself).
create or replace function beliefdb._audit_open(p_workspace_id uuid) returns boolean
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if beliefdb._audit_operation() is not null then
        return false;
    end if;
    -- a session working table, kept across transactions (made once per session, not per operation)
    -- (a table made before the entries were numbered by an identity has ord, not step: made again)
    -- (and one made before an entry's digest had a column of its own has none: made again too)
    if not beliefdb._empty_working_table('beliefdb_audit_operation', 'digest') then
        create temporary table beliefdb_audit_operation (
            xact xid8 not null,          -- the transaction of the operation
            workspace_id uuid not null,
            -- 0: the operation; then its statements' entries in order (an identity: an entry is one
            -- insert of values, not a count of the entries before it, which were read in full)
            step bigint not null generated by default as identity,
            entry jsonb,                 -- table, op, count, keys of one statement
            digest bytea                 -- the sha256 of its rows, keyed to the event when it is appended
        );
        -- (the open operation's row, which _audit_operation looks for at every audited statement)
        create index beliefdb_audit_operation_open on pg_temp.beliefdb_audit_operation (xact) where step = 0;
    end if;
    insert into pg_temp.beliefdb_audit_operation (xact, workspace_id, step)
    values (pg_catalog.pg_current_xact_id(), p_workspace_id, 0);
    -- a hint that the row audit's triggers look at first; the row above is what counts
    perform pg_catalog.set_config('beliefdb.audit_operation', p_workspace_id::text, true);
    return true;
end
$$;
comment on function beliefdb._audit_open(uuid) is 'Open an operation whose statements count their rows into its one audit event (false: one is open already)';

-- Close the open operation: append its one event, the summary with its statements' entries under
-- "rows" (in statement order), and forget them. Returns the event's seq.
create or replace function beliefdb._audit_close(p_action text, p_payload jsonb) returns bigint
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._audit_operation();
    v_seq bigint;
begin
    if v_ws is null then
        raise exception 'no audit operation is open in this transaction' using errcode = 'BD005';
    end if;
    v_seq := beliefdb._audit_append(v_ws, p_action, p_payload, true);
    delete from pg_temp.beliefdb_audit_operation;
    perform pg_catalog.set_config('beliefdb.audit_operation', '', true);
    return v_seq;
end
$$;
comment on function beliefdb._audit_close(text, jsonb) is 'Append the open operation''s one audit event (its summary and its statements'' entries under rows)';

-- Finish what an operation records: with an operation this caller opened (p_opened: what
-- _audit_open returned), its one event (p_action, p_payload, its statements' entries under rows) —
-- unless p_only_with_rows and no statement changed a row (an ingest that changed nothing appends
-- nothing); without one, the summary alone, as an event of its own, when p_action is given and not
-- only_with_rows (the rows' events went to the operation a caller opened, or each its own way).
create or replace function beliefdb._audit_finish(p_opened boolean, p_action text, p_payload jsonb,
                                                  p_only_with_rows boolean default false) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if p_opened then
        if p_only_with_rows and not exists (select from pg_temp.beliefdb_audit_operation o where o.step > 0) then
            delete from pg_temp.beliefdb_audit_operation;
            perform pg_catalog.set_config('beliefdb.audit_operation', '', true);
        else
            perform beliefdb._audit_close(p_action, p_payload);
        end if;
    elsif not p_only_with_rows then
        perform beliefdb._audit(p_action, p_payload);
    end if;
end
$$;
comment on function beliefdb._audit_finish(boolean, text, jsonb, boolean) is 'Append an operation''s one event (or its summary alone when another operation is open); nothing for an operation that changed no row when asked';

-- The row audit of every table that holds workspace data: one trigger function per table, made from
-- the one template below, with the table's key columns written into its query. Each appends one
-- event per statement and workspace, naming the changed rows by key (key columns joined by '/') and
-- hashing their contents: sha256 of the rows' text (row::text), sorted and joined by newlines, which
-- _audit_append keys before the chain records it (rows_hmac: the chain keeps keyed hashes, not text). Rows of the workspace of a bulk ingest batch running in this
-- transaction (_audit_batch) are counted for the batch's event instead; those of an operation open in
-- this transaction (_audit_operation) become an entry of its one event. (One function a table, not
-- one for all taking the key columns as arguments: a generic one can only reach a column by name
-- through to_jsonb of each row, which was a third of what the audit cost a correction.)
do $do$
declare
    v_template constant text := $template$
create or replace function beliefdb.%1$I() returns trigger
language plpgsql security definer
set search_path = pg_catalog, pg_temp
as $fn$
declare
    -- (each looked for only when its transaction-local setting says one may be open: most
    -- statements have neither, and the look is a catalog read per statement)
    v_batch uuid := case when pg_catalog.current_setting('beliefdb.audit_batch', true) <> ''
                         then beliefdb._audit_batch() end;
    v_operation uuid := case when pg_catalog.current_setting('beliefdb.audit_operation', true) <> ''
                             then beliefdb._audit_operation() end;
    v_group record;
    v_entry jsonb;
begin
    if v_batch is not null then
        insert into pg_temp.beliefdb_audit_batch (action, n)
        select TG_TABLE_NAME || '.' || lower(TG_OP), count(*)
          from changed_rows c
         where c.workspace_id = v_batch
        having count(*) > 0;
    end if;
    for v_group in
        select r.workspace_id, count(*) as n, jsonb_agg(r.key order by r.key) as keys,
               sha256(convert_to(string_agg(r.row_text, E'\n' order by r.row_text), 'UTF8')) as rows_hash
          from (select c.workspace_id, concat_ws('/', %2$s) as key, c::text as row_text
                  from changed_rows c
                 where v_batch is null or c.workspace_id is distinct from v_batch) r
         group by r.workspace_id
    loop
        v_entry := jsonb_build_object('table', TG_TABLE_NAME, 'op', lower(TG_OP), 'count', v_group.n,
                                      'keys', v_group.keys);
        if v_group.workspace_id = v_operation then
            -- an entry of the open operation's one event (_audit_close), in statement order, its digest
            -- keyed when the event is appended
            insert into pg_temp.beliefdb_audit_operation (xact, workspace_id, entry, digest)
            values (pg_catalog.pg_current_xact_id(), v_operation, v_entry, v_group.rows_hash);
        else
            perform beliefdb._audit_append(v_group.workspace_id, TG_TABLE_NAME || '.' || lower(TG_OP),
                                           v_entry || jsonb_build_object('rows_sha256', encode(v_group.rows_hash, 'hex')));
        end if;
    end loop;
    return null;
end
$fn$;
$template$;
    v_table record;
begin
    for v_table in
        select t.name, '_audit_rows_' || t.name as function,
               (select string_agg(pg_catalog.format('c.%I', k), ', ') from unnest(t.keys) as k) as keys
          from (values
            ('node', '{id}'::text[]), ('source', '{id}'), ('source_version', '{id}'), ('fragment', '{id}'),
            ('belief', '{id}'), ('evidence', '{belief_id,fragment_id}'), ('relation', '{id}'),
            ('justification', '{id}'), ('justification_antecedent', '{justification_id,antecedent}'),
            ('decision', '{id}'), ('action', '{id}'), ('correction', '{id}'), ('run', '{id}'), ('step', '{id}'),
            ('review_item', '{id}'), ('trace_edge', '{from_node,to_node,kind}'), ('repair', '{id}'),
            ('embedding_model', '{workspace_id}'), ('belief_embedding', '{belief_id,model}'), ('outcome', '{id}'),
            ('redaction', '{id}'), ('api_token', '{id}')
          ) as t (name, keys)
    loop
        execute pg_catalog.format(v_template, v_table.function, v_table.keys);
        execute pg_catalog.format(
            'comment on function beliefdb.%I() is %L', v_table.function,
            'Trigger: append one audit event per changed statement and workspace of beliefdb.' || v_table.name
            || ' (a bulk ingest batch''s rows: counted for its one event; an open operation''s: an entry of its one event)');
        execute pg_catalog.format(
            'create or replace trigger %I after insert on beliefdb.%I referencing new table as changed_rows '
            'for each statement execute function beliefdb.%I()', v_table.name || '_audit_insert', v_table.name, v_table.function);
        execute pg_catalog.format(
            'create or replace trigger %I after update on beliefdb.%I referencing new table as changed_rows '
            'for each statement execute function beliefdb.%I()', v_table.name || '_audit_update', v_table.name, v_table.function);
        execute pg_catalog.format(
            'create or replace trigger %I after delete on beliefdb.%I referencing old table as changed_rows '
            'for each statement execute function beliefdb.%I()', v_table.name || '_audit_delete', v_table.name, v_table.function);
    end loop;
end
$do$;

-- Redact the payloads of the bound workspace's audit events that name a forgotten source (only
-- once the source is gone): the payload hash stays in the chain, so it still verifies.
create or replace function beliefdb._audit_redact_source(p_name text) returns integer
language plpgsql security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_count integer;
begin
    if exists (select from beliefdb.source s where s.workspace_id = v_ws and s.name = p_name) then
        raise exception 'source % still exists: forget it first', p_name using errcode = 'BD005';
    end if;
    update beliefdb.audit_event e set payload = null
     where e.workspace_id = v_ws and e.payload is not null and e.payload ->> 'source' = p_name;
    get diagnostics v_count = row_count;
    return v_count;
end
$$;
comment on function beliefdb._audit_redact_source(text) is 'Redact audit payloads naming a forgotten source of the bound workspace (hashes stay)';

-- A retraction's reason is the words of whoever retracted, about what it retracted: the retract and
-- restore events of forgotten nodes, sources or source versions (p_ids: the ids their payloads name) keep their hashes
-- only, as an event naming a forgotten source does (rule 14 of docs/rules.md). How many were redacted.
create or replace function beliefdb._audit_redact_retractions(p_ids uuid[]) returns integer
language plpgsql security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_count integer;
begin
    update beliefdb.audit_event e set payload = null
     where e.workspace_id = v_ws and e.action in ('retract', 'unretract') and e.payload is not null
       and e.payload ->> 'id' = any(p_ids::text[]);
    get diagnostics v_count = row_count;
    return v_count;
end
$$;
comment on function beliefdb._audit_redact_retractions(uuid[]) is 'Redact the retract and restore events of forgotten nodes, sources or source versions of the bound workspace (hashes stay)';

-- The two padded keys of HMAC-SHA-256 (RFC 2104) for a key: {inner, outer}. Made once for many
-- messages (each digest is then two sha256 calls: beliefdb._redact_spans digests every line it masks).
create or replace function beliefdb._hmac_pads(p_key bytea) returns bytea[]
language plpgsql immutable strict
set search_path = pg_catalog, pg_temp
as $$
declare
    v_key bytea := p_key;
    v_inner bytea;
    v_outer bytea;
    v_i integer;
begin
    if length(v_key) > 64 then
        v_key := sha256(v_key);
    end if;
    v_key := v_key || decode(repeat('00', 64 - length(v_key)), 'hex');
    v_inner := v_key;
    v_outer := v_key;
    for v_i in 0 .. 63 loop
        v_inner := set_byte(v_inner, v_i, get_byte(v_key, v_i) # 54);   -- 0x36
        v_outer := set_byte(v_outer, v_i, get_byte(v_key, v_i) # 92);   -- 0x5c
    end loop;
    return array[v_inner, v_outer];
end
$$;
comment on function beliefdb._hmac_pads(bytea) is 'The inner and outer padded keys of HMAC-SHA-256 for a key';

-- HMAC-SHA-256 (RFC 2104) of a message under a key: what a forget event records of the name it forgot,
-- keyed by the workspace's secret (beliefdb.audit_key), so a list of names does not reverse it.
create or replace function beliefdb._hmac_sha256(p_key bytea, p_message bytea) returns bytea
language sql immutable strict
set search_path = pg_catalog, pg_temp
as $$
    select beliefdb._hmac(beliefdb._hmac_pads(p_key), p_message)
$$;
comment on function beliefdb._hmac_sha256(bytea, bytea) is 'HMAC-SHA-256 of a message under a key (RFC 2104)';

-- A workspace's secret key for its audit chain's keyed digests (beliefdb.audit_key), made the first time it
-- is needed: 64 bytes from four random UUIDs (gen_random_uuid draws from the server's strong random
-- source; 488 random bits). Not granted: only beliefdb's own functions read it.
create or replace function beliefdb._audit_key(p_workspace_id uuid) returns bytea
language plpgsql security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_key bytea;
begin
    select k.key into v_key from beliefdb.audit_key k where k.workspace_id = p_workspace_id;
    if v_key is null then
        insert into beliefdb.audit_key (workspace_id, key)
        values (p_workspace_id, decode(replace(gen_random_uuid()::text || gen_random_uuid()::text
                                               || gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'))
        on conflict (workspace_id) do nothing;
        select k.key into v_key from beliefdb.audit_key k where k.workspace_id = p_workspace_id;
    end if;
    return v_key;
end
$$;
comment on function beliefdb._audit_key(uuid) is 'A workspace''s secret key for the keyed digests of its audit chain (made on first use)';

-- The forget events of the bound workspace that forgot p_ref (a subject, a source's name, a belief's
-- id), by seq: each records hmac_sha256, the HMAC-SHA-256 under the workspace's key of the event's salt
-- (beliefdb._audit_salt) and the sha256 of what it forgot (since revision 0050; before, of the name
-- alone, which another forget of a guessed name recorded the same: those are found too). The schema's
-- owner tells whether a name was forgotten: select * from beliefdb._forget_events('maya_lopez'). Not
-- granted. Reads every forget event of the workspace.
create or replace function beliefdb._forget_events(p_ref text) returns setof bigint
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_pads bytea[] := beliefdb._hmac_pads(beliefdb._audit_key(beliefdb.current_workspace_id()));
    v_name bytea := convert_to(p_ref, 'UTF8');
begin
    return query
    select e.seq
      from beliefdb.audit_event e
     where e.workspace_id = v_ws and e.action = 'forget' and e.payload ? 'hmac_sha256'
       and e.payload ->> 'hmac_sha256' in (
               beliefdb._audit_keyed(v_pads, beliefdb._audit_salt(e.seq, e.at), encode(sha256(v_name), 'hex')),
               encode(beliefdb._hmac(v_pads, v_name), 'hex'))
     order by e.seq;
end
$$;
comment on function beliefdb._forget_events(text) is 'The forget events of the bound workspace that forgot a name (its keyed digest matches), by seq';

-- (a forget event's digest of a name is keyed to its event: one made apart from it is no event's)
drop function if exists beliefdb._forget_digest(text);
