-- beliefdb: invariants the database keeps by itself, whoever writes.
-- Trigger functions and their triggers: every per-kind row has its node row; a source version is
-- hashed here and immutable; fragments and evidence quote their source exactly (docs/rules.md,
-- rule 1) and from the belief's world (rule 15); supersession is acyclic (rules 2 and 3).

-- Per-kind rows (fragment, belief, ...) get their node row first, under the same key. An
-- operation recording its changes (beliefdb._begin_changes) notes the node as one it created.
create or replace function beliefdb.create_node() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    insert into beliefdb.node (workspace_id, id, kind)
    values (new.workspace_id, new.id, new.node_kind);
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
    for each row execute function beliefdb.create_node();
create or replace trigger belief_node before insert on beliefdb.belief
    for each row execute function beliefdb.create_node();
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

-- Source versions are immutable text, whoever tries to change them. The one change allowed is
-- a redaction (forgetting a subject): the spans beliefdb.redaction records for the version, masked
-- with as many U+2588 (its sha256 stays that of the text as ingested).
create or replace function beliefdb.source_version_immutable() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if (new.source_id, new.version, new.sha256) is distinct from (old.source_id, old.version, old.sha256)
       or (new.content is distinct from old.content
           and new.content is distinct from beliefdb._masked(old.content, array(
                   select int4range(r.start_offset, r.end_offset) from beliefdb.redaction r
                    where r.workspace_id = old.workspace_id and r.source_version_id = old.id))) then
        raise exception 'source versions are immutable: ingest a new version instead' using errcode = 'BD002';
    end if;
    return new;
end
$$;
comment on function beliefdb.source_version_immutable() is 'Trigger: refuse changes to a source version''s text, hash or number, other than its recorded redactions';

create or replace trigger source_version_immutable before update on beliefdb.source_version
    for each row execute function beliefdb.source_version_immutable();

-- A fragment's text must be the version text at its offsets (0-based, end exclusive, in characters).
create or replace function beliefdb.fragment_matches_text() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_actual text;
    v_length integer;
begin
    -- (its text changes only with its version's, when that is redacted: checked below)
    if tg_op = 'UPDATE' and (new.source_version_id, new.start_offset, new.end_offset)
                            is distinct from (old.source_version_id, old.start_offset, old.end_offset) then
        raise exception 'fragments are immutable: insert a new fragment instead' using errcode = 'BD002';
    end if;
    select substr(v.content, new.start_offset + 1, new.end_offset - new.start_offset), length(v.content)
      into v_actual, v_length
      from beliefdb.source_version v
     where v.workspace_id = new.workspace_id and v.id = new.source_version_id;
    if v_actual is distinct from new.text or new.end_offset > v_length then
        raise exception 'fragment text is not the source text at offsets [%, %)', new.start_offset, new.end_offset
            using errcode = 'BD001',
                  detail = pg_catalog.format('expected %L, got %L', v_actual, new.text);
    end if;
    return new;
end
$$;
comment on function beliefdb.fragment_matches_text() is 'Trigger: refuse a fragment whose text differs from the source text at its offsets, or any change to it but a redaction''s';

create or replace trigger fragment_matches_text before insert or update on beliefdb.fragment
    for each row execute function beliefdb.fragment_matches_text();

-- Evidence must quote its fragment byte for byte, and come from the world of the belief it
-- supports (rule 15: a fixture never supports, corroborates or raises production history).
create or replace function beliefdb.evidence_matches_fragment() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_text text;
    v_world beliefdb.provenance;
    v_belief_world beliefdb.provenance;
begin
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
    if tg_op = 'INSERT' or new.belief_id <> old.belief_id or new.fragment_id <> old.fragment_id then
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
comment on function beliefdb.evidence_matches_fragment() is 'Trigger: refuse evidence whose quote differs from its fragment text, or from another world than its belief';

create or replace trigger evidence_matches_fragment before insert or update on beliefdb.evidence
    for each row execute function beliefdb.evidence_matches_fragment();

-- Supersession keeps holding stratified (rules 2 and 3 have one answer): a new "from supersedes
-- to" is refused when to already influences from, through reasons (antecedent to consequent)
-- or earlier supersessions (winner to loser). That covers a supersession cycle and a belief
-- superseding anything it (transitively) rests on.
create or replace function beliefdb.supersession_is_acyclic() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if new.kind <> 'supersedes' then
        return new;
    end if;
    if exists (
        with recursive influenced (node) as (
            select new.to_belief
            union
            select next.node
              from influenced i
              cross join lateral (
                    select j.consequent as node
                      from beliefdb.justification_antecedent a
                      join beliefdb.justification j on j.workspace_id = a.workspace_id and j.id = a.justification_id
                     where a.workspace_id = new.workspace_id and a.antecedent = i.node
                    union all
                    select r.to_belief
                      from beliefdb.relation r
                     where r.workspace_id = new.workspace_id and r.from_belief = i.node and r.kind = 'supersedes'
              ) next
        )
        select from influenced where node = new.from_belief
    ) then
        raise exception 'belief % cannot supersede %: it rests on it, or is already superseded through it',
            new.from_belief, new.to_belief using errcode = 'BD002';
    end if;
    return new;
end
$$;
comment on function beliefdb.supersession_is_acyclic() is 'Trigger: refuse a supersedes edge that would make holding ambiguous (a cycle through reasons or supersession)';

create or replace trigger relation_supersession_acyclic before insert or update on beliefdb.relation
    for each row execute function beliefdb.supersession_is_acyclic();
