-- Frozen at revision 0035: decisions and actions in the order their listings page through. Never
-- edit: change functions in sql/ (re-applied after every upgrade).

create index decision_listing on beliefdb.decision (workspace_id, created_at, id);
create index action_listing on beliefdb.action (workspace_id, created_at, id);
