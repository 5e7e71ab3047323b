-- Frozen at revision 0011: one error-code table. Never edit: change tables through a new
-- revision, and sql/10_tables.sql with it. Its rows are seed rows (sql/70_seed.sql, re-applied).

-- The SQLSTATEs beliefdb's own SQL raises: one name and one meaning each.
create table beliefdb.error_code (
    code text primary key check (code ~ '^BD[0-9A-Z]{3}$'),
    name text not null unique check (name ~ '^[a-z][a-z_]*$'),
    meaning text not null check (meaning <> '')
);
comment on table beliefdb.error_code is 'Error codes (SQLSTATEs) beliefdb raises: one name and one meaning each; with --json the CLI prints the name';
