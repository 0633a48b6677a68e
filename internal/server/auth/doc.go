// Package auth implements the authentication and data-access checks of the agent platform
// server (PLATFORM_API.md § 8): the API JWT, the chat image token and the pure path and
// reference rules of GET /data. It depends on the standard library only and knows nothing about
// routing, storage or the response envelope beyond the fixed 401 body.
//
// API JWT (§ 8.1). Config holds the auth.* keys; Config.Validate applies the fail-fast startup
// rules. A Verifier accepts only RS256 compact JWTs whose signature verifies with the local PEM
// key or, failing that, with a key of the JWKS document (by kid when the token names one, else
// every RSA key). It requires sub and an exp in the future, with no leeway (a token is expired
// from the very second named by exp; clocks must be synchronised), and an equal iss when an
// issuer is configured. nbf, iat and aud are not checked: § 8.1 lists the checks exhaustively.
// Middleware wraps the /api/ap handlers when auth is enabled, answers 401 with the envelope
// {"code":401,"msg":"unauthorized","data":{}} and stores the subject in the request context
// (SubjectFrom).
//
// JWKS. The document is fetched with a 5 s timeout (independent of the request's cancellation),
// cached for auth.jwksCacheSeconds, and refetched when a token names an unknown kid, at most once
// per 10 s. After a failed fetch no new attempt is made for 10 s. Keys are never used past their
// cache time: an expired cache that cannot be refreshed fails verification.
//
// Chat image token (§ 8.2). Issuer signs and verifies the HS256 token that grants read access
// to the files a chat references; Verify reports ErrTokenInvalid or ErrTokenExpired, whose texts
// are the errorCode values of the 403 body.
//
// GET /data (§ 8.3). CleanDataPath (step 1), ResolveDataFile (steps 2 and 4), NormalizeRef and
// ReferencedFiles (step 5), ContentType and ContentDisposition (headers) are pure functions;
// the handler maps their sentinel errors to the status and message of § 8.3.
package auth
