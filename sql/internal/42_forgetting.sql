-- beliefdb: the internals of forgetting (docs/rules.md, rule 14).
-- The change forget makes, masking quotes in the source texts they come from, and gathering the
-- planner statistics of the tables that held the text again, so nothing forgotten stays behind.

-- Whether the session's login was granted beliefdb_eraser (schema/00_schema.sql), directly or
-- through roles it is a member of: the right to forget anything of its workspace, whoever owns it.
-- Only a grant counts (pg_has_role would count any superuser, and the library's sessions log in as
-- the schema's owner whichever principal they act for), and only a membership that confers the role:
-- from PostgreSQL 16 on, the maker of a role (the first migration's createrole login) holds it with the
-- admin option alone, neither inherit nor set, which grants nothing (read through to_jsonb: 15 has
-- neither column, and every membership there confers).
create or replace function beliefdb._is_eraser() returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    with recursive membership (roleid, member) as (
        select m.roleid, m.member from pg_catalog.pg_auth_members m
         where coalesce((pg_catalog.to_jsonb(m) ->> 'inherit_option')::boolean, true)
            or coalesce((pg_catalog.to_jsonb(m) ->> 'set_option')::boolean, true)
    ), member_of (role) as (
        select m.roleid from membership m
          join pg_catalog.pg_roles r on r.oid = m.member
         where r.rolname = session_user
        union
        select m.roleid from membership m join member_of o on m.member = o.role
    )
    select exists (select from member_of o join pg_catalog.pg_roles r on r.oid = o.role
                    where r.rolname = 'beliefdb_eraser')
$$;
comment on function beliefdb._is_eraser() is 'Whether the session''s login was granted beliefdb_eraser: it may forget what others own';

-- The fragments of some versions that lie within (p_within) or over some spans of them (p_versions,
-- p_spans: a span of a version each). Each version's fragments read by the version's key, lateral
-- behind offset 0: joined, the plan made for the few rows an array's elements let the planner expect
-- aggregated the spans again for every fragment of the workspace (4,000 forgotten turns, 11.5 s).
create or replace function beliefdb._fragments_by_spans(p_workspace_id uuid, p_versions uuid[], p_spans int4range[],
                                                        p_within boolean) returns setof uuid
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select f.id
      from (select x.version, range_agg(x.span) as spans
              from unnest(p_versions, p_spans) x (version, span)
             group by x.version) t
     cross join lateral (select f.id, f.start_offset, f.end_offset
                           from beliefdb.fragment f
                          where f.workspace_id = p_workspace_id and f.source_version_id = t.version
                         offset 0) f
     where case when p_within then int4range(f.start_offset, f.end_offset) <@ t.spans
                else int4range(f.start_offset, f.end_offset) && t.spans end
$$;
comment on function beliefdb._fragments_by_spans(uuid, uuid[], int4range[], boolean) is 'The fragments of some versions within, or over, some spans of them';

-- One name as a regular expression of beliefdb._mention_pattern: each Latin letter as itself with or
-- without its accents, precomposed or as combining marks after it ("Lopez", "López", "Lo\u0301pez" and
-- "LÓPEZ" are one name, whatever the server's locale folds), the spaces between words as any run of spaces
-- on one line (a no-break space of a page pasted from a browser; never a line break: a masked span keeps
-- the lines of a conversation), every other character as itself (a CJK name too: NFC keeps Hangul whole).
create or replace function beliefdb._name_regex(p_name text) returns text
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select string_agg(
               case when c.ch ~ s.space
                    then case when c.prev ~ s.space then '' else s.space || '+' end
                    when l.variants is not null then '[' || l.variants || '][\u0300-\u036f]*'
                    else regexp_replace(c.ch, '([]^.$*+?(){}|\\[-])', '\\\1', 'g') end,
               '' order by c.i)
      from (select x.ch, x.i, lag(x.ch) over (order by x.i) as prev
              from regexp_split_to_table(normalize(p_name, NFC), '') with ordinality x (ch, i)) c
     cross join (values ('[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]')) s (space)
      left join lateral (
           select v.variants
             from (values ('a', 'aAÀÁÂÃÄÅàáâãäåĀāĂăĄąǍǎǞǟǠǡǺǻȀȁȂȃȦȧḀḁẠạẢảẤấẦầẨẩẪẫẬậẮắẰằẲẳẴẵẶặ'),
                    ('b', 'bBḂḃḄḅḆḇƀ'),
                    ('c', 'cCÇçĆćĈĉĊċČčḈḉ'),
                    ('d', 'dDĎďḊḋḌḍḎḏḐḑḒḓđĐ'),
                    ('e', 'eEÈÉÊËèéêëĒēĔĕĖėĘęĚěȄȅȆȇȨȩḔḕḖḗḘḙḚḛḜḝẸẹẺẻẼẽẾếỀềỂểỄễỆệ'),
                    ('f', 'fFḞḟ'),
                    ('g', 'gGĜĝĞğĠġĢģǦǧǴǵḠḡ'),
                    ('h', 'hHĤĥȞȟḢḣḤḥḦḧḨḩḪḫẖħĦ'),
                    ('i', 'iIÌÍÎÏìíîïĨĩĪīĬĭĮįİǏǐȈȉȊȋḬḭḮḯỈỉỊịı'),
                    ('j', 'jJĴĵǰ'),
                    ('k', 'kKĶķǨǩḰḱḲḳḴḵ'),
                    ('l', 'lLĹĺĻļĽľḶḷḸḹḺḻḼḽłŁ'),
                    ('m', 'mMḾḿṀṁṂṃ'),
                    ('n', 'nNÑñŃńŅņŇňǸǹṄṅṆṇṈṉṊṋ'),
                    ('o', 'oOÒÓÔÕÖòóôõöŌōŎŏŐőƠơǑǒǪǫǬǭȌȍȎȏȪȫȬȭȮȯȰȱṌṍṎṏṐṑṒṓỌọỎỏỐốỒồỔổỖỗỘộỚớỜờỞởỠỡỢợøØ'),
                    ('p', 'pPṔṕṖṗ'),
                    ('q', 'qQ'),
                    ('r', 'rRŔŕŖŗŘřȐȑȒȓṘṙṚṛṜṝṞṟ'),
                    ('s', 'sSŚśŜŝŞşŠšȘșṠṡṢṣṤṥṦṧṨṩ'),
                    ('t', 'tTŢţŤťȚțṪṫṬṭṮṯṰṱẗŧŦ'),
                    ('u', 'uUÙÚÛÜùúûüŨũŪūŬŭŮůŰűŲųƯưǓǔǕǖǗǘǙǚǛǜȔȕȖȗṲṳṴṵṶṷṸṹṺṻỤụỦủỨứỪừỬửỮữỰự'),
                    ('v', 'vVṼṽṾṿ'),
                    ('w', 'wWŴŵẀẁẂẃẄẅẆẇẈẉẘ'),
                    ('x', 'xXẊẋẌẍ'),
                    ('y', 'yYÝýÿŶŷŸȲȳẎẏẙỲỳỴỵỶỷỸỹ'),
                    ('z', 'zZŹźŻżŽžẐẑẒẓẔẕ')) v (base, variants)
            where strpos(v.variants, c.ch) > 0
            limit 1) l on true
$$;
comment on function beliefdb._name_regex(text) is 'One name as a regular expression: its Latin letters with or without accents, its spaces any run of spaces on one line';

-- The regular expression (for ~*, any letter case) that finds some names where people typed them: a name
-- in a CJK script (Han, Hiragana, Katakana, Hangul), which is written without spaces ("我昨天见了王小明，
-- 他说..." names 王小明; "김민수를" 김민수), wherever it is in the text; any other name as a word of its own,
-- so "Ann" is not in "Annual" nor in "Anne" (a CJK letter beside it ends its word: "我和Ann去了"). Each edge
-- of a name decides for itself (the edge of "Lisa李" in Latin letters is a word's). Names of one character
-- are left out; null when no name is left. The one rule of beliefdb._forget_mentions, preview and forget.
create or replace function beliefdb._mention_pattern(p_names text[]) returns text
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select string_agg(
               case when left(n, 1) ~ c.letter then '' else '(?:(?<![[:alnum:]_])|(?<=' || c.letter || '))' end
               || beliefdb._name_regex(n)
               || case when right(n, 1) ~ c.letter then '' else '(?:(?![[:alnum:]_])|(?=' || c.letter || '))' end,
               '|')
      from unnest(p_names) n,
           -- a letter of a CJK script: Hangul Jamo, CJK radicals, 々〆〇, Hiragana and Katakana, Hangul
           -- compatibility Jamo, Katakana extensions, CJK ideographs (extension A, unified, compatibility,
           -- extensions B on), Hangul syllables and extended Jamo, half-width Katakana and Hangul
           (values ('[\u1100-\u11ff\u2e80-\u2fdf\u3005-\u3007\u3041-\u30ff\u3131-\u318e\u31f0-\u31ff\u3400-\u4dbf'
                    '\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uffdc\U00020000-\U0003134f]')) c (letter)
     where length(n) > 1
$$;
comment on function beliefdb._mention_pattern(text[]) is 'The regular expression finding some names where people typed them: a name in a CJK script anywhere (unspaced text), any other as a word of its own';

-- The entry that closes a capped listing of forget's report (kind more): of which listing, how many in
-- all (total), how many times (count), how many are listed, whether they were masked, and a hint. One
-- shape for every listing (Python's Forgotten reads it).
create or replace function beliefdb._more_entry(p_of text, p_total bigint, p_count bigint, p_listed integer,
                                               p_masked boolean, p_hint text) returns jsonb
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select jsonb_build_object('kind', 'more', 'of', p_of, 'total', p_total, 'count', p_count, 'listed', p_listed,
                              'masked', p_masked, 'hint', p_hint)
$$;
comment on function beliefdb._more_entry(text, bigint, bigint, integer, boolean, text) is 'The entry closing a capped listing of forget''s report: how many in all, how many listed';

-- Where people typed some names in the workspace (a forgotten subject's: its subject, the subject with
-- spaces for underscores, its speakers' names), as a word of its own (a name in a CJK script: anywhere,
-- beliefdb._mention_pattern), whatever the letter case: a
-- decision's title, an action's description, an outcome's note, a run's task, a step's payload, a
-- review's note, a proposed correction's or retraction's reason and reviewer (whatever became of it), a
-- correction's statement, value, reason and reviewer, a source's name, a version's label or path, a
-- retraction's reason (and that of a retraction since undone, which its history keeps);
-- and the beliefs that stay (what a source said of another subject) whose statement or value names it. Forget leaves them as typed: they are a principal's own words
-- about the person, not text taken from what was forgotten (as another speaker's words are theirs, rule
-- 14), and a name found in free text may be another's. Each: kind, id, field, owner, and a hint. Only
-- the first p_listed (oldest first) are listed: a name typed in 100,000 notes would otherwise answer
-- 100,000 entries; when there are more, one entry of kind 'more' (of 'typed') follows them with how many
-- in all (total, and count: as many, one field each) and how many are listed, as beliefdb._text_mentions does.
-- (plpgsql: its body names columns of revision 0042 on, which a sql function's body is checked against
-- when it is made)
-- (the signature before the listing was capped)
drop function if exists beliefdb._forget_mentions(uuid, text[]);
-- (p_subject: the forgotten subject; a belief of it that stays is another principal's, theirs to forget)
drop function if exists beliefdb._forget_mentions(uuid, text[], integer);
create or replace function beliefdb._forget_mentions(p_workspace_id uuid, p_names text[], p_listed integer default 100,
                                                     p_subject text default null)
returns jsonb
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_total integer;
    v_listed jsonb;
begin
    with pattern as (
        select x.re from beliefdb._mention_pattern(p_names) x (re) where x.re is not null
    ), found as (
        select 'decision' as kind, d.id, 'title' as field, d.owner, d.created_at as at
          from beliefdb.decision d, pattern p where d.workspace_id = p_workspace_id and d.title ~* p.re
        union all
        select 'action', a.id, 'description', a.owner, a.created_at
          from beliefdb.action a, pattern p where a.workspace_id = p_workspace_id and a.description ~* p.re
        union all
        select 'outcome', o.id, 'note', o.recorded_by, o.recorded_at
          from beliefdb.outcome o, pattern p where o.workspace_id = p_workspace_id and o.note ~* p.re
        union all
        select 'run', r.id, 'task', r.owner, r.created_at
          from beliefdb.run r, pattern p where r.workspace_id = p_workspace_id and r.task ~* p.re
        union all
        select 'step', s.id, 'payload', r.owner, s.created_at
          from beliefdb.step s
          join beliefdb.run r on r.workspace_id = s.workspace_id and r.id = s.run_id, pattern p
         where s.workspace_id = p_workspace_id and s.payload::text ~* p.re
        union all
        select 'review', i.id, 'note', i.resolved_by, i.created_at
          from beliefdb.review_item i, pattern p where i.workspace_id = p_workspace_id and i.note ~* p.re
        union all
        -- (a proposal's reason and reviewer: its proposer's words, whatever became of it; its statement and
        -- value are listed with the texts waiting to be stored, beliefdb._pending_mentions)
        select 'review', i.id, x.field, i.proposed_by, i.created_at
          from beliefdb.review_item i, pattern p,
               lateral (values ('reason', i.proposal ->> 'reason'), ('reviewer', i.proposal ->> 'reviewer')) x (field, typed)
         where i.workspace_id = p_workspace_id and i.kind in ('correction_proposed', 'retraction_proposed')
           and x.typed ~* p.re
        union all
        -- (a correction's statement and value are its replacement's, and its source's text: masked there
        -- with mask_mentions, and kept here as the reviewer typed them)
        select 'correction', c.id, x.field, c.reviewer, c.created_at
          from beliefdb.correction c, pattern p,
               lateral (values ('statement', c.new_statement), ('value', c.new_value), ('reason', c.reason),
                               ('reviewer', c.reviewer)) x (field, typed)
         where c.workspace_id = p_workspace_id and x.typed ~* p.re
        union all
        select 'source', s.id, x.field, s.owner, s.created_at
          from beliefdb.source s, pattern p,
               lateral (values ('name', s.name), ('retraction reason', s.retraction_reason)) x (field, typed)
         where s.workspace_id = p_workspace_id and x.typed ~* p.re
        union all
        select 'version', v.id, x.field, s.owner, v.recorded_at
          from beliefdb.source_version v
          join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id, pattern p,
               lateral (values ('label', v.label), ('path', v.path), ('retraction reason', v.retraction_reason))
                   x (field, typed)
         where v.workspace_id = p_workspace_id and x.typed ~* p.re
        union all
        -- what a source said of someone else that names the person: theirs, not forgotten with it; and a
        -- belief whose subject names them, another spelling of the same name ("Maya López" a claim wrote,
        -- maya_lopez the extractors write: underscores read as spaces), a subject of its own
        select 'belief', b.id,
               case when replace(b.subject, '_', ' ') ~* p.re then 'subject'
                    when b.statement ~* p.re then 'statement' else 'value' end, b.owner, b.recorded_at
          from beliefdb.belief b, pattern p
         where b.workspace_id = p_workspace_id
           and (b.statement ~* p.re or b.value ~* p.re or replace(b.subject, '_', ' ') ~* p.re)
        union all
        -- (a belief's or a fragment's: their owners are the belief's or the source's)
        select 'retraction', n.id, 'reason', coalesce(b.owner, s.owner), n.retracted_at
          from beliefdb.node n
          left join beliefdb.belief b on b.workspace_id = n.workspace_id and b.id = n.id
          left join beliefdb.fragment f on f.workspace_id = n.workspace_id and f.id = n.id
          left join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
          left join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id, pattern p
         where n.workspace_id = p_workspace_id and n.retraction_reason ~* p.re
        union all
        -- (a retraction since undone keeps its reason in its history, beliefdb.retraction_period)
        select 'retraction', coalesce(r.node_id, r.source_id, r.source_version_id), 'past reason',
               coalesce(b.owner, s.owner), r.retracted_at
          from beliefdb.retraction_period r
          left join beliefdb.belief b on b.workspace_id = r.workspace_id and b.id = r.node_id
          left join beliefdb.fragment f on f.workspace_id = r.workspace_id and f.id = r.node_id
          left join beliefdb.source_version v on v.workspace_id = r.workspace_id
                                              and v.id = coalesce(f.source_version_id, r.source_version_id)
          left join beliefdb.source s on s.workspace_id = r.workspace_id and s.id = coalesce(v.source_id, r.source_id),
               pattern p
         where r.workspace_id = p_workspace_id and r.restored_at is not null and r.reason ~* p.re
    ), ranked as (
        select f.*, sb.subject, row_number() over (order by f.at, f.kind, f.id) as nth, count(*) over () as total
          from found f
          -- (a belief's subject, for the forget its hint names)
          left join beliefdb.belief sb on f.kind = 'belief' and sb.workspace_id = p_workspace_id and sb.id = f.id
    )
    select coalesce(max(f.total), 0),
           coalesce(jsonb_agg(jsonb_build_object(
               'kind', f.kind, 'id', f.id, 'field', f.field, 'owner', f.owner,
               'hint', case when f.kind = 'belief' and f.subject = p_subject
                            then format('a belief of %s''s about this person: only %s (or a login granted '
                                        'beliefdb_eraser) can forget it', f.owner, f.owner)
                            when f.kind = 'belief' and f.field = 'subject'
                            then format('its subject, %s, names this person: another subject, not forgotten with '
                                        'this one (rule 14); if it is this person, forget it too (beliefdb forget '
                                        '--subject %s --preview, then again with --expect and the fingerprint it '
                                        'printed)', f.subject,
                                        case when f.subject ~ '^[A-Za-z0-9_.-]+$' then f.subject
                                             else '''' || replace(f.subject, '''', '''\''''') || '''' end)
                            when f.kind = 'belief'
                            then 'what a source said of another subject: it stays theirs (rule 14); if it is about '
                                 || 'this person, forget it too by its id (beliefdb forget --belief ID --preview, then '
                                 || 'again with --expect and the fingerprint it printed)'
                            else format('typed by %s, not taken from what was forgotten: forget leaves it as typed; if it '
                              'names this person, %s or the schema''s owner rewrites %s''s %s%s '
                              '(docs/dba.md, Forgetting: typed text)',
                              coalesce(f.owner, 'a person'), coalesce(f.owner, 'whoever typed it'), f.kind, f.field,
                              case when f.kind = 'source' and f.field = 'name'
                                   then ', or forgets the whole source if it is about them (beliefdb forget '
                                        || '--source NAME --preview, then again with --expect and the fingerprint '
                                        || 'it printed)'
                                   when f.kind = 'correction' and f.field in ('statement', 'value')
                                   then ', or, if the correction is about them, forgets its replacement belief, which '
                                        || 'says the same, by the replacement''s id (beliefdb forget --belief ID '
                                        || '--preview, then again with --expect and the fingerprint it printed): the '
                                        || 'correction goes with it'
                                   else '' end) end)
               order by f.nth) filter (where f.nth <= greatest(p_listed, 0)), '[]')
      into v_total, v_listed
      from ranked f;
    if v_total > jsonb_array_length(v_listed) then
        v_listed := v_listed || jsonb_build_array(beliefdb._more_entry(
            'typed', v_total, v_total, jsonb_array_length(v_listed), false,
            format('%s more place(s) where people typed this person''s name (%s in all): the first %s '
                   'are listed; forget leaves them as typed', v_total - jsonb_array_length(v_listed),
                   v_total, jsonb_array_length(v_listed))));
    end if;
    return v_listed;
end
$$;
comment on function beliefdb._forget_mentions(uuid, text[], integer, text) is 'Where people typed some names (decision titles, action descriptions, outcome and review notes, run tasks, step payloads, proposals'' reasons and reviewers, corrections'' statements, values, reasons and reviewers, retraction reasons, past ones too, source names, version labels and paths; beliefs that stay): kind, id, field, owner, hint; the first p_listed, then how many in all';

-- Every span of a text where a pattern of beliefdb._mention_pattern matches (any letter case), in text
-- order: the text is read once, split at the matches and the matches listed (the pattern matches no
-- empty text: a name has two characters or more), each match's offset the length of what is before it.
create or replace function beliefdb._mention_spans(p_text text, p_re text) returns int4range[]
language plpgsql immutable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_pieces text[];
    v_matches text[];
    v_at integer := 0;
    v_spans int4range[] := '{}';
begin
    if p_text is null or p_re is null then
        return v_spans;
    end if;
    v_pieces := regexp_split_to_array(p_text, p_re, 'i');
    v_matches := array(select m[1] from regexp_matches(p_text, p_re, 'gi') m);
    for v_i in 1 .. cardinality(v_matches) loop
        v_at := v_at + length(v_pieces[v_i]);
        v_spans := v_spans || int4range(v_at, v_at + length(v_matches[v_i]));
        v_at := v_at + length(v_matches[v_i]);
    end loop;
    return v_spans;
end
$$;
comment on function beliefdb._mention_spans(text, text) is 'Every span [start, end) of a text where a name pattern (beliefdb._mention_pattern) matches, any letter case';

-- Where some names (a forgotten subject's, as beliefdb._forget_mentions takes them) are still written in
-- the stored source texts once forget has masked what it forgets: another speaker's turn ("Nice to meet
-- you Maya"), a document about someone else. By the rule of beliefdb._mention_pattern, the texts of the
-- whole workspace read once each (no index finds a word in them). Each version that names them: kind
-- 'text', its id, field 'content', its source's owner, a hint, its source's name, its version number,
-- how many times (count), and an excerpt (beliefdb._mention_excerpt). Only the first p_listed versions
-- (by source name and version) are listed: a person named in 100,000 texts would otherwise answer
-- 100,000 excerpts; when there are more, one entry of kind 'more' (of 'text') follows them with how
-- many versions name them in all (total), how many times (count), and how many are listed. Forget
-- leaves them: another's words, and the name may be another's (rule 14); with p_mask, it masks every
-- occurrence in every version, listed or not, as it masks a forgotten quote (the same length, offsets of
-- all other evidence valid; the fragments over them and their evidence quotes masked with it, each span
-- recorded in beliefdb.redaction), in sources the acting principal owns (an eraser's: any), and each
-- entry says masked. Returns {mentions, redacted: the spans masked}.
-- (the signature before the listing was capped)
drop function if exists beliefdb._text_mentions(uuid, text[], boolean);
create or replace function beliefdb._text_mentions(p_workspace_id uuid, p_names text[], p_mask boolean,
                                                   p_listed integer default 100)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_re text := beliefdb._mention_pattern(p_names);
    v_ids uuid[];
    v_counts integer[];
    v_sources uuid[];
    v_listed jsonb;
    v_count bigint;
    v_redacted integer := 0;
    v_version record;
    -- (whose call masking is: the source owner's, an eraser's any)
    v_principal text := beliefdb.current_principal();
    v_eraser boolean := beliefdb._is_eraser();
begin
    if v_re is null then
        return jsonb_build_object('mentions', '[]'::jsonb, 'redacted', 0);
    end if;
    -- (each text read once by the pattern and counted there: the spans and the excerpt only of those
    -- listed, and of every one when masking)
    select coalesce(array_agg(n.id order by n.name, n.version), '{}'), coalesce(array_agg(n.n order by n.name, n.version), '{}'),
           coalesce(array_agg(distinct n.source_id), '{}'), coalesce(sum(n.n), 0)
      into v_ids, v_counts, v_sources, v_count
      from (select v.id, v.version, s.id as source_id, s.name, regexp_count(v.content, v_re, 1, 'i') as n
              from beliefdb.source_version v
              join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
             where v.workspace_id = p_workspace_id and v.content ~* v_re) n
     where n.n > 0;
    select coalesce(jsonb_agg(jsonb_build_object(
               'kind', 'text', 'id', v.id, 'field', 'content', 'owner', s.owner,
               'source', s.name, 'version', v.version, 'count', l.n,
               'masked', p_mask and (v_eraser or s.owner is not distinct from v_principal),
               'excerpt', beliefdb._mention_excerpt(v.content, beliefdb._mention_spans(v.content, v_re)),
               'hint', case when p_mask and (v_eraser or s.owner is not distinct from v_principal)
                            then 'masked where it was written (the name only: the rest of the text stays, at its offsets)'
                            when p_mask
                            then format('source %s is owned by %s: only they (or a login granted beliefdb_eraser) can '
                                        'mask the name in it; forget left it as written (rule 17)', s.name, s.owner)
                            else 'the stored text names this person outside what was forgotten (another speaker''s '
                                 || 'turn, a document''s other words): forget leaves it (rule 14); forget --mask-mentions '
                                 || 'masks the name in it too' end)
               order by l.at), '[]')
      into v_listed
      from unnest(v_ids[1:greatest(p_listed, 0)], v_counts[1:greatest(p_listed, 0)]) with ordinality l (id, n, at)
      join beliefdb.source_version v on v.workspace_id = p_workspace_id and v.id = l.id
      join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id;
    if cardinality(v_ids) > jsonb_array_length(v_listed) then
        v_listed := v_listed || jsonb_build_array(beliefdb._more_entry(
            'text', cardinality(v_ids), v_count, jsonb_array_length(v_listed), p_mask,
            format('%s more stored version(s) name this person (%s version(s), %s time(s) in all): '
                   'the first %s are listed%s', cardinality(v_ids) - jsonb_array_length(v_listed),
                   cardinality(v_ids), v_count, jsonb_array_length(v_listed),
                   case when p_mask then '; the name was masked in every one of the sources this forget may change '
                                         '(its principal''s; an eraser''s: every one)' else '' end)));
    end if;
    if p_mask then
        -- masking is its owner's call, as forgetting a turn of its text is (an eraser's for any): another's
        -- versions are listed, not masked (before, they refused the whole forget, so a name in anyone's
        -- document kept the owner from masking it in their own)
        for v_version in
            select v.id, beliefdb._mention_spans(v.content, v_re) as spans
              from beliefdb.source_version v
              join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
             where v.workspace_id = p_workspace_id and v.id = any(v_ids)
               and (v_eraser or s.owner is not distinct from v_principal)
        loop
            v_redacted := v_redacted + beliefdb._redact_spans(p_workspace_id, v_version.id, v_version.spans,
                                                              'forgotten subject named');
        end loop;
    end if;
    return jsonb_build_object('mentions', v_listed, 'redacted', v_redacted);
end
$$;
comment on function beliefdb._text_mentions(uuid, text[], boolean, integer) is 'Where some names are still written in the stored source texts (per version: source, version, count, a masked excerpt; the first p_listed, then how many in all); with p_mask, masked in every one the acting principal owns';

-- What a forget leaves in sources another principal owns (rule 17), as its report lists it: for each
-- version (p_versions), what stays (p_whats: 'turn', a forgotten subject's turns; 'quote', a forgotten
-- quote's occurrences) and how many (p_counts): kind kept, the source, its version and owner, and a hint;
-- the first 100 by source and version, then one entry of kind more (of 'kept') with how many in all.
create or replace function beliefdb._kept_entries(p_workspace_id uuid, p_versions uuid[], p_whats text[],
                                                  p_counts bigint[])
returns jsonb
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    with k as (
        select s.name, s.owner, v.id, v.version, x.what, x.n,
               row_number() over (order by s.name, v.version, x.what) as nth, count(*) over () as total,
               sum(x.n) over () as times
          from unnest(p_versions, p_whats, p_counts) x (version, what, n)
          join beliefdb.source_version v on v.workspace_id = p_workspace_id and v.id = x.version
          join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
    )
    select coalesce(jsonb_agg(jsonb_build_object(
               'kind', 'kept', 'what', k.what, 'source', k.name, 'version', k.version, 'id', k.id, 'owner', k.owner,
               'count', k.n,
               'hint', format('source %s is owned by %s: %s stay in its text, that owner''s to change (a new '
                              'version without them, retracting or forgetting that version or the source, their own '
                              'forget of the subject); a login granted beliefdb_eraser can forget them everywhere',
                              k.name, k.owner,
                              case k.what when 'turn' then 'the turns' else 'the quotes' end))
               order by k.nth) filter (where k.nth <= 100), '[]')
           || coalesce((select jsonb_build_array(beliefdb._more_entry(
                                   'kept', max(k.total), max(k.times)::bigint, 100, false,
                                   format('%s more version(s) of sources others own keep what was forgotten (%s in '
                                          'all, %s time(s)): the first 100 are listed', max(k.total) - 100,
                                          max(k.total), max(k.times))))
                          from k having max(k.total) > 100), '[]')
      from k
$$;
comment on function beliefdb._kept_entries(uuid, uuid[], text[], bigint[]) is 'What a forget leaves in sources others own, as its report lists it (kind kept: turns or quotes by version; the first 100)';

-- The change forget makes (see forget): owner checks, deletions, redactions, propagation, audit.
-- Forgetting deletes: only what the acting principal owns (rule 17). A source another principal
-- owns, and any belief of another's that forgetting would delete (its own target, or one it would
-- leave without support), is refused (not_owner, naming the owner), unless the session's login is
-- an eraser (beliefdb._is_eraser): then it goes whoever owns it, and the audit event names the
-- eraser and the owners. A subject's turns (those of p_speakers) go as fragments, from sources the
-- acting principal owns (an eraser's: any), and are masked with their speaker labels.
-- With p_mask_mentions (a subject's alone), the name is masked too where another speaker or document wrote
-- it in the stored source texts (beliefdb._text_mentions), in sources the acting principal owns.
-- (the signature before the name could be masked where others wrote it)
drop function if exists beliefdb._forget_core(uuid, text, uuid, text, text[]);
create or replace function beliefdb._forget_core(p_workspace_id uuid, p_target text, p_id uuid, p_subject text,
                                                 p_speakers text[] default '{}', p_mask_mentions boolean default false)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := p_workspace_id;
    v_name text;
    v_seeds uuid[];
    v_beliefs uuid[];
    v_gone uuid[];
    v_quotes text[] := '{}';
    -- other speakers' turns in those sources, that no forgotten belief quotes: their words, not masked
    v_keep_version uuid[] := '{}';
    v_keep_span int4range[] := '{}';
    v_quoted_turns jsonb := '[]';
    v_sources uuid[] := '{}';
    -- the sources that hold a forgotten quote without its evidence (only its quotes of 12 characters or more)
    v_wide uuid[] := '{}';
    v_consequents uuid[];
    v_versions integer := 0;
    -- a forgotten source's versions (a retraction may name one by its id: its event goes with them)
    v_version_ids uuid[] := '{}';
    -- the sources corrections that go made of their reviewers' texts (correction:<uuid>), and their versions
    v_hidden uuid[] := '{}';
    v_hidden_versions uuid[] := '{}';
    v_hidden_name text;
    v_redacted integer := 0;
    v_changes jsonb := beliefdb._empty_changes();
    v_result jsonb;
    v_principal text := beliefdb.current_principal();
    v_eraser boolean := beliefdb._is_eraser();
    v_owners text[];
    v_other record;
    -- a forgotten subject's turns: the fragments, and each span to mask (the turn, and its speaker's
    -- name in the line that labels it) by source version
    v_turns uuid[] := '{}';
    v_turn_version uuid[] := '{}';
    v_turn_span int4range[] := '{}';
    v_turn_text text[] := '{}';
    v_turn_sources uuid[] := '{}';
    -- where the forgotten quotes occur in those sources' versions (but for the spans kept): each span
    -- to mask, by source version
    v_mask_version uuid[] := '{}';
    v_mask_span int4range[] := '{}';
    -- (of those, the sources the acting principal may mask: their own, an eraser's any; and what stays
    -- in another's: listed, kind kept)
    v_own_sources uuid[] := '{}';
    -- (what stays in another's source, by version: a forgotten subject's turns, a forgotten quote's
    -- occurrences; listed together, kind kept)
    v_kept_version uuid[] := '{}';
    v_kept_what text[] := '{}';
    v_kept_count bigint[] := '{}';
    -- the words of those other beliefs' quotes, kept where they occur in texts waiting to be stored
    v_kept_quotes text[] := '{}';
    v_version record;
    -- the ids of the jobs and proposals whose waiting text was masked (one array of each per call), and
    -- how many jobs of a forgotten source were cleared
    v_pending jsonb[] := '{}';
    v_cleared integer := 0;
    -- the names a forgotten subject is written by (its subject, with spaces for underscores, its
    -- speakers'), and where they are still written in the stored source texts (beliefdb._text_mentions)
    v_names text[] := array(select distinct n from unnest(array[p_subject, replace(p_subject, '_', ' ')]
                                                          || coalesce(p_speakers, '{}')) n where n is not null);
    v_listed boolean := coalesce(current_setting('beliefdb.forget_mentions', true), '') <> 'off';
    v_in_text jsonb := '{"mentions": [], "redacted": 0}';
    v_waiting jsonb := '{"mentions": []}';
    v_labels jsonb := '{"mentions": [], "labels_masked": 0}';
begin
    if coalesce(p_mask_mentions, false) and p_target <> 'subject' then
        raise exception 'mask_mentions goes with forgetting a subject (a person''s name), not a %', p_target
            using errcode = 'BD005';
    end if;
    if p_target = 'source' then
        select s.name into v_name from beliefdb.source s where s.workspace_id = v_ws and s.id = p_id;
        if v_name is null then
            raise exception 'unknown source %', p_id using errcode = 'BD004',
                hint = 'a source forgotten already is not found again (a repeated forget has nothing left to do)';
        end if;
        v_seeds := beliefdb.expand_targets(v_ws, array[p_id]);
        v_version_ids := array(select v.id from beliefdb.source_version v where v.workspace_id = v_ws and v.source_id = p_id);
        v_versions := cardinality(v_version_ids);
    elsif p_target = 'subject' then
        -- (the subject's beliefs the acting principal owns, an eraser's every one: another's stay, listed
        -- as theirs to forget by beliefdb._forget_mentions, kind belief; before, one refused the whole forget, so anyone's belief about
        -- a person kept the owner from forgetting them in their own memory)
        v_seeds := array(select b.id from beliefdb.belief b
                          where b.workspace_id = v_ws and b.subject = p_subject
                            and (v_eraser or b.owner is not distinct from v_principal));
        -- what the subject said: every turn of its speakers, in every version of every conversation,
        -- and each span to mask: the turn and its speaker's name in the line that labels it
        -- (beliefdb._turn_spans); with them every fragment within such a turn (a quote of part of it)
        -- (a conversation another principal owns is theirs to change, rule 17: its turns stay, listed,
        -- kind kept, by version; before, they refused the whole forget, so one turn of the person in
        -- anyone's conversation kept the owner from forgetting them in their own)
        with t as (
            select f.id, f.text, f.speaker, f.source_version_id, v.source_id,
                   v_eraser or s.owner is not distinct from v_principal as own
              from beliefdb.fragment f
              join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
              join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
             where f.workspace_id = v_ws and f.speaker = any(coalesce(p_speakers, '{}'))
        )
        select coalesce(array_agg(t.id) filter (where t.own), '{}'),
               coalesce(array_agg(distinct t.source_id) filter (where t.own), '{}'),
               -- (in a text waiting to be stored, a turn is found as a line lays it out: "Speaker: text"
               -- or "**Speaker:** text")
               coalesce(array_agg(distinct t.speaker || ': ' || t.text) filter (where t.own), '{}')
                   || coalesce(array_agg(distinct '**' || t.speaker || ':** ' || t.text) filter (where t.own), '{}'),
               coalesce((select array_agg(k.version order by k.version)
                           from (select distinct x.source_version_id as version from t x where not x.own) k), '{}')
          into v_turns, v_turn_sources, v_turn_text, v_kept_version
          from t;
        select coalesce(array_agg('turn'::text), '{}'), coalesce(array_agg(k.n order by k.version), '{}')
          into v_kept_what, v_kept_count
          from (select f.source_version_id as version, count(*) as n
                  from beliefdb.fragment f
                 where f.workspace_id = v_ws and f.source_version_id = any(v_kept_version)
                   and f.speaker = any(coalesce(p_speakers, '{}'))
                 group by f.source_version_id) k;
        select coalesce(array_agg(x.version), '{}'), coalesce(array_agg(x.span), '{}')
          into v_turn_version, v_turn_span
          from beliefdb._turn_spans(v_ws, v_turns) x;
        v_turns := v_turns || array(
            select f.id from beliefdb._fragments_by_spans(v_ws, v_turn_version, v_turn_span, true) f (id)
             where not (f.id = any(v_turns)));
        v_seeds := v_seeds || v_turns;
        -- the acting principal's own beliefs whose every quote lies in the subject's turns, some of them
        -- in another's conversation (kept there): they go, as they would if those turns were in their
        -- own, where the turns going leaves them without support
        if not v_eraser and cardinality(v_kept_version) > 0 then
            v_seeds := v_seeds || array(
                select distinct e.belief_id
                  from beliefdb.fragment t
                  join beliefdb.fragment q on q.workspace_id = t.workspace_id and q.source_version_id = t.source_version_id
                                          and q.start_offset >= t.start_offset and q.end_offset <= t.end_offset
                  join beliefdb.evidence e on e.workspace_id = q.workspace_id and e.fragment_id = q.id
                  join beliefdb.belief b on b.workspace_id = e.workspace_id and b.id = e.belief_id
                 where t.workspace_id = v_ws and t.source_version_id = any(v_kept_version)
                   and t.speaker = any(coalesce(p_speakers, '{}'))
                   and b.owner is not distinct from v_principal and not (b.id = any(v_seeds))
                   and not exists (
                       select from beliefdb.evidence o
                         join beliefdb.fragment f on f.workspace_id = o.workspace_id and f.id = o.fragment_id
                        where o.workspace_id = v_ws and o.belief_id = b.id
                          and not exists (select from beliefdb.fragment u
                                           where u.workspace_id = f.workspace_id
                                             and u.source_version_id = f.source_version_id
                                             and u.speaker = any(coalesce(p_speakers, '{}'))
                                             and f.start_offset >= u.start_offset and f.end_offset <= u.end_offset)));
        end if;
        -- (a subject whose only words wait to be stored, in a queued or proposed conversation, is
        -- forgotten there: beliefdb._redact_pending_speakers)
        if cardinality(v_seeds) = 0 and cardinality(v_kept_version) = 0
           and not exists (select from beliefdb.belief b where b.workspace_id = v_ws and b.subject = p_subject)
           and not exists (select from beliefdb.job j
                            cross join lateral jsonb_array_elements(
                                case when jsonb_typeof(j.payload -> 'turns') = 'array' then j.payload -> 'turns'
                                     else '[]' end) t
                            where j.workspace_id = v_ws and t ->> 'speaker' = any(coalesce(p_speakers, '{}')))
           and not exists (select from beliefdb.review_item r
                            cross join lateral jsonb_array_elements(
                                case when jsonb_typeof(r.proposal -> 'fragments') = 'array'
                                     then r.proposal -> 'fragments' else '[]' end) f
                            where r.workspace_id = v_ws and r.kind = 'version_proposed'
                              and f ->> 'speaker' = any(coalesce(p_speakers, '{}')))
           -- (nor is its name written in a stored or waiting text: a forget that left the name where others
           -- wrote it can be followed by one with mask_mentions, which the report's hint says)
           and not exists (select from beliefdb.source_version v
                            where v.workspace_id = v_ws and v.content ~* beliefdb._mention_pattern(v_names))
           and not exists (select from beliefdb.job j
                            where j.workspace_id = v_ws and j.payload ->> 'text' ~* beliefdb._mention_pattern(v_names))
           and not exists (select from beliefdb.review_item r
                            where r.workspace_id = v_ws and r.kind = 'version_proposed'
                              and r.proposal ->> 'content' ~* beliefdb._mention_pattern(v_names)) then
            -- (a forget sent again once applied, a retry after a lost answer, lands here: nothing is kept
            -- that names what was forgotten, so the hint says what this answer means for it)
            raise exception 'no belief has subject %', p_subject using errcode = 'BD004',
                hint = 'nothing of it is stored: a subject forgotten already is not found again (a repeated forget '
                       'has nothing left to do); check the name with beliefdb beliefs --subject';
        end if;
    elsif p_target = 'belief' then
        v_seeds := array(select b.id from beliefdb.belief b where b.workspace_id = v_ws and b.id = p_id);
        if cardinality(v_seeds) = 0 then
            raise exception 'unknown belief %', p_id using errcode = 'BD004', detail = '{"unknown": ["belief"]}';
        end if;
    else
        raise exception 'forget a source, a subject or a belief, not %', p_target using errcode = 'BD005';
    end if;

    -- forgetting is its owner's call: a belief's, a source's (an eraser's for anything)
    if not v_eraser and p_target in ('subject', 'belief') then
        perform beliefdb._require_owner(v_ws, x.id, 'forget it (or a login granted beliefdb_eraser)')
           from unnest(v_seeds) x (id);
    elsif not v_eraser and p_target = 'source' then
        perform beliefdb._require_source_owner(v_ws, p_id, 'forget it (or a login granted beliefdb_eraser)');
    end if;

    -- a forgotten subject's or belief's quotes, and the sources they are in (their text is masked)
    if p_target in ('subject', 'belief') then
        select coalesce(array_agg(distinct e.quote), '{}'), coalesce(array_agg(distinct v.source_id), '{}')
          into v_quotes, v_sources
          from beliefdb.evidence e
          join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
          join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
         where e.workspace_id = v_ws and e.belief_id = any(v_seeds);
        -- the same words in another text of the workspace are the same data: its source is masked too
        -- (one a document quoting no belief of the subject kept a phone number a forgotten belief quoted),
        -- for a quote of 12 characters or more: a shorter one ("555", "Floor: 2") is no one's words there,
        -- but a part of others' ("5551234", "Floor: 20")
        v_wide := array(
            select v.source_id from beliefdb.source_version v
             where v.workspace_id = v_ws and not (v.source_id = any(v_sources))
               and exists (select from unnest(v_quotes) q (quote) where length(q.quote) >= 12
                                                                    and strpos(v.content, q.quote) > 0)
             group by v.source_id);
        v_sources := v_sources || v_wide;
        -- another speaker's turn is kept unless a forgotten belief quotes it or words within it; the
        -- turns it quotes, by speaker, time and words, are found again in texts waiting to be stored
        select coalesce(array_agg(t.source_version_id) filter (where not t.quoted and not t.forgotten), '{}'),
               coalesce(array_agg(int4range(t.start_offset, t.end_offset)) filter (where not t.quoted and not t.forgotten),
                        '{}'),
               coalesce(jsonb_agg(jsonb_build_object('speaker', t.speaker, 'time', t.spoken_at, 'text', t.text))
                            filter (where t.quoted), '[]')
          into v_keep_version, v_keep_span, v_quoted_turns
          from (select f.source_version_id, f.start_offset, f.end_offset, f.speaker, f.spoken_at, f.text,
                       f.speaker = any(coalesce(p_speakers, '{}')) as forgotten,
                       exists (select from beliefdb.evidence e
                                 join beliefdb.fragment q on q.workspace_id = e.workspace_id and q.id = e.fragment_id
                                where e.workspace_id = f.workspace_id and e.belief_id = any(v_seeds)
                                  and q.source_version_id = f.source_version_id
                                  and q.start_offset >= f.start_offset and q.end_offset <= f.end_offset) as quoted
                  from beliefdb.fragment f
                  join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
                 where f.workspace_id = v_ws and v.source_id = any(v_sources) and f.speaker is not null) t;
        -- another belief's quote is kept too, unless it overlaps a forgotten belief's quote: the same
        -- words quoted elsewhere are that belief's own, as another speaker's are theirs
        with own as (
            select q.source_version_id as version, range_agg(int4range(q.start_offset, q.end_offset)) as spans
              from beliefdb.evidence e
              join beliefdb.fragment q on q.workspace_id = e.workspace_id and q.id = e.fragment_id
             where e.workspace_id = v_ws and e.belief_id = any(v_seeds)
             group by q.source_version_id
        ), other as (
            select f.source_version_id as version, int4range(f.start_offset, f.end_offset) as span, f.text
              from beliefdb.source_version v
              join beliefdb.fragment f on f.workspace_id = v.workspace_id and f.source_version_id = v.id
              left join own on own.version = v.id
             where v.workspace_id = v_ws and v.source_id = any(v_sources)
               and not coalesce(int4range(f.start_offset, f.end_offset) && own.spans, false)
               and exists (select from beliefdb.evidence e
                            where e.workspace_id = v_ws and e.fragment_id = f.id and not (e.belief_id = any(v_seeds)))
        )
        select v_keep_version || coalesce(array_agg(o.version), '{}'), v_keep_span || coalesce(array_agg(o.span), '{}'),
               coalesce(array_agg(distinct o.text), '{}')
          into v_keep_version, v_keep_span, v_kept_quotes
          from other o;
        -- where they occur, but in the spans kept and in the forgotten turns (masked whole, below)
        select coalesce(array_agg(m.version), '{}'), coalesce(array_agg(m.span), '{}')
          into v_mask_version, v_mask_span
          from (select * from beliefdb._quote_masks(
                           v_ws, array(select x from unnest(v_sources) x where not (x = any(v_wide))), v_quotes,
                           v_keep_version || v_turn_version, v_keep_span || v_turn_span)
                union all
                select * from beliefdb._quote_masks(
                           v_ws, v_wide, array(select q from unnest(v_quotes) q where length(q) >= 12),
                           v_keep_version || v_turn_version, v_keep_span || v_turn_span)) m;
        -- a source is its owner's to change (rule 17): the quotes are masked in the sources the acting
        -- principal owns (an eraser's in any); in another's they stay, that owner's words, and are listed
        -- (kind kept: the version, how many times, whose). Else any principal could mask any words of
        -- another's text by remembering a belief quoting them and forgetting it.
        if v_eraser then
            v_own_sources := v_sources;
        else
            v_own_sources := array(select s.id from beliefdb.source s
                                    where s.workspace_id = v_ws and s.id = any(v_sources)
                                      and s.owner is not distinct from v_principal);
            select v_kept_version || coalesce(array_agg(k.version order by k.version), '{}'),
                   v_kept_what || coalesce(array_agg('quote'::text order by k.version), '{}'),
                   v_kept_count || coalesce(array_agg(k.n order by k.version), '{}')
              into v_kept_version, v_kept_what, v_kept_count
              from (select x.version, count(*) as n
                      from unnest(v_mask_version) x (version)
                      join beliefdb.source_version v on v.workspace_id = v_ws and v.id = x.version
                     where not (v.source_id = any(v_own_sources))
                     group by x.version) k;
            with m as (
                select x.version, x.span, v.source_id = any(v_own_sources) as own
                  from unnest(v_mask_version, v_mask_span) x (version, span)
                  join beliefdb.source_version v on v.workspace_id = v_ws and v.id = x.version
            )
            select coalesce(array_agg(m.version) filter (where m.own), '{}'),
                   coalesce(array_agg(m.span) filter (where m.own), '{}')
              into v_mask_version, v_mask_span
              from m;
        end if;
        -- another belief's quote over a masked span (a forgotten belief's own quote lies in it) loses
        -- those words: its fragment goes, as a forgotten turn does, and with it the belief it leaves
        -- without support (its words would stay in its statement, its evidence masked); the preview
        -- names it
        v_seeds := v_seeds || array(
            select f.id from beliefdb._fragments_by_spans(v_ws, v_mask_version, v_mask_span, false) f (id)
             where not (f.id = any(v_seeds))
               and exists (select from beliefdb.evidence e
                            where e.workspace_id = v_ws and e.fragment_id = f.id and not (e.belief_id = any(v_seeds))));
    end if;

    -- what is left without support once the targets are gone
    if cardinality(v_seeds) > 0 then
        perform beliefdb.evaluate(v_ws, v_seeds, v_seeds);
    else
        perform beliefdb._prepare_evaluation();
    end if;
    -- what did not hold before was not left without support by this, but one whose every quote lay
    -- in what is forgotten (a version its source replaced, a source retracted before) goes too: it
    -- would stay with no evidence, its statement the forgotten words; one with a quote elsewhere stays
    v_beliefs := array(
        select e.id from pg_temp.beliefdb_evaluation e
         where e.kind = 'belief'
           and (e.id = any(v_seeds) or (e.held and not e.holds)
                or (not e.holds
                    and exists (select from beliefdb.evidence q
                                 where q.workspace_id = v_ws and q.belief_id = e.id and q.fragment_id = any(v_seeds))
                    and not exists (select from beliefdb.evidence q
                                     where q.workspace_id = v_ws and q.belief_id = e.id
                                       and not (q.fragment_id = any(v_seeds))))));
    v_gone := v_seeds || array(select x from unnest(v_beliefs) x where not (x = any(v_seeds)));
    -- a correction of a forgotten belief goes with it; the reviewer's replacement stands on the
    -- reviewer's own fragment. A correction whose replacement or fragment is forgotten goes too: its
    -- new statement (and value, reason) are the forgotten belief's words, its fragment's text
    v_gone := v_gone || array(select c.id from beliefdb.correction c
                               where c.workspace_id = v_ws
                                 and (c.belief_id = any(v_gone) or c.replacement_belief_id = any(v_gone)
                                      or c.fragment_id = any(v_gone)));
    -- and so does the source it made of its reviewer's text (correction:<uuid>, beliefdb._apply_correction_core),
    -- its version and fragment, when nothing else is left of it: no other version (a text ingested into it
    -- since), and no node that stays resting on a fragment of it (the replacement, when only the corrected
    -- belief is forgotten; a belief or a reason citing it). Left, it was a shell whose text was all masked.
    v_hidden := array(
        select distinct s.id
          from beliefdb.correction c
          join beliefdb.fragment f on f.workspace_id = c.workspace_id and f.id = c.fragment_id
          join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
          join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
         where c.workspace_id = v_ws and c.id = any(v_gone)
           and s.origin_type = 'human_reviewer' and s.name like 'correction:%'
           and not (p_target = 'source' and s.id = p_id)
           and not exists (select from beliefdb.source_version w
                            where w.workspace_id = s.workspace_id and w.source_id = s.id and w.id <> v.id)
           and not exists (
               select from beliefdb.fragment g
                where g.workspace_id = v.workspace_id and g.source_version_id = v.id and not (g.id = any(v_gone))
                  and (exists (select from beliefdb.justification_antecedent a
                                 join beliefdb.justification j
                                   on j.workspace_id = a.workspace_id and j.id = a.justification_id
                                where a.workspace_id = g.workspace_id and a.antecedent = g.id
                                  and not (j.consequent = any(v_gone)))
                       or exists (select from beliefdb.evidence e
                                   where e.workspace_id = g.workspace_id and e.fragment_id = g.id
                                     and not (e.belief_id = any(v_gone)))
                       or exists (select from beliefdb.correction o
                                   where o.workspace_id = g.workspace_id and o.fragment_id = g.id
                                     and not (o.id = any(v_gone))))));
    if cardinality(v_hidden) > 0 then
        v_hidden_versions := array(select v.id from beliefdb.source_version v
                                    where v.workspace_id = v_ws and v.source_id = any(v_hidden));
        v_versions := v_versions + cardinality(v_hidden_versions);
        v_gone := v_gone || array(select f.id from beliefdb.fragment f
                                   where f.workspace_id = v_ws and f.source_version_id = any(v_hidden_versions)
                                     and not (f.id = any(v_gone)));
        -- (a source is its owner's to forget, rule 17)
        if not v_eraser then
            perform beliefdb._require_source_owner(v_ws, x.id, 'forget it (or a login granted beliefdb_eraser)')
               from unnest(v_hidden) x (id);
        end if;
    end if;
    -- nor does it delete another principal's belief it would leave without support
    select b.id, b.owner into v_other
      from beliefdb.belief b
     where b.workspace_id = v_ws and b.id = any(v_gone) and b.owner is distinct from v_principal
     order by b.recorded_at, b.id
     limit 1;
    if found and not v_eraser then
        raise exception 'forgetting this % would delete belief %, owned by %: only its owner can forget it (or a login granted beliefdb_eraser)',
            p_target, v_other.id, v_other.owner using errcode = 'BD008',
            hint = 'its owner may forget it first, or retract what it rests on';
    end if;
    v_owners := array(select distinct o.owner
                        from (select b.owner from beliefdb.belief b where b.workspace_id = v_ws and b.id = any(v_gone)
                              union all
                              select s.owner from beliefdb.source s
                               where s.workspace_id = v_ws and (s.id = p_id and p_target = 'source'
                                                                or s.id = any(v_turn_sources) or s.id = any(v_hidden))
                              union all
                              -- (and whose texts it masked the quotes in: an eraser's forget masks them in any)
                              select s.owner from beliefdb.source s
                               where s.workspace_id = v_ws and s.id = any(v_own_sources)
                                 and exists (select from beliefdb.source_version v
                                              where v.workspace_id = v_ws and v.source_id = s.id
                                                and v.id = any(v_mask_version))) o
                       where o.owner is distinct from v_principal
                       order by o.owner);
    v_result := jsonb_build_object(
        'target', p_target, 'versions', v_versions,
        'fragments', (select count(*) from beliefdb.fragment f where f.workspace_id = v_ws and f.id = any(v_gone)),
        'beliefs', cardinality(v_beliefs),
        'evidence', (select count(*) from beliefdb.evidence e
                      where e.workspace_id = v_ws and (e.belief_id = any(v_gone) or e.fragment_id = any(v_gone))),
        'embeddings', (select count(*) from beliefdb.belief_embedding m
                        where m.workspace_id = v_ws and m.belief_id = any(v_gone)));

    -- reasons that cite anything forgotten go with it (a reason never outlives an antecedent)
    with gone_reason as (
        delete from beliefdb.justification j
         where j.workspace_id = v_ws
           and exists (select from beliefdb.justification_antecedent a
                        where a.workspace_id = j.workspace_id and a.justification_id = j.id and a.antecedent = any(v_gone))
        returning j.consequent
    ), counted as (
        -- (a decision keeps the count of its reasons forgotten: nothing else would say it had them)
        update beliefdb.decision d set forgotten_reasons = d.forgotten_reasons + g.n
          from (select g.consequent, count(*) as n from gone_reason g group by g.consequent) g
         where d.workspace_id = v_ws and d.id = g.consequent
    )
    select array(select distinct g.consequent from gone_reason g where not (g.consequent = any(v_gone)))
      into v_consequents;
    -- what a forgotten belief superseded or was in conflict with stands on its own again
    v_consequents := v_consequents || array(
        select case when r.from_belief = any(v_gone) then r.to_belief else r.from_belief end
          from beliefdb.relation r
         where r.workspace_id = v_ws and r.kind in ('supersedes', 'conflicts_with')
           and (r.from_belief = any(v_gone)) <> (r.to_belief = any(v_gone)));
    perform beliefdb._note_changes(v_ws, v_gone || v_consequents);
    -- a step whose every reason cited something forgotten was fed, not given: rule 2 takes as given
    -- only a step nothing was recorded as feeding, so it does not become a premise (and bring back
    -- what it wrote); it is retracted, with why
    update beliefdb.node n
       set retracted_at = beliefdb.clock(), retraction_reason = 'what it was recorded as using was forgotten'
      from beliefdb.step s
     where n.workspace_id = v_ws and n.id = any(v_consequents) and n.retracted_at is null
       and s.workspace_id = n.workspace_id and s.id = n.id and s.kind <> 'user_input'
       and not exists (select from beliefdb.justification j where j.workspace_id = v_ws and j.consequent = n.id);
    -- the approved proposal a correction that goes was applied from: its reason and proposal hold the
    -- same words (it names the belief corrected, which stays, so nothing cascades to it)
    delete from beliefdb.review_item r
     using beliefdb.correction c
     where c.workspace_id = v_ws and c.id = any(v_gone)
       and r.workspace_id = v_ws and r.kind = 'correction_proposed' and r.status = 'approved'
       and r.node = c.belief_id and (r.proposal ->> 'revision')::integer = c.belief_revision
       and r.proposal ->> 'statement' = c.new_statement
       and (r.proposal ->> 'value') is not distinct from c.new_value;
    delete from beliefdb.node n where n.workspace_id = v_ws and n.id = any(v_gone);
    -- a retraction (or restore) proposed of a fragment that went asks about nothing now: closed, as one
    -- of a fragment gone by a new text is (beliefdb._settle_source_items); its proposer's reason stays
    -- as typed. (Left open, it named the fragment forgotten in its owner's queue, and approved did
    -- nothing.) Read from the open items (their key names no fragment: the proposal does)
    update beliefdb.review_item r
       set status = 'closed', resolved_at = beliefdb.clock(), resolved_by = 'beliefdb',
           note = 'settled: the fragment was forgotten'
     where r.workspace_id = v_ws and r.status = 'open' and r.kind = 'retraction_proposed'
       and r.proposal ->> 'target' = 'node' and (r.proposal ->> 'node')::uuid = any(v_gone);
    -- (the reasons their retractions gave go from the audit chain with them: of the nodes, of the source,
    -- and of its versions, which a retraction may name by their ids)
    perform beliefdb._audit_redact_retractions(v_gone || v_hidden || v_hidden_versions
                                               || case when p_target = 'source' then p_id || v_version_ids
                                                       else '{}' end);
    if p_target = 'source' then
        delete from beliefdb.source s where s.workspace_id = v_ws and s.id = p_id;
        perform beliefdb._audit_redact_source(v_name);
        v_cleared := beliefdb._forget_jobs(v_ws, v_name);
    end if;
    -- the sources of the corrections that went, as a forgotten source goes (not masked below: deleted)
    for v_hidden_name in
        delete from beliefdb.source s where s.workspace_id = v_ws and s.id = any(v_hidden) returning s.name
    loop
        perform beliefdb._audit_redact_source(v_hidden_name);
        v_cleared := v_cleared + beliefdb._forget_jobs(v_ws, v_hidden_name);
    end loop;
    -- the forgotten turns and quotes, masked in the stored versions (each span recorded with why)
    for v_version in
        select m.version, m.reason, array_agg(m.span) as spans
          from (select t.version, t.span, 'forgotten subject' as reason
                  from unnest(v_turn_version, v_turn_span) t (version, span)
                union all
                select q.version, q.span, case p_target when 'subject' then 'forgotten subject'
                                                        else 'forgotten belief' end
                  from unnest(v_mask_version, v_mask_span) q (version, span)) m
         where not (m.version = any(v_hidden_versions))
         group by m.version, m.reason
    loop
        v_redacted := v_redacted + beliefdb._redact_spans(v_ws, v_version.version, v_version.spans, v_version.reason);
    end loop;
    -- where the name is still written in the stored texts once those are masked (listed; with
    -- p_mask_mentions, masked too): not looked for in the check of a preview's fingerprint, unless it
    -- masks (what it masks is counted in redacted, which the fingerprint counts)
    if p_target = 'subject' and (v_listed or coalesce(p_mask_mentions, false)) then
        v_in_text := beliefdb._text_mentions(v_ws, v_names, coalesce(p_mask_mentions, false));
        v_redacted := v_redacted + (v_in_text ->> 'redacted')::integer;
        -- (and the speakers whose label names it: listed, their turns kept; masked in the label with it)
        v_labels := beliefdb._speaker_mentions(v_ws, v_names, coalesce(p_mask_mentions, false), 100,
                                               coalesce(p_speakers, '{}'));
    end if;
    -- (each job and proposal masked, counted once in the report)
    if cardinality(v_turn_text) > 0 then
        v_pending := v_pending || beliefdb._redact_pending(v_ws, v_turn_sources, v_turn_text, true);
    end if;
    if p_target = 'subject' and cardinality(p_speakers) > 0 then
        v_pending := v_pending || beliefdb._redact_pending_speakers(v_ws, p_speakers);
    end if;
    -- (the quotes in the texts waiting for the sources the acting principal may mask; in those of
    -- another's source, in their own queued texts alone, which mask nothing of the owner's)
    if cardinality(v_quotes) > 0 then
        v_pending := v_pending || beliefdb._redact_pending(v_ws, v_own_sources, v_quotes, false, coalesce(p_speakers, '{}'),
                                                           v_quoted_turns, v_kept_quotes);
        if cardinality(v_sources) > cardinality(v_own_sources) then
            v_pending := v_pending || beliefdb._redact_pending(
                v_ws, array(select x from unnest(v_sources) x where not (x = any(v_own_sources))), v_quotes, false,
                coalesce(p_speakers, '{}'), v_quoted_turns, v_kept_quotes, v_principal);
        end if;
    end if;
    -- where the name is written in the texts waiting to be stored once those are masked (listed; with
    -- p_mask_mentions, masked too, and counted with the jobs and proposals masked)
    if p_target = 'subject' and (v_listed or coalesce(p_mask_mentions, false)) then
        v_waiting := beliefdb._pending_mentions(v_ws, v_names, coalesce(p_mask_mentions, false));
        v_pending := v_pending || (v_waiting - 'mentions' - 'labels_masked');
    end if;
    perform beliefdb._unhash_proposals(v_ws, array(
        select distinct x.id::uuid from unnest(v_pending) p cross join lateral jsonb_array_elements_text(p -> 'proposals') x (id)));
    if cardinality(v_consequents) > 0 then
        v_changes := beliefdb.propagate(v_ws, v_consequents);
    else
        v_changes := beliefdb._changes(v_ws);
    end if;
    v_result := v_result || jsonb_build_object(
        'redacted', v_redacted,
        -- (what people typed about a forgotten subject: named, not rewritten; not looked for in the
        -- preview that forget(expect=...) takes again under the lock only for its fingerprint, which
        -- does not count them: beliefdb.forget_mentions set to off there, for that preview alone)
        -- (and where the stored source texts still name it, or named it before it was masked there:
        -- kind text, after the rest; the speakers whose label names it: kind speaker; then the texts
        -- waiting to be stored: kind queued, proposed)
        'mentions', case when p_target = 'subject' and v_listed
                         then beliefdb._forget_mentions(v_ws, v_names, 100, p_subject) || (v_in_text -> 'mentions')
                              || (v_labels -> 'mentions') || (v_waiting -> 'mentions')
                         else '[]' end
                    -- (the turns and quotes left in another's source: kind kept)
                    || beliefdb._kept_entries(v_ws, v_kept_version, v_kept_what, v_kept_count),
        'jobs', v_cleared + (select count(distinct x.id) from unnest(v_pending) p
                              cross join lateral jsonb_array_elements_text(p -> 'jobs') x (id)),
        'proposals', (select count(distinct x.id) from unnest(v_pending) p
                       cross join lateral jsonb_array_elements_text(p -> 'proposals') x (id)),
        -- (the turns whose speaker's label names it, masked there with p_mask_mentions: stored, and
        -- waiting to be stored; a preview's fingerprint counts them)
        'labels_masked', (v_labels ->> 'labels_masked')::integer + coalesce((v_waiting ->> 'labels_masked')::integer, 0),
        'would_flag', v_changes -> 'flagged',  -- (the preview's name for it)
        'flagged', v_changes -> 'flagged', 'held', v_changes -> 'held', 'changes', v_changes);
    -- (an eraser's forgetting of what others owned says so: who erased, whose it was)
    perform beliefdb._audit('forget', jsonb_build_object(
        'target', p_target,
        -- (its sha256, which _audit_append keys to the event as hmac_sha256: a list of names does not
        -- reverse it, nor does another forget of a guessed name, whose event has another salt)
        'name_sha256', encode(sha256(convert_to(coalesce(v_name, p_subject, p_id::text), 'UTF8')), 'hex'),
        'beliefs', cardinality(v_beliefs), 'fragments', v_result -> 'fragments', 'redacted', v_redacted,
        'flagged', v_changes -> 'flagged',
        -- (the texts waiting to be stored it changed, as the report counts them: the queued, failed or
        -- done jobs and the proposed versions whose text or turns it masked, the jobs of a forgotten
        -- source it cleared)
        'jobs', v_result -> 'jobs', 'proposals', v_result -> 'proposals')
        -- (the spans masked where others wrote the name, with --mask-mentions: counted in redacted too)
        -- (and the turns whose speaker's label names it, masked there: stored, and waiting to be stored)
        || case when coalesce(p_mask_mentions, false)
                then jsonb_build_object('mentions_masked', (v_in_text ->> 'redacted')::integer,
                                        'labels_masked', v_result -> 'labels_masked')
                else '{}'::jsonb end
        || case when cardinality(v_owners) > 0
                then jsonb_build_object('eraser', session_user::text, 'owners', to_jsonb(v_owners))
                else '{}'::jsonb end);
    return v_result;
end
$$;
comment on function beliefdb._forget_core(uuid, text, uuid, text, text[], boolean) is 'The change of forget: deletions, redactions, propagation and audit (forget checks and previews)';

-- Forgetting a source takes its text out of the queue too (rule 14 of docs/rules.md): every job of
-- it keeps no payload but the mark that it was forgotten (no text, name, path or options), a
-- done job's result no longer names it, and an error recorded for it (which may quote the text)
-- is replaced. A queued job of it will not run (it would bring the source back): it is failed. A
-- job a worker holds at this moment is skipped (waiting for it could deadlock with the worker,
-- which waits for the workspace lock forget holds): it ingests once forget commits, as a job
-- submitted after it would. How many jobs were cleared.
create or replace function beliefdb._forget_jobs(p_workspace_id uuid, p_name text) returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_cleared integer;
begin
    with mine as (
        select j.id
          from beliefdb.job j
         where j.workspace_id = p_workspace_id and j.payload ->> 'source' = p_name and j.status <> 'running'
           for no key update skip locked
    )
    update beliefdb.job j
       set payload = '{"forgotten": true}',
           result = j.result - 'source' - 'note',
           status = case when j.status = 'queued' then 'failed' else j.status end,
           finished_at = case when j.status = 'queued' then pg_catalog.clock_timestamp() else j.finished_at end,
           -- (a queued job waiting for its backoff is failed for good: tried no more)
           run_after = case when j.status = 'queued' then least(j.run_after, pg_catalog.clock_timestamp())
                            else j.run_after end,
           last_error = case when j.status = 'queued' or j.last_error is not null
                             then 'its source was forgotten: its text and name were cleared' end
      from mine
     where j.workspace_id = p_workspace_id and j.id = mine.id;
    get diagnostics v_cleared = row_count;
    return v_cleared;
end
$$;
comment on function beliefdb._forget_jobs(uuid, text) is 'Clear the queue of a forgotten source: payloads, results naming it, errors; its queued jobs failed (rule 14)';

-- A text with the given character spans ([start, end), 0-based) replaced by as many U+2588 as
-- they are long: the text of a redacted source version, whose other offsets stay valid. (The text
-- as an array of characters, each span written into it: thousands of spans over a long conversation
-- cost one pass, where overlaying each span in turn rewrote the whole text each time.)
create or replace function beliefdb._masked(p_text text, p_spans int4range[]) returns text
language plpgsql immutable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_chars text[];
    v_span int4range;
    v_i integer;
begin
    if p_text is null or coalesce(cardinality(p_spans), 0) = 0 then
        return p_text;
    end if;
    v_chars := string_to_array(p_text, null);
    foreach v_span in array p_spans loop
        for v_i in greatest(lower(v_span), 0) + 1 .. least(upper(v_span), cardinality(v_chars)) loop
            v_chars[v_i] := U&'\2588';
        end loop;
    end loop;
    return array_to_string(v_chars, '');
end
$$;
comment on function beliefdb._masked(text, int4range[]) is 'A text with character spans replaced by as many U+2588 (same length: other offsets stay valid)';

-- An excerpt of a text around the first of some spans (in text order): up to 30 characters either side,
-- every span in it masked, line breaks as spaces, clipped with "…".
create or replace function beliefdb._mention_excerpt(p_text text, p_spans int4range[]) returns text
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select case when c.a > 0 then '…' else '' end
           || replace(beliefdb._masked(substr(p_text, c.a + 1, c.b - c.a),
                                       array(select int4range(greatest(lower(x), c.a) - c.a, least(upper(x), c.b) - c.a)
                                               from unnest(p_spans) x
                                              where x && int4range(c.a, c.b))), E'\n', ' ')
           || case when c.b < length(p_text) then '…' else '' end
      from (select greatest(lower(p_spans[1]) - 30, 0) as a, least(upper(p_spans[1]) + 30, length(p_text)) as b) c
$$;
comment on function beliefdb._mention_excerpt(text, int4range[]) is 'Up to 30 characters either side of the first of some spans of a text, every span in it masked, clipped with "…"';

-- The spans of a source version masked when something in it was forgotten, in text order.
create or replace function beliefdb._forgotten_spans(p_workspace_id uuid, p_version uuid) returns int4range[]
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(array_agg(int4range(r.start_offset, r.end_offset) order by r.start_offset, r.end_offset), '{}')
      from beliefdb.redaction r
     where r.workspace_id = p_workspace_id and r.source_version_id = p_version
$$;
comment on function beliefdb._forgotten_spans(uuid, uuid) is 'The spans of a source version masked by forget, in text order';

-- The latest version of a source that a forget masked and that p_text is but for its masked spans,
-- whatever p_text has there (null: none). Its sha256 is of its masked text (beliefdb._redact_spans),
-- so the text it was stored from is no longer found by its digest. Asked for a principal other than
-- the source's owner (beliefdb._ingest_text, _ingest_version_core): whatever the words in those spans,
-- so that one who may not see them learns nothing of them by sending a guess, the right and a wrong one
-- both being this version (the owner's text is that version only with the forgotten words themselves).
create or replace function beliefdb._same_but_forgotten(p_workspace_id uuid, p_source_id uuid, p_text text)
returns uuid
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select v.id
      from beliefdb.source_version v
     where v.workspace_id = p_workspace_id and v.source_id = p_source_id
       and exists (select from beliefdb.redaction r where r.workspace_id = v.workspace_id and r.source_version_id = v.id)
       and length(v.content) = length(p_text)
       and v.content = beliefdb._masked(p_text, beliefdb._forgotten_spans(p_workspace_id, v.id))
     order by v.version desc
     limit 1
$$;
comment on function beliefdb._same_but_forgotten(uuid, uuid, text) is 'The latest masked version of a source that a text is but for its masked spans, whatever it has there (null: none)';

-- The version of a source a text is, if it is one (null: none): the latest with its sha256; else, where a
-- forget masked a version of the source (its sha256 then of its masked text), for the source's owner the
-- latest version that is the text with its forgotten lines masked as they were there, word for word
-- (beliefdb._forgotten_lines: the same words, recognised where they come back, rule 14), and for
-- another principal the latest that the text is but for its masked spans, whatever it has there
-- (_same_but_forgotten: a right guess of the forgotten words and a wrong one get the same answer).
create or replace function beliefdb._same_text_version(p_workspace_id uuid, p_source_id uuid, p_text text,
                                                       p_sha256 bytea)
returns uuid
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_id uuid;
    v_masks int4range[];
begin
    select v.id into v_id
      from beliefdb.source_version v
     where v.workspace_id = p_workspace_id and v.source_id = p_source_id and v.sha256 = p_sha256
     order by v.version desc
     limit 1;
    if v_id is not null or not exists (select from beliefdb.source_version v
                                         join beliefdb.redaction r
                                           on r.workspace_id = v.workspace_id and r.source_version_id = v.id
                                        where v.workspace_id = p_workspace_id and v.source_id = p_source_id) then
        return v_id;
    end if;
    if (select s.owner from beliefdb.source s where s.workspace_id = p_workspace_id and s.id = p_source_id)
       is distinct from beliefdb.current_principal() then
        return beliefdb._same_but_forgotten(p_workspace_id, p_source_id, p_text);
    end if;
    v_masks := beliefdb._forgotten_lines(p_workspace_id, p_source_id, p_text);
    if cardinality(v_masks) = 0 then
        return null;
    end if;
    select v.id into v_id
      from beliefdb.source_version v
     where v.workspace_id = p_workspace_id and v.source_id = p_source_id
       and v.sha256 = sha256(convert_to(beliefdb._masked(p_text, v_masks), 'UTF8'))
     order by v.version desc
     limit 1;
    return v_id;
end
$$;
comment on function beliefdb._same_text_version(uuid, uuid, text, bytea) is 'The version of a source a text is (its sha256; where a forget masked one, for the owner word for word, for another principal whatever it has in the masked spans), or null';

-- The spans forgotten in version p_version that p_text, ingested as a new version of its source,
-- would bring back: those within p_text, when p_text agrees with the version's text outside them
-- over the length of the shorter of the two (the same text again, or an earlier or later export of
-- the same conversation or document); null when it does not agree, or nothing was forgotten there.
create or replace function beliefdb._forgotten_in(p_workspace_id uuid, p_version uuid, p_text text)
returns int4range[]
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select array(select s * int4range(0, length(p_text)) from unnest(x.spans) s
                  where s && int4range(0, length(p_text)) order by lower(s))
      from (select v.content, beliefdb._forgotten_spans(p_workspace_id, p_version) as spans,
                   least(length(p_text), length(v.content)) as n
              from beliefdb.source_version v
             where v.workspace_id = p_workspace_id and v.id = p_version) x
     where cardinality(x.spans) > 0
       and beliefdb._masked(left(p_text, x.n), x.spans) = left(x.content, x.n)
$$;
comment on function beliefdb._forgotten_in(uuid, uuid, text) is 'The forgotten spans of a version that a text agreeing with it elsewhere would bring back (null: it does not agree)';

-- Whether p_text begins with the text of version p_version (as stored, masked where something was
-- forgotten) but for its masked spans, which are never compared: the same text ingested again after
-- a forget, or grown at its end, is that version's text and not a new one (rules 14 and 18). A
-- longer p_text must go on with a new line (a conversation grows by lines: its last turn unchanged).
create or replace function beliefdb._extends_version(p_workspace_id uuid, p_version uuid, p_text text)
returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select length(p_text) >= length(v.content)
       and (length(p_text) = length(v.content) or substr(p_text, length(v.content) + 1, 1) = E'\n')
       and (left(p_text, length(v.content)) = v.content
            or beliefdb._forgotten_in(p_workspace_id, p_version, p_text) is not null)
      from beliefdb.source_version v
     where v.workspace_id = p_workspace_id and v.id = p_version
$$;
comment on function beliefdb._extends_version(uuid, uuid, text) is 'Whether a text is a version''s text (but for its forgotten spans), or that text grown by lines at its end';

-- Whether a claim or fragment (jsonb with start and end offsets) lies over some spans, given as
-- their union (a multirange, made once for many items: `&& any` over an array read every span for
-- each item, 8,000 claims of a conversation 4,000 of whose turns were forgotten, 64 million
-- comparisons); one without sound offsets does not (the gate rejects it with its own reason).
-- (the signatures before: the spans as an array, and the union under another name)
drop function if exists beliefdb._over_spans(jsonb, int4range[]);
drop function if exists beliefdb._over_span_union(jsonb, int4multirange);
create or replace function beliefdb._over_spans(p_item jsonb, p_spans int4multirange) returns boolean
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select case when (p_item ->> 'start')::integer < (p_item ->> 'end')::integer
                then int4range((p_item ->> 'start')::integer, (p_item ->> 'end')::integer) && p_spans
                else false end
$$;
comment on function beliefdb._over_spans(jsonb, int4multirange) is 'Whether a claim or fragment (start, end) lies over a union of spans';

-- p_claims less those that quote text of version p_version that can support no new claim, and
-- p_rejected with those added, saying why: text forgotten there (a masked span: a text ingested
-- again after a forget brings none of it back as a belief, rule 14), and text retracted there (a
-- retracted fragment, in whole or in part: those words were declared untrustworthy, and a new quote
-- of them is no new evidence, rule 18) but for a claim recorded from that very fragment before (the
-- same text again: unchanged). The version's retracted fragments are read from the workspace's open
-- retraction periods (usually none).
create or replace function beliefdb._believable(p_workspace_id uuid, p_version uuid, p_claims jsonb,
                                                p_rejected jsonb, out claims jsonb, out rejected jsonb)
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    with s as (
        -- (their union, made once: beliefdb._over_spans)
        select coalesce(range_agg(x.span), '{}'::int4multirange) as spans
          from unnest(beliefdb._forgotten_spans(p_workspace_id, p_version)) as x (span)
    ), r as materialized (
        -- (once, not per claim: the open retractions of the workspace, each fragment probed by its
        -- key, lateral behind offset 0; inlined into each claim's subquery, or joined by a plan made
        -- while the tables were small, it read the version's fragments per claim, 1,000 claims 6 s)
        select int4range(f.start_offset, f.end_offset) as span, p.reason
          from beliefdb.retraction_period p
         cross join lateral (select f.start_offset, f.end_offset
                               from beliefdb.fragment f
                              where f.workspace_id = p.workspace_id and f.id = p.node_id
                                and f.source_version_id = p_version
                             offset 0) f
         where p.workspace_id = p_workspace_id and p.node_id is not null and p.restored_at is null
    ), c as (
        select x.claim, x.n,
               case when beliefdb._over_spans(x.claim, s.spans)
                    then 'forgotten: this text of the source was forgotten, and is not stored again'
                    -- (a text masked while it waited in the queue, stored since: its masks are no value;
                    -- one with a letter or digit besides, a progress bar's, is read as any other)
                    when x.claim ->> 'value' ~ '██' and x.claim ->> 'value' !~ '[[:alnum:]]'
                    then 'forgotten: its value is text a forget masked (█), not a value'
                    else (select 'retracted: this text of the source was retracted'
                                 || coalesce(' (' || nullif(r.reason, '') || ')', '')
                                 || ', so it supports nothing (undo the fragment''s retraction to restore it)'
                            from r
                           where beliefdb._over_spans(x.claim, r.span::int4multirange)
                             and not exists (
                                  select from beliefdb.fragment q
                                    join beliefdb.evidence e on e.workspace_id = q.workspace_id and e.fragment_id = q.id
                                    join beliefdb.belief b on b.workspace_id = e.workspace_id and b.id = e.belief_id
                                   where q.workspace_id = p_workspace_id and q.source_version_id = p_version
                                     and q.start_offset = (x.claim ->> 'start')::integer
                                     and q.end_offset = (x.claim ->> 'end')::integer
                                     and b.subject = x.claim ->> 'subject' and b.attribute = x.claim ->> 'attribute'
                                     and b.value = x.claim ->> 'value')
                           limit 1) end as why
          from s, jsonb_array_elements(coalesce(p_claims, '[]')) with ordinality as x (claim, n)
    )
    select coalesce(jsonb_agg(c.claim order by c.n) filter (where c.why is null), '[]'),
           coalesce(p_rejected, '[]') || coalesce(jsonb_agg(jsonb_build_object(
               'statement', c.claim ->> 'statement', 'quote', c.claim ->> 'quote', 'reason', c.why)
               order by c.n) filter (where c.why is not null), '[]')
      from c
$$;
comment on function beliefdb._believable(uuid, uuid, jsonb, jsonb) is 'Claims less those over text of a version forgotten or retracted (but for a claim recorded from that fragment before), and those as rejections saying why';
-- (forgotten text alone, before retracted text was refused the same way)
drop function if exists beliefdb._unforgotten(uuid, uuid, jsonb, jsonb);

-- The spans a forgotten speaker's turns take in their source versions: each turn's text, and its
-- speaker's name in the line that labels it ("[time] Maya: ", "**Maya:** ": the last occurrence
-- of the name before the turn, within the 260 characters a label may take; a name that is also in
-- the time is not masked there). Each version's text is read once, as an array of characters.
create or replace function beliefdb._turn_spans(p_workspace_id uuid, p_turns uuid[])
returns table (version uuid, span int4range)
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_version record;
    v_turn record;
    v_chars text[];
    v_at integer;
    v_head text;
    v_i integer;
    v_label int4range;
begin
    for v_version in
        select v.id, v.content from beliefdb.source_version v
         where v.workspace_id = p_workspace_id
           and v.id in (select f.source_version_id from beliefdb.fragment f
                         where f.workspace_id = p_workspace_id and f.id = any(p_turns))
    loop
        v_chars := string_to_array(v_version.content, null);
        for v_turn in
            select f.start_offset, f.end_offset, f.speaker from beliefdb.fragment f
             where f.workspace_id = p_workspace_id and f.source_version_id = v_version.id and f.id = any(p_turns)
        loop
            version := v_version.id;
            span := int4range(v_turn.start_offset, v_turn.end_offset);
            return next;
            -- back from the turn to the start of its line
            v_at := v_turn.start_offset;
            while v_at > 0 and v_at > v_turn.start_offset - 260 and v_chars[v_at] <> E'\n' loop
                v_at := v_at - 1;
            end loop;
            v_head := '';
            for v_i in v_at + 1 .. v_turn.start_offset loop
                v_head := v_head || v_chars[v_i];
            end loop;
            select o into v_label
              from unnest(beliefdb._occurrences(v_head, array[v_turn.speaker])) o
             order by lower(o) desc
             limit 1;
            if v_label is not null then
                span := int4range(v_at + lower(v_label), v_at + upper(v_label));
                return next;
            end if;
        end loop;
    end loop;
end
$$;
comment on function beliefdb._turn_spans(uuid, uuid[]) is 'The spans of some turns in their source versions: each turn''s text and its speaker''s name in the line that labels it';

-- Every span of a text where one of the quotes occurs (overlapping occurrences included), quote by
-- quote, each in the order of the text. A quote that cannot overlap itself (no proper prefix of it is
-- also its suffix: a sentence) occurs where the text splits at it, found in one pass; one that can
-- ("aa" in "aaa") is looked for again from each occurrence's second character. (Each search from an
-- occurrence copied the rest of the text: a sentence repeated 10,000 times in a text took 12 s.)
create or replace function beliefdb._occurrences(p_text text, p_quotes text[]) returns int4range[]
language plpgsql immutable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_quote text;
    v_at integer;
    v_from integer;
    v_spans int4range[] := '{}';
begin
    foreach v_quote in array coalesce(p_quotes, '{}') loop
        continue when v_quote is null or v_quote = '' or p_text is null;
        if not exists (select from generate_series(1, length(v_quote) - 1) k
                        where left(v_quote, k) = right(v_quote, k)) then
            v_spans := v_spans || array(
                select int4range(s.at::integer, s.at::integer + length(v_quote))
                  from (select p.n, count(*) over () as pieces,
                               sum(length(p.piece)) over (order by p.n) + (p.n - 1) * length(v_quote) as at
                          from unnest(string_to_array(p_text, v_quote)) with ordinality as p (piece, n)) s
                 where s.n < s.pieces
                 order by s.n);
            continue;
        end if;
        v_from := 1;
        loop
            v_at := strpos(substr(p_text, v_from), v_quote);
            exit when v_at = 0;
            v_spans := v_spans || int4range(v_from + v_at - 2, v_from + v_at - 2 + length(v_quote));
            v_from := v_from + v_at;
        end loop;
    end loop;
    return v_spans;
end
$$;
comment on function beliefdb._occurrences(text, text[]) is 'Every character span [start, end) of a text where one of some quotes occurs';

-- Proposals a forget masked (p_items): their reason quotes no digest of their text (one proposed before
-- revision 0050 quoted the first 48 bits of its sha256), and their version.propose events written before
-- 0050, which recorded the plain sha256 of the text, keep their hashes only (rule 14: a digest of the
-- words as they were would confirm a guess of them). Found by the index audit_event_plain_digest.
create or replace function beliefdb._unhash_proposals(p_workspace_id uuid, p_items uuid[]) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if cardinality(p_items) = 0 then
        return;
    end if;
    update beliefdb.review_item r set reason = regexp_replace(r.reason, ' \(sha256 [0-9a-f]{12}\)', '')
     where r.workspace_id = p_workspace_id and r.id = any(p_items) and r.reason ~ ' \(sha256 [0-9a-f]{12}\)';
    update beliefdb.audit_event e set payload = null
      from beliefdb.review_item r
      join beliefdb.source s on s.workspace_id = r.workspace_id and s.id = r.source_id
     where r.workspace_id = p_workspace_id and r.id = any(p_items)
       and e.workspace_id = p_workspace_id and e.payload ? 'sha256' and e.action in ('ingest', 'version.propose')
       and e.payload ->> 'source' = s.name and e.action = 'version.propose' and e.payload ->> 'item' = r.id::text;
end
$$;
comment on function beliefdb._unhash_proposals(uuid, uuid[]) is 'Take the digests of their text out of masked proposals'' reasons and of their events from before revision 0050';

-- Mask some character spans of one source version: its text, the fragments over them and their
-- evidence all change together, each span recorded in beliefdb.redaction, a piece for each line it
-- crosses (beliefdb._line_units), with its line and a keyed digest of that line's words before they are
-- masked (beliefdb._line_digest; a line masked before keeps the digest it was given then, of its words
-- as they were; an empty line none), so that the same line back in a text of the source is masked again
-- (beliefdb._forgotten_lines). Returns how many spans were masked (as given, not pieces).
create or replace function beliefdb._redact_spans(p_workspace_id uuid, p_version uuid, p_spans int4range[],
                                                 p_reason text) returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_content text;
    v_source text;
    v_pieces int4range[];
    v_starts integer[];
    v_lengths integer[];
    v_pads bytea[];
begin
    if cardinality(p_spans) = 0 then
        return 0;
    end if;
    select v.content, s.name into v_content, v_source
      from beliefdb.source_version v
      join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
     where v.workspace_id = p_workspace_id and v.id = p_version;
    select array_agg(u.span), array_agg(u.line_start), array_agg(u.line_length)
      into v_pieces, v_starts, v_lengths
      from beliefdb._line_units(v_content, p_spans) u;
    v_pads := beliefdb._hmac_pads(beliefdb._audit_key(p_workspace_id));
    -- (the lines' words read in one pass, beliefdb._slices; a line's digest given before read once)
    -- (a line masked before keeps its digest and salt; a new one has a salt of its own)
    with o as (
        select distinct on (r.line_start, r.line_length) r.line_start, r.line_length, r.line_digest, r.line_salt
          from beliefdb.redaction r
         where r.workspace_id = p_workspace_id and r.source_version_id = p_version and r.line_digest is not null
    ), l as (
        select x.span, x.s, x.n, x.words, o.line_digest,
               case when o.line_digest is not null then o.line_salt when x.n > 0 then beliefdb._salt() end as salt
          from unnest(v_pieces, v_starts, v_lengths,
                      beliefdb._slices(v_content, v_starts, array(select a + b from unnest(v_starts, v_lengths) t (a, b))))
               as x (span, s, n, words)
          left join o on o.line_start = x.s and o.line_length = x.n
    )
    insert into beliefdb.redaction (workspace_id, source_version_id, start_offset, end_offset, reason,
                                    line_start, line_length, line_digest, line_salt)
    select p_workspace_id, p_version, lower(l.span), upper(l.span), p_reason,
           case when l.n > 0 then l.s end, case when l.n > 0 then l.n end,
           case when l.n > 0 then coalesce(l.line_digest, beliefdb._salted_line_digest(
                                      v_pads, l.salt, beliefdb._source_line_digest(v_pads, v_source, l.words))) end,
           case when l.n > 0 then l.salt end
      from l;
    -- (its sha256 then of the masked text: one of the words as they were would confirm a guess of them)
    update beliefdb.source_version v
       set content = beliefdb._masked(v.content, p_spans),
           sha256 = sha256(convert_to(beliefdb._masked(v.content, p_spans), 'UTF8'))
     where v.workspace_id = p_workspace_id and v.id = p_version;
    -- and for the same reason the events of the source written before revision 0050, which recorded
    -- a text's plain sha256 (an ingest of this version, a version proposed for the source), keep their
    -- hashes only, as an event naming a forgotten source does (later events record it keyed)
    update beliefdb.audit_event e set payload = null
      from beliefdb.source_version v
      join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
     where v.workspace_id = p_workspace_id and v.id = p_version
       and e.workspace_id = p_workspace_id and e.payload ? 'sha256' and e.action in ('ingest', 'version.propose')
       and e.payload ->> 'source' = s.name
       and (e.action = 'version.propose' or e.payload -> 'version' = to_jsonb(v.version));
    -- every fragment over a masked span, then the evidence quoting it (over the spans' union, one
    -- multirange made once: `&& any(p_spans)` compared every fragment of the version with every span,
    -- 4,000 turns of a conversation of 8,000 forgotten, 32 million comparisons, 0.9 s)
    update beliefdb.fragment f
       set text = substr(v.content, f.start_offset + 1, f.end_offset - f.start_offset)
      from beliefdb.source_version v
     where f.workspace_id = p_workspace_id and f.source_version_id = p_version
       and v.workspace_id = f.workspace_id and v.id = f.source_version_id
       and int4range(f.start_offset, f.end_offset) && (select range_agg(x.span) from unnest(p_spans) as x (span));
    update beliefdb.evidence e
       set quote = f.text
      from beliefdb.fragment f
     where e.workspace_id = p_workspace_id and f.workspace_id = e.workspace_id and f.id = e.fragment_id
       and f.source_version_id = p_version and e.quote <> f.text;
    return cardinality(p_spans);
end
$$;
comment on function beliefdb._redact_spans(uuid, uuid, int4range[], text) is 'Mask character spans of a source version, its fragments and evidence; record the spans';

-- The spans to mask of some turn lines found in a text ("Speaker: text", "**Speaker:** text"): the
-- speaker's name and the turn's words, not the marks between them, as a conversation's version masks
-- them (beliefdb._turn_spans), so a text masked here agrees with the version it would grow.
create or replace function beliefdb._line_masks(p_text text, p_lines int4range[]) returns int4range[]
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(array_agg(m order by lower(m)), '{}')
      from (select l.span, l.line, case when left(l.line, 2) = '**' then 2 else 0 end as head,
                   strpos(l.line, ':') - 1 as colon
              from unnest(p_lines, beliefdb._slices(p_text, array(select lower(x) from unnest(p_lines) x),
                                                    array(select upper(x) from unnest(p_lines) x))) as l (span, line)) x
      cross join lateral unnest(array[
          int4range(lower(x.span) + x.head, lower(x.span) + greatest(x.colon, x.head)),
          int4range(least(lower(x.span) + x.colon + case when x.head = 2 then 4 else 2 end, upper(x.span)),
                    upper(x.span))]) m
     where x.colon > 0 and not isempty(m)
$$;
comment on function beliefdb._line_masks(text, int4range[]) is 'Of turn lines found in a text: the spans of their speaker''s name and words, not the marks between';

-- Of the spans where forgotten words occur in a text waiting to be stored (a proposal, a queued
-- job), those to mask: not those within an occurrence of another belief's quote that stays (p_kept);
-- and, when p_speakers is given, not those within a turn of the text (p_turns: {start, end,
-- speaker, time}) of a speaker not in p_speakers, unless that turn, by speaker, time and words, is
-- one a forgotten belief quotes (p_quoted_turns: {speaker, time, text}). Another speaker who said
-- the same words said their own, and another belief quotes its own, as in the stored versions (rule 14).
create or replace function beliefdb._unkept(p_text text, p_turns jsonb, p_spans int4range[], p_speakers text[],
                                            p_quoted_turns jsonb, p_kept text[] default '{}') returns int4range[]
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    -- (the kept quotes' occurrences found once, not for each span)
    with kept as materialized (
        select k from unnest(beliefdb._occurrences(p_text, p_kept)) k
    )
    select coalesce(array_agg(o order by lower(o), upper(o)), '{}')
      from unnest(p_spans) o
     where not exists (select from kept where kept.k @> o)
       and (p_speakers is null
        or not exists (
            select from jsonb_array_elements(case when jsonb_typeof(p_turns) = 'array' then p_turns else '[]' end) t
             where t ->> 'speaker' is not null and not (t ->> 'speaker' = any(p_speakers))
               and int4range((t ->> 'start')::integer, (t ->> 'end')::integer) @> o
               and not exists (
                    select from jsonb_array_elements(coalesce(p_quoted_turns, '[]')) q
                     where q ->> 'speaker' = t ->> 'speaker'
                       and (q ->> 'time')::timestamptz is not distinct from (t ->> 'time')::timestamptz
                       and q ->> 'text' = substr(p_text, (t ->> 'start')::integer + 1,
                                                 (t ->> 'end')::integer - (t ->> 'start')::integer))))
$$;
comment on function beliefdb._unkept(text, jsonb, int4range[], text[], jsonb, text[]) is 'Of the spans of forgotten words in a waiting text, those to mask: not within another speaker''s turn no forgotten belief quotes, nor within another belief''s quote that stays';

-- (the signatures before another speaker's same words were kept in waiting texts)
drop function if exists beliefdb._redact_quotes(uuid, uuid[], text[], text, uuid[], int4range[]);
-- (the masks were made and applied in one function before another belief's quote over them went)
drop function if exists beliefdb._redact_quotes(uuid, uuid[], text[], text, uuid[], int4range[], text[], jsonb);
drop function if exists beliefdb._unkept(text, jsonb, int4range[], text[], jsonb);
drop function if exists beliefdb._redact_pending(uuid, uuid[], text[], boolean, text[], jsonb);
drop function if exists beliefdb._redact_pending(uuid, uuid[], text[], boolean);

-- Mask every occurrence of some texts where they wait to be stored as new versions of some sources:
-- the versions proposed for them (review items waiting for their owner), and their documents in the
-- queue (a queued version that repeats a forgotten quote would bring it back when a worker ingests
-- it; a done job keeps no text). A job a worker holds is skipped, as beliefdb._forget_jobs skips it.
-- p_turns: the texts are turn lines (beliefdb._line_masks). A proposal keeps no claim over a masked
-- span, no turn within one (its speaker), and no rejected claim that quotes or is quoted by a text.
-- p_by: only the jobs that principal queued are masked (a source another owns: their own texts for it),
-- no proposal (what it masks is recorded as theirs, as every forget's pieces are, beliefdb._record_masks:
-- it masks nothing of the owner's).
-- (it returned nothing before the forget's report counted what it masked; p_by came with revision 0050)
drop function if exists beliefdb._redact_pending(uuid, uuid[], text[], boolean, text[], jsonb, text[]);
do $$
begin
    if pg_catalog.to_regprocedure('beliefdb._redact_pending_speakers(uuid, text[])') is not null
       and (select p.prorettype from pg_catalog.pg_proc p
             where p.oid = pg_catalog.to_regprocedure('beliefdb._redact_pending_speakers(uuid, text[])'))
           = 'void'::pg_catalog.regtype then
        drop function beliefdb._redact_pending_speakers(uuid, text[]);
    end if;
end
$$;

create or replace function beliefdb._redact_pending(p_workspace_id uuid, p_sources uuid[], p_texts text[],
                                                    p_turns boolean, p_speakers text[] default null,
                                                    p_quoted_turns jsonb default '[]', p_kept text[] default '{}',
                                                    p_by text default null)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_proposals uuid[];
    v_jobs bigint[];
begin
    with found as (
        select r.id, beliefdb._unkept(r.proposal ->> 'content', r.proposal -> 'fragments',
                                      beliefdb._occurrences(r.proposal ->> 'content', p_texts), p_speakers,
                                      p_quoted_turns, p_kept) as spans
          from beliefdb.review_item r
         where r.workspace_id = p_workspace_id and r.kind = 'version_proposed' and r.source_id = any(p_sources)
           and p_by is null
    ), items as (
        select f.id, f.spans, (select range_agg(x.span) from unnest(f.spans) as x (span)) as span_union,
               case when p_turns then beliefdb._line_masks(r.proposal ->> 'content', f.spans) else f.spans end as masks
          from found f
          join beliefdb.review_item r on r.workspace_id = p_workspace_id and r.id = f.id
         where cardinality(f.spans) > 0
    ), masked as (
    update beliefdb.review_item r
       set proposal = r.proposal || jsonb_build_object(
               'content', beliefdb._masked(r.proposal ->> 'content', i.masks),
               -- (the lines it masks recorded with the proposal: beliefdb._forgotten_records)
               'forgotten_lines', beliefdb._forgotten_records(p_workspace_id, r.proposal ->> 'content',
                                                              r.proposal -> 'forgotten_lines', i.masks,
                                                              beliefdb._source_name(r.workspace_id, r.source_id)),
               'claims', (select coalesce(jsonb_agg(c.x order by c.n), '[]')
                            from jsonb_array_elements(coalesce(r.proposal -> 'claims', '[]')) with ordinality c (x, n)
                           where not beliefdb._over_spans(c.x, i.span_union)),
               'fragments', (select coalesce(jsonb_agg(f.x order by f.n), '[]')
                               from jsonb_array_elements(coalesce(r.proposal -> 'fragments', '[]')) with ordinality f (x, n)
                              where not (f.x ->> 'speaker' is not null and beliefdb._over_spans(f.x, i.span_union))),
               'rejected', (select coalesce(jsonb_agg(j.x order by j.n), '[]')
                              from jsonb_array_elements(coalesce(r.proposal -> 'rejected', '[]')) with ordinality j (x, n)
                             where not exists (select from unnest(p_texts) t
                                                where strpos(coalesce(j.x ->> 'quote', ''), t) > 0
                                                   or strpos(coalesce(j.x ->> 'statement', ''), t) > 0
                                                   or (coalesce(j.x ->> 'quote', '') <> ''
                                                       and strpos(t, j.x ->> 'quote') > 0))))
      from items i
     where r.workspace_id = p_workspace_id and r.id = i.id
    returning r.id
    )
    select coalesce(array_agg(m.id), '{}') into v_proposals from masked m;
    with waiting as (
        select j.id, beliefdb._unkept(j.payload ->> 'text', j.payload -> 'turns',
                                      beliefdb._occurrences(j.payload ->> 'text', p_texts), p_speakers,
                                      p_quoted_turns, p_kept) as spans
          from beliefdb.job j
         where j.workspace_id = p_workspace_id and j.payload ? 'text' and j.status <> 'running'
           and j.payload ->> 'source' in (select s.name from beliefdb.source s
                                            where s.workspace_id = p_workspace_id and s.id = any(p_sources))
           and (p_by is null or j.submitted_by = p_by)
           for no key update skip locked
    ), masked as (
    update beliefdb.job j
       -- (the lines it masks recorded with the job: beliefdb._masked_job)
       set payload = beliefdb._masked_job(p_workspace_id, j.payload,
               case when p_turns then beliefdb._line_masks(j.payload ->> 'text', w.spans) else w.spans end),
           last_error = beliefdb._masked_job_error(j.last_error)
      from waiting w
     where j.workspace_id = p_workspace_id and j.id = w.id and cardinality(w.spans) > 0
    returning j.id
    )
    select coalesce(array_agg(m.id), '{}') into v_jobs from masked m;
    return jsonb_build_object('jobs', to_jsonb(v_jobs), 'proposals', to_jsonb(v_proposals));
end
$$;
comment on function beliefdb._redact_pending(uuid, uuid[], text[], boolean, text[], jsonb, text[], text) is 'Mask every occurrence of some texts (quotes, or turn lines) in the versions proposed for sources, with their claims, and in their queued documents (or one principal''s alone), but within other beliefs'' quotes kept; the ids of the jobs and proposals masked';

-- The lines of a waiting text's turns (p_turns: {start, end, speaker, time}, as a conversation is
-- laid out, "Speaker: text") said by some speakers: each from its speaker's name to the turn's end.
create or replace function beliefdb._speaker_lines(p_text text, p_turns jsonb, p_speakers text[])
returns int4range[]
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(array_agg(int4range(x.label, x.e) order by x.label), '{}')
      from (select (t ->> 'start')::integer - length(t ->> 'speaker') - 2 as label, (t ->> 'end')::integer as e,
                   t ->> 'speaker' as speaker
              from jsonb_array_elements(case when jsonb_typeof(p_turns) = 'array' then p_turns else '[]' end) t
             where t ->> 'speaker' = any(p_speakers)) x
     where x.label >= 0 and substr(p_text, x.label + 1, length(x.speaker) + 2) = x.speaker || ': '
$$;
comment on function beliefdb._speaker_lines(text, jsonb, text[]) is 'The lines of some speakers'' turns in a laid-out conversation text waiting to be stored';

-- Forgetting a subject forgets every turn its speakers said in the texts waiting to be stored too, those
-- of a source not stored yet included (a conversation queued before the forget, or proposed, may be one
-- not stored yet, or grow one by new turns of theirs), where the acting principal may change them (below): each such line's name and words are masked, and the turn
-- goes (the job's turn, the proposal's fragment and its claims), so that it is stored as masked text,
-- as a forgotten turn stays in its version. A proposal already resolved keeps its text in the review
-- history: it is masked as well. A job a worker holds is skipped, as elsewhere. Only the texts the
-- acting principal may change (rule 17; an eraser's any): the jobs they queued (for a source another
-- owns, recorded as theirs: beliefdb._record_masks), and the jobs and proposals of the sources they own;
-- another's stay as they are, as the turns of another's stored conversation do (listed as kept,
-- beliefdb._forget_core).
create or replace function beliefdb._redact_pending_speakers(p_workspace_id uuid, p_speakers text[]) returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_proposals uuid[];
    v_jobs bigint[];
    v_done bigint[];
    v_principal text := beliefdb.current_principal();
    v_eraser boolean := beliefdb._is_eraser();
begin
    with found as (
        select r.id, l.lines, (select range_agg(x.span) from unnest(l.lines) as x (span)) as line_union
          from beliefdb.review_item r
         cross join lateral (select beliefdb._speaker_lines(r.proposal ->> 'content', r.proposal -> 'fragments',
                                                            p_speakers) as lines) l
         where r.workspace_id = p_workspace_id and r.kind = 'version_proposed'
           and jsonb_typeof(r.proposal -> 'fragments') = 'array'
           and exists (select from jsonb_array_elements(r.proposal -> 'fragments') f
                        where f ->> 'speaker' = any(p_speakers))
           and (v_eraser or exists (select from beliefdb.source s
                                     where s.workspace_id = r.workspace_id and s.id = r.source_id
                                       and s.owner is not distinct from v_principal))
    ), masked as (
    update beliefdb.review_item r
       set proposal = r.proposal || jsonb_build_object(
               'content', beliefdb._masked(r.proposal ->> 'content', beliefdb._line_masks(r.proposal ->> 'content', f.lines)),
               -- (the lines it masks recorded with the proposal: beliefdb._forgotten_records)
               'forgotten_lines', beliefdb._forgotten_records(p_workspace_id, r.proposal ->> 'content',
                                                              r.proposal -> 'forgotten_lines',
                                                              beliefdb._line_masks(r.proposal ->> 'content', f.lines),
                                                              beliefdb._source_name(r.workspace_id, r.source_id)),
               'claims', (select coalesce(jsonb_agg(c.x order by c.n), '[]')
                            from jsonb_array_elements(coalesce(r.proposal -> 'claims', '[]')) with ordinality c (x, n)
                           where not beliefdb._over_spans(c.x, f.line_union)),
               'fragments', (select coalesce(jsonb_agg(g.x order by g.n), '[]')
                               from jsonb_array_elements(r.proposal -> 'fragments') with ordinality g (x, n)
                              where not beliefdb._over_spans(g.x, f.line_union)))
      from found f
     where r.workspace_id = p_workspace_id and r.id = f.id and cardinality(f.lines) > 0
    returning r.id
    )
    select coalesce(array_agg(m.id), '{}') into v_proposals from masked m;
    with waiting as (
        select j.id, beliefdb._speaker_lines(j.payload ->> 'text', j.payload -> 'turns', p_speakers) as lines
          from beliefdb.job j
         where j.workspace_id = p_workspace_id and j.status <> 'running' and j.payload ? 'text'
           and jsonb_typeof(j.payload -> 'turns') = 'array'
           and exists (select from jsonb_array_elements(j.payload -> 'turns') t where t ->> 'speaker' = any(p_speakers))
           and (v_eraser or j.submitted_by = v_principal
                or exists (select from beliefdb.source s
                            where s.workspace_id = j.workspace_id and s.name = j.payload ->> 'source'
                              and s.owner is not distinct from v_principal))
           for no key update skip locked
    ), masked as (
    update beliefdb.job j
       -- (the lines it masks recorded with the job: beliefdb._masked_job)
       set payload = beliefdb._masked_job(p_workspace_id, j.payload, beliefdb._line_masks(j.payload ->> 'text', w.lines))
                     || jsonb_build_object(
               'turns', (select coalesce(jsonb_agg(t.x order by t.n), '[]')
                           from jsonb_array_elements(j.payload -> 'turns') with ordinality t (x, n)
                          where not (t.x ->> 'speaker' = any(p_speakers)))),
           last_error = beliefdb._masked_job_error(j.last_error)
      from waiting w
     -- (no line left to mask when the forget masked it already as a stored quote: the turn goes all the same)
     where j.workspace_id = p_workspace_id and j.id = w.id
    returning j.id
    )
    select coalesce(array_agg(m.id), '{}') into v_jobs from masked m;
    -- a job done before job_finish dropped its turns keeps no text, but their speakers: theirs go
    with named as (
        select j.id
          from beliefdb.job j
         where j.workspace_id = p_workspace_id and j.status <> 'running' and not (j.payload ? 'text')
           and jsonb_typeof(j.payload -> 'turns') = 'array'
           and exists (select from jsonb_array_elements(j.payload -> 'turns') t where t ->> 'speaker' = any(p_speakers))
           and (v_eraser or j.submitted_by = v_principal
                or exists (select from beliefdb.source s
                            where s.workspace_id = j.workspace_id and s.name = j.payload ->> 'source'
                              and s.owner is not distinct from v_principal))
           for no key update skip locked
    ), masked as (
    update beliefdb.job j
       set payload = j.payload || jsonb_build_object(
               'turns', (select coalesce(jsonb_agg(t.x order by t.n), '[]')
                           from jsonb_array_elements(j.payload -> 'turns') with ordinality t (x, n)
                          where not (t.x ->> 'speaker' = any(p_speakers))))
      from named n
     where j.workspace_id = p_workspace_id and j.id = n.id
    returning j.id
    )
    select coalesce(array_agg(m.id), '{}') into v_done from masked m;
    return jsonb_build_object('jobs', to_jsonb(v_jobs || v_done), 'proposals', to_jsonb(v_proposals));
end
$$;
comment on function beliefdb._redact_pending_speakers(uuid, text[]) is 'Mask some speakers'' turns in the conversations waiting to be stored (queued or proposed) that the acting principal may change, and drop those turns (from done jobs too); the ids of the jobs and proposals masked';

-- Where some quotes occur in the versions of some sources: every occurrence, a span of a version,
-- but within the spans given (p_keep_version, p_keep_span: another speaker who said the same words
-- said their own; a forgotten turn is masked whole). Each version's text is read once.
create or replace function beliefdb._quote_masks(p_workspace_id uuid, p_sources uuid[], p_quotes text[],
                                                 p_keep_version uuid[] default '{}', p_keep_span int4range[] default '{}')
returns table (version uuid, span int4range)
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select v.id, o
      from beliefdb.source_version v
     cross join lateral unnest(beliefdb._occurrences(v.content, p_quotes)) o
     where v.workspace_id = p_workspace_id and v.source_id = any(p_sources)
       and not exists (select from unnest(p_keep_version, p_keep_span) k (version, span)
                        where k.version = v.id and k.span @> o)
$$;
comment on function beliefdb._quote_masks(uuid, uuid[], text[], uuid[], int4range[]) is 'Every span of the versions of some sources where some quotes occur, but within spans kept';

-- What forget does once it is not previewing (beliefdb.forget, whose preview runs it rolled back):
-- the workspace locked, the source, subject or belief p_ref names forgotten (beliefdb._forget_core)
-- and, with p_analyze, the planner statistics of the tables that held the text gathered again. A
-- preview passes false: the statistics a dry run gathered would be rolled back with it, after
-- ANALYZE had read a sample of 13 tables (0.5-1.2 s of a preview at 100,000-1,000,000 nodes) and
-- taken their locks, with the workspace's write lock held.
-- (the signature before the name could be masked where others wrote it)
drop function if exists beliefdb._forget_apply(text, text, text[], boolean);
create or replace function beliefdb._forget_apply(p_target text, p_ref text, p_speakers text[], p_analyze boolean,
                                                  p_mask_mentions boolean default false)
returns beliefdb.forget_result
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_id uuid;
    v_job bigint;
    v_report jsonb;
    v_result beliefdb.forget_result;
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    if p_target = 'source' then
        select s.id into v_id from beliefdb.source s where s.workspace_id = v_ws and s.name = p_ref;
        if v_id is null then
            -- (a document submitted and not stored yet: a queued job will store it, a failed one keeps
            -- its text; either is cancelled with its text by job_cancel)
            select min(j.id) into v_job from beliefdb.job j
             where j.workspace_id = v_ws and j.status in ('queued', 'running', 'failed')
               and j.payload ->> 'source' = p_ref;
            -- (but a job whose text a forget masked is not cancelled, job_cancel: the way that works is
            -- storing the text, its masked lines kept masked, then forgetting the source, which clears it)
            if v_job is not null and exists (
                    select from beliefdb.job j
                     where j.workspace_id = v_ws and j.status in ('queued', 'running', 'failed')
                       and j.payload ->> 'source' = p_ref and j.payload ? 'forgotten_lines') then
                raise exception 'unknown source %: it is only in the queue (job %), not stored, and a forget masked its text, so it is not cancelled: let a worker store it, or ingest the same text as source % yourself (its masked lines stay masked), then forget the source, which clears its jobs',
                    p_ref, v_job, p_ref using errcode = 'BD004';
            elsif v_job is not null then
                raise exception 'unknown source %: it is only in the queue (job %), not stored: cancel its jobs with their text (beliefdb jobs cancel --source %), or forget it once a worker has stored it',
                    p_ref, v_job, p_ref using errcode = 'BD004';
            end if;
            raise exception 'unknown source %', p_ref using errcode = 'BD004',
                hint = 'a source forgotten already is not found again (a repeated forget has nothing left to do)';
        end if;
    elsif p_target = 'belief' then
        v_id := beliefdb.resolve_belief(p_ref);
    end if;
    v_report := beliefdb._forget_core(v_ws, p_target, v_id, case when p_target = 'subject' then p_ref end,
                                      case when p_target = 'subject' then coalesce(p_speakers, '{}') else '{}' end,
                                      p_mask_mentions);
    if p_analyze then
        perform beliefdb._analyze_text_tables();
    end if;
    v_result := jsonb_populate_record(null::beliefdb.forget_result,
                                      v_report - 'changes' || jsonb_build_object('preview', false));
    v_result.changes := beliefdb._as_changes(v_report -> 'changes');
    return v_result;
end
$$;
comment on function beliefdb._forget_apply(text, text, text[], boolean, boolean) is 'Internal: forget''s change, the statistics gathered again or not (a preview''s)';

-- Gather planner statistics again for the columns that hold text: what was forgotten must not
-- stay in pg_statistic's sampled values (rows this transaction deleted or masked are not sampled;
-- those of a table left empty are cleared, beliefdb._clear_empty_statistics).
-- Each table's lock stays taken until the transaction ends, and another workspace's session may be
-- analysing some of them too (bulk_analyze, refresh_ranking_stats): every ANALYZE of beliefdb takes
-- its tables in order of their names, so that one waits for the other instead of a deadlock.
create or replace function beliefdb._analyze_text_tables() returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    analyze beliefdb.audit_event (payload), beliefdb.belief (statement, subject, attribute, value, scope, search),
            beliefdb.correction (new_statement, new_value, reason), beliefdb.evidence (quote),
            beliefdb.fragment (text, speaker), beliefdb.job (payload, last_error, result), beliefdb.lexeme_frequency (lexeme),
            beliefdb.node (retraction_reason), beliefdb.relation (reason), beliefdb.retraction_period (reason),
            beliefdb.review_item (reason, proposal), beliefdb.source (name),
            beliefdb.source_version (content, label, path);
    -- (a table the forget left empty keeps what was sampled before: cleared)
    perform beliefdb._clear_empty_statistics(array['beliefdb.audit_event', 'beliefdb.belief', 'beliefdb.correction',
        'beliefdb.evidence', 'beliefdb.fragment', 'beliefdb.job', 'beliefdb.lexeme_frequency', 'beliefdb.node',
        'beliefdb.relation', 'beliefdb.retraction_period', 'beliefdb.review_item', 'beliefdb.source',
        'beliefdb.source_version']::regclass[]);
exception when lock_not_available then
    -- another session's ANALYZE held a table past lock_timeout: said so in the detail, for a program
    -- (beliefdb.db.connector.translate), as every ANALYZE of beliefdb's tables says it
    raise exception using errcode = 'lock_not_available', message = sqlerrm, detail = '{"waited_for": "analyze"}';
end
$$;
comment on function beliefdb._analyze_text_tables() is 'Gather statistics again on every text column, so pg_statistic keeps nothing forgotten';

-- Clear the planner statistics of each of p_tables that its ANALYZE in this transaction found empty
-- (pg_class.reltuples 0): PostgreSQL stores nothing for a table with no row to sample, and so keeps
-- the values sampled before, the deleted text among them. From PostgreSQL 18 with
-- pg_clear_attribute_stats (the tables' owner may); before it only a superuser may (pg_statistic's
-- rows deleted), and for another owner they stay until the table holds rows again and is analysed.
create or replace function beliefdb._clear_empty_statistics(p_tables regclass[]) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_column record;
begin
    for v_column in
        select s.tablename::text as tablename, s.attname::text as attname, s.inherited, c.oid
          from pg_catalog.pg_class c
          join pg_catalog.pg_stats s on s.schemaname = 'beliefdb' and s.tablename = c.relname
         where c.oid = any(p_tables) and c.reltuples = 0
         order by c.relname, s.attname
    loop
        if pg_catalog.current_setting('server_version_num')::int >= 180000 then
            -- (executed: the function is not in PostgreSQL 15-17)
            execute 'select pg_catalog.pg_clear_attribute_stats($1, $2, $3, $4)'
                using 'beliefdb', v_column.tablename, v_column.attname, v_column.inherited;
        elsif (select r.rolsuper from pg_catalog.pg_roles r where r.rolname = current_user) then
            delete from pg_catalog.pg_statistic t
             where t.starelid = v_column.oid and t.stainherit = v_column.inherited
               and t.staattnum = (select a.attnum from pg_catalog.pg_attribute a
                                   where a.attrelid = v_column.oid and a.attname = v_column.attname);
        end if;
    end loop;
end
$$;
comment on function beliefdb._clear_empty_statistics(regclass[]) is 'Clear the planner statistics of the tables an ANALYZE found empty, which it would keep';

-- Gather statistics again, every column, on each table this transaction deleted or updated rows of
-- (pg_stat_xact_user_tables, the cascades' rows counted), and the workspace directory: what a deleted
-- workspace held must not stay in pg_statistic's sampled values (its subjects, its texts, its name,
-- its id), as a forget's text does not (rule 14; the rows this transaction deleted are not sampled),
-- and those of a table left empty are cleared (beliefdb._clear_empty_statistics). `workspace delete`
-- calls it before it commits. With track_counts off nothing is counted: then every table that holds a
-- workspace's rows. In order of their names, as every ANALYZE of beliefdb.
create or replace function beliefdb._analyze_deleted_tables() returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_counted boolean := pg_catalog.current_setting('track_counts')::boolean;
    v_tables regclass[];
begin
    perform beliefdb._may_analyze('deleting a workspace takes the schema owner (who runs beliefdb migrate)');
    select pg_catalog.array_agg(c.oid::regclass order by c.relname) into v_tables
      from pg_catalog.pg_class c
      left join pg_catalog.pg_stat_xact_user_tables t on t.relid = c.oid
     where c.relnamespace = 'beliefdb'::regnamespace and c.relkind in ('r', 'p')
       and (c.relname = 'workspace'
            or (v_counted and t.n_tup_del + t.n_tup_upd > 0)
            or (not v_counted and exists (select from pg_catalog.pg_attribute a
                                           where a.attrelid = c.oid and a.attname = 'workspace_id'
                                             and not a.attisdropped)));
    execute 'analyze ' || pg_catalog.array_to_string(v_tables, ', ');
    perform beliefdb._clear_empty_statistics(v_tables);
exception when lock_not_available then
    -- another session's ANALYZE held a table past lock_timeout: said so in the detail, for a program
    -- (beliefdb.db.connector.translate), as every ANALYZE of beliefdb's tables says it
    raise exception using errcode = 'lock_not_available', message = sqlerrm, detail = '{"waited_for": "analyze"}';
end
$$;
comment on function beliefdb._analyze_deleted_tables() is 'Gather statistics again on every table this transaction deleted rows of, so pg_statistic keeps nothing of a deleted workspace';
