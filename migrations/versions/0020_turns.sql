-- Frozen at revision 0020: conversation turns (issue 20). Never edit: change tables through a new
-- revision, and sql/schema/10_tables.sql with it.
-- A turn of a conversation is a fragment of the conversation's source version; who said it and when
-- are kept with it (null for a fragment of a document), so a belief's evidence names its speaker
-- and the turn's time, from which the claim's valid time starts.
alter table beliefdb.fragment
    add column if not exists speaker text check (speaker <> ''),
    add column if not exists spoken_at timestamptz;
comment on column beliefdb.fragment.speaker is 'Who said this fragment, when it is a turn of a conversation (null for a document)';
comment on column beliefdb.fragment.spoken_at is 'When this turn of a conversation was said (null when unknown, or for a document)';

-- The evidence view names a turn's speaker and time before its last column, the workspace (every
-- view ends with it): a view's columns cannot move in place, so it is dropped here and created again
-- by the re-applied sql/api/75_views.sql (and granted again by 80_privileges.sql).
drop view if exists beliefdb.belief_evidence;
