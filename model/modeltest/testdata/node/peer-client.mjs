// The TypeScript MCP SDK's client, as a test peer: connects to an MCP
// server over Streamable HTTP (argv[2] an http URL) or stdio (argv[2]
// "stdio", the command after it), lists the tools, makes the calls given as
// JSON in TOOLSCOPE_CALLS ([{name, arguments, progress}]) and prints what
// it got as JSON lines: the tools' names, each result, the progress it was
// sent. The Go tests compare these lines with and without toolscope.
// Progress is read by a notification handler of its own: the SDK's
// onprogress drops notifications read in the same chunk as the answer
// (they are handled a microtask later, once the answer removed the call's
// handler), so what onprogress sees depends on how the bytes were split.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const [target, ...command] = process.argv.slice(2);
const transport = target === 'stdio'
  ? new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: 'ignore' })
  : new StreamableHTTPClientTransport(new URL(target));
const client = new Client({ name: 'ts-peer', version: '1.0.0' });
const progress = {};
client.setNotificationHandler(ProgressNotificationSchema, ({ params }) => {
  (progress[params.progressToken] ??= []).push(`${params.progress}/${params.total}`);
});
await client.connect(transport);
const out = [];
out.push((await client.listTools()).tools.map((t) => t.name).sort());
for (const [i, call] of JSON.parse(process.env.TOOLSCOPE_CALLS).entries()) {
  const token = `p-${i}`;
  const params = { name: call.name, arguments: call.arguments };
  if (call.progress) params._meta = { progressToken: token };
  const result = await client.callTool(params);
  out.push({ name: call.name, result, progress: progress[token] ?? [] });
}
if (transport.terminateSession) await transport.terminateSession().catch(() => {});
await client.close();
for (const o of out) console.log(JSON.stringify(o));
