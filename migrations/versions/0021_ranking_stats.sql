-- Frozen at revision 0021: ranking statistics per workspace (issue 20). Never edit: change tables
-- through a new revision, and sql/schema/10_tables.sql with it. Row-level security (sql/api/80_privileges.sql)
-- and the triggers that keep the table (sql/internal/46_retrieval.sql) are re-applied.

-- How many beliefs of a workspace have each full-text lexeme in their search words (revision
-- 0021): the statistics retrieval ranks with, so that what one workspace stores never changes
-- another's answers (the database-wide pg_stats did). Derived rows: triggers
-- (internal/46_retrieval.sql) keep them equal to belief.search, and beliefdb.refresh_ranking_stats
-- rewrites a workspace's from it. A lexeme no belief has any more has no row.
create table beliefdb.lexeme_frequency (
    workspace_id uuid not null references beliefdb.workspace (id) on delete cascade,
    lexeme text not null,
    beliefs bigint not null check (beliefs > 0),
    primary key (workspace_id, lexeme)
);
comment on table beliefdb.lexeme_frequency is 'Derived: how many beliefs of the workspace have each full-text lexeme (ranking statistics, per workspace)';

alter table beliefdb.lexeme_frequency alter column workspace_id set statistics 0;

-- The words of fragment text, for ask's fallback to text no belief was extracted from: English
-- stems and every word as written, as belief.search has them (revision 0021).
create index fragment_search on beliefdb.fragment using gin (
    (pg_catalog.to_tsvector('pg_catalog.english'::regconfig, text)
     || pg_catalog.to_tsvector('pg_catalog.simple'::regconfig, text)));

-- What the workspaces hold already.
insert into beliefdb.lexeme_frequency (workspace_id, lexeme, beliefs)
select b.workspace_id, l.lexeme, count(*)
  from beliefdb.belief b
 cross join lateral unnest(pg_catalog.tsvector_to_array(b.search)) as l (lexeme)
 group by b.workspace_id, l.lexeme;

-- The database-wide statistics reader this revision replaces (the re-applied internal/46_retrieval.sql
-- creates the per-workspace one).
drop function if exists beliefdb._common_lexemes(text[], double precision);
