-- Frozen at revision 0032: the row audit runs one trigger function per table (issue 21). Never
-- edit: change functions in sql/ (re-applied after every upgrade).

-- The generic trigger function goes with its triggers; sql/internal/28_audit.sql, applied after this
-- in the same transaction, makes each table's function and its triggers again.
drop function if exists beliefdb.audit_rows() cascade;
