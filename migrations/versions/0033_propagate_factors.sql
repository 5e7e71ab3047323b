-- Frozen at revision 0033: beliefdb.propagate takes the seeds whose confidence factors moved
-- (issue 21). Never edit: change functions in sql/ (re-applied after every upgrade).

-- The two-argument function goes; sql/api/70_dba_tools.sql, applied after this in the same
-- transaction, makes the one with a third argument (its default keeps two-argument calls working).
drop function if exists beliefdb.propagate(uuid, uuid[]);
