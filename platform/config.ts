/**
 * The service's whole configuration, read once from environment variables and validated.
 * Defaults run the local stack started by `npm start`; production sets the engine URLs
 * and the secrets. No other module reads `process.env`.
 *
 * Secrets fail closed: an unset NODE_ENV counts as production, and production refuses to
 * start without its own JWT_SECRET and ENCRYPTION_KEY. Only an explicit `development` or
 * `test` (set by `npm start` and the tests) falls back to the development values below.
 */
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { version } from '../package.json';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const positiveInt = z.coerce.number().int().positive();

/** Milliseconds per unit of a duration as `ms` (and Temporal) write them: `90s`, `3 days`, `1.5 h`. */
const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
  y: 31_557_600_000,
};
const DURATION =
  /^(\d+(?:\.\d+)?)\s*(ms|msecs?|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?|y|yrs?|years?)?$/i;
/** A positive duration, in milliseconds. */
const duration = z.string().transform((v, ctx) => {
  const [, amount, unit = 'ms'] = DURATION.exec(v.trim()) ?? [];
  const lower = unit.toLowerCase();
  const ms = Number(amount) * (DURATION_UNITS[/^m(s|sec|illi)/.test(lower) ? 'ms' : lower[0]!] ?? NaN);
  if (!(ms > 0)) {
    ctx.addIssue({ code: 'custom', message: 'must be a duration such as "3 days", "12h" or "90s"' });
    return z.NEVER;
  }
  return Math.round(ms);
});

/** Express's names for address ranges (proxy-addr). */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const isProxyEntry = (entry: string) => {
  if (PROXY_RANGE_NAMES.has(entry) || isIP(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  return rest.length === 0 && family !== 0 && /^\d{1,3}$/.test(bits ?? '') && Number(bits) <= (family === 4 ? 32 : 128);
};

/**
 * Which peers may tell the client's address in X-Forwarded-For: `false`/`none`, a hop count
 * (the proxies in front of the service, each appending one address), or a comma-separated
 * list of addresses, CIDR ranges and loopback/linklocal/uniquelocal; empty means unset.
 * `true` (believe any client) is refused: every caller could pick the address its limits
 * and audit entries are counted on.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((v, ctx): false | number | string[] | undefined => {
    if (v === '') return undefined;
    if (v === 'false' || v === 'none') return false;
    if (/^\d+$/.test(v)) return Number(v);
    const entries = v.split(',').map((e) => e.trim());
    const bad = entries.filter((e) => !isProxyEntry(e));
    const problem =
      v === 'true'
        ? 'true would believe any client'
        : bad.length
          ? `not an address, CIDR range or loopback/linklocal/uniquelocal: ${bad.join(', ')}`
          : null;
    if (problem) {
      ctx.addIssue({
        code: 'custom',
        message: `${problem}; give the number of proxies in front of the service, their addresses or ranges, or false`,
      });
      return z.NEVER;
    }
    return entries;
  });

/** Development-only secrets: used only when NODE_ENV is development or test, refused otherwise. */
const DEV_JWT_SECRET = 'dev-only-jwt-secret-change-me-in-production-0123456789';
const DEV_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('production'),
    HOST: z.string().default('0.0.0.0'),
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    /**
     * Origin of the front end that links point at (mail: /invite/<token>, /reset-password/<token>,
     * /sign/<token>). Empty: http://localhost:<PORT> for mail, the request's own origin in API answers.
     * Required in production.
     */
    PUBLIC_BASE_URL: z.union([z.url({ protocol: /^https?$/ }), z.literal('')]).default(''),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    BODY_LIMIT: z.string().default('1mb'),
    CORS_ORIGINS: z.string().default(''),
    /** Proxies whose X-Forwarded-For is believed; unset: none in production, loopback under development and test (the local stack and the tests set client addresses through it). */
    TRUST_PROXY: trustProxy.optional(),

    MONGODB_URI: z.string().default('mongodb://127.0.0.1:27017/contracts?maxPoolSize=20'),
    REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
    /** Namespace of every key this service writes in Redis (deployments or test runs sharing one Redis use their own). */
    REDIS_KEY_PREFIX: z.string().min(1).default('clm'),
    /**
     * The Redis list index (platform/lists/list-index.ts), which answers the plain lists where the
     * store cannot page cheaply: `auto` keeps it on only when the store is FerretDB (detected at
     * start), `on` and `off` force it. Off, the store answers every list and nothing is kept in Redis.
     */
    LIST_INDEX: z.enum(['auto', 'on', 'off']).default('auto'),
    /** The list index's own Redis (e.g. another instance, or redis://host:6379/1); empty: REDIS_URL's. */
    LIST_INDEX_REDIS_URL: z
      .union([z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }), z.literal('')])
      .default(''),
    /** Records of one organization's list the index keeps (about 1 KB of Redis each); a longer list is answered by the store. */
    LIST_INDEX_MAX_RECORDS: positiveInt.default(250_000),
    ELASTICSEARCH_URL: z.url().default('http://127.0.0.1:9200'),
    /** Any SMTP relay: smtp://user:pass@host:587 (STARTTLS when offered) or smtps://host:465; locally GreenMail. */
    SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).default('smtp://127.0.0.1:3025'),
    /** The From of every message: `address` or `Name <address>`; its domain names the Message-IDs. */
    MAIL_FROM: z
      .string()
      .trim()
      .regex(/^(?:[^<>]*<[^<>\s@]+@[^<>\s@]+>|[^<>\s@]+@[^<>\s@]+)$/, 'must be an address or "Name <address>"')
      .default('Contract Service <no-reply@localhost>'),
    /** Prepended to every index name, so several deployments (or test runs) share a cluster. */
    ELASTICSEARCH_INDEX_PREFIX: z
      .string()
      .regex(/^[a-z0-9_-]*$/)
      .default(''),
    /** After an organization's search reindex ends, how long its owner waits before starting another (a call meanwhile answers 409 naming it). */
    SEARCH_REINDEX_COOLDOWN_SECONDS: z.coerce.number().int().min(0).default(300),
    TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().default('default'),
    /** Interactive work's task queue (a person waits: signatures, mail, deliveries, an upload, chat). */
    TEMPORAL_TASK_QUEUE: z.string().default('contract-service'),
    /** Bulk work's task queue (imports, re-extraction, re-indexing, renewal planning); unset, TEMPORAL_TASK_QUEUE + `-bulk`. */
    TEMPORAL_BULK_TASK_QUEUE: z.string().min(1).optional(),
    /** The classes of work this worker process serves: `interactive,bulk` (default), `interactive` or `bulk`. */
    WORKER_QUEUES: z
      .string()
      .transform((v) => [...new Set(v.split(',').map((c) => c.trim()))])
      .pipe(z.array(z.enum(['interactive', 'bulk'])).min(1))
      .default(['interactive', 'bulk']),
    /** Bulk activities (and local activities) one worker process runs at once: the rest of the CPU stays with interactive work. */
    WORKER_BULK_ACTIVITY_SLOTS: positiveInt.default(2),
    /** Bulk workflow tasks one worker process runs at once. */
    WORKER_BULK_WORKFLOW_TASK_SLOTS: positiveInt.default(4),
    TEMPORAL_UI_URL: z.url().default('http://localhost:8233'),

    JWT_SECRET: z.string().min(32).optional(),
    JWT_ISSUER: z.string().default('contract-service'),
    JWT_AUDIENCE: z.string().default('contract-service-api'),
    ACCESS_TOKEN_TTL_SECONDS: positiveInt.default(1800),
    REFRESH_TOKEN_TTL_SECONDS: positiveInt.default(604800),
    MFA_TOKEN_TTL_SECONDS: positiveInt.default(300),
    INVITE_TTL_SECONDS: positiveInt.default(7 * 24 * 3600),
    PASSWORD_RESET_TTL_SECONDS: positiveInt.default(3600),
    /** How long the link that verifies an owner's email address works. */
    EMAIL_VERIFICATION_TTL_SECONDS: positiveInt.default(24 * 3600),
    /** 32 bytes, base64: the AES-256-GCM key for secrets at rest (TOTP, webhook and integration secrets). */
    ENCRYPTION_KEY: z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes encoded as base64')
      .optional(),
    /** Ed25519 private key (PKCS#8 PEM) that signs signature certificates; generated when empty. */
    SIGNING_PRIVATE_KEY: z.string().default(''),
    /** The PKCS#12 (base64) whose certificate seals signed PDFs; unset, one is generated once and kept encrypted. */
    PDF_SEAL_P12: z.string().default(''),
    PDF_SEAL_P12_PASSWORD: z.string().default(''),

    RATE_LIMIT_DEFAULT_PER_MINUTE: positiveInt.default(60),
    RATE_LIMIT_LOGIN_PER_MINUTE: positiveInt.default(5),
    RATE_LIMIT_REGISTER_PER_MINUTE: positiveInt.default(3),
    RATE_LIMIT_PASSWORD_RESET_PER_5_MINUTES: positiveInt.default(3),
    /** Requests a minute of one organization's users and API keys together, on top of each one's own limit: more keys buy no throughput. */
    RATE_LIMIT_ORGANIZATION_PER_MINUTE: positiveInt.default(120),
    /** API keys one organization may hold. */
    API_KEYS_PER_ORG: positiveInt.default(10),
    /** Addresses outside the organization one organization may mail in 24 hours (signing requests, invitations). */
    MAIL_RECIPIENTS_PER_ORG_PER_DAY: positiveInt.default(100),
    /** Lets webhooks and integrations reach loopback and private addresses: the local stack's receivers (npm start, tests, benchmarks); never in production. */
    ALLOW_PRIVATE_WEBHOOK_URLS: bool.default(false),
    WEBHOOK_TIMEOUT_MS: positiveInt.default(10000),
    /** Subscriptions one organization may hold: each event fans out to every one of them. */
    WEBHOOK_SUBSCRIPTIONS_PER_ORG: positiveInt.default(20),
    /** How long one call to an integration vendor (Slack, Salesforce, ...) may take. */
    INTEGRATION_TIMEOUT_MS: positiveInt.default(15000),
    UPLOAD_DIR: z.string().default('.stack/uploads'),
    UPLOAD_MAX_BYTES: positiveInt.default(50 * 1024 * 1024),
    /**
     * Bounds on a bulk import (POST /imports): the records file's bytes and data rows, the ZIP's
     * bytes and entries (413 when over). Each ZIP entry is also held to UPLOAD_MAX_BYTES and
     * EXTRACT_MAX_EXPANDED_BYTES like an upload; an entry over them fails its row only.
     */
    IMPORT_RECORDS_MAX_BYTES: positiveInt.default(100 * 1024 * 1024),
    IMPORT_MAX_ROWS: positiveInt.default(100_000),
    IMPORT_ZIP_MAX_BYTES: positiveInt.default(2 * 1024 * 1024 * 1024),
    IMPORT_ZIP_MAX_ENTRIES: positiveInt.default(100_000),
    /**
     * What one import may write and hold (SECURITY.md, Imports): the bytes its ZIP's files may
     * inflate to, all files together (each file is taken out once; past this the import fails
     * before writing more); the free space UPLOAD_DIR's disk keeps, checked before an upload
     * is received (507 when short) and before each batch (the import fails); the imports one
     * organization may run at once (409 for the next).
     */
    IMPORT_MAX_INFLATED_BYTES: positiveInt.default(10 * 1024 * 1024 * 1024),
    IMPORT_DISK_RESERVE_BYTES: positiveInt.default(1024 * 1024 * 1024),
    IMPORT_MAX_RUNNING_PER_ORG: positiveInt.max(100).default(2),
    /** Rows per batch activity of an import: a few seconds of work, so a restarted worker repeats little. */
    IMPORT_BATCH_ROWS: positiveInt.max(10_000).default(500),
    /**
     * Bounds on reading an uploaded file (services/documents/extract-text-in-child.ts): what
     * its zip entries or PDF streams may inflate to, its text, its pages, the heap and the
     * wall-clock time of the child process that parses it, and how many such children one
     * process runs at once. A file over a bound ends `failed` with the reason.
     */
    EXTRACT_MAX_EXPANDED_BYTES: positiveInt.default(50 * 1024 * 1024),
    // As many characters as the largest upload has bytes: no TXT within the upload limit is refused.
    EXTRACT_MAX_TEXT_CHARS: positiveInt.default(50 * 1024 * 1024),
    EXTRACT_MAX_PAGES: positiveInt.default(5000),
    EXTRACT_MEMORY_MB: positiveInt.min(64).default(512),
    EXTRACT_TIMEOUT_MS: positiveInt.default(120_000),
    EXTRACT_CONCURRENCY: positiveInt.max(64).default(2),
    /**
     * Worker threads per process that run CPU-bound pure work off the event loop
     * (platform/offload.ts): the key-term rules, text diffs. More calls wait in order.
     */
    OFFLOAD_THREADS: positiveInt.max(64).default(2),
    /**
     * Bounds on the key-term rules (services/contracts/extract-key-terms.ts): the characters of
     * the text of record they read (pages in order; the 500,000 of a contract's content fit
     * twice), the characters of one line read at a time (a longer line is read in pieces cut at
     * sentence ends), and their time budget, after which the keys not yet read are answered as
     * unread (`unread_keys`); a rule still running at twice the budget is stopped.
     */
    KEY_TERMS_MAX_TEXT_CHARS: positiveInt.default(1_000_000),
    /**
     * Characters kept of the text extracted from a PDF version (the redline compares it): the
     * rest is cut and the version says so (`text_truncated`). At most 3 bytes a character in
     * UTF-8, so the maximum keeps a version well inside the store's 16 MB document limit.
     */
    VERSION_TEXT_MAX_CHARS: positiveInt.max(4_000_000).default(1_000_000),
    KEY_TERMS_MAX_LINE_CHARS: positiveInt.min(200).default(5_000),
    KEY_TERMS_BUDGET_MS: positiveInt.default(1_500),
    /** Parsed to milliseconds. */
    SIGNATURE_REMINDER_INTERVAL: duration.prefault('3 days'),
    /**
     * Days after a request is completed during which its signers' links (the signing link and
     * the completion mail's copy link) download the sealed PDF, which names every signer's email
     * and IP address; afterwards they answer 410. Members download it through the API.
     */
    SIGNED_COPY_DAYS: positiveInt.max(3650).default(30),
    /**
     * Reminder rounds one signature request sends at most (0: none). Each round also takes its
     * recipients from MAIL_RECIPIENTS_PER_ORG_PER_DAY; a round that does not fit is skipped.
     */
    SIGNATURE_REMINDERS_MAX: z.coerce.number().int().min(0).max(1000).default(5),
    /** Active contracts ending within this many days get one `contract.renewal_due` (daily schedule). */
    RENEWAL_REMINDER_DAYS: positiveInt.default(30),
    /**
     * How long an approver's personal link in an approval mail (`/approvals/<id>/<token>`)
     * works; every reminder and escalation mail carries a fresh one. A link also stops at once
     * when its request is decided or superseded, or the approver resets their password.
     */
    APPROVAL_LINK_DAYS: positiveInt.max(90).default(7),

    /** The local embedding model's folder (scripts/stack.sh provisions it); without its files the local provider falls back to feature hashing. */
    EMBEDDING_MODEL_DIR: z.string().default('.stack/models/all-MiniLM-L6-v2'),
    /** ONNX Runtime intra-op threads per process for the local embedding model: by default the cores this process may use. */
    EMBEDDING_THREADS: positiveInt.max(64).default(availableParallelism()),
    /** Texts per forward pass of the local embedding model (each pass is padded to its longest text). */
    EMBEDDING_BATCH_SIZE: positiveInt.max(256).default(8),

    GEMINI_API_KEY: z.string().default(''),
    GEMINI_BASE_URL: z.string().default(''),
    GEMINI_MODEL_PRIMARY: z.string().default('gemini-2.5-pro'),
    GEMINI_MODEL_MINI: z.string().default('gemini-2.5-flash-lite'),
    GEMINI_MODEL_PREMIUM: z.string().default('gemini-2.5-pro'),
    GEMINI_MODEL_FALLBACK: z.string().default('gemini-2.5-flash'),
    GEMINI_MODEL_EMBEDDING: z.string().default('gemini-embedding-001'),
    GEMINI_TIMEOUT_MS: positiveInt.default(60000),
  })
  .superRefine((c, ctx) => {
    if (c.NODE_ENV !== 'production') return;
    const secrets = { JWT_SECRET: [c.JWT_SECRET, DEV_JWT_SECRET], ENCRYPTION_KEY: [c.ENCRYPTION_KEY, DEV_ENCRYPTION_KEY] } as const;
    for (const [name, [value, devValue]] of Object.entries(secrets)) {
      if (value === undefined)
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'required unless NODE_ENV is development or test (an unset NODE_ENV counts as production)',
        });
      else if (value === devValue)
        ctx.addIssue({ code: 'custom', path: [name], message: 'is the development value from the source; set a secret of your own' });
    }
    if (!c.PUBLIC_BASE_URL)
      ctx.addIssue({
        code: 'custom',
        path: ['PUBLIC_BASE_URL'],
        message: 'required unless NODE_ENV is development or test (links in mail point there)',
      });
  })
  .transform((c) => ({
    ...c,
    JWT_SECRET: c.JWT_SECRET ?? DEV_JWT_SECRET,
    ENCRYPTION_KEY: c.ENCRYPTION_KEY ?? DEV_ENCRYPTION_KEY,
    TRUST_PROXY: c.TRUST_PROXY ?? (c.NODE_ENV === 'production' ? false : ['loopback']),
  }));

export type Env = z.input<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env) {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const c = parsed.data;
  return {
    ...c,
    version,
    aiProvider: c.GEMINI_API_KEY ? ('gemini' as const) : ('local' as const),
    corsOrigins: c.CORS_ORIGINS.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    /** Where links in mail point, without a trailing slash. */
    publicBaseUrl: (c.PUBLIC_BASE_URL || `http://localhost:${c.PORT}`).replace(/\/+$/, ''),
    /** The address part of MAIL_FROM. */
    mailFromAddress: /<([^<>]+)>\s*$/.exec(c.MAIL_FROM)?.[1] ?? c.MAIL_FROM,
  };
}

export type Config = ReturnType<typeof loadConfig>;

let cached: Config | undefined;
/** The process-wide configuration (entry points call this; libraries take a Config argument). */
export function getConfig(): Config {
  cached ??= loadConfig();
  return cached;
}
