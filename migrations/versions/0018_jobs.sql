-- Frozen at revision 0018: the queue of jobs (issue 20). Never edit: change tables through a new
-- revision, and sql/schema/10_tables.sql with it. Row-level security, the grants and the functions
-- (sql/api/58_jobs.sql, sql/api/80_privileges.sql) are re-applied.

-- Work submitted to run later, by a worker (beliefdb worker): one document to ingest per job. A
-- worker takes a job with a row lock held for the job's whole transaction, in which the ingest's
-- writes and the job's completion commit together: a worker that dies rolls both back, and the
-- job is taken again (status 'running' is only ever seen inside that transaction).
create table beliefdb.job (
    workspace_id uuid not null default beliefdb.current_workspace_id() references beliefdb.workspace (id) on delete cascade,
    id bigint generated always as identity,
    kind text not null check (kind in ('ingest')),
    payload jsonb not null check (pg_catalog.jsonb_typeof(payload) = 'object'),
    status text not null default 'queued' check (status in ('queued', 'running', 'done', 'failed')),
    attempts integer not null default 0 check (attempts >= 0),
    max_attempts integer not null default 5 check (max_attempts between 1 and 100),
    run_after timestamptz not null default pg_catalog.now(),
    last_error text check (pg_catalog.strpos(last_error, E'\n') = 0),
    result jsonb,
    submitted_by text not null default beliefdb.current_principal(),
    worker text,
    created_at timestamptz not null default pg_catalog.now(),
    started_at timestamptz,
    finished_at timestamptz,
    primary key (workspace_id, id)
);
comment on table beliefdb.job is 'Queued work (a document to ingest): status, attempts and backoff, the last error, and the result once done';
comment on sequence beliefdb.job_id_seq is 'Job ids, in the order jobs are submitted (workers take the oldest ready job first)';

create index job_ready on beliefdb.job (workspace_id, id) where status = 'queued';
create index job_status on beliefdb.job (workspace_id, status, id);
create index job_queued_source on beliefdb.job (workspace_id, (payload ->> 'source'), id) where status = 'queued';
alter table beliefdb.job alter column workspace_id set statistics 0;

-- Each start of a job, recorded by its worker on a connection of its own as soon as it has taken
-- it (committed at once, while the job's own transaction runs on): a worker that dies rolls back
-- its job's transaction, not its start, so a document that brings its worker down every time uses
-- up its attempts like any failure and is then failed with the reason (beliefdb.job_take).
create table beliefdb.job_start (
    workspace_id uuid not null default beliefdb.current_workspace_id() references beliefdb.workspace (id) on delete cascade,
    id bigint generated always as identity,
    job_id bigint not null,
    worker text,
    started_at timestamptz not null default pg_catalog.clock_timestamp(),
    primary key (workspace_id, id)
);
comment on table beliefdb.job_start is 'Each start of a job by a worker, committed at once: the attempts a job had even when its worker died';
comment on sequence beliefdb.job_start_id_seq is 'Job start ids, in the order jobs were started';

create index job_start_job on beliefdb.job_start (workspace_id, job_id);
alter table beliefdb.job_start alter column workspace_id set statistics 0;
