-- beliefdb: the internals of retrieval (docs/rules.md, rule 11): a question's full-text queries.
-- Its words as lexemes, the query ranking uses, which words are too common to nominate candidates,
-- and the query that nominates them.

-- CJK text is not spaced: the parser takes "我住在上海" for one word, and a question's "上海" is not
-- it. Its terms are the pairs of characters that follow one another in each run of CJK characters
-- (a run of one, that character): "我住", "住在", "在上", "上海". Sorted and without repeats; '{}'
-- for text without CJK (the characters beliefdb.text.naming.is_cjk reads as CJK).
create or replace function beliefdb._cjk_terms(p_text text) returns text[]
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select array(select distinct case when length(m.run[1]) = 1 then m.run[1] else substr(m.run[1], i, 2) end
                   from regexp_matches(coalesce(p_text, ''), '[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff]+', 'g') m (run)
                  cross join generate_series(1, greatest(length(m.run[1]) - 1, 1)) i
                  order by 1)
$$;
comment on function beliefdb._cjk_terms(text) is 'The CJK terms of a text: each pair of CJK characters that follow one another (a lone one, itself)';

-- The CJK terms of a text as full-text words, for ranking it against a question's (''::tsvector for
-- text without CJK).
create or replace function beliefdb._cjk_words(p_text text) returns tsvector
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select to_tsvector('pg_catalog.simple', array_to_string(beliefdb._cjk_terms(p_text), ' '))
$$;
comment on function beliefdb._cjk_words(text) is 'The CJK terms of a text as full-text words';

-- The words of a question as full-text lexemes: English stems, plus words in other scripts as
-- written (the simple configuration) and its CJK terms (_cjk_terms), sorted and without repeats.
create or replace function beliefdb._question_lexemes(p_question text) returns text[]
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select array(select t.lexeme from unnest(to_tsvector('pg_catalog.english', p_question)) t
                 union
                 select t.lexeme from unnest(to_tsvector('pg_catalog.simple', p_question)) t
                  where t.lexeme ~ '[^\x01-\x7f]'
                 union
                 select t from unnest(beliefdb._cjk_terms(p_question)) t
                 order by 1)
$$;
comment on function beliefdb._question_lexemes(text) is 'Full-text lexemes of a question: English stems, non-ASCII words as written and CJK terms';

-- The workspace's own belief words (beliefdb.lexeme_frequency, its ranking statistics) that hold a
-- CJK term of the question: "城市是上海浦东" for "浦东". Added to the question's words, they let the
-- full-text index find a belief by a CJK word inside a longer one; at most 100, the most frequent
-- first. Only this workspace's words are read, so no other one changes what is found here.
create or replace function beliefdb._cjk_vocabulary(p_workspace_id uuid, p_question text) returns text[]
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    -- (a question without CJK reads nothing)
    select case when cardinality(q.terms) = 0 then '{}'::text[]
                else (select coalesce(array_agg(v.lexeme order by v.lexeme), '{}')
                        from (select f.lexeme
                                from beliefdb.lexeme_frequency f
                               where f.workspace_id = p_workspace_id
                                 and f.lexeme like any (array(select '%' || t || '%' from unnest(q.terms) t))
                               order by f.beliefs desc, f.lexeme
                               limit 100) v) end
      from (select beliefdb._cjk_terms(p_question) as terms) q
$$;
comment on function beliefdb._cjk_vocabulary(uuid, text) is 'The workspace''s belief words (its own ranking statistics) that hold a CJK term of the question';

-- An OR query of lexemes (null for none).
create or replace function beliefdb._any_of(p_lexemes text[]) returns tsquery
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select nullif(array_to_string(array(select pg_catalog.quote_literal(l) from unnest(p_lexemes) l), ' | '),
                  '')::tsquery
$$;
comment on function beliefdb._any_of(text[]) is 'Full-text OR query of some lexemes';

-- The words of a speaker's name, as a question's words are compared with them: English stems and
-- the words as written ('{}' for no speaker).
create or replace function beliefdb._speaker_words(p_speaker text) returns text[]
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select array(select t.lexeme from unnest(to_tsvector('pg_catalog.english', coalesce(p_speaker, ''))
                                             || to_tsvector('pg_catalog.simple', coalesce(p_speaker, ''))) t)
$$;
comment on function beliefdb._speaker_words(text) is 'Full-text lexemes of a speaker''s name: English stems and words as written';

-- Whether the fragment of p_text that starts at p_start is the title of a markdown heading: on its
-- line before it, after any blanks, one to six '#' and blanks ("# Returns policy" is the fragment
-- "Returns policy", beliefdb.text.fragments). A title of what follows, which answers nothing. Read
-- from the 64 characters before it (a line indented further is taken for no heading); the line
-- breaks are those fragments.py splits lines at, the blanks what it strips within a line.
create or replace function beliefdb._heading_title(p_text text, p_start integer) returns boolean
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select substr(p_text, greatest(p_start - 63, 1), least(p_start, 64))
           ~ ((case when p_start <= 64 then '(^|' else '(' end)
              || '[\n\r\v\f\u001c\u001d\u001e\u0085\u2028\u2029])'
              || '[ \t\u001f\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]*#{1,6}'
              || '[ \t\u001f\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+$')
$$;
comment on function beliefdb._heading_title(text, integer) is 'Whether the fragment of a text starting at an offset is a markdown heading''s title (after 1-6 ''#'' at the start of its line)';

-- Whether a heading's title carries no value, a bare title of what follows ("Returns policy",
-- "Office dogs on Fridays"): a question ("Can I return a sale item?", ending in '?' or '？') asks,
-- the text below it answers, and it is bare whatever else it has. Otherwise it is bare with no ':'
-- before more words (a Key: value line, as fragments.py reads one: "Support: 9am to 5pm on
-- weekdays"), no verb of the closed set a statement is read by here, a form of be, have or do, a
-- modal or a negated one ("Dogs are welcome on Fridays"; no verb ending is guessed at: "Returns" and
-- "Limited" name things as often), and no number but a section's or step's ("1. Introduction",
-- "2.1 Setup", "Step 2"): "Lunch at 12", "Support hours 9-5", "Office closed on Dec 25", "30 Day
-- Return Window" say something by their numbers. A title that carries one is text like any
-- other, ask's answer when nothing else answers (no rule extracts a belief from a heading).
create or replace function beliefdb._bare_title(p_title text) returns boolean
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select p_title ~ '[?？][[:space:]]*$'
           or not (p_title ~ '(:[[:space:]]+|：[[:space:]]*)[^[:space:]]'
                   or p_title ~* ('\m(am|is|are|was|were|be|been|being|has|have|had|do|does|did|can|cannot'
                                  || '|could|will|would|shall|should|may|might|must)\M'
                                  || '|\m[[:alpha:]]+n[''’]t\M|[[:alpha:]][''’](re|ve|ll|m|d)\M')
                   -- any number of it, but a section's number before it ("1. Introduction", "2.1 Setup",
                   -- "2) Setup": a dot or a bracket, so "30 Day Return Window" keeps its value) or a step's
                   -- after a noun that numbers, at its end ("Step 2", "Part 3")
                   or pg_catalog.regexp_replace(
                          pg_catalog.regexp_replace(p_title, '^[[:space:]]*[[:digit:]]+(([.][[:digit:]]+)+[.)]?|[.)])[[:space:]]+', ''),
                          '\m(step|section|chapter|part|phase|stage|lesson|module|unit|appendix|article|round|level|tier'
                          || '|volume|book|page|item|question)[[:space:]]*[[:digit:]]+[.:)]?[[:space:]]*$', '', 'i')
                      ~ '[[:digit:]]')
$$;
comment on function beliefdb._bare_title(text) is 'Whether a heading''s title carries no value: a question, or no '':'' before more words, no verb of be, have or do or modal, and no number but a section''s or step''s';

-- An OR query of the question's words: English stems, plus words in other scripts as written and
-- CJK terms.
create or replace function beliefdb._question_query(p_question text) returns tsquery
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select beliefdb._any_of(beliefdb._question_lexemes(p_question))
$$;
comment on function beliefdb._question_query(text) is 'Full-text OR query of a question: English stems, non-ASCII words as written and CJK terms';

-- Which of some lexemes are common in the workspace: in more than p_max_rows of its beliefs
-- (beliefdb.lexeme_frequency, kept by the triggers below). Only the workspace's own beliefs count,
-- so what another workspace stores never changes which words nominate here (the database-wide
-- pg_stats this read before did: a quality bug and a leak between tenants).
create or replace function beliefdb._common_lexemes(p_workspace_id uuid, p_lexemes text[],
                                                    p_max_rows double precision) returns text[]
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(array_agg(f.lexeme order by f.lexeme), '{}')
      from beliefdb.lexeme_frequency f
     where f.workspace_id = p_workspace_id and f.lexeme = any(p_lexemes) and f.beliefs > p_max_rows
$$;
comment on function beliefdb._common_lexemes(uuid, text[], double precision) is 'The lexemes in more than a number of the workspace''s beliefs (its own ranking statistics)';

-- Trigger: count the lexemes of inserted beliefs (one statement's rows together: an ingest of
-- thousands of beliefs costs one upsert per distinct word, not one per belief).
create or replace function beliefdb.lexemes_added() returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    insert into beliefdb.lexeme_frequency as f (workspace_id, lexeme, beliefs)
    select a.workspace_id, l.lexeme, count(*)
      from added a
     cross join lateral unnest(tsvector_to_array(a.search)) as l (lexeme)
     group by a.workspace_id, l.lexeme
     order by a.workspace_id, l.lexeme
    on conflict (workspace_id, lexeme) do update set beliefs = f.beliefs + excluded.beliefs;
    return null;
end
$$;
comment on function beliefdb.lexemes_added() is 'Trigger: add inserted beliefs'' lexemes to their workspace''s ranking statistics';

-- Trigger: uncount the lexemes of deleted beliefs; a lexeme no belief has any more goes.
create or replace function beliefdb.lexemes_removed() returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    with gone as (
        select r.workspace_id, l.lexeme, count(*) as n
          from removed r
         cross join lateral unnest(tsvector_to_array(r.search)) as l (lexeme)
         group by r.workspace_id, l.lexeme
    ),
    locked as (
        select f.workspace_id, f.lexeme, f.beliefs - g.n as left_over
          from beliefdb.lexeme_frequency f
          join gone g on g.workspace_id = f.workspace_id and g.lexeme = f.lexeme
         order by f.workspace_id, f.lexeme
           for update of f
    ),
    emptied as (
        delete from beliefdb.lexeme_frequency f
         using locked k
         where k.left_over <= 0 and f.workspace_id = k.workspace_id and f.lexeme = k.lexeme
    )
    update beliefdb.lexeme_frequency f
       set beliefs = k.left_over
      from locked k
     where k.left_over > 0 and f.workspace_id = k.workspace_id and f.lexeme = k.lexeme;
    return null;
end
$$;
comment on function beliefdb.lexemes_removed() is 'Trigger: take deleted beliefs'' lexemes out of their workspace''s ranking statistics';

-- Trigger: a belief whose words change (nothing in beliefdb changes them today) moves its counts.
create or replace function beliefdb.lexemes_changed() returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_gone text[] := array(select unnest(tsvector_to_array(old.search))
                           except select unnest(tsvector_to_array(new.search)) order by 1);
begin
    insert into beliefdb.lexeme_frequency as f (workspace_id, lexeme, beliefs)
    select new.workspace_id, l.lexeme, 1
      from unnest(tsvector_to_array(new.search)) as l (lexeme)
     where l.lexeme <> all(tsvector_to_array(old.search))
     order by l.lexeme
    on conflict (workspace_id, lexeme) do update set beliefs = f.beliefs + 1;
    delete from beliefdb.lexeme_frequency f
     where f.workspace_id = old.workspace_id and f.lexeme = any(v_gone) and f.beliefs = 1;
    update beliefdb.lexeme_frequency f
       set beliefs = f.beliefs - 1
     where f.workspace_id = old.workspace_id and f.lexeme = any(v_gone);
    return null;
end
$$;
comment on function beliefdb.lexemes_changed() is 'Trigger: move a belief''s counts in its workspace''s ranking statistics when its words change';

create or replace trigger belief_lexemes_added after insert on beliefdb.belief
    referencing new table as added for each statement execute function beliefdb.lexemes_added();
create or replace trigger belief_lexemes_removed after delete on beliefdb.belief
    referencing old table as removed for each statement execute function beliefdb.lexemes_removed();
-- (of the columns search is made of only: a change of status, the usual update, never fires it)
create or replace trigger belief_lexemes_changed after update of statement, subject, attribute, value on beliefdb.belief
    for each row when (old.search is distinct from new.search) execute function beliefdb.lexemes_changed();

-- A workspace's ranking statistics counted again from its beliefs, set-based: for repair, or
-- after a load that bypassed the triggers. Returns how many lexemes it has.
create or replace function beliefdb._refresh_ranking_stats(p_workspace_id uuid) returns bigint
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_n bigint;
begin
    delete from beliefdb.lexeme_frequency f where f.workspace_id = p_workspace_id;
    insert into beliefdb.lexeme_frequency (workspace_id, lexeme, beliefs)
    select p_workspace_id, l.lexeme, count(*)
      from beliefdb.belief b
     cross join lateral unnest(tsvector_to_array(b.search)) as l (lexeme)
     where b.workspace_id = p_workspace_id
     group by l.lexeme;
    get diagnostics v_n = row_count;
    return v_n;
end
$$;
comment on function beliefdb._refresh_ranking_stats(uuid) is 'Count a workspace''s ranking statistics (lexeme frequencies) again from its beliefs';

-- The query that nominates full-text candidates for a question. A common word matches too many
-- beliefs to single any out, and ranking its matches would be most of the search's time: only the
-- other words nominate (OR). If every word is common, all of them together do (AND). Ranking
-- still uses every word (question_query).
create or replace function beliefdb._nominating_query(p_lexemes text[], p_common text[]) returns tsquery
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select nullif(case when p_lexemes <@ p_common
                       then array_to_string(array(select pg_catalog.quote_literal(l) from unnest(p_lexemes) l), ' & ')
                       else array_to_string(array(select pg_catalog.quote_literal(l) from unnest(p_lexemes) l
                                                   where l <> all(p_common)), ' | ')
                  end, '')::tsquery
$$;
comment on function beliefdb._nominating_query(text[], text[]) is 'Full-text query that nominates candidates: the words that are not common (OR), else all of them (AND)';

-- An embedding model as a caller names it (record_embedding_model, embedding_target): a name that is
-- not blank and a dimension of at least 1, else invalid_input (BD005) naming what is missing.
create or replace function beliefdb._check_embedding_model(p_model text, p_dim integer) returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    if coalesce(btrim(p_model), '') = '' then
        raise exception 'an embedding model needs a name (p_model), not %',
            coalesce(pg_catalog.quote_literal(p_model), 'null') using errcode = 'BD005';
    end if;
    if p_dim is null or p_dim < 1 then
        raise exception 'the dimension of embedding model % is a whole number from 1 (its vectors'' length), not %',
            p_model, coalesce(p_dim::text, 'null') using errcode = 'BD005';
    end if;
end
$$;
comment on function beliefdb._check_embedding_model(text, integer) is 'Refuse (BD005) an embedding model without a name or with a dimension under 1';
