import { LRUCache } from 'lru-cache';
import { listenWithReconnect, type Listener } from '../db/listen';
import type { Pool } from '../db/pool';
import {
  SEARCH_WINDOWS_CHANNEL,
  searchWriteWindowQueries,
  type WindowNotice,
} from '../db/queries/search-write-windows';

/** What a read computes for the cache: the answer, its size in bytes, and until when it holds. */
export interface Computed<T> {
  value: T;
  bytes: number;
  /**
   * Epoch ms from which the answer may differ even though the index did not change (component conditions
   * applied at the current time); undefined when only the index can change it.
   */
  expiresAt?: number | undefined;
}

export interface SearchAnswerCacheOptions {
  enabled: boolean;
  /** Most bytes of answers kept (items' JSON, keys and a per-entry overhead). */
  maxBytes: number;
}

export interface SearchAnswerCacheStats {
  hits: number;
  misses: number;
  /** Misses that waited for the same answer already being computed instead of asking Elasticsearch again. */
  joined: number;
  entries: number;
  bytes: number;
}

/**
 * While a write window is open, Elasticsearch may change its answer at any moment: a request joins an
 * identical search only if that one started at most this long ago, so what it gets is never older than that.
 */
const WINDOW_JOIN_MS = 30;
/** Backstop: an answer is recomputed at least this often even if nothing says it changed. */
const MAX_AGE_MS = 60_000;
/** A rough per-entry cost on top of the answer's bytes: the entry, its key's string, the LRU's slots. */
const ENTRY_OVERHEAD_BYTES = 256;

interface Entry {
  projectId: number;
  value: unknown;
}

interface Window {
  projects: ReadonlySet<number> | null;
  until: number;
}

/**
 * The process's cache of documents/latestPublications and publications/search answers, per project and
 * normalised query (the reads build the key; src/reads/publications.ts), in memory and bounded in bytes.
 *
 * Freshness: an indexer opens a search write window over the projects it is about to write, writes, refreshes
 * the searched index and closes the window (src/search/visibility.ts); opening and closing are notified by
 * Postgres at commit. Each notification bumps the projects' generations and drops their answers; while a
 * window over a project is open, its answers are computed and never kept; an answer computed across a
 * generation change is returned but not kept. So a cached answer is the answer Elasticsearch gave after the
 * last change that is visible now, give or take the notification's delivery (milliseconds). An answer that
 * applied component conditions at the current time is kept only until the next condition boundary.
 *
 * The cache is used only while its dedicated connection listens and it has read the windows open right now
 * (a window opened before it listened); when the connection drops, everything is forgotten and answers are
 * computed until it is back. It starts listening at the first read, so processes that search nothing (workers,
 * the CLI) hold no extra connection. Identical misses of one generation share one computation.
 */
export class SearchAnswerCache {
  private readonly entries: LRUCache<string, Entry>;
  private readonly keysByProject = new Map<number, Set<string>>();
  private readonly generations = new Map<number, number>();
  private globalGeneration = 0;
  private readonly windows = new Map<number, Window>();
  private readonly inFlight = new Map<string, { generation: number; promise: Promise<unknown> }>();
  /** Searches of projects under an open window, by key, with when they started (never kept). */
  private readonly inWindow = new Map<string, { started: number; promise: Promise<unknown> }>();
  private readonly counters = { hits: 0, misses: 0, joined: 0 };
  /** Listening, and the windows open now have been read since it connected (listener.ready). */
  private listener: Listener | undefined;
  /** Windows closed between LISTEN and reading the open ones (the read may still list them). */
  private readonly closedMeanwhile = new Set<number>();
  private closed = false;

  constructor(
    private readonly pool: Pool,
    private readonly options: SearchAnswerCacheOptions,
  ) {
    this.entries = new LRUCache<string, Entry>({
      maxSize: Math.max(1, options.maxBytes),
      ttl: MAX_AGE_MS,
      dispose: (entry, key) => {
        const keys = this.keysByProject.get(entry.projectId);
        keys?.delete(key);
        if (keys?.size === 0) this.keysByProject.delete(entry.projectId);
      },
    });
  }

  get enabled(): boolean {
    return this.options.enabled;
  }

  /**
   * The answer for this project and key: kept, being computed, or computed now (and kept when nothing changed
   * meanwhile). `key` must name everything the answer depends on but the project and the index's content.
   */
  async answer<T>(projectId: number, key: string, compute: () => Promise<Computed<T>>): Promise<T> {
    if (!this.options.enabled) return (await compute()).value;
    if (!this.closed) this.listener ??= this.listen();
    const fullKey = `${projectId}\n${key}`;
    if (!this.cacheable(projectId)) {
      this.counters.misses += 1;
      return this.duringWindow(fullKey, compute);
    }
    const kept = this.entries.get(fullKey);
    if (kept) {
      this.counters.hits += 1;
      return kept.value as T;
    }
    this.counters.misses += 1;
    const generation = this.generationOf(projectId);
    const flying = this.inFlight.get(fullKey);
    if (flying && flying.generation === generation) {
      this.counters.joined += 1;
      return flying.promise as Promise<T>;
    }
    const promise: Promise<T> = compute().then(
      (computed) => {
        if (this.inFlight.get(fullKey)?.promise === promise) this.inFlight.delete(fullKey);
        if (this.generationOf(projectId) === generation && this.cacheable(projectId)) {
          this.keep(projectId, fullKey, computed);
        }
        return computed.value;
      },
      (error: unknown) => {
        if (this.inFlight.get(fullKey)?.promise === promise) this.inFlight.delete(fullKey);
        throw error;
      },
    );
    this.inFlight.set(fullKey, { generation, promise });
    return promise;
  }

  /** An answer while its project's window is open: computed, shared only with requests in the next instant. */
  private duringWindow<T>(fullKey: string, compute: () => Promise<Computed<T>>): Promise<T> {
    const now = performance.now();
    const flying = this.inWindow.get(fullKey);
    if (flying && now - flying.started <= WINDOW_JOIN_MS) {
      this.counters.joined += 1;
      return flying.promise as Promise<T>;
    }
    const promise: Promise<T> = compute().then((computed) => computed.value);
    const entry = { started: now, promise };
    this.inWindow.set(fullKey, entry);
    const forget = () => {
      if (this.inWindow.get(fullKey) === entry) this.inWindow.delete(fullKey);
    };
    promise.then(forget, forget);
    return promise;
  }

  stats(): SearchAnswerCacheStats {
    return { ...this.counters, entries: this.entries.size, bytes: this.entries.calculatedSize };
  }

  /** Whether answers of this project may be kept and served right now. */
  cacheable(projectId: number): boolean {
    if (!this.listener?.ready) return false;
    const now = Date.now();
    for (const [id, window] of this.windows) {
      if (window.until <= now) {
        // Its writer died: whatever it wrote became visible long ago, and nothing was kept meanwhile.
        this.windows.delete(id);
        continue;
      }
      if (window.projects === null || window.projects.has(projectId)) return false;
    }
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    const listener = this.listener;
    this.forgetAll();
    await listener?.close();
  }

  private keep(projectId: number, fullKey: string, computed: Computed<unknown>): void {
    const ttl =
      computed.expiresAt === undefined ? MAX_AGE_MS : Math.min(MAX_AGE_MS, computed.expiresAt - Date.now());
    if (ttl <= 0) return;
    const size = computed.bytes + fullKey.length * 2 + ENTRY_OVERHEAD_BYTES;
    if (size > this.options.maxBytes) return;
    this.entries.set(fullKey, { projectId, value: computed.value }, { ttl, size });
    let keys = this.keysByProject.get(projectId);
    if (!keys) {
      keys = new Set();
      this.keysByProject.set(projectId, keys);
    }
    keys.add(fullKey);
  }

  private generationOf(projectId: number): number {
    return this.globalGeneration + (this.generations.get(projectId) ?? 0);
  }

  /** A new generation for these projects (null: all): their kept answers and computations are stale. */
  private advance(projects: readonly number[] | null): void {
    if (projects === null) {
      this.globalGeneration += 1;
      this.entries.clear();
      return;
    }
    for (const projectId of projects) {
      this.generations.set(projectId, (this.generations.get(projectId) ?? 0) + 1);
      const keys = this.keysByProject.get(projectId);
      if (keys) for (const key of [...keys]) this.entries.delete(key);
    }
  }

  private onNotice(notice: WindowNotice, closedMeanwhile?: Set<number>): void {
    if ('open' in notice) {
      this.windows.set(notice.open, {
        projects: notice.projects === null ? null : new Set(notice.projects),
        until: Date.now() + notice.ttlMs,
      });
    } else {
      this.windows.delete(notice.close);
      closedMeanwhile?.add(notice.close);
    }
    this.advance(notice.projects);
  }

  private forgetAll(): void {
    this.closedMeanwhile.clear();
    this.windows.clear();
    this.advance(null);
  }

  /** Starts at the first read; answers are kept only while the connection listens and is ready. */
  private listen(): Listener {
    return listenWithReconnect(this.pool, [SEARCH_WINDOWS_CHANNEL], {
      onNotification: (message) => {
        if (!message.payload) return;
        let notice: WindowNotice;
        try {
          notice = JSON.parse(message.payload) as WindowNotice;
        } catch {
          // Not ours: whatever it was, everything kept may be stale.
          this.advance(null);
          return;
        }
        this.onNotice(notice, this.listener?.ready ? undefined : this.closedMeanwhile);
      },
      onListening: async (client) => {
        // Windows opened before this process listened: read after LISTEN, so none falls in between.
        const open = await searchWriteWindowQueries(client).listOpen();
        const now = Date.now();
        for (const window of open) {
          if (this.closedMeanwhile.has(window.id)) continue;
          this.windows.set(window.id, {
            projects: window.projects === null ? null : new Set(window.projects),
            until: now + window.remainingMs,
          });
        }
      },
      onReady: () => {
        this.closedMeanwhile.clear();
        this.advance(null);
      },
      onLost: () => this.forgetAll(),
    });
  }
}
