import * as oidc from 'openid-client';
import type { Scope } from './scopes.js';
import { parseTokenResponse, type TokenSet } from './token-set.js';

/**
 * Everything OAuth, through openid-client: the authorization URL with PKCE (S256) and state,
 * and the token requests. The service documents its endpoints (sections 4.1, 4.2) rather than
 * publishing discovery metadata, so the configuration is written out here.
 */

export interface OAuthSettings {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly Scope[];
  redirectUri: string;
  /** How token requests are encoded: the setting ATHLETE_TOKEN_REQUEST_ENCODING (config.ts). */
  tokenRequestEncoding: 'json' | 'form';
  /** A token request not answered within this many seconds is abandoned (and retryable). */
  timeoutS: number;
}

/** A started authorization: send the browser to `url`, keep `state` and `codeVerifier` server-side. */
export interface AuthorizationRequest {
  url: URL;
  state: string;
  codeVerifier: string;
}

export interface OAuthClient {
  /** The service's issuer identifier: its base URL (RFC 9207 `iss`). */
  readonly issuer: string;
  startAuthorization(): Promise<AuthorizationRequest>;
  /**
   * Exchanges the code in `callbackUrl`, checking first its state against the pending attempt and
   * its `iss`, when present, against the issuer (RFC 9207 §2.4).
   */
  exchangeCode(callbackUrl: URL, pending: { state: string; codeVerifier: string }): Promise<TokenSet>;
  /**
   * The refresh_token grant (RFC 6749 §6); see tokenRequestEncoding for its shape. A response
   * without `scope` keeps `grantedScopes`, the grant's scopes so far (RFC 6749 §5.1 and §6).
   */
  refresh(refreshToken: string, grantedScopes: readonly Scope[]): Promise<TokenSet>;
}

export function createOAuthClient(settings: OAuthSettings, clock: () => Date = () => new Date()): OAuthClient {
  const configuration = createConfiguration(settings);

  return {
    issuer: settings.baseUrl,

    async startAuthorization() {
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: settings.redirectUri,
        scope: settings.scopes.join(' '),
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url, state, codeVerifier };
    },

    async exchangeCode(callbackUrl, pending) {
      const response = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
      });
      return parseTokenResponse(response, settings.scopes, clock());
    },

    async refresh(refreshToken, grantedScopes) {
      const response = await oidc.refreshTokenGrant(configuration, refreshToken);
      return parseTokenResponse(response, grantedScopes, clock());
    },
  };
}

function createConfiguration(settings: OAuthSettings): oidc.Configuration {
  const configuration = new oidc.Configuration(
    {
      issuer: settings.baseUrl,
      authorization_endpoint: `${settings.baseUrl}/api/oauth/authorize`,
      token_endpoint: `${settings.baseUrl}/api/oauth/token`,
    },
    settings.clientId,
    { redirect_uris: [settings.redirectUri] },
    oidc.ClientSecretPost(settings.clientSecret),
  );
  configuration.timeout = settings.timeoutS;
  if (settings.tokenRequestEncoding === 'json') {
    configuration[oidc.customFetch] = sendTokenRequestsAsJson;
  }
  // Config allows plain http only for a sandbox on this machine.
  if (settings.baseUrl.startsWith('http:')) oidc.allowInsecureRequests(configuration);
  return configuration;
}

/** openid-client form-encodes token requests (RFC 6749); the service wants the same fields as JSON. */
const sendTokenRequestsAsJson: oidc.CustomFetch = (url, options) => {
  if (!(options.body instanceof URLSearchParams)) return fetch(url, options);
  const headers = new Headers(options.headers);
  headers.set('content-type', 'application/json');
  return fetch(url, { ...options, headers, body: JSON.stringify(Object.fromEntries(options.body)) });
};
