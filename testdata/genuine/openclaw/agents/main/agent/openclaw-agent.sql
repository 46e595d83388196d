-- agents/main/agent/openclaw-agent.sqlite as OpenClaw wrote it (scripts/fixtures.sh openclaw),
-- the tables the openclaw adapter reads, dumped with sqlite3's .dump (its install folder
-- anonymised as /opt/openclaw/node_modules).
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
INSERT INTO schema_meta VALUES('primary','agent',23,'main','2026.9.6',1796278234213,1796278234213);
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
INSERT INTO session_nodes VALUES('agent:main:main','24d92351-743d-4923-94db-f51f5c952036','{"sessionId":"24d92351-743d-4923-94db-f51f5c952036","updatedAt":1796278489020,"sessionStartedAt":1796278235451,"delivery":{"kind":"none"},"skillsSnapshot":{"prompt":"\n\nThe following skills provide specialized instructions for specific tasks.\nRead a skill''s file at its listed location when the task matches its description.\nWhen a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.\n\n<available_skills>\n  <skill>\n    <name>add-model-provider</name>\n    <description>Add and live-prove a model provider with non-interactive config one-liners, without exposing credentials.</description>\n    <location>/opt/openclaw/node_modules/openclaw/custodian-skills/add-model-provider/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>browser-automation</name>\n    <description>Use when controlling web pages with the OpenClaw browser tool, especially multi-step flows, login checks, tab management, or recovery from stale refs/timeouts.</description>\n    <location>~/.openclaw/plugin-skills/browser-automation/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>canvas</name>\n    <description>Present hosted widget documents on a connected macOS panel and control panel visibility or navigation.</description>\n    <location>~/.openclaw/plugin-skills/canvas/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>clawhub</name>\n    <description>Search ClawHub for skills when a requested capability is not already available; install, verify, update, uninstall, publish, or sync skills.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/clawhub/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>cloud-image-bake</name>\n    <description>Bake, select, prove, and safely retire a Cloud Worker image with crabbox and config one-liners.</description>\n    <location>/opt/openclaw/node_modules/openclaw/custodian-skills/cloud-image-bake/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>configure-channel</name>\n    <description>Configure and prove a chat channel with non-interactive one-liners; secrets only as SecretRefs.</description>\n    <location>/opt/openclaw/node_modules/openclaw/custodian-skills/configure-channel/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>control-ui</name>\n    <description>Operate and troubleshoot the OpenClaw Control UI: navigate connected clients, organize sessions, build session dashboards, and handle direct or Tailscale-hosted Gateways.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/control-ui/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>diagnose-gateway</name>\n    <description>Diagnose Gateway, config, secrets, channels, and port failures with read-only one-liners.</description>\n    <location>/opt/openclaw/node_modules/openclaw/custodian-skills/diagnose-gateway/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>diagram-maker</name>\n    <description>Create SVG/HTML or Excalidraw diagrams for concepts, architecture, flows, and whiteboards.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/diagram-maker/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>healthcheck</name>\n    <description>Audit/harden OpenClaw hosts: SSH, firewall, updates, exposure, backups, disk encryption, gateway security.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/healthcheck/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>meme-maker</name>\n    <description>Search meme templates, suggest formats, and generate local or hosted image memes.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/meme-maker/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>node-connect</name>\n    <description>Diagnose OpenClaw Control UI browser and native Android, iOS, or macOS node connection failures across route, auth, pairing, QR/setup-code, and reconnect states.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/node-connect/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>node-inspect-debugger</name>\n    <description>Debug Node.js with node inspect, --inspect, breakpoints, CDP, heap, and CPU profiles.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/node-inspect-debugger/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>notion</name>\n    <description>Notion CLI/API for pages, Markdown content, data sources, files, comments, search, Workers, and raw API calls.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/notion/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>python-debugpy</name>\n    <description>Debug Python with pdb, breakpoint(), post-mortem inspection, and debugpy remote attach.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/python-debugpy/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>skill-creator</name>\n    <description>Author or review AgentSkills: create, repair, validate, or restructure SKILL.md files and bundled resources.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/skill-creator/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>spike</name>\n    <description>Run throwaway prototypes to validate feasibility, compare approaches, and report a verdict.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/spike/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>taskflow</name>\n    <description>Run resumable approval workflows and coordinated subagent recipes with TaskFlow, Swarm, and optional Workboard claims.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/taskflow/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>taskflow-inbox-triage</name>\n    <description>Preview synthetic inbox routing with a real TaskFlow approval pause, and identify the adapters needed for live triage.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/taskflow-inbox-triage/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>tmux</name>\n    <description>Control tmux sessions/panes for interactive CLIs: list, capture output, send keys, paste text, monitor prompts.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/tmux/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>visualize</name>\n    <description>Create inline visuals for code and explanations, or author persistent OpenClaw dashboard widgets with show_widget.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/visualize/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>weather</name>\n    <description>Current weather and forecasts with web_fetch, falling back to wttr.in curl for locations, rain, temperature, travel planning.</description>\n    <location>/opt/openclaw/node_modules/openclaw/skills/weather/SKILL.md</location>\n  </skill>\n</available_skills>","skills":[{"name":"add-model-provider","skillKey":"add-model-provider"},{"name":"browser-automation","skillKey":"browser-automation"},{"name":"canvas","skillKey":"canvas"},{"name":"clawhub","skillKey":"clawhub"},{"name":"cloud-image-bake","skillKey":"cloud-image-bake"},{"name":"configure-channel","skillKey":"configure-channel"},{"name":"control-ui","skillKey":"control-ui"},{"name":"diagnose-gateway","skillKey":"diagnose-gateway"},{"name":"diagram-maker","skillKey":"diagram-maker"},{"name":"healthcheck","skillKey":"healthcheck"},{"name":"meme-maker","skillKey":"meme-maker","requiredEnv":[]},{"name":"node-connect","skillKey":"node-connect"},{"name":"node-inspect-debugger","skillKey":"node-inspect-debugger","requiredEnv":[]},{"name":"notion","skillKey":"notion","primaryEnv":"NOTION_API_TOKEN","requiredEnv":[]},{"name":"python-debugpy","skillKey":"python-debugpy","requiredEnv":[]},{"name":"skill-creator","skillKey":"skill-creator"},{"name":"spike","skillKey":"spike"},{"name":"taskflow","skillKey":"taskflow"},{"name":"taskflow-inbox-triage","skillKey":"taskflow-inbox-triage"},{"name":"tmux","skillKey":"tmux","requiredEnv":[]},{"name":"visualize","skillKey":"visualize"},{"name":"weather","skillKey":"weather"}],"nodeSkillsEligibility":{"canExec":true},"version":1796278398642,"promptFormatVersion":6},"lastInteractionAt":1796278489002,"activeWriterRunId":"816effee-1156-44ef-875f-e8a17746e869","model":"claude-sonnet-4-5","modelProvider":"fake","abortedLastRun":false,"lastActivityAt":1796278489002,"contextTokens":200000,"contextTokensSource":"resolved","agentHarnessId":"openclaw","systemPromptReport":{"source":"run","generatedAt":1796278479825,"sessionId":"24d92351-743d-4923-94db-f51f5c952036","sessionKey":"agent:main:main","provider":"fake","model":"claude-sonnet-4-5","workspaceDir":"/tmp/pond-fixtures/project","bootstrapMaxChars":20000,"bootstrapTotalMaxChars":60000,"bootstrapTruncation":{"warningMode":"always","warningShown":false,"truncatedFiles":0,"nearLimitFiles":0,"totalNearLimit":false},"sandbox":{"mode":"off","sandboxed":false},"systemPrompt":{"chars":50091,"hash":"0a9d18bbaae7480a09c29a71ef3dd6e0983baf951661b9bd1b2fd75fa233afdd","projectContextChars":21029,"nonProjectContextChars":29062},"injectedWorkspaceFiles":[{"name":"AGENTS.md","path":"/tmp/pond-fixtures/project/AGENTS.md","missing":false,"rawChars":6305,"injectedChars":6305,"truncated":false},{"name":"SOUL.md","path":"/tmp/pond-fixtures/project/SOUL.md","missing":false,"rawChars":1561,"injectedChars":1561,"truncated":false},{"name":"IDENTITY.md","path":"/tmp/pond-fixtures/project/IDENTITY.md","missing":false,"rawChars":1398,"injectedChars":1398,"truncated":false},{"name":"USER.md","path":"/tmp/pond-fixtures/project/USER.md","missing":false,"rawChars":1136,"injectedChars":1136,"truncated":false},{"name":"BOOTSTRAP.md","path":"/tmp/pond-fixtures/project/BOOTSTRAP.md","missing":false,"rawChars":7822,"injectedChars":7822,"truncated":false}],"skills":{"promptChars":7336,"hash":"a22fd2da451e42c948bcf52712b20a6c81cbfe84abb344b0052a9b3561de2ecf","entries":[{"name":"add-model-provider","blockChars":332},{"name":"browser-automation","blockChars":324},{"name":"canvas","blockChars":243},{"name":"clawhub","blockChars":335},{"name":"cloud-image-bake","blockChars":318},{"name":"configure-channel","blockChars":320},{"name":"control-ui","blockChars":371},{"name":"diagnose-gateway","blockChars":312},{"name":"diagram-maker","blockChars":297},{"name":"healthcheck","blockChars":309},{"name":"meme-maker","blockChars":282},{"name":"node-connect","blockChars":366},{"name":"node-inspect-debugger","blockChars":308},{"name":"notion","blockChars":303},{"name":"python-debugpy","blockChars":296},{"name":"skill-creator","blockChars":315},{"name":"spike","blockChars":282},{"name":"taskflow","blockChars":315},{"name":"taskflow-inbox-triage","blockChars":341},{"name":"tmux","blockChars":300},{"name":"visualize","blockChars":313},{"name":"weather","blockChars":320}]},"tools":{"listChars":0,"schemaChars":6113,"entries":[{"name":"ls","summaryChars":192,"summaryHash":"90bdd7a772f66ad236d45f18e28ee873b8c795fe219804f2c19074a867423e20","schemaChars":254,"schemaHash":"ebe8d6a85b7011ec7e0d43a759b3b53b1ce96e682f54a64312b10e89260e9af9","propertiesCount":3},{"name":"read","summaryChars":164,"summaryHash":"d136f5b09e28d671addad4ca800b75b8aa6a36002bc739ead964f618d3e34829","schemaChars":481,"schemaHash":"b1b9b637dfe1dfade40f50c37cf840a298f1992b534cb9425b7470233a6b0cbb","propertiesCount":5},{"name":"edit","summaryChars":130,"summaryHash":"4149500b1f6501ec6450e4c048bdb6844764dd4a888a10846726cbbc7256152e","schemaChars":501,"schemaHash":"adf3140833ca927b84c66c989d6833fdcbd9de011dd2ffc59f9a2c4d3c25f127","propertiesCount":2},{"name":"write","summaryChars":49,"summaryHash":"f9ce3d8ac929a51498c03331b97c59bfaa2bb4d25580a5ddf0102e6a8e173aec","schemaChars":191,"schemaHash":"b61d2da23febf5fbda55e391526f36d283e9e9fb7f1a1dbadcf5c618a0632287","propertiesCount":2},{"name":"apply_patch","summaryChars":71,"summaryHash":"5c1173efe93d080a386a23216bc3e58db2e0033eb3ddea697eb2439938b7cae4","schemaChars":153,"schemaHash":"05521268363ff4f191472c90d69ef08a503ba9acf1d2febc50b3ee68db32ab65","propertiesCount":1},{"name":"exec","summaryChars":503,"summaryHash":"db730359f8e2e0af6b787dd3717ee4d33189b95f908103250e1e203079218503","schemaChars":1242,"schemaHash":"aeabc27dd35e066195bd6dc30a5fd0e3598974789e8784eb7303eee80fe82518","propertiesCount":12},{"name":"process","summaryChars":258,"summaryHash":"c9c81d9c38f731d0efcc810924c78c3161c38524baa561c6f9251638d9e164b2","schemaChars":1164,"schemaHash":"6cf3281369349e15ea532e644c8ec7f94c96fa6a4e3287272c8cfe90b0960516","propertiesCount":12},{"name":"openclaw","summaryChars":350,"summaryHash":"696c508d4eb6281d0454e09f27d5c728cf969829606beba510b6b50e580f7de4","schemaChars":196,"schemaHash":"9956b2b6fde1ca6ca3d035b66217a09c717a6503aa4e59a2ce184dbf67849bd3","propertiesCount":2},{"name":"sessions_yield","summaryChars":337,"summaryHash":"1dddf4158ea2c44cf79c93b483fd18bc48c6e32fe32fafca3fe83b5309310ce8","schemaChars":457,"schemaHash":"6f3649fb583d30499a48925363f0158ecff856d7bc44e9531dd9cbd8c23c6428","propertiesCount":3},{"name":"tool_search","summaryChars":502,"summaryHash":"acdcab138b356606711452241e668c366bdb15428e39a28a94d7be27d7968626","schemaChars":1139,"schemaHash":"0a78304973631f66103ff3f0c767433fdc00fb89d629bd5b12d1ada29940d382","propertiesCount":3},{"name":"tool_describe","summaryChars":92,"summaryHash":"fc74d14dc28e4026dba1a8904339a6bef1ce8118588e0bff809c37be73ce7a02","schemaChars":125,"schemaHash":"8b60055097c87990f29b27c1f82ecea48435ffb1163c486121a2189f118aa0a4","propertiesCount":1},{"name":"tool_call","summaryChars":61,"summaryHash":"0dc569a573cbc94928d868c94a178930879ac898b541cd9009338699a3e7d1fd","schemaChars":210,"schemaHash":"f48bfb0705c11b32ccbdfd456b791ce458604b1f51b1e31f61bc2d7b25ae07b9","propertiesCount":2}]},"currentTurn":{"promptChars":12,"runtimeContextChars":52,"modelOnlyPromptChars":0}},"contextBudgetStatus":{"schemaVersion":1,"source":"pre-prompt-estimate","updatedAt":1796278486882,"provider":"fake","model":"claude-sonnet-4-5","route":"fits","shouldCompact":false,"estimatedPromptTokens":15151,"contextTokenBudget":200000,"promptBudgetBeforeReserve":180000,"reserveTokens":20000,"effectiveReserveTokens":20000,"remainingPromptBudgetTokens":164849,"overflowTokens":0,"toolResultReducibleChars":0,"messageCount":4,"unwindowedMessageCount":4,"sessionId":"24d92351-743d-4923-94db-f51f5c952036"},"inputTokens":1,"outputTokens":1,"cacheRead":0,"cacheWrite":0,"estimatedCostUsd":0,"totalTokens":1,"totalTokensFresh":true,"totalTokensVersion":1}',NULL,1,1796278489020,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1796278489002,1796278489002);
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
INSERT INTO session_windows VALUES('24d92351-743d-4923-94db-f51f5c952036','agent:main:main',NULL,NULL,'conversation',1796278235451,1796278489020,1796278488463,1796278488463,1,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'fake','claude-sonnet-4-5','openclaw',NULL,NULL,NULL);
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
INSERT INTO transcript_events VALUES('24d92351-743d-4923-94db-f51f5c952036',0,'{"type":"session","version":4,"id":"24d92351-743d-4923-94db-f51f5c952036","timestamp":"2026-12-03T06:11:13.640Z","cwd":"/tmp/pond-fixtures/project"}',1796278273640,NULL,148,NULL);
INSERT INTO transcript_events VALUES('24d92351-743d-4923-94db-f51f5c952036',1,'{"type":"model_change","provider":"fake","modelId":"claude-sonnet-4-5","id":"191eb9d5-7345-416c-ae64-66ecceccbd0d","parentId":null,"timestamp":"2026-12-03T06:11:13.841Z"}',1796278273841,NULL,170,NULL);
INSERT INTO transcript_events VALUES('24d92351-743d-4923-94db-f51f5c952036',2,'{"type":"thinking_level_change","thinkingLevel":"off","id":"31f2b17f-65e0-4ea6-bcbb-4864ff43e57e","parentId":"191eb9d5-7345-416c-ae64-66ecceccbd0d","timestamp":"2026-12-03T06:11:17.148Z"}',1796278277148,NULL,187,NULL);
INSERT INTO transcript_events VALUES('24d92351-743d-4923-94db-f51f5c952036',3,'{"type":"custom","customType":"model-snapshot","data":{"timestamp":1796278277713,"provider":"fake","modelApi":"anthropic-messages","modelId":"claude-sonnet-4-5"},"id":"75a0b128-78a2-4668-95e5-896e671ef0a6","parentId":"31f2b17f-65e0-4ea6-bcbb-4864ff43e57e","timestamp":"2026-12-03T06:11:17.734Z"}',1796278277734,NULL,295,NULL);
INSERT INTO transcript_events VALUES('24d92351-743d-4923-94db-f51f5c952036',4,'{"type":"message","id":"d0b197cd-dfa7-4bda-99b3-562fcd504896","parentId":"75a0b128-78a2-4668-95e5-896e671ef0a6","timestamp":"2026-12-03T06:11:18.483Z","message":{"role":"user","content":"list the files here","timestamp":1796278236863,"__openclaw":{"senderIsOwner":true},"idempotencyKey":"56c5b32b-775f-48d7-a396-7b4d6b52d927:user"}}',1796278278483,NULL,332,NULL);
INSERT INTO transcript_events VALUES('24d92351-743d-4923-94db-f51f5c952036',5,'{"type":"message","id":"189ce079-c35b-4791-be4b-c751ab9a516e","parentId":"d0b197cd-dfa7-4bda-99b3-562fcd504896","timestamp":"2026-12-03T06:11:19.296Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_pond_2000_0","name":"exec","arguments":{"command":"ls"}}],"api":"anthropic-messages","provider":"fake","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"contextUsage":{"state":"available","promptTokens":1,"totalTokens":2}},"stopReason":"toolUse","timestamp":1796278278679,"responseId":"msg_pond_2000","responseModel":"claude-sonnet-4-5","__openclaw":{"runId":"a4b801ce-6b12-4816-8d39-87e85c17e93e"}}}',1796278279296,NULL,746,NULL);
INSERT INTO transcript_events VALUES('24d92351-743d-4923-94db-f51f5c952036',6,'{"type":"message","id":"c90a8fa2-25cf-45ae-9291-ead52b7af6fa","parentId":"189ce079-c35b-4791-be4b-c751ab9a516e","timestamp":"2026-12-03T06:11:23.187Z","message":{"role":"toolResult","toolCallId":"toolu_pond_2000_0","toolName":"exec","content":[{"type":"text","text":"AGENTS.md\nBOOTSTRAP.md\nIDENTITY.md\nSOUL.md\nUSER.md\nnotes.txt"}],"details":{"status":"completed","exitCode":0,"exitSignal":null,"exitReason":"exit","durationMs":2799,"aggregated":"AGENTS.md\nBOOTSTRAP.md\nIDENTITY.md\nSOUL.md\nUSER.md\nnotes.txt","noOutputTimedOut":false,"cwd":"/tmp/pond-fixtures/project"},"isError":false,"timestamp":1796278283179,"__openclaw":{"runId":"a4b801ce-6b12-4816-8d39-87e85c17e93e"}}}',1796278283187,NULL,684,NULL);
INSERT INTO transcript_events VALUES('24d92351-743d-4923-94db-f51f5c952036',7,'{"type":"custom","customType":"openclaw.cache-ttl","data":{"prunedToolResults":[],"ambiguousToolResultBaseKeys":[],"frozenToolResults":[{"key":"tool:toolu_pond_2000_0:1796278283179","sourceHash":"RLBT-SMnFbTsbVV7FGjzCL1ZTmM0GUHEbEtpQxVXiSs"}]},"id":"ff20e4de-6d25-471e-9018-1537cb1adf33","parentId":"c90a8fa2-25cf-45ae-9291-ead52b7af6fa","timestamp":"2026-12-03T06:11:23.215Z"}',1796278283215,NULL,377,NULL);
INSERT INTO transcript_events VALUES('24d92351-743d-4923-94db-f51f5c952036',8,'{"type":"message","id":"a7d27ae7-2c38-4da3-af2d-0af0fc5560c0","parentId":"ff20e4de-6d25-471e-9018-1537cb1adf33","timestamp":"2026-12-03T06:11:23.298Z","message":{"role":"assistant","content":[{"type":"text","text":"There is one file, notes.txt."}],"api":"anthropic-messages","provider":"fake","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"contextUsage":{"state":"available","promptTokens":1,"totalTokens":2}},"stopReason":"stop","timestamp":1796278283232,"responseId":"msg_pond_2001","responseModel":"claude-sonnet-4-5","__openclaw":{"runId":"a4b801ce-6b12-4816-8d39-87e85c17e93e"}}}',1796278283298,NULL,710,NULL);
INSERT INTO transcript_events VALUES('24d92351-743d-4923-94db-f51f5c952036',9,'{"type":"custom","customType":"openclaw:bootstrap-context:full","data":{"timestamp":1796278283362,"runId":"a4b801ce-6b12-4816-8d39-87e85c17e93e","sessionId":"24d92351-743d-4923-94db-f51f5c952036"},"id":"4e8d1ff1-426e-4a9f-a30d-6956c84544ac","parentId":"a7d27ae7-2c38-4da3-af2d-0af0fc5560c0","timestamp":"2026-12-03T06:11:23.362Z"}',1796278283362,NULL,330,NULL);
INSERT INTO transcript_events VALUES('24d92351-743d-4923-94db-f51f5c952036',10,'{"type":"message","id":"6b3d5ac4-94f3-40ed-b03e-ca3d8d9cb46d","parentId":"4e8d1ff1-426e-4a9f-a30d-6956c84544ac","timestamp":"2026-12-03T06:14:46.989Z","message":{"role":"user","content":"now say done","timestamp":1796278442147,"__openclaw":{"senderIsOwner":true},"idempotencyKey":"56ba955b-53ba-4665-b93b-29a132e9fb6d:user"}}',1796278486989,NULL,325,NULL);
INSERT INTO transcript_events VALUES('24d92351-743d-4923-94db-f51f5c952036',11,'{"type":"custom","customType":"openclaw.cache-ttl","data":{"prunedToolResults":[],"ambiguousToolResultBaseKeys":[],"frozenToolResults":[{"key":"tool:toolupond20000:1796278283179","sourceHash":"RLBT-SMnFbTsbVV7FGjzCL1ZTmM0GUHEbEtpQxVXiSs"}]},"id":"2188ce31-ca80-49d1-a767-a984dfcbb957","parentId":"6b3d5ac4-94f3-40ed-b03e-ca3d8d9cb46d","timestamp":"2026-12-03T06:14:47.231Z"}',1796278487231,NULL,374,NULL);
INSERT INTO transcript_events VALUES('24d92351-743d-4923-94db-f51f5c952036',12,'{"type":"message","id":"8e22b3b1-4b25-4de4-90c4-c40e20345b87","parentId":"2188ce31-ca80-49d1-a767-a984dfcbb957","timestamp":"2026-12-03T06:14:48.268Z","message":{"role":"assistant","content":[{"type":"text","text":"Done."}],"api":"anthropic-messages","provider":"fake","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"contextUsage":{"state":"available","promptTokens":1,"totalTokens":2}},"stopReason":"stop","timestamp":1796278487333,"responseId":"msg_pond_1002","responseModel":"claude-sonnet-4-5","__openclaw":{"runId":"816effee-1156-44ef-875f-e8a17746e869"}}}',1796278488268,NULL,686,NULL);
INSERT INTO transcript_events VALUES('24d92351-743d-4923-94db-f51f5c952036',13,'{"type":"custom","customType":"openclaw:bootstrap-context:full","data":{"timestamp":1796278488434,"runId":"816effee-1156-44ef-875f-e8a17746e869","sessionId":"24d92351-743d-4923-94db-f51f5c952036"},"id":"5d704ef6-dad7-4f51-8730-c02718c5999b","parentId":"8e22b3b1-4b25-4de4-90c4-c40e20345b87","timestamp":"2026-12-03T06:14:48.435Z"}',1796278488435,NULL,330,NULL);
CREATE TABLE session_transcript_cold_archives (
  session_id TEXT NOT NULL PRIMARY KEY,
  generation TEXT NOT NULL,
  archive_name TEXT NOT NULL UNIQUE,
  archive_sha256 TEXT NOT NULL CHECK (length(archive_sha256) = 64),
  event_count INTEGER NOT NULL CHECK (event_count >= 1),
  raw_bytes INTEGER NOT NULL CHECK (raw_bytes >= 0),
  archive_bytes INTEGER NOT NULL CHECK (archive_bytes >= 0),
  last_seq INTEGER NOT NULL,
  archived_at INTEGER NOT NULL,
  storage TEXT NOT NULL CHECK (storage IN ('file', 'sqlite')),
  archive_blob BLOB,
  FOREIGN KEY (session_id) REFERENCES "session_windows"(session_id) ON DELETE CASCADE,
  CHECK (length(archive_name) > 0 AND archive_name NOT IN ('.', '..') AND archive_name NOT LIKE '%/%' AND archive_name NOT LIKE '%\%'),
  CHECK ((storage = 'file' AND archive_blob IS NULL) OR (storage = 'sqlite' AND archive_blob IS NOT NULL))
) STRICT;
CREATE TABLE transcript_rewrite_watermarks (
  session_id TEXT NOT NULL PRIMARY KEY,
  generation TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  FOREIGN KEY (session_id) REFERENCES "session_windows"(session_id) ON DELETE CASCADE
) STRICT;
INSERT INTO transcript_rewrite_watermarks VALUES('24d92351-743d-4923-94db-f51f5c952036','fd3a5be1724549459a0cba438593a1c5',1796278276921);
COMMIT;
