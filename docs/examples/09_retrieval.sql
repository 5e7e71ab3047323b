-- Retrieval under the truth rules (rule 11): searches only nominate; the truth filter runs inside
-- each search. Continues the story (text and names only: no embedder runs here).
\ir 01_story.sql

-- as beliefdb ask does when the embedder is down: the 7-day belief is superseded, so no search returns it
select b.value, r.vector_rank, r.text_rank, r.name_rank, r.low_confidence
  from beliefdb.recall('how many days for returns?') r
  join beliefdb.belief b on b.id = r.belief_id
 order by r.score desc, b.value;

-- as of a moment: believed then, on valid and recorded time together
select b.value
  from beliefdb.recall('how many days for returns?', p_k => 1, p_as_of => '2026-11-30T12:00:00Z') r
  join beliefdb.belief b on b.id = r.belief_id;

-- the truth filter itself
select value, status, beliefdb.recallable(b, null, '{}', false) as recallable_now,
       beliefdb.belief_provenance(workspace_id, id) as provenance
  from beliefdb.belief b order by value;

-- scope: every condition of the belief on a key the asker names must agree
select beliefdb.in_scope('{"region": "EU"}', '{"region": "EU", "tier": "gold"}') as eu_asked_eu,
       beliefdb.in_scope('{"region": "EU"}', '{"region": "US"}') as eu_asked_us,
       beliefdb.in_scope('{"region": "EU"}', '{}') as eu_asked_nothing,
       beliefdb.in_scope('{}', '{"region": "US"}') as none_asked_us;

-- what a caller must know about a recalled belief: what it replaced, open conflicts, provenance
select w -> 'replaced' -> 0 ->> 'value' as replaced, w -> 'replaced' -> 0 ->> 'reason' as reason,
       jsonb_array_length(w -> 'conflicts') as conflicts, w ->> 'provenance' as provenance
  from beliefdb.recall_warnings(:'b15') w;

-- k must be at least 1 (BD005)
select * from beliefdb.recall('returns', p_k => 0);

-- creating a vector index is a DBA's decision: not granted to beliefdb_app
select beliefdb.ensure_vector_index(384);
reset role;
select beliefdb.ensure_vector_index(384);
select beliefdb.ensure_vector_index(0);

-- which words nominate (recall's internals, for the DBA; not granted to beliefdb_app): the English stems, common words (in more
-- than 1,000 of this workspace's beliefs: beliefdb.lexeme_frequency) left out when others remain
select beliefdb._question_query('how many days for returns?');
select beliefdb._question_query('Wie viele Tage für Rückgaben?');
select beliefdb._question_lexemes('How many days do customers have for returns?');
select beliefdb._common_lexemes(beliefdb.current_workspace_id(), array['day', 'return', 'custom'], 1000);
select beliefdb._nominating_query(array['day', 'return', 'custom'], array['custom']);
select beliefdb._nominating_query(array['day', 'custom'], array['day', 'custom']);
