-- beliefdb: who owns what (multi-agent ownership; docs/rules.md, rule 17). A belief, decision or
-- action belongs to the principal whose session wrote it. Only a belief's owner changes its status
-- (corrects, retracts, lets a rival supersede it); other principals add evidence, raise conflicts
-- and propose corrections, which wait in the review queue. The application role writes tables
-- only through the functions that check this (api/80_privileges.sql). Trigger functions stamp
-- and keep the owner; the API functions check it with beliefdb._require_owner and its kin.

-- The workspace a function of the bound workspace acts in: the session's (beliefdb.current_workspace_id),
-- refused (BD003) when none is bound rather than acting on no rows. For the functions that run with
-- their owner's rights; one that runs as its caller says it itself, since the application role may
-- not call an internal.
create or replace function beliefdb._bound_workspace() returns uuid
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
begin
    if v_ws is null then
        raise exception 'no workspace is bound to this session' using errcode = 'BD003', hint = beliefdb.workspace_hint();
    end if;
    return v_ws;
end
$$;
comment on function beliefdb._bound_workspace() is 'The session''s bound workspace; BD003 when none is bound';

-- Whether this session is one of the schema's owner (its login a member of the owner: the CLI, the
-- library, the servers and workers, which set role beliefdb_app after binding), whatever role it has set.
create or replace function beliefdb._owner_session() returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select pg_catalog.pg_has_role(session_user, n.nspowner, 'member')
      from pg_catalog.pg_namespace n
     where n.nspname = 'beliefdb'
$$;
comment on function beliefdb._owner_session() is 'Whether this session''s login is the schema''s owner (or a member of it)';

-- Refuse to gather planner statistics (ANALYZE of beliefdb's tables) in a session not of the schema's
-- owner (42501), saying p_instead. The tables are every workspace's, and an ANALYZE keeps its lock on
-- each until its transaction ends, which another login chooses (a pg_sleep in the same statement, its
-- own timeouts): an agent's login of one workspace held them, and every forget of every other workspace
-- (which gathers them before it commits, rule 14) waited and gave up. Autovacuum gathers them in its time.
create or replace function beliefdb._may_analyze(p_instead text) returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    if not beliefdb._owner_session() then
        raise exception 'only a session of the schema''s owner gathers planner statistics: they are every workspace''s tables, and login % would hold them until its transaction ended (autovacuum gathers them)',
            session_user
            using errcode = '42501', hint = p_instead;
    end if;
end
$$;
comment on function beliefdb._may_analyze(text) is 'Refuse (42501) to gather planner statistics in a session not of the schema''s owner';

-- Whether this session may take or start a job of its workspace (api/58_jobs.sql): the schema
-- owner's sessions (a team's workers) every job, an agent's login only those its principal submitted.
create or replace function beliefdb._job_visible(p_submitted_by text) returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select p_submitted_by = beliefdb.current_principal()
           or pg_catalog.pg_has_role(session_user, (select n.nspowner from pg_catalog.pg_namespace n
                                                     where n.nspname = 'beliefdb'), 'member')
$$;
comment on function beliefdb._job_visible(text) is 'Whether this session may take or start a job submitted by this principal: the schema owner''s sessions any, an agent''s login its own';

-- Whether this session may retry or cancel a job submitted by this principal (api/58_jobs.sql): its
-- submitter's; and, as a worker takes any job, a session of the schema's owner that acts as no
-- principal by name (the operator's own, beliefdb.principal unset). A session acting as a named
-- principal (a bearer token's, --as NAME) retries and cancels only that principal's jobs, as an
-- agent's login does: one principal does not queue again, or delete with its text, another's document.
create or replace function beliefdb._job_manageable(p_submitted_by text) returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select p_submitted_by = beliefdb.current_principal()
           or (nullif(pg_catalog.current_setting('beliefdb.principal', true), '') is null
               and pg_catalog.pg_has_role(session_user, (select n.nspowner from pg_catalog.pg_namespace n
                                                          where n.nspname = 'beliefdb'), 'member'))
$$;
comment on function beliefdb._job_manageable(text) is 'Whether this session may retry or cancel a job submitted by this principal: its submitter, or the schema owner''s session acting as no named principal';

-- Refuse job ids that name no job this session may retry or cancel (as _job_manageable; BD004), or one
-- whose status is none of p_statuses (BD005, saying what is p_done to which), first in id order:
-- job_retry and job_cancel check every id they are given before they change any.
create or replace function beliefdb._require_jobs(p_ws uuid, p_ids bigint[], p_statuses text[], p_done text)
returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_job record;
begin
    for v_job in
        select i.id, j.status
          from (select distinct u.id from pg_catalog.unnest(p_ids) u(id)) i
          left join beliefdb.job j on j.workspace_id = p_ws and j.id = i.id and beliefdb._job_manageable(j.submitted_by)
         order by i.id
    loop
        if v_job.status is null then
            raise exception 'unknown job %', v_job.id using errcode = 'BD004';
        elsif v_job.status <> all(p_statuses) then
            raise exception 'job % is %, not %: only a % job is %', v_job.id, v_job.status,
                pg_catalog.array_to_string(p_statuses, ' or '), pg_catalog.array_to_string(p_statuses, ' or '), p_done
                using errcode = 'BD005';
        end if;
    end loop;
end
$$;
comment on function beliefdb._require_jobs(uuid, bigint[], text[], text) is 'Refuse job ids of no job this session may retry or cancel (BD004) or of a job in none of these statuses (BD005)';

-- How many times a job was started since it was last retried (api/58_jobs.sql): its starts less those
-- it had when retried (its payload's starts_before_retry; job_retry keeps the starts, its history).
create or replace function beliefdb._job_starts(p_workspace_id uuid, p_job_id bigint, p_payload jsonb) returns bigint
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select pg_catalog.count(*) - coalesce((p_payload ->> 'starts_before_retry')::bigint, 0)
      from beliefdb.job_start s
     where s.workspace_id = p_workspace_id and s.job_id = p_job_id
$$;
comment on function beliefdb._job_starts(uuid, bigint, jsonb) is 'How many times a job was started since it was last retried (its starts less the payload''s starts_before_retry)';

-- The queued jobs of a workspace a live worker holds (api/58_jobs.sql: beliefdb.jobs and job_totals show
-- them running): job_take locks the job's row in the transaction that runs it, so the row's xmax is a
-- transaction in progress (whose backend holds the lock on its own transaction id), as it is while
-- job_cancel takes the row; the row lock itself is not in pg_locks. Not an advisory lock on the job's id,
-- as before: any login may take one (pg_advisory_lock is PostgreSQL's, executable by all), and another
-- workspace's agent, guessing this one's job ids from its own (one sequence), showed its queued jobs
-- running, or, holding the key first, a running one queued (so did a job of that id in another database).
create or replace function beliefdb._jobs_held(p_workspace_id uuid) returns bigint[]
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(pg_catalog.array_agg(j.id), '{}')
      from beliefdb.job j
     where j.workspace_id = p_workspace_id and j.status = 'queued' and j.xmax <> '0'::xid
       and j.xmax in (select t.transactionid from pg_catalog.pg_locks t
                       where t.locktype = 'transactionid' and t.mode = 'ExclusiveLock' and t.granted)
$$;
comment on function beliefdb._jobs_held(uuid) is 'The queued jobs of a workspace a live worker holds (their row locked by a transaction in progress): shown running';

-- The owner is the acting principal, whatever the row said.
create or replace function beliefdb.stamp_owner() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    new.owner := beliefdb.current_principal();
    return new;
end
$$;
comment on function beliefdb.stamp_owner() is 'Trigger: a new belief, decision or action is owned by the acting principal';

-- A set-based insert that wrote the owner itself (a bulk ingest's beliefs: current_principal once
-- for the run, where the trigger called it once a row, 20 us each) says so for its transaction in
-- beliefdb.owner_stamped (its time and that owner): the WHEN skips a row that carries that owner;
-- a row with any other owner, or a statement of another transaction, is stamped as before.
create or replace trigger belief_owner before insert on beliefdb.belief
    for each row when (pg_catalog.current_setting('beliefdb.owner_stamped', true)
                       is distinct from pg_catalog.now()::text || ' ' || new.owner)
    execute function beliefdb.stamp_owner();
create or replace trigger decision_owner before insert on beliefdb.decision
    for each row execute function beliefdb.stamp_owner();
create or replace trigger action_owner before insert on beliefdb.action
    for each row execute function beliefdb.stamp_owner();

-- A source belongs to whoever first ingested or queued it (rule 17): a source not stored yet whose name a
-- job waits with in the queue (queued, or running: a failed job waits for no worker, and would let anyone
-- hold any name) is that job's submitter's to create, by the worker that stores their job or by their own
-- ingest. Else anyone who stored a text of that name first owned it, and with it the submitter's queued
-- text: a forget of theirs masked it, and forgetting the source deleted it. Each new source probes the
-- queued jobs by job_queued_source and the running ones by job_status (few), not the failed ones, which
-- pile up. Security definer: an agent's login reads only its own jobs.
create or replace function beliefdb.source_name_reserved() returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid;
    v_taken record;
begin
    -- (one workspace at a time, each probe pinned to it: a sharded job table is read on one shard)
    for v_ws in select distinct a.workspace_id from added a loop
        select a.name, w.id, w.submitted_by into v_taken
          from added a
          cross join lateral (select x.id, x.submitted_by
                                from (select j.id, j.submitted_by from beliefdb.job j
                                       where j.workspace_id = v_ws and j.status = 'queued'
                                         and j.payload ->> 'source' = a.name
                                      union all
                                      select j.id, j.submitted_by from beliefdb.job j
                                       where j.workspace_id = v_ws and j.status = 'running'
                                         and j.payload ->> 'source' = a.name) x
                               order by x.id
                               limit 1) w
         where a.workspace_id = v_ws and w.submitted_by is distinct from a.owner
         limit 1;
        if found then
            raise exception 'source % is not stored yet, and waits in the queue as %''s (job %): its first submitter stores it and owns it',
                v_taken.name, v_taken.submitted_by, v_taken.id using errcode = 'BD008',
                hint = format('give your text another source name; or wait until a worker has stored theirs, and '
                              'ingest yours then, as a new version proposed to %s', v_taken.submitted_by);
        end if;
    end loop;
    return null;
end
$$;
comment on function beliefdb.source_name_reserved() is 'Trigger: a source name a job of another principal waits with in the queue (queued, running) is that submitter''s to create';

create or replace trigger source_name_reserved after insert on beliefdb.source
    referencing new table as added
    for each statement execute function beliefdb.source_name_reserved();

-- A belief's owner never changes.
create or replace function beliefdb.owner_unchanged() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if new.owner is distinct from old.owner then
        raise exception '% % is owned by %: its owner cannot change', tg_table_name, old.id, old.owner
            using errcode = 'BD008';
    end if;
    return new;
end
$$;
comment on function beliefdb.owner_unchanged() is 'Trigger: refuse to change the owner of a belief, decision or action';

create or replace trigger belief_owner_unchanged before update of owner on beliefdb.belief
    for each row execute function beliefdb.owner_unchanged();
create or replace trigger decision_owner_unchanged before update of owner on beliefdb.decision
    for each row execute function beliefdb.owner_unchanged();
create or replace trigger action_owner_unchanged before update of owner on beliefdb.action
    for each row execute function beliefdb.owner_unchanged();

-- Only its owner lets another belief supersede a belief (corrections, resolved conflicts,
-- rule 8 between one principal's beliefs); anyone else's rival becomes a conflict instead.
create or replace function beliefdb.supersession_by_owner() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_owner text;
begin
    if new.kind = 'supersedes' then
        select b.owner into v_owner from beliefdb.belief b
         where b.workspace_id = new.workspace_id and b.id = new.to_belief;
        if v_owner is distinct from beliefdb.current_principal() then
            raise exception 'belief % is owned by %: only its owner can let another belief supersede it (propose a correction instead)',
                new.to_belief, v_owner using errcode = 'BD008';
        end if;
    end if;
    return new;
end
$$;
comment on function beliefdb.supersession_by_owner() is 'Trigger: a supersedes relation needs the superseded belief''s owner';

create or replace trigger relation_supersession_by_owner before insert or update of kind, to_belief on beliefdb.relation
    for each row execute function beliefdb.supersession_by_owner();

-- Raise not_owner (BD008) unless the acting principal owns the belief, decision or action, or the
-- agent run: the principal that recorded it, the only one that adds steps to it or decides in it
-- (rule 19: a decision of the run cites what the run was shown). Other nodes have no owner.
create or replace function beliefdb._require_owner(p_workspace_id uuid, p_node uuid, p_doing text) returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_kind text;
    v_owner text;
begin
    select o.kind, o.owner into v_kind, v_owner
      from (select 'belief' as kind, b.owner from beliefdb.belief b where b.workspace_id = p_workspace_id and b.id = p_node
            union all
            select 'decision', d.owner from beliefdb.decision d where d.workspace_id = p_workspace_id and d.id = p_node
            union all
            select 'action', a.owner from beliefdb.action a where a.workspace_id = p_workspace_id and a.id = p_node
            union all
            select 'run', r.owner from beliefdb.run r where r.workspace_id = p_workspace_id and r.id = p_node) o;
    if found and v_owner is distinct from beliefdb.current_principal() then
        raise exception '% % is owned by %: only its owner can %', v_kind, p_node, v_owner, p_doing
            using errcode = 'BD008',
                  hint = case when v_kind = 'run' then 'record a run of your own'
                              when p_doing like 'approve or reject %' then
                                  format('the review item waits for %s, the %s''s owner, in the review queue',
                                         v_owner, v_kind)
                              else 'propose a correction instead (its owner reviews it), or raise a conflict' end;
    end if;
end
$$;
comment on function beliefdb._require_owner(uuid, uuid, text) is 'Refuse (not_owner) unless the acting principal owns the belief, decision, action or run';

-- A reviewer's correction lives in a source of its own: retracting or replacing that source
-- undoes the correction, which only the corrected belief's owner may.
create or replace function beliefdb._require_correction_owner(p_workspace_id uuid, p_source uuid, p_doing text)
returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    perform beliefdb._require_owner(p_workspace_id, c.replacement_belief_id, p_doing)
       from beliefdb.correction c
       join beliefdb.fragment f on f.workspace_id = c.workspace_id and f.id = c.fragment_id
       join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
      where c.workspace_id = p_workspace_id and c.replacement_belief_id is not null
        and v.source_id = p_source;
end
$$;
comment on function beliefdb._require_correction_owner(uuid, uuid, text) is 'Refuse (not_owner) to undo a correction of a belief the acting principal does not own';

-- The owner checks of a retraction or restore, asked by beliefdb.retract and its preview alike so
-- the preview refuses what the apply refuses: of a source or version (the acting principal's own:
-- another's is a proposal), only the corrected belief's owner undoes a correction it holds; a
-- belief, decision or action, or a correction (or its fragment), only the owner of what it names.
create or replace function beliefdb._require_retraction_owner(p_workspace_id uuid, p_target text, p_id uuid)
returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    if p_target in ('source', 'version') then
        perform beliefdb._require_correction_owner(p_workspace_id, p_id, 'retract its correction');
    else
        perform beliefdb._require_owner(p_workspace_id, p_id, 'retract it');
        perform beliefdb._require_owner(p_workspace_id, c.replacement_belief_id, 'retract its correction')
           from beliefdb.correction c
          where c.workspace_id = p_workspace_id and (c.id = p_id or c.fragment_id = p_id);
    end if;
end
$$;
comment on function beliefdb._require_retraction_owner(uuid, text, uuid) is 'Refuse (not_owner) a retraction or restore the acting principal may not make (retract and its preview)';

-- The source a node of retract names belongs to (beliefdb.retract, retract_preview, rule 17): a source
-- (target source), a version of it (target version, its number) or a fragment of one of its versions
-- (target node), each its source's owner's to retract or restore; no row for any other node (a
-- belief, decision, action or correction: _require_retraction_owner asks their owners).
create or replace function beliefdb._source_part(p_workspace_id uuid, p_id uuid)
returns table (target text, source_id uuid, version integer)
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select 'source', s.id, null::integer from beliefdb.source s where s.workspace_id = p_workspace_id and s.id = p_id
    union all
    select 'version', v.source_id, v.version from beliefdb.source_version v
     where v.workspace_id = p_workspace_id and v.id = p_id
    union all
    select 'node', v.source_id, null from beliefdb.fragment f
      join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
     where f.workspace_id = p_workspace_id and f.id = p_id
$$;
comment on function beliefdb._source_part(uuid, uuid) is 'The source (and version) a source, version or fragment id belongs to, and the retraction target it is';

-- What a retraction or restore names, for its owner check (beliefdb.retract and retract_preview alike,
-- rule 17): a source or a version as itself (the source's id, the version's number), a node that is a
-- source or a version as if named so, a fragment as a node with its source (the source's owner's), any
-- other node as itself, with no source (its own owner's: _require_retraction_owner).
create or replace function beliefdb._retraction_subject(p_workspace_id uuid, p_target text, p_id uuid,
                                                        p_version integer)
returns table (target text, id uuid, source_id uuid, version integer)
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_part text;
    v_source uuid;
    v_version integer;
begin
    if p_target in ('source', 'version') then
        return query select p_target, p_id, p_id, p_version;
    elsif p_target = 'node' then
        -- (one row at most: a source, a version or a fragment of that id)
        select p.target, p.source_id, p.version into v_part, v_source, v_version
          from beliefdb._source_part(p_workspace_id, p_id) p;
        if v_part in ('source', 'version') then
            return query select v_part, v_source, v_source, v_version;
        else
            return query select p_target, p_id, v_source, v_version;
        end if;
    else
        return query select p_target, p_id, null::uuid, p_version;
    end if;
end
$$;
comment on function beliefdb._retraction_subject(uuid, text, uuid, integer) is 'What a retraction names for its owner check: its target, id, source and version (a source, version or fragment named as a node is its source''s)';

-- Refuse (BD005) a proposal to retract or restore a fragment whose text is not in force while its
-- source is: the source has another text in force (approved, it would change words nothing reads, not
-- the text in force's own fragment of them). A fragment of a retracted source is not refused: restoring
-- the source brings its text back into force.
create or replace function beliefdb._require_fragment_in_force(p_workspace_id uuid, p_fragment uuid) returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_version integer;
    v_name text;
begin
    select v.version, s.name into v_version, v_name
      from beliefdb.fragment f
      join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
      join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
     where f.workspace_id = p_workspace_id and f.id = p_fragment
       and s.retracted_at is null and not beliefdb.in_force(v.workspace_id, v.id);
    if found then
        raise exception 'fragment % is of version % of %, which is not in force: propose it on the text in force',
            p_fragment, v_version, v_name using errcode = 'BD005';
    end if;
end
$$;
comment on function beliefdb._require_fragment_in_force(uuid, uuid) is 'Refuse (BD005) a proposal about a fragment whose version is not in force while its source is';

-- Raise not_owner (BD008) unless the acting principal owns the source (the principal that first
-- ingested it, rule 17).
create or replace function beliefdb._require_source_owner(p_workspace_id uuid, p_source uuid, p_doing text)
returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_name text;
    v_owner text;
begin
    select s.name, s.owner into v_name, v_owner from beliefdb.source s
     where s.workspace_id = p_workspace_id and s.id = p_source;
    if found and v_owner is distinct from beliefdb.current_principal() then
        raise exception 'source % is owned by %: only its owner can %', v_name, v_owner, p_doing
            using errcode = 'BD008';
    end if;
end
$$;
comment on function beliefdb._require_source_owner(uuid, uuid, text) is 'Refuse (not_owner) unless the acting principal owns the source';
