// A real OpenID Connect provider for Safezone's sign-in tests: `oidc-provider` on loopback.
//
//   node idp.mjs [--port N] --redirect-uri URI [--redirect-uri URI ...]
//
// Environment instead of flags: IDP_PORT, IDP_REDIRECT_URIS (space-separated).
// Port 0 (the default) lets the system pick a free port; the issuer is built from the port
// actually bound. When ready it prints one line on standard output:
//
//   idp listening on http://127.0.0.1:PORT
//
// and that URL is the issuer (discovery at {issuer}/.well-known/openid-configuration).
//
// One confidential client: client_id "safezone", client_secret "safezone-secret",
// authenticating at the token endpoint with HTTP Basic (client_secret_basic, the default of
// OAuth2/OIDC client libraries), grant authorization_code, response type code, PKCE (S256)
// accepted and checked when sent. The ID token carries name, email and picture as well as the
// userinfo endpoint (conformIdTokenClaims off).
//
// The provider's development login page (`devInteractions`) accepts any login name with any
// password. The login name is the account: sub = the name, name = the name,
// email = "<name without characters outside [A-Za-z0-9._-]>@idp.test",
// picture = "http://127.0.0.1:PORT/avatars/<sub, percent-encoded>.png". Names may be anything
// (tests use markup in names to check escaping on Safezone's pages).
//
// Stops on SIGTERM or SIGINT, and with --watch-stdin also when standard input closes (the
// test harness passes a pipe, so the provider never outlives a killed test process).
// --verbose logs the provider's events on standard error.

import http from 'node:http';
import process from 'node:process';
import { parseArgs } from 'node:util';

import Provider from 'oidc-provider';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    verbose: { type: 'boolean', default: false },
    'watch-stdin': { type: 'boolean', default: false },
  },
});

const port = Number(values.port ?? process.env.IDP_PORT ?? 0);
const redirectUris = values['redirect-uri']
  ?? (process.env.IDP_REDIRECT_URIS ?? '').split(/\s+/).filter(Boolean);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`idp: bad port ${values.port ?? process.env.IDP_PORT}`);
  process.exit(2);
}
if (redirectUris.length === 0) {
  console.error('idp: at least one --redirect-uri (or IDP_REDIRECT_URIS) is required');
  process.exit(2);
}

// Bind first so the issuer names the port actually bound.
const server = http.createServer();
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(port, '127.0.0.1', resolve);
});
const issuer = `http://127.0.0.1:${server.address().port}`;

function emailOf(sub) {
  const local = sub.replace(/[^A-Za-z0-9._-]/g, '') || 'user';
  return `${local}@idp.test`;
}

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: 'safezone',
      client_secret: 'safezone-secret',
      redirect_uris: redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  features: {
    devInteractions: { enabled: true },
  },
  pkce: {
    // Accepted and verified whenever the client sends a code_challenge; not demanded.
    required: () => false,
  },
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name', 'picture'],
  },
  // The ID token also carries the profile and email claims (besides the userinfo endpoint),
  // so a client may read the user from either.
  conformIdTokenClaims: false,
  async findAccount(_ctx, sub) {
    return {
      accountId: sub,
      async claims() {
        return {
          sub,
          name: sub,
          email: emailOf(sub),
          email_verified: true,
          picture: `${issuer}/avatars/${encodeURIComponent(sub)}.png`,
        };
      },
    };
  },
  clientBasedCORS: () => true,
  cookies: { keys: ['safezone-login-kit-cookie-signing-key'] },
  // Safezone's scopes ask for no refresh token; keep everything short-lived.
  ttl: {
    AccessToken: 600,
    AuthorizationCode: 60,
    IdToken: 600,
    Interaction: 600,
    Session: 3600,
    Grant: 3600,
  },
});
provider.proxy = false;

if (values.verbose) {
  for (const event of [
    'authorization.success', 'authorization.error', 'grant.success', 'grant.error',
    'server_error', 'userinfo.error', 'interaction.started', 'interaction.ended',
  ]) {
    provider.on(event, (...args) => {
      const error = args.find((arg) => arg instanceof Error);
      console.error(`idp: ${event}${error ? `: ${error.message} ${error.error_description ?? ''}` : ''}`);
    });
  }
}

server.on('request', provider.callback());

console.log(`idp listening on ${issuer}`);

function stop() {
  server.close();
  server.closeAllConnections?.();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
if (values['watch-stdin']) {
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
}
