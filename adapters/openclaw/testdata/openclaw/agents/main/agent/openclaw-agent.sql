-- agents/main/agent/openclaw-agent.sqlite, the tables the openclaw adapter reads. Up to the
-- hand-made section at the end, this is the database OpenClaw 2026.9.6 wrote itself (agent
-- schema 23): `openclaw doctor --session-sqlite import` of a legacy session and its sub-agent
-- (sessions.json plus two pi v3 JSONL files), dumped with sqlite3's .dump (these four tables;
-- the rest of its schema left out). Its event at seq 4 is over 1 KiB, so OpenClaw stored it
-- zstd-compressed in event_zstd.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE schema_meta (
  meta_key TEXT NOT NULL PRIMARY KEY,
  role TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  agent_id TEXT,
  app_version TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
INSERT INTO schema_meta VALUES('primary','agent',23,'main','2026.9.6',1796216675742,1796216675742);
CREATE TABLE session_nodes (
  session_key TEXT NOT NULL PRIMARY KEY,
  current_session_id TEXT NOT NULL,
  entry_json TEXT NOT NULL,
  legacy_acp_migration_json TEXT,
  entry_valid INTEGER NOT NULL DEFAULT 0 CHECK (entry_valid IN (-1, 0, 1)),
  updated_at INTEGER NOT NULL,
  status TEXT CHECK (status IS NULL OR status IN ('running', 'done', 'failed', 'killed', 'timeout')),
  created_at INTEGER,
  created_via TEXT CHECK (created_via IS NULL OR created_via IN ('operator', 'spawn', 'channel', 'cron', 'talk', 'run', 'plugin', 'internal')),
  created_actor_type TEXT CHECK (created_actor_type IS NULL OR created_actor_type IN ('human', 'agent', 'system')),
  created_actor_id TEXT,
  owner_actor_type TEXT,
  owner_actor_id TEXT,
  owner_assigned_by_type TEXT,
  owner_assigned_by_id TEXT,
  owner_assigned_at INTEGER,
  project_id TEXT,
  parent_session_key TEXT,
  spawned_by TEXT,
  fork_source_session_key TEXT,
  fork_source_session_id TEXT,
  fork_source_entry_id TEXT,
  label TEXT,
  display_name TEXT,
  category TEXT,
  icon TEXT,
  pinned_at INTEGER,
  archived_at INTEGER,
  last_read_at INTEGER,
  last_interaction_at INTEGER,
  last_activity_at INTEGER
) STRICT;
INSERT INTO session_nodes VALUES('agent:main:main','5f3c2a10-7b1e-4c8d-9a2f-0d1e2f3a4b5c','{"sessionId":"5f3c2a10-7b1e-4c8d-9a2f-0d1e2f3a4b5c","updatedAt":1795165204000,"chatType":"direct","delivery":{"kind":"none"}}',NULL,1,1795165204000,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO session_nodes VALUES('agent:main:subagent:0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5','8a7b6c5d-4e3f-4a1b-8c2d-3e4f5a6b7c8d','{"sessionId":"8a7b6c5d-4e3f-4a1b-8c2d-3e4f5a6b7c8d","updatedAt":1795165206000,"spawnedBy":"agent:main:main","label":"count bytes","delivery":{"kind":"none"}}',NULL,1,1795165206000,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'agent:main:main','agent:main:main',NULL,NULL,NULL,'count bytes',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE session_windows (
  session_id TEXT NOT NULL PRIMARY KEY,
  session_key TEXT NOT NULL,
  previous_session_id TEXT,
  reason TEXT CHECK (reason IS NULL OR reason IN ('initial', 'reset', 'rollover', 'fork', 'rewind', 'switch', 'recovery', 'compaction')),
  session_scope TEXT NOT NULL DEFAULT 'conversation' CHECK (session_scope IN ('conversation', 'shared-main', 'group', 'channel')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  transcript_updated_at INTEGER DEFAULT NULL,
  transcript_observed_at INTEGER DEFAULT NULL,
  session_entry_provenance INTEGER NOT NULL DEFAULT 0 CHECK (session_entry_provenance IN (0, 1)),
  acp_owned INTEGER NOT NULL DEFAULT 0 CHECK (acp_owned IN (0, 1)),
  plugin_owner_id TEXT,
  hook_external_content_source TEXT CHECK (hook_external_content_source IS NULL OR hook_external_content_source IN ('gmail', 'webhook')),
  started_at INTEGER,
  ended_at INTEGER,
  status TEXT CHECK (status IS NULL OR status IN ('running', 'done', 'failed', 'killed', 'timeout')),
  chat_type TEXT CHECK (chat_type IS NULL OR chat_type IN ('direct', 'group', 'channel')),
  channel TEXT,
  account_id TEXT,
  primary_conversation_id TEXT,
  model_provider TEXT,
  model TEXT,
  agent_harness_id TEXT,
  parent_session_key TEXT,
  spawned_by TEXT,
  display_name TEXT,
  FOREIGN KEY (session_key) REFERENCES session_nodes(session_key) ON DELETE CASCADE,
  FOREIGN KEY (primary_conversation_id) REFERENCES conversations(conversation_id) ON DELETE SET NULL
) STRICT;
INSERT INTO session_windows VALUES('5f3c2a10-7b1e-4c8d-9a2f-0d1e2f3a4b5c','agent:main:main',NULL,NULL,'shared-main',1795165204000,1795165204000,1796216662909,1795165204000,1,0,NULL,NULL,NULL,NULL,NULL,'direct',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO session_windows VALUES('8a7b6c5d-4e3f-4a1b-8c2d-3e4f5a6b7c8d','agent:main:subagent:0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5',NULL,NULL,'conversation',1795165206000,1795165206000,1796216662909,1795165206000,1,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'agent:main:main','count bytes');
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT,
  created_at INTEGER NOT NULL,
  event_zstd BLOB,
  event_utf8_bytes INTEGER CHECK (event_utf8_bytes IS NULL OR event_utf8_bytes >= 0),
  navigation_json TEXT,
  PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES "session_windows"(session_id) ON DELETE CASCADE,
  CHECK (
    (event_json IS NOT NULL AND event_zstd IS NULL)
    OR (
      event_json IS NULL AND event_zstd IS NOT NULL
      AND event_utf8_bytes IS NOT NULL
      AND event_utf8_bytes BETWEEN 1 AND 4194304
      AND length(event_zstd) BETWEEN 1 AND 4194304
      AND navigation_json IS NOT NULL
    )
  ),
  CHECK (
    navigation_json IS NULL OR CASE WHEN json_valid(navigation_json) THEN coalesce(
      octet_length(navigation_json) <= 16384
      AND json_type(navigation_json, '$.version') = 'integer'
      AND json_extract(navigation_json, '$.version') = 1
      AND json_type(navigation_json, '$.report') = 'object'
      AND json_extract(navigation_json, '$.report.kind') IN ('canonical', 'leaf', 'link', 'ignored')
      AND json_type(navigation_json, '$.navigation') = 'object'
      AND json_type(navigation_json, '$.reset') = 'object'
      AND json_type(navigation_json, '$.model') = 'object'
      AND json_type(navigation_json, '$.modelBytes') = 'integer'
      AND json_extract(navigation_json, '$.modelBytes') BETWEEN 0 AND 4194304
      AND json_type(navigation_json, '$.modelWithoutCheckpointBytes') = 'integer'
      AND json_extract(navigation_json, '$.modelWithoutCheckpointBytes') BETWEEN 0 AND 4194304
      AND json_type(navigation_json, '$.withoutCustomDataBytes') = 'integer'
      AND json_extract(navigation_json, '$.withoutCustomDataBytes') BETWEEN 0 AND 4194304,
      0) ELSE 0 END
  )
) STRICT;
INSERT INTO transcript_events VALUES('5f3c2a10-7b1e-4c8d-9a2f-0d1e2f3a4b5c',0,'{"type":"session","version":3,"id":"5f3c2a10-7b1e-4c8d-9a2f-0d1e2f3a4b5c","timestamp":"2026-11-20T09:00:00.000Z","cwd":"/work/proj"}',1795165200000,NULL,132,NULL);
INSERT INTO transcript_events VALUES('5f3c2a10-7b1e-4c8d-9a2f-0d1e2f3a4b5c',1,'{"type":"model_change","id":"a1b2c3d4","parentId":null,"timestamp":"2026-11-20T09:00:00.100Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}',1795165200100,NULL,147,NULL);
INSERT INTO transcript_events VALUES('5f3c2a10-7b1e-4c8d-9a2f-0d1e2f3a4b5c',2,'{"type":"message","id":"b1c2d3e4","parentId":"a1b2c3d4","timestamp":"2026-11-20T09:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"List the files and spawn a helper to count them."}],"timestamp":1795165201000}}',1795165201000,NULL,233,NULL);
INSERT INTO transcript_events VALUES('5f3c2a10-7b1e-4c8d-9a2f-0d1e2f3a4b5c',3,'{"type":"message","id":"c1d2e3f4","parentId":"b1c2d3e4","timestamp":"2026-11-20T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Listing them now."},{"type":"toolCall","id":"toolu_01","name":"exec","arguments":{"command":"ls -l"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1795165202000}}',1795165202000,NULL,537,NULL);
INSERT INTO transcript_events VALUES('5f3c2a10-7b1e-4c8d-9a2f-0d1e2f3a4b5c',4,NULL,1795165203000,X'28b52ffd649a0c45130036696921308fd206238d667b6695ae015ea088f38b9d5d42e895ddddbd27f702725250505479005c0052004d84812a88e02c2751200a9414969326284d280fa7711e10053acb411287c1ab6182611c028d939889061d30144a3acb410ca5722c96c649a8aa80aba56ae9422803f801d4cace7224248ed42049249dc641c8217bfce12ce7519026a8e290388d838e8318fae32ce711398d83201c4d8324673948a2221d8bf64bfb99fdf83ffcefff6dddaecedd6baa699dccf83c3cdbee0bcbaeb655b94dd75a33939f783e44dbc2d7d6efaeb5b973cd4c939311ff1faeedbd41a9c281510c46a24801555500888940260b0bc424929a08c380985018068a488cc7f5e3ade3abe36ed666eb655ee43defeede6eedaaaee9766ea63e755111b550f54cef4cdb4cd34ccd4cf99678cbbae596e59565776aa7753267729e71176fb11655d1143b31139fc8888857787abfbb5f071717557565a9cfdea38671409653a1542a034de434182e4ee1f5f076f8367c1afe86e7e3f1f83a7e0b7f85f5ee7a76ddbace5c47ae9febbbf5db7a6d5db54d9bb333fbd98b8dd885ad777d77dd769c767c3be61fe30380f7a82164b629bf0a990ec0a3425a0310106220144912e601954a53061e0d0d1a1a34346868b094effa7bee5fefde7dd7df333e403355abaa65d0d0a0a141438386060dae5a55adaa5655abaa55d5aa6a55b5aa0c0d1a1a34346868d0d0c0abaa55d5aa6a55b5aa5a55adaa56554f45184708e3f8601c1d8c63837164308e0bc651c1382618470489faf9b270e365c3c6cf506e58b8f1b261e3cbc295a1dc78d9b0b15f67429b32694b70dbaa0e72236cdbff06df022024d707ed529fe64915b850fa53',3482,'{"version":1,"report":{"kind":"canonical","hasParentId":true,"entry":{"id":"d1e2f3a4","parentId":"c1d2e3f4","timestamp":"2026-11-20T09:00:03.000Z","type":"message"}},"navigation":{"type":"message","id":"d1e2f3a4","parentId":"c1d2e3f4","timestamp":"2026-11-20T09:00:03.000Z","message":{"role":"toolResult"}},"reset":{"type":"message","id":"d1e2f3a4","parentId":"c1d2e3f4","timestamp":"2026-11-20T09:00:03.000Z","message":{"role":"toolResult"}},"model":{"type":"message","id":"d1e2f3a4","parentId":"c1d2e3f4","timestamp":"2026-11-20T09:00:03.000Z","message":{"role":"toolResult","toolCallId":"toolu_01","toolName":"exec","isError":false,"timestamp":1795165203000,"content":[],"command":"","output":"","providerReplay":{"type":null},"details":{"openclawSyntheticMissingToolResult":false}}},"modelBytes":3482,"modelWithoutCheckpointBytes":3482,"withoutCustomDataBytes":3482}');
INSERT INTO transcript_events VALUES('5f3c2a10-7b1e-4c8d-9a2f-0d1e2f3a4b5c',5,'{"type":"message","id":"e1f2a3b4","parentId":"d1e2f3a4","timestamp":"2026-11-20T09:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"There are 120 files; a helper will count the bytes."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1795165204000}}',1795165204000,NULL,486,NULL);
INSERT INTO transcript_events VALUES('8a7b6c5d-4e3f-4a1b-8c2d-3e4f5a6b7c8d',0,'{"type":"session","version":3,"id":"8a7b6c5d-4e3f-4a1b-8c2d-3e4f5a6b7c8d","timestamp":"2026-11-20T09:00:05.000Z","cwd":"/work/proj"}',1795165205000,NULL,132,NULL);
INSERT INTO transcript_events VALUES('8a7b6c5d-4e3f-4a1b-8c2d-3e4f5a6b7c8d',1,'{"type":"message","id":"f1a2b3c4","parentId":null,"timestamp":"2026-11-20T09:00:05.500Z","message":{"role":"user","content":"Count the bytes of the listed files.","timestamp":1795165205500}}',1795165205500,NULL,190,NULL);
INSERT INTO transcript_events VALUES('8a7b6c5d-4e3f-4a1b-8c2d-3e4f5a6b7c8d',2,'{"type":"message","id":"a9b8c7d6","parentId":"f1a2b3c4","timestamp":"2026-11-20T09:00:06.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"Sum them.","thinkingSignature":"sig"},{"type":"text","text":"They hold 264,180 bytes."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1795165206000}}',1795165206000,NULL,528,NULL);

-- Hand-made: a /reset of agent:main:main, a new window continuing the main session
-- (previous_session_id, reason 'reset'), now the node's current one; its seq 2 holds an
-- event that is not JSON, and its seqs skip (seq need not be dense).
UPDATE session_nodes SET current_session_id = 'c0ffee00-1234-4abc-8def-0123456789ab', updated_at = 1795165300000 WHERE session_key = 'agent:main:main';
INSERT INTO session_windows (session_id, session_key, previous_session_id, reason, session_scope, created_at, updated_at, started_at, model_provider, model)
  VALUES ('c0ffee00-1234-4abc-8def-0123456789ab', 'agent:main:main', '5f3c2a10-7b1e-4c8d-9a2f-0d1e2f3a4b5c', 'reset', 'shared-main', 1795165290000, 1795165300000, 1795165290000, 'anthropic', 'claude-sonnet-4-5');
INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES
  ('c0ffee00-1234-4abc-8def-0123456789ab', 0, '{"type":"session","version":3,"id":"c0ffee00-1234-4abc-8def-0123456789ab","timestamp":"2026-11-20T09:01:30.000Z","cwd":"/work/proj"}', 1795165290000),
  ('c0ffee00-1234-4abc-8def-0123456789ab', 1, '{"type":"message","id":"5a5b5c5d","parentId":null,"timestamp":"2026-11-20T09:01:31.000Z","message":{"role":"user","content":[{"type":"text","text":"Start over: which file is largest?"}],"timestamp":1795165291000}}', 1795165291000),
  ('c0ffee00-1234-4abc-8def-0123456789ab', 2, '{"type":"message","id":"broken', 1795165292000),
  ('c0ffee00-1234-4abc-8def-0123456789ab', 5, '{"type":"message","id":"6a6b6c6d","parentId":"5a5b5c5d","timestamp":"2026-11-20T09:01:33.000Z","message":{"role":"assistant","content":[{"type":"text","text":"file-0119.txt, at 4403 bytes."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1795165293000}}', 1795165293000);
COMMIT;
