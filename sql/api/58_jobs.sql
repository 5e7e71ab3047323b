-- beliefdb: the queue of jobs (issue 20): documents submitted now and ingested later by workers
-- (beliefdb worker). A worker takes a job in the transaction that runs it, with a row lock (for no
-- key update skip locked) held until that transaction ends; the ingest's writes and the job's
-- completion (job_finish) or failure (job_fail) commit together. A worker that dies (killed, its
-- host gone) loses its connection, the server rolls the transaction back, and the job is queued
-- again as it was, for the next worker: no job is lost, and none is ingested twice. Submitting
-- takes no workspace lock, so it returns at once while a worker ingests.

-- Queue one job per payload (in order). An ingest payload is an object with the document's text and
-- its source name, and the ingest's options (path, authority, label, origin, version_label, extractor; a
-- conversation's turns). Turns the ingest would refuse at every attempt (for a document's source) are
-- refused, and nothing is queued. A payload that would change nothing is not queued (an operator's cron
-- submitting a drop folder again queued every file, and workers spent their time on no-ops; rule 18 of
-- docs/rules.md: the same text again changes nothing): the same text, with the same options, as the
-- newest job of its source still to run (queued, or running: a worker holds it), when this principal
-- submitted it; or, with no job of its source to run, a document's text (no turns) whose sha256 is the
-- version in force of its source (not retracted), whose options change nothing of the source
-- (authority, label, origin), and that a done job read with the same extractor, of the same build (the
-- text in force again still settles claims not recorded before, which another extractor, or a newer
-- build of it, may find: rule 18; extractor_build, a digest of the reading code, in the payload as
-- submitted and in the result as the worker that read it recorded it). One
-- row per payload, in order: the job queued, or null and why it was not (unchanged).
-- (before unchanged, it returned setof bigint: a result of another type cannot be replaced in place. Dropped
-- only then: dropped at every migration, it was made anew, and the migrating role's default privileges
-- granted it again, each time, to the roles they name, which the grants' file then named as revoked)
do $$
begin
    if pg_catalog.to_regprocedure('beliefdb.job_submit(text,jsonb,integer)') is not null
       and not exists (select from pg_catalog.pg_proc p
                        where p.oid = pg_catalog.to_regprocedure('beliefdb.job_submit(text,jsonb,integer)')
                          and 'unchanged' = any(p.proargnames)) then
        drop function beliefdb.job_submit(text, jsonb, integer);
    end if;
end
$$;
create or replace function beliefdb.job_submit(p_kind text, p_payloads jsonb, p_max_attempts integer default 5)
returns table (job bigint, unchanged text)
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
    v_refused text;
    v_why text[];
    v_ids bigint[];
begin
    if p_kind is distinct from 'ingest' then
        raise exception 'unknown job kind % (the one kind is ingest)', p_kind using errcode = 'BD005';
    end if;
    if pg_catalog.jsonb_typeof(p_payloads) is distinct from 'array' or pg_catalog.jsonb_array_length(p_payloads) = 0 then
        raise exception 'nothing to submit: give an array of one payload per job' using errcode = 'BD005';
    end if;
    if exists (select from pg_catalog.jsonb_array_elements(p_payloads) e(p)
                where pg_catalog.jsonb_typeof(e.p) is distinct from 'object'
                   or pg_catalog.jsonb_typeof(e.p -> 'text') is distinct from 'string'
                   or pg_catalog.jsonb_typeof(e.p -> 'source') is distinct from 'string'
                   or e.p ->> 'source' = '' or pg_catalog.btrim(e.p ->> 'text') = '') then
        raise exception 'an ingest job needs a non-empty text and source name' using errcode = 'BD005';
    end if;
    if p_max_attempts is null or p_max_attempts not between 1 and 100 then
        raise exception 'max attempts must be between 1 and 100, not %', p_max_attempts using errcode = 'BD005';
    end if;
    -- turns for a document's source (beliefdb._text_kind_refused), which every attempt would see refused
    -- whichever worker runs it, are refused now, in the words of the ingest, and nothing is queued. Not
    -- a source another owns: the ingest proposes the text to its owner instead (beliefdb._ingest_text).
    -- Nor a text for a conversation's source: what it would meet may change before a worker takes it
    -- (forgetting a subject masks the queued text, and the turns it said).
    select r.why into v_refused
      from pg_catalog.jsonb_array_elements(p_payloads) with ordinality e(p, n)
      join beliefdb.source s on s.workspace_id = v_ws and s.name = e.p ->> 'source'
                            and s.owner is not distinct from beliefdb.current_principal()
     cross join lateral (select beliefdb._text_kind_refused(v_ws, s.id, true, null) as why) r
     where pg_catalog.jsonb_typeof(e.p -> 'turns') = 'array' and r.why is not null
     order by e.n
     limit 1;
    if v_refused is not null then
        raise exception '%; nothing was queued', v_refused using errcode = 'BD005';
    end if;
    -- what each payload would change: nothing (why), or null. The newest job of its source still to run
    -- is what the source holds once it ran; only one this principal submitted is compared (another's text
    -- is not theirs to read, and its ingest may be a proposal to the owner where theirs is not)
    select pg_catalog.array_agg(
               case when q.id is not null and q.submitted_by = beliefdb.current_principal()
                         and q.payload ->> 'text' = e.p ->> 'text'
                         and q.payload -> 'turns' is not distinct from e.p -> 'turns'
                         and q.payload ->> 'authority' is not distinct from e.p ->> 'authority'
                         and q.payload ->> 'label' is not distinct from e.p ->> 'label'
                         and q.payload ->> 'origin' is not distinct from e.p ->> 'origin'
                         and coalesce(q.payload ->> 'extractor', 'rules') = coalesce(e.p ->> 'extractor', 'rules')
                    then pg_catalog.format('job %s of %s, still to run, carries the same text', q.id, e.p ->> 'source')
                    when q.id is null and v.version is not null
                    then pg_catalog.format('the same text as version %s of %s, in force', v.version, e.p ->> 'source')
               end order by e.n)
      into v_why
      from pg_catalog.jsonb_array_elements(p_payloads) with ordinality e(p, n)
      left join lateral (select j.id, j.submitted_by, j.payload
                           from beliefdb.job j
                          -- (status running is only ever seen in the transaction of the worker that
                          -- holds the job: queued to every other)
                          where j.workspace_id = v_ws and j.status = 'queued'
                            and j.payload ->> 'source' = e.p ->> 'source'
                          order by j.id desc
                          limit 1) q on true
      left join lateral (
          select v.version
            from beliefdb.source s
            join lateral (select l.version, l.sha256
                            from beliefdb.source_version l
                           where l.workspace_id = s.workspace_id and l.source_id = s.id and l.retracted_at is null
                           order by l.version desc
                           limit 1) v on true
           where s.workspace_id = v_ws and s.name = e.p ->> 'source' and s.retracted_at is null
             and pg_catalog.jsonb_typeof(e.p -> 'turns') is distinct from 'array'
             and v.sha256 = pg_catalog.sha256(pg_catalog.convert_to(e.p ->> 'text', 'UTF8'))
             and (e.p ->> 'authority' is null or e.p ->> 'authority' = s.authority::text)
             and (e.p ->> 'label' is null or e.p ->> 'label' = s.provenance::text)
             and (e.p ->> 'origin' is null or e.p ->> 'origin' = s.origin_type::text)
             and exists (select from beliefdb.job d
                          where d.workspace_id = v_ws and d.status = 'done'
                            and d.payload ->> 'source' = s.name
                            and d.result ->> 'version' = v.version::text
                            and coalesce(d.payload ->> 'extractor', 'rules') = coalesce(e.p ->> 'extractor', 'rules')
                            -- (the build of the worker that read it, in its result; not the submitter's)
                            and d.result ->> 'extractor_build' is not distinct from e.p ->> 'extractor_build')) v
        on true;
    with queued as (
        insert into beliefdb.job (workspace_id, kind, payload, max_attempts)
        -- (what a forget masked in a job's text is recorded by the forget alone: beliefdb._masked_job)
        select v_ws, p_kind, e.p - 'forgotten_lines', p_max_attempts
          from pg_catalog.jsonb_array_elements(p_payloads) with ordinality e(p, n)
         where v_why[e.n] is null
         order by e.n
        returning id
    )
    select pg_catalog.array_agg(queued.id order by queued.id) into v_ids from queued;
    -- (the ids in the order of the payloads queued: one sequence, inserted in that order)
    return query
        select case when u.why is null
                    then v_ids[(pg_catalog.count(*) filter (where u.why is null) over (order by u.n))::integer] end,
               u.why
          from pg_catalog.unnest(v_why) with ordinality u(why, n)
         order by u.n;
end
$$;
comment on function beliefdb.job_submit(text, jsonb, integer) is 'Queue one job per payload of the array, in order, but none that would change nothing (unchanged: why); a row per payload at once (no workspace lock)';

-- Take the oldest ready job (queued, its backoff over, no earlier job of its source queued) that
-- no other worker holds, for this transaction: it is running until the transaction ends with job_finish or job_fail, and queued
-- again as it was if the transaction rolls back (its worker died). A job whose workers died during
-- every attempt it had is failed on the way, with the reason, and listed for the transaction in the
-- setting beliefdb.jobs_failed_taking (a JSON array of id, source, attempts and error), so the worker
-- that failed it counts it failed for good. The job acts as whoever
-- submitted it: a session of the schema's owner takes any job of the workspace and acts as its
-- submitter for the rest of the transaction; an agent's login takes only its own jobs.
create or replace function beliefdb.job_take(p_worker text)
returns setof beliefdb.job
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
    v_job beliefdb.job;
    v_starts bigint;
    v_failed record;
begin
    loop
        select j.* into v_job
          from beliefdb.job j
         where j.workspace_id = v_ws and j.status = 'queued' and j.run_after <= pg_catalog.clock_timestamp()
           and beliefdb._job_visible(j.submitted_by)
           -- the versions of one source are ingested in the order submitted: not while an earlier job
           -- of the source is queued (held by a worker, or waiting for its backoff)
           and not exists (select from beliefdb.job e
                            where e.workspace_id = v_ws and e.status = 'queued'
                              and e.payload ->> 'source' = j.payload ->> 'source' and e.id < j.id)
         order by j.id
         limit 1
           for no key update skip locked;
        if not found then
            return;
        end if;
        -- (every attempt that failed is a start too: a queued job started max_attempts times used
        -- them up, the last ones in workers that died)
        v_starts := beliefdb._job_starts(v_ws, v_job.id, v_job.payload);
        exit when v_starts < v_job.max_attempts;
        update beliefdb.job j
           set status = 'failed', attempts = v_starts, finished_at = pg_catalog.clock_timestamp(),
               last_error = pg_catalog.format(
                   'its worker died during %s of its %s attempts (killed, or brought down by this document)',
                   v_starts - j.attempts, v_starts)
         where j.workspace_id = v_ws and j.id = v_job.id
        returning j.id, j.payload ->> 'source' as source, j.attempts, j.last_error as error into v_failed;
        -- (the worker counts it failed for good: beliefdb.jobs_failed_taking, what job_taken_failed reads)
        perform pg_catalog.set_config('beliefdb.jobs_failed_taking',
            (coalesce(nullif(pg_catalog.current_setting('beliefdb.jobs_failed_taking', true), ''), '[]')::jsonb
             || pg_catalog.jsonb_build_array(pg_catalog.to_jsonb(v_failed)))::text, true);
    end loop;
    update beliefdb.job j
       set status = 'running', attempts = greatest(j.attempts, v_starts) + 1, worker = p_worker,
           started_at = pg_catalog.clock_timestamp()
     where j.workspace_id = v_ws and j.id = v_job.id
    returning j.* into v_job;
    -- (a job another submitted is taken by an owner's session only: it acts as its submitter)
    if v_job.submitted_by is distinct from beliefdb.current_principal() then
        perform pg_catalog.set_config('beliefdb.principal', v_job.submitted_by, true);
    end if;
    return next v_job;
end
$$;
comment on function beliefdb.job_take(text) is 'Take the oldest ready job no other worker holds, locked for this transaction (none: no row); the job acts as its submitter';

-- Record that a worker started the job it took (called on a connection of its own, committed at
-- once): the attempt counts even if the worker dies. How many times the job was started.
create or replace function beliefdb.job_started(p_id bigint, p_worker text)
returns bigint
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_starts bigint;
begin
    -- (only a session that may take the job records its starts: an agent's login, its own jobs)
    if not exists (select from beliefdb.job j
                    where j.workspace_id = v_ws and j.id = p_id and beliefdb._job_visible(j.submitted_by)) then
        raise exception 'unknown job %', p_id using errcode = 'BD004';
    end if;
    insert into beliefdb.job_start (workspace_id, job_id, worker) values (v_ws, p_id, p_worker);
    select beliefdb._job_starts(v_ws, j.id, j.payload) into v_starts
      from beliefdb.job j where j.workspace_id = v_ws and j.id = p_id;
    return v_starts;
end
$$;
comment on function beliefdb.job_started(bigint, text) is 'Record (committed at once, on a connection of its own) that a worker started a job; how many times it was started (since it was last retried)';

-- A start of a job that was no attempt (docs/operations.md, Retries: a lost database is not the document's
-- fault): its worker, alive, lost the connection that ran the job (a server restart, pg_terminate_backend),
-- and the job's transaction was rolled back with it. The worker says so once it reaches the database again,
-- and the start is deleted: it uses up none of the job's attempts, and job_take does not take it for a
-- worker that died. A start of a job since done or failed, or from before its last retry (which counts no
-- more), is kept. Whether the start was deleted.
create or replace function beliefdb.job_start_lost(p_start bigint)
returns boolean
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
begin
    delete from beliefdb.job_start s
     using beliefdb.job j
     where s.workspace_id = v_ws and s.id = p_start
       and j.workspace_id = v_ws and j.id = s.job_id and j.status = 'queued'
       and beliefdb._job_visible(j.submitted_by)
       and (select pg_catalog.count(*) from beliefdb.job_start e
             where e.workspace_id = v_ws and e.job_id = s.job_id and e.id <= s.id)
           > coalesce((j.payload ->> 'starts_before_retry')::bigint, 0);
    return found;
end
$$;
comment on function beliefdb.job_start_lost(bigint) is 'Delete a start of a queued job whose worker lost its connection (no attempt: a lost database is not the document''s fault); whether it was deleted';

-- The job this transaction took is done: it commits with the ingest's writes. Its document's text
-- is cleared from the payload in the same transaction, with a conversation's turns (their speakers
-- and times are the text's): it lives on as the source version, where forget finds it (rule 14 of
-- docs/rules.md); the source name and the options stay, for jobs to show. What a forget masked in its
-- text while it was queued (forgotten_lines) is recorded in the version it stored first, as that
-- version's redaction rows, or, when its ingest only proposed the text to the source's owner, with that
-- proposal (beliefdb._job_lines_stored), and goes from the payload with the text.
create or replace function beliefdb.job_finish(p_id bigint, p_result jsonb)
returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_payload jsonb;
begin
    select j.payload into v_payload
      from beliefdb.job j
     where j.workspace_id = beliefdb.current_workspace_id() and j.id = p_id and j.status = 'running';
    update beliefdb.job j
       set status = 'done', result = p_result, last_error = null, finished_at = pg_catalog.clock_timestamp(),
           payload = j.payload - 'text' - 'turns' - 'forgotten_lines'
     where j.workspace_id = beliefdb.current_workspace_id() and j.id = p_id and j.status = 'running';
    if not found then
        raise exception 'job % is not running in this transaction (take it with job_take first)', p_id
            using errcode = 'BD005';
    end if;
    perform beliefdb._job_lines_stored(beliefdb.current_workspace_id(), v_payload, p_result);
end
$$;
comment on function beliefdb.job_finish(bigint, jsonb) is 'Mark the job this transaction took as done, with its result, record what a forget masked in its text in the version stored, and clear its document''s text and turns from the payload';

-- The job this transaction took failed (its ingest was rolled back to before it): queued again after
-- a backoff of p_backoff seconds doubled for each attempt before (at most an hour), or failed for
-- good after its last attempt, or at once when p_final (a refusal that another attempt would meet
-- again: the llm endpoint refused the request, a bad key or model, or the ingest refused the job's
-- input, turns for a document's source; jobs retry queues it again once that is fixed), its run_after
-- then the moment it failed. The reason is kept on one line.
drop function if exists beliefdb.job_fail(bigint, text, double precision);
create or replace function beliefdb.job_fail(p_id bigint, p_error text, p_backoff double precision default 1,
                                             p_final boolean default false)
returns text
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_status text;
begin
    if p_backoff is null or p_backoff < 0 or p_backoff = 'NaN' then
        raise exception 'backoff must be a number of seconds, not %', p_backoff using errcode = 'BD005';
    end if;
    update beliefdb.job j
       set status = case when j.attempts >= j.max_attempts or p_final then 'failed' else 'queued' end,
           last_error = pg_catalog.left(pg_catalog.btrim(pg_catalog.regexp_replace(
               coalesce(nullif(p_error, ''), 'unknown error'), '\s+', ' ', 'g')), 1000),
           -- (failed for good, it is tried no more: no backoff after its failure, which beliefdb jobs showed pending)
           run_after = case when j.attempts >= j.max_attempts or p_final then pg_catalog.clock_timestamp()
                            else pg_catalog.clock_timestamp() + pg_catalog.make_interval(
                                     secs => least(p_backoff * 2.0 ^ (j.attempts - 1), 3600)) end,
           finished_at = case when j.attempts >= j.max_attempts or p_final then pg_catalog.clock_timestamp() end
     where j.workspace_id = beliefdb.current_workspace_id() and j.id = p_id and j.status = 'running'
    returning j.status into v_status;
    if not found then
        raise exception 'job % is not running in this transaction (take it with job_take first)', p_id
            using errcode = 'BD005';
    end if;
    return v_status;
end
$$;
comment on function beliefdb.job_fail(bigint, text, double precision, boolean) is 'Record why the job this transaction took failed: queued again after a backoff, or failed after its last attempt (at once when final: a refusal another attempt would meet again)';

-- The job this transaction took waited for the workspace's write lock another writer held (a sibling
-- worker on a large document, BELIEFDB_LOCK_TIMEOUT): no fault of its document, so no attempt. Queued
-- again as it was before the take, ready in a second, and this worker's start of it (p_start, which
-- job_started committed) deleted, in this transaction: no other worker can take it between the two
-- and count that start (docs/operations.md, Retries).
create or replace function beliefdb.job_wait(p_id bigint, p_start bigint)
returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
begin
    update beliefdb.job j
       set status = 'queued', attempts = greatest(j.attempts - 1, 0), worker = null, started_at = null,
           run_after = pg_catalog.clock_timestamp() + interval '1 second'
     where j.workspace_id = v_ws and j.id = p_id and j.status = 'running';
    if not found then
        raise exception 'job % is not running in this transaction (take it with job_take first)', p_id
            using errcode = 'BD005';
    end if;
    delete from beliefdb.job_start s where s.workspace_id = v_ws and s.id = p_start and s.job_id = p_id;
end
$$;
comment on function beliefdb.job_wait(bigint, bigint) is 'The job this transaction took waited for the workspace another writer held: queued again as it was, this start deleted (no attempt)';

-- Queue failed jobs again (beliefdb jobs retry), in one statement: each with its attempts used up
-- afresh (its starts are kept, its history, and those before the retry count no more: the payload's
-- starts_before_retry, beliefdb._job_starts; job_take does not fail it again at once) and ready now; its
-- last_error stays, the reason of its last failed attempt until it is tried. p_ids null: every
-- failed job this session may retry. As job_cancel (beliefdb._job_manageable): a session of the
-- schema's owner acting as no principal by name retries any job of the workspace; an agent's login,
-- or a session acting as a named principal (a bearer token's), only its own (another's is unknown to it). An id that is not a
-- failed job is refused and nothing is queued; so is a job of a forgotten source (its text is gone,
-- rule 14 of docs/rules.md), and one submitted before a job of its source that is done since (its
-- older text would go in force over the newer: left failed, saying so, when every one is retried).
-- The ids queued again, in order.
create or replace function beliefdb.job_retry(p_ids bigint[] default null)
returns setof bigint
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
    v_ids bigint[];
    v_forgotten bigint;
    v_stale bigint[];
    v_newer bigint[];
begin
    if p_ids is not null and (pg_catalog.cardinality(p_ids) = 0 or pg_catalog.array_position(p_ids, null) is not null) then
        raise exception 'give the ids of the failed jobs to retry' using errcode = 'BD005';
    end if;
    if p_ids is not null then
        perform beliefdb._require_jobs(v_ws, p_ids, array['failed'], 'retried');
        v_forgotten := (select pg_catalog.min(j.id) from beliefdb.job j
                         where j.workspace_id = v_ws and j.id = any(p_ids) and j.payload ? 'forgotten');
        if v_forgotten is not null then
            raise exception 'job % cannot be retried: its source was forgotten (its text is gone)', v_forgotten
                using errcode = 'BD005';
        end if;
    end if;
    -- a text submitted before another of its source that is done since would go in force over it,
    -- older over newer, unsaid (a retry after a limit was raised put a stale price back in force):
    -- refused by id; left failed, saying why, when every failed job is retried. The later jobs of
    -- those sources are locked first: one a worker holds is queued to this session until it commits
    -- done (waited for here, as long as BELIEFDB_LOCK_TIMEOUT allows)
    perform from beliefdb.job n
      join beliefdb.job j on j.workspace_id = n.workspace_id and j.payload ->> 'source' = n.payload ->> 'source'
                         and j.id < n.id
     where n.workspace_id = v_ws and n.status in ('queued', 'running', 'done') and j.status = 'failed'
       and (p_ids is null or j.id = any(p_ids))
     order by n.id
       for no key update of n;
    -- (the failed jobs this call would retry, each with the latest done job of its source after it, if
    -- one: found once, then refused by id, or left failed saying why)
    select coalesce(array_agg(j.id order by j.id), '{}'),
           coalesce(array_agg(n.newer order by j.id) filter (where n.newer is not null), '{}'),
           coalesce(array_agg(j.id order by j.id) filter (where n.newer is not null), '{}')
      into v_ids, v_newer, v_stale
      from beliefdb.job j
     cross join lateral (select pg_catalog.max(n.id) as newer
                           from beliefdb.job n
                          where n.workspace_id = v_ws and n.status = 'done' and n.id > j.id
                            and n.payload ->> 'source' = j.payload ->> 'source') n
     where j.workspace_id = v_ws and j.status = 'failed' and not j.payload ? 'forgotten'
       and (p_ids is null or j.id = any(p_ids))
       and beliefdb._job_manageable(j.submitted_by);
    if p_ids is not null and pg_catalog.cardinality(v_stale) > 0 then
        raise exception 'job % cannot be retried: job % of its source, submitted after it, is done since (its older text would go in force over that one)',
            v_stale[1], v_newer[1] using errcode = 'BD005',
            hint = 'to put that text in force again, submit it again (beliefdb ingest FILE --queue); to drop it, beliefdb jobs cancel '
                   || v_stale[1];
    end if;
    update beliefdb.job j
       set last_error = pg_catalog.format('not retried: job %s of its source, submitted after it, is done since '
                                          '(submit its text again to put it in force over that one)', u.newer)
      from unnest(v_stale, v_newer) as u (id, newer)
     where j.workspace_id = v_ws and j.id = u.id;
    v_ids := array(select j.id from beliefdb.job j
                    where j.workspace_id = v_ws and j.id = any(v_ids) and not j.id = any(v_stale)
                      and j.status = 'failed'
                    order by j.id
                      for no key update);
    -- (its starts so far are kept, its history, and no longer count: beliefdb._job_starts)
    update beliefdb.job j
       set status = 'queued', attempts = 0, run_after = pg_catalog.clock_timestamp(), worker = null,
           started_at = null, finished_at = null,
           payload = j.payload || pg_catalog.jsonb_build_object('starts_before_retry', (
               select pg_catalog.count(*) from beliefdb.job_start s where s.workspace_id = v_ws and s.job_id = j.id))
     where j.workspace_id = v_ws and j.id = any(v_ids);
    return query select u.id from pg_catalog.unnest(v_ids) u(id);
end
$$;
comment on function beliefdb.job_retry(bigint[]) is 'Queue failed jobs again with their attempts afresh (null: every failed job this session may retry); the ids queued again';

-- Cancel queued or failed jobs (beliefdb jobs cancel): each is deleted with its starts, and the text
-- it carries with it. A document queued and never stored is in no source, so forget cannot name it
-- (rule 14 of docs/rules.md): this is how its text goes. p_ids, or p_source: every queued or failed
-- job of that source name this session may cancel. A job a worker holds now (running), one done, or
-- one this session may not cancel (beliefdb._job_manageable: an agent's login, or a session acting as
-- a named principal, only its own; the owner's session acting as no principal any) is refused, and
-- nothing is cancelled: another principal's job, which beliefdb.jobs lists to everyone, as not_owner
-- naming who queued it (it said unknown job). A source with no queued or failed job has nothing to
-- cancel: no row (an id of no job is unknown, BD004). The ids cancelled, in order.
create or replace function beliefdb.job_cancel(p_ids bigint[] default null, p_source text default null)
returns setof bigint
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
    v_ids bigint[];
    v_free bigint[];
    v_other record;
    v_others text;
begin
    if (p_ids is null) = (p_source is null)
       or pg_catalog.cardinality(p_ids) = 0 or pg_catalog.array_position(p_ids, null) is not null then
        raise exception 'give the ids of the jobs to cancel, or a source name: one of them' using errcode = 'BD005';
    end if;
    if p_ids is not null then
        select j.id, j.submitted_by into v_other
          from beliefdb.job j
         where j.workspace_id = v_ws and j.id = any(p_ids) and not beliefdb._job_manageable(j.submitted_by)
         order by j.id
         limit 1;
        if v_other.id is not null then
            raise exception 'job % was queued by %: only they may cancel it', v_other.id, v_other.submitted_by
                using errcode = 'BD008';
        end if;
        perform beliefdb._require_jobs(v_ws, p_ids, array['queued', 'failed'], 'cancelled');
        v_ids := array(select distinct u.id from pg_catalog.unnest(p_ids) u(id) order by u.id);
    else
        v_ids := array(select j.id from beliefdb.job j
                        where j.workspace_id = v_ws and j.status in ('queued', 'failed')
                          and j.payload ->> 'source' = p_source and beliefdb._job_manageable(j.submitted_by)
                        order by j.id);
        if pg_catalog.cardinality(v_ids) = 0 then
            select pg_catalog.string_agg(distinct j.submitted_by, ', ') into v_others
              from beliefdb.job j
             where j.workspace_id = v_ws and j.status in ('queued', 'failed') and j.payload ->> 'source' = p_source;
            if v_others is not null then
                raise exception 'the queued or failed jobs of source % were queued by %: only they may cancel them',
                    p_source, v_others using errcode = 'BD008';
            end if;
            -- (nothing to cancel is no error, as nothing to retry is not: a script that cancels a source's
            -- jobs in case there are some exited 1 when there were none)
            return;
        end if;
    end if;
    -- the record of the lines a forget masked in a job's text goes with the job: the same text ingested
    -- again would be stored in clear (rule 14). Its worker stores it masked, keeping the record. But for
    -- a record that keeps nothing forgotten elsewhere: every piece the canceller's own (a quote, a turn or
    -- a name they masked) in a text of a source another owns (beliefdb._record_masks), their own call over
    -- their own text.
    select j.id, j.payload ->> 'source' as source into v_other
      from beliefdb.job j
      left join beliefdb.source s on s.workspace_id = j.workspace_id and s.name = j.payload ->> 'source'
     where j.workspace_id = v_ws and j.id = any(v_ids) and j.payload ? 'forgotten_lines'
       and exists (select from pg_catalog.jsonb_array_elements(j.payload -> 'forgotten_lines') x
                    where x ->> 'by' is distinct from beliefdb.current_principal()
                       or s.owner is null or beliefdb._record_masks(x, s.owner))
     order by j.id
     limit 1;
    if v_other.id is not null then
        raise exception 'job % holds text of % that a forget masked: cancelling it would drop the record that keeps those words forgotten if the text comes back; let a worker store it masked (beliefdb worker), or, if it cannot be stored, ingest the same text as source % yourself (its masked lines stay masked); then retract or forget that version, or forget the source, which clears its jobs',
            v_other.id, v_other.source, v_other.source using errcode = 'BD005';
    end if;
    -- a worker holds the row of the job it runs (job_take): what this session cannot lock is running
    v_free := array(select j.id from beliefdb.job j
                     where j.workspace_id = v_ws and j.id = any(v_ids) and j.status in ('queued', 'failed')
                     order by j.id
                       for update skip locked);
    if pg_catalog.cardinality(v_free) < pg_catalog.cardinality(v_ids) then
        raise exception 'job % is running: cancel it once its worker is done with it (beliefdb jobs)',
            (select u.id from pg_catalog.unnest(v_ids) u(id) where u.id <> all(v_free) order by u.id limit 1)
            using errcode = 'BD005';
    end if;
    delete from beliefdb.job_start s where s.workspace_id = v_ws and s.job_id = any(v_ids);
    delete from beliefdb.job j where j.workspace_id = v_ws and j.id = any(v_ids);
    return query select u.id from pg_catalog.unnest(v_ids) u(id);
end
$$;
comment on function beliefdb.job_cancel(bigint[], text) is 'Delete queued or failed jobs (by id, or every one of a source name) with their starts and text, but none whose text a forget masked (unless every piece masked is the canceller''s, in a source another owns); the ids cancelled';

-- The workspace's jobs, newest first (of p_status only, when given; only those before the job p_before,
-- the last of the page before, when given): a queued job a live worker holds is shown running; attempts
-- include those whose worker died.
drop function if exists beliefdb.jobs(text, integer);
create or replace function beliefdb.jobs(p_status text default null, p_limit integer default 100,
                                         p_before bigint default null)
returns table (id bigint, kind text, status text, source text, path text, attempts integer, max_attempts integer,
               run_after timestamptz, last_error text, result jsonb, submitted_by text, worker text,
               created_at timestamptz, started_at timestamptz, finished_at timestamptz)
language plpgsql stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
    v_held bigint[];
begin
    if p_status is not null and p_status not in ('queued', 'running', 'done', 'failed') then
        raise exception 'unknown job status % (choose from: queued, running, done, failed)', p_status
            using errcode = 'BD005';
    end if;
    if p_limit is null or p_limit < 1 then
        raise exception 'the limit must be at least 1, not %', p_limit using errcode = 'BD005';
    end if;
    if p_before < 1 then
        raise exception 'before must be a job id (at least 1), not %', p_before using errcode = 'BD005';
    end if;
    -- (the queued jobs a live worker holds: shown running)
    v_held := beliefdb._jobs_held(v_ws);
    return query
        select j.id, j.kind,
               case when j.status = 'queued' and j.id = any(v_held) then 'running' else j.status end,
               j.payload ->> 'source', j.payload ->> 'path',
               -- (an attempt whose worker died was rolled back, its start was not)
               greatest(j.attempts, beliefdb._job_starts(v_ws, j.id, j.payload))::integer,
               -- (an error may quote the document, not stored: its submitter's to read, as its text is,
               -- and the operator's; another principal sees that it failed, not why)
               j.max_attempts, j.run_after, case when beliefdb._job_manageable(j.submitted_by) then j.last_error end,
               j.result, j.submitted_by, j.worker, j.created_at, j.started_at, j.finished_at
          from beliefdb.job j
         where j.workspace_id = v_ws and (p_before is null or j.id < p_before)
           and (p_status is null
                or (p_status = 'running' and j.status = 'queued' and j.id = any(v_held))
                or (p_status = 'queued' and j.status = 'queued' and not j.id = any(v_held))
                or (p_status in ('done', 'failed') and j.status = p_status))
         order by j.id desc
         limit p_limit;
end
$$;
comment on function beliefdb.jobs(text, integer, bigint) is 'The workspace''s jobs, newest first, optionally of one status and before a job id (a page); a queued job a live worker holds is shown running';

-- How many of the workspace's jobs are in each status (of p_status only, when given: the others 0), as
-- beliefdb.jobs shows them (a queued job a live worker holds is running), and before the job p_before when
-- given: what beliefdb jobs says of the jobs its list matches, and how many its limit left out.
create or replace function beliefdb.job_totals(p_status text default null, p_before bigint default null)
returns table (status text, jobs bigint)
language plpgsql stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
    v_held bigint[];
begin
    if p_status is not null and p_status not in ('queued', 'running', 'done', 'failed') then
        raise exception 'unknown job status % (choose from: queued, running, done, failed)', p_status
            using errcode = 'BD005';
    end if;
    if p_before < 1 then
        raise exception 'before must be a job id (at least 1), not %', p_before using errcode = 'BD005';
    end if;
    v_held := beliefdb._jobs_held(v_ws);
    return query
        with counted as (
            select case when j.status = 'queued' and j.id = any(v_held) then 'running' else j.status end as status,
                   pg_catalog.count(*) as jobs
              from beliefdb.job j
             where j.workspace_id = v_ws and (p_before is null or j.id < p_before)
             group by 1
        )
        select s.status, coalesce(c.jobs, 0)
          from pg_catalog.unnest(array['queued', 'running', 'done', 'failed']) with ordinality s(status, n)
          left join counted c on c.status = s.status and (p_status is null or p_status = s.status)
         order by s.n;
end
$$;
comment on function beliefdb.job_totals(text, bigint) is 'How many of the workspace''s jobs are queued, running (a live worker holds it), done and failed (of one status only, and before a job id, when given)';
