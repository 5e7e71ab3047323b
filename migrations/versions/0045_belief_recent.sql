-- Frozen at revision 0045: the production beliefs of a workspace newest first, as the product view's
-- page lists them (queries.sql, workspace_beliefs). Without it the page read and sorted every
-- production belief of the workspace: 240 ms at 550,000 beliefs, 3.4 ms with it. (Built here in one
-- statement, which blocks writes to belief while it runs: about a second per million beliefs.)
-- Never edit: change functions in sql/ (re-applied after every upgrade).

create index belief_recent on beliefdb.belief (workspace_id, recorded_at desc, id) where provenance = 'production';

-- The open review items of a workspace oldest first, as beliefdb.review_items pages them: without it a
-- page read every open item of the workspace and sorted them.
create index review_item_queue on beliefdb.review_item (workspace_id, created_at, id) where status = 'open';
