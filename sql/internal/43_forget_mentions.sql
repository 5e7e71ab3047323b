-- beliefdb: where a forgotten subject's name is still written once forget has masked what it forgets
-- (docs/rules.md, rule 14): in the texts waiting to be stored (a document in the queue, a version or a
-- correction proposed to an owner), listed in forget's report beside the stored texts
-- (beliefdb._text_mentions) and, with mask_mentions, masked there too.

-- Turns waiting to be stored (a job's, a proposal's fragments: {start, end, speaker, time}) with some
-- names (a pattern of beliefdb._mention_pattern) masked in each speaker's label, as the label is in the
-- text they lie in.
create or replace function beliefdb._masked_speakers(p_turns jsonb, p_re text) returns jsonb
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(jsonb_agg(case when t.x ->> 'speaker' ~* p_re
                                   then jsonb_set(t.x, '{speaker}', to_jsonb(beliefdb._masked(
                                            t.x ->> 'speaker', beliefdb._mention_spans(t.x ->> 'speaker', p_re))))
                                   else t.x end order by t.n), '[]')
      from jsonb_array_elements(p_turns) with ordinality t (x, n)
$$;
comment on function beliefdb._masked_speakers(jsonb, text) is 'Turns waiting to be stored with some names masked in their speakers'' labels';

-- How many of some turns waiting to be stored ({start, end, speaker, time}) have a speaker's label that
-- names some names (a pattern of beliefdb._mention_pattern): those beliefdb._masked_speakers masks.
create or replace function beliefdb._named_speakers(p_turns jsonb, p_re text) returns integer
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select count(*)::integer
      from jsonb_array_elements(case when jsonb_typeof(p_turns) = 'array' then p_turns else '[]' end) t
     where t ->> 'speaker' ~* p_re
$$;
comment on function beliefdb._named_speakers(jsonb, text) is 'How many turns waiting to be stored have a speaker''s label naming some names';

-- Where some names (a forgotten subject's, as beliefdb._text_mentions takes them) are written in the
-- texts waiting to be stored, by the rule of beliefdb._mention_pattern, once forget has masked what it
-- forgets there (beliefdb._redact_pending): a job's document (queued, or failed and kept for a retry; a
-- done job keeps no text, and a job a worker holds is skipped, as beliefdb._forget_jobs skips it), a
-- version proposed to a source's owner (whatever became of it: a resolved one keeps its text in the
-- review history), a correction proposed to a belief's owner (its statement or value). Each: kind
-- queued or proposed, its id (the job's, the review item's) as text, the field, the source's name, its
-- status, whose call masking it is (owner: the job's submitter, the source's or the belief's owner), who
-- wrote it (by), how many times, an excerpt with the name masked (to its writer, its owner or an eraser
-- only: null to another principal, as a text not stored yet is not theirs to read), and a hint of what
-- happens to it.
-- With p_mask, a job's text and a proposed version's are masked as a stored version is (the name only,
-- as many U+2588, offsets kept: the turns and claims over them stay where they are; a claim's quote is
-- masked with the text it quotes, a turn's speaker with its label: beliefdb._masked_speakers), so that
-- neither brings the name back when a worker stores it or the owner approves it; a proposed claim (or a rejected one) whose own words name the person goes, as its
-- approval would store them as a belief's. Masking is the job's submitter's call, or the source's owner's
-- (an eraser's: any). A proposed correction is its proposer's typed words, which become the belief's own
-- statement: listed, never masked (its owner may reject it). Only the first p_listed are listed (the
-- queued by job, then the proposed oldest first), then, when there are more, one entry of kind 'more'
-- (of 'pending') with how many in all (total) and how many times (count), as beliefdb._text_mentions
-- does; masking covers every one. Each entry says how many of its turns (a job's, a proposed version's)
-- have a speaker's label that names them (speakers), masked with the text. With p_mask, the turns a
-- conversation job done before job_finish dropped them still keeps (no text: not listed) have the names
-- masked in their labels too. Returns {mentions, jobs: the ids masked, proposals: the ids masked,
-- labels_masked: how many turns' labels were masked}.
-- (the signature before the listing was capped)
drop function if exists beliefdb._pending_mentions(uuid, text[], boolean);
create or replace function beliefdb._pending_mentions(p_workspace_id uuid, p_names text[], p_mask boolean,
                                                      p_listed integer default 100)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_re text := beliefdb._mention_pattern(p_names);
    v_found jsonb;
    v_jobs bigint[] := '{}';
    v_done bigint[] := '{}';
    v_done_labels integer := 0;
    v_proposals uuid[] := '{}';
    v_listed jsonb;
    -- (whose call masking is: an eraser's is every text's)
    v_principal text := beliefdb.current_principal();
    v_eraser boolean := beliefdb._is_eraser();
begin
    if v_re is null then
        return jsonb_build_object('mentions', '[]'::jsonb, 'jobs', '[]'::jsonb, 'proposals', '[]'::jsonb);
    end if;
    with queued as (
        select j.id, j.status, j.submitted_by, j.payload ->> 'source' as source, j.payload ->> 'text' as body,
               beliefdb._named_speakers(j.payload -> 'turns', v_re) as speakers
          from beliefdb.job j
         where j.workspace_id = p_workspace_id and j.status <> 'running' and j.payload ? 'text'
           and (j.payload ->> 'text') ~* v_re
         order by j.id
           for no key update skip locked
    ), proposed as (
        select r.id, r.kind, r.status, r.proposed_by, r.created_at, s.name as source, coalesce(s.owner, b.owner) as owner,
               case when r.kind = 'version_proposed' then 'content'
                    when coalesce(r.proposal ->> 'statement', '') ~* v_re then 'statement' else 'value' end as field,
               case when r.kind = 'version_proposed' then r.proposal ->> 'content'
                    when coalesce(r.proposal ->> 'statement', '') ~* v_re then r.proposal ->> 'statement'
                    else r.proposal ->> 'value' end as body,
               case when r.kind = 'version_proposed' then beliefdb._named_speakers(r.proposal -> 'fragments', v_re)
                    else 0 end as speakers
          from beliefdb.review_item r
          left join beliefdb.source s on s.workspace_id = r.workspace_id and s.id = r.source_id
          left join beliefdb.belief b on b.workspace_id = r.workspace_id and b.id = r.node
         where r.workspace_id = p_workspace_id and r.kind in ('version_proposed', 'correction_proposed')
           and (coalesce(r.proposal ->> 'content', '') ~* v_re or coalesce(r.proposal ->> 'statement', '') ~* v_re
                or coalesce(r.proposal ->> 'value', '') ~* v_re)
    ), named as (
        select 'queued' as kind, q.id::text as id, 'text' as field, q.source, q.status, q.submitted_by as owner,
               q.submitted_by as by, q.body, q.speakers, 1 as rank, q.id as job, null::timestamptz as at
          from queued q
        union all
        select 'proposed', p.id::text, p.field, p.source, p.status, p.owner, p.proposed_by, p.body, p.speakers, 2, null,
               p.created_at
          from proposed p
    ), spanned as (
        select n.*, beliefdb._mention_spans(n.body, v_re) as spans,
               p_mask and n.field <> 'statement' and n.field <> 'value'
                   and (v_eraser or n.owner is not distinct from v_principal) as masking,
               p_mask and n.field <> 'statement' and n.field <> 'value'
                   and not (v_eraser or n.owner is not distinct from v_principal) as theirs
          from named n
    ), ranked as (
        select s.*, row_number() over (order by s.rank, s.job, s.at, s.id) as nth
          from spanned s
         where cardinality(s.spans) > 0
    )
    select coalesce(jsonb_agg(jsonb_build_object(
               'kind', x.kind, 'id', x.id, 'field', x.field, 'source', x.source, 'status', x.status,
               'owner', x.owner, 'by', x.by, 'count', cardinality(x.spans), 'speakers', x.speakers,
               'masked', x.masking,
               -- (a text not stored yet is its writer's and its owner's to read: to another, that it names
               -- them and how often, no excerpt; an eraser reads every one)
               'excerpt', case when x.nth <= p_listed
                                and (beliefdb.current_principal() in (x.owner, x.by) or beliefdb._is_eraser())
                               then beliefdb._mention_excerpt(x.body, x.spans) end,
               'spans', to_jsonb(array(select jsonb_build_array(lower(s), upper(s)) from unnest(x.spans) s)),
               'hint', case
                   when x.kind = 'queued' and x.masking
                       then 'masked in the text waiting in the queue (the name only, offsets kept): a worker stores it masked'
                   when x.kind = 'queued' and x.theirs
                       then format('a document %s submitted and not ingested yet names this person: only %s (or a '
                                   'login granted beliefdb_eraser) can mask the name in it, or cancel it (beliefdb '
                                   'jobs cancel); when a worker ingests it, it is stored with the name', x.by, x.by)
                   when x.kind = 'queued'
                       then 'a document submitted and not ingested yet names this person: when a worker ingests it, '
                            || 'it is stored with the name (another''s words, rule 14); forget --mask-mentions masks '
                            || 'the name in it now, or cancel the job with its text (beliefdb jobs cancel)'
                   when x.field = 'content' and x.masking
                       then 'masked in the proposed text (the name only, offsets kept) and in its claims'' quotes; '
                            || 'its claims whose own words name this person were dropped: approved, it stores no name'
                   when x.field = 'content' and x.theirs
                       then format('a version proposed by %s to %s, the source''s owner, names this person: only %s '
                                   '(or a login granted beliefdb_eraser) can mask the name in it; approved, it is '
                                   'stored with the name, or %s rejects it (beliefdb review reject)', x.by, x.owner,
                                   x.owner, x.owner)
                   when x.field = 'content'
                       then format('a version proposed by %s to %s, the source''s owner, names this person: approved, '
                                   'it is stored with the name; forget --mask-mentions masks the name in it now, or '
                                   '%s rejects it (beliefdb review reject)', x.by, x.owner, x.owner)
                   when x.status = 'open'
                       then format('a correction %s proposed to %s, the belief''s owner, names this person in its %s: '
                                   'typed words, left as typed (even with --mask-mentions); approved, they become the '
                                   'belief''s own; %s may reject it (beliefdb review reject)', x.by, x.owner, x.field,
                                   x.owner)
                   -- (resolved: the review history keeps what was proposed, nothing waits on it)
                   else format('a correction %s proposed to %s, the belief''s owner, names this person in its %s; '
                               'it was %s%s: typed words kept in the review history, left as typed (even with '
                               '--mask-mentions); the schema''s owner may rewrite them (docs/dba.md, Forgetting: '
                               'typed text)', x.by, x.owner, x.field, x.status,
                               case when x.status = 'approved' then ', and its words are the correction''s own'
                                    else ' and will not be applied' end) end)
               order by x.nth), '[]')
      into v_found
      from ranked x;
    -- (the spans were for the masking)
    select coalesce(jsonb_agg(m - 'spans' order by n), '[]') into v_listed
      from jsonb_array_elements(v_found) with ordinality x (m, n)
     where n <= greatest(p_listed, 0);
    if jsonb_array_length(v_found) > jsonb_array_length(v_listed) then
        v_listed := v_listed || jsonb_build_array(beliefdb._more_entry(
            'pending', jsonb_array_length(v_found),
            (select sum((m ->> 'count')::integer) from jsonb_array_elements(v_found) m),
            jsonb_array_length(v_listed), p_mask,
            format('%s more text(s) waiting to be stored name this person (%s in all): the first %s are '
                   'listed%s', jsonb_array_length(v_found) - jsonb_array_length(v_listed),
                   jsonb_array_length(v_found), jsonb_array_length(v_listed),
                   case when p_mask then '; the name was masked in every queued and proposed text this forget may '
                                         'change (a job its principal submitted, a version proposed for a source it '
                                         'owns; an eraser''s: every one)' else '' end)));
    end if;
    if not p_mask then
        return jsonb_build_object('mentions', v_listed, 'jobs', '[]'::jsonb, 'proposals', '[]'::jsonb,
                                  'labels_masked', 0);
    end if;
    -- masking is the call of whoever's text it is (an eraser's for any): a job's submitter, as only they
    -- cancel it with its text; a proposal's source owner, who decides what its text becomes. Another's
    -- text is listed, unmasked, with whose call it is (spanned.theirs); before, it refused the whole forget,
    -- so an owner could not mask the name in their own texts while another's job named the person.
    with masks as (
        select (m ->> 'id')::bigint as id,
               array(select int4range((s ->> 0)::integer, (s ->> 1)::integer) from jsonb_array_elements(m -> 'spans') s)
                   as spans
          from jsonb_array_elements(v_found) m
         where m ->> 'kind' = 'queued' and (m ->> 'masked')::boolean
    ), masked as (
        update beliefdb.job j
           -- (the lines it masks recorded with the job, beliefdb._masked_job, with who masked them: the
           -- submitter's masking masks nothing of another owner's, beliefdb._record_masks; an eraser's does)
           set payload = beliefdb._masked_job(p_workspace_id, j.payload, k.spans)
                         -- (a turn's speaker as its label in the text is masked: "████'s mum")
                         || case when jsonb_typeof(j.payload -> 'turns') = 'array'
                                 then jsonb_build_object('turns', beliefdb._masked_speakers(j.payload -> 'turns', v_re))
                                 else '{}' end,
               last_error = beliefdb._masked_job_error(j.last_error)
          from masks k
         where j.workspace_id = p_workspace_id and j.id = k.id
        returning j.id
    )
    select coalesce(array_agg(m.id), '{}') into v_jobs from masked m;
    -- a conversation job done before job_finish dropped its turns keeps them, with no text: their
    -- speakers' labels name the person as the stored turns' do (masked above, beliefdb._speaker_mentions,
    -- the source owner's call), and are masked as a queued job's are; a job a worker holds is skipped
    with kept as (
        select j.id, beliefdb._named_speakers(j.payload -> 'turns', v_re) as speakers
          from beliefdb.job j
         where j.workspace_id = p_workspace_id and j.status <> 'running' and not (j.payload ? 'text')
           and jsonb_typeof(j.payload -> 'turns') = 'array'
           and exists (select from jsonb_array_elements(j.payload -> 'turns') t where t ->> 'speaker' ~* v_re)
           -- (its submitter's call, as a queued job's is: trial34)
           and (j.submitted_by = v_principal or v_eraser)
           for no key update skip locked
    ), masked as (
        update beliefdb.job j
           set payload = j.payload || jsonb_build_object('turns', beliefdb._masked_speakers(j.payload -> 'turns', v_re))
          from kept k
         where j.workspace_id = p_workspace_id and j.id = k.id
        returning j.id, k.speakers
    )
    select coalesce(array_agg(m.id), '{}'), coalesce(sum(m.speakers), 0) into v_done, v_done_labels from masked m;
    with masks as (
        select (m ->> 'id')::uuid as id,
               array(select int4range((s ->> 0)::integer, (s ->> 1)::integer) from jsonb_array_elements(m -> 'spans') s)
                   as spans
          from jsonb_array_elements(v_found) m
         where m ->> 'kind' = 'proposed' and (m ->> 'masked')::boolean
    ), texts as (
        select k.id, r.proposal ->> 'content' as before, beliefdb._masked(r.proposal ->> 'content', k.spans) as after,
               -- (the lines it masks recorded with the proposal: beliefdb._forgotten_records)
               beliefdb._forgotten_records(p_workspace_id, r.proposal ->> 'content', r.proposal -> 'forgotten_lines',
                                           k.spans, beliefdb._source_name(r.workspace_id, r.source_id)) as lines
          from masks k
          join beliefdb.review_item r on r.workspace_id = p_workspace_id and r.id = k.id
    ), masked as (
        update beliefdb.review_item r
           set proposal = r.proposal || jsonb_build_object(
                   'content', t.after,
                   'forgotten_lines', t.lines,
                   'fragments', case when jsonb_typeof(r.proposal -> 'fragments') = 'array'
                                     then beliefdb._masked_speakers(r.proposal -> 'fragments', v_re)
                                     else coalesce(r.proposal -> 'fragments', '[]') end,
                   -- (a claim's quote read again where it lies, as evidence over a masked span is; one whose
                   -- offsets are not its quote's has the name masked in it alone)
                   'claims', (select coalesce(jsonb_agg(case
                                  when c.x ->> 'quote' is null then c.x
                                  when (c.x ->> 'start') ~ '^\d+$' and (c.x ->> 'end') ~ '^\d+$'
                                       and substr(t.before, (c.x ->> 'start')::integer + 1,
                                                  (c.x ->> 'end')::integer - (c.x ->> 'start')::integer) = c.x ->> 'quote'
                                      then c.x || jsonb_build_object('quote', substr(t.after, (c.x ->> 'start')::integer + 1,
                                                  (c.x ->> 'end')::integer - (c.x ->> 'start')::integer))
                                  else c.x || jsonb_build_object('quote', beliefdb._masked(c.x ->> 'quote',
                                                  beliefdb._mention_spans(c.x ->> 'quote', v_re))) end
                                  order by c.n), '[]')
                                from jsonb_array_elements(coalesce(r.proposal -> 'claims', '[]')) with ordinality c (x, n)
                               where not (coalesce(c.x ->> 'statement', '') ~* v_re or coalesce(c.x ->> 'value', '') ~* v_re
                                          or coalesce(c.x ->> 'subject', '') ~* v_re)),
                   'rejected', (select coalesce(jsonb_agg(j.x order by j.n), '[]')
                                  from jsonb_array_elements(coalesce(r.proposal -> 'rejected', '[]')) with ordinality j (x, n)
                                 where not (coalesce(j.x ->> 'quote', '') ~* v_re or coalesce(j.x ->> 'statement', '') ~* v_re
                                            or coalesce(j.x ->> 'value', '') ~* v_re)))
          from texts t
         where r.workspace_id = p_workspace_id and r.id = t.id
        returning r.id
    )
    select coalesce(array_agg(m.id), '{}') into v_proposals from masked m;
    -- (the turns whose speaker's label was masked with their text, or in a done job's turns: a change the
    -- forget's audit event counts)
    return jsonb_build_object('mentions', v_listed, 'jobs', to_jsonb(v_jobs || v_done), 'proposals', to_jsonb(v_proposals),
                              'labels_masked', v_done_labels + (select coalesce(sum((m ->> 'speakers')::integer), 0)
                                                  from jsonb_array_elements(v_found) m
                                                 where case m ->> 'kind'
                                                           when 'queued' then (m ->> 'id')::bigint = any(v_jobs)
                                                           when 'proposed' then (m ->> 'id')::uuid = any(v_proposals)
                                                           else false end));
end
$$;
comment on function beliefdb._pending_mentions(uuid, text[], boolean, integer) is 'Where some names are written in the texts waiting to be stored (queued documents, proposed versions and corrections: the first p_listed, then how many in all); with p_mask, masked in every queued and proposed text, and in the labels of the turns a done job kept';

-- The speakers of the stored turns whose label names some names (a forgotten subject's, as
-- beliefdb._text_mentions takes them) by the rule of beliefdb._mention_pattern: "Maya's mum", "Maya Lopez
-- (guest)". Not the person by rule 14 (only a speaker whose name is the subject is, and another's label
-- may name them: a relative, a namesake), so their turns stay, their words; but the label names the
-- person in every turn's speaker as in the text. Each: kind speaker, the label with the names masked (as
-- an excerpt masks them), how many turns (fragments of turns, each version's), the sources' names, and a
-- hint. With p_mask, the names are masked in the label of each turn (as many U+2588: the label in the
-- text, masked by beliefdb._text_mentions, and the speaker kept with its turn agree), in sources the
-- acting principal owns (an eraser's: any); the turns of the texts waiting to be stored are masked with
-- their text (beliefdb._pending_mentions). Only the first p_listed labels (by the label masked) are
-- listed; when there are more, one entry of kind 'more' (of 'speaker') follows them with how many labels
-- in all (total), how many turns they label (count), and how many are listed, as beliefdb._text_mentions
-- does; masking covers every one. Returns {mentions, labels_masked: how many turns' labels were masked}.
-- (the signature before the listing was capped)
-- (p_speakers: the forgotten subject's own speakers, not listed: their turns are forgotten, or, in others'
-- sources, listed as kept)
drop function if exists beliefdb._speaker_mentions(uuid, text[], boolean);
drop function if exists beliefdb._speaker_mentions(uuid, text[], boolean, integer);
create or replace function beliefdb._speaker_mentions(p_workspace_id uuid, p_names text[], p_mask boolean,
                                                      p_listed integer default 100, p_speakers text[] default '{}')
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_re text := beliefdb._mention_pattern(p_names);
    v_found jsonb;
    v_sources uuid[];
    v_masked integer := 0;
    v_total integer;
    v_turns bigint;
    v_principal text := beliefdb.current_principal();
    v_eraser boolean := beliefdb._is_eraser();
begin
    if v_re is null then
        return jsonb_build_object('mentions', '[]'::jsonb, 'labels_masked', 0);
    end if;
    -- (a label's turns in sources the acting principal may change, masked with p_mask, apart from its
    -- turns in others' sources, listed as theirs: two entries)
    with labelled as (
        select f.speaker, count(*) as turns, array_agg(distinct s.name order by s.name) as sources,
               array_agg(distinct s.id) as source_ids, (v_eraser or s.owner is not distinct from v_principal) as own
          from beliefdb.fragment f
          join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
          join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
         where f.workspace_id = p_workspace_id and f.speaker is not null and f.speaker ~* v_re
           and not (f.speaker = any(coalesce(p_speakers, '{}')))
         group by f.speaker, (v_eraser or s.owner is not distinct from v_principal)
    ), shown as (
        select l.*, beliefdb._masked(l.speaker, beliefdb._mention_spans(l.speaker, v_re)) as label from labelled l
    ), ranked as (
        select y.*, row_number() over (order by y.label, y.speaker, y.own desc) as nth from shown y
    )
    select count(*), coalesce(sum(x.turns), 0),
           coalesce(jsonb_agg(jsonb_build_object(
               'kind', 'speaker', 'speaker', x.label, 'turns', x.turns, 'sources', to_jsonb(x.sources),
               'masked', p_mask and x.own,
               'hint', case when p_mask and x.own then 'the name masked in the label of each of their turns (their words stay, theirs)'
                            when p_mask
                            then 'in sources others own: only their owners (or a login granted beliefdb_eraser) can '
                                 || 'mask the name in the label; forget left it (rule 17)'
                            else 'a speaker whose label names this person: not the person by rule 14 (only a speaker '
                                 || 'whose name is the subject is), so their turns stay as their words; if these are the '
                                 || 'person''s own words, forget them too by the label (beliefdb forget --subject LABEL '
                                 || '--preview, then again with --expect and the fingerprint it printed); '
                                 || 'forget --mask-mentions masks the name in the label' end)
               order by x.nth) filter (where x.nth <= greatest(p_listed, 0)), '[]'),
           coalesce((select array_agg(distinct u) from shown y cross join lateral unnest(y.source_ids) u
                      where y.own), '{}')
      into v_total, v_turns, v_found, v_sources
      from ranked x;
    if v_total > jsonb_array_length(v_found) then
        v_found := v_found || jsonb_build_array(beliefdb._more_entry(
            'speaker', v_total, v_turns, jsonb_array_length(v_found), p_mask,
            format('%s more speaker(s) whose label names this person (%s label(s), %s turn(s) in all): the '
                   'first %s are listed%s', v_total - jsonb_array_length(v_found), v_total, v_turns,
                   jsonb_array_length(v_found),
                   case when p_mask then '; the name was masked in every one''s label in the sources this forget '
                                         'may change' else '' end)));
    end if;
    if p_mask and cardinality(v_sources) > 0 then
        -- (the labels in the sources it may change: another's are listed, not masked; before, they
        -- refused the whole forget)
        update beliefdb.fragment f
           set speaker = beliefdb._masked(f.speaker, beliefdb._mention_spans(f.speaker, v_re))
          from beliefdb.source_version v
         where f.workspace_id = p_workspace_id and f.speaker is not null and f.speaker ~* v_re
           and v.workspace_id = f.workspace_id and v.id = f.source_version_id and v.source_id = any(v_sources);
        -- (the turns whose label was masked: a change the forget's audit event counts)
        get diagnostics v_masked = row_count;
    end if;
    return jsonb_build_object('mentions', v_found, 'labels_masked', v_masked);
end
$$;
comment on function beliefdb._speaker_mentions(uuid, text[], boolean, integer, text[]) is 'The speakers of stored turns whose label names some names (the label masked, how many turns, the sources; the first p_listed, then how many in all); with p_mask, the names masked in each turn''s label';
