-- A remote window's workspace database: it lists the old build's composer.
BEGIN TRANSACTION;
CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
INSERT INTO ItemTable VALUES('composer.composerData','{"allComposers":[{"composerId":"0b5e6c1a-1111-4a4a-8a8a-000000000003"}]}');
COMMIT;
