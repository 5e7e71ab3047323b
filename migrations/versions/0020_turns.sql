-- Frozen at revision 0020: conversation turns (issue 20). Never edit: change tables through a new
-- revision, and sql/schema/10_tables.sql with it.
-- A turn of a conversation is a fragment of the conversation's source version; who said it and when
-- are kept with it (null for a fragment of a document), so a belief's evidence names its speaker
-- and the turn's time, from which the claim's valid time starts.
alter table beliefdb.fragment
    add column speaker text check (speaker <> ''),
    add column spoken_at timestamptz;
comment on column beliefdb.fragment.speaker is 'Who said this fragment, when it is a turn of a conversation (null for a document)';
comment on column beliefdb.fragment.spoken_at is 'When this turn of a conversation was said (null when unknown, or for a document)';
