// A real OAuth 2.1 authorization server for the sign-in tests: npm oidc-provider (pinned in
// tests/interop/package.json), with its own login page checked against one test account.
//
//   node provider.mjs [--port N] [--access-ttl SECONDS] [--user NAME] [--password PW]
//
// Prints "PORT <n>" on stdout once it listens (tests/servers/launch.serving); its issuer is
// http://127.0.0.1:<n>. What it is configured for, as the MCP authorization spec uses it:
// - authorization code with PKCE, S256 required for every client;
// - resource indicators (RFC 8707): any loopback http(s) URL is a resource; its access tokens are JWTs
//   (RFC 9068) whose audience is exactly that URL, with the resource scopes mcp:read and mcp:write;
// - dynamic client registration (open), native clients with loopback redirects on any port (RFC 8252);
//   the `scope` a client registers is dropped, so it is no limit on what the client asks later (a step-up
//   to a scope the server challenges for; oidc-provider would refuse any scope outside the registered one);
// - refresh tokens for every client that registered the refresh_token grant (no offline_access needed);
// - access tokens that live --access-ttl seconds (short, to test refresh);
// - the interaction pages below: a login form (user name + password), and consent granted on its own
//   for what was asked, so a person types two things and is sent back to the client.
// Nothing is fetched from anywhere else: the pages have no external resources.

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

// The package lives with the other Node test dependencies, in tests/interop/node_modules.
const interop = createRequire(new URL('../../interop/package.json', import.meta.url));
const { default: Provider, errors } = await import(pathToFileURL(interop.resolve('oidc-provider')).href);

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'access-ttl': { type: 'string', default: '300' },
    user: { type: 'string', default: 'ada' },
    password: { type: 'string', default: 'correct horse battery staple' },
  },
});
const ACCESS_TTL = Number(args['access-ttl']);
const RESOURCE_SCOPES = 'mcp:read mcp:write';
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

function isLoopbackResource(indicator) {
  try {
    const url = new URL(indicator);
    return ['http:', 'https:'].includes(url.protocol) && LOOPBACK_HOSTS.has(url.hostname) && !url.hash;
  } catch {
    return false;
  }
}

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title, body) {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font-family:system-ui,sans-serif;max-width:22rem;margin:3rem auto;padding:0 1rem}
label{display:block;margin-top:.8rem}input{width:100%;box-sizing:border-box;padding:.4rem}
button{margin-top:1rem;padding:.4rem 1rem}.error{color:#b00020}
</style></head><body>${body}</body></html>`;
}

function loginPage(uid, clientName, { error = '' } = {}) {
  const who = clientName ? ` to continue to ${escapeHtml(clientName)}` : '';
  return page('Sign in — test authorization server', `
<h1>Sign in</h1>
<p>Test authorization server${who}.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}/login" autocomplete="off">
<label>User name <input name="username" autofocus required></label>
<label>Password <input name="password" type="password" required></label>
<button type="submit">Sign in</button>
</form>
<form method="post" action="/interaction/${escapeHtml(uid)}/abort"><button type="submit">Cancel</button></form>`);
}

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'rig-1', use: 'sig', alg: 'RS256' };

function configuration() {
  return {
    clients: [],
    // Listed here too so that clients may register them (RFC 7591 `scope`) and discovery shows them.
    scopes: ['openid', 'offline_access', ...RESOURCE_SCOPES.split(' ')],
    responseTypes: ['code'],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (!isLoopbackResource(indicator)) {
            throw new errors.InvalidTarget();
          }
          return {
            audience: indicator,
            scope: RESOURCE_SCOPES,
            accessTokenTTL: ACCESS_TTL,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: {
      AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? ACCESS_TTL,
      AuthorizationCode: 60,
      Grant: 24 * 3600,
      IdToken: 3600,
      Interaction: 600,
      RefreshToken: 24 * 3600,
      Session: 24 * 3600,
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // The default error page loads a web font from the network.
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      const lines = Object.entries(out).map(([k, v]) => `<p><b>${escapeHtml(k)}</b>: ${escapeHtml(v)}</p>`);
      ctx.body = page('Sign-in error', `<h1>Something went wrong</h1>${lines.join('')}`);
    },
  };
}

async function readForm(req) {
  const chunks = [];
  for await (const chunk of req) {
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function send(res, status, html) {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

// Consent for exactly what this authorization request asked and is not yet granted.
async function grantConsent(provider, details) {
  const { prompt, params, session, grantId } = details;
  const grant = grantId
    ? await provider.Grant.find(grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  if (prompt.details.missingOIDCScope) {
    grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
  }
  for (const [resource, scopes] of Object.entries(prompt.details.missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(' '));
  }
  return grant.save();
}

async function interaction(provider, req, res) {
  const url = new URL(req.url, 'http://127.0.0.1');
  const [, , uid, action] = url.pathname.split('/');
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) {
    send(res, 400, page('Sign-in error', '<p>This sign-in page is out of date.</p>'));
    return;
  }
  const client = await provider.Client.find(details.params.client_id);
  if (req.method === 'GET' && details.prompt.name === 'login') {
    send(res, 200, loginPage(uid, client?.clientName));
    return;
  }
  if (req.method === 'GET' && details.prompt.name === 'consent') {
    const consentId = await grantConsent(provider, details);
    await provider.interactionFinished(req, res, { consent: { grantId: consentId } }, { mergeWithLastSubmission: true });
    return;
  }
  if (req.method === 'POST' && action === 'login') {
    const form = await readForm(req);
    if (form.get('username') !== args.user || form.get('password') !== args.password) {
      send(res, 200, loginPage(uid, client?.clientName, { error: 'Wrong user name or password.' }));
      return;
    }
    await provider.interactionFinished(req, res, { login: { accountId: args.user } }, { mergeWithLastSubmission: false });
    return;
  }
  if (req.method === 'POST' && action === 'abort') {
    const result = { error: 'access_denied', error_description: 'The person cancelled the sign-in.' };
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
    return;
  }
  send(res, 405, page('Sign-in error', '<p>Not here.</p>'));
}

// oidc-provider takes an already read body as req.body.
async function withoutRegisteredScope(req) {
  const chunks = [];
  for await (const chunk of req) {
    chunks.push(chunk);
  }
  const metadata = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  delete metadata.scope;
  req.body = metadata;
}

let provider;
const server = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/reg') {
    withoutRegisteredScope(req).then(
      () => provider.callback()(req, res),
      () => send(res, 400, page('Registration error', '<p>The body is not JSON.</p>')),
    );
    return;
  }
  if (req.url.startsWith('/interaction/')) {
    interaction(provider, req, res).catch((err) => {
      if (!res.headersSent) {
        send(res, 400, page('Sign-in error', `<p>${escapeHtml(err.message)}</p>`));
      }
    });
    return;
  }
  provider.callback()(req, res);
});
server.listen(Number(args.port), '127.0.0.1', () => {
  const { port } = server.address();
  provider = new Provider(`http://127.0.0.1:${port}`, configuration());
  process.stdout.write(`PORT ${port}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => process.exit(0));
}
