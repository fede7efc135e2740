import { existsSync, readdirSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, isAbsolute, join, resolve } from "node:path";
import type { ChatHistoryItem, ChatWrapper, Llama, LlamaGrammar, LlamaModel, Token } from "node-llama-cpp";
import type { ChatMessage, ChatModel, ChatOptions, ChatResult, Continuations } from "./chat.js";
import { checkAdapter } from "./adapter.js";
import { checkGgufHeader } from "./gguf.js";
import { jsonTokenBound } from "./llama-grammar.js";
import { verifyModelFile } from "./sums.js";
import { REUSE_BLOCK, SequencePool, alignReuse, continuationLogprobs, scoreContinuations } from "./llama-sequences.js";

export class GgufNotFoundError extends Error {
  override name = "GgufNotFoundError";
  constructor(
    readonly modelName: string,
    readonly looked: string[],
  ) {
    super(
      `chat model "${modelName}" not found. Looked in:\n` +
        looked.map((l) => `  - ${l}`).join("\n") +
        `\nTo fix: run \`npm run models\` (installs Gemma 3 270M offline), put a .gguf file in a folder named in $CITEFLOW_MODELS, or give a path to one.`,
    );
  }
}

const isGguf = (p: string) => p.toLowerCase().endsWith(".gguf");

/**
 * The GGUF file a model name means: a path to a .gguf file, or a file `<name>` / `<name>.gguf`
 * in one of the models folders. Undefined when the name is not a local model (it may name a
 * server's model); `required` turns that into an error naming every place looked.
 */
export function findGguf(name: string, dirs: string[], required = false): string | undefined {
  const looked: string[] = [];
  if (isAbsolute(name) || name.startsWith(".") || name.includes("/")) {
    const p = resolve(name);
    if (isGguf(p) && existsSync(p) && statSync(p).isFile()) return p;
    looked.push(p);
  } else {
    for (const dir of dirs) {
      for (const file of isGguf(name) ? [name] : [`${name}.gguf`]) {
        const p = join(resolve(dir), file);
        if (existsSync(p) && statSync(p).isFile()) return p;
        looked.push(p);
      }
    }
  }
  if (required) throw new GgufNotFoundError(name, looked);
  return undefined;
}

/**
 * A GGUF named by a hub URI (`hf:<user>/<repo>/<file>.gguf`), in the models home `home`: downloaded
 * there by node-llama-cpp when `download` is true ($HF_ENDPOINT overrides the hub's address), else
 * it must have been downloaded before.
 */
export async function hubGguf(uri: string, download: boolean, home: string): Promise<string> {
  const { resolveModelFile } = await import("node-llama-cpp");
  try {
    return await resolveModelFile(uri, { directory: home, download: download ? "auto" : false, cli: false });
  } catch (e) {
    if (download) throw new Error(`downloading chat model ${uri} into ${home} failed: ${(e as Error).message}`, { cause: e });
    throw new GgufNotFoundError(uri, [`${home} (not downloaded yet; downloads are off: set CITEFLOW_ALLOW_DOWNLOADS=1 to fetch it from the hub)`]);
  }
}

/** The first .gguf file in the models folders (by name), for when the user named no chat model. */
export function firstGguf(dirs: string[]): string | undefined {
  for (const dir of dirs) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) continue;
    const files = readdirSync(dir).filter(isGguf).sort();
    if (files[0]) return join(resolve(dir), files[0]);
  }
  return undefined;
}

export interface LocalChatOptions {
  /** Tokens each sequence can hold: prompt and answer (default 8192, capped at the model's training size). */
  contextSize?: number;
  /** Questions answered at once, each on its own sequence of one shared context (default 2). */
  sequences?: number;
  /** CPU threads (default: the machine's cores; more threads than cores makes llama.cpp crawl). */
  threads?: number;
  /** A LoRA adapter (GGUF) applied on top of the model (adapter.ts), and the name it was asked for by. */
  adapter?: { path: string; name: string };
}

let llamaP: Promise<Llama> | undefined;
function getLlamaOnce(threads: number): Promise<Llama> {
  llamaP ??= import("node-llama-cpp")
    .then((m) => m.getLlama({ gpu: false, build: "never", maxThreads: threads, logLevel: m.LlamaLogLevel.error }))
    .catch((e: unknown) => {
      llamaP = undefined;
      // The prebuilt llama.cpp binary needs the C++ runtime (libstdc++ 12 or newer, glibc 2.31 or newer).
      throw new Error(
        `the in-process language model (llama.cpp's prebuilt CPU binary) could not be loaded: ${(e as Error).message}\nTo fix: install the C++ runtime (Debian/Ubuntu: apt-get install libstdc++6; Fedora: dnf install libstdc++), or use a server instead ($OPENAI_BASE_URL, docs/models.md)`,
        { cause: e },
      );
    });
  return llamaP;
}

/**
 * Messages as plain text, for a model whose GGUF carries no chat template (a base model): the
 * system text, then each turn, separated by blank lines. Citeflow's prompts end on a cue such as
 * "Answer:", which is what a base model continues.
 */
export function plainPrompt(messages: ChatMessage[]): string {
  return messages.map((m) => m.content.trim()).join("\n\n");
}

/** Bumped when how the in-process model is prompted or decoded changes (stops, penalties, formats): part of cache keys. */
export const LOCAL_CHAT_VERSION = 3;

/** Where a plain-text answer ends: Citeflow's prompts end on "Question: …\nAnswer:" (or Query:, Claims:). */
export const PLAIN_STOPS = ["\n\n", "\nQuestion:", "\nAnswer:"];

class LocalChat implements ChatModel {
  readonly baseURL = "in-process";
  readonly constrains = true;
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  constructor(
    readonly id: string,
    readonly path: string,
    private readonly llama: Llama,
    private readonly model: LlamaModel,
    private readonly pool: SequencePool,
    /** Whether the GGUF has a chat template; without one the model is prompted as plain text. */
    readonly templated: boolean,
    readonly contextSize: number,
  ) {}

  private grammar(key: string, make: () => Promise<LlamaGrammar>): Promise<LlamaGrammar> {
    let g = this.grammars.get(key);
    if (!g) this.grammars.set(key, (g = make()));
    return g;
  }

  private wrapper: ChatWrapper | undefined;
  /** The model's chat template as node-llama-cpp resolves it, once. */
  private chatWrapper(resolveChatWrapper: typeof import("node-llama-cpp").resolveChatWrapper): ChatWrapper {
    return (this.wrapper ??= resolveChatWrapper(this.model));
  }

  /**
   * The tokens llama.cpp reads for these messages: the chat template's rendering of the history
   * (as LlamaChat renders it), or for a model without one the plain prompt after the
   * beginning-of-text token (as LlamaCompletion reads it).
   */
  private promptTokens(messages: ChatMessage[], resolveChatWrapper: typeof import("node-llama-cpp").resolveChatWrapper): { tokens: Token[]; text?: Token[]; history?: ChatHistoryItem[] } {
    if (!this.templated) {
      // `text` goes to LlamaCompletion as it is (it puts the beginning-of-text token before it), so the prompt is tokenized once.
      const bos = this.model.tokens.bos;
      const text = this.model.tokenize(plainPrompt(messages), false, "trimLeadingSpace");
      return { tokens: [...(bos !== null ? [bos] : []), ...text], text };
    }
    const history: ChatHistoryItem[] = [
      ...messages.map((m) => (m.role === "assistant" ? { type: "model" as const, response: [m.content] } : { type: m.role, text: m.content })),
      { type: "model" as const, response: [] },
    ];
    return { tokens: this.chatWrapper(resolveChatWrapper).generateContextState({ chatHistory: history }).contextText.tokenize(this.model.tokenizer), history };
  }

  async chat(messages: ChatMessage[], o: ChatOptions = {}): Promise<ChatResult> {
    const { resolveChatWrapper } = await import("node-llama-cpp");
    if (o.choices) return this.choose(messages, o.choices, o.jsonSchema !== undefined, resolveChatWrapper);
    return this.generate(messages, o, resolveChatWrapper);
  }

  /** Each text's tokens as the answer's beginning after these messages, with their log-probabilities (each token's text is what it adds to those before it). */
  async continuations(messages: ChatMessage[], texts: string[]): Promise<Continuations> {
    const { resolveChatWrapper } = await import("node-llama-cpp");
    const { tokens: prompt } = this.promptTokens(messages, resolveChatWrapper);
    const ways = texts.map((t) => this.model.tokenize(t, false, "trimLeadingSpace"));
    const logprobs = await this.pool.use(prompt, (sequence) => continuationLogprobs(sequence, prompt, ways));
    const upTo = (w: Token[], n: number) => this.model.detokenize(w.slice(0, n));
    return { promptTokens: prompt.length, scored: ways.map((w, k) => w.map((_, i) => ({ text: upTo(w, i + 1).slice(upTo(w, i).length), logprob: logprobs[k]![i]! }))) };
  }

  private async generate(messages: ChatMessage[], o: ChatOptions, resolveChatWrapper: typeof import("node-llama-cpp").resolveChatWrapper): Promise<ChatResult> {
    const { LlamaChat, LlamaCompletion } = await import("node-llama-cpp");
    const schema = o.jsonSchema;
    const g = o.grammar;
    const grammar = schema
      ? await this.grammar(`json:${JSON.stringify(schema)}`, () => this.llama.createGrammarForJsonSchema(schema as never))
      : g
        ? g.key
          ? await this.grammar(`gbnf:${g.key}`, () => this.llama.createGrammar({ grammar: g.gbnf }))
          : await this.llama.createGrammar({ grammar: g.gbnf })
        : undefined;
    const started = performance.now();
    let first: number | undefined;
    let generated = 0;
    let soFar = "";
    const bound = schema ? jsonTokenBound(schema) : (g?.tokenBound ?? Infinity);
    const common = {
      maxTokens: Math.max(o.maxTokens ?? 512, Number.isFinite(bound) ? bound : 0),
      temperature: o.temperature ?? 0,
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(grammar ? { grammar } : {}),
      // Greedy decoding loops on small models ("X is a cause of Y. X is a cause of Y. …"): free text
      // gets a repeat penalty; JSON does not (its grammar repeats quotes and keys by design).
      ...(!schema && (o.repeatPenalty ?? 1.1) > 1 ? { repeatPenalty: { penalty: o.repeatPenalty ?? 1.1, lastTokens: 64 } } : {}),
      onToken: (tokens: Token[]) => {
        first ??= performance.now();
        generated += tokens.length;
      },
      onTextChunk: (chunk: string) => {
        soFar += chunk;
        o.onText?.(chunk, soFar);
      },
    };
    const { tokens: promptTokens, text: promptText, history } = this.promptTokens(messages, resolveChatWrapper);
    if (promptTokens.length + common.maxTokens > this.contextSize)
      throw new Error(`${this.id}: the prompt is ${promptTokens.length} tokens; with maxTokens ${common.maxTokens} it does not fit the context of ${this.contextSize} tokens`);
    const { text, stop, contextTokens, evaluated } = await this.pool.use(promptTokens, async (sequence) => {
      await alignReuse(sequence, promptTokens);
      const meter = sequence.tokenMeter.getState();
      const decoded = () => {
        const d = sequence.tokenMeter.diff(meter);
        return d.usedInputTokens + d.usedOutputTokens;
      };
      if (history) {
        const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: this.chatWrapper(resolveChatWrapper) });
        try {
          const r = await chat.generateResponse(history, common);
          return { text: r.response, stop: r.metadata.stopReason, contextTokens: sequence.contextTokens.length, evaluated: decoded() };
        } finally {
          chat.dispose({ disposeSequence: false });
        }
      }
      const completion = new LlamaCompletion({ contextSequence: sequence });
      try {
        // A base model goes on with its prompt's pattern: a blank line or the next "Question:" ends a
        // free-text answer (JSON ends by its grammar).
        const r = await completion.generateCompletionWithMeta(promptText!, { ...common, ...(schema ? {} : { customStopTriggers: PLAIN_STOPS }) });
        return { text: r.response, stop: r.metadata.stopReason, contextTokens: sequence.contextTokens.length, evaluated: decoded() };
      } finally {
        completion.dispose({ disposeSequence: false });
      }
    });
    const ended = performance.now();
    // The sequence holds the prompt and what was generated (the answer's last token is not evaluated).
    const prompted = Math.max(0, contextTokens - Math.max(0, generated - 1));
    // Every token llama.cpp decoded in this call, less the generated ones fed back: the prompt's part
    // it read; the rest of the prompt came from what the sequence held.
    const cached = Math.max(0, prompted - Math.max(0, evaluated - Math.max(0, generated - 1)));
    let structured: unknown;
    if (schema) {
      try {
        structured = JSON.parse(text);
      } catch {
        throw new Error(`${this.id}: the answer stopped (${stop}) before its JSON was complete; raise maxTokens (${common.maxTokens})`);
      }
    }
    return {
      text,
      model: this.id,
      ...(schema ? { structured } : {}),
      usage: {
        promptTokens: prompted,
        cachedPromptTokens: cached,
        completionTokens: generated,
        totalTokens: prompted + generated,
        timeToFirstTokenMs: Math.round((first ?? ended) - started),
        tokensPerSecond: generated > 1 && first !== undefined && ended > first ? Math.round(((generated - 1) / ((ended - first) / 1000)) * 10) / 10 : 0,
      },
      finishReason: stop === "eogToken" || stop === "stopGenerationTrigger" || stop === "customStopTrigger" ? "stop" : stop === "maxTokens" ? "length" : stop,
    };
  }

  /** The likeliest of `choices` after the prompt, held to them (scoreContinuations); `json`: the choices are JSON (a schema's answers). */
  private async choose(messages: ChatMessage[], choices: string[], json: boolean, resolveChatWrapper: typeof import("node-llama-cpp").resolveChatWrapper): Promise<ChatResult> {
    if (choices.length === 0) throw new Error(`${this.id}: no choices to score`);
    const started = performance.now();
    const { tokens: prompt } = this.promptTokens(messages, resolveChatWrapper);
    const continuations = choices.map((c) => this.model.tokenize(c, false, "trimLeadingSpace"));
    const longest = Math.max(...continuations.map((c) => c.length));
    if (prompt.length + longest > this.contextSize)
      throw new Error(`${this.id}: the prompt is ${prompt.length} tokens; with its longest choice (${longest}) it does not fit the context of ${this.contextSize} tokens`);
    const { scores, reused } = await this.pool.use(prompt, (sequence) => scoreContinuations(sequence, prompt, continuations));
    const best = scores.indexOf(Math.max(...scores));
    const answered = continuations[best]!.length;
    return {
      text: choices[best]!,
      model: this.id,
      ...(json ? { structured: JSON.parse(choices[best]!) as unknown } : {}),
      choiceLogprobs: scores,
      usage: {
        promptTokens: prompt.length,
        cachedPromptTokens: reused,
        completionTokens: answered,
        totalTokens: prompt.length + answered,
        timeToFirstTokenMs: Math.round(performance.now() - started),
        tokensPerSecond: 0,
      },
      finishReason: "stop",
    };
  }
}

const loaded = new Map<string, Promise<LocalChat>>();

/**
 * A chat model running in this process on llama.cpp (node-llama-cpp's prebuilt CPU binary), from
 * a GGUF file. Loaded once per process and path, and shared by every node and run; each call
 * takes one of `sequences` sequences of one context, so that many questions run at once.
 * Temperature 0 by default, so a cached run means what it says.
 */
export function loadLocalChat(path: string, o: LocalChatOptions = {}): Promise<ChatModel & { readonly path: string; readonly templated: boolean; readonly contextSize: number }> {
  const abs = resolve(path);
  const key = JSON.stringify([abs, o.contextSize, o.sequences, o.threads, o.adapter?.path]);
  let p = loaded.get(key);
  if (!p) {
    p = (async () => {
      const threads = o.threads ?? availableParallelism();
      checkGgufHeader(abs);
      verifyModelFile(abs, false);
      if (o.adapter) {
        verifyModelFile(o.adapter.path, true);
        await checkAdapter(o.adapter.path, abs);
      }
      const llama = await getLlamaOnce(threads);
      // A model with an adapter is loaded on its own: llama.cpp keeps adapters until the model goes.
      const model = await llama.loadModel({ modelPath: abs });
      const sequences = o.sequences ?? 2;
      const perSequence = Math.min(o.contextSize ?? 8192, model.trainContextSize);
      const lora = o.adapter ? { lora: { adapters: [{ filePath: o.adapter.path }] } } : {};
      // Prompts are read in REUSE_BLOCK batches from the start of a sequence (alignReuse), and a
      // sliding-window model keeps its whole window cache, so a reused start is never read again.
      // Flash attention: generation 50.0 against 40.9 tokens/s, prompts 629 against 449 (bench/llm-settings.mjs).
      const context = await model.createContext({ contextSize: perSequence * sequences, sequences, threads, batchSize: REUSE_BLOCK, swaFullCache: true, flashAttention: true, ...lora });
      const templated = typeof model.fileInfo.metadata.tokenizer?.chat_template === "string";
      const id = basename(abs).replace(/\.gguf$/i, "") + (o.adapter ? `+${o.adapter.name}` : "");
      return new LocalChat(id, abs, llama, model, new SequencePool(context, sequences), templated, Math.floor(context.contextSize / sequences));
    })();
    loaded.set(key, p);
    p.catch(() => loaded.delete(key));
  }
  return p;
}
