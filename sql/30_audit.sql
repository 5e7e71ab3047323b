-- beliefdb: the audit chain (truth rule 12).
-- Every change appends an event to its workspace's SHA-256 hash chain. The chain links
-- hashes of payloads, so forgetting may redact a payload and the chain still verifies.

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

-- The hash a chain starts from.
create or replace function beliefdb.audit_genesis() returns bytea
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select decode(repeat('00', 32), 'hex')
$$;
comment on function beliefdb.audit_genesis() is 'The 32 zero bytes every chain starts from';

-- Append one event; the head row lock serializes writers so the chain cannot fork.
create or replace function beliefdb._audit_append(p_workspace_id uuid, p_action text, p_payload jsonb)
returns bigint
language plpgsql security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_seq bigint;
    v_prev bytea;
    -- real time, not beliefdb.clock(): a session may fix its clock, never the audit's
    v_at timestamptz := now();
    v_principal text := beliefdb.current_principal();
    v_payload_hash bytea := beliefdb.audit_payload_hash(p_payload);
    v_hash bytea;
begin
    select h.seq + 1, h.hash into v_seq, v_prev
      from beliefdb.audit_head h
     where h.workspace_id = p_workspace_id
       for update;
    if not found then
        raise exception 'workspace % has no audit chain', p_workspace_id using errcode = 'BD003';
    end if;
    v_hash := beliefdb.audit_link_hash(v_prev, p_workspace_id, v_seq, v_at, v_principal, p_action, v_payload_hash);
    insert into beliefdb.audit_event
        (workspace_id, seq, at, principal, action, payload, payload_hash, prev_hash, hash)
    values (p_workspace_id, v_seq, v_at, v_principal, p_action, p_payload, v_payload_hash, v_prev, v_hash);
    update beliefdb.audit_head set seq = v_seq, hash = v_hash where workspace_id = p_workspace_id;
    return v_seq;
end
$$;
comment on function beliefdb._audit_append(uuid, text, jsonb) is 'Append an event to a workspace''s audit chain (serialized per workspace)';

-- Append a summary event for the session's workspace (what the application role calls).
create or replace function beliefdb.audit(p_action text, p_payload jsonb) returns bigint
language sql security definer
set search_path = pg_catalog, pg_temp
as $$
    select beliefdb._audit_append(beliefdb.current_workspace_id(), p_action, p_payload)
$$;
comment on function beliefdb.audit(text, jsonb) is 'Append an event to the bound workspace''s audit chain';

-- Take the workspace's write lock (its audit head row) before anything else. Every change
-- appends to the chain, so writers in a workspace serialize on this row anyway; taking it first
-- keeps one lock order (head, then propagation, then rows) and so no deadlock.
create or replace function beliefdb.lock_workspace() returns void
language plpgsql security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    perform from beliefdb.audit_head h where h.workspace_id = beliefdb.current_workspace_id() for update;
    if not found then
        raise exception 'no workspace bound (set beliefdb.workspace_id), or the workspace has no audit chain'
            using errcode = 'BD003';
    end if;
end
$$;
comment on function beliefdb.lock_workspace() is 'Take the bound workspace''s write lock first (one lock order for every writer); BD003 when none is bound';

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

-- Trigger: one event per statement and workspace, naming the changed rows by key and
-- hashing their contents (the chain keeps hashes, not text). Arguments: key columns.
create or replace function beliefdb.audit_rows() returns trigger
language plpgsql security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_keys text[] := TG_ARGV;
    v_group record;
begin
    for v_group in
        select r.workspace_id,
               count(*) as n,
               jsonb_agg(r.key order by r.key) as keys,
               sha256(convert_to(string_agg(r.row_text, E'\n' order by r.row_text), 'UTF8')) as rows_hash
          from (select (to_jsonb(c) ->> 'workspace_id')::uuid as workspace_id,
                       array_to_string(array(select to_jsonb(c) ->> k from unnest(v_keys) as k), '/') as key,
                       to_jsonb(c)::text as row_text
                  from changed_rows c) r
         group by r.workspace_id
    loop
        perform beliefdb._audit_append(
            v_group.workspace_id,
            TG_TABLE_NAME || '.' || lower(TG_OP),
            jsonb_build_object('table', TG_TABLE_NAME, 'op', lower(TG_OP), 'count', v_group.n,
                               'keys', v_group.keys, 'rows_sha256', encode(v_group.rows_hash, 'hex')));
    end loop;
    return null;
end
$$;
comment on function beliefdb.audit_rows() is 'Trigger: append one audit event per changed statement and workspace';

-- Attach the row audit to every table that holds workspace data.
do $$
declare
    v_table record;
begin
    for v_table in
        select * from (values
            ('node', 'id'), ('source', 'id'), ('source_version', 'id'), ('fragment', 'id'), ('belief', 'id'),
            ('evidence', 'belief_id,fragment_id'), ('relation', 'id'), ('justification', 'id'),
            ('justification_antecedent', 'justification_id,antecedent'), ('decision', 'id'),
            ('action', 'id'), ('correction', 'id'), ('run', 'id'), ('step', 'id'), ('review_item', 'id'),
            ('trace_edge', 'from_node,to_node,kind'), ('repair', 'id'),
            ('embedding_model', 'workspace_id'), ('belief_embedding', 'belief_id,model'), ('outcome', 'id'),
            ('redaction', 'id')
        ) as t (name, keys)
    loop
        execute pg_catalog.format(
            'create or replace trigger %I after insert on beliefdb.%I referencing new table as changed_rows '
            'for each statement execute function beliefdb.audit_rows(%s)',
            v_table.name || '_audit_insert', v_table.name,
            (select string_agg(pg_catalog.quote_literal(k), ', ') from unnest(string_to_array(v_table.keys, ',')) k));
        execute pg_catalog.format(
            'create or replace trigger %I after update on beliefdb.%I referencing new table as changed_rows '
            'for each statement execute function beliefdb.audit_rows(%s)',
            v_table.name || '_audit_update', v_table.name,
            (select string_agg(pg_catalog.quote_literal(k), ', ') from unnest(string_to_array(v_table.keys, ',')) k));
        execute pg_catalog.format(
            'create or replace trigger %I after delete on beliefdb.%I referencing old table as changed_rows '
            'for each statement execute function beliefdb.audit_rows(%s)',
            v_table.name || '_audit_delete', v_table.name,
            (select string_agg(pg_catalog.quote_literal(k), ', ') from unnest(string_to_array(v_table.keys, ',')) k));
    end loop;
end
$$;

-- Verify a workspace's chain; first_broken is the first event whose link does not hold.
create or replace function beliefdb.audit_verify(p_workspace_id uuid default beliefdb.current_workspace_id())
returns table (ok boolean, events bigint, first_broken bigint)
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    with e as (
        select ev.seq, ev.prev_hash, ev.hash, ev.payload, ev.payload_hash, ev.at, ev.principal, ev.action,
               lag(ev.seq) over w as prev_seq,
               lag(ev.hash) over w as expected_prev
          from beliefdb.audit_event ev
         where ev.workspace_id = p_workspace_id
        window w as (order by ev.seq)
    ),
    broken as (
        select e.seq
          from e
         where e.seq <> coalesce(e.prev_seq, 0) + 1
            or e.prev_hash <> coalesce(e.expected_prev, beliefdb.audit_genesis())
            or (e.payload is not null and e.payload_hash <> beliefdb.audit_payload_hash(e.payload))
            or e.hash <> beliefdb.audit_link_hash(e.prev_hash, p_workspace_id, e.seq, e.at, e.principal,
                                                  e.action, e.payload_hash)
        union all
        -- events cut off the end, or a head that no longer matches the last event
        select least(h.seq, coalesce(max(e.seq), 0)) + 1
          from beliefdb.audit_head h
          left join e on true
         where h.workspace_id = p_workspace_id
        group by h.seq, h.hash
        having h.seq <> coalesce(max(e.seq), 0)
            or h.hash is distinct from (select e2.hash from e e2 order by e2.seq desc limit 1)
    )
    select (select count(*) from broken) = 0,
           (select count(*) from e),
           (select min(seq) from broken)
$$;
comment on function beliefdb.audit_verify(uuid) is 'Check a workspace''s audit chain: ok, number of events, first broken link';
