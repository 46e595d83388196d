// An independent MCP client for Pond's end-to-end test: the official TypeScript SDK spawns
// `pond mcp` (argv[2..]) over stdio, lists tools and resources, calls each tool, provokes a tool
// error and a JSON-RPC error, and prints what it saw as one JSON object on stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "pond-e2e-npm", version: "1.0.0" });
await client.connect(transport);

const out = { server: client.getServerVersion(), instructions: client.getInstructions() };
out.tools = (await client.listTools()).tools.map((t) => ({ name: t.name, readOnly: t.annotations?.readOnlyHint }));
out.resources = (await client.listResources()).resources.map((r) => r.uri);
const text = (r) => r.content.map((c) => c.text).join("");
const status = await client.callTool({ name: "pond_status", arguments: {} });
out.status = { isError: !!status.isError, text: text(status) };
const sql = await client.callTool({ name: "pond_sql", arguments: { query: "SELECT count(*) AS n FROM sessions" } });
out.sql = { isError: !!sql.isError, text: text(sql) };
const search = await client.callTool({ name: "pond_search", arguments: { query: "calc_test", limit: 2 } });
out.search = { isError: !!search.isError, text: text(search) };
const sid = (text(search).match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/) || [""])[0];
const page = await client.callTool({ name: "pond_get_session", arguments: { id: sid, from: "end", limit: 3 } });
out.getSession = { isError: !!page.isError, text: text(page) };
const first = await client.callTool({ name: "pond_sql", arguments: { query: `SELECT message_id FROM messages WHERE session_id = '${sid}' LIMIT 1` } });
const mid = (text(first).split("\n")[2] || "").trim();
const msg = await client.callTool({ name: "pond_get_message", arguments: { id: mid } });
out.getMessage = { isError: !!msg.isError, id: mid, text: text(msg) };
const refused = await client.callTool({ name: "pond_sql", arguments: { query: "DELETE FROM sessions" } });
out.toolError = { isError: !!refused.isError, text: text(refused) };
const stats = await client.readResource({ uri: "stats://pond" });
out.stats = JSON.parse(stats.contents[0].text);
try {
  await client.readResource({ uri: "schema://nope" });
  out.rpcError = null;
} catch (e) {
  out.rpcError = { code: e.code, message: e.message };
}
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
