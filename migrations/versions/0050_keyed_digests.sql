-- Frozen at revision 0050: nothing beliefdb keeps or records confirms a guess of forgotten words (rule
-- 14 of docs/rules.md). A source version a forget masked has the sha256 of its text as it reads, masked,
-- not of the words as they were; the audit chain records digests of rows and texts keyed by the
-- workspace's secret (rows_hmac, text_hmac: functions in sql/, re-applied after this). Here: the
-- versions masked before take the sha256 of their masked text; the events that recorded a plain sha256
-- of a text now masked (an ingest of such a version, a version proposed for its source) keep their
-- hashes only, their payload redacted as an event naming a forgotten source is, so the chain still
-- verifies; the reason of a proposal a forget masked no longer quotes the first 48 bits of its text's
-- sha256 (new ones quote none); and an index
-- finds the events of a source that still record a plain sha256 (written before this revision), which a
-- later forget masking words of that source redacts. And an agent's binding records the database it was
-- made in (agent_login.made_in, from its role's comment for those made before): in a copy of that
-- database on the same server the original's agents do not act.
-- Never edit: change functions in sql/ (re-applied after every upgrade).

create index audit_event_plain_digest on beliefdb.audit_event (workspace_id, (payload ->> 'source'))
    where payload ? 'sha256' and action in ('ingest', 'version.propose');

-- (the trigger of the release before refuses any change of a version's sha256; a new database has
-- no trigger yet, and no version)
do $$
declare
    v_trigger boolean := exists (select from pg_catalog.pg_trigger t
                                  where t.tgrelid = 'beliefdb.source_version'::regclass
                                    and t.tgname = 'source_version_immutable');
begin
    if v_trigger then
        alter table beliefdb.source_version disable trigger source_version_immutable;
    end if;
    update beliefdb.source_version v set sha256 = pg_catalog.sha256(pg_catalog.convert_to(v.content, 'UTF8'))
     where exists (select from beliefdb.redaction r
                    where r.workspace_id = v.workspace_id and r.source_version_id = v.id)
       and v.sha256 <> pg_catalog.sha256(pg_catalog.convert_to(v.content, 'UTF8'));
    if v_trigger then
        alter table beliefdb.source_version enable trigger source_version_immutable;
    end if;
end
$$;

update beliefdb.audit_event e set payload = null
  from beliefdb.source_version v
  join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
 where e.workspace_id = v.workspace_id and e.payload ? 'sha256' and e.action in ('ingest', 'version.propose')
   and e.payload ->> 'source' = s.name
   and (e.action = 'version.propose' or e.payload -> 'version' = pg_catalog.to_jsonb(v.version))
   and exists (select from beliefdb.redaction r where r.workspace_id = v.workspace_id and r.source_version_id = v.id);
-- (and every other event that recorded a masked version's row by its plain digest: the row's text held
-- its sha256 of the words as they were, and its other columns can be read back, as a forget's own update
-- of it; alone, or an entry of an operation's event)
with masked as (
    select r.workspace_id, pg_catalog.array_agg(distinct r.source_version_id::text) as ids
      from beliefdb.redaction r
     group by r.workspace_id
)
update beliefdb.audit_event e set payload = null
  from masked m
 where e.workspace_id = m.workspace_id and e.payload is not null
   and exists (select
                 from pg_catalog.jsonb_array_elements(case when pg_catalog.jsonb_typeof(e.payload -> 'rows') = 'array'
                                                           then e.payload -> 'rows' else '[]' end
                                                      || pg_catalog.jsonb_build_array(e.payload)) x
                where x ->> 'table' = 'source_version' and x ? 'rows_sha256' and x -> 'keys' ?| m.ids);
-- (a proposal a forget masked, whatever its source's versions)
update beliefdb.audit_event e set payload = null
  from beliefdb.review_item r
 where e.workspace_id = r.workspace_id and e.action = 'version.propose' and e.payload ? 'sha256'
   and e.payload ->> 'item' = r.id::text and r.proposal ? 'forgotten_lines';

-- (of the proposals a forget masked: their rows' audit, by the release before's triggers, is of their masked
-- text; a proposal masked later loses it then, beliefdb._unhash_proposals)
update beliefdb.review_item r
   set reason = pg_catalog.regexp_replace(r.reason, ' \(sha256 [0-9a-f]{12}\)', '')
 where r.kind = 'version_proposed' and r.reason ~ ' \(sha256 [0-9a-f]{12}\)' and r.proposal ? 'forgotten_lines';

comment on table beliefdb.audit_key is 'Each workspace''s secret key for the keyed digests (HMAC-SHA-256) its audit chain records: forgotten names, texts and rows';

alter table beliefdb.agent_login add column made_in name default pg_catalog.current_database();
comment on column beliefdb.agent_login.made_in is 'The database the binding was made in: in a copy of it on the same server, its agents do not act';
update beliefdb.agent_login a
   set made_in = coalesce(pg_catalog.substring(pg_catalog.shobj_description(r.oid, 'pg_authid'),
                                                '^beliefdb agent login \(database (.*)\)$'),
                          pg_catalog.current_database())
  from pg_catalog.pg_roles r
 where r.rolname = a.role_name;

-- A masked line's recorded digest is keyed again with its source's name (beliefdb._source_line_digest)
-- and with a random salt recorded beside it (beliefdb._salted_line_digest, redaction.line_salt, a
-- record's salt): keyed by the workspace alone, anyone who may write there could forget a guessed line
-- of their own and compare its digest with another's. The digests recorded before (of versions, of
-- queued jobs' and proposals' texts) are keyed again here, with the functions of the release before
-- (which an upgraded database has; a new one has no such row).
alter table beliefdb.redaction add column line_salt bytea;
do $$
begin
    if not exists (select from beliefdb.redaction where line_digest is not null)
       and not exists (select from beliefdb.job where payload ? 'forgotten_lines')
       and not exists (select from beliefdb.review_item where proposal ? 'forgotten_lines') then
        return;
    end if;
    execute $sql$
        create function pg_temp.rekey(p_workspace_id uuid, p_source text, p_salt bytea, p_digest bytea)
        returns bytea
        language sql stable
        as $f$
            select pg_catalog.sha256(p.pads[2] || pg_catalog.sha256(p.pads[1]
                       || pg_catalog.convert_to('salted' || pg_catalog.chr(31), 'UTF8') || p_salt
                       || pg_catalog.sha256(p.pads[2] || pg_catalog.sha256(p.pads[1]
                              || pg_catalog.convert_to('source' || pg_catalog.chr(31) || p_source
                                                       || pg_catalog.chr(31), 'UTF8')
                              || p_digest))))
              from (select beliefdb._hmac_pads(beliefdb._audit_key(p_workspace_id)) as pads) p
        $f$
    $sql$;
    -- (a queued job's or a proposal's record, each piece salted and keyed again as a redaction row is)
    execute $sql$
        create function pg_temp.rekeyed(p_workspace_id uuid, p_source text, p_records jsonb)
        returns jsonb
        language sql volatile
        as $f$
            select pg_catalog.jsonb_agg(e.x || jsonb_build_object(
                       'salt', pg_catalog.encode(t.salt, 'hex'),
                       'digest', pg_catalog.encode(pg_temp.rekey(p_workspace_id, p_source, t.salt,
                                                                 pg_catalog.decode(e.x ->> 'digest', 'hex')), 'hex'))
                       order by e.n)
              from pg_catalog.jsonb_array_elements(p_records) with ordinality as e (x, n)
             cross join lateral (select pg_catalog.decode(pg_catalog.replace(pg_catalog.gen_random_uuid()::text,
                                                                            '-', ''), 'hex') as salt
                                  where e.n is not null) t
        $f$
    $sql$;
    update beliefdb.redaction r
       set line_salt = pg_catalog.decode(pg_catalog.replace(pg_catalog.gen_random_uuid()::text, '-', ''), 'hex')
     where r.line_digest is not null;
    update beliefdb.redaction r
       set line_digest = pg_temp.rekey(r.workspace_id, s.name, r.line_salt, r.line_digest)
      from beliefdb.source_version v
      join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
     where r.line_digest is not null and v.workspace_id = r.workspace_id and v.id = r.source_version_id;
    update beliefdb.job j
       set payload = j.payload || jsonb_build_object('forgotten_lines', pg_temp.rekeyed(
               j.workspace_id, j.payload ->> 'source', j.payload -> 'forgotten_lines'))
     where j.payload ? 'forgotten_lines' and pg_catalog.jsonb_typeof(j.payload -> 'forgotten_lines') = 'array'
       and pg_catalog.jsonb_array_length(j.payload -> 'forgotten_lines') > 0;
    update beliefdb.review_item r
       set proposal = r.proposal || jsonb_build_object('forgotten_lines', pg_temp.rekeyed(
               r.workspace_id, s.name, r.proposal -> 'forgotten_lines'))
      from beliefdb.source s
     where r.proposal ? 'forgotten_lines' and pg_catalog.jsonb_typeof(r.proposal -> 'forgotten_lines') = 'array'
       and pg_catalog.jsonb_array_length(r.proposal -> 'forgotten_lines') > 0
       and s.workspace_id = r.workspace_id and s.id = r.source_id;
    drop function pg_temp.rekeyed(uuid, text, jsonb);
    drop function pg_temp.rekey(uuid, text, bytea, bytea);
end
$$;
