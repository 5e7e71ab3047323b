-- Frozen at revision 0045: the production beliefs of a workspace newest first, as the product view's
-- page lists them (queries.sql, workspace_beliefs). Without it the page read and sorted every
-- production belief of the workspace: 240 ms at 550,000 beliefs, 3.4 ms with it. (Built here in one
-- statement, which blocks writes to belief while it runs: about a second per million beliefs.)
-- Never edit: change functions in sql/ (re-applied after every upgrade).

create index belief_recent on beliefdb.belief (workspace_id, recorded_at desc, id) where provenance = 'production';
