PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE schema_version (
    version INTEGER PRIMARY KEY,
    applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO schema_version VALUES(1,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(2,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(3,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(4,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(5,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(6,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(7,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(8,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(9,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(10,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(11,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(12,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(13,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(14,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(15,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(16,'2026-04-01 00:00:00');
INSERT INTO schema_version VALUES(17,'2026-04-01 00:00:00');
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE,
    session_type TEXT NOT NULL DEFAULT 'user',
    working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER,
    input_tokens INTEGER,
    output_tokens INTEGER,
    cache_read_tokens INTEGER,
    cache_write_tokens INTEGER,
    accumulated_total_tokens INTEGER,
    accumulated_input_tokens INTEGER,
    accumulated_output_tokens INTEGER,
    accumulated_cache_read_tokens INTEGER,
    accumulated_cache_write_tokens INTEGER,
    accumulated_cost REAL,
    schedule_id TEXT,
    recipe_json TEXT,
    user_recipe_values_json TEXT,
    provider_name TEXT,
    model_config_json TEXT,
    goose_mode TEXT NOT NULL DEFAULT 'auto',
    archived_at TIMESTAMP,
    project_id TEXT,
    parent_session_id TEXT,
    parent_delegation TEXT,
    thread_id TEXT
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER,
    metadata_json TEXT
);
CREATE TABLE usage_ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    created_timestamp INTEGER NOT NULL,
    model TEXT,
    input_tokens INTEGER,
    output_tokens INTEGER,
    total_tokens INTEGER,
    cache_read_tokens INTEGER,
    cache_write_tokens INTEGER,
    cost REAL,
    cost_source TEXT,
    is_compaction INTEGER DEFAULT 0
);
CREATE TABLE threads (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL DEFAULT 'New Chat',
    user_set_name BOOLEAN DEFAULT FALSE,
    working_dir TEXT,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    archived_at TIMESTAMP,
    metadata_json TEXT DEFAULT '{}'
);
INSERT INTO sessions (id,name,description,user_set_name,session_type,working_dir,created_at,updated_at,extension_data,total_tokens,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,accumulated_total_tokens,accumulated_input_tokens,accumulated_output_tokens,accumulated_cache_read_tokens,accumulated_cache_write_tokens,accumulated_cost,schedule_id,recipe_json,user_recipe_values_json,provider_name,model_config_json,goose_mode,archived_at,project_id,parent_session_id,parent_delegation,thread_id) VALUES('20260501_1','Fix the flaky test','',0,'user','/home/dev/proj','2026-05-01 09:00:00','2026-05-01 09:00:00','{"todo.v0":{"content":"- [x] find the race"}}',NULL,NULL,NULL,NULL,NULL,5400,5000,400,NULL,NULL,0.021,NULL,NULL,NULL,'anthropic','{"model_name":"claude-sonnet-4-5","context_limit":null,"temperature":null,"max_tokens":null,"toolshim":false,"toolshim_model":null}','auto',NULL,NULL,NULL,NULL,NULL);
INSERT INTO sessions (id,name,description,user_set_name,session_type,working_dir,created_at,updated_at,extension_data,total_tokens,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,accumulated_total_tokens,accumulated_input_tokens,accumulated_output_tokens,accumulated_cache_read_tokens,accumulated_cache_write_tokens,accumulated_cost,schedule_id,recipe_json,user_recipe_values_json,provider_name,model_config_json,goose_mode,archived_at,project_id,parent_session_id,parent_delegation,thread_id) VALUES('20260501_2','Check the other tests','',0,'sub_agent','/home/dev/proj','2026-05-01 09:00:20','2026-05-01 09:00:20','{}',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'anthropic','{"model_name":"claude-sonnet-4-5","context_limit":null,"temperature":null,"max_tokens":null,"toolshim":false,"toolshim_model":null}','auto',NULL,NULL,'20260501_1','{"execution_mode":"foreground","parent_delegate_message_id":"msg_20260501_1_x","result_delivered_to_parent":true}',NULL);
INSERT INTO sessions (id,name,description,user_set_name,session_type,working_dir,created_at,updated_at,extension_data,total_tokens,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,accumulated_total_tokens,accumulated_input_tokens,accumulated_output_tokens,accumulated_cache_read_tokens,accumulated_cache_write_tokens,accumulated_cost,schedule_id,recipe_json,user_recipe_values_json,provider_name,model_config_json,goose_mode,archived_at,project_id,parent_session_id,parent_delegation,thread_id) VALUES('20260501_3','Nightly report','',0,'scheduled','/home/dev/proj','2026-05-01 23:00:00','2026-05-01 23:00:00','{}',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'nightly-report',NULL,NULL,'anthropic','{"model_name":"claude-sonnet-4-5","context_limit":null,"temperature":null,"max_tokens":null,"toolshim":false,"toolshim_model":null}','auto',NULL,NULL,NULL,NULL,NULL);
INSERT INTO sessions (id,name,description,user_set_name,session_type,working_dir,created_at,updated_at,extension_data,total_tokens,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,accumulated_total_tokens,accumulated_input_tokens,accumulated_output_tokens,accumulated_cache_read_tokens,accumulated_cache_write_tokens,accumulated_cost,schedule_id,recipe_json,user_recipe_values_json,provider_name,model_config_json,goose_mode,archived_at,project_id,parent_session_id,parent_delegation,thread_id) VALUES('20260502_1','ACP Session','',0,'acp','/home/dev/other','2026-05-02 08:00:00','2026-05-02 08:00:00','{}',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'anthropic','{"model_name":"claude-sonnet-4-5","context_limit":null,"temperature":null,"max_tokens":null,"toolshim":false,"toolshim_model":null}','auto','2026-05-03 08:00:00',NULL,NULL,NULL,NULL);
INSERT INTO sessions (id,name,description,user_set_name,session_type,working_dir,created_at,updated_at,extension_data,total_tokens,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,accumulated_total_tokens,accumulated_input_tokens,accumulated_output_tokens,accumulated_cache_read_tokens,accumulated_cache_write_tokens,accumulated_cost,schedule_id,recipe_json,user_recipe_values_json,provider_name,model_config_json,goose_mode,archived_at,project_id,parent_session_id,parent_delegation,thread_id) VALUES('20260502_2','','',0,'terminal','/home/dev/proj','2026-05-02 09:00:00','2026-05-02 09:00:00','{}',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'anthropic','{"model_name":"claude-sonnet-4-5","context_limit":null,"temperature":null,"max_tokens":null,"toolshim":false,"toolshim_model":null}','auto',NULL,NULL,NULL,NULL,NULL);
INSERT INTO sessions (id,name,description,user_set_name,session_type,working_dir,created_at,updated_at,extension_data,total_tokens,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,accumulated_total_tokens,accumulated_input_tokens,accumulated_output_tokens,accumulated_cache_read_tokens,accumulated_cache_write_tokens,accumulated_cost,schedule_id,recipe_json,user_recipe_values_json,provider_name,model_config_json,goose_mode,archived_at,project_id,parent_session_id,parent_delegation,thread_id) VALUES('20260502_3','title generation','',0,'hidden','/home/dev/proj','2026-05-02 09:05:00','2026-05-02 09:05:00','{}',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'anthropic','{"model_name":"claude-sonnet-4-5","context_limit":null,"temperature":null,"max_tokens":null,"toolshim":false,"toolshim_model":null}','auto',NULL,NULL,NULL,NULL,NULL);
INSERT INTO sessions (id,name,description,user_set_name,session_type,working_dir,created_at,updated_at,extension_data,total_tokens,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,accumulated_total_tokens,accumulated_input_tokens,accumulated_output_tokens,accumulated_cache_read_tokens,accumulated_cache_write_tokens,accumulated_cost,schedule_id,recipe_json,user_recipe_values_json,provider_name,model_config_json,goose_mode,archived_at,project_id,parent_session_id,parent_delegation,thread_id) VALUES('20260502_4','Telegram chat','',0,'gateway','/home/dev','2026-05-02 10:00:00','2026-05-02 10:00:00','{}',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'anthropic','{"model_name":"claude-sonnet-4-5","context_limit":null,"temperature":null,"max_tokens":null,"toolshim":false,"toolshim_model":null}','auto',NULL,NULL,NULL,NULL,NULL);
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(1,'msg_20260501_1_00000000-0000-4000-8000-000000000001','20260501_1','user','[{"type":"text","text":"The test TestWatch fails one run in ten. Find out why."}]',1777626001,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":false}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(2,'msg_20260501_1_00000000-0000-4000-8000-000000000002','20260501_1','assistant','[{"type":"thinking","thinking":"Probably a timing assumption in the watcher.","signature":"sig-1"},{"type":"text","text":"Let me look at the test first."},{"type":"toolRequest","id":"toolu_01","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"grep -n Sleep watch_test.go"}}}}]',1777626005,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":false}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(3,'msg_20260501_1_00000000-0000-4000-8000-000000000003','20260501_1','user','[{"type":"toolResponse","id":"toolu_01","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"42:\ttime.Sleep(10 * time.Millisecond)"}],"isError":false}}}]',1777626005,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":false}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(4,'msg_20260501_1_00000000-0000-4000-8000-000000000004','20260501_1','assistant','[{"type":"text","text":"Line 42 sleeps 10 ms and assumes the event arrived by then."}]',1777626009,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":false}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(5,'msg_20260501_1_00000000-0000-4000-8000-000000000005','20260501_1','user','[{"type":"text","text":"Here is the CI log."},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]',1777626030,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(6,'msg_20260501_1_00000000-0000-4000-8000-000000000006','20260501_1','user','[{"type":"text","text":"Summary of the conversation so far: the flaky test sleeps 10 ms at line 42 instead of waiting for the event."}]',1777626031,'2026-05-01 09:00:00',NULL,'{"userVisible":false,"agentVisible":true}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(7,'msg_20260501_1_00000000-0000-4000-8000-000000000007','20260501_1','assistant','[{"type":"systemNotification","notificationType":"inlineMessage","msg":"Context compacted"}]',1777626031,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":false}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(8,'msg_20260501_1_00000000-0000-4000-8000-000000000008','20260501_1','assistant','[{"type":"text","text":"I will replace the sleep with a wait on the channel."},{"type":"toolRequest","id":"toolu_02","toolCall":{"status":"success","value":{"name":"developer__text_editor","arguments":{"command":"str_replace","path":"watch_test.go","old_str":"time.Sleep(10 * time.Millisecond)","new_str":"<-events"}}}}]',1777626040,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(9,'msg_20260501_1_00000000-0000-4000-8000-000000000009','20260501_1','user','[{"type":"actionRequired","data":{"actionType":"toolConfirmation","id":"toolu_02","toolName":"developer__text_editor","arguments":{},"prompt":null}}]',1777626040,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":false}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(10,'msg_20260501_1_00000000-0000-4000-8000-000000000010','20260501_1','user','[{"type":"toolResponse","id":"toolu_02","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"The file watch_test.go has been edited"}],"isError":false}}}]',1777626041,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(11,'msg_20260501_1_00000000-0000-4000-8000-000000000011','20260501_1','assistant','[{"type":"futureBlock","payload":1},{"type":"text","text":"Fixed: the test now waits for the event."}]',1777626045000,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(12,'msg_20260501_2_00000000-0000-4000-8000-000000000012','20260501_2','user','[{"type":"text","text":"Look for other sleeps in the tests."}]',1777626020,'2026-05-01 09:00:00',NULL,'{"userVisible":false,"agentVisible":true}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(13,'msg_20260501_2_00000000-0000-4000-8000-000000000013','20260501_2','assistant','[{"type":"toolRequest","id":"toolu_11","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"grep -rn Sleep ./..."}}}},{"type":"toolRequest","id":"toolu_12","toolCall":{"status":"error","error":"-32602: invalid JSON in arguments"}}]',1777626021,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(14,'msg_20260501_2_00000000-0000-4000-8000-000000000014','20260501_2','user','[{"type":"toolResponse","id":"toolu_11","toolResult":{"status":"error","error":"-32603: grep: ./...: No such file or directory"}},{"type":"toolResponse","id":"toolu_12","toolResult":{"status":"error","error":"-32602: invalid JSON in arguments"}}]',1777626021,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(15,'msg_20260501_2_00000000-0000-4000-8000-000000000015','20260501_2','assistant','[{"type":"text","text":"No other sleeps found."}]',1777626022,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(16,'msg_20260501_3_00000000-0000-4000-8000-000000000016','20260501_3','user','[{"type":"text","text":"Summarise today''s commits."}]',1777676400,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(17,'msg_20260501_3_00000000-0000-4000-8000-000000000017','20260501_3','assistant','[{"type":"reasoning","text":"Old goose wrote reasoning blocks."},{"type":"text","text":"Three commits, all tests green."}]',1777676410,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(18,'msg_20260502_1_00000000-0000-4000-8000-000000000018','20260502_1','user','[{"type":"text","text":"hello from the editor"}]',1777708800,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(19,'msg_20260502_1_00000000-0000-4000-8000-000000000019','20260502_1','assistant','[{"type":"text","text":"Hello! What shall we work on?"}]',1777708801,'2026-05-01 09:00:00',NULL,NULL);
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(20,'msg_20260502_3_00000000-0000-4000-8000-000000000020','20260502_3','user','[{"type":"text","text":"Name this conversation in four words."}]',1777712700,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(21,'msg_20260502_4_00000000-0000-4000-8000-000000000021','20260502_4','user','[{"type":"text","text":"status of the nightly build?"}]',1777716000,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (id,message_id,session_id,role,content_json,created_timestamp,timestamp,tokens,metadata_json) VALUES(22,'msg_20260502_4_00000000-0000-4000-8000-000000000022','20260502_4','assistant','[{"type":"text","text":"It passed at 23:01."}]',1777716002,'2026-05-01 09:00:00',NULL,'{"userVisible":true,"agentVisible":true}');
INSERT INTO usage_ledger VALUES(1,'20260501_1',1777626005,'claude-sonnet-4-5',5000,400,5400,NULL,NULL,0.021,'estimated',0);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE INDEX idx_messages_session_created ON messages(session_id, created_timestamp, id);
CREATE INDEX idx_sessions_type ON sessions(session_type);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
COMMIT;
