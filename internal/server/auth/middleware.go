package auth

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
)

// DefaultDataPath is the route of GET /data whose chat image token may replace the Bearer token.
const DefaultDataPath = "/api/ap/data"

// unauthorizedBody is the 401 envelope of § 1.2.
const unauthorizedBody = `{"code":401,"msg":"unauthorized","data":{}}`

// MiddlewareOption adjusts Middleware.
type MiddlewareOption func(*middleware)

// WithDataTokenValidation is chatImageToken.dataTokenValidation (default true): when on, a GET
// of the data path with a non-empty t parameter skips the Bearer check (the data handler
// verifies t instead); when off, t is ignored here and the Bearer rule applies.
func WithDataTokenValidation(on bool) MiddlewareOption {
	return func(m *middleware) { m.dataTokenValidation = on }
}

// WithDataPath sets the exact request path of GET /data as the middleware sees it (default
// DefaultDataPath; "/data" when the middleware sits behind http.StripPrefix("/api/ap", …)).
func WithDataPath(path string) MiddlewareOption {
	return func(m *middleware) { m.dataPath = path }
}

// WithLogger logs each refused request at debug level with its reason (never the token).
func WithLogger(logger *slog.Logger) MiddlewareOption {
	return func(m *middleware) { m.log = logger }
}

type middleware struct {
	verifier            *Verifier
	next                http.Handler
	dataTokenValidation bool
	dataPath            string
	log                 *slog.Logger
}

// Middleware enforces § 8.1 in front of next; install it only when auth is enabled (v must not
// be nil). OPTIONS requests pass unchecked. Every other request needs exactly one
// `Authorization: Bearer <jwt>` header that v accepts; the subject is then stored in the request
// context (SubjectFrom). A refused request gets the 401 envelope and never reaches next.
func Middleware(v *Verifier, next http.Handler, opts ...MiddlewareOption) http.Handler {
	if v == nil {
		panic("auth.Middleware: nil Verifier (install the middleware only when auth is enabled)")
	}
	m := &middleware{
		verifier:            v,
		next:                next,
		dataTokenValidation: true,
		dataPath:            DefaultDataPath,
		log:                 slog.New(slog.DiscardHandler),
	}
	for _, opt := range opts {
		opt(m)
	}
	return m
}

func (m *middleware) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodOptions || m.dataTokenBypass(r) {
		m.next.ServeHTTP(w, r)
		return
	}
	token, ok := bearerToken(r.Header)
	if !ok {
		m.refuse(w, r, "missing or malformed Bearer authorization")
		return
	}
	claims, err := m.verifier.Verify(r.Context(), token)
	if err != nil {
		m.refuse(w, r, err.Error())
		return
	}
	ctx := WithSubject(r.Context(), claims.Subject)
	if claims.Admin {
		ctx = WithAdmin(ctx)
	}
	m.next.ServeHTTP(w, r.WithContext(ctx))
}

// dataTokenBypass reports a GET of the data path with a non-empty t while validation is on.
func (m *middleware) dataTokenBypass(r *http.Request) bool {
	return m.dataTokenValidation && r.Method == http.MethodGet && r.URL.Path == m.dataPath &&
		r.URL.Query().Get("t") != ""
}

func (m *middleware) refuse(w http.ResponseWriter, r *http.Request, reason string) {
	m.log.LogAttrs(r.Context(), slog.LevelDebug, "auth rejected",
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("reason", reason))
	WriteUnauthorized(w)
}

// WriteUnauthorized answers 401 with the envelope {"code":401,"msg":"unauthorized","data":{}}.
func WriteUnauthorized(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("WWW-Authenticate", "Bearer")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = io.WriteString(w, unauthorizedBody)
}

// bearerToken extracts the token of the only Authorization header; the scheme is matched
// case-insensitively and the token must not be empty or contain spaces.
func bearerToken(h http.Header) (string, bool) {
	values := h.Values("Authorization")
	if len(values) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(values[0]), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// subjectKey is the context key of the request subject.
type subjectKey struct{}

// WithSubject returns ctx carrying the JWT subject (for the middleware and for tests).
func WithSubject(ctx context.Context, subject string) context.Context {
	return context.WithValue(ctx, subjectKey{}, subject)
}

// adminKey is the context key of an administrator's request.
type adminKey struct{}

// WithAdmin returns ctx marked as an administrator's request (the token has the admin scope).
func WithAdmin(ctx context.Context) context.Context { return context.WithValue(ctx, adminKey{}, true) }

// IsAdmin reports whether the request's token has the admin scope.
func IsAdmin(ctx context.Context) bool {
	admin, _ := ctx.Value(adminKey{}).(bool)
	return admin
}

// SubjectFrom returns the JWT subject of the request; ok is false when auth is off or the
// request passed without a Bearer check (OPTIONS, /data with a chat image token).
func SubjectFrom(ctx context.Context) (subject string, ok bool) {
	subject, ok = ctx.Value(subjectKey{}).(string)
	return subject, ok && subject != ""
}
