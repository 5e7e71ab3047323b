-- Frozen at revision 0046: what forget reports counts the turns whose speaker's label it masked
-- (labels_masked, with mask_mentions: stored, and waiting to be stored), which a preview's fingerprint
-- then counts too, as the audit event already did.
-- Never edit: change functions in sql/ (re-applied after every upgrade).

alter type beliefdb.forget_result add attribute labels_masked integer;
