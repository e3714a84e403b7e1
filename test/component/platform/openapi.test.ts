import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import { createApp } from '../../../api/app';
import { Types } from 'mongoose';
import { EVENT_DATA } from '../../../api/http/openapi-events';
import { EVENT_TYPES, Event } from '../../../models/event';
import { api } from '../../support/http';
import { addMember, signUp } from '../../support/auth';
import { testEnv } from '../../support/env';

interface JsonSchema {
  $ref?: string;
  type?: string;
  pattern?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  contentSchema?: JsonSchema;
}

interface Operation {
  operationId?: string;
  servers?: Array<{ url: string }>;
  parameters?: Array<{ in: string; name: string; schema: JsonSchema }>;
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }>; headers?: Record<string, { required?: boolean }> }>;
}

interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  webhooks: Record<
    string,
    {
      post: {
        operationId?: string;
        requestBody: { content: Record<string, { schema: { $ref?: string } }> };
        parameters?: Array<{ in: string; name: string }>;
      };
    }
  >;
}

/** The parts of router 2.x's Layer and Route the walk reads. */
interface Layer {
  rawPath?: string | RegExp;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every method + path the app answers, `:id` written `{id}`, found by walking the router stack. */
function mountedRoutes(stack: Layer[], prefix = ''): string[] {
  const found: string[] = [];
  for (const layer of stack) {
    const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
    if (layer.route) {
      const path = `${prefix}${mount}`.replace(/\/$/, '') || '/';
      for (const method of Object.keys(layer.route.methods)) {
        if (HTTP_METHODS.includes(method)) found.push(`${method.toUpperCase()} ${path.replace(/:(\w+)/g, '{$1}')}`);
      }
    } else if (layer.handle.stack) {
      found.push(...mountedRoutes(layer.handle.stack, `${prefix}${mount}`));
    }
  }
  return found;
}

/** Every documented operation as the path a client calls (operation servers override /api/v1). */
function documentedRoutes(doc: OpenApiDoc): string[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => `${method.toUpperCase()} ${(op.servers?.[0]?.url ?? doc.servers[0]!.url).replace(/\/$/, '')}${path}`),
  );
}

const fetchDoc = async () => (await api<OpenApiDoc>('GET', '/openapi.json')).body;

/** `/contracts/{id}` as a pattern over concrete paths: any one segment per parameter. */
const templatePattern = (route: string) =>
  new RegExp(
    `^${route
      .split(/\{\w+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}$`,
  );

/** Whether a route template serves a documented route: the same, or the documented one fills its parameters with literals. */
const serves = (template: string, route: string) => template === route || templatePattern(template).test(route);

const HTTP_OPERATIONS = (doc: OpenApiDoc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([m]) => HTTP_METHODS.includes(m))
      .map(([method, op]) => ({ method, path, op, label: `${method.toUpperCase()} ${path}` })),
  );

/** Every schema reachable from `schema` (components by $ref), each with the property name it sits under. */
function* schemasIn(
  doc: OpenApiDoc,
  schema: JsonSchema | undefined,
  name?: string,
  seen = new Set<string>(),
): Generator<{ schema: JsonSchema; name?: string }> {
  if (!schema) return;
  if (schema.$ref) {
    if (seen.has(schema.$ref)) return;
    seen.add(schema.$ref);
    yield* schemasIn(doc, doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] as JsonSchema, name, seen);
    return;
  }
  yield { schema, name };
  for (const [key, child] of Object.entries(schema.properties ?? {})) yield* schemasIn(doc, child, key, seen);
  yield* schemasIn(doc, schema.items, name, seen);
  yield* schemasIn(doc, schema.contentSchema, name, seen);
  for (const child of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) yield* schemasIn(doc, child, name, seen);
}

/** Names that end in `id` but are not store ids: Temporal workflow ids, a key fingerprint, rule names, a Google Drive folder. */
const NOT_STORE_IDS = new Set(['workflow_id', 'key_id', 'rule_id', 'folder_id', 'client_id']);
const ID_PATTERN = '^[0-9a-f]{24}$';

describe('API reference', () => {
  describe('GET /api/v1/openapi.json', () => {
    it('is public OpenAPI 3.1 with paths, components, the bearer scheme and the error shape', async () => {
      const res = await api<OpenApiDoc>('GET', '/openapi.json');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      const doc = res.body;
      expect(doc.openapi).to.equal('3.1.0');
      expect(doc.info.title).to.be.a('string').and.not.empty;
      expect(doc.servers).to.deep.equal([{ url: '/api/v1' }]);
      expect(Object.keys(doc.paths)).to.include.members(['/contracts', '/contracts/{id}', '/webhooks/subscribe', '/chat/send', '/health']);
      expect(doc.components.securitySchemes).to.have.property('bearer');
      expect(doc.components.schemas).to.include.keys(
        'Error',
        'Contract',
        'Vendor',
        'Document',
        'WebhookSubscription',
        'WebhookDelivery',
        'TeamMember',
        'ApiKey',
        'Health',
      );
      for (const [path, ops] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          // A form post (the signing page) succeeds with 303 See Other back to its page; SSO's start with 302 to the provider.
          const success = Object.keys(op.responses).filter((status) => /^(2\d\d|30[23])$/.test(status));
          expect(success, `${method.toUpperCase()} ${path} documents a success response`).to.not.be.empty;
        }
      }
    });

    it('documents the request schemas the handlers validate with', async () => {
      const doc = await fetchDoc();
      type BodySchema = { required?: string[]; properties: Record<string, { enum?: string[] }> };
      const create = doc.paths['/contracts']!.post as unknown as {
        requestBody: { content: { 'application/json': { schema: { anyOf: BodySchema[] } } } };
      };
      // Two bodies: a contract from its fields, or a draft from a template (`template_id`).
      const [fields, fromTemplate] = create.requestBody.content['application/json'].schema.anyOf;
      expect(fields!.required).to.have.members(['title', 'type', 'counterparty']);
      expect(fields!.properties.type!.enum).to.include('nda');
      expect(fromTemplate!.required).to.include('template_id');
      // Server-set fields are not part of the input.
      for (const schema of [fields!, fromTemplate!])
        expect(schema.properties).to.not.have.any.keys('organization_id', 'risk_score', 'created_by', 'signed_at');
    });

    it('describes the chat answer as an event stream of chunk, citations and done, or one JSON answer', async () => {
      const doc = await fetchDoc();
      const content = doc.paths['/chat/send']!.post!.responses['200']!.content!;
      expect(content).to.have.keys('text/event-stream', 'application/json');
      // OpenAPI 3.1 describes one event of the stream; its `data` line holds a ChatStreamEvent.
      expect(content['text/event-stream']!.schema.properties!.data!.contentSchema!.$ref).to.equal('#/components/schemas/ChatStreamEvent');
      const events = doc.components.schemas.ChatStreamEvent as { oneOf: Array<{ properties: { type: { enum: string[] } } }> };
      expect(events.oneOf.flatMap((e) => e.properties.type.enum)).to.include.members(['chunk', 'citations', 'done']);
    });

    it('lists every event as a webhook with the envelope, its data shape and the signature headers', async () => {
      const doc = await fetchDoc();
      expect(Object.keys(doc.webhooks)).to.have.members([...EVENT_TYPES]);
      for (const type of EVENT_TYPES) {
        const hook = doc.webhooks[type]!.post;
        const ref = hook.requestBody.content['application/json']!.schema.$ref!;
        const payload = doc.components.schemas[ref.replace('#/components/schemas/', '')] as {
          required: string[];
          properties: { event: { enum: string[] }; data: { type: string } };
        };
        expect(payload.required, type).to.have.members(['event', 'timestamp', 'data', 'organization_id']);
        expect(payload.properties.event.enum).to.deep.equal([type]);
        expect(payload.properties.data.type).to.equal('object');
        expect(hook.parameters?.filter((p) => p.in === 'header').map((p) => p.name)).to.have.members([
          'X-Service-Signature',
          'X-Service-Event',
          'X-Service-Delivery',
          'webhook-id',
          'webhook-timestamp',
          'webhook-signature',
        ]);
      }
      const completed = doc.components.schemas['Event_signature_completed'] as { properties: { data: { required: string[] } } };
      expect(completed.properties.data.required).to.include.members(['signature_id', 'contract_id', 'signer_name', 'signer_email']);
    });

    it('documents the data the API really records for contract, vendor and team events', async function () {
      // Ten requests through the whole stack; slow when the shared machine is busy.
      this.timeout(180_000);
      const owner = await signUp();
      const post = (path: string, body?: unknown) => api<{ id: string }>('POST', path, { token: owner.token, body });
      const contract = await post('/contracts', {
        title: 'MSA',
        type: 'service_agreement',
        counterparty: 'Acme',
        content: 'The supplier provides services. Payment within 30 days.',
      });
      await api('PUT', `/contracts/${contract.body.id}`, { token: owner.token, body: { status: 'active' } });
      await post(`/contracts/${contract.body.id}/analyze`);
      const vendor = await post('/vendors', { name: 'Acme Cloud' });
      await post(`/vendors/${vendor.body.id}/risk-assessment`);
      await post(`/vendors/${vendor.body.id}/generate-nda`, { party_name: 'Us Ltd' });
      await api('DELETE', `/contracts/${contract.body.id}`, { token: owner.token });
      await addMember(owner, 'viewer');

      const events = await Event.find({ organization_id: new Types.ObjectId(owner.organizationId) }).lean();
      expect(new Set(events.map((e) => e.type))).to.have.all.keys(
        'contract.created',
        'contract.updated',
        'contract.analyzed',
        'contract.deleted',
        'vendor.created',
        'vendor.risk_assessed',
        'team.member_joined',
      );
      for (const e of events) {
        const checked = EVENT_DATA[e.type].safeParse(e.data);
        expect(checked.success, `${e.type}: ${checked.error?.issues[0]?.path.join('.')} ${checked.error?.issues[0]?.message}`).to.equal(
          true,
        );
      }
    });

    it('documents every mounted route, and nothing that is not mounted', async () => {
      const doc = await fetchDoc();
      const app = createApp(testEnv().services);
      const mounted = mountedRoutes((app.router as unknown as { stack: Layer[] }).stack);
      const documented = documentedRoutes(doc);
      expect(mounted).to.include('GET /health');
      expect(mounted).to.include('GET /api/v1/contracts/{id}');
      // A documented route may fill a mounted one's parameter (`/integrations/slack/connect`).
      const undocumented = mounted.filter((m) => !documented.some((d) => serves(m, d)));
      const notMounted = documented.filter((d) => !mounted.some((m) => serves(m, d)));
      expect(undocumented, `mounted without operation(): ${undocumented.join(', ')}`).to.deep.equal([]);
      expect(notMounted, `documented but not mounted: ${notMounted.join(', ')}`).to.deep.equal([]);
    });
  });

  describe('the document is exact enough for generated clients and fuzzers', () => {
    it('gives every operation and webhook a unique operationId', async () => {
      const doc = await fetchDoc();
      const ids = [...HTTP_OPERATIONS(doc).map((o) => o.op.operationId), ...Object.values(doc.webhooks).map((w) => w.post.operationId)];
      expect(
        ids.filter((id) => typeof id !== 'string' || !/^[A-Za-z][A-Za-z0-9]*$/.test(id)),
        'missing or not URL-safe',
      ).to.deep.equal([]);
      expect(new Set(ids).size).to.equal(ids.length);
      expect(doc.paths['/contracts/{id}']!.get!.operationId).to.equal('getContractsById');
    });

    it('answers every declared error with the one Error schema, and a 429 with its rate-limit headers', async () => {
      const doc = await fetchDoc();
      expect(doc.components.schemas.Error).to.deep.include({ type: 'object', required: ['detail'] });
      const wrong: string[] = [];
      for (const { label, op } of HTTP_OPERATIONS(doc)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          // The interface fixes /health's 503 body: the health report itself.
          if (label === 'GET /health' && status === '503') continue;
          // The signer's and the approver's HTML pages answer their refusals as a page for the browser.
          if (/ \/(sign|approvals)\//.test(label) && Number(status) < 500 && response.content?.['text/html']) continue;
          // SCIM answers its refusals in its own error schema (RFC 7644 §3.12), as SCIM clients expect.
          if (/ \/scim\/v2\//.test(label) && response.content?.['application/scim+json']) continue;
          if (response.content?.['application/json']?.schema.$ref !== '#/components/schemas/Error') wrong.push(`${label} ${status}`);
        }
        const limited = op.responses['429'];
        if (limited && !limited.headers?.['Retry-After']?.required) wrong.push(`${label} 429 without Retry-After`);
      }
      expect(wrong).to.deep.equal([]);
      expect(Object.keys(doc.paths['/contracts']!.get!.responses)).to.include.members(['400', '401', '403', '429', '503']);
      expect(Object.keys(doc.paths['/contracts']!.post!.responses)).to.include.members(['413', '415']);
      expect(doc.paths['/contracts']!.get!.responses['429']!.headers).to.have.keys(
        'X-Error-Code',
        'Retry-After',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
      );
    });

    it('describes every id, in paths, queries and bodies, as 24 lowercase hex characters', async () => {
      const doc = await fetchDoc();
      const loose: string[] = [];
      const check = (where: string, schema: JsonSchema | undefined, name?: string) => {
        for (const found of schemasIn(doc, schema, name)) {
          const isId = found.name === 'id' || (found.name?.endsWith('_id') && !NOT_STORE_IDS.has(found.name));
          if (isId && found.schema.type === 'string' && found.schema.pattern !== ID_PATTERN) loose.push(`${where}: ${found.name}`);
        }
      };
      for (const { label, op } of HTTP_OPERATIONS(doc)) {
        for (const p of op.parameters ?? []) check(`${label} ${p.in}`, p.schema, p.name);
        for (const c of Object.values(op.requestBody?.content ?? {})) check(`${label} body`, c.schema);
        for (const [status, r] of Object.entries(op.responses))
          for (const c of Object.values(r.content ?? {})) check(`${label} ${status}`, c.schema);
      }
      expect(loose).to.deep.equal([]);
      const param = doc.paths['/signatures/{id}/cancel']!.post!.parameters!.find((p) => p.name === 'id')!;
      expect(param.schema.pattern).to.equal(ID_PATTERN);
    });

    it('has no two paths that one URL could match', async () => {
      const doc = await fetchDoc();
      const paths = Object.keys(doc.paths).map((path) => {
        const op = Object.values(doc.paths[path]!)[0]!;
        const patterns = new Map(
          (op.parameters ?? []).filter((p) => p.in === 'path' && p.schema.pattern).map((p) => [p.name, new RegExp(p.schema.pattern!)]),
        );
        return { path, segments: path.split('/'), patterns };
      });
      /** Whether a URL segment could fill both: equal literals, two parameters, or a literal the parameter's pattern admits. */
      const overlap = (a: (typeof paths)[number], b: (typeof paths)[number], i: number) => {
        const [x, y] = [a.segments[i]!, b.segments[i]!];
        const param = (seg: string) => /^\{(\w+)\}$/.exec(seg)?.[1];
        const [px, py] = [param(x), param(y)];
        if (px && py) return true;
        if (px) return a.patterns.get(px)?.test(y) ?? true;
        if (py) return b.patterns.get(py)?.test(x) ?? true;
        return x === y;
      };
      const ambiguous: string[] = [];
      paths.forEach((a, i) =>
        paths.slice(i + 1).forEach((b) => {
          if (a.segments.length === b.segments.length && a.segments.every((_, k) => overlap(a, b, k)))
            ambiguous.push(`${a.path} ~ ${b.path}`);
        }),
      );
      expect(ambiguous).to.deep.equal([]);
    });

    it("declares page bounds, enumerations, formats and each integration's own connect body", async () => {
      const doc = await fetchDoc();
      const list = doc.paths['/contracts']!.get!;
      const pageSize = list.parameters!.find((p) => p.name === 'page_size')!.schema as JsonSchema & { minimum?: number };
      expect(pageSize.minimum).to.equal(1);
      const page = doc.components.schemas.ContractPage as { properties: { page_size: { minimum: number; maximum: number } } } | undefined;
      const envelope =
        page ??
        (list.responses['200']!.content!['application/json']!.schema as {
          properties: { page_size: { minimum: number; maximum: number } };
        });
      expect(envelope.properties.page_size).to.include({ minimum: 1, maximum: 100 });
      expect((list.parameters!.find((p) => p.name === 'status')!.schema as { enum: string[] }).enum).to.include('active');
      const signer = doc.components.schemas.SignatureRequest as { properties: { created_at: { format: string } } };
      expect(signer.properties.created_at.format).to.equal('date-time');
      expect((doc.components.schemas.User as { properties: { email: { format: string } } }).properties.email.format).to.equal('email');
      for (const type of ['slack', 'teams', 'salesforce', 'hubspot', 'google_drive', 'clio']) {
        const body = doc.paths[`/integrations/${type}/connect`]!.post!.requestBody!.content['application/json']!.schema.$ref!;
        expect(body, type).to.match(/Connect$/);
      }
      expect((doc.components.schemas.SalesforceConnect as { required: string[] }).required).to.include('instance_url');
    });

    it('names API keys by their real prefix', async () => {
      const doc = await fetchDoc();
      const bearer = doc.components.securitySchemes.bearer as { description: string };
      expect(bearer.description).to.include('clk_').and.not.include('clm_');
    });
  });

  describe('GET /api/v1/docs', () => {
    it('serves the reference page from local files under a CSP that allows only this origin', async () => {
      const res = await api('GET', '/docs');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      expect(res.text).to.include('<div id="swagger-ui"></div>');
      expect(res.text).to.not.match(/https?:\/\//);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).to.include("script-src 'self'").and.include("connect-src 'self'").and.include("frame-ancestors 'none'");
      expect(csp).to.not.match(/script-src[^;]*unsafe/);

      const init = await api('GET', '/docs/init.js');
      expect(init.status).to.equal(200);
      expect(init.text).to.include("url: 'openapi.json'");
      const bundle = await fetch(`${testEnv().baseUrl}/docs/assets/swagger-ui-bundle.js`);
      expect(bundle.status).to.equal(200);
      expect(bundle.headers.get('content-type')).to.match(/javascript/);
      expect((await bundle.text()).length).to.be.greaterThan(100_000);
      expect((await api('GET', '/docs/assets/no-such-file.js')).status).to.equal(404);
    });
  });

  describe('app-wide protections', () => {
    it('refuses a JSON body above BODY_LIMIT with 413 and a detail', async () => {
      const res = await api('POST', '/auth/login', {
        rawBody: JSON.stringify({ email: 'a@example.test', password: 'x'.repeat(1_100_000) }),
      });
      expect(res.status).to.equal(413);
      expect(res.body).to.deep.equal({ detail: 'Request body is too large' });
    });

    it("answers API routes with helmet's strict headers and no X-Powered-By", async () => {
      const res = await api('GET', '/contracts');
      expect(res.status).to.equal(401);
      expect(res.headers.get('x-powered-by')).to.equal(null);
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('x-frame-options')).to.equal('SAMEORIGIN');
      expect(res.headers.get('strict-transport-security')).to.match(/max-age=\d+/);
      expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
      expect(res.headers.get('cross-origin-opener-policy')).to.equal('same-origin');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).to.include("default-src 'self'").and.include("script-src 'self'").and.include("object-src 'none'");
    });

    it('grants no cross-origin access unless the origin is configured', async () => {
      const foreign = { Origin: 'https://evil.example' };
      const plain = await api('GET', '/openapi.json', { headers: foreign });
      expect(plain.headers.get('access-control-allow-origin')).to.equal(null);

      const { services } = testEnv();
      const allowed = 'https://app.example';
      const server: Server = createApp({ ...services, config: { ...services.config, corsOrigins: [allowed] } }).listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      try {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
        const preflight = await fetch(`${base}/contracts`, {
          method: 'OPTIONS',
          headers: {
            Origin: allowed,
            'Access-Control-Request-Method': 'POST',
            'Access-Control-Request-Headers': 'authorization,content-type',
          },
        });
        expect(preflight.status).to.equal(204);
        expect(preflight.headers.get('access-control-allow-origin')).to.equal(allowed);
        const ok = await api('GET', '/contracts', { base, headers: { Origin: allowed } });
        expect(ok.headers.get('access-control-allow-origin')).to.equal(allowed);
        expect(ok.headers.get('access-control-expose-headers')).to.include('X-Request-Id');
        const other = await api('GET', '/contracts', { base, headers: foreign });
        expect(other.headers.get('access-control-allow-origin')).to.equal(null);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
});
