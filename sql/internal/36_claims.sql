-- beliefdb: claims and ingest internals (docs/rules.md, rules 1, 2, 15 and 18).
-- Python reads files and proposes claims with offsets; everything that decides what is true is
-- here: the fragment at exact offsets, evidence, a claim becoming a belief or corroborating one,
-- a new version carrying forward the beliefs it repeats, and the report of an ingest.

-- What a JSON value is, as a message names what was given in its place: "a string", "null", "missing"
-- (no such key), ...
create or replace function beliefdb._json_kind(p_value jsonb) returns text
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select case pg_catalog.jsonb_typeof(p_value)
               when 'object' then 'an object' when 'array' then 'an array' when 'string' then 'a string'
               when 'number' then 'a number' when 'boolean' then 'a boolean' when 'null' then 'null'
               else 'missing' end
$$;
comment on function beliefdb._json_kind(jsonb) is 'What a JSON value is, as a message names it: a string, a number, null, missing';

-- Why an offset of a claim or a fragment (p_value, the key p_key of it) is no offset, or null when it
-- is one: a whole JSON number from 0 (of at most 9 digits: an integer).
create or replace function beliefdb._offset_problem(p_value jsonb, p_key text, p_what text) returns text
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select case when pg_catalog.jsonb_typeof(p_value) = 'number' and (p_value #>> '{}') ~ '^[0-9]{1,9}$' then null
                else pg_catalog.format('%s must be a whole number from 0 (where %s %s in the text), not %s', p_key,
                                       p_what, case p_key when 'start' then 'begins' else 'ends' end,
                                       case pg_catalog.jsonb_typeof(p_value) when 'number' then p_value #>> '{}'
                                            else beliefdb._json_kind(p_value) end) end
$$;
comment on function beliefdb._offset_problem(jsonb, text, text) is 'Why a start or end offset given as JSON is not a whole number from 0 (null: it is one)';

-- What is wrong with a scope a caller gives (a claim's, or the one recall is asked in), in the words
-- every door says it in, or null when it is one: an object of named conditions, each a name that is
-- not blank and a value of text (a number would match no belief's condition: they are text). SQL null
-- (no scope): null.
create or replace function beliefdb._scope_problem(p_scope jsonb) returns text
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select case
        when p_scope is null then null
        when pg_catalog.jsonb_typeof(p_scope) <> 'object'
            then 'scope must be an object of named conditions with text values ({"region": "EU"}), not '
                 || beliefdb._json_kind(p_scope)
        else (select case when pg_catalog.btrim(e.key) = ''
                          then 'scope names a condition without a name: each needs one ({"region": "EU"})'
                          else pg_catalog.format('scope''s condition %s is %s: a condition''s value is text ({"region": "EU"})',
                                                 e.key, beliefdb._json_kind(e.value)) end
                from pg_catalog.jsonb_each(p_scope) e
               where pg_catalog.btrim(e.key) = '' or pg_catalog.jsonb_typeof(e.value) <> 'string'
               order by pg_catalog.btrim(e.key) <> '', e.key limit 1) end
$$;
comment on function beliefdb._scope_problem(jsonb) is 'What is wrong with a scope given (not an object, a condition without a name or with a value not text), in words; null when it is a scope';

-- Whether a text is a moment PostgreSQL reads as timestamptz (ISO 8601, and what else its input
-- syntax takes), as the cast that stores it will read it: a claim's valid_from and valid_to, a turn's
-- time. null: null. (pg_input_is_valid does this from PostgreSQL 16; beliefdb supports 15, so the cast
-- itself is tried, its error caught: a subtransaction a call, for the values given only.)
create or replace function beliefdb._is_timestamptz(p_text text) returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    if p_text is null then
        return null;
    end if;
    perform p_text::timestamptz;
    return true;
exception when data_exception then
    -- (22007 no date at all, 22008 a field out of range, 22023 an unknown time zone, ...)
    return false;
end
$$;
comment on function beliefdb._is_timestamptz(text) is 'Whether a text reads as a timestamptz (the cast tried, its error caught: PostgreSQL 15 has no pg_input_is_valid); null for null';

-- What a message says of a text that is not a moment (p_key, the field): the text (its first 60
-- characters) and what is accepted.
create or replace function beliefdb._moment_problem(p_key text, p_text text) returns text
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select pg_catalog.format('%s %L is not a timestamp (ISO 8601, such as 2026-03-01T09:00:00+00:00)', p_key,
                             pg_catalog.left(p_text, 60) || case when pg_catalog.length(p_text) > 60 then '...' else '' end)
$$;
comment on function beliefdb._moment_problem(text, text) is 'The words for a text given as a moment that is not one: the field, the text (its first 60 characters), what is accepted';

-- The claims a caller gives (ingest_version, append_turn, add_claims_to_source: p_claims, and the
-- p_rejected reported with them), checked once at the door, all of them in one statement, before
-- anything is written: an array of objects, each with statement, subject and attribute (non-empty
-- strings), value (a string, may be empty), quote (a non-empty string), start and end (whole numbers
-- from 0, end after start), and optionally kind (a belief kind), scope (an object of named text
-- conditions), valid_from and valid_to (timestamps, as text: beliefdb._is_timestamptz) and unless_given
-- (a boolean: beliefdb._not_given_before), as the library's claims reader checks a line
-- (beliefdb.store.ingest.parse_claim).
-- The first problem is invalid_input (BD005) naming the claim (1 for the first) and the field (its
-- DETAIL the two apart, {"claim", "problem"}, for a caller that names the claim otherwise); a
-- quote that is not the text at its offsets is the gate's to reject (beliefdb._add_claims), not this.
create or replace function beliefdb._check_claims(p_claims jsonb, p_rejected jsonb default '[]') returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_problem text;
    v_n bigint;
    v_claim jsonb;
begin
    if pg_catalog.jsonb_typeof(p_claims) <> 'array' then
        raise exception 'claims are a JSON array of claim objects ([{"statement", "subject", "attribute", "value", "quote", "start", "end"}]), not %',
            beliefdb._json_kind(p_claims) using errcode = 'BD005';
    end if;
    if pg_catalog.jsonb_typeof(p_rejected) <> 'array' then
        raise exception 'rejected claims are a JSON array of objects ([{"statement", "quote", "reason"}]), not %',
            beliefdb._json_kind(p_rejected) using errcode = 'BD005';
    end if;
    -- (one pass of built-in tests over every claim; the words, only for the first that fails them: a SQL
    -- function with its own search_path is called, not inlined, ~10 µs a call, 8,000 claims 0.15 s)
    select c.n, c.claim into v_n, v_claim
      from pg_catalog.jsonb_array_elements(coalesce(p_claims, '[]')) with ordinality as c (claim, n)
     where not case
               when pg_catalog.jsonb_typeof(c.claim) = 'object'
                    and pg_catalog.jsonb_typeof(c.claim -> 'statement') = 'string' and btrim(c.claim ->> 'statement') <> ''
                    and pg_catalog.jsonb_typeof(c.claim -> 'subject') = 'string' and btrim(c.claim ->> 'subject') <> ''
                    and pg_catalog.jsonb_typeof(c.claim -> 'attribute') = 'string' and btrim(c.claim ->> 'attribute') <> ''
                    and pg_catalog.jsonb_typeof(c.claim -> 'value') = 'string'
                    and pg_catalog.jsonb_typeof(c.claim -> 'quote') = 'string' and c.claim ->> 'quote' <> ''
                    and pg_catalog.jsonb_typeof(c.claim -> 'start') = 'number' and (c.claim ->> 'start') ~ '^[0-9]{1,9}$'
                    and pg_catalog.jsonb_typeof(c.claim -> 'end') = 'number' and (c.claim ->> 'end') ~ '^[0-9]{1,9}$'
                   then (c.claim ->> 'end')::integer > (c.claim ->> 'start')::integer
                        and coalesce(c.claim ->> 'kind', 'fact') in ('fact', 'rule', 'policy', 'preference', 'procedure',
                                                                     'event', 'observation', 'other')
                        and (not c.claim ? 'scope'
                             or (pg_catalog.jsonb_typeof(c.claim -> 'scope') = 'object'
                                 and not pg_catalog.jsonb_path_exists(c.claim -> 'scope',
                                         '$.keyvalue() ? (@.value.type() != "string" || @.key like_regex "^ *$")')))
                        and coalesce(pg_catalog.jsonb_typeof(c.claim -> 'valid_from'), 'null') in ('string', 'null')
                        and coalesce(pg_catalog.jsonb_typeof(c.claim -> 'valid_to'), 'null') in ('string', 'null')
                        and coalesce(beliefdb._is_timestamptz(c.claim ->> 'valid_from'), true)
                        and coalesce(beliefdb._is_timestamptz(c.claim ->> 'valid_to'), true)
                        and coalesce(pg_catalog.jsonb_typeof(c.claim -> 'unless_given'), 'null') in ('boolean', 'null')
               else false end
     order by c.n
     limit 1;
    if v_n is null then
        return;
    end if;
    v_problem := case
            when pg_catalog.jsonb_typeof(v_claim) <> 'object'
                then ' is ' || beliefdb._json_kind(v_claim) || ', not an object ({"statement", "subject", "attribute", "value", "quote", "start", "end"})'
            when pg_catalog.jsonb_typeof(v_claim -> 'statement') is distinct from 'string' or btrim(v_claim ->> 'statement') = ''
              or pg_catalog.jsonb_typeof(v_claim -> 'subject') is distinct from 'string' or btrim(v_claim ->> 'subject') = ''
              or pg_catalog.jsonb_typeof(v_claim -> 'attribute') is distinct from 'string' or btrim(v_claim ->> 'attribute') = ''
                then (select pg_catalog.format(': %s must be a non-empty string, not %s', k.key,
                                               case when pg_catalog.jsonb_typeof(v_claim -> k.key) = 'string'
                                                    then 'a blank one' else beliefdb._json_kind(v_claim -> k.key) end)
                        from unnest(array['statement', 'subject', 'attribute']) with ordinality k (key, m)
                       where pg_catalog.jsonb_typeof(v_claim -> k.key) is distinct from 'string'
                          or btrim(v_claim ->> k.key) = ''
                       order by k.m limit 1)
            when pg_catalog.jsonb_typeof(v_claim -> 'value') is distinct from 'string'
                then ': value must be a string (it may be empty), not ' || beliefdb._json_kind(v_claim -> 'value')
            when pg_catalog.jsonb_typeof(v_claim -> 'quote') is distinct from 'string' or v_claim ->> 'quote' = ''
                then ': quote must be a non-empty string (the text at start..end that says it), not '
                     || case when v_claim ->> 'quote' = '' then 'an empty one' else beliefdb._json_kind(v_claim -> 'quote') end
            when beliefdb._offset_problem(v_claim -> 'start', 'start', 'its quote') is not null
                then ': ' || beliefdb._offset_problem(v_claim -> 'start', 'start', 'its quote')
            when beliefdb._offset_problem(v_claim -> 'end', 'end', 'its quote') is not null
                then ': ' || beliefdb._offset_problem(v_claim -> 'end', 'end', 'its quote')
            when (v_claim ->> 'end')::integer <= (v_claim ->> 'start')::integer
                then pg_catalog.format(': end (%s) must be after start (%s): a quote is not empty',
                                       v_claim ->> 'end', v_claim ->> 'start')
            when coalesce(v_claim ->> 'kind', 'fact') not in ('fact', 'rule', 'policy', 'preference', 'procedure',
                                                             'event', 'observation', 'other')
                then pg_catalog.format(': unknown belief kind %s (choose from: fact, rule, policy, preference, procedure, event, observation, other)',
                                       v_claim ->> 'kind')
            when beliefdb._scope_problem(v_claim -> 'scope') is not null
                then ': ' || beliefdb._scope_problem(v_claim -> 'scope')
            when pg_catalog.jsonb_typeof(v_claim -> 'valid_from') not in ('string', 'null')
              or pg_catalog.jsonb_typeof(v_claim -> 'valid_to') not in ('string', 'null')
                then pg_catalog.format(': valid_from and valid_to are ISO 8601 timestamps (strings) or null, not %s',
                                       case when pg_catalog.jsonb_typeof(v_claim -> 'valid_from') not in ('string', 'null')
                                            then beliefdb._json_kind(v_claim -> 'valid_from')
                                            else beliefdb._json_kind(v_claim -> 'valid_to') end)
            when not beliefdb._is_timestamptz(v_claim ->> 'valid_from')
                then ': ' || beliefdb._moment_problem('valid_from', v_claim ->> 'valid_from')
            when not beliefdb._is_timestamptz(v_claim ->> 'valid_to')
                then ': ' || beliefdb._moment_problem('valid_to', v_claim ->> 'valid_to')
            when pg_catalog.jsonb_typeof(v_claim -> 'unless_given') not in ('boolean', 'null')
                then ': unless_given is true, false or null, not ' || beliefdb._json_kind(v_claim -> 'unless_given')
        end;
    if v_problem is not null then
        -- (which claim and what is wrong with it, apart, for a caller that names the claim otherwise:
        -- bulk_ingest_batch, by its document)
        raise exception '%', 'claim ' || v_n || v_problem
            using errcode = 'BD005', detail = pg_catalog.jsonb_build_object('claim', v_n, 'problem', v_problem)::text;
    end if;
end
$$;
comment on function beliefdb._check_claims(jsonb, jsonb) is 'Refuse (BD005) claims that are not an array of well-formed claim objects, naming the first bad claim and field';

-- The fragments a caller gives with a text (ingest_version, append_turn: p_fragments), checked once
-- at the door, in one statement, before anything is written: an array of objects, each with start and
-- end (whole numbers from 0, end after start and at most the text's length) and optionally speaker and
-- time (a string and a timestamp, beliefdb._is_timestamptz: a conversation's turn). The first problem is invalid_input (BD005) naming the
-- fragment (1 for the first) and the field.
create or replace function beliefdb._check_fragments(p_fragments jsonb, p_content text) returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_problem text;
    v_length integer;
    v_n bigint;
    v_fragment jsonb;
begin
    if pg_catalog.jsonb_typeof(p_fragments) <> 'array' then
        raise exception 'fragments are a JSON array of objects ([{"start": 0, "end": 12}]), not %',
            beliefdb._json_kind(p_fragments) using errcode = 'BD005';
    end if;
    if coalesce(pg_catalog.jsonb_array_length(p_fragments), 0) = 0 then
        return;
    end if;
    v_length := length(p_content);
    -- (one pass of built-in tests; the words only for the first fragment that fails them, as _check_claims)
    select f.n, f.fragment into v_n, v_fragment
      from pg_catalog.jsonb_array_elements(p_fragments) with ordinality as f (fragment, n)
     where not case
               when pg_catalog.jsonb_typeof(f.fragment) = 'object'
                    and pg_catalog.jsonb_typeof(f.fragment -> 'start') = 'number' and (f.fragment ->> 'start') ~ '^[0-9]{1,9}$'
                    and pg_catalog.jsonb_typeof(f.fragment -> 'end') = 'number' and (f.fragment ->> 'end') ~ '^[0-9]{1,9}$'
                   then (f.fragment ->> 'end')::integer > (f.fragment ->> 'start')::integer
                        and (f.fragment ->> 'end')::integer <= v_length
                        and coalesce(pg_catalog.jsonb_typeof(f.fragment -> 'speaker'), 'null') in ('string', 'null')
                        and coalesce(pg_catalog.jsonb_typeof(f.fragment -> 'time'), 'null') in ('string', 'null')
                        and coalesce(beliefdb._is_timestamptz(f.fragment ->> 'time'), true)
                        -- (a moment every client reads back, as a claim's valid time: _add_claims)
                        and case when beliefdb._is_timestamptz(f.fragment ->> 'time')
                                 then (f.fragment ->> 'time')::timestamptz
                                      between '0001-01-02 00:00+00' and '9999-12-30 23:59:59.999999+00'
                                 else true end
               else false end
     order by f.n
     limit 1;
    if v_n is null then
        return;
    end if;
    v_problem := 'fragment ' || v_n || case
            when pg_catalog.jsonb_typeof(v_fragment) <> 'object'
                then ' is ' || beliefdb._json_kind(v_fragment) || ', not an object ({"start": 0, "end": 12})'
            when beliefdb._offset_problem(v_fragment -> 'start', 'start', 'it') is not null
                then ': ' || beliefdb._offset_problem(v_fragment -> 'start', 'start', 'it')
            when beliefdb._offset_problem(v_fragment -> 'end', 'end', 'it') is not null
                then ': ' || beliefdb._offset_problem(v_fragment -> 'end', 'end', 'it')
            when (v_fragment ->> 'end')::integer <= (v_fragment ->> 'start')::integer
                then pg_catalog.format(': end (%s) must be after start (%s): a fragment is not empty',
                                       v_fragment ->> 'end', v_fragment ->> 'start')
            when (v_fragment ->> 'end')::integer > v_length
                then pg_catalog.format(': end (%s) is past the end of the text (%s characters)',
                                       v_fragment ->> 'end', v_length)
            when pg_catalog.jsonb_typeof(v_fragment -> 'speaker') not in ('string', 'null')
              or pg_catalog.jsonb_typeof(v_fragment -> 'time') not in ('string', 'null')
                then pg_catalog.format(': speaker and time (a turn''s) are strings or null, not %s',
                                       case when pg_catalog.jsonb_typeof(v_fragment -> 'speaker') not in ('string', 'null')
                                            then beliefdb._json_kind(v_fragment -> 'speaker')
                                            else beliefdb._json_kind(v_fragment -> 'time') end)
            when not beliefdb._is_timestamptz(v_fragment ->> 'time')
                then ': ' || beliefdb._moment_problem('time', v_fragment ->> 'time')
            when v_fragment ->> 'time' is not null
                then pg_catalog.format(': time %L is out of range (from 0001-01-02 to 9999-12-30, not infinity)',
                                       left(v_fragment ->> 'time', 60))
        end;
    if v_problem is not null then
        raise exception '%', v_problem using errcode = 'BD005';
    end if;
end
$$;
comment on function beliefdb._check_fragments(jsonb, text) is 'Refuse (BD005) fragments that are not an array of {start, end} objects within the text, naming the first bad fragment and field';

-- The fragment at exactly these offsets of a version, created if missing.
create or replace function beliefdb._fragment_at(p_workspace_id uuid, p_source_version_id uuid,
                                                p_start integer, p_end integer) returns uuid
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_id uuid;
begin
    select f.id into v_id
      from beliefdb.fragment f
     where f.workspace_id = p_workspace_id and f.source_version_id = p_source_version_id
       and f.start_offset = p_start and f.end_offset = p_end;
    if v_id is null then
        insert into beliefdb.fragment (workspace_id, source_version_id, start_offset, end_offset, text)
        select p_workspace_id, p_source_version_id, p_start, p_end, substr(v.content, p_start + 1, p_end - p_start)
          from beliefdb.source_version v
         where v.workspace_id = p_workspace_id and v.id = p_source_version_id
        returning id into v_id;
    end if;
    return v_id;
end
$$;
comment on function beliefdb._fragment_at(uuid, uuid, integer, integer) is 'Find or create the fragment at exact offsets of a source version';

-- Evidence for a belief: the fragment becomes one justification of the belief. False if it existed.
create or replace function beliefdb._add_evidence(p_workspace_id uuid, p_belief_id uuid, p_fragment_id uuid,
                                                 p_role text default 'supports') returns boolean
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_justification uuid;
begin
    if exists (select from beliefdb.evidence e
                where e.workspace_id = p_workspace_id and e.belief_id = p_belief_id
                  and e.fragment_id = p_fragment_id) then
        return false;
    end if;
    if p_role = 'supports' then
        insert into beliefdb.justification (workspace_id, consequent)
        values (p_workspace_id, p_belief_id)
        returning id into v_justification;
        insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, edge_kind)
        values (p_workspace_id, v_justification, p_fragment_id, 'evidence');
    end if;
    insert into beliefdb.evidence (workspace_id, belief_id, fragment_id, quote, role, justification_id)
    select p_workspace_id, p_belief_id, f.id, f.text, p_role, v_justification
      from beliefdb.fragment f
     where f.workspace_id = p_workspace_id and f.id = p_fragment_id;
    return true;
end
$$;
comment on function beliefdb._add_evidence(uuid, uuid, uuid, text) is 'Record that a fragment supports a belief (one justification per piece of evidence)';

-- Evidence for many beliefs at once (p_beliefs[i] from p_fragments[i]), as _add_evidence records
-- each: one justification per piece of evidence, a pair recorded already (or twice here) once. One
-- statement a table, so their statement triggers run once, not once a belief (a new version of a
-- document of 2,000 sentences re-verified its quotes one call each: 4 s, and more each version).
-- (it returned uuid[] at revisions 0038 and 0039, and create or replace cannot change a result type:
-- that one is dropped, this one kept)
do $$
begin
    if pg_catalog.pg_get_function_result(pg_catalog.to_regprocedure('beliefdb._add_evidence_all(uuid,uuid[],uuid[])'))
       is distinct from 'void' then
        drop function if exists beliefdb._add_evidence_all(uuid, uuid[], uuid[]);
    end if;
end
$$;
create or replace function beliefdb._add_evidence_all(p_workspace_id uuid, p_beliefs uuid[], p_fragments uuid[])
returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_beliefs uuid[];
    v_fragments uuid[];
    v_justifications uuid[];
begin
    select coalesce(array_agg(x.belief_id order by x.n), '{}'), coalesce(array_agg(x.fragment_id order by x.n), '{}'),
           coalesce(array_agg(gen_random_uuid() order by x.n), '{}')
      into v_beliefs, v_fragments, v_justifications
      from (select distinct on (u.belief_id, u.fragment_id) u.belief_id, u.fragment_id, u.n
              from unnest(p_beliefs, p_fragments) with ordinality as u (belief_id, fragment_id, n)
             order by u.belief_id, u.fragment_id, u.n) x
     where not exists (select from beliefdb.evidence e
                        where e.workspace_id = p_workspace_id and e.belief_id = x.belief_id
                          and e.fragment_id = x.fragment_id);
    insert into beliefdb.justification (workspace_id, id, consequent)
    select p_workspace_id, u.id, u.belief_id from unnest(v_justifications, v_beliefs) as u (id, belief_id);
    insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, edge_kind)
    select p_workspace_id, u.id, u.fragment_id, 'evidence'
      from unnest(v_justifications, v_fragments) as u (id, fragment_id);
    insert into beliefdb.evidence (workspace_id, belief_id, fragment_id, quote, role, justification_id)
    select p_workspace_id, u.belief_id, f.id, f.text, 'supports', u.id
      from unnest(v_justifications, v_beliefs, v_fragments) with ordinality as u (id, belief_id, fragment_id, n)
      join beliefdb.fragment f on f.workspace_id = p_workspace_id and f.id = u.fragment_id
     order by u.n;
end
$$;
comment on function beliefdb._add_evidence_all(uuid, uuid[], uuid[]) is 'Record that fragments support beliefs, pair by pair, in one statement a table (as _add_evidence each)';

-- Gather planner statistics again for the tables an ingest adds to row by row, when this ingest
-- has added more beliefs (p_added) than the planner believes the table holds: a large first ingest
-- (a new database, or tables far smaller than the document) was planned for the tables as they
-- were, and a plan for a few rows (a sequential scan, or any index that starts with workspace_id,
-- which has no statistics) was kept for every claim while the tables grew by thousands: each
-- lookup by id read every row, time quadratic in the document. New statistics make the planner
-- plan again, for the tables' size now (the rows of this transaction count). A table another
-- session is analysing is left as it is (lock_timeout): its statistics are coming. So is every table
-- in a session not of the schema's owner (an agent's login, beliefdb._may_analyze): its ANALYZE would
-- hold the tables every workspace shares until its transaction ended, which that login chooses.
create or replace function beliefdb._restat_ingest_tables(p_added bigint) returns boolean
language plpgsql
set search_path = pg_catalog, pg_temp
set lock_timeout = '100ms'
as $$
begin
    if (select c.reltuples from pg_catalog.pg_class c where c.oid = 'beliefdb.belief'::regclass) >= p_added
       or not beliefdb._owner_session() then
        return false;
    end if;
    -- (in order of their names, as every ANALYZE of beliefdb: beliefdb._analyze_text_tables)
    analyze beliefdb.adjacency, beliefdb.belief, beliefdb.evidence, beliefdb.fragment, beliefdb.justification,
            beliefdb.justification_antecedent, beliefdb.node, beliefdb.relation;
    return true;
exception when lock_not_available then
    return false;
end
$$;
comment on function beliefdb._restat_ingest_tables(bigint) is 'Gather planner statistics of the tables an ingest grows, when it added more beliefs than the planner knows of (plans for a few rows read every row)';

-- The claims less the past values inferred that the workspace gave before. A claim with "unless_given":
-- true is a value inferred, not said (the rule extractor's W of "I moved from W to X": where the speaker
-- lived until the turn); it is left out when a belief of the same world gives its subject and attribute
-- that value (case aside) in its scope, holds or held it (current, conflicting, superseded; expired only
-- when its valid time ran up to the claim's end at least) and starts its valid time before the claim's
-- ends: said in any conversation or document of the workspace, the value is there already, and the move
-- supersedes it (rule 8) rather than adding a second, past one. A value whose valid time ended before the
-- move ("lived in Oslo until 2001") leaves the time up to the move untold: the claim stays.
-- A belief with the claim's own valid time is the claim itself (recorded before: unchanged, as any claim).
create or replace function beliefdb._not_given_before(p_workspace_id uuid, p_world beliefdb.provenance, p_claims jsonb)
returns jsonb
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select case
        when not coalesce(p_claims, '[]') @? '$[*] ? (@.unless_given == true)' then p_claims
        else (select coalesce(jsonb_agg(x.claim order by x.n), '[]')
                from jsonb_array_elements(p_claims) with ordinality as x (claim, n)
               where x.claim -> 'unless_given' is distinct from 'true'
                  or not exists (
                         select from beliefdb.belief b
                          where b.workspace_id = p_workspace_id
                            and b.subject = x.claim ->> 'subject' and b.attribute = x.claim ->> 'attribute'
                            and lower(b.value) = lower(x.claim ->> 'value')
                            and b.scope = coalesce(x.claim -> 'scope', '{}') and b.provenance = p_world
                            and (b.status::text in ('current', 'conflicting', 'superseded')
                                 or (b.status::text = 'expired' and x.claim ->> 'valid_to' is not null
                                     and upper(b.valid_time) >= (x.claim ->> 'valid_to')::timestamptz))
                            and not (lower(b.valid_time) is not distinct from (x.claim ->> 'valid_from')::timestamptz
                                     and upper(b.valid_time) is not distinct from (x.claim ->> 'valid_to')::timestamptz)
                            and (lower_inf(b.valid_time) or x.claim ->> 'valid_to' is null
                                 or lower(b.valid_time) < (x.claim ->> 'valid_to')::timestamptz)))
    end
$$;
comment on function beliefdb._not_given_before(uuid, beliefdb.provenance, jsonb) is 'Claims less those marked unless_given (a past value inferred) whose value the workspace already gives the subject and attribute, in the scope and world, from before the claim''s valid time ends (an expired one only when it ran up to the claim''s end)';

-- A value with every run of whitespace one space, and none at either end (as the rule extractor spells
-- a value: Python's str.split, whose whitespace this class is)
create or replace function beliefdb._one_spaced(p_value text) returns text
language sql immutable strict parallel safe
set search_path = pg_catalog, pg_temp
as $$
    select regexp_replace(regexp_replace(p_value, '[\s\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u001c-\u001f]+', ' ', 'g'), '^ | $', '', 'g')
$$;
comment on function beliefdb._one_spaced(text) is 'A value with each run of whitespace one space, trimmed';

-- The spelling of a claim's value that a belief of its subject, attribute, scope and world (p_world) has:
-- a value that is the claim's once every run of whitespace in either is one space (a value stored before
-- extracted values were spelled with single spaces, or one given with double spaces or a tab), a believed
-- one first, then the earliest; null when none differs so, or when a belief has the value as spelled.
create or replace function beliefdb._stored_spelling(p_workspace_id uuid, p_world beliefdb.provenance,
                                                     p_subject text, p_attribute text, p_scope jsonb, p_value text)
returns text
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select b.value
      from beliefdb.belief b
     where b.workspace_id = p_workspace_id and b.subject = p_subject and b.attribute = p_attribute
       and b.scope = coalesce(p_scope, '{}') and b.provenance = p_world
       and b.value <> p_value and beliefdb._one_spaced(b.value) = beliefdb._one_spaced(p_value)
       and not exists (select from beliefdb.belief e
                        where e.workspace_id = p_workspace_id and e.subject = p_subject and e.attribute = p_attribute
                          and e.scope = coalesce(p_scope, '{}') and e.provenance = p_world and e.value = p_value)
     order by b.status::text not in ('current', 'conflicting', 'expired'), b.recorded_at, b.id
     limit 1
$$;
comment on function beliefdb._stored_spelling(uuid, beliefdb.provenance, text, text, jsonb, text) is 'The spelling a belief of a claim''s subject, attribute, scope and world gives its value, differing only in its runs of whitespace (null: none, or one spelled as the claim is)';

-- A claim spelled as a belief of the workspace is (beliefdb._stored_spelling): the claim is that belief
-- (unchanged, corroborating it), never its rival. Asked only when a belief or a claim is spelled with a
-- run of whitespace, a tab or a space at an end: whether a belief is, the index belief_spaced_value
-- answers (its predicate, written out here).
create or replace function beliefdb._stored_spellings(p_workspace_id uuid, p_world beliefdb.provenance, p_claims jsonb)
returns jsonb
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select case
        when not exists (select from beliefdb.belief b
                          where b.workspace_id = p_workspace_id
                            and b.value ~ '[\s\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u001c-\u001f]{2}|[\t\n\v\f\r\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u001c-\u001f]')
             and not exists (select from jsonb_array_elements(coalesce(p_claims, '[]')) c (claim)
                              where beliefdb._one_spaced(c.claim ->> 'value') <> c.claim ->> 'value')
            then p_claims
        else (select coalesce(jsonb_agg(case when s.value is null then x.claim
                                             else jsonb_set(x.claim, '{value}', to_jsonb(s.value)) end
                                        order by x.n), '[]')
                from jsonb_array_elements(p_claims) with ordinality as x (claim, n)
               cross join lateral beliefdb._stored_spelling(p_workspace_id, p_world, x.claim ->> 'subject',
                                                            x.claim ->> 'attribute', x.claim -> 'scope',
                                                            x.claim ->> 'value') as s (value))
    end
$$;
comment on function beliefdb._stored_spellings(uuid, beliefdb.provenance, jsonb) is 'Claims whose value is a belief''s of their subject, attribute, scope and world but for its runs of whitespace (and none is theirs as spelled), spelled as that belief is';
-- (the function took no world before)
drop function if exists beliefdb._stored_spellings(uuid, jsonb);

-- Whether a superseded belief comes back once a new version of a source is in force (p_version_id):
-- every belief that supersedes it and holds is an extracted one whose quotes all lie in this source's
-- other versions, which the new one does not repeat (what it repeats has gone forward to it already,
-- beliefdb._carry_forward) nor says again in other words (none of p_claims, the new version's, is its
-- claim): with the version in force before it, they stop holding, and the belief is current again (rule
-- 3). A claim of the new version that is this belief's corroborates it (beliefdb._add_claims), so that
-- the claim is not believed twice.
create or replace function beliefdb._falls_back(p_workspace_id uuid, p_belief_id uuid, p_version_id uuid,
                                                p_claims jsonb)
returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    with winner as (
        select w.id, w.confidence_kind, w.subject, w.attribute, w.value, w.scope, w.valid_time
          from beliefdb.relation r
          join beliefdb.node n on n.workspace_id = r.workspace_id and n.id = r.from_belief and n.holds
          join beliefdb.belief w on w.workspace_id = r.workspace_id and w.id = r.from_belief
         where r.workspace_id = p_workspace_id and r.to_belief = p_belief_id and r.kind = 'supersedes'
           and r.ended_at is null
    ), here as (
        select v.source_id from beliefdb.source_version v where v.workspace_id = p_workspace_id and v.id = p_version_id
    )
    select exists (select from winner)
           and not exists (
               select from winner w
                where w.confidence_kind <> 'extracted'
                   or exists (select from jsonb_array_elements(coalesce(p_claims, '[]')) as c (claim)
                               where c.claim ->> 'subject' = w.subject and c.claim ->> 'attribute' = w.attribute
                                 and c.claim ->> 'value' = w.value and coalesce(c.claim -> 'scope', '{}') = w.scope
                                 -- (a claim that ends before it starts is refused by the loop, in words)
                                 and case when (c.claim ->> 'valid_from')::timestamptz
                                               > (c.claim ->> 'valid_to')::timestamptz then false
                                          else tstzrange((c.claim ->> 'valid_from')::timestamptz,
                                                         (c.claim ->> 'valid_to')::timestamptz, '[)') = w.valid_time
                                     end)
                   or not exists (select from beliefdb.evidence e
                                   where e.workspace_id = p_workspace_id and e.belief_id = w.id and e.role = 'supports')
                   or exists (select from beliefdb.evidence e
                                join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
                                join beliefdb.source_version v
                                  on v.workspace_id = f.workspace_id and v.id = f.source_version_id
                               where e.workspace_id = p_workspace_id and e.belief_id = w.id and e.role = 'supports'
                                 and (v.id = p_version_id or v.source_id <> (select h.source_id from here h))))
$$;
comment on function beliefdb._falls_back(uuid, uuid, uuid, jsonb) is 'Whether a superseded belief is current again once a new version is in force: what supersedes it rests only on quotes of the source''s other versions that the new one does not repeat';

-- Accept gated claims against one source version. Each claim is a JSON object with
-- statement, subject, attribute, value, quote, start, end and optional kind, scope,
-- valid_from, valid_to. Returns the outcome of each claim. A claim is one belief of the source's
-- world (rule 15) with its subject, attribute, value, scope and valid time: the same claim from the
-- same fragment again changes nothing (unchanged, whatever became of the belief since), the same
-- claim elsewhere adds evidence to it (corroborated), anything else is a new belief. The API's doors
-- checked the claims' shape (beliefdb._check_claims); what is left here is the gate's: a quote that is
-- not the text at its offsets is rejected, with its reason.
create or replace function beliefdb._add_claims(p_workspace_id uuid, p_source_version_id uuid, p_claims jsonb,
                                               p_rejected jsonb default '[]', p_propagate boolean default true)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row record;
    v_claim jsonb;
    v_content text;
    v_length integer;
    v_start integer;
    v_end integer;
    v_starts integer[];
    v_ends integer[];
    v_actual text[];
    v_fragment uuid;
    v_belief uuid;
    v_valid tstzrange;
    -- each settling's result (_settle), in the order settled
    v_settles jsonb[] := '{}';
    -- lists grow one element at a time (in place); jsonb || jsonb copied the whole list each time
    v_accepted jsonb[] := '{}';
    v_rejected jsonb[] := '{}';
    v_corroborated jsonb[] := '{}';
    v_unchanged jsonb[] := '{}';
    v_superseded jsonb[] := '{}';
    v_conflicts jsonb[] := '{}';
    v_touched uuid[] := '{}';
    v_fragments uuid[] := '{}';
    v_world beliefdb.provenance;
    v_in_force boolean := beliefdb.in_force(p_workspace_id, p_source_version_id);
    -- (a conversation's claims rank by their turn: the same words said again later are a new belief,
    -- which may win where the earlier one lost; a document's are one belief, ranked as its version)
    v_conversation boolean;
    -- (when to look at the planner's statistics again: 64, 256, 1024, ... claims)
    v_restat bigint := 64;
    -- the claims stored set-based (claim number, the belief it makes or corroborates, whether new, its
    -- fragment), and the claim number of each accepted and each corroborating claim
    v_set_n bigint[];
    v_set_ids uuid[];
    v_set_new boolean[];
    v_set_fragments uuid[];
    -- (whether it leads its subject and attribute: the one claim there, or the first of a repeated
    -- one, settled once for all)
    v_set_leads boolean[];
    v_accepted_n bigint[] := '{}';
    v_corroborated_n bigint[] := '{}';
    -- by claim number, whether it was stored set-based (v_set_n): `= any(v_set_n)` for every claim
    -- of the loop read the whole list each time, 64 million comparisons for 8,000 claims
    v_set_mark boolean[];
begin
    -- (turns rank a quote by its turn whatever the source is called: a text given as turns with
    -- origin document is a conversation here, as beliefdb._belief_rank reads it)
    select v.content, s.provenance,
           s.origin_type = 'conversation'
           or exists (select from beliefdb.fragment f
                       where f.workspace_id = v.workspace_id and f.source_version_id = v.id and f.speaker is not null)
      into v_content, v_world, v_conversation
      from beliefdb.source_version v
      join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
     where v.workspace_id = p_workspace_id and v.id = p_source_version_id;
    if v_content is null then
        raise exception 'unknown source version %', p_source_version_id using errcode = 'BD004';
    end if;
    select u.claims, u.rejected into p_claims, p_rejected
      from beliefdb._believable(p_workspace_id, p_source_version_id, p_claims, p_rejected) u;
    -- (a value spelled with other whitespace than a belief's is that belief's value)
    p_claims := beliefdb._stored_spellings(p_workspace_id, v_world, p_claims);
    -- (a past value inferred that a belief of the workspace gives already: not a second one)
    p_claims := beliefdb._not_given_before(p_workspace_id, v_world, p_claims);
    v_length := length(v_content);

    -- the text at every claim's offsets, read in one pass (a span that cannot be in the text: null)
    select coalesce(array_agg(case when x.s >= 0 and x.e > x.s and x.e <= v_length then x.s end order by x.n), '{}'),
           coalesce(array_agg(case when x.s >= 0 and x.e > x.s and x.e <= v_length then x.e end order by x.n), '{}')
      into v_starts, v_ends
      from (select (c.claim ->> 'start')::integer as s, (c.claim ->> 'end')::integer as e, c.n
              from jsonb_array_elements(coalesce(p_claims, '[]')) with ordinality as c (claim, n)) x;
    v_actual := beliefdb._slices(v_content, v_starts, v_ends);
    -- the missing fragments of the claims the gate lets through, in one statement (never "on
    -- conflict do nothing": the node trigger runs before the conflict is found, leaving a node)
    insert into beliefdb.fragment (workspace_id, source_version_id, start_offset, end_offset, text)
    select distinct on (c.s, c.e) p_workspace_id, p_source_version_id, c.s, c.e, c.actual
      from unnest(v_starts, v_ends, v_actual, array(
               select q.claim ->> 'quote' from jsonb_array_elements(coalesce(p_claims, '[]')) with ordinality as q (claim, n)
                order by q.n)) as c (s, e, actual, quote)
     where c.s is not null and c.actual = c.quote
       and not exists (select from beliefdb.fragment f
                        where f.workspace_id = p_workspace_id and f.source_version_id = p_source_version_id
                          and f.start_offset = c.s and f.end_offset = c.e)
     order by c.s, c.e;

    -- Set-based, the claims that are the only claim of this call on their subject and attribute (so
    -- no other claim of it corroborates, repeats or rivals them: the order they are settled in is
    -- theirs alone), through the gate, a valid time in range, and either a claim (subject, attribute,
    -- value, scope, valid time, world) no belief of the workspace has ever been (a new belief), or one
    -- a belief believed now (or expired) is and that was never recorded from this fragment (it
    -- corroborates the first such belief, as the loop would find it). So too a document's claims that
    -- all say the same on their subject and attribute (a line repeated through a file): the first is
    -- stored as above and the others corroborate its belief, as the loop would one by one, and it is
    -- settled once, with all their evidence: the same words of one version rank the same, so settling
    -- it again after each changed nothing (a file of 300,000 such lines took the loop 600 s, every
    -- write to the workspace waiting). Each statement below stores all of them at once, as the loop
    -- would one by one (its row triggers and one audit event per statement, not per claim); then each
    -- is settled (rule 8) in claim order. Every other claim goes through the loop, as before.
    with c as (
        select x.n, x.claim, x.s, x.e, x.valid,
               count(*) over (partition by x.subject, x.attribute) as same_topic,
               count(*) over (partition by x.subject, x.attribute, x.value, x.scope, x.valid) as same_claim
          from (select x.n, x.claim, (x.claim ->> 'start')::integer as s, (x.claim ->> 'end')::integer as e,
                       x.claim ->> 'subject' as subject, x.claim ->> 'attribute' as attribute,
                       x.claim ->> 'value' as value, coalesce(x.claim -> 'scope', '{}') as scope,
                       -- (one that ends before it starts is taken as empty here: the loop below refuses it in words)
                       case when (x.claim ->> 'valid_from')::timestamptz > (x.claim ->> 'valid_to')::timestamptz
                            then 'empty'::tstzrange
                            else tstzrange((x.claim ->> 'valid_from')::timestamptz,
                                           (x.claim ->> 'valid_to')::timestamptz, '[)')
                       end as valid
                  from jsonb_array_elements(coalesce(p_claims, '[]')) with ordinality as x (claim, n)) x
    ), k as (
        select c.n, c.claim, f.id as fragment_id,
               (select b.id
                  from beliefdb.belief b
                 where b.workspace_id = p_workspace_id
                   and b.subject = c.claim ->> 'subject' and b.attribute = c.claim ->> 'attribute'
                   and b.value = c.claim ->> 'value' and b.scope = coalesce(c.claim -> 'scope', '{}')
                   and b.valid_time = c.valid and b.provenance = v_world
                 -- (one believed now first, the earliest; any other says the claim is not new)
                 order by b.status::text not in ('current', 'conflicting', 'expired'), b.recorded_at, b.id
                 limit 1) as existing
          from c
          -- (each claim's fragment by its whole key, lateral behind offset 0: joined, the plan made
          -- while the tables were small read the version's every fragment for each claim, its
          -- offsets a filter, 32 million rows for a first document of 8,000 claims, 4.4 s)
         cross join lateral (select f.id
                               from beliefdb.fragment f
                              where f.workspace_id = p_workspace_id and f.source_version_id = p_source_version_id
                                and f.start_offset = v_starts[c.n] and f.end_offset = v_ends[c.n]
                             offset 0) f
         where (c.same_topic = 1 or (c.same_topic = c.same_claim and not v_conversation)) and not isempty(c.valid)
           and v_starts[c.n] is not null and v_actual[c.n] = c.claim ->> 'quote'
           and (lower_inf(c.valid) or lower(c.valid) between '0001-01-02 00:00+00' and '9999-12-30 23:59:59.999999+00')
           and (upper_inf(c.valid) or upper(c.valid) between '0001-01-02 00:00+00' and '9999-12-30 23:59:59.999999+00')
    ), m as (
        -- (those the loop would not find unchanged: a claim recorded from its fragment before, or a
        -- second claim of the same fragment, is the loop's, which says so; the first of each subject
        -- and attribute left leads: it makes the new belief the others corroborate)
        select k.n, k.claim, k.fragment_id, k.existing,
               min(k.n) over (partition by k.claim ->> 'subject', k.claim ->> 'attribute') as leader
          from (select k.*, row_number() over (partition by k.claim ->> 'subject', k.claim ->> 'attribute',
                                                            k.fragment_id order by k.n) as nth
                  from k) k
          left join beliefdb.belief b on b.workspace_id = p_workspace_id and b.id = k.existing
         where k.nth = 1
           and (k.existing is null
                or (b.status::text in ('current', 'conflicting', 'expired')
                    and not exists (select from beliefdb.evidence e
                                      join beliefdb.belief o on o.workspace_id = e.workspace_id and o.id = e.belief_id
                                     where e.workspace_id = p_workspace_id and e.fragment_id = k.fragment_id
                                       and o.subject = b.subject and o.attribute = b.attribute and o.value = b.value
                                       and o.scope = b.scope and o.valid_time = b.valid_time
                                       and o.provenance = b.provenance)))
    ), fresh as (
        -- (one new id a leader that makes a new belief)
        select l.leader, pg_catalog.gen_random_uuid() as id
          from (select distinct m.leader from m where m.existing is null) l
    )
    select coalesce(array_agg(m.n order by m.n), '{}'),
           coalesce(array_agg(coalesce(m.existing, fresh.id) order by m.n), '{}'),
           coalesce(array_agg(m.existing is null and m.n = m.leader order by m.n), '{}'),
           coalesce(array_agg(m.fragment_id order by m.n), '{}'),
           coalesce(array_agg(m.n = m.leader order by m.n), '{}')
      into v_set_n, v_set_ids, v_set_new, v_set_fragments, v_set_leads
      from m
      left join fresh on fresh.leader = m.leader;
    if cardinality(v_set_n) > 0 then
        -- (the new ones' node rows first, in one statement: create_node finds them there)
        insert into beliefdb.node (workspace_id, id, kind)
        select p_workspace_id, u.id, 'belief' from unnest(v_set_ids, v_set_new) as u (id, new) where u.new;
        insert into beliefdb.belief (workspace_id, id, statement, subject, attribute, value, kind, scope,
                                     valid_time, recorded_at, provenance, confidence_kind)
        select p_workspace_id, u.id, c.claim ->> 'statement', c.claim ->> 'subject', c.claim ->> 'attribute',
               c.claim ->> 'value', coalesce(c.claim ->> 'kind', 'fact'), coalesce(c.claim -> 'scope', '{}'),
               tstzrange((c.claim ->> 'valid_from')::timestamptz, (c.claim ->> 'valid_to')::timestamptz, '[)'),
               beliefdb.clock(), v_world,
               case when c.claim ->> 'confidence_kind' = 'agent_asserted' then 'agent_asserted'
                    else 'extracted' end::beliefdb.confidence_kind
          from unnest(v_set_n, v_set_ids, v_set_new) as u (n, id, new)
          join jsonb_array_elements(coalesce(p_claims, '[]')) with ordinality as c (claim, n) on c.n = u.n
         where u.new
         order by u.n;
        -- their evidence, as the loop records it (one justification each)
        perform beliefdb._add_evidence_all(p_workspace_id, v_set_ids, v_set_fragments);
        v_fragments := v_fragments || v_set_fragments;
        -- (statistics that count the rows just stored, for the settling below: ANALYZE sees this
        -- transaction's rows)
        if cardinality(array_positions(v_set_new, true)) >= v_restat then
            perform beliefdb._restat_ingest_tables(cardinality(array_positions(v_set_new, true)));
        end if;
        for v_i in 1 .. cardinality(v_set_n) loop
            v_claim := p_claims -> (v_set_n[v_i]::integer - 1);
            v_belief := v_set_ids[v_i];
            if v_set_new[v_i] then
                v_accepted := array_append(v_accepted, jsonb_build_object(
                    'id', v_belief, 'statement', v_claim ->> 'statement', 'subject', v_claim ->> 'subject',
                    'attribute', v_claim ->> 'attribute', 'value', v_claim ->> 'value',
                    'quote', v_claim ->> 'quote', 'start', v_starts[v_set_n[v_i]], 'end', v_ends[v_set_n[v_i]]));
                v_accepted_n := array_append(v_accepted_n, v_set_n[v_i]);
            else
                v_corroborated := array_append(v_corroborated, jsonb_build_object(
                    'id', v_belief, 'statement', v_claim ->> 'statement', 'quote', v_claim ->> 'quote',
                    'start', v_starts[v_set_n[v_i]], 'end', v_ends[v_set_n[v_i]]));
                v_corroborated_n := array_append(v_corroborated_n, v_set_n[v_i]);
            end if;
            v_touched := array_append(v_touched, v_belief);
            if v_in_force and v_set_leads[v_i] then
                v_settles := array_append(v_settles, beliefdb._settle(p_workspace_id, v_belief)
                                                     || jsonb_build_object('corroborating', not v_set_new[v_i]));
            end if;
        end loop;
        v_restat := greatest(v_restat, cardinality(v_set_n) * 4);
    end if;

    v_set_mark := array_fill(false, array[greatest(jsonb_array_length(coalesce(p_claims, '[]')), 1)]);
    for v_i in 1 .. cardinality(v_set_n) loop
        v_set_mark[v_set_n[v_i]] := true;
    end loop;
    for v_row in select c.claim, c.n from jsonb_array_elements(coalesce(p_claims, '[]')) with ordinality as c (claim, n) loop
        if v_set_mark[v_row.n] then
            continue;
        end if;
        if v_row.n = v_restat then
            perform beliefdb._restat_ingest_tables(v_row.n);
            v_restat := v_restat * 4;
        end if;
        v_claim := v_row.claim;
        v_start := (v_claim ->> 'start')::integer;
        v_end := (v_claim ->> 'end')::integer;
        -- the gate, again: Python found the offsets, the database checks them
        if v_start is null or v_end is null or v_start < 0 or v_end <= v_start or v_end > v_length
           or v_actual[v_row.n] is distinct from v_claim ->> 'quote' then
            v_rejected := array_append(v_rejected, jsonb_build_object(
                'statement', v_claim ->> 'statement', 'quote', v_claim ->> 'quote',
                'reason', 'quote is not the source text at the given offsets'));
            continue;
        end if;
        -- (valid_from = valid_to is a range of no time, which PostgreSQL keeps as 'empty': read back, it
        -- has no bounds, as if valid always; one that ends before it starts is no range at all)
        if (v_claim ->> 'valid_from')::timestamptz >= (v_claim ->> 'valid_to')::timestamptz then
            raise exception 'valid time is empty: valid_to (%) must be after valid_from (%)',
                (v_claim ->> 'valid_to')::timestamptz, (v_claim ->> 'valid_from')::timestamptz using errcode = 'BD005';
        end if;
        v_valid := tstzrange((v_claim ->> 'valid_from')::timestamptz, (v_claim ->> 'valid_to')::timestamptz, '[)');
        -- a bound beyond what every client can read back (years 1 to 9999 in any time zone, never
        -- infinity) would make this belief unreadable for everyone: refused as bad input
        if (not lower_inf(v_valid) and not (lower(v_valid) between '0001-01-02 00:00+00' and '9999-12-30 23:59:59.999999+00'))
           or (not upper_inf(v_valid) and not (upper(v_valid) between '0001-01-02 00:00+00' and '9999-12-30 23:59:59.999999+00'))
        then
            raise exception 'valid time out of range: % (from 0001-01-02 to 9999-12-30, not infinity)', v_valid
                using errcode = 'BD005';
        end if;
        v_fragment := beliefdb._fragment_at(p_workspace_id, p_source_version_id, v_start, v_end);

        -- recorded from this very fragment before (an unchanged text again, a conversation grown, or
        -- a version that repeats an earlier one): nothing new, whatever became of the belief since
        -- (rule 18), and nothing to evaluate again (neither it nor its fragment changed here: a
        -- conversation of 2,000 turns ingested again evaluated every belief it had, 2 s)
        select b.id into v_belief
          from beliefdb.evidence e
          join beliefdb.belief b on b.workspace_id = e.workspace_id and b.id = e.belief_id
         where e.workspace_id = p_workspace_id and e.fragment_id = v_fragment
           and b.subject = v_claim ->> 'subject' and b.attribute = v_claim ->> 'attribute'
           and b.value = v_claim ->> 'value' and b.scope = coalesce(v_claim -> 'scope', '{}')
           and b.valid_time = v_valid and b.provenance = v_world
         limit 1;
        if v_belief is not null then
            v_unchanged := array_append(v_unchanged,
                                        jsonb_build_object('id', v_belief, 'statement', v_claim ->> 'statement'));
            continue;
        end if;
        v_fragments := array_append(v_fragments, v_fragment);

        -- the same claim, believed now (or expired: it was true for exactly that time); else one superseded
        -- only by what this version takes out of force: a source that goes back to a value another source
        -- still gives (20, then 19 over it, then 20 again) brings that belief back, which the propagation
        -- will find current again; a new belief of the claim would be a second one (rule 18: one current
        -- belief per claim)
        select b.id into v_belief
          from beliefdb.belief b
         where b.workspace_id = p_workspace_id
           and b.subject = v_claim ->> 'subject' and b.attribute = v_claim ->> 'attribute'
           and b.value = v_claim ->> 'value'
           and b.scope = coalesce(v_claim -> 'scope', '{}')
           and b.valid_time = v_valid and b.provenance = v_world
           and (b.status::text in ('current', 'conflicting', 'expired')
                or (v_in_force and b.status = 'superseded'
                    and beliefdb._falls_back(p_workspace_id, b.id, p_source_version_id, p_claims)))
         order by b.status = 'superseded', b.recorded_at, b.id
         limit 1;
        -- the claims of one document that say the same are one belief (rule 18), also when rule 8
        -- superseded it as this call settled an earlier one of them: the same words of the same
        -- version rank the same, so a second belief would only lose again (four lines of one file
        -- that lost to an official source were four superseded beliefs)
        if v_belief is null and not v_conversation then
            select b.id into v_belief
              from beliefdb.belief b
             where b.workspace_id = p_workspace_id
               and b.subject = v_claim ->> 'subject' and b.attribute = v_claim ->> 'attribute'
               and b.value = v_claim ->> 'value'
               and b.scope = coalesce(v_claim -> 'scope', '{}')
               and b.valid_time = v_valid and b.provenance = v_world
               and b.status = 'superseded'
               and b.id = any(v_touched)
             order by b.recorded_at, b.id
             limit 1;
        end if;

        if v_belief is not null then
            if beliefdb._add_evidence(p_workspace_id, v_belief, v_fragment) then
                v_corroborated := array_append(v_corroborated, jsonb_build_object(
                    'id', v_belief, 'statement', v_claim ->> 'statement', 'quote', v_claim ->> 'quote',
                    'start', v_start, 'end', v_end));
                v_corroborated_n := array_append(v_corroborated_n, v_row.n);
                -- new support can change the rank: settle again (evidence not in force changes nothing)
                if v_in_force then
                    v_settles := array_append(v_settles, beliefdb._settle(p_workspace_id, v_belief)
                                                         || '{"corroborating": true}');
                end if;
            else
                v_unchanged := array_append(v_unchanged,
                                            jsonb_build_object('id', v_belief, 'statement', v_claim ->> 'statement'));
            end if;
            v_touched := array_append(v_touched, v_belief);
            continue;
        end if;

        insert into beliefdb.belief (workspace_id, statement, subject, attribute, value, kind, scope,
                                     valid_time, recorded_at, provenance, confidence_kind)
        values (p_workspace_id, v_claim ->> 'statement', v_claim ->> 'subject', v_claim ->> 'attribute',
                v_claim ->> 'value', coalesce(v_claim ->> 'kind', 'fact'), coalesce(v_claim -> 'scope', '{}'),
                v_valid, beliefdb.clock(), v_world,
                -- a claim may call itself an agent's assertion; a reviewer's correction or a
                -- derivation comes only from the functions that make those
                case when v_claim ->> 'confidence_kind' = 'agent_asserted' then 'agent_asserted'
                     else 'extracted' end::beliefdb.confidence_kind)
        returning id into v_belief;
        perform beliefdb._add_evidence(p_workspace_id, v_belief, v_fragment);
        v_accepted := array_append(v_accepted, jsonb_build_object(
            'id', v_belief, 'statement', v_claim ->> 'statement', 'subject', v_claim ->> 'subject',
            'attribute', v_claim ->> 'attribute', 'value', v_claim ->> 'value',
            'quote', v_claim ->> 'quote', 'start', v_start, 'end', v_end));
        v_accepted_n := array_append(v_accepted_n, v_row.n);
        -- a claim of a version that is not in force (a retracted source's new text) is history: it
        -- never held, so it meets no rival
        if v_in_force then
            v_settles := array_append(v_settles, beliefdb._settle(p_workspace_id, v_belief));
        end if;
        v_touched := array_append(v_touched, v_belief);
    end loop;

    -- what the settling did, in the order it was done: the supersessions and conflicts it recorded,
    -- and what they touched (a corroborated belief's winner too: it may be the belief's rival, whose
    -- rank the new evidence moved; a new belief that lost touched nothing of the winner)
    v_superseded := array(select x.item
                            from unnest(v_settles) with ordinality as s (settled, n)
                           cross join lateral jsonb_array_elements(s.settled -> 'superseded') with ordinality as x (item, m)
                           order by s.n, x.m);
    v_conflicts := array(select x.item
                           from unnest(v_settles) with ordinality as s (settled, n)
                          cross join lateral jsonb_array_elements(s.settled -> 'conflicts') with ordinality as x (item, m)
                          order by s.n, x.m);
    v_touched := v_touched || v_fragments || array(
        select (c ->> 'b')::uuid from unnest(v_settles) as s (settled)
         cross join lateral jsonb_array_elements(s.settled -> 'conflicts') as c
        union all
        select (c ->> 'old')::uuid from unnest(v_settles) as s (settled)
         cross join lateral jsonb_array_elements(s.settled -> 'superseded') as c
        union all
        select (c ->> 'new')::uuid from unnest(v_settles) as s (settled)
         cross join lateral jsonb_array_elements(s.settled -> 'superseded') as c
         where (s.settled ->> 'corroborating')::boolean);
    -- (accepted and corroborated in claim order, whichever way each was stored)
    -- a claim whose valid time ended by now is stored expired: the report says when it ended (read only
    -- when a claim gave an end, so that the usual ingest pays nothing for it)
    v_accepted := array(select a.item || coalesce((
                            select jsonb_build_object('ended', upper(b.valid_time))
                              from beliefdb.belief b
                             where p_claims @? '$[*].valid_to ? (@ != null)'
                               and b.workspace_id = p_workspace_id and b.id = (a.item ->> 'id')::uuid
                               and upper(b.valid_time) <= beliefdb.clock()), '{}')
                          from unnest(v_accepted, v_accepted_n) as a (item, n) order by a.n);
    v_corroborated := array(select a.item from unnest(v_corroborated, v_corroborated_n) as a (item, n) order by a.n);
    return jsonb_build_object('accepted', to_jsonb(v_accepted),
                              'rejected', case when cardinality(v_rejected) = 0 then coalesce(p_rejected, '[]')
                                               else coalesce(p_rejected, '[]') || to_jsonb(v_rejected) end,
                              'corroborated', to_jsonb(v_corroborated), 'unchanged', to_jsonb(v_unchanged),
                              'superseded', to_jsonb(v_superseded), 'conflicts', to_jsonb(v_conflicts),
                              'touched', to_jsonb(v_touched),
                              'changes', case when p_propagate then beliefdb.propagate(p_workspace_id, v_touched) end);
end
$$;
comment on function beliefdb._add_claims(uuid, uuid, jsonb, jsonb, boolean) is 'Accept gated claims from one source version and propagate (p_rejected: what the caller''s gate already rejected, reported with the rest; p_propagate false: the caller propagates what it touched)';

-- The quotes of the beliefs that earlier versions of a source version's source support, each where
-- the latest of those versions that has it has it (its first place there).
create or replace function beliefdb._earlier_quotes(p_workspace_id uuid, p_source_version_id uuid)
returns table (belief_id uuid, quote text, version uuid, start_offset integer)
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select distinct on (e.belief_id, e.quote) e.belief_id, e.quote, f.source_version_id, f.start_offset
      from beliefdb.source_version nv
      join beliefdb.source_version ov
        on ov.workspace_id = nv.workspace_id and ov.source_id = nv.source_id and ov.version < nv.version
      join beliefdb.fragment f on f.workspace_id = ov.workspace_id and f.source_version_id = ov.id
      join beliefdb.evidence e
        on e.workspace_id = f.workspace_id and e.fragment_id = f.id and e.role = 'supports'
     where nv.workspace_id = p_workspace_id and nv.id = p_source_version_id
     order by e.belief_id, e.quote, ov.version desc, f.start_offset
$$;
comment on function beliefdb._earlier_quotes(uuid, uuid) is 'Quotes of beliefs supported by earlier versions of a source version''s source, each where its latest such version has it';

-- When a new version of a source comes into force, beliefs whose quote it repeats keep their
-- support through a fragment of the new version (rule 2): the first of its fragments whose text
-- is the quote, else the quote's first occurrence in its text. In a conversation, a quote that lies
-- in a turn is repeated only by the same turn (the same speaker, time and words, the n-th of those
-- alike), at the same place in it: another speaker who says the same words says them of
-- themselves. Returns the re-verified beliefs. p_from: where the version's new text begins, for a
-- conversation grown in place at its end (beliefdb._grow_conversation): only the turns after it are
-- new places for a quote, and the text the version replaces is its own before them, so no retracted
-- fragment of an earlier version goes forward but by a quote (0: a new version, all of it new).
-- (A search of the whole text for every quote took time quadratic in a long text: a quote the new
-- version repeats as one of its fragments, the usual case, is found by a join instead.)
-- (it had two arguments until p_from: create or replace would add a second function beside it)
drop function if exists beliefdb._carry_forward(uuid, uuid);
create or replace function beliefdb._carry_forward(p_workspace_id uuid, p_source_version_id uuid,
                                                   p_from integer default 0) returns uuid[]
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_content text;
    v_conversation boolean;
    v_beliefs uuid[];
    v_quotes text[];
    v_starts integer[];
    v_old_versions uuid[];
    v_old_starts integer[];
    v_in_turn boolean[];
    v_before uuid;
begin
    select v.content, s.origin_type = 'conversation', b.id into v_content, v_conversation, v_before
      from beliefdb.source_version v
      join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
      left join lateral (select w.id
                           from beliefdb.source_version w
                          where w.workspace_id = v.workspace_id and w.source_id = v.source_id
                            and w.version < v.version and w.retracted_at is null
                          order by w.version desc
                          limit 1) b on true
     where v.workspace_id = p_workspace_id and v.id = p_source_version_id;
    -- (a version grown in place replaces its own text before p_from, in which nothing is new)
    if p_from > 0 then
        v_before := null;
    end if;
    -- (what applies only to a conversation, or only to a document, is gated by v_conversation: a
    -- condition on it alone is checked once, not for every row)
    with quoted as (
        select * from beliefdb._earlier_quotes(p_workspace_id, p_source_version_id)
    ), turned as (
        -- in a conversation, the turn each quote lies in, if any
        select q.belief_id, q.quote, q.version, q.start_offset, t.start_offset as turn_start
          from quoted q
          left join lateral (
              select t.start_offset, t.end_offset
                from beliefdb.fragment t
               where v_conversation and t.workspace_id = p_workspace_id and t.source_version_id = q.version
                 and t.speaker is not null and t.start_offset <= q.start_offset
               order by t.start_offset desc
               limit 1) t on t.end_offset >= q.start_offset + length(q.quote)
    ), old_turns as (
        select t.source_version_id as version, t.start_offset, t.speaker, t.spoken_at, t.text,
               row_number() over (partition by t.source_version_id, t.speaker, t.spoken_at, t.text
                                  order by t.start_offset) as n
          from beliefdb.fragment t
         where v_conversation and t.workspace_id = p_workspace_id and t.speaker is not null
           and t.source_version_id in (select distinct q.version from quoted q)
    ), new_turns as (
        select t.start_offset, t.speaker, t.spoken_at, t.text,
               row_number() over (partition by t.speaker, t.spoken_at, t.text order by t.start_offset) as n
          from beliefdb.fragment t
         where v_conversation and t.workspace_id = p_workspace_id and t.source_version_id = p_source_version_id
           and t.speaker is not null
    ), aligned as (
        -- elsewhere, the first fragment of the new version whose text is the quote
        select distinct on (f.text) f.text, f.start_offset
          from beliefdb.fragment f
         where not v_conversation and f.workspace_id = p_workspace_id and f.source_version_id = p_source_version_id
           and f.text in (select q.quote from quoted q)
         order by f.text, f.start_offset
    ), found as (
        -- (a quote in a turn the new version does not have has no place in it: null)
        select x.belief_id, x.quote, x.version as old_version, x.start_offset as old_start,
               x.turn_start is not null as in_turn,
               case when x.turn_start is not null then nt.start_offset + (x.start_offset - x.turn_start)
                    else coalesce(a.start_offset, strpos(v_content, x.quote) - 1) end as start_offset
          from turned x
          left join old_turns ot on ot.version = x.version and ot.start_offset = x.turn_start
          left join new_turns nt
            on nt.speaker = ot.speaker and nt.spoken_at is not distinct from ot.spoken_at
           and nt.text = ot.text and nt.n = ot.n
          left join aligned a on a.text = x.quote
    )
    select coalesce(array_agg(x.belief_id order by x.belief_id, x.quote), '{}'),
           coalesce(array_agg(x.quote order by x.belief_id, x.quote), '{}'),
           coalesce(array_agg(x.start_offset order by x.belief_id, x.quote), '{}'),
           coalesce(array_agg(x.old_version order by x.belief_id, x.quote), '{}'),
           coalesce(array_agg(x.old_start order by x.belief_id, x.quote), '{}'),
           coalesce(array_agg(x.in_turn order by x.belief_id, x.quote), '{}')
      into v_beliefs, v_quotes, v_starts, v_old_versions, v_old_starts, v_in_turn
      from found x
     where x.start_offset >= p_from;
    -- the fragments not cut already, in one statement
    insert into beliefdb.fragment (workspace_id, source_version_id, start_offset, end_offset, text)
    select distinct on (x.s, x.e) p_workspace_id, p_source_version_id, x.s, x.e, x.quote
      from (select u.s, u.s + length(u.quote) as e, u.quote from unnest(v_starts, v_quotes) as u (s, quote)) x
     where not exists (select from beliefdb.fragment f
                        where f.workspace_id = p_workspace_id and f.source_version_id = p_source_version_id
                          and f.start_offset = x.s and f.end_offset = x.e)
     order by x.s, x.e;
    perform beliefdb._add_evidence_all(p_workspace_id, v_beliefs, array(
        select f.id
          from unnest(v_starts, v_quotes) with ordinality as u (s, quote, i)
          join beliefdb.fragment f on f.workspace_id = p_workspace_id and f.source_version_id = p_source_version_id
                                  and f.start_offset = u.s and f.end_offset = u.s + length(u.quote)
         order by u.i));
    -- a quote whose fragment was retracted goes forward retracted, for the reason given: the same
    -- words of the same text (in a conversation, of the same turn) are the same evidence, declared
    -- untrustworthy, and an edit elsewhere does not restore them (rule 18; `retract --undo` of the
    -- new fragment does). A new span stands for the old fragment its quote came from, in a turn; in a
    -- document (aligned by its words) for every fragment of that version whose words supported the
    -- belief; and for what every quote carried to it stands for: it is retracted only when all of
    -- those were (a belief that also held by the same words elsewhere, or another belief that
    -- trusted them, keeps it)
    update beliefdb.node n
       set retracted_at = beliefdb.clock(), retraction_reason = r.reason
      from (select f.id, (array_agg(o.retraction_reason order by o.retracted_at desc))[1] as reason
              from unnest(v_beliefs, v_starts, v_quotes, v_old_versions, v_old_starts, v_in_turn)
                   as u (belief_id, s, quote, old_version, old_start, in_turn)
              join beliefdb.fragment f on f.workspace_id = p_workspace_id and f.source_version_id = p_source_version_id
                                      and f.start_offset = u.s and f.end_offset = u.s + length(u.quote)
              -- (the belief's evidence by its key, then each fragment by its id, lateral behind offset 0:
              -- joined, a plan made while the tables were small read the old version's every fragment for
              -- each quote, 2,000 quotes 5 s)
              cross join lateral (select e.fragment_id
                                    from beliefdb.evidence e
                                   where e.workspace_id = p_workspace_id and e.belief_id = u.belief_id
                                     and e.role = 'supports' and e.quote = u.quote
                                  offset 0) as e
              cross join lateral (select w.id
                                    from beliefdb.fragment w
                                   where w.workspace_id = p_workspace_id and w.id = e.fragment_id
                                     and w.source_version_id = u.old_version
                                     and (not u.in_turn or w.start_offset = u.old_start)
                                  offset 0) as w
              join beliefdb.node o on o.workspace_id = p_workspace_id and o.id = w.id
             group by f.id
            having bool_and(o.retracted_at is not null)) r
     where n.workspace_id = p_workspace_id and n.id = r.id and n.retracted_at is null;
    -- and so does a retracted fragment no quote carried (a turn nothing was extracted from, a
    -- sentence): the new version's fragment of the same words (in a conversation, the same turn: the
    -- same speaker, time and words, the n-th of those alike) is retracted when every fragment of the
    -- version it replaces that had them was, else those words come back as text no one retracted
    -- (recall_fragments). Read from the retracted fragments of that version, usually none.
    update beliefdb.node n
       set retracted_at = beliefdb.clock(), retraction_reason = r.reason
      from (select f.id, (array_agg(o.retraction_reason order by o.retracted_at desc))[1] as reason
              from (select w.id, w.text, w.speaker, w.spoken_at, w.start_offset,
                           row_number() over (partition by w.speaker, w.spoken_at, w.text order by w.start_offset) as k
                      from beliefdb.fragment w
                     where w.workspace_id = p_workspace_id and w.source_version_id = v_before
                       and (w.speaker is not null or not v_conversation)) w
              -- (each node by its key: a plan made while the tables were small joined all of them)
              cross join lateral (select o.retracted_at, o.retraction_reason
                                    from beliefdb.node o
                                   where o.workspace_id = p_workspace_id and o.id = w.id and o.retracted_at is not null
                                  offset 0) o
              cross join lateral (select t.id
                                    from (select t.id, t.start_offset, row_number() over (order by t.start_offset) as k
                                            from beliefdb.fragment t
                                           where v_conversation and t.workspace_id = p_workspace_id
                                             and t.source_version_id = p_source_version_id
                                             and t.speaker = w.speaker and t.spoken_at is not distinct from w.spoken_at
                                             and t.text = w.text) t
                                   where t.k = w.k
                                  union all
                                  select t.id
                                    from beliefdb.fragment t
                                   where not v_conversation and t.workspace_id = p_workspace_id
                                     and t.source_version_id = p_source_version_id and t.text = w.text
                                     and not exists (select from beliefdb.fragment u
                                                       join beliefdb.node un on un.workspace_id = u.workspace_id
                                                                            and un.id = u.id
                                                      where u.workspace_id = p_workspace_id
                                                        and u.source_version_id = v_before and u.text = w.text
                                                        and un.retracted_at is null)) f
             group by f.id) r
     where v_before is not null and n.workspace_id = p_workspace_id and n.id = r.id and n.retracted_at is null;
    -- (a retracted belief's quote goes forward too, so the claim it makes again finds it recorded
    -- from that fragment and stays retracted, rule 18; neither it nor a belief whose quotes all went
    -- to retracted fragments is re-verified)
    return array(select u.id
                   from unnest(v_beliefs, v_starts, v_quotes) with ordinality as u (id, s, quote, n)
                   join beliefdb.belief b on b.workspace_id = p_workspace_id and b.id = u.id
                   join beliefdb.fragment f on f.workspace_id = p_workspace_id and f.source_version_id = p_source_version_id
                                           and f.start_offset = u.s and f.end_offset = u.s + length(u.quote)
                   join beliefdb.node fn on fn.workspace_id = p_workspace_id and fn.id = f.id
                  where b.status <> 'retracted' and fn.retracted_at is null
                  group by u.id
                  order by min(u.n));
end
$$;
comment on function beliefdb._carry_forward(uuid, uuid, integer) is 'Re-verify beliefs whose quote a new source version (or the turns a conversation''s version grew by) repeats, through a fragment of that version (retracted where the quote''s fragment was), and retract its fragments whose words were retracted in the version it replaces';

-- The report of an ingest: the claims' outcome, what stopped holding as a result (beliefs now
-- unsupported), and the decisions flagged and actions held.
create or replace function beliefdb._ingest_report(p_workspace_id uuid, p_outcome jsonb, p_changes jsonb) returns jsonb
language sql stable
set search_path = pg_catalog, pg_temp
-- (rows by their keys below: a sequential scan, cheapest while the tables look empty, would read
-- every row of them for each belief)
set enable_seqscan = off
as $$
    select (p_outcome - 'changes' - 'touched') || jsonb_build_object(
        -- the claims' own rule-8 results, then what the operation settled besides (a belief current
        -- again meets its rivals, and may supersede one): every belief that stopped being current
        -- because a supersession in effect now points at it
        -- (each belief's supersessions and row read from it by their keys, lateral behind offset 0:
        -- joined, the plan, made for the few rows a parameter's elements let the planner expect, read
        -- every relation in effect of the workspace through relation_in_effect, whose key has
        -- to_belief second, or every unsupported belief; and the claims' own supersessions are
        -- left out by a hashed anti-join, where a containment test of the claims' list for every
        -- relation read was quadratic: 4,000 supersessions, 0.8 s, 8,000, 3 s)
        'superseded', coalesce(p_outcome -> 'superseded', '[]') || coalesce((
            select jsonb_agg(jsonb_build_object('old', r.to_belief, 'new', r.from_belief)
                             order by r.to_belief, r.from_belief)
              from jsonb_array_elements_text(p_changes -> 'stopped_current') x
             cross join lateral (select r.to_belief, r.from_belief, r.ended_at
                                   from beliefdb.relation r
                                  where r.workspace_id = p_workspace_id and r.to_belief = x::uuid
                                    and r.kind = 'supersedes'
                                 offset 0) r
             where r.ended_at is null
               -- (by a belief that holds: one that stopped holding supersedes nothing now)
               and exists (select from beliefdb.node n
                            where n.workspace_id = p_workspace_id and n.id = r.from_belief and n.holds)
               and not exists (select from jsonb_array_elements(coalesce(p_outcome -> 'superseded', '[]')) as s (item)
                                where s.item ->> 'old' = r.to_belief::text and s.item ->> 'new' = r.from_belief::text)), '[]'),
        'unsupported', coalesce((
            select jsonb_agg(b.id)
              from jsonb_array_elements_text(p_changes -> 'stopped_holding') x
             cross join lateral (select b.id
                                   from beliefdb.belief b
                                  where b.workspace_id = p_workspace_id and b.id = x::uuid
                                    and b.status = 'unsupported'
                                 offset 0) b), '[]'),
        'flagged', coalesce(p_changes -> 'flagged', '[]'),
        'held', coalesce(p_changes -> 'held', '[]'),
        -- what became current again, each with its kind and status now, and whether it started
        -- holding (a belief that held all along is current again because what superseded it stopped
        -- holding; a decision or an action is current again because it holds again, its status,
        -- needs_review or held, unchanged until it is reviewed)
        'current_again', coalesce((
            select jsonb_agg(jsonb_build_object(
                       'id', n.id, 'kind', n.kind, 'status', coalesce(b.status::text, d.status, a.status),
                       'started_holding', coalesce(p_changes -> 'started_holding', '[]') ? x.id) order by x.id)
              from jsonb_array_elements_text(p_changes -> 'became_current') x (id)
              -- (by its key, lateral: joined, the plan read the key of every node of the workspace,
              -- 100,184 rows at a second version of a document in a 100,000-node workspace)
             cross join lateral (select n.id, n.kind, n.workspace_id
                                   from beliefdb.node n
                                  where n.workspace_id = p_workspace_id and n.id = x.id::uuid
                                 offset 0) n
              left join beliefdb.belief b on n.kind = 'belief' and b.workspace_id = n.workspace_id and b.id = n.id
              left join beliefdb.decision d on n.kind = 'decision' and d.workspace_id = n.workspace_id and d.id = n.id
              left join beliefdb.action a on n.kind = 'action' and a.workspace_id = n.workspace_id and a.id = n.id),
            '[]'),
        -- the claims' own ties, then those a belief back in force opened when it met its rivals in the
        -- propagation (a value this version brings back, beside a new one): a person must choose, and
        -- the report is where the ingesting user learns it
        'conflicts', coalesce(p_outcome -> 'conflicts', '[]') || coalesce((
            select jsonb_agg(jsonb_build_object('a', i.node, 'b', i.other_node, 'reason', i.reason)
                             order by i.created_at, i.id)
              from (select distinct i.id, i.node, i.other_node, i.reason, i.created_at
                      from jsonb_array_elements_text(p_changes -> 'became_current') x
                     cross join lateral (select i.id, i.node, i.other_node, i.reason, i.created_at
                                           from beliefdb.review_item i
                                          where i.workspace_id = p_workspace_id and i.kind = 'conflict'
                                            and i.status = 'open' and x::uuid in (i.node, i.other_node)
                                         offset 0) i) i
             where not exists (select from jsonb_array_elements(coalesce(p_outcome -> 'conflicts', '[]')) as c (item)
                                where ((c.item ->> 'a')::uuid, (c.item ->> 'b')::uuid)
                                      in ((i.node, i.other_node), (i.other_node, i.node)))), '[]'),
        'changes', coalesce(p_changes, beliefdb._empty_changes()))
$$;
comment on function beliefdb._ingest_report(uuid, jsonb, jsonb) is 'Shape an ingest report: outcome of claims, every supersession and tie it made, beliefs left unsupported, decisions flagged, actions held, what is current again';

-- The beliefs a new version keeps by a quote it repeats (rule 2, beliefdb._carry_forward: p_carried)
-- whose quote it now reads as another claim of the same value: a new belief of p_accepted quoting
-- the same fragment of the version (p_version_id), with another subject or attribute. The heading,
-- list label or column above the line was renamed ("- Passwords:" to "- Credentials:"): the kept
-- belief still holds by its quote, beside the new one, until its owner retracts or corrects it, and
-- the report says so. Each: the kept belief (id, subject, attribute, value) and the new one (now,
-- now_subject, now_attribute), in the order of the text.
create or replace function beliefdb._reread(p_workspace_id uuid, p_version_id uuid, p_carried uuid[],
                                            p_accepted jsonb)
returns jsonb
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    -- (each kept belief and its evidence in the version by their keys, lateral behind offset 0: joined,
    -- the plan read every belief of the workspace with the accepted claims' values first, 31 s for a
    -- version of 3,000 lines "Rotation: 90 days")
    with claimed as materialized (
        -- (the new beliefs by the fragment their quote starts in, by the version's span index, as one
        -- object looked up by key for each kept belief: joined, the plan scanned every new belief for
        -- each kept one, 5.5 s for 3,000)
        select coalesce(jsonb_object_agg(x.fragment_id::text, x.items), '{}') as by_fragment
          from (select f.id as fragment_id, jsonb_agg(a.item) as items
                  from jsonb_array_elements(coalesce(p_accepted, '[]')) as a (item)
                 cross join lateral (select f.id, f.end_offset
                                       from beliefdb.fragment f
                                      where f.workspace_id = p_workspace_id and f.source_version_id = p_version_id
                                        and f.start_offset <= (a.item ->> 'start')::integer
                                      order by f.start_offset desc
                                      limit 1) as f
                 where (a.item ->> 'end')::integer <= f.end_offset
                 group by f.id) as x
    ), pair as (
        select b.id, b.subject, b.attribute, b.value, f.start_offset, a.item
          from unnest(p_carried) as c (id)
         cross join lateral (select b.id, b.subject, b.attribute, b.value, e.fragment_id
                               from beliefdb.belief b
                               join beliefdb.evidence e
                                 on e.workspace_id = b.workspace_id and e.belief_id = b.id and e.role = 'supports'
                              where b.workspace_id = p_workspace_id and b.id = c.id
                             offset 0) as b
         -- (the fragment by its key: with the version's id beside it, the plan read every fragment of the
         -- version for each kept belief, 0.8 s for 1,500)
         cross join lateral (select f.id, f.start_offset, f.source_version_id
                               from beliefdb.fragment f
                              where f.workspace_id = p_workspace_id and f.id = b.fragment_id
                             offset 0) as f
         cross join claimed m
         cross join lateral jsonb_array_elements(coalesce(m.by_fragment -> f.id::text, '[]')) as a (item)
         where f.source_version_id = p_version_id
           and a.item ->> 'value' = b.value
           and (a.item ->> 'subject', a.item ->> 'attribute') is distinct from (b.subject, b.attribute)
    ), one as (
        -- (only a pair whose two sides are in no other: where a line repeats, every kept belief's quote
        -- went forward to its first occurrence, and which belief the renamed line is would be a guess)
        select p.*, count(*) over (partition by p.id) as of_kept, count(*) over (partition by p.item ->> 'id') as of_new
          from pair p
    )
    select coalesce(jsonb_agg(jsonb_build_object(
               'id', o.id, 'subject', o.subject, 'attribute', o.attribute, 'value', o.value,
               'now', o.item ->> 'id', 'now_subject', o.item ->> 'subject', 'now_attribute', o.item ->> 'attribute')
               order by o.start_offset, o.id), '[]')
      from one o
     where o.of_kept = 1 and o.of_new = 1
$$;
comment on function beliefdb._reread(uuid, uuid, uuid[], jsonb) is 'The beliefs a new version keeps by a repeated quote that it now reads as another claim of the same value (a renamed heading, label or column)';

-- Whether the turns a conversation would grow by (p_fragments from p_length on, of p_content) are the
-- last turns of its version already (p_version_id), in order: each a turn with a speaker and a time, the
-- same speaker at the same time in the same words. An agent that sends its last turn again (a retry after
-- a timeout) adds nothing: rule 18. A turn said again later, after another, or with no time to tell, is
-- a new one (people say "ok" twice).
create or replace function beliefdb._known_turns(p_workspace_id uuid, p_version_id uuid, p_content text,
                                                 p_length integer, p_fragments jsonb)
returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    with given as (
        select nullif(n.f ->> 'speaker', '') as speaker, (n.f ->> 'time')::timestamptz as spoken_at,
               substr(p_content, (n.f ->> 'start')::integer + 1,
                      (n.f ->> 'end')::integer - (n.f ->> 'start')::integer) as text,
               row_number() over (order by (n.f ->> 'start')::integer desc) as back
          from jsonb_array_elements(case when jsonb_typeof(p_fragments) = 'array' then p_fragments else '[]' end)
               as n (f)
         where (n.f ->> 'start')::integer >= p_length
    ), held as (
        select t.speaker, t.spoken_at, t.text, row_number() over (order by t.start_offset desc) as back
          from (select t.speaker, t.spoken_at, t.text, t.start_offset
                  from beliefdb.fragment t
                 where t.workspace_id = p_workspace_id and t.source_version_id = p_version_id
                   and t.speaker is not null
                 order by t.start_offset desc
                 limit (select count(*) from given)) t
    )
    select count(*) > 0
           and bool_and(g.speaker is not null and g.spoken_at is not null and h.back is not null
                        and h.speaker = g.speaker and h.spoken_at = g.spoken_at and h.text = g.text)
      from given g
      left join held h on h.back = g.back
$$;
comment on function beliefdb._known_turns(uuid, uuid, text, integer, jsonb) is 'Whether the turns a conversation would grow by are its last turns already (same speaker, time and words, in order): a retry';

-- The turn an idempotency key appended in the workspace (append_turn; rule 18 of docs/rules.md), as the
-- report of that request sent again: null when no turn has the key. A key names one request: the same
-- conversation, speaker and words, and the same time (or none again: p_stamped, the turn's time is the
-- one beliefdb gave it), by the same principal (the conversation's owner). The same request is answered
-- already_applied, nothing appended: the version the turn went to, and the beliefs recorded from it as
-- unchanged (whatever became of them since). Anything else is refused (idempotency_key_reused, BD009),
-- another principal's request with the key too. The words are compared with the turn's own (a forget
-- masks them there: rule 14, no digest of them is kept).
create or replace function beliefdb._keyed_turn(p_workspace_id uuid, p_key text, p_source text, p_speaker text,
                                                p_text text, p_time timestamptz, p_stamped boolean)
returns jsonb
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_turn record;
begin
    select f.id, f.speaker, f.text, f.spoken_at, f.stamped, v.id as version_id, v.version,
           s.id as source_id, s.name, s.owner
      into v_turn
      from beliefdb.fragment f
      join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
      join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
     where f.workspace_id = p_workspace_id and f.idempotency_key = p_key;
    if not found then
        return null;
    elsif (v_turn.name, v_turn.speaker, v_turn.text, v_turn.stamped, v_turn.owner)
          is distinct from (p_source, p_speaker, p_text, p_stamped, beliefdb.current_principal())
       or (not p_stamped and v_turn.spoken_at is distinct from p_time) then
        raise exception 'idempotency key % was used for another request (a turn of conversation %, version %): a new request needs a new key',
            p_key, v_turn.name, v_turn.version using errcode = 'BD009';
    end if;
    return jsonb_build_object(
        'source', v_turn.name, 'source_id', v_turn.source_id, 'version', v_turn.version,
        'version_id', v_turn.version_id, 'new_version', false, 'fragments', 0, 'reverified', '[]'::jsonb,
        'accepted', '[]'::jsonb, 'rejected', '[]'::jsonb, 'corroborated', '[]'::jsonb,
        'unchanged', (select coalesce(jsonb_agg(jsonb_build_object('id', b.id, 'statement', b.statement)
                                                order by e.created_at, b.id), '[]')
                        from beliefdb.evidence e
                        join beliefdb.belief b on b.workspace_id = e.workspace_id and b.id = e.belief_id
                       where e.workspace_id = p_workspace_id and e.fragment_id = v_turn.id),
        'superseded', '[]'::jsonb, 'conflicts', '[]'::jsonb, 'unsupported', '[]'::jsonb, 'flagged', '[]'::jsonb,
        'held', '[]'::jsonb, 'changes', beliefdb._empty_changes(), 'proposed', false, 'already_applied', true,
        'note', pg_catalog.format('already applied: idempotency key %s appended this turn to version %s', p_key,
                                  v_turn.version));
end
$$;
comment on function beliefdb._keyed_turn(uuid, text, text, text, text, timestamptz, boolean) is 'The report of a turn''s request sent again with its idempotency key (null: no turn has the key); another request with the key is refused (BD009)';

-- Grow a conversation's version in place by the turns p_content has after the version's text
-- (rule 18; of a retracted source, its latest version, kept as history until it is restored): the version's text is kept as stored (what was forgotten stays masked, rule 14) and
-- only what follows it is added, so every earlier offset, fragment and quote stays as it was, with
-- whatever became of its beliefs (corrected, retracted). Only the new turns' fragments are stored
-- (p_fragments: the turns, with speaker and time; those before the version's end are there
-- already); p_claims are settled against the version, less those over a forgotten span. A new turn
-- that an earlier version of the conversation had (the same speaker, time and words: the chat file
-- cut short at its end, then ingested whole again) re-verifies the beliefs it supported there, as a
-- new version that repeats it does (beliefdb._carry_forward, rule 18): its claims are those beliefs
-- again, one current belief per claim, not new ones. The report of an ingest. Not audited, no lock
-- or owner check (the callers do that).
create or replace function beliefdb._grow_conversation(p_workspace_id uuid, p_version_id uuid, p_content text,
                                                       p_fragments jsonb, p_claims jsonb, p_rejected jsonb,
                                                       p_label text default null, p_path text default null)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_version beliefdb.source_version;
    v_source beliefdb.source;
    v_length integer;
    v_content text;
    v_fragments integer;
    v_outcome jsonb;
    v_carried uuid[] := '{}';
    v_changes jsonb;
    v_masks int4range[];
    v_gone int4range[] := '{}';
begin
    select * into v_version
      from beliefdb.source_version v where v.workspace_id = p_workspace_id and v.id = p_version_id;
    select * into v_source
      from beliefdb.source s where s.workspace_id = p_workspace_id and s.id = v_version.source_id;
    v_length := length(v_version.content);
    v_content := v_version.content || substr(p_content, v_length + 1);
    -- a line it grows by that a forget masked in a version of this conversation, word for word (the chat
    -- cut at its end, forgotten in, then ingested whole again): masked again, a forgotten speaker's turn
    -- not a turn again (rule 14)
    v_masks := beliefdb._forgotten_lines(p_workspace_id, v_source.id, v_content, v_length);
    if cardinality(v_masks) > 0 then
        v_gone := beliefdb._forgotten_turns(v_content, p_fragments, v_masks);
        p_fragments := beliefdb._masked_labels(v_content, p_fragments, v_masks);
    end if;
    -- (its sha256: of the text as stored, masked where something was forgotten, as forget leaves it;
    -- its label and path: the latest given)
    update beliefdb.source_version v
       set content = v_content, sha256 = sha256(convert_to(v_content, 'UTF8')),
           label = coalesce(p_label, v.label), path = coalesce(p_path, v.path)
     where v.workspace_id = p_workspace_id and v.id = p_version_id;
    insert into beliefdb.fragment (workspace_id, source_version_id, start_offset, end_offset, text, speaker, spoken_at)
    select distinct on ((f ->> 'start')::integer, (f ->> 'end')::integer)
           p_workspace_id, p_version_id, (f ->> 'start')::integer, (f ->> 'end')::integer,
           substr(v_content, (f ->> 'start')::integer + 1, (f ->> 'end')::integer - (f ->> 'start')::integer),
           nullif(f ->> 'speaker', ''), (f ->> 'time')::timestamptz
      from jsonb_array_elements(coalesce(p_fragments, '[]')) f
     where (f ->> 'start')::integer >= v_length
       and not (nullif(f ->> 'speaker', '') is not null
                and int4range((f ->> 'start')::integer, (f ->> 'end')::integer) = any (v_gone))
     order by (f ->> 'start')::integer, (f ->> 'end')::integer;
    get diagnostics v_fragments = row_count;
    perform beliefdb._redact_spans(p_workspace_id, p_version_id, v_masks,
                                   'forgotten before in this source: the same line ingested again');
    -- the turns an earlier version had, back: their quotes carried to them before the claims are
    -- settled, which then find them recorded there (only when one of the new turns is such a turn:
    -- a turn appended to a conversation of several versions reads no earlier quote otherwise)
    if v_version.version > 1
       and exists (select from beliefdb.fragment n
                     join beliefdb.source_version o on o.workspace_id = n.workspace_id
                                                   and o.source_id = v_version.source_id
                                                   and o.version < v_version.version
                     join beliefdb.fragment f on f.workspace_id = o.workspace_id and f.source_version_id = o.id
                                             and f.speaker = n.speaker and f.spoken_at is not distinct from n.spoken_at
                                             and f.text = n.text
                    where n.workspace_id = p_workspace_id and n.source_version_id = p_version_id
                      and n.start_offset >= v_length and n.speaker is not null) then
        v_carried := beliefdb._carry_forward(p_workspace_id, p_version_id, v_length);
    end if;
    -- (a proposal of this text is settled by it)
    perform beliefdb._settle_source_items(p_workspace_id, array[v_source.id]);
    v_outcome := beliefdb._add_claims(p_workspace_id, p_version_id, p_claims, p_rejected, cardinality(v_carried) = 0);
    v_changes := v_outcome -> 'changes';
    if cardinality(v_carried) > 0 then
        -- one propagation for all of it: the claims, the beliefs re-verified, and the new turns'
        -- fragments (some retracted as their earlier turn was), so that what comes back meets its
        -- rivals as a new version brings it back
        v_changes := beliefdb.propagate(p_workspace_id,
            array(select jsonb_array_elements_text(v_outcome -> 'touched'))::uuid[] || v_carried || array(
                select f.id from beliefdb.fragment f
                 where f.workspace_id = p_workspace_id and f.source_version_id = p_version_id
                   and f.start_offset >= v_length));
    end if;
    return beliefdb._ingest_report(p_workspace_id, v_outcome, v_changes) || jsonb_build_object(
        'source', v_source.name, 'source_id', v_source.id, 'version', v_version.version,
        'version_id', v_version.id, 'new_version', false, 'appended', true, 'fragments', v_fragments,
        'reverified', to_jsonb(v_carried), 'proposed', false,
        'note', case when v_source.retracted_at is not null
                     then pg_catalog.format('appended: %s added to the latest text of %s, which is retracted: kept as history and its beliefs unsupported; undo the source''s retraction to bring them in force',
                                            case when v_fragments = 1 then 'one turn' else v_fragments || ' turns' end,
                                            v_source.name)
                     when v_fragments = 1 then 'appended: one turn added to the text in force'
                     else pg_catalog.format('appended: %s turns added to the text in force', v_fragments) end
                || case when cardinality(v_masks) > 0 then ' (what was forgotten in them stays forgotten)' else '' end);
end
$$;
comment on function beliefdb._grow_conversation(uuid, uuid, text, jsonb, jsonb, jsonb, text, text) is 'Grow a conversation''s version in place by the turns after its text, and settle their claims (no lock, owner check or audit)';

-- Why a text may not be the next version of a source (null: it may). Turns go only to a conversation,
-- and a conversation's text comes as turns (rule 18): a document's text in force is not relabelled,
-- replaced or grown by turns, nor a conversation's turns replaced by a text without any (its beliefs
-- would lose every turn they quote; its own text again changes nothing). A source with no text in force
-- (new, retracted) takes either. Asked by _ingest_version_core for every text stored, and by job_submit
-- so that a job every attempt would see refused is refused when it is queued.
-- (p_same: the version the text is, beliefdb._same_text_version: a version a forget masked has the sha256
-- of its masked text, which the text given again no longer has)
drop function if exists beliefdb._text_kind_refused(uuid, uuid, boolean, bytea);
create or replace function beliefdb._text_kind_refused(p_workspace_id uuid, p_source_id uuid, p_has_turns boolean,
                                                       p_sha256 bytea, p_same uuid default null)
returns text
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select case
               when p_has_turns and not l.had_turns and l.origin_type <> 'conversation'
                   then pg_catalog.format('%s is a document, not a conversation: its text has no turns, so turns'
                                          ' are not stored in it (give the conversation another source name)', l.name)
               when l.had_turns and not p_has_turns and differs
                   then pg_catalog.format('%s is a conversation: its text is given as turns (as a conversation, or'
                                          ' one turn at a time), not as a document (give the document another'
                                          ' source name)', l.name)
           end
      from (select s.name, s.origin_type, v.sha256 is distinct from p_sha256 and v.id is distinct from p_same as differs,
                   exists (select from beliefdb.fragment f
                            where f.workspace_id = v.workspace_id and f.source_version_id = v.id
                              and f.speaker is not null) as had_turns
              from beliefdb.source s
              join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id
             where s.workspace_id = p_workspace_id and s.id = p_source_id and s.retracted_at is null
               and v.retracted_at is null
             order by v.version desc
             limit 1) l
$$;
comment on function beliefdb._text_kind_refused(uuid, uuid, boolean, bytea, uuid) is 'Why a text (with turns or without) may not be the next version of a source: a document takes no turns, a conversation no text without them (null: it may)';

-- Store a text (p_text: content, origin, authority, provenance, label, path, fragments, claims,
-- rejected; see ingest_version) as a version of a source the acting principal may change, and
-- settle what it changes. Idempotent by content (rule 18): the text of the version in force again
-- only settles claims not recorded before; the text of a retracted version, or any text of a
-- retracted source, changes nothing and says so (note). The text of an earlier version that is no
-- longer in force (A, then B, then A) is a new version in force: its quotes re-verify the beliefs
-- they supported, so no claim is believed twice. Not audited (the callers do that).
create or replace function beliefdb._ingest_version_core(p_workspace_id uuid, p_source_id uuid, p_text jsonb)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_content text := p_text ->> 'content';
    v_sha bytea := sha256(convert_to(p_text ->> 'content', 'UTF8'));
    v_source beliefdb.source;
    v_in_force beliefdb.source_version;
    v_latest beliefdb.source_version;
    v_same beliefdb.source_version;
    v_version_id uuid;
    v_version integer;
    v_fragments integer;
    v_starts integer[];
    v_ends integer[];
    v_speakers text[];
    v_times timestamptz[];
    v_carried uuid[];
    v_changes jsonb;
    v_outcome jsonb;
    v_length integer;
    v_note text;
    v_refused text;
    v_reweighed boolean;
    v_has_turns boolean;
    v_masks int4range[];
    v_gone int4range[] := '{}';
    v_same_id uuid;
begin
    select * into v_source from beliefdb.source s where s.workspace_id = p_workspace_id and s.id = p_source_id;
    -- turns go only to a conversation, and a conversation's text comes as turns (rule 18; every way
    -- a text arrives comes here: a turn appended, a conversation, a document, a job, a proposal)
    v_has_turns := exists (select from jsonb_array_elements(coalesce(p_text -> 'fragments', '[]')) f
                            where f ->> 'speaker' is not null);
    -- (the version this text is, if it is one: the same text, or the text a forget masked in it)
    v_same_id := beliefdb._same_text_version(p_workspace_id, p_source_id, v_content, v_sha);
    v_refused := beliefdb._text_kind_refused(p_workspace_id, p_source_id, v_has_turns, v_sha, v_same_id);
    if v_refused is not null then
        raise exception '%', v_refused using errcode = 'BD005';
    end if;
    if (p_text ->> 'origin' is not null and p_text ->> 'origin' <> v_source.origin_type::text)
       or (p_text ->> 'authority' is not null and p_text ->> 'authority' <> v_source.authority::text)
       or (p_text ->> 'provenance' is not null and p_text ->> 'provenance' <> v_source.provenance::text) then
        -- authority weighs on every belief the source supports: their owners' call
        perform beliefdb._require_owner(p_workspace_id, e.belief_id, 'change the authority or label of a source it rests on')
           from beliefdb.evidence e
           join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
           join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
          where e.workspace_id = p_workspace_id and v.source_id = p_source_id;
        -- and a label says which world its beliefs belong to (rule 15): fixed once any rests on it, or
        -- an agent's step cites one of its quotes (the step stores the world it had: step.world)
        if p_text ->> 'provenance' is not null and p_text ->> 'provenance' <> v_source.provenance::text
           and (exists (select from beliefdb.evidence e
                          join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
                          join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
                         where e.workspace_id = p_workspace_id and v.source_id = p_source_id)
                or exists (select from beliefdb.source_version v
                             join beliefdb.fragment f on f.workspace_id = v.workspace_id and f.source_version_id = v.id
                            where v.workspace_id = p_workspace_id and v.source_id = p_source_id
                              and exists (select from beliefdb.justification_antecedent a
                                           where a.workspace_id = f.workspace_id and a.antecedent = f.id))) then
            raise exception 'source % is labelled %: beliefs or an agent''s steps rest on it in that world, so its label cannot change (ingest the text under another source name)',
                v_source.name, v_source.provenance using errcode = 'BD005';
        end if;
        v_reweighed := p_text ->> 'authority' is not null and p_text ->> 'authority' <> v_source.authority::text;
        update beliefdb.source s
           set origin_type = coalesce((p_text ->> 'origin')::beliefdb.origin_type, s.origin_type),
               authority = coalesce((p_text ->> 'authority')::beliefdb.authority, s.authority),
               provenance = coalesce((p_text ->> 'provenance')::beliefdb.provenance, s.provenance)
         where s.workspace_id = p_workspace_id and s.id = p_source_id
        returning * into v_source;
        -- a new authority is a confidence factor of every belief it supports (rule 9): computed again
        -- now, and what rests on them after, as any change of factors is
        if v_reweighed then
            perform beliefdb.propagate(p_workspace_id, array(
                select distinct e.belief_id
                  from beliefdb.source_version v
                  join beliefdb.fragment f on f.workspace_id = v.workspace_id and f.source_version_id = v.id
                  join beliefdb.evidence e on e.workspace_id = f.workspace_id and e.fragment_id = f.id
                 where v.workspace_id = p_workspace_id and v.source_id = p_source_id));
        end if;
    end if;

    select * into v_in_force
      from beliefdb.source_version v
     where v.workspace_id = p_workspace_id and v.source_id = p_source_id and v.retracted_at is null
       and v_source.retracted_at is null
     order by v.version desc
     limit 1;
    select * into v_same
      from beliefdb.source_version v
     where v.workspace_id = p_workspace_id and v.id = v_same_id;
    -- the text in force but for what was forgotten (masked there: rule 14), or a conversation's text
    -- in force grown by turns at its end (the same chat file, longer): that version, not a new one.
    -- A retracted conversation's latest text (its latest version not retracted: the one restoring the
    -- source puts in force) grows the same way, kept as history while the source is retracted, so that
    -- restoring it brings back the whole conversation with its new turns (a new version of the new
    -- turns alone would replace the earlier ones then)
    -- (its length in characters once: counted in the condition below, it was counted again for every
    -- turn once the plan was generic, 1.2 s for 2,000 turns)
    select * into v_latest
      from beliefdb.source_version v
     where v.workspace_id = p_workspace_id and v.source_id = p_source_id and v.retracted_at is null
     order by v.version desc
     limit 1;
    v_length := length(v_latest.content);
    if v_latest.id is not null and v_same.id is distinct from v_latest.id
       and v_source.origin_type = 'conversation'
       -- (not the text of a retracted version, which changes nothing (rule 18): a version cut at its end
       -- grew by the turns of the retracted one it is a prefix of, and believed them again)
       and (v_same.id is null or v_same.retracted_at is null)
       and beliefdb._extends_version(p_workspace_id, v_latest.id, v_content)
       -- (its last turn unchanged: none of the turns given runs past the end of the text in force)
       and not exists (select from jsonb_array_elements(coalesce(p_text -> 'fragments', '[]')) f
                        where (f ->> 'start')::integer < v_length and (f ->> 'end')::integer > v_length) then
        if length(v_content) = v_length then
            -- (the text in force again; of a retracted source, that source's text again: unchanged)
            v_same := v_latest;
        elsif not exists (select from beliefdb.source_version v
                           where v.workspace_id = p_workspace_id and v.source_id = p_source_id
                             and v.version > v_latest.version) then
            -- (turns it holds already, each the same speaker at the same time in the same words: an agent's
            -- call sent again after a timeout; rule 18, nothing changes and the report says so)
            if beliefdb._known_turns(p_workspace_id, v_latest.id, v_content, v_length, p_text -> 'fragments') then
                return jsonb_build_object(
                    'source', v_source.name, 'source_id', v_source.id, 'version', v_latest.version,
                    'version_id', v_latest.id, 'new_version', false, 'fragments', 0, 'reverified', '[]'::jsonb,
                    'accepted', '[]'::jsonb, 'rejected', '[]'::jsonb, 'corroborated', '[]'::jsonb,
                    'unchanged', '[]'::jsonb, 'superseded', '[]'::jsonb, 'conflicts', '[]'::jsonb,
                    'unsupported', '[]'::jsonb, 'flagged', '[]'::jsonb, 'held', '[]'::jsonb,
                    'changes', beliefdb._empty_changes(), 'proposed', false,
                    'note', pg_catalog.format('unchanged: version %s has this turn already (the same speaker, time and words)',
                                              v_latest.version));
            end if;
            return beliefdb._grow_conversation(p_workspace_id, v_latest.id, v_content, p_text -> 'fragments',
                                               p_text -> 'claims', p_text -> 'rejected', p_text ->> 'label',
                                               p_text ->> 'path');
        end if;
    elsif v_latest.id is not null and v_same.id is null and length(v_content) = v_length
          -- the latest text as it is stored (masked where something was forgotten), or the text it was
          -- stored from, its forgotten lines back word for word (beliefdb._forgotten_lines: the same words,
          -- not others in their place): a text a forget masked while it was queued is stored masked, its
          -- sha256 that of the masked text, and is this text again, a document's as a conversation's
          and (v_content = v_latest.content
               or beliefdb._masked(v_content, beliefdb._forgotten_lines(p_workspace_id, p_source_id, v_content))
                  = v_latest.content) then
        v_same := v_latest;
    end if;
    if v_same.id is not null and v_same.id is not distinct from v_in_force.id then
        -- the text in force again: claims not recorded before are still settled against it
        v_outcome := beliefdb._add_claims(p_workspace_id, v_same.id, p_text -> 'claims', p_text -> 'rejected');
        return beliefdb._ingest_report(p_workspace_id, v_outcome, v_outcome -> 'changes') || jsonb_build_object(
            'source', v_source.name, 'source_id', v_source.id, 'version', v_same.version,
            'version_id', v_same.id, 'new_version', false, 'fragments', 0, 'reverified', '[]'::jsonb,
            'proposed', false,
            'note', pg_catalog.format('unchanged: the same text as version %s, in force', v_same.version)
                    || case when cardinality(beliefdb._forgotten_spans(p_workspace_id, v_same.id)) > 0
                            then ' (what was forgotten in it stays forgotten)' else '' end);
    elsif v_same.id is not null and (v_source.retracted_at is not null or v_same.retracted_at is not null) then
        v_note := case when v_source.retracted_at is not null
                       then pg_catalog.format('unchanged: the same text as version %s of %s, which is retracted (undo its retraction to restore it)',
                                              v_same.version, v_source.name)
                       else pg_catalog.format('unchanged: the same text as version %s, which is retracted (undo the retraction of version %s to restore it)',
                                              v_same.version, v_same.version) end;
        return jsonb_build_object(
            'source', v_source.name, 'source_id', v_source.id, 'version', v_same.version, 'version_id', v_same.id,
            'new_version', false, 'fragments', 0, 'reverified', '[]'::jsonb, 'accepted', '[]'::jsonb,
            'rejected', coalesce(p_text -> 'rejected', '[]'), 'corroborated', '[]'::jsonb, 'unchanged', '[]'::jsonb,
            'superseded', '[]'::jsonb, 'conflicts', '[]'::jsonb, 'unsupported', '[]'::jsonb,
            'flagged', '[]'::jsonb, 'held', '[]'::jsonb, 'changes', beliefdb._empty_changes(), 'proposed', false,
            'note', v_note);
    end if;

    -- a line of it that a forget masked in a version of this source, word for word (back at an earlier
    -- text, whichever version is in force): masked again, a forgotten speaker's turn not a turn again
    -- (rule 14)
    v_masks := beliefdb._forgotten_lines(p_workspace_id, p_source_id, v_content);
    if cardinality(v_masks) > 0 then
        v_gone := beliefdb._forgotten_turns(v_content, p_text -> 'fragments', v_masks);
        if jsonb_typeof(p_text -> 'fragments') = 'array' then
            p_text := p_text || jsonb_build_object('fragments', beliefdb._masked_labels(v_content, p_text -> 'fragments',
                                                                                       v_masks));
        end if;
    end if;
    select coalesce(max(v.version), 0) + 1 into v_version
      from beliefdb.source_version v where v.workspace_id = p_workspace_id and v.source_id = p_source_id;
    insert into beliefdb.source_version (workspace_id, source_id, version, content, sha256, label, path)
    values (p_workspace_id, p_source_id, v_version, v_content, ''::bytea, p_text ->> 'label', p_text ->> 'path')
    returning id into v_version_id;

    -- (the text of every fragment read in one pass: one substr each took time quadratic in the text)
    -- (a conversation's turn also says who spoke and when: speaker, time)
    select coalesce(array_agg((f ->> 'start')::integer order by n), '{}'),
           coalesce(array_agg((f ->> 'end')::integer order by n), '{}'),
           coalesce(array_agg(nullif(f ->> 'speaker', '') order by n), '{}'),
           coalesce(array_agg((f ->> 'time')::timestamptz order by n), '{}')
      into v_starts, v_ends, v_speakers, v_times
      from jsonb_array_elements(coalesce(p_text -> 'fragments', '[]')) with ordinality as x (f, n);
    -- (the same span twice is one fragment: a new version has none yet; their node rows first, in
    -- one statement, where create_node finds them: one row at a time, each was a statement)
    perform beliefdb._claim_working_tables(array['beliefdb_new_fragment']);
    create temporary table if not exists beliefdb_new_fragment (
        id uuid, s integer, e integer, text text, speaker text, spoken_at timestamptz) on commit drop;
    truncate pg_temp.beliefdb_new_fragment;
    insert into pg_temp.beliefdb_new_fragment (id, s, e, text, speaker, spoken_at)
    select gen_random_uuid(), x.s, x.e, x.text, x.speaker, x.spoken_at
      from (select distinct on (f.s, f.e) f.s, f.e, f.text, f.speaker, f.spoken_at
              from unnest(v_starts, v_ends, beliefdb._slices(v_content, v_starts, v_ends), v_speakers, v_times)
                   as f (s, e, text, speaker, spoken_at)
             where not (f.speaker is not null and f.s < f.e and int4range(f.s, f.e) = any (v_gone))
             order by f.s, f.e) x;
    insert into beliefdb.node (workspace_id, id, kind)
    select p_workspace_id, f.id, 'fragment' from pg_temp.beliefdb_new_fragment f;
    insert into beliefdb.fragment (workspace_id, id, source_version_id, start_offset, end_offset, text, speaker, spoken_at)
    select p_workspace_id, f.id, v_version_id, f.s, f.e, f.text, f.speaker, f.spoken_at
      from pg_temp.beliefdb_new_fragment f
     order by f.s, f.e;
    get diagnostics v_fragments = row_count;
    perform beliefdb._redact_spans(p_workspace_id, v_version_id, v_masks,
                                   'forgotten before in this source: the same line ingested again');

    -- (a first version has no earlier one whose quotes it could repeat)
    v_carried := case when v_version > 1 then beliefdb._carry_forward(p_workspace_id, v_version_id) else '{}' end;
    perform beliefdb._settle_source_items(p_workspace_id, array[p_source_id]);
    v_outcome := beliefdb._add_claims(p_workspace_id, v_version_id, p_text -> 'claims', p_text -> 'rejected', false);
    -- one propagation for all of it: the claims, and which version is in force (what moved out of
    -- force is the version in force before this one, its fragments; the new one's came in), so
    -- that what the new version brings back meets its rivals as the new version leaves them
    v_changes := beliefdb.propagate(p_workspace_id,
        array(select jsonb_array_elements_text(v_outcome -> 'touched'))::uuid[]
        || beliefdb.expand_targets(p_workspace_id, array[v_version_id] || array(
            select v.id from beliefdb.source_version v
             where v.workspace_id = p_workspace_id and v.source_id = p_source_id and v.version < v_version
               and v.retracted_at is null
             order by v.version desc limit 1)));

    return beliefdb._ingest_report(p_workspace_id, v_outcome, v_changes) || jsonb_build_object(
        'source', v_source.name, 'source_id', v_source.id, 'version', v_version, 'version_id', v_version_id,
        'new_version', true, 'fragments', v_fragments, 'reverified', to_jsonb(v_carried),
        'reread', beliefdb._reread(p_workspace_id, v_version_id, v_carried, v_outcome -> 'accepted'), 'proposed', false,
        'note', case when v_same.id is not null
                     then pg_catalog.format('the same text as version %s: its beliefs are in force again', v_same.version)
                          || case when cardinality(v_masks) > 0 then ' (what was forgotten in it stays forgotten)'
                                  else '' end
                     -- (a retracted source's new text is not in force: what it says never holds)
                     when v_source.retracted_at is not null
                     then pg_catalog.format('%s is retracted: this version is kept as history and its beliefs are unsupported; undo the source''s retraction to bring them in force',
                                            v_source.name)
                     when cardinality(v_masks) > 0
                     then 'what was forgotten before in this source stays forgotten in the lines this text repeats'
                end);
end
$$;
comment on function beliefdb._ingest_version_core(uuid, uuid, jsonb) is 'Store a text as a version of a source (idempotent by content) and settle what it changes (no owner check, no audit)';

-- A text proposed for a conversation (p_text as for _ingest_version_core), as its owner's approval
-- stores it: a proposal adds turns, so when the conversation grew since (its owner appended turns
-- after the proposal was made) the proposal's new lines, those after the lines it shares with the
-- text in force, follow the text in force, their fragments and claims moved with them. Stored as
-- proposed, it would drop the turns added since. Any other text is returned as it is (a document's
-- text is a whole text; a proposal that shares no line with the conversation is a new version).
create or replace function beliefdb._rebased_turns(p_workspace_id uuid, p_source_id uuid, p_text jsonb)
returns jsonb
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_content text;
    v_version uuid;
    v_proposed text := p_text ->> 'content';
    v_lines integer;
    v_shared integer;
    v_length integer;
    v_delta integer;
begin
    select v.content, v.id into v_content, v_version
      from beliefdb.source s
      join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id
     -- (its latest text not retracted, whether the source is: a turn appended to a retracted
     -- conversation grows that text, kept as history, as _ingest_version_core grows it)
     where s.workspace_id = p_workspace_id and s.id = p_source_id and s.origin_type = 'conversation'
       and v.retracted_at is null
     order by v.version desc
     limit 1;
    if v_version is null or v_proposed is null
       or beliefdb._extends_version(p_workspace_id, v_version, v_proposed) then
        return p_text;
    end if;
    -- (the lines both have first, and how long they are in the proposed text)
    with a as (select t.l, t.n from regexp_split_to_table(v_content, E'\n') with ordinality as t (l, n)),
         b as (select t.l, t.n from regexp_split_to_table(v_proposed, E'\n') with ordinality as t (l, n))
    select count(*), coalesce(min(b.n) filter (where a.l is distinct from b.l), count(*) + 1) - 1
      into v_lines, v_shared
      from b left join a on a.n = b.n;
    select coalesce(sum(length(t.l) + 1), 0) - 1 into v_length
      from regexp_split_to_table(v_proposed, E'\n') with ordinality as t (l, n)
     where t.n <= v_shared;
    if v_shared = 0 then
        return p_text;
    elsif v_shared >= v_lines then
        -- every turn it proposes is in the text in force already
        return p_text || jsonb_build_object('content', v_content, 'fragments', '[]'::jsonb, 'claims', '[]'::jsonb);
    end if;
    v_delta := length(v_content) - v_length;
    return p_text || jsonb_build_object(
        'content', v_content || substr(v_proposed, v_length + 1),
        'fragments', (select coalesce(jsonb_agg(f.x || jsonb_build_object('start', (f.x ->> 'start')::integer + v_delta,
                                                                          'end', (f.x ->> 'end')::integer + v_delta)
                                                order by f.n), '[]')
                        from jsonb_array_elements(coalesce(p_text -> 'fragments', '[]')) with ordinality f (x, n)
                       where (f.x ->> 'start')::integer > v_length),
        'claims', (select coalesce(jsonb_agg(c.x || jsonb_build_object('start', (c.x ->> 'start')::integer + v_delta,
                                                                       'end', (c.x ->> 'end')::integer + v_delta)
                                             order by c.n), '[]')
                     from jsonb_array_elements(coalesce(p_text -> 'claims', '[]')) with ordinality c (x, n)
                    where (c.x ->> 'start')::integer > v_length));
end
$$;
comment on function beliefdb._rebased_turns(uuid, uuid, jsonb) is 'A text proposed for a conversation, its new turns after the text in force (turns appended since it was proposed are kept)';

-- The authority a new source of an origin gets when its caller gives none (rule 8 of docs/rules.md):
-- what people say in a conversation is a user's word, any other text an internal one. One by one
-- (_ingest_text) and in bulk (_bulk_first_versions) alike.
create or replace function beliefdb._new_source_authority(p_origin beliefdb.origin_type) returns beliefdb.authority
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select case when p_origin = 'conversation' then 'user' else 'internal' end::beliefdb.authority
$$;
comment on function beliefdb._new_source_authority(beliefdb.origin_type) is 'The authority a new source of an origin gets unless given: user for a conversation, else internal';

-- Store a text (p_text as for _ingest_version_core) as the next version of the named source, for
-- the acting principal: a new source is theirs; another principal's source gets a proposal to its
-- owner instead (rule 17; the same proposal twice is one item), unless the text is one the source
-- has and nothing else changes. The one body of ingest_version and bulk_ingest_batch: the caller
-- holds the workspace lock and audits the outcome (a proposal is audited here).
create or replace function beliefdb._ingest_text(p_workspace_id uuid, p_source text, p_text jsonb)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_source beliefdb.source;
    v_sha bytea := sha256(convert_to(p_text ->> 'content', 'UTF8'));
    v_origin beliefdb.origin_type := (p_text ->> 'origin')::beliefdb.origin_type;
    v_authority beliefdb.authority := (p_text ->> 'authority')::beliefdb.authority;
    v_provenance beliefdb.provenance := (p_text ->> 'provenance')::beliefdb.provenance;
    v_item uuid;
    v_report jsonb;
    v_same_id uuid;
begin
    perform beliefdb._begin_changes();
    if coalesce(p_source, '') = '' then
        raise exception 'a source needs a name' using errcode = 'BD005';
    end if;
    if coalesce(p_text ->> 'content', '') = '' then
        raise exception 'source % has empty text', p_source using errcode = 'BD005';
    end if;
    -- a correction's source holds its reviewer's text alone (rule 6): another text would put the
    -- reviewer's fragment out of force and the correction with it
    if p_source like 'correction:%' then
        raise exception '% names a reviewer''s correction (correction:...): it holds the reviewer''s text alone and takes no other (correct the belief instead, or give the text another source name)',
            p_source using errcode = 'BD005';
    end if;
    select * into v_source from beliefdb.source s where s.workspace_id = p_workspace_id and s.name = p_source;
    if found and v_source.owner is distinct from beliefdb.current_principal() then
        -- (the version this text is, if it is one; once, not in the condition below, where the planner
        -- evaluated it again to estimate)
        v_same_id := beliefdb._same_text_version(p_workspace_id, v_source.id, p_text ->> 'content', v_sha);
    end if;
    if v_source.id is null then
        -- a new source's text given as turns is a conversation unless the caller says otherwise (and of
        -- user authority then: rule 8 ranks authority first, and a turn of internal authority outranked
        -- a later note of the same person's words, a customer's claim a company document)
        v_origin := coalesce(v_origin, case when exists (select from jsonb_array_elements(coalesce(p_text -> 'fragments', '[]')) f
                                                          where f ->> 'speaker' is not null)
                                            then 'conversation' else 'document' end::beliefdb.origin_type);
        insert into beliefdb.source (workspace_id, name, origin_type, authority, provenance)
        values (p_workspace_id, p_source, v_origin,
                coalesce(v_authority, beliefdb._new_source_authority(v_origin)),
                coalesce(v_provenance, 'production'))
        returning * into v_source;
    elsif v_source.owner is distinct from beliefdb.current_principal()
          -- (the text in force again, or a retracted text, changes no version: claims may be added; a
          -- version a forget masked is the text it was stored from, whatever that has in the masked
          -- spans: a proposal would hold the forgotten words, and telling a right guess from a wrong
          -- one would confirm them)
          and (not exists (select from beliefdb.source_version v
                            where v.workspace_id = p_workspace_id and v.id = v_same_id
                              and (v.retracted_at is not null or v_source.retracted_at is not null
                                   or beliefdb.in_force(p_workspace_id, v.id)))
               or (v_origin is not null and v_origin <> v_source.origin_type)
               or (v_authority is not null and v_authority <> v_source.authority)
               or (v_provenance is not null and v_provenance <> v_source.provenance)) then
        select r.id into v_item
          from beliefdb.review_item r
         where r.workspace_id = p_workspace_id and r.kind = 'version_proposed' and r.status = 'open'
           and r.source_id = v_source.id and r.proposed_by = beliefdb.current_principal()
           and r.proposal - 'path' - 'rejected' - 'forgotten_lines' = p_text - 'path' - 'rejected' - 'forgotten_lines';
        if v_item is null then
            insert into beliefdb.review_item (workspace_id, kind, source_id, reason, proposed_by, proposal)
            values (p_workspace_id, 'version_proposed', v_source.id,
                    pg_catalog.format('%s proposes a new version of %s; source owned by %s',
                                      beliefdb.current_principal(), v_source.name, v_source.owner),
                    -- (what a forget masked in it is recorded by the forget alone: beliefdb._forgotten_records)
                    beliefdb.current_principal(), p_text - 'forgotten_lines')
            returning id into v_item;
            perform beliefdb._audit_append(p_workspace_id, 'version.propose', jsonb_build_object(
                'item', v_item, 'source', v_source.name,
                'text_sha256', encode(v_sha, 'hex'), 'owner', v_source.owner));
        end if;
        return jsonb_build_object(
            'source', v_source.name, 'source_id', v_source.id, 'version', null, 'version_id', null,
            'new_version', false, 'fragments', 0, 'reverified', '[]'::jsonb, 'accepted', '[]'::jsonb,
            'rejected', coalesce(p_text -> 'rejected', '[]'), 'corroborated', '[]'::jsonb, 'unchanged', '[]'::jsonb,
            'superseded', '[]'::jsonb, 'conflicts', '[]'::jsonb, 'unsupported', '[]'::jsonb,
            'flagged', '[]'::jsonb, 'held', '[]'::jsonb,
            -- (nothing changed: the change report says it was proposed, as the report around it)
            'changes', beliefdb._empty_changes()
                       || jsonb_build_object('proposed', true, 'review_item', v_item, 'owner', v_source.owner),
            'proposed', true, 'review_item', v_item, 'owner', v_source.owner,
            'note', pg_catalog.format('%s belongs to %s: proposed to its owner (review item %s)',
                                      v_source.name, v_source.owner, v_item));
    end if;
    -- (with the spans of the text that were forgotten (masked where it is stored: offsets, never the
    -- words), so that the extraction report does not list a forgotten sentence as skipped and kept)
    v_report := beliefdb._ingest_version_core(p_workspace_id, v_source.id, p_text);
    return v_report || jsonb_build_object('forgotten', (
        select coalesce(jsonb_agg(jsonb_build_array(lower(x.span), upper(x.span)) order by lower(x.span)), '[]')
          from unnest(beliefdb._forgotten_spans(p_workspace_id, (v_report ->> 'version_id')::uuid)) as x (span)));
end
$$;
comment on function beliefdb._ingest_text(uuid, text, jsonb) is 'Store a text as a version of a named source for the acting principal, or propose it to the source''s owner (the caller locks and audits)';
