-- beliefdb: invariants the database keeps by itself, whoever writes.
-- Trigger functions and their triggers: every per-kind row has its node row; a source version is
-- hashed here and immutable; fragments and evidence quote their source exactly (docs/rules.md,
-- rule 1) and from the belief's world (rule 15); supersession is acyclic (rules 2 and 3).

-- Per-kind rows (fragment, belief, ...) get their node row first, under the same key. An
-- operation recording its changes (beliefdb._begin_changes) notes the node as one it created.
-- A statement whose node rows were inserted and noted before it (a bulk ingest's, set-based) says
-- so for its transaction in beliefdb.nodes_noted, and the trigger's WHEN skips its rows: their
-- foreign key to node still refuses a row without its node.
create or replace function beliefdb.create_node() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    -- (a set-based insert gives its rows' node rows first, in one statement: _add_claims)
    -- (a row whose own key is taken fails on its primary key, as before)
    if not exists (select from beliefdb.node n
                    where n.workspace_id = new.workspace_id and n.id = new.id and n.kind = new.node_kind) then
        insert into beliefdb.node (workspace_id, id, kind)
        values (new.workspace_id, new.id, new.node_kind);
    end if;
    if pg_catalog.to_regclass('pg_temp.beliefdb_changes') is not null
       and current_setting('beliefdb.changes_of', true) = now()::text then
        insert into pg_temp.beliefdb_changes (id, kind, held, was_current, created)
        values (new.id, new.node_kind, false, false, true)
        on conflict (id) do nothing;
    end if;
    return new;
end
$$;
comment on function beliefdb.create_node() is 'Trigger: insert the node row that a per-kind row shares its key with (and note it as created)';

create or replace trigger fragment_node before insert on beliefdb.fragment
    for each row when (pg_catalog.current_setting('beliefdb.nodes_noted', true) is distinct from pg_catalog.now()::text)
    execute function beliefdb.create_node();
create or replace trigger belief_node before insert on beliefdb.belief
    for each row when (pg_catalog.current_setting('beliefdb.nodes_noted', true) is distinct from pg_catalog.now()::text)
    execute function beliefdb.create_node();
create or replace trigger decision_node before insert on beliefdb.decision
    for each row execute function beliefdb.create_node();
create or replace trigger action_node before insert on beliefdb.action
    for each row execute function beliefdb.create_node();
create or replace trigger correction_node before insert on beliefdb.correction
    for each row execute function beliefdb.create_node();
create or replace trigger step_node before insert on beliefdb.step
    for each row execute function beliefdb.create_node();

-- A source version's sha256 is computed here, never trusted from the caller.
create or replace function beliefdb.source_version_hash() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    new.sha256 := sha256(convert_to(new.content, 'UTF8'));
    return new;
end
$$;
comment on function beliefdb.source_version_hash() is 'Trigger: compute the sha256 of a source version''s text';

create or replace trigger source_version_hash before insert on beliefdb.source_version
    for each row execute function beliefdb.source_version_hash();

-- Source versions are immutable text, whoever tries to change them. The changes allowed are
-- a redaction (forgetting a subject): the spans beliefdb.redaction records for the version, masked
-- with as many U+2588, its sha256 then that of the masked text (a digest of the words as they were
-- would confirm a guess of them: rule 14); and a turn appended to a conversation
-- (beliefdb.append_turn): its text grows at its end only, every earlier offset stays valid, and its
-- sha256 is that of the grown text. A version with recorded redactions may take the sha256 of its
-- text as it reads (what revision 0050 gave the versions masked before it).
create or replace function beliefdb.source_version_immutable() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if (new.source_id, new.version) = (old.source_id, old.version)
       and length(new.content) > length(old.content) and left(new.content, length(old.content)) = old.content
       and new.sha256 = sha256(convert_to(new.content, 'UTF8'))
       and exists (select from beliefdb.source s
                    where s.workspace_id = new.workspace_id and s.id = new.source_id
                      and s.origin_type = 'conversation') then
        return new;
    end if;
    if (new.source_id, new.version) is distinct from (old.source_id, old.version)
       or (new.content is distinct from old.content
           and new.content is distinct from beliefdb._masked(old.content, array(
                   select int4range(r.start_offset, r.end_offset) from beliefdb.redaction r
                    where r.workspace_id = old.workspace_id and r.source_version_id = old.id)))
       or (new.sha256 is distinct from old.sha256
           and (new.sha256 is distinct from sha256(convert_to(new.content, 'UTF8'))
                or not exists (select from beliefdb.redaction r
                                where r.workspace_id = old.workspace_id and r.source_version_id = old.id))) then
        raise exception 'source versions are immutable: ingest a new version instead' using errcode = 'BD002';
    end if;
    return new;
end
$$;
comment on function beliefdb.source_version_immutable() is 'Trigger: refuse changes to a source version''s text, hash or number, other than its recorded redactions (its hash then of the masked text) and a conversation''s growth';

create or replace trigger source_version_immutable before update on beliefdb.source_version
    for each row execute function beliefdb.source_version_immutable();

-- A belief's sha256 (beliefdb.belief_sha256 of what it says, api/50_audit.sql) is computed here when
-- it is stored, never trusted from the caller, and never changes after: audit_verify compares.
create or replace function beliefdb.belief_sha256_stored() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if tg_op = 'UPDATE' then
        raise exception 'belief %: its sha256 is what it said when it was stored, and never changes', old.id
            using errcode = 'BD002';
    end if;
    new.sha256 := beliefdb.belief_sha256(new.statement, new.subject, new.attribute, new.value, new.kind, new.scope,
                                         new.valid_time, new.provenance);
    return new;
end
$$;
comment on function beliefdb.belief_sha256_stored() is 'Trigger: compute a belief''s sha256 when it is stored, and refuse to change it';

-- (made once the column is there: sql/ is applied over a schema of an earlier revision too, until
-- the upgrade that adds it, 0043, has run and it is applied again)
do $$
begin
    if exists (select from pg_catalog.pg_attribute a
                where a.attrelid = 'beliefdb.belief'::regclass and a.attname = 'sha256' and not a.attisdropped) then
        create or replace trigger belief_sha256 before insert on beliefdb.belief
            for each row execute function beliefdb.belief_sha256_stored();
        create or replace trigger belief_sha256_unchanged before update of sha256 on beliefdb.belief
            for each row when (new.sha256 is distinct from old.sha256) execute function beliefdb.belief_sha256_stored();
    end if;
end
$$;

-- The text at each [start, end) character span of p_content (0-based, end exclusive): exactly
-- what substr(p_content, start + 1, end - start) gives for each. substr counts characters from the
-- start of the text at every call, so one call per fragment took time quadratic in the length of a
-- text; here the text is cut once into pieces of 255 characters (one pass of a regular expression)
-- and each span reads only the pieces it overlaps: time linear in the text and the spans' lengths.
create or replace function beliefdb._slices(p_content text, p_starts integer[], p_ends integer[])
returns text[]
language plpgsql immutable
set search_path = pg_catalog, pg_temp
as $$
declare
    -- (an array in a variable is expanded: reading one element is O(1))
    v_pieces text[] := array(select m.piece[1] from pg_catalog.regexp_matches(p_content, '.{1,255}', 'g')
                                                     with ordinality as m (piece, n) order by m.n);
    v_slices text[] := '{}';
    v_parts text[];
    v_start integer;
    v_end integer;
    v_first integer;
    v_last integer;
    v_text text;
begin
    for v_i in 1 .. coalesce(cardinality(p_starts), 0) loop
        v_start := p_starts[v_i];
        v_end := p_ends[v_i];
        if v_start is null or v_end is null or v_start < 0 or v_end < v_start or p_content is null then
            -- (what substr says of these: null, a shorter text, or an error)
            v_slices := pg_catalog.array_append(v_slices, substr(p_content, v_start + 1, v_end - v_start));
            continue;
        end if;
        v_first := v_start / 255 + 1;
        v_last := least(greatest(v_end - 1, v_start) / 255 + 1, cardinality(v_pieces));
        -- (element by element: a slice v_pieces[a:b] copies the whole array first; gathered in an array,
        -- appended in place, and joined once: a text grown piece by piece is copied at each piece, time
        -- quadratic in the span: 4.3 s for a span of 3 MB)
        v_parts := '{}';
        for v_k in v_first .. v_last loop
            v_parts := pg_catalog.array_append(v_parts, v_pieces[v_k]);
        end loop;
        v_text := pg_catalog.array_to_string(v_parts, '');
        v_slices := pg_catalog.array_append(v_slices,
                                            substr(v_text, v_start - (v_first - 1) * 255 + 1, v_end - v_start));
    end loop;
    return v_slices;
end
$$;
comment on function beliefdb._slices(text, integer[], integer[]) is 'The text at character spans of a text, as substr gives each, in time linear in the text (one substr per span is quadratic)';

-- A fragment's offsets never change: only its text does, with its version's when that is
-- redacted (checked with every other change of its text by fragment_matches_text).
create or replace function beliefdb.fragment_immutable() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if (new.source_version_id, new.start_offset, new.end_offset)
       is distinct from (old.source_version_id, old.start_offset, old.end_offset) then
        raise exception 'fragments are immutable: insert a new fragment instead' using errcode = 'BD002';
    end if;
    return new;
end
$$;
comment on function beliefdb.fragment_immutable() is 'Trigger: refuse a change to a fragment''s version or offsets';

-- A fragment's text must be the version text at its offsets (0-based, end exclusive, in
-- characters). Checked once per statement over all the rows it inserted or changed, per version:
-- a check per row read the version's text for each fragment, time quadratic in its length.
-- Before this check, it was one row trigger (fragment_matches_text); replaced by the three below.
drop trigger if exists fragment_matches_text on beliefdb.fragment;

create or replace function beliefdb.fragment_matches_text() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_version record;
    v_bad record;
begin
    for v_version in
        select n.workspace_id, n.source_version_id,
               array_agg(n.start_offset order by n.start_offset, n.end_offset) as starts,
               array_agg(n.end_offset order by n.start_offset, n.end_offset) as ends,
               array_agg(n.text order by n.start_offset, n.end_offset) as texts
          from new_fragments n
         group by n.workspace_id, n.source_version_id
    loop
        -- a span running past the end: substr gives fewer characters than the span holds
        select f.start_offset, f.end_offset, f.text, f.actual into v_bad
          from unnest(v_version.starts, v_version.ends, v_version.texts, beliefdb._slices(
                   (select v.content from beliefdb.source_version v
                     where v.workspace_id = v_version.workspace_id and v.id = v_version.source_version_id),
                   v_version.starts, v_version.ends)) as f (start_offset, end_offset, text, actual)
         where f.actual is distinct from f.text or length(f.text) <> f.end_offset - f.start_offset
         limit 1;
        if found then
            raise exception 'fragment text is not the source text at offsets [%, %)', v_bad.start_offset, v_bad.end_offset
                using errcode = 'BD001',
                      detail = pg_catalog.format('expected %L, got %L', v_bad.actual, v_bad.text);
        end if;
    end loop;
    return null;
end
$$;
comment on function beliefdb.fragment_matches_text() is 'Trigger: refuse fragments whose text differs from the source text at their offsets (once per statement)';

create or replace trigger fragment_immutable before update on beliefdb.fragment
    for each row execute function beliefdb.fragment_immutable();
create or replace trigger fragment_matches_text_insert after insert on beliefdb.fragment
    referencing new table as new_fragments
    for each statement execute function beliefdb.fragment_matches_text();
create or replace trigger fragment_matches_text_update after update on beliefdb.fragment
    referencing new table as new_fragments
    for each statement execute function beliefdb.fragment_matches_text();

-- Evidence must quote its fragment byte for byte, and come from the world of the belief it
-- supports (rule 15: a fixture never supports, corroborates or raises production history). An
-- insert is checked once per statement, over all the rows it inserted (a bulk ingest inserts
-- thousands: one query, not a trigger call and a query per row); an update, row by row (the world
-- only when the row moves to another belief or fragment).
create or replace function beliefdb.evidence_matches_fragment() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_text text;
    v_world beliefdb.provenance;
    v_belief_world beliefdb.provenance;
    v_bad record;
    v_ws uuid;
begin
    if tg_level = 'STATEMENT' then
        -- (each row's fragment, source and belief looked up by key: the planner cannot know how
        -- many rows a transition table holds, and a join planned for a few read whole tables; one
        -- workspace at a time, each lookup pinned to it, as a table distributed by workspace needs)
        for v_ws in select distinct n.workspace_id from new_evidence n loop
            -- (the fragment once, then its version and source by the version's key: within one
            -- subquery the plan read every version of the workspace for each row, 5 s for a bulk
            -- batch's 10,000 rows at 1,400 versions)
            select x.quote, x.text, x.world, x.belief_world into v_bad
              from (select n.quote, f.text, w.world,
                           (select b.provenance from beliefdb.belief b
                             where b.workspace_id = v_ws and b.id = n.belief_id) as belief_world
                      from new_evidence n
                      left join lateral (select f.text, f.source_version_id
                                           from beliefdb.fragment f
                                          where f.workspace_id = v_ws and f.id = n.fragment_id
                                         offset 0) as f on true
                      left join lateral (select s.provenance as world
                                           from beliefdb.source_version v
                                           join beliefdb.source s on s.workspace_id = v_ws and s.id = v.source_id
                                          where v.workspace_id = v_ws and v.id = f.source_version_id
                                         offset 0) as w on true
                     where n.workspace_id = v_ws
                    offset 0) x
             where x.text is distinct from x.quote or x.world is distinct from x.belief_world
             order by x.text is distinct from x.quote desc
             limit 1;
            if found and v_bad.text is distinct from v_bad.quote then
                raise exception 'evidence quote is not the text of its fragment'
                    using errcode = 'BD001',
                          detail = pg_catalog.format('fragment text %L, quote %L', v_bad.text, v_bad.quote);
            elsif found then
                raise exception 'evidence from a % source cannot support a % belief: labels are separate worlds',
                    v_bad.world, v_bad.belief_world using errcode = 'BD002';
            end if;
        end loop;
        return null;
    end if;
    select f.text, s.provenance into v_text, v_world
      from beliefdb.fragment f
      join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
      join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
     where f.workspace_id = new.workspace_id and f.id = new.fragment_id;
    if v_text is distinct from new.quote then
        raise exception 'evidence quote is not the text of its fragment'
            using errcode = 'BD001',
                  detail = pg_catalog.format('fragment text %L, quote %L', v_text, new.quote);
    end if;
    if new.belief_id <> old.belief_id or new.fragment_id <> old.fragment_id then
        select b.provenance into v_belief_world
          from beliefdb.belief b
         where b.workspace_id = new.workspace_id and b.id = new.belief_id;
        if v_belief_world is distinct from v_world then
            raise exception 'evidence from a % source cannot support a % belief: labels are separate worlds',
                v_world, v_belief_world using errcode = 'BD002';
        end if;
    end if;
    return new;
end
$$;
comment on function beliefdb.evidence_matches_fragment() is 'Trigger: refuse evidence whose quote differs from its fragment text, or from another world than its belief (an insert: once per statement)';

-- (the row trigger for inserts and updates became one per statement for inserts and one per row
-- for updates)
drop trigger if exists evidence_matches_fragment on beliefdb.evidence;
create or replace trigger evidence_matches_fragment_insert after insert on beliefdb.evidence
    referencing new table as new_evidence
    for each statement execute function beliefdb.evidence_matches_fragment();
create or replace trigger evidence_matches_fragment_update before update on beliefdb.evidence
    for each row execute function beliefdb.evidence_matches_fragment();

-- Whether a node influences another: walking back from p_node through its reasons (consequent to
-- antecedent) and the supersessions in effect (loser to winner) reaches p_by (p_node itself
-- counts). The walk goes back, not forward: a correction's replacement or a belief just ingested
-- rests on a fragment or two, where p_by may be a hub that thousands of nodes rest on (each step:
-- justification_consequent, then the antecedents by justification_antecedent's key;
-- relation_to_belief).
create or replace function beliefdb._influenced_by(p_workspace_id uuid, p_node uuid, p_by uuid) returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
-- (planned once per session, often while relation is empty: the supersessions into a node were
-- then read by a sequential scan, or by relation_in_effect, whose key has to_belief second, every
-- relation of the workspace at each step, for each supersession an ingest records: 2,000 of them,
-- 0.5 s, 8,000, 5 s. By relation_to_belief only: ended_at is null is tested outside offset 0, where
-- it cannot make the partial relation_in_effect look like a way to find one to_belief)
set enable_seqscan = off
as $$
begin
    -- plpgsql, not sql: planned once per session, not once per call
    return exists (
        with recursive influencing (node) as (
            select p_node
            union
            select back.node
              from influencing i
              cross join lateral (
                    select a.antecedent as node
                      from beliefdb.justification j
                      join beliefdb.justification_antecedent a
                        on a.workspace_id = j.workspace_id and a.justification_id = j.id
                     where j.workspace_id = p_workspace_id and j.consequent = i.node
                    union all
                    select r.from_belief
                      from (select r.from_belief, r.ended_at
                              from beliefdb.relation r
                             where r.workspace_id = p_workspace_id and r.to_belief = i.node and r.kind = 'supersedes'
                            offset 0) r
                     where r.ended_at is null
              ) back
        )
        select from influencing where node = p_by);
end
$$;
comment on function beliefdb._influenced_by(uuid, uuid, uuid) is 'Whether a node rests on, or is superseded through, another (reasons and supersessions in effect)';

-- Supersession keeps holding stratified (rules 2 and 3 have one answer): a new "from supersedes
-- to" is refused when to already influences from, through reasons (antecedent to consequent)
-- or supersessions in effect (winner to loser). That covers a supersession cycle and a belief
-- superseding anything it (transitively) rests on. An ended supersession is history and counts for
-- nothing (beliefdb._supersede ends the ones that no longer hold before rule 8 reverses a pair).
create or replace function beliefdb.supersession_is_acyclic() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if new.kind <> 'supersedes' or new.ended_at is not null then
        return new;
    end if;
    if beliefdb._influenced_by(new.workspace_id, new.from_belief, new.to_belief) then
        raise exception 'belief % cannot supersede %: it rests on it, or is already superseded through it',
            new.from_belief, new.to_belief using errcode = 'BD002';
    end if;
    return new;
end
$$;
comment on function beliefdb.supersession_is_acyclic() is 'Trigger: refuse a supersedes edge that would make holding ambiguous (a cycle through reasons or supersession in effect)';

create or replace trigger relation_supersession_acyclic before insert or update on beliefdb.relation
    for each row execute function beliefdb.supersession_is_acyclic();
