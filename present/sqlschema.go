package present

// SQLSchema documents the SQL surface: what `pond sql --schema` prints and what agents read
// before writing SQL.
const SQLSchema = `Pond SQL: the archive as three tables and two views (SQLite, read-only).
One statement per query: SELECT, WITH … SELECT, or EXPLAIN of one. Times are ISO-8601 UTC text
(2026-05-01T10:00:00.000000Z), so text order is time order. JSON columns are text: read them with
json_extract(col, '$.path') or the lenient getters below.

TABLES
  sessions   session_id, parent_session_id, parent_message_id, source_agent, created_at,
             project, options, ingest_seq
             source_agent is the agent ("claude-code") or a sub-kind ("claude-code/subagent").
  messages   session_id, message_id, timestamp, role (system|user|assistant|tool),
             source_agent, project, content (system text), search_text (what search sees),
             embedding_model, options, ingest_seq
  parts      session_id, message_id, id, ordinal, type, provenance, tool_name, call_id,
             is_failure, variant_data, options, ingest_seq
             type: text | reasoning | file | tool_call | tool_result | tool_approval_request |
                   tool_approval_response;  provenance: conversational | injected
             variant_data holds the part's body: {"text"} for text and reasoning,
             {"call_id","name","params"} for tool calls, {"call_id","name","is_failure","result"}
             for tool results, {"media_type","file_name","data"} for files.
  options    (on every table) the agent's raw record under options.source.record, provider
             data under options.<provider>, Pond's own under options.pond.
             messages.options, parts.options and the variant_data of tool calls and
             results are read from the archive's Lance tables a session at a time:
             milliseconds for one session's, seconds for every row's (filter on
             session_id, timestamp, role, type, tool_name or search_text first when you can).
  message_rows, part_rows  where messages and parts are stored: the same columns, with no
             raw records in message_rows, its search_text zstd-compressed when long, and
             parts' options and variant_data as options_packed and variant_data_packed (long
             values zstd-compressed or, for records and tool bodies, x'00': kept in Lance
             only; an empty BLOB for a text part that is its message's search_text, stored
             once). Query messages and parts, which give them back as text.

VIEWS
  tool_calls       every tool call with its result: session_id, message_id, part_id, call_id,
                   tool_name, params, result_message_id, result, is_failure, timestamp,
                   source_agent, project
  session_summary  one row per session: session_id, parent_session_id, source_agent, project,
                   created_at, messages, user_messages, first_message_at, last_message_at,
                   tool_calls, tool_failures

FUNCTIONS
  text REGEXP pattern                     Go regular expressions
  json_get(doc, path)                     any value; objects and arrays as JSON text
  json_get_string / json_get_int / json_get_float / json_get_bool (doc, path)
                                          NULL when absent or of another type; path like $.a.b[0]
  json_extract, json_each, …              SQLite's own JSON functions

INDEXED (fast) PATHS
  messages by (session_id, timestamp), by message_id, by (source_agent, timestamp);
  parts by tool_name and by (session_id, call_id); sessions by (source_agent, created_at).

EXAMPLES
  -- tool failure rate per agent (aggregate from parts; the tool_calls view is for reading
  -- individual calls with their results)
  SELECT m.source_agent, count(*) AS results, round(avg(p.is_failure), 3) AS failure_rate
  FROM parts p JOIN messages m ON m.session_id = p.session_id AND m.message_id = p.message_id
  WHERE p.type = 'tool_result' GROUP BY m.source_agent ORDER BY results DESC;

  -- sessions per day
  SELECT substr(created_at, 1, 10) AS day, count(*) AS sessions
  FROM sessions GROUP BY day ORDER BY day DESC LIMIT 30;

  -- an exact string in tool bodies (search does not look there), scoped to a project first
  SELECT session_id, message_id, tool_name FROM parts
  WHERE session_id IN (SELECT session_id FROM sessions WHERE project LIKE '%my-repo%')
    AND type IN ('tool_call', 'tool_result') AND variant_data LIKE '%ECONNREFUSED%'
  LIMIT 20;

  -- keyset pagination: pass the last row's (timestamp, message_id) back in
  SELECT timestamp, message_id, role, search_text FROM messages
  WHERE session_id = 'SESSION' AND (timestamp > '2026-05-01T10:00:00.000000Z'
        OR (timestamp = '2026-05-01T10:00:00.000000Z' AND message_id > 'LAST_ID'))
  ORDER BY timestamp, message_id LIMIT 50;

LIMITS
  100 rows by default (--limit, at most 1000), 80,000 bytes of text, cells clipped at 1,000
  characters, 30 s per query (--timeout, at most 600 on the CLI; timeout_seconds, at most 60
  over MCP).
`
