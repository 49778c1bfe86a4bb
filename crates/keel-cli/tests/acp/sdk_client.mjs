// An ACP client built on the official TypeScript SDK (@agentclientprotocol/sdk 2.x, its
// stable v1 entry point), driving `keel acp` as an editor would. The Rust tests in
// crates/keel-cli/tests/acp.rs write a plan — the steps a user and an editor take — and judge
// what this prints; this script decides nothing about keel itself.
//
// The SDK checks every request and notification keel sends (session/update,
// session/request_permission, fs/*) against the protocol's schema; the answers to this
// client's requests are checked here against the same generated schema (the SDK's zod
// schemas). Whatever fails a check, a message the SDK logs as invalid, or an answer to a
// request this client never made, is listed under "problems", which the tests require empty.
//
// Usage: node sdk_client.mjs PLAN.json
//
// PLAN: {"keel": PATH, "db": PATH, "cwd": PATH, "steps": [STEP...]}. Each step's outcome is
// one entry of "steps" in the output ({"op", "result"} or {"op", "error": {code, message}}).
//   {"op": "start", "args": [...]}        spawn `keel --db DB acp --poll-ms 50 ARGS...`, connect
//   {"op": "initialize", "clientCapabilities": {...}}
//   {"op": "new", "cwd"?: PATH}           session/new; later steps use its sessionId
//   {"op": "load", "sessionId"?: ID, "cwd"?: PATH}   session/load (of the current session)
//   {"op": "list"} | {"op": "set_mode", "modeId": ID}
//   {"op": "prompt", "text": T, "prompt"?: [blocks], "answers"?: [OPTION_ID | null...],
//    "cancelAfterMs"?: N, "cancelOnPermission"?: true, "killOn"?: "completed"}
//        session/prompt. Each permission request takes the next answer (null: the request
//        is answered as cancelled); a request with no answer left is a problem. With
//        cancelOnPermission, the first permission request sends session/cancel and is
//        answered 300 ms later with its answer (late, as an editor might). With killOn,
//        the agent is killed at the first tool_call_update of that status.
//   {"op": "request", "method": M, "params": P}   any request, as sent (bad input)
//   {"op": "keel", "args": [...], "stdin": S}     run another keel process (`keel notify`;
//        an argument "$session" is the current session's id)
//   {"op": "wait_update", "text": T, "timeoutMs": N, "answers"?: [...]}   until a message
//        chunk with text T; permission requests meanwhile take the answers, as in a prompt
//   {"op": "sleep", "ms": N} | {"op": "kill"}
//
// Output, one JSON line: {"steps", "updates": [{sessionId, update}], "permissions":
// [{params, answer}], "buffers", "problems"}. `buffers` are the editor's open files, given in
// the plan as "buffers": {PATH: TEXT}, read and written through fs/*.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
// The SDK's generated schemas for answers (it checks what the peer sends in requests and
// notifications, not the results of its own requests). Pinned SDK version: see scripts/deps.sh.
import * as schema from "./node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const problems = [];
const updates = [];
const permissions = [];
const buffers = { ...(plan.buffers ?? {}) };
const steps = [];

// The SDK reports what it refuses (a message that fails the schema, an answer to an unknown
// request) on the console; each of those is a problem.
const consoleError = console.error;
console.error = (...args) => {
  problems.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
  consoleError(...args);
};

const answerSchemas = {
  initialize: schema.zInitializeResponse,
  "session/new": schema.zNewSessionResponse,
  "session/load": schema.zLoadSessionResponse,
  "session/list": schema.zListSessionsResponse,
  "session/set_mode": schema.zSetSessionModeResponse,
  "session/prompt": schema.zPromptResponse,
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// What the current prompt does when keel asks or reports.
let turn = null;
let child = null;
let conn = null;
let session = null;
const waiters = [];

const app = acp
  .client({ name: "keel-test-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push({ sessionId: params.sessionId, update: params.update });
    const u = params.update;
    if (turn?.killOn && u.sessionUpdate === "tool_call_update" && u.status === turn.killOn) {
      turn.killOn = null;
      kill();
    }
    for (const w of [...waiters]) w(u);
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    const answering = answerPermission(params);
    turn?.answering.push(answering);
    return answering;
  })
  .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
    if (!(params.path in buffers)) {
      throw new acp.RequestError(-32002, `no buffer ${params.path}`);
    }
    return { content: buffers[params.path] };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
    buffers[params.path] = params.content;
    return {};
  });

// The person's answer to one permission request: the prompt's next planned answer.
async function answerPermission(params) {
  const answers = turn?.answers ?? [];
  if (answers.length === 0) {
    problems.push(`an unexpected permission request: ${JSON.stringify(params)}`);
    permissions.push({ params, answer: null });
    return { outcome: { outcome: "cancelled" } };
  }
  const answer = answers.shift();
  permissions.push({ params, answer });
  if (turn.cancelOnPermission) {
    turn.cancelOnPermission = false;
    await conn.agent.notify(acp.methods.agent.session.cancel, { sessionId: session });
    await sleep(300);
  }
  return answer === null
    ? { outcome: { outcome: "cancelled" } }
    : { outcome: { outcome: "selected", optionId: answer } };
}

function kill() {
  if (child) {
    child.kill("SIGKILL");
    child = null;
  }
}

function start(args) {
  kill();
  child = spawn(plan.keel, ["--db", plan.db, "acp", "--poll-ms", "50", ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  child.on("error", (e) => problems.push(`keel did not start: ${e}`));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  conn = app.connect(stream);
}

// A request whose answer (or JSON-RPC error) is the step's outcome.
async function request(method, params) {
  try {
    const result = await conn.agent.request(method, params);
    const check = answerSchemas[method];
    if (check) {
      const parsed = check.safeParse(result);
      if (!parsed.success) {
        problems.push(`${method}'s answer does not fit the schema: ${parsed.error.message}`);
      }
    }
    return { result };
  } catch (e) {
    return { error: { code: e?.code ?? null, message: String(e?.message ?? e) } };
  }
}

function waitUpdate(text, timeoutMs) {
  const has = (u) => u.content?.type === "text" && u.content.text === text;
  if (updates.some((u) => has(u.update))) return Promise.resolve({ result: "seen" });
  return new Promise((resolve) => {
    const w = (u) => {
      if (has(u)) done({ result: "seen" });
    };
    const timer = setTimeout(() => done({ error: { code: null, message: `no "${text}"` } }), timeoutMs);
    const done = (out) => {
      clearTimeout(timer);
      waiters.splice(waiters.indexOf(w), 1);
      resolve(out);
    };
    waiters.push(w);
  });
}

for (const step of plan.steps) {
  let out;
  switch (step.op) {
    case "start":
      start(step.args ?? []);
      out = { result: "started" };
      break;
    case "initialize":
      out = await request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: step.clientCapabilities ?? {},
      });
      break;
    case "new":
      out = await request(acp.methods.agent.session.new, {
        cwd: step.cwd ?? plan.cwd,
        mcpServers: [],
      });
      session = out.result?.sessionId ?? session;
      break;
    case "load":
      session = step.sessionId ?? session;
      out = await request(acp.methods.agent.session.load, {
        sessionId: session,
        cwd: step.cwd ?? plan.cwd,
        mcpServers: [],
      });
      break;
    case "list":
      out = await request(acp.methods.agent.session.list, {});
      break;
    case "set_mode":
      out = await request(acp.methods.agent.session.setMode, {
        sessionId: session,
        modeId: step.modeId,
      });
      break;
    case "prompt": {
      turn = {
        answers: [...(step.answers ?? [])],
        cancelOnPermission: step.cancelOnPermission ?? false,
        killOn: step.killOn ?? null,
        answering: [],
      };
      const sent = request(acp.methods.agent.session.prompt, {
        sessionId: session,
        prompt: step.prompt ?? [{ type: "text", text: step.text }],
      });
      if (step.cancelAfterMs !== undefined) {
        await sleep(step.cancelAfterMs);
        await conn.agent.notify(acp.methods.agent.session.cancel, { sessionId: session });
      }
      out = await sent;
      // A late answer (after a cancel) goes out before the next step.
      await Promise.allSettled(turn.answering);
      if (turn.answers.length > 0) {
        problems.push(`answers left unused: ${JSON.stringify(turn.answers)}`);
      }
      turn = null;
      break;
    }
    case "request":
      out = await request(step.method, step.params);
      break;
    case "keel": {
      const args = step.args.map((a) => (a === "$session" ? session : a));
      const r = spawnSync(plan.keel, ["--db", plan.db, ...args], {
        input: step.stdin ?? "",
        encoding: "utf8",
      });
      out = { result: { status: r.status, stdout: r.stdout, stderr: r.stderr } };
      break;
    }
    case "wait_update": {
      // Requests keel makes between prompts (a background task's) take this step's answers.
      turn = { answers: [...(step.answers ?? [])], answering: [] };
      out = await waitUpdate(step.text, step.timeoutMs ?? 30000);
      await Promise.allSettled(turn.answering);
      if (turn.answers.length > 0) {
        problems.push(`answers left unused: ${JSON.stringify(turn.answers)}`);
      }
      turn = null;
      break;
    }
    case "sleep":
      await sleep(step.ms);
      out = { result: "slept" };
      break;
    case "kill":
      kill();
      out = { result: "killed" };
      break;
    default:
      problems.push(`the plan has an unknown step ${step.op}`);
  }
  steps.push({ op: step.op, ...out });
}

// What keel still sends (an answer to a late answer would be a problem) arrives first.
await sleep(200);
kill();
console.log(JSON.stringify({ steps, session, updates, permissions, buffers, problems }));
process.exit(0);
