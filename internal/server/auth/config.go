package auth

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// minRSABits is the smallest RSA modulus accepted from the PEM or the JWKS (crypto/rsa refuses
// smaller keys too).
const minRSABits = 1024

// Config is the auth.* block of the server configuration (§ 7.5). The zero value is auth off.
type Config struct {
	// Enabled turns the Bearer check on for every /api/ap request except OPTIONS.
	Enabled bool
	// PublicKeyPEM is the text of an RSA public key: "PUBLIC KEY" (PKIX), "RSA PUBLIC KEY"
	// (PKCS #1) or a "CERTIFICATE". Text without line breaks but with literal `\n` sequences (as
	// environment variables often carry it) is accepted. "" means no local key.
	PublicKeyPEM string
	// JWKSURI is the http(s) address of the JWKS document.
	JWKSURI string
	// Issuer is the required iss claim.
	Issuer string
	// JWKSCacheSeconds is how long a fetched JWKS document is used before it is fetched again.
	JWKSCacheSeconds int
	// JWKSMaxStaleSeconds is how much longer than JWKSCacheSeconds the keys last fetched are
	// used while the document cannot be fetched again (0: not at all).
	JWKSMaxStaleSeconds int
	// AdminScope is the scope (in the token's scope or scp claim) of an administrator, who
	// sees every user's chats, runs and documents ("" : nobody is).
	AdminScope string
}

// ConfigError names the configuration key that breaks a startup rule; it wraps ErrConfig.
type ConfigError struct {
	Field  string // the config key, e.g. "auth.issuer"
	Reason string
}

func (e *ConfigError) Error() string { return "auth config: " + e.Field + ": " + e.Reason }

// Unwrap makes errors.Is(err, ErrConfig) true.
func (e *ConfigError) Unwrap() error { return ErrConfig }

// Validate applies the fail-fast startup rules of § 8.1. With auth off nothing is checked.
// With auth on it fails when there is no key source, when the PEM is blank or not an RSA public
// key, when jwksUri is not an absolute http(s) URL, when jwksCacheSeconds is negative, or when
// only some of jwksUri, issuer and jwksCacheSeconds are set (all or none; an issuer therefore
// needs the JWKS settings too). A string field counts as set when it is not "".
func (c Config) Validate() error {
	if !c.Enabled {
		return nil
	}
	if c.PublicKeyPEM == "" && c.JWKSURI == "" {
		return &ConfigError{"auth.publicKeyPem", "auth is enabled but neither auth.publicKeyPem nor auth.jwksUri is set"}
	}
	if c.PublicKeyPEM != "" {
		if _, err := ParsePublicKeyPEM(c.PublicKeyPEM); err != nil {
			return &ConfigError{"auth.publicKeyPem", err.Error()}
		}
	}
	if c.JWKSCacheSeconds < 0 {
		return &ConfigError{"auth.jwksCacheSeconds", "must be a positive number of seconds"}
	}
	if err := c.validateJWKSGroup(); err != nil {
		return err
	}
	if c.JWKSURI != "" {
		if err := checkJWKSURI(c.JWKSURI); err != nil {
			return &ConfigError{"auth.jwksUri", err.Error()}
		}
	}
	if c.Issuer != "" && strings.TrimSpace(c.Issuer) == "" {
		return &ConfigError{"auth.issuer", "is blank"}
	}
	return nil
}

// validateJWKSGroup enforces "all or none" for jwksUri, issuer and jwksCacheSeconds and names
// the first missing key.
func (c Config) validateJWKSGroup() error {
	group := []struct {
		field string
		set   bool
	}{
		{"auth.jwksUri", c.JWKSURI != ""},
		{"auth.issuer", c.Issuer != ""},
		{"auth.jwksCacheSeconds", c.JWKSCacheSeconds != 0},
	}
	count := 0
	for _, g := range group {
		if g.set {
			count++
		}
	}
	if count == 0 || count == len(group) {
		return nil
	}
	for _, g := range group {
		if !g.set {
			return &ConfigError{g.field, "auth.jwksUri, auth.issuer and auth.jwksCacheSeconds must be set together (all or none)"}
		}
	}
	return nil
}

func checkJWKSURI(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("is not a valid URL")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an absolute http or https URL")
	}
	return nil
}

// ParsePublicKeyPEM parses the first PEM block of text as an RSA public key of at least 1024
// bits. Errors never quote the input.
func ParsePublicKeyPEM(text string) (*rsa.PublicKey, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("is blank")
	}
	if !strings.Contains(text, "\n") {
		text = strings.ReplaceAll(text, `\n`, "\n")
	}
	block, _ := pem.Decode([]byte(strings.TrimSpace(text)))
	if block == nil {
		return nil, errors.New("is not PEM encoded")
	}
	key, err := parsePEMBlock(block)
	if err != nil {
		return nil, err
	}
	if key.N.BitLen() < minRSABits {
		return nil, fmt.Errorf("RSA key has %d bits, want at least %d", key.N.BitLen(), minRSABits)
	}
	return key, nil
}

func parsePEMBlock(block *pem.Block) (*rsa.PublicKey, error) {
	var pub any
	var err error
	switch block.Type {
	case "PUBLIC KEY":
		pub, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		pub, err = x509.ParsePKCS1PublicKey(block.Bytes)
	case "CERTIFICATE":
		var cert *x509.Certificate
		if cert, err = x509.ParseCertificate(block.Bytes); err == nil {
			pub = cert.PublicKey
		}
	default:
		return nil, fmt.Errorf("PEM block %q is not a public key or certificate", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot parse the %s block: %w", block.Type, err)
	}
	key, ok := pub.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("the %s block holds a %T, not an RSA key", block.Type, pub)
	}
	return key, nil
}
