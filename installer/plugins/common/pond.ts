// The Pond side of Pond's TypeScript plugins (pi-pond, openclaw-pond; each installs a copy as
// src/pond.ts): where the daemon's MCP socket is, a client for it, the response budget, the
// errors a host shows. Nothing here imports a host, so every host loads it, and Node runs its
// tests without one.
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join, isAbsolute } from "node:path";

/** RESPONSE_MAX_BYTES: the most of Pond's answer a tool hands the model. */
export const RESPONSE_MAX_BYTES = 32 * 1024;
export const TRUNCATED_NOTE = `[pond: response truncated to ${RESPONSE_MAX_BYTES} bytes; narrow the query or lower limit]`;

/**
 * clip keeps text within max bytes of UTF-8: when it is longer, the longest prefix that ends on
 * a character boundary and leaves room for a newline and the note, then the note.
 */
export function clip(text: string, max: number = RESPONSE_MAX_BYTES): string {
	const buf = Buffer.from(text, "utf8");
	if (buf.length <= max) return text;
	const note = Buffer.from(TRUNCATED_NOTE, "utf8");
	let end = Math.max(0, max - note.length - 1);
	while (end > 0 && (buf[end] & 0xc0) === 0x80) end--; // never cut inside a character
	return buf.subarray(0, end).toString("utf8") + "\n" + TRUNCATED_NOTE;
}

// maxSocketPath is the longest Unix socket path the OS takes (paths.maxSocketPath).
const maxSocketPath = process.platform === "linux" ? 107 : 103;

/**
 * runtimeDir is where the daemon listens, resolved as Pond's paths package does: POND_RUNTIME_DIR,
 * then $XDG_RUNTIME_DIR/pond on Linux, then "run" in the state directory (pond-<uid> in the temp
 * directory when that path is too long for a socket).
 */
export function runtimeDir(env: NodeJS.ProcessEnv = process.env): string {
	if (env.POND_RUNTIME_DIR) return env.POND_RUNTIME_DIR;
	const home = env.HOME || homedir();
	if (process.platform === "linux" && env.XDG_RUNTIME_DIR && isAbsolute(env.XDG_RUNTIME_DIR)) {
		return join(env.XDG_RUNTIME_DIR, "pond");
	}
	let state = env.POND_STATE_DIR;
	if (!state) {
		state = process.platform === "darwin"
			? join(home, "Library", "Application Support", "pond", "state")
			: join(env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : join(home, ".local", "state"), "pond");
	}
	const dir = join(state, "run");
	if (join(dir, "pond.sock").length <= maxSocketPath) return dir;
	return join(tmpdir(), `pond-${process.getuid?.() ?? 0}`);
}

export function mcpSocket(env: NodeJS.ProcessEnv = process.env): string {
	return join(runtimeDir(env), "mcp.sock");
}

/** DaemonDown: nothing answers on the socket. Its message says how to start the daemon. */
export class DaemonDown extends Error {
	constructor(socket: string, cause: string, plugin = "Pond's plugin") {
		super(
			`Pond's daemon is not running (${cause} at ${socket}), so the archive cannot be searched right now. ` +
				"Start it with `pond service start` (after `pond install`), or run `pond daemon` in a terminal, then retry. " +
				`${plugin} never opens the archive itself.`,
		);
		this.name = "DaemonDown";
	}
}

/** PondError: the daemon answered with an error; its text is Pond's, meant for the model. */
export class PondError extends Error {
	/**
	 * code is the daemon's: its JSON-RPC error code over MCP (CODE_FORBIDDEN: outside the scope),
	 * or its error body's code over the HTTP API, where details carry e.g. a refused restore's
	 * outcome.
	 */
	readonly code?: number | string;
	readonly details?: any;
	constructor(message: string, code?: number | string, details?: any) {
		super(`pond: ${message}`);
		this.name = "PondError";
		this.code = code;
		this.details = details;
	}
}

/** CODE_FORBIDDEN is the daemon's error for a read outside the connection's scope. */
export const CODE_FORBIDDEN = -32017;

/** SCOPE_KEY is the capability a client binds its scope under at initialize (daemon/mcpserver). */
export const SCOPE_KEY = "pond/scope";

/**
 * Scope is the part of the archive a connection may read, bound by the daemon for the
 * connection's life: a source agent (and its sub-kinds), a project folder, a session (and with
 * tree, the sessions it spawned). The daemon refuses whatever lies outside it.
 */
export type Scope = { source_agent?: string; project?: string; session?: string; tree?: boolean };

/** ClientOptions: who the client is (for the daemon's log and the errors) and its scope. */
export type ClientOptions = { name?: string; version?: string; scope?: Scope };

type Pending = { resolve: (v: any) => void; reject: (e: Error) => void };

const PROTOCOL_VERSION = "2025-06-18";

/**
 * Client is one MCP session on the daemon's mcp.sock (newline-delimited JSON-RPC). It connects
 * on first use and again after the daemon went away; close ends it.
 */
export class Client {
	private sock?: Socket;
	private ready?: Promise<void>;
	private buf = "";
	private nextId = 1;
	private pending = new Map<number, Pending>();

	readonly socketPath: string;
	private readonly name: string;
	private readonly version: string;
	readonly scope?: Scope;

	constructor(socketPath: string = mcpSocket(), opts: ClientOptions | string = {}) {
		if (typeof opts === "string") opts = { version: opts };
		this.socketPath = socketPath;
		this.name = opts.name ?? "pi-pond";
		this.version = opts.version ?? "0";
		this.scope = opts.scope;
	}

	/** connected: whether a session is open now. */
	get connected(): boolean {
		return this.sock !== undefined && !this.sock.destroyed;
	}

	/** open connects and initializes, once; a failed attempt is forgotten so the next retries. */
	open(): Promise<void> {
		if (this.ready && this.connected) return this.ready;
		this.ready = this.dial().catch((e) => {
			this.ready = undefined;
			throw e;
		});
		return this.ready;
	}

	private dial(): Promise<void> {
		return new Promise<void>((resolve, reject) => {
			const s = connect(this.socketPath);
			let opened = false;
			s.setEncoding("utf8");
			s.on("data", (chunk: string) => this.read(chunk));
			s.on("error", (e: NodeJS.ErrnoException) => {
				if (!opened) {
					const cause = e.code === "ENOENT" ? "no socket" : e.code === "ECONNREFUSED" ? "nothing listening" : e.message;
					reject(new DaemonDown(this.socketPath, cause, this.name));
				}
			});
			s.on("close", () => this.drop(new DaemonDown(this.socketPath, "the connection closed", this.name)));
			s.on("connect", () => {
				opened = true;
				this.sock = s;
				this.request("initialize", {
					protocolVersion: PROTOCOL_VERSION,
					capabilities: this.scope ? { experimental: { [SCOPE_KEY]: this.scope } } : {},
					clientInfo: { name: this.name, version: this.version },
				})
					.then((res: any) => {
						// A daemon that does not announce scopes would serve the whole archive: refuse it.
						if (this.scope && !res?.capabilities?.experimental?.[SCOPE_KEY]) {
							s.destroy();
							return reject(new PondError("this Pond daemon cannot confine a connection to a scope; update pond (then `pond service restart`)"));
						}
						this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
						resolve();
					})
					.catch(reject);
			});
		});
	}

	private read(chunk: string) {
		this.buf += chunk;
		let nl: number;
		while ((nl = this.buf.indexOf("\n")) >= 0) {
			const line = this.buf.slice(0, nl).trim();
			this.buf = this.buf.slice(nl + 1);
			if (!line) continue;
			let msg: any;
			try {
				msg = JSON.parse(line);
			} catch {
				continue;
			}
			const p = typeof msg.id === "number" ? this.pending.get(msg.id) : undefined;
			if (!p || msg.method) continue; // a request or notification of the server's: none is needed
			this.pending.delete(msg.id);
			if (msg.error) p.reject(new PondError(msg.error.message ?? JSON.stringify(msg.error), msg.error.code));
			else p.resolve(msg.result);
		}
	}

	private drop(e: Error) {
		this.sock = undefined;
		this.ready = undefined;
		this.buf = "";
		for (const p of this.pending.values()) p.reject(e);
		this.pending.clear();
	}

	private send(msg: object) {
		this.sock?.write(JSON.stringify(msg) + "\n");
	}

	private request(method: string, params: object, signal?: AbortSignal): Promise<any> {
		const id = this.nextId++;
		return new Promise((resolve, reject) => {
			if (signal?.aborted) return reject(new Error("cancelled"));
			const onAbort = () => {
				this.pending.delete(id);
				this.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
				reject(new Error("cancelled"));
			};
			signal?.addEventListener("abort", onAbort, { once: true });
			const settle = () => {
				signal?.removeEventListener("abort", onAbort);
				// An idle connection does not keep the host's process alive (a one-shot agent run exits).
				if (this.pending.size === 0) this.sock?.unref();
			};
			this.pending.set(id, {
				resolve: (v) => (settle(), resolve(v)),
				reject: (e) => (settle(), reject(e)),
			});
			this.sock?.ref();
			this.send({ jsonrpc: "2.0", id, method, params });
		});
	}

	/** call runs one of Pond's tools and returns its text, clipped to the response budget. */
	async call(name: string, args: object, signal?: AbortSignal): Promise<string> {
		await this.open();
		const res = await this.request("tools/call", { name, arguments: args }, signal);
		const text = (res?.content ?? [])
			.filter((c: any) => c?.type === "text")
			.map((c: any) => c.text as string)
			.join("\n");
		if (res?.isError) throw new PondError(clip(text));
		return clip(text);
	}

	close() {
		this.sock?.destroy();
		this.drop(new Error(`${this.name}: the session ended`));
	}
}

export function apiSocket(env: NodeJS.ProcessEnv = process.env): string {
	return join(runtimeDir(env), "pond.sock");
}

/**
 * api sends one request to the daemon's HTTP API (pond.sock) and returns its JSON answer, for
 * what MCP does not carry (consent, adapters). A daemon's error comes back as a PondError.
 */
export function api(method: string, path: string, body?: object, socketPath: string = apiSocket()): Promise<any> {
	return new Promise((resolve, reject) => {
		const data = body === undefined ? undefined : JSON.stringify(body);
		const req = request(
			{ socketPath, method, path, host: "pond", headers: data ? { "content-type": "application/json" } : {} },
			(res) => {
				let text = "";
				res.setEncoding("utf8");
				res.on("data", (c: string) => (text += c));
				res.on("end", () => {
					let out: any;
					try {
						out = JSON.parse(text);
					} catch {
						return reject(new PondError(`${method} ${path}: HTTP ${res.statusCode}`));
					}
					if (res.statusCode !== 200) {
						return reject(new PondError(out?.error?.message ?? `${method} ${path}: HTTP ${res.statusCode}`, out?.error?.code, out?.error?.details));
					}
					resolve(out);
				});
			},
		);
		req.on("error", (e: NodeJS.ErrnoException) =>
			reject(new DaemonDown(socketPath, e.code === "ENOENT" ? "no socket" : e.code === "ECONNREFUSED" ? "nothing listening" : e.message)),
		);
		req.end(data);
	});
}
