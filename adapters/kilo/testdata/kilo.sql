-- A small Kilo CLI database, kilo.db, in OpenCode's format (the 1.18 schema, core tables
-- only): adapters/opencode's fixture script, adapted. A parent session with tool calls, a
-- compaction and odd rows, a task-tool child session, and a session without a directory
-- that holds a part of a type no Kilo knows ("frobnicate"). Times are Unix milliseconds.
-- Message and part ids have the shape Kilo mints (MessageID/PartID.ascending): prefix, 12 hex
-- digits of (ms*0x1000 + 1) mod 2^48 from the row's time_created, then 14 base62 characters
-- (here the old hand-made name padded with "PondFixture"). Kilo CLI counts on that order:
-- while it answers a prompt it drops every user message whose id sorts after the prompt's own
-- (its queue's scope, for prompts queued after it), so hand-made ids such as msg_s01 left the
-- model a resumed session's new message alone (see README.md).
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE `project` (
  `id` text PRIMARY KEY,
  `worktree` text NOT NULL,
  `vcs` text,
  `name` text,
  `icon_url` text,
  `icon_url_override` text,
  `icon_color` text,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL,
  `time_initialized` integer,
  `sandboxes` text NOT NULL,
  `commands` text
);
CREATE TABLE `session` (
  `id` text PRIMARY KEY,
  `project_id` text NOT NULL,
  `workspace_id` text,
  `parent_id` text,
  `slug` text NOT NULL,
  `directory` text NOT NULL,
  `path` text,
  `title` text NOT NULL,
  `version` text NOT NULL,
  `share_url` text,
  `summary_additions` integer,
  `summary_deletions` integer,
  `summary_files` integer,
  `summary_diffs` text,
  `metadata` text,
  `cost` real DEFAULT 0 NOT NULL,
  `tokens_input` integer DEFAULT 0 NOT NULL,
  `tokens_output` integer DEFAULT 0 NOT NULL,
  `tokens_reasoning` integer DEFAULT 0 NOT NULL,
  `tokens_cache_read` integer DEFAULT 0 NOT NULL,
  `tokens_cache_write` integer DEFAULT 0 NOT NULL,
  `revert` text,
  `permission` text,
  `agent` text,
  `model` text,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL,
  `time_compacting` integer,
  `time_archived` integer,
  CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
);
CREATE TABLE `message` (
  `id` text PRIMARY KEY,
  `session_id` text NOT NULL,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL,
  `data` text NOT NULL,
  CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
);
CREATE TABLE `part` (
  `id` text PRIMARY KEY,
  `message_id` text NOT NULL,
  `session_id` text NOT NULL,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL,
  `data` text NOT NULL,
  CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE
);
CREATE TABLE `session_message` (
  `id` text PRIMARY KEY,
  `session_id` text NOT NULL,
  `type` text NOT NULL,
  `seq` integer NOT NULL,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL,
  `data` text NOT NULL,
  CONSTRAINT `fk_session_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
);
INSERT INTO project VALUES('a1b2c3d4','/work/app','git','app',NULL,NULL,NULL,1789995000000,1790000000000,NULL,'[]',NULL);
INSERT INTO project VALUES('global','/',NULL,NULL,NULL,NULL,NULL,1789995000000,1789995000000,NULL,'[]',NULL);
INSERT INTO session VALUES('ses_parent','a1b2c3d4',NULL,NULL,'brave-otter','/work/app',NULL,'Add a health check','1.18.33',NULL,0,0,0,NULL,NULL,0.0,0,0,0,0,0,NULL,'[{"permission":"question","pattern":"*","action":"deny"}]','build','{"id":"claude-sonnet-4","providerID":"anthropic"}',1790000000000,1790000040500,NULL,NULL);
INSERT INTO session VALUES('ses_child','a1b2c3d4',NULL,'ses_parent','calm-heron','/work/app',NULL,'Find the router (@explore subagent)','1.18.33',NULL,0,0,0,NULL,NULL,0.0,0,0,0,0,0,NULL,'[{"permission":"question","pattern":"*","action":"deny"}]','build','{"id":"claude-sonnet-4","providerID":"anthropic"}',1790000004000,1790000004900,NULL,NULL);
INSERT INTO session VALUES('ses_shared','global',NULL,NULL,'quiet-lake','/work/shared',NULL,'What does this repo do','1.18.33',NULL,0,0,0,NULL,NULL,0.0,0,0,0,0,0,NULL,'[{"permission":"question","pattern":"*","action":"deny"}]','build','{"id":"claude-sonnet-4","providerID":"anthropic"}',1789999000000,1789999003000,NULL,NULL);
INSERT INTO session VALUES('ses_global','global',NULL,NULL,'still-pond','',NULL,'Hello','1.18.33',NULL,0,0,0,NULL,NULL,0.0,0,0,0,0,0,NULL,'[{"permission":"question","pattern":"*","action":"deny"}]','build','{"id":"claude-sonnet-4","providerID":"anthropic"}',1789998000000,1789998001000,NULL,NULL);
INSERT INTO message VALUES('msg_0c4506fe8001p01PondFixture','ses_parent',1790000001000,1790000001500,'{"role":"user","time":{"created":1790000001000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4"}}');
INSERT INTO part VALUES('prt_0c4506ff2001p01aPondFixtur','msg_0c4506fe8001p01PondFixture','ses_parent',1790000001010,1790000001011,'{"type":"text","text":"Add a /healthz endpoint to the router"}');
INSERT INTO part VALUES('prt_0c4506ff3001p01bPondFixtur','msg_0c4506fe8001p01PondFixture','ses_parent',1790000001011,1790000001012,'{"type":"file","mime":"text/plain","filename":"notes.txt","url":"data:text/plain;base64,a2VlcCBpdCBzbWFsbAo=","source":{"type":"file","path":"notes.txt","text":{"value":"@notes.txt","start":0,"end":10}}}');
INSERT INTO part VALUES('prt_0c4506ff4001p01cPondFixtur','msg_0c4506fe8001p01PondFixture','ses_parent',1790000001012,1790000001013,'{"type":"text","synthetic":true,"text":"Called the Read tool with the following input: {\"filePath\":\"/work/app/notes.txt\"}"}');
INSERT INTO part VALUES('prt_0c4506ff5001p01dPondFixtur','msg_0c4506fe8001p01PondFixture','ses_parent',1790000001013,1790000001014,'{"type":"agent","name":"explore","source":{"value":"@explore","start":0,"end":8}}');
INSERT INTO message VALUES('msg_0c45073d0001p02PondFixture','ses_parent',1790000002000,1790000002500,'{"parentID":"msg_0c4506fe8001p01PondFixture","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/work/app","root":"/work/app"},"cost":0.01,"tokens":{"total":150,"input":100,"output":50,"reasoning":0,"cache":{"read":0,"write":0}},"modelID":"claude-sonnet-4","providerID":"anthropic","time":{"created":1790000002000,"completed":1790000002900},"finish":"tool-calls"}');
INSERT INTO part VALUES('prt_0c45073da001p02aPondFixtur','msg_0c45073d0001p02PondFixture','ses_parent',1790000002010,1790000002011,'{"type":"step-start","snapshot":"4b825dc6"}');
INSERT INTO part VALUES('prt_0c45073e4001p02bPondFixtur','msg_0c45073d0001p02PondFixture','ses_parent',1790000002020,1790000002021,'{"type":"reasoning","text":"The router lives in router.go; read it first.","metadata":{"anthropic":{"signature":"sig-0001"}},"time":{"start":1790000002020,"end":1790000002030}}');
INSERT INTO part VALUES('prt_0c45073f8001p02cPondFixtur','msg_0c45073d0001p02PondFixture','ses_parent',1790000002040,1790000002041,'{"type":"text","text":"I''ll read the router first.","time":{"start":1790000002040,"end":1790000002050}}');
INSERT INTO part VALUES('prt_0c450740c001p02dPondFixtur','msg_0c45073d0001p02PondFixture','ses_parent',1790000002060,1790000002061,'{"type":"tool","callID":"toolu_01","tool":"read","state":{"status":"completed","input":{"filePath":"/work/app/router.go"},"output":"<file>\npackage app\n</file>","title":"router.go","metadata":{"preview":"package app"},"time":{"start":1790000002061,"end":1790000002070}}}');
INSERT INTO part VALUES('prt_0c4507420001p02ePondFixtur','msg_0c45073d0001p02PondFixture','ses_parent',1790000002080,1790000002081,'{"type":"tool","callID":"toolu_02","tool":"bash","state":{"status":"error","input":{"command":"go test ./..."},"error":"exit status 1","time":{"start":1790000002081,"end":1790000002090}}}');
INSERT INTO part VALUES('prt_0c4507434001p02fPondFixtur','msg_0c45073d0001p02PondFixture','ses_parent',1790000002100,1790000002101,'{"type":"tool","callID":"toolu_03","tool":"task","metadata":{"providerExecuted":false},"state":{"status":"completed","input":{"description":"Find the router","prompt":"Find where routes are registered","subagent_type":"explore"},"output":"Routes are registered in router.go.","title":"Find the router","metadata":{"sessionId":"ses_child"},"time":{"start":1790000002101,"end":1790000005000}}}');
INSERT INTO part VALUES('prt_0c4507f92001p02gPondFixtur','msg_0c45073d0001p02PondFixture','ses_parent',1790000005010,1790000005011,'{"type":"step-finish","reason":"tool-calls","snapshot":"4b825dc7","cost":0.01,"tokens":{"total":150,"input":100,"output":50,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES('prt_0c4507f9c001p02hPondFixtur','msg_0c45073d0001p02PondFixture','ses_parent',1790000005020,1790000005021,'{"type":"patch","hash":"4b825dc7","files":["/work/app/router.go"]}');
INSERT INTO message VALUES('msg_0c4509310001p03PondFixture','ses_parent',1790000010000,1790000010500,'{"parentID":"msg_0c4506fe8001p01PondFixture","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/work/app","root":"/work/app"},"cost":0.01,"tokens":{"total":150,"input":100,"output":50,"reasoning":0,"cache":{"read":0,"write":0}},"modelID":"claude-sonnet-4","providerID":"anthropic","time":{"created":1790000010000,"completed":1790000010900},"finish":"stop"}');
INSERT INTO part VALUES('prt_0c450931a001p03aPondFixtur','msg_0c4509310001p03PondFixture','ses_parent',1790000010010,1790000010011,'{"type":"step-start"}');
INSERT INTO part VALUES('prt_0c4509324001p03bPondFixtur','msg_0c4509310001p03PondFixture','ses_parent',1790000010020,1790000010021,'{"type":"text","text":"Added GET /healthz."}');
INSERT INTO part VALUES('prt_0c450932e001p03cPondFixtur','msg_0c4509310001p03PondFixture','ses_parent',1790000010030,1790000010031,'{"type":"tool","callID":"toolu_04","tool":"edit","state":{"status":"running","input":{"filePath":"/work/app/router.go"},"time":{"start":1790000010031}}}');
INSERT INTO part VALUES('prt_0c4509338001p03dPondFixtur','msg_0c4509310001p03PondFixture','ses_parent',1790000010040,1790000010041,'{"type":"tool","callID":"toolu_05","tool":"glob","state":{"status":"pending","input":{},"raw":""}}');
INSERT INTO part VALUES('prt_0c4509342001p03ePondFixtur','msg_0c4509310001p03PondFixture','ses_parent',1790000010050,1790000010051,'{"type":"text","text":"Still editing."}');
INSERT INTO part VALUES('prt_0c450934c001p03fPondFixtur','msg_0c4509310001p03PondFixture','ses_parent',1790000010060,1790000010061,'{"type":"retry","attempt":1,"error":{"name":"APIError","data":{"message":"overloaded","isRetryable":true}},"time":{"created":1790000010060}}');
INSERT INTO message VALUES('msg_0c450ba20001p04PondFixture','ses_parent',1790000020000,1790000020500,'{"role":"user","time":{"created":1790000020000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4"}}');
INSERT INTO part VALUES('prt_0c450ba2a001p04aPondFixtur','msg_0c450ba20001p04PondFixture','ses_parent',1790000020010,1790000020011,'{"type":"compaction","auto":true,"overflow":false}');
INSERT INTO message VALUES('msg_0c450be08001p05PondFixture','ses_parent',1790000021000,1790000021500,'{"parentID":"msg_0c450ba20001p04PondFixture","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/work/app","root":"/work/app"},"cost":0.01,"tokens":{"total":150,"input":100,"output":50,"reasoning":0,"cache":{"read":0,"write":0}},"modelID":"claude-sonnet-4","providerID":"anthropic","time":{"created":1790000021000,"completed":1790000021900},"finish":"stop","summary":true}');
INSERT INTO part VALUES('prt_0c450be12001p05aPondFixtur','msg_0c450be08001p05PondFixture','ses_parent',1790000021010,1790000021011,'{"type":"text","text":"Summary: we added GET /healthz; go test still fails."}');
INSERT INTO part VALUES('prt_0c450be1c001p05bPondFixtur','msg_0c450be08001p05PondFixture','ses_parent',1790000021020,1790000021021,'{"type":"step-finish","reason":"stop","cost":0,"tokens":{"total":150,"input":100,"output":50,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO message VALUES('msg_0c450e130001p06PondFixture','ses_parent',1790000030000,1790000030500,'{not json');
INSERT INTO part VALUES('prt_0c450e13a001p06aPondFixtur','msg_0c450e130001p06PondFixture','ses_parent',1790000030010,1790000030011,'{"type":"text","text":"lost with its message"}');
INSERT INTO message VALUES('msg_0c4510840001p07PondFixture','ses_parent',1790000040000,1790000040500,'{"role":"user","time":{"created":1790000040000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4"}}');
INSERT INTO part VALUES('prt_0c451084a001p07aPondFixtur','msg_0c4510840001p07PondFixture','ses_parent',1790000040010,1790000040011,'{"type":"text","text":"Review the change","mood":"curious"}');
INSERT INTO part VALUES('prt_0c4510854001p07bPondFixtur','msg_0c4510840001p07PondFixture','ses_parent',1790000040020,1790000040021,'{"type":"subtask","prompt":"Review the change","description":"Review","agent":"general"}');
INSERT INTO part VALUES('prt_0c451085e001p07cPondFixtur','msg_0c4510840001p07PondFixture','ses_parent',1790000040030,1790000040031,'[1,2');
INSERT INTO part VALUES('prt_0c4510868001orphanPondFixt','msg_0c4510863001gonePondFixtur','ses_parent',1790000040040,1790000040041,'{"type":"text","text":"belongs to no message"}');
INSERT INTO message VALUES('msg_0c4507c04001c01PondFixture','ses_child',1790000004100,1790000004600,'{"role":"user","time":{"created":1790000004100},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4"}}');
INSERT INTO part VALUES('prt_0c4507c0e001c01aPondFixtur','msg_0c4507c04001c01PondFixture','ses_child',1790000004110,1790000004111,'{"type":"text","text":"Find where routes are registered"}');
INSERT INTO message VALUES('msg_0c4507c68001c02PondFixture','ses_child',1790000004200,1790000004700,'{"parentID":"msg_0c4507c04001c01PondFixture","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/work/app","root":"/work/app"},"cost":0.01,"tokens":{"total":150,"input":100,"output":50,"reasoning":0,"cache":{"read":0,"write":0}},"modelID":"claude-sonnet-4","providerID":"anthropic","time":{"created":1790000004200,"completed":1790000005100},"finish":"stop"}');
INSERT INTO part VALUES('prt_0c4507c72001c02aPondFixtur','msg_0c4507c68001c02PondFixture','ses_child',1790000004210,1790000004211,'{"type":"tool","callID":"toolu_11","tool":"grep","state":{"status":"completed","input":{"pattern":"HandleFunc"},"output":"router.go:12","title":"HandleFunc","metadata":{"matches":1},"time":{"start":1790000004211,"end":1790000004220}}}');
INSERT INTO part VALUES('prt_0c4507c86001c02bPondFixtur','msg_0c4507c68001c02PondFixture','ses_child',1790000004230,1790000004231,'{"type":"text","text":"Routes are registered in router.go."}');
INSERT INTO session_message VALUES('smsg_c1','ses_child','agent-switched',1,1790000004050,1790000004050,'{"type":"agent-switched","agent":"explore","time":{"created":1790000004050}}');
INSERT INTO message VALUES('msg_0c4412da8001s01PondFixture','ses_shared',1789999001000,1789999001500,'{"role":"user","time":{"created":1789999001000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4"}}');
INSERT INTO part VALUES('prt_0c4412db2001s01aPondFixtur','msg_0c4412da8001s01PondFixture','ses_shared',1789999001010,1789999001011,'{"type":"text","text":"What does this repo do?"}');
INSERT INTO message VALUES('msg_0c4413190001s02PondFixture','ses_shared',1789999002000,1789999002500,'{"parentID":"msg_0c4412da8001s01PondFixture","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/work/app","root":"/work/app"},"cost":0.01,"tokens":{"total":150,"input":100,"output":50,"reasoning":0,"cache":{"read":0,"write":0}},"modelID":"claude-sonnet-4","providerID":"anthropic","time":{"created":1789999002000,"completed":1789999002900},"finish":"stop"}');
INSERT INTO part VALUES('prt_0c441319a001s02aPondFixtur','msg_0c4413190001s02PondFixture','ses_shared',1789999002010,1789999002011,'{"type":"text","text":"It is a small web app."}');
INSERT INTO message VALUES('msg_0c431e974001g01PondFixture','ses_global',1789998000500,1789998001000,'{"role":"user","time":{"created":1789998000500},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4"}}');
INSERT INTO part VALUES('prt_0c431e97e001g01aPondFixtur','msg_0c431e974001g01PondFixture','ses_global',1789998000510,1789998000511,'{"type":"text","text":"hi"}');
INSERT INTO part VALUES('prt_0c431e988001g01bPondFixtur','msg_0c431e974001g01PondFixture','ses_global',1789998000520,1789998000521,'{"type":"frobnicate","level":3}');
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
CREATE INDEX `part_session_idx` ON `part` (`session_id`);
CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);
COMMIT;
