-- Cursor's global state database (User/globalStorage/state.vscdb), written by hand for the
-- cursor adapter's tests on the shape Cursor 2.x and 3.x give it: the key-value tables (key
-- UNIQUE ON CONFLICT REPLACE), composers and their bubbles in cursorDiskKV, the 3.x
-- composerHeaders table. Composers:
--   …0001  a modern agent chat (fullConversationHeadersOnly): thinking, text, a finished tool
--          call and a failed one, a bubble the headers do not list yet, a malformed bubble, a
--          bubble that is JSON null, a bubble of an unknown type; sub-agent …0002
--   …0002  its sub-agent (named by the parent's subComposerIds); its folder from a bubble
--   …0003  an old build's chat: the bubbles inline in the record's conversation
--   …0004  an empty chat (opened, nothing sent)
--   …0005  bubbles whose composer record is gone
--   …0006  a 3.x sub-agent that only the headers mark, in workspace ws-one
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, createdAt INTEGER, lastUpdatedAt INTEGER, value TEXT);
INSERT INTO ItemTable VALUES('cursorAuth/cachedSignUpType','Auth_0');
INSERT INTO ItemTable VALUES('composer.composerHeaders','{"allComposers":[{"type":"head","composerId":"0b5e6c1a-1111-4a4a-8a8a-000000000001","name":"Fix the cart total","createdAt":1764590400000,"lastUpdatedAt":1764590460000,"unifiedMode":"agent"}]}');
INSERT INTO composerHeaders VALUES('0b5e6c1a-1111-4a4a-8a8a-000000000006','ws-one',1764590700000,1764590720000,'{"composerId":"0b5e6c1a-1111-4a4a-8a8a-000000000006","name":"Explore tests","isSubagent":true,"unifiedMode":"agent"}');
INSERT INTO cursorDiskKV VALUES('composerData:0b5e6c1a-1111-4a4a-8a8a-000000000001','{"_v":10,"composerId":"0b5e6c1a-1111-4a4a-8a8a-000000000001","name":"Fix the cart total","text":"","richText":"","createdAt":1764590400000,"lastUpdatedAt":1764590460000,"status":"completed","unifiedMode":"agent","isAgentic":true,"modelConfig":{"modelName":"claude-4.5-sonnet","maxMode":false},"fullConversationHeadersOnly":[{"bubbleId":"b1-user","type":1},{"bubbleId":"b1-think","type":2,"serverBubbleId":"s-1"},{"bubbleId":"b1-read","type":2},{"bubbleId":"b1-test","type":2},{"bubbleId":"b1-bad","type":2},{"bubbleId":"b1-null","type":2},{"bubbleId":"b1-odd","type":2},{"bubbleId":"b1-user2","type":1},{"bubbleId":"b1-answer","type":2},{"bubbleId":"b1-missing","type":2}],"conversationMap":{},"subComposerIds":["0b5e6c1a-1111-4a4a-8a8a-000000000002"],"context":{"fileSelections":[{"uri":{"fsPath":"/home/dev/shop/cart.go"}}]}}');
INSERT INTO cursorDiskKV VALUES('bubbleId:0b5e6c1a-1111-4a4a-8a8a-000000000001:b1-user','{"_v":3,"type":1,"bubbleId":"b1-user","text":"The cart total is off by one cent. Fix it.","richText":"{\"root\":{}}","createdAt":"2025-12-01T12:00:01.000Z","requestId":"r-1","workspaceUris":["file:///home/dev/shop"]}');
INSERT INTO cursorDiskKV VALUES('bubbleId:0b5e6c1a-1111-4a4a-8a8a-000000000001:b1-think','{"_v":3,"type":2,"bubbleId":"b1-think","text":"Let me look at the rounding in cart.go.","thinking":{"text":"Rounding happens per line; sum first.","signature":"sig-1"},"createdAt":"2025-12-01T12:00:05.000Z","tokenCount":{"inputTokens":812,"outputTokens":40}}');
INSERT INTO cursorDiskKV VALUES('bubbleId:0b5e6c1a-1111-4a4a-8a8a-000000000001:b1-read','{"_v":3,"type":2,"bubbleId":"b1-read","text":"","toolFormerData":{"tool":40,"toolIndex":0,"toolCallId":"toolu_01","status":"completed","name":"read_file","rawArgs":"{\"target_file\":\"cart.go\"}","params":"{\"targetFile\":\"cart.go\"}","result":"{\"contents\":\"package shop\\n\"}","additionalData":{}},"createdAt":"2025-12-01T12:00:07.000Z"}');
INSERT INTO cursorDiskKV VALUES('bubbleId:0b5e6c1a-1111-4a4a-8a8a-000000000001:b1-test','{"_v":3,"type":2,"bubbleId":"b1-test","toolFormerData":{"tool":15,"toolCallId":"toolu_02","status":"error","name":"run_terminal_cmd","rawArgs":"{\"command\":\"go test ./...\"}","result":"exit status 1","additionalData":{"status":"error"}},"createdAt":"2025-12-01T12:00:09.000Z"}');
INSERT INTO cursorDiskKV VALUES('bubbleId:0b5e6c1a-1111-4a4a-8a8a-000000000001:b1-bad','{"_v":3,"type":2,"text":"cut off');
INSERT INTO cursorDiskKV VALUES('bubbleId:0b5e6c1a-1111-4a4a-8a8a-000000000001:b1-null','null');
INSERT INTO cursorDiskKV VALUES('bubbleId:0b5e6c1a-1111-4a4a-8a8a-000000000001:b1-odd','{"_v":3,"type":7,"bubbleId":"b1-odd","createdAt":"2025-12-01T12:00:10.000Z"}');
INSERT INTO cursorDiskKV VALUES('bubbleId:0b5e6c1a-1111-4a4a-8a8a-000000000001:b1-user2','{"_v":3,"type":1,"bubbleId":"b1-user2","text":"Now run the tests again.","createdAt":"2025-12-01T12:00:30.000Z"}');
INSERT INTO cursorDiskKV VALUES('bubbleId:0b5e6c1a-1111-4a4a-8a8a-000000000001:b1-answer','{"_v":3,"type":2,"bubbleId":"b1-answer","text":"The totals now sum before rounding; the tests pass.","codeBlocks":[{"content":"total := round(sum)","languageId":"go"}],"createdAt":"2025-12-01T12:00:40.000Z"}');
INSERT INTO cursorDiskKV VALUES('bubbleId:0b5e6c1a-1111-4a4a-8a8a-000000000001:b1-late','{"_v":3,"type":2,"bubbleId":"b1-late","text":"(still generating)"}');
INSERT INTO cursorDiskKV VALUES('composerData:0b5e6c1a-1111-4a4a-8a8a-000000000002','{"_v":10,"composerId":"0b5e6c1a-1111-4a4a-8a8a-000000000002","name":"Find rounding callers","createdAt":1764590420000,"fullConversationHeadersOnly":[{"bubbleId":"b2-task","type":1},{"bubbleId":"b2-done","type":2}]}');
INSERT INTO cursorDiskKV VALUES('bubbleId:0b5e6c1a-1111-4a4a-8a8a-000000000002:b2-task','{"_v":3,"type":1,"bubbleId":"b2-task","text":"List every caller of round().","createdAt":"2025-12-01T12:00:21.000Z","workspaceUris":["file:///home/dev/shop"]}');
INSERT INTO cursorDiskKV VALUES('bubbleId:0b5e6c1a-1111-4a4a-8a8a-000000000002:b2-done','{"_v":3,"type":2,"bubbleId":"b2-done","text":"cart.go:12 and invoice.go:40.","createdAt":"2025-12-01T12:00:25.000Z"}');
INSERT INTO cursorDiskKV VALUES('composerData:0b5e6c1a-1111-4a4a-8a8a-000000000003','{"_v":1,"composerId":"0b5e6c1a-1111-4a4a-8a8a-000000000003","createdAt":1735732800000,"conversation":[{"type":1,"bubbleId":"b3-q","text":"What does this regex match?","context":{}},{"type":2,"bubbleId":"b3-a","text":"Dates like 2025-01-01.","codeBlocks":[]},{"type":2,"text":"","codeBlocks":[]}]}');
INSERT INTO cursorDiskKV VALUES('composerData:0b5e6c1a-1111-4a4a-8a8a-000000000004','{"_v":10,"composerId":"0b5e6c1a-1111-4a4a-8a8a-000000000004","text":"","fullConversationHeadersOnly":[],"conversationMap":{},"status":"none","createdAt":1764590500000}');
INSERT INTO cursorDiskKV VALUES('bubbleId:0b5e6c1a-1111-4a4a-8a8a-000000000005:b5-q','{"_v":3,"type":1,"bubbleId":"b5-q","text":"Why is the build slow?","createdAt":"2025-12-01T12:05:00.000Z"}');
INSERT INTO cursorDiskKV VALUES('composerData:0b5e6c1a-1111-4a4a-8a8a-000000000006','{"_v":13,"composerId":"0b5e6c1a-1111-4a4a-8a8a-000000000006","createdAt":1764590700000,"fullConversationHeadersOnly":[{"bubbleId":"b6-task","type":1}]}');
INSERT INTO cursorDiskKV VALUES('bubbleId:0b5e6c1a-1111-4a4a-8a8a-000000000006:b6-task','{"_v":3,"type":1,"bubbleId":"b6-task","text":"Which tests cover checkout?","createdAt":"2025-12-01T12:05:01.000Z"}');
INSERT INTO cursorDiskKV VALUES('checkpointId:0b5e6c1a-1111-4a4a-8a8a-000000000001:x','{"files":[]}');
COMMIT;
