BEGIN TRANSACTION;
CREATE TABLE async_delegations (
    delegation_id TEXT PRIMARY KEY,
    origin_session TEXT NOT NULL,
    origin_ui_session_id TEXT NOT NULL DEFAULT '',
    parent_session_id TEXT,
    state TEXT NOT NULL,
    dispatched_at REAL NOT NULL,
    completed_at REAL,
    updated_at REAL NOT NULL,
    event_json TEXT,
    result_json TEXT,
    delivery_state TEXT NOT NULL DEFAULT 'pending',
    delivery_attempts INTEGER NOT NULL DEFAULT 0,
    delivered_at REAL,
    owner_pid INTEGER,
    owner_started_at INTEGER,
    task_json TEXT,
    delivery_claim TEXT,
    delivery_claimed_at REAL
);
CREATE TABLE compression_locks (
    session_id TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    acquired_at REAL NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE gateway_routing (
    scope TEXT NOT NULL DEFAULT '',
    session_key TEXT NOT NULL,
    entry_json TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (scope, session_key)
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    effect_disposition TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_content TEXT,
    reasoning_details TEXT,
    codex_reasoning_items TEXT,
    codex_message_items TEXT,
    platform_message_id TEXT,
    observed INTEGER DEFAULT 0,
    active INTEGER NOT NULL DEFAULT 1,
    compacted INTEGER NOT NULL DEFAULT 0,
    api_content TEXT
);
CREATE TABLE schema_version (
    version INTEGER NOT NULL
);
CREATE TABLE session_model_usage (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    billing_provider TEXT NOT NULL DEFAULT '',
    billing_base_url TEXT NOT NULL DEFAULT '',
    billing_mode TEXT NOT NULL DEFAULT '',
    task TEXT NOT NULL DEFAULT '',
    api_call_count INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    estimated_cost_usd REAL NOT NULL DEFAULT 0,
    actual_cost_usd REAL NOT NULL DEFAULT 0,
    cost_status TEXT,
    cost_source TEXT,
    first_seen REAL,
    last_seen REAL,
    PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode, task)
);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    session_key TEXT,
    chat_id TEXT,
    chat_type TEXT,
    thread_id TEXT,
    display_name TEXT,
    origin_json TEXT,
    expiry_finalized INTEGER DEFAULT 0,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0,
    cwd TEXT,
    git_branch TEXT,
    git_repo_root TEXT,
    billing_provider TEXT,
    billing_base_url TEXT,
    billing_mode TEXT,
    estimated_cost_usd REAL,
    actual_cost_usd REAL,
    cost_status TEXT,
    cost_source TEXT,
    pricing_version TEXT,
    title TEXT,
    api_call_count INTEGER DEFAULT 0,
    handoff_state TEXT,
    handoff_platform TEXT,
    handoff_error TEXT,
    compression_failure_cooldown_until REAL,
    compression_failure_error TEXT,
    compression_fallback_streak INTEGER NOT NULL DEFAULT 0,
    profile_name TEXT,
    rewind_count INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE state_meta (
    key TEXT PRIMARY KEY,
    value TEXT
);
CREATE INDEX idx_async_delegations_delivery
    ON async_delegations(delivery_state, completed_at);
CREATE INDEX idx_compression_locks_expires ON compression_locks(expires_at);
CREATE INDEX idx_messages_active_null
    ON messages(active) WHERE active IS NULL;
CREATE INDEX idx_messages_platform_msg_id ON messages(session_id, platform_message_id) WHERE platform_message_id IS NOT NULL;
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE INDEX idx_messages_session_active
    ON messages(session_id, active, timestamp);
CREATE INDEX idx_session_model_usage_model ON session_model_usage(model);
CREATE INDEX idx_session_model_usage_session ON session_model_usage(session_id);
CREATE INDEX idx_sessions_gateway_peer
    ON sessions(source, user_id, chat_id, chat_type, thread_id, started_at DESC);
CREATE INDEX idx_sessions_handoff_state
    ON sessions(handoff_state, started_at);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX idx_sessions_session_key
    ON sessions(session_key, started_at DESC);
CREATE INDEX idx_sessions_source ON sessions(source);
CREATE INDEX idx_sessions_source_id ON sessions(source, id);
CREATE INDEX idx_sessions_started ON sessions(started_at DESC);
CREATE UNIQUE INDEX idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL;
INSERT INTO "schema_version" VALUES(22);
INSERT INTO "sessions" VALUES('20260430_080000_a1b2c3','cli',NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,'gpt-5.2','{"cwd": "/work/app"}','You are Hermes.',NULL,1777536000.0,1777536026.0,'compression',7,1,0,0,0,0,0,'/work/app',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,0,NULL,0,0);
INSERT INTO "sessions" VALUES('20260430_080100_d4e5f6','tool',NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,'gpt-5.2',NULL,NULL,'20260430_080000_a1b2c3',1777536018.0,1777536023.0,'completed',4,1,0,0,0,0,0,'/work/app',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,0,NULL,0,0);
INSERT INTO "sessions" VALUES('20260430_090000_0a0b0c','cli',NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,'gpt-5.2',NULL,NULL,'20260430_080000_a1b2c3',1777536125.0,NULL,NULL,2,0,0,0,0,0,0,'/work/app',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,0,NULL,0,0);
INSERT INTO "sessions" VALUES('20260430_100000_fedcba','telegram',NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,'gpt-5.2',NULL,NULL,NULL,1777536127.0,NULL,NULL,2,0,0,0,0,0,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,0,NULL,0,0);
INSERT INTO "messages" VALUES(1,'20260430_080000_a1b2c3','user','List the files, then read go.mod.',NULL,NULL,NULL,NULL,1777536001.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,0,1,NULL);
INSERT INTO "messages" VALUES(2,'20260430_080000_a1b2c3','assistant','Listing.',NULL,'[{"id": "call_ls", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"ls\"}"}}]',NULL,NULL,1777536002.0,NULL,NULL,'I should list first.',NULL,NULL,NULL,NULL,NULL,0,0,1,NULL);
INSERT INTO "messages" VALUES(3,'20260430_080000_a1b2c3','tool','go.mod
main.go','call_ls',NULL,'terminal',NULL,1777536003.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,0,1,NULL);
INSERT INTO "messages" VALUES(4,'20260430_080000_a1b2c3','assistant','Two files: go.mod and main.go.',NULL,NULL,NULL,NULL,1777536004.0,NULL,'stop',NULL,NULL,NULL,NULL,NULL,NULL,0,0,1,NULL);
INSERT INTO "messages" VALUES(5,'20260430_080000_a1b2c3','user',CAST(X'006a736f6e3a5b7b2274797065223a202274657874222c202274657874223a20225768617420697320696e207468697320706963747572653f227d2c207b2274797065223a2022696d6167655f75726c222c2022696d6167655f75726c223a207b2275726c223a2022646174613a696d6167652f706e673b6261736536342c6956424f5277304b47676f3d227d7d5d' AS TEXT),NULL,NULL,NULL,NULL,1777536005.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,0,1,NULL);
INSERT INTO "messages" VALUES(6,'20260430_080000_a1b2c3','assistant','A tiny PNG.',NULL,NULL,NULL,NULL,1777536006.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,0,1,NULL);
INSERT INTO "messages" VALUES(7,'20260430_080000_a1b2c3','user','[Summary of earlier turns] Listed the files; looked at a picture.',NULL,NULL,NULL,NULL,1777536006.5,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,1,0,NULL);
INSERT INTO "messages" VALUES(8,'20260430_080000_a1b2c3','assistant','Understood, continuing from the summary.',NULL,NULL,NULL,NULL,1777536007.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,1,0,NULL);
INSERT INTO "messages" VALUES(9,'20260430_080000_a1b2c3','user','Now spawn a helper to count lines.',NULL,NULL,NULL,NULL,1777536017.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,1,0,NULL);
INSERT INTO "messages" VALUES(10,'20260430_080000_a1b2c3','assistant','Delegating.',NULL,'[{"id": "call_task", "type": "function", "function": {"name": "delegate_task", "arguments": "{\"goal\": \"count lines\"}"}}]',NULL,NULL,1777536018.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,1,0,NULL);
INSERT INTO "messages" VALUES(11,'20260430_080100_d4e5f6','user','Count lines in main.go.',NULL,NULL,NULL,NULL,1777536019.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,1,0,NULL);
INSERT INTO "messages" VALUES(12,'20260430_080100_d4e5f6','assistant','',NULL,'[{"id": "call_wc", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"wc -l main.go\"}"}}]',NULL,NULL,1777536020.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,1,0,NULL);
INSERT INTO "messages" VALUES(13,'20260430_080100_d4e5f6','tool','12 main.go','call_wc',NULL,'terminal',NULL,1777536021.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,1,0,NULL);
INSERT INTO "messages" VALUES(14,'20260430_080100_d4e5f6','assistant','main.go has 12 lines.',NULL,NULL,NULL,NULL,1777536022.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,1,0,NULL);
INSERT INTO "messages" VALUES(15,'20260430_080000_a1b2c3','tool','main.go has 12 lines.','call_task',NULL,'delegate_task',NULL,1777536023.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,1,0,NULL);
INSERT INTO "messages" VALUES(16,'20260430_080000_a1b2c3','assistant','The helper says 12 lines.',NULL,NULL,NULL,NULL,1777536024.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,1,0,NULL);
INSERT INTO "messages" VALUES(17,'20260430_080000_a1b2c3','user','Oops, ignore this.',NULL,NULL,NULL,NULL,1777536025.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL);
INSERT INTO "messages" VALUES(18,'20260430_090000_0a0b0c','user','Continue: add a README.',NULL,NULL,NULL,NULL,1777536126.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,1,0,NULL);
INSERT INTO "messages" VALUES(19,'20260430_090000_0a0b0c','assistant','Added README.md.',NULL,NULL,NULL,NULL,1777536127.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,1,0,NULL);
INSERT INTO "messages" VALUES(20,'20260430_100000_fedcba','user','Hello from Telegram.',NULL,NULL,NULL,NULL,1777536128.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,1,0,NULL);
INSERT INTO "messages" VALUES(21,'20260430_100000_fedcba','assistant','Hi!',NULL,NULL,NULL,NULL,1777536129.0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,1,0,NULL);
COMMIT;
