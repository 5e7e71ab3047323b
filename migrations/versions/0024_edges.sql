-- Frozen at revision 0024: fragment words stored (issue 22). Never edit: change tables through a
-- new revision, and sql/schema/10_tables.sql with it.

-- The words of a fragment's text, for ask's fallback to text no belief was extracted from: English
-- stems and every word as written, as belief.search has them. Stored, so that ranking the matches
-- reads them instead of parsing every matching fragment's text again; a redaction (rule 14 of
-- docs/rules.md) updates the text, and so these words with it. Added only if missing (a test
-- stands in for this revision before the upgrade reaches it).
alter table beliefdb.fragment
    add column if not exists search tsvector generated always as (
        pg_catalog.to_tsvector('pg_catalog.english'::regconfig, text)
        || pg_catalog.to_tsvector('pg_catalog.simple'::regconfig, text)) stored;
comment on column beliefdb.fragment.search is 'Words of the fragment text for full-text search: English stems and every word as written';

-- the index of revision 0021 over the same expression, now over the stored column
drop index if exists beliefdb.fragment_search;
create index fragment_search on beliefdb.fragment using gin (search);

-- A done job's text lives on as its source version (rule 14 of docs/rules.md: forget finds it
-- there); from this revision on job_finish clears it from the payload, and here the jobs done before.
update beliefdb.job set payload = payload - 'text' where status = 'done' and payload ? 'text';
