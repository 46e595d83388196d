-- Cline's SDK index of sessions (db/sessions.db), its sessions table as @cline/shared 0.0.86
-- creates it: the row the genuine run (sessions/1796216298934_43wm0) wrote, its sub-agent's,
-- and a row whose session has no files.
CREATE TABLE sessions (
  session_id TEXT PRIMARY KEY, source TEXT NOT NULL, pid INTEGER NOT NULL, started_at TEXT NOT NULL,
  ended_at TEXT, exit_code INTEGER, status TEXT NOT NULL, status_lock INTEGER NOT NULL DEFAULT 0,
  interactive INTEGER NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL, cwd TEXT NOT NULL,
  workspace_root TEXT NOT NULL, team_name TEXT, enable_tools INTEGER NOT NULL, enable_spawn INTEGER NOT NULL,
  enable_teams INTEGER NOT NULL, parent_session_id TEXT, parent_agent_id TEXT, agent_id TEXT,
  conversation_id TEXT, is_subagent INTEGER NOT NULL DEFAULT 0, prompt TEXT, metadata_json TEXT,
  transcript_path TEXT NOT NULL DEFAULT '', hook_path TEXT NOT NULL, messages_path TEXT, updated_at TEXT NOT NULL
);
INSERT INTO sessions VALUES ('1796216298934_43wm0','cli',15809,'2026-12-02T12:58:18.938Z','2026-12-02T12:58:19.928Z',0,'completed',0,0,'openai-compatible','fake-model','/home/example/work','/home/example/work','team-Qbwb2',1,1,1,NULL,NULL,NULL,NULL,0,'list the files here','{"title":"list the files here"}','','','/home/example/.cline/data/sessions/1796216298934_43wm0/1796216298934_43wm0.messages.json','2026-12-02T12:58:19.928Z');
INSERT INTO sessions VALUES ('1796216298934_43wm0__agent_1796216299500_ab12c','cli',15809,'2026-12-02T12:58:19.500Z','2026-12-02T12:58:19.600Z',0,'completed',0,0,'openai-compatible','fake-model','/home/example/work','/home/example/work',NULL,1,0,0,'1796216298934_43wm0','agent_1796216299186_rpaea6','agent_1796216299500_ab12c','conv_1',1,'Count the files','{}','','','/home/example/.cline/data/sessions/1796216298934_43wm0/agent_1796216299500_ab12c.messages.json','2026-12-02T12:58:19.600Z');
INSERT INTO sessions VALUES ('1796216500000_dbonly','cli',16001,'2026-12-02T13:01:40.000Z',NULL,NULL,'running',0,1,'cline','anthropic/claude-sonnet-4.6','/home/example/other','/home/example/other',NULL,1,1,1,NULL,NULL,NULL,NULL,0,NULL,NULL,'','',NULL,'2026-12-02T13:01:40.000Z');
