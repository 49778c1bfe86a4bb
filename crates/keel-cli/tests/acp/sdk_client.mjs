// An ACP client built on the official TypeScript SDK (@agentclientprotocol/sdk, v1 entry
// point), driving `keel acp` as an editor would: initialize, session/new, one prompt per
// argument, answering every permission request with the option named in ANSWER. The SDK
// checks every message keel sends against the protocol's schema. Prints one JSON line:
// what each request returned, every session/update, and the permission requests.
//
// Usage: node sdk_client.mjs KEEL DB MODEL CWD ANSWER PROMPT...
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [keel, db, model, cwd, answer, ...prompts] = process.argv.slice(2);
const child = spawn(keel, ["--db", db, "acp", "--model", model], {
  stdio: ["pipe", "pipe", "inherit"],
});
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const updates = [];
const permissions = [];
const app = acp
  .client({ name: "keel-test-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push(params.update);
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    permissions.push(params);
    return { outcome: { outcome: "selected", optionId: answer } };
  });
let out;
try {
  out = await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } },
    });
    const session = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    const ends = [];
    for (const text of prompts) {
      ends.push(
        await ctx.request(acp.methods.agent.session.prompt, {
          sessionId: session.sessionId,
          prompt: [{ type: "text", text }],
        }),
      );
    }
    return { init, session, ends };
  });
} catch (e) {
  out = { error: String(e && e.stack ? e.stack : e) };
}
console.log(JSON.stringify({ ...out, updates, permissions }));
child.kill();
process.exit(0);
