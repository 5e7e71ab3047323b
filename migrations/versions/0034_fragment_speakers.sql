-- Frozen at revision 0034: the speakers of a conversation's turns by their version, for ask's
-- fallback to unextracted text (issue 20). Never edit: change functions in sql/ (re-applied after
-- every upgrade).

create index fragment_speaker on beliefdb.fragment (workspace_id, source_version_id, speaker)
    where speaker is not null;
