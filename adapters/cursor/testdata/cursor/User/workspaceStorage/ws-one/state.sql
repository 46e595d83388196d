-- A workspace's state database (User/workspaceStorage/<id>/state.vscdb): the composers this
-- window lists, which is how a composer of the global database finds its folder.
BEGIN TRANSACTION;
CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
INSERT INTO ItemTable VALUES('composer.composerData','{"allComposers":[{"type":"head","composerId":"0b5e6c1a-1111-4a4a-8a8a-000000000001","name":"Fix the cart total","lastUpdatedAt":1764590460000,"createdAt":1764590400000,"unifiedMode":"agent"},{"type":"head","composerId":"0b5e6c1a-1111-4a4a-8a8a-000000000004","createdAt":1764590500000}],"selectedComposerIds":["0b5e6c1a-1111-4a4a-8a8a-000000000001"]}');
INSERT INTO ItemTable VALUES('workbench.panel.composerChatViewPane.d1','{"workbench.panel.aichat.view":{"collapsed":false}}');
COMMIT;
